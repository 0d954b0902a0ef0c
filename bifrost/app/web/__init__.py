"""The Bifrost web application (FastAPI, server-rendered HTML and a JSON API)."""

from bifrost.app.web.app import create_app

__all__ = ["create_app"]
