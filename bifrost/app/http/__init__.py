"""ASGI pieces the web app and MCP over HTTP share: body and rate limits, security headers."""
