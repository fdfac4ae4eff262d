"""``/docs``: Swagger UI for the API's OpenAPI schema (``/openapi.json``), from files the server
itself serves; both behind the API's own dependencies (Host, Origin, token).

Swagger UI 5 (which reads OpenAPI 3.1, the version FastAPI writes) comes from the files the
``fastapi-offline`` package ships (the ``service`` extra), so the page works without a network;
its start-up script is a file of rankscope's console, so that the page needs no inline script.
"""

# No ``from __future__ import annotations``: FastAPI reads the annotations of the routes at run
# time.
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from rankscope.errors import MissingDependencyError
from rankscope.service.web.routers.evaluations import API_DEPENDENCIES

__all__ = ["install_docs", "router"]

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rankscope evaluation service: API</title>
<link rel="stylesheet" href="/static/swagger/swagger-ui.css">
<link rel="icon" href="/static/swagger/favicon.png">
</head>
<body>
<div id="swagger-ui" data-schema="/openapi.json"></div>
<script src="/static/swagger/swagger-ui-bundle.js"></script>
<script src="/static/console/docs.js"></script>
</body>
</html>
"""


# Swagger UI sets style attributes; everything else comes from the server alone.
_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"
)


def install_docs(app: FastAPI) -> None:
    """Serve the schema at ``/openapi.json``, the Swagger UI files under ``/static/swagger``
    and the page at ``/docs`` (the app is made with ``openapi_url=None``)."""
    try:
        import fastapi_offline
    except ImportError:
        raise MissingDependencyError(
            "fastapi-offline", "the API documentation", "service"
        ) from None

    assets = Path(fastapi_offline.__file__).resolve().parent / "static"
    app.mount("/static/swagger", StaticFiles(directory=assets), name="swagger")

    app.include_router(router)


router = APIRouter(include_in_schema=False, dependencies=API_DEPENDENCIES)


@router.get("/openapi.json")
def schema(request: Request) -> JSONResponse:
    return JSONResponse(request.app.openapi())


@router.get("/docs")
def docs() -> HTMLResponse:
    return HTMLResponse(_PAGE, headers={"Content-Security-Policy": _POLICY})
