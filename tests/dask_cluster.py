"""A real Dask cluster on loopback for the tests: a ``dask scheduler`` process and worker
processes (``dask worker``), each with one thread and no nanny, so that a test can kill
one."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.serving import free_port


@contextlib.contextmanager
def dask_cluster(
    directory: Path, workers: int = 2, allowed_failures: int = 3
) -> Iterator[tuple[object, list[subprocess.Popen]]]:
    """Start a scheduler and ``workers`` workers; yields a connected ``distributed.Client``
    and the worker processes. ``allowed_failures``: the workers a task may kill before it
    fails (Dask's default 3). Skips the test where Dask is not installed."""
    distributed = pytest.importorskip("distributed", reason="Dask is not installed (the dask extra)")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"cwd": directory, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
         "--no-dashboard"], **quiet,
        env={**os.environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": str(allowed_failures)},
    )
    started = [start_worker(address, directory) for _ in range(workers)]
    try:
        client = distributed.Client(address, timeout="30s")
        client.wait_for_workers(workers, timeout=120)
        try:
            yield client, started
        finally:
            client.close()
    finally:
        for process in [*started, scheduler]:
            process.terminate()
        for process in [*started, scheduler]:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:  # a worker busy in a task: no need to wait for it
                process.kill()
                process.wait()


def start_worker(address: str, directory: Path) -> subprocess.Popen:
    """Start one more worker (one thread, no nanny) for the scheduler at ``address``."""
    return subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-nanny",
         "--no-dashboard", "--local-directory", str(directory)],
        cwd=directory, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
