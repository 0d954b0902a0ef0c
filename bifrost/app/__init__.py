"""The application edge: the Bifrost facade, the CLI, the web app and the MCP server (the top layer)."""
