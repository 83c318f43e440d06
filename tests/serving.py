"""A real ``tablebase serve`` process on a free loopback port, for the browser tests and
the load benchmark."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def served(database: Path | str, wait_seconds: float = 20.0, workers: int = 1) -> Iterator[str]:
    """Run ``tablebase serve --db DATABASE --workers WORKERS`` until the block ends;
    yields its base URL once it answers.

    :raises RuntimeError: if the server exits or does not answer in ``wait_seconds``.
    """
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tablebase", "serve", "--db", str(database), "--port", str(port), "--workers", str(workers)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                urllib.request.urlopen(base + "/api/tablebases", timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"tablebase serve did not start: {process.stderr.read1().decode()}") from None
                time.sleep(0.05)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)
