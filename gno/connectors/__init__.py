"""Agent connectors: the gno skill file for skill-reading agents (``skills``) and the
connector catalog over skills and MCP client entries (``catalog``). Imported only by the
skill, setup and connector operations."""
