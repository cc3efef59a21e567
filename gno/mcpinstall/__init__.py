"""Registering gno's MCP server with AI clients (``gno mcp install | status | uninstall``).

``targets`` (which clients, where their configs live), ``entry`` (what gno
writes), ``formats`` + ``jsonc`` (editing only gno's entry, in JSONC, TOML or
YAML), ``files`` (backup and atomic write). Imported only by those commands.
"""
