"""``tablebase serve``: the HTTP API and web pages over a tablebase database
(:mod:`tablebase.web.app`), lichess's protocol (:mod:`tablebase.web.lichess`) and the
boards of the pages (:mod:`tablebase.web.boards`)."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable

from tablebase.errors import ServeError, UsageError
from tablebase.store import Store


def serve(
    store: Store, host: str = "127.0.0.1", port: int = 8000, listening: Callable[[str], None] = lambda _url: None
) -> None:
    """Serve an open store with uvicorn until interrupted, on a socket bound here first,
    so that an address that cannot be had is one error before anything is announced.

    :param listening: called with the URL once the socket listens.
    :raises UsageError: if the ``serve`` extra (Starlette, uvicorn, Jinja2) is missing.
    :raises ServeError: if the address cannot be listened on (in use, not this
        machine's, a port reserved to root).
    """
    try:
        import uvicorn

        from tablebase.web.app import create_app
    except ImportError as error:
        raise UsageError(f'tablebase serve needs {error.name}: pip install "tablebase[serve]"') from None
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        listener = socket.create_server((host, port), family=family)
    except OSError as error:
        reason = os.strerror(error.errno) if (error.errno or 0) > 0 else error.strerror or str(error)
        raise ServeError(f"cannot listen on {host}:{port}: {reason}") from None
    with listener:
        listening(f"http://{host}:{port}/")
        uvicorn.Server(uvicorn.Config(create_app(store), log_level="warning")).run(sockets=[listener])
