"""``tablebase serve``: the listening socket and uvicorn, in one process or several
(:mod:`tablebase.faces.web.app` is what they serve)."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable

from tablebase.core.errors import ServeError, UsageError
from tablebase.store import open_store, resolve_location


def serve(
    location: str | None,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    listening: Callable[[str, str], None] = lambda _location, _url: None,
) -> None:
    """Serve a tablebase database with uvicorn until interrupted, on a socket bound here
    first, so that an address that cannot be had is one error before anything is
    announced.

    With ``workers`` above 1, uvicorn's supervisor runs that many processes on the one
    socket (the kernel spreads the connections), each with its own connection to the
    database and its own cache of decoded blocks; Ctrl-C or SIGTERM stops them all.

    :param location: an SQLite path or an SQLAlchemy URL, opened (``create=False``) here
        first, so that a missing or damaged database is an error before listening.
    :param workers: the number of server processes, at least 1.
    :param listening: called with the database's shown location and the URL once the
        socket listens.
    :raises UsageError: if the ``serve`` extra (Starlette, uvicorn, Jinja2) is missing,
        or for fewer than 1 worker.
    :raises StoreError: if the database cannot be opened.
    :raises ServeError: if the address cannot be listened on (in use, not this
        machine's, a port reserved to root).
    """
    try:
        import uvicorn
        from uvicorn.supervisors import Multiprocess

        from tablebase.faces.web.app import WORKER_COUNT, WORKER_DATABASE, create_app
    except ImportError as error:
        raise UsageError(f'tablebase serve needs {error.name}: pip install "tablebase[serve]"') from None
    if workers < 1:
        raise UsageError(f"--workers must be at least 1, not {workers}")
    location = resolve_location(location)
    store = open_store(location, create=False)
    try:
        listener = _listen(host, port)
    except ServeError:
        store.close()
        raise
    with listener:
        listening(store.location, f"http://{host}:{port}/")
        if workers == 1:
            with store:
                uvicorn.Server(uvicorn.Config(create_app(store), log_level="warning")).run(sockets=[listener])
            return
        store.close()
        os.environ[WORKER_DATABASE] = location
        os.environ[WORKER_COUNT] = str(workers)
        config = uvicorn.Config("tablebase.faces.web.app:worker_app", factory=True, workers=workers, log_level="warning")
        Multiprocess(config, sockets=[listener]).run()


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port``. :raises ServeError: if it cannot be had."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        return socket.create_server((host, port), family=family)
    except OSError as error:
        reason = os.strerror(error.errno) if (error.errno or 0) > 0 else error.strerror or str(error)
        raise ServeError(f"cannot listen on {host}:{port}: {reason}") from None
