"""The MCP surface: tools from the registry (``tools``), their text (``texts``) and the SDK server (``server``)."""
