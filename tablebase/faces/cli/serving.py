"""The command that serves the stored tablebases over HTTP: ``serve``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from tablebase.faces.cli.options import DbOpt
from tablebase.util.cores import usable_cores


def serve(
    db: DbOpt = None,
    host: Annotated[str, typer.Option("--host", metavar="ADDRESS", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", metavar="PORT", min=1, max=65535, help="Port to listen on.")] = 8000,
    workers: Annotated[
        Optional[int], typer.Option("--workers", metavar="N", min=1, help="Server processes  [default: one per core]")
    ] = None,
) -> None:
    """Serve the stored tablebases over HTTP (needs the serve extra).

    A JSON API, lichess's tablebase protocol for chess (/standard) and web pages with boards.
    """
    from tablebase.faces.web.server import serve as serve_http

    count = workers or usable_cores()
    serve_http(
        db, host, port, count,
        lambda shown, url: typer.echo(f"serving {shown} on {url} with {count} worker{'s' if count > 1 else ''} (Ctrl-C stops)", err=True),
    )
