"""What the MCP server's command line says without importing the MCP SDK: its default port and its tools (a
test checks this list against the server's own)."""

MCP_PORT = 8808
"""`bifrost mcp --transport http`'s default port (no make target takes it: `make llm` keeps 8765)."""
TOOLS = ("ask", "search", "precedents", "provision", "neighbours", "entity", "diff")
"""The read-only tools, in the order the README lists them."""
