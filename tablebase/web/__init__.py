"""``tablebase serve``: the HTTP API and web pages over a tablebase database
(:mod:`tablebase.web.app`), lichess's protocol (:mod:`tablebase.web.lichess`) and the
boards of the pages (:mod:`tablebase.web.boards`)."""

from __future__ import annotations

from tablebase.errors import UsageError
from tablebase.store import Store


def serve(store: Store, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve an open store with uvicorn until interrupted.

    :raises UsageError: if the ``serve`` extra (Starlette, uvicorn, Jinja2) is missing.
    """
    try:
        import uvicorn

        from tablebase.web.app import create_app
    except ImportError as error:
        raise UsageError(f'tablebase serve needs {error.name}: pip install "tablebase[serve]"') from None
    uvicorn.run(create_app(store), host=host, port=port, log_level="warning")
