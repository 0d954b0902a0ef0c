"""Optional features and the extra that installs each: a missing one is a one-line error naming
the extra (``pip install 'bifrost-rag[web]'``), never an ImportError trace."""

from __future__ import annotations

import importlib.util

from bifrost.core.errors import MissingExtraError

EXTRAS: dict[str, tuple[str, ...]] = {
    "neo4j": ("neo4j",),
    "postgres": ("psycopg",),
    "llm": ("langchain_core", "langchain_openai", "openai"),
    "web": ("fastapi", "uvicorn", "jinja2", "gunicorn", "uvicorn_worker"),
    "eval": ("pytrec_eval", "matplotlib", "sklearn"),
    "mcp": ("mcp", "mcp.server.mcpserver"),  # MCPServer: mcp 2 (1.x had FastMCP)
    "ltr": ("lightgbm",),
    "experiments": ("onnxruntime", "onnx"),
}


def has_module(module: str) -> bool:
    """True when ``module`` can be imported here (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require_extra(extra: str, *modules: str) -> None:
    """Raise `MissingExtraError` naming ``extra`` when any of its modules is missing."""
    for module in modules or EXTRAS[extra]:
        if not has_module(module):
            raise MissingExtraError(module, extra)
