"""``/docs``: Swagger UI for the API's OpenAPI schema, from files the server itself serves.

The Swagger UI bundle comes from the ``swagger-ui-bundle`` package (the ``service`` extra), so
the page works without a network; its start-up script is a file of rankscope's console, so that
the page needs no inline script.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankscope.errors import MissingDependencyError

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["install_docs"]

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rankscope evaluation service: API</title>
<link rel="stylesheet" href="/static/swagger/swagger-ui.css">
<link rel="icon" href="/static/swagger/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui" data-schema="/openapi.json"></div>
<script src="/static/swagger/swagger-ui-bundle.js"></script>
<script src="/static/console/docs.js"></script>
</body>
</html>
"""


def install_docs(app: FastAPI) -> None:
    """Serve the Swagger UI files under ``/static/swagger`` and the page at ``/docs``."""
    from fastapi.responses import HTMLResponse
    from fastapi.staticfiles import StaticFiles

    try:
        from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]
    except ImportError:
        raise MissingDependencyError(
            "swagger-ui-bundle", "the API documentation", "service"
        ) from None

    app.mount("/static/swagger", StaticFiles(directory=str(swagger_ui_path)), name="swagger")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return HTMLResponse(_PAGE)
