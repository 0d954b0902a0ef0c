"""The MCP server: Bifrost's read-only tools and provision resources for assistants.

Built on the official `mcp` SDK (extra ``mcp``); `server.create_server(bifrost)` wires the
tools and resources of `service.McpService`, a thin layer over the `Bifrost` facade.
"""
