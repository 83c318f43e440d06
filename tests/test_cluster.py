"""Builds on a real Dask cluster (a scheduler and two worker processes on loopback) give
the values of a local build, position by position, even when a worker is killed."""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest

from tablebase.build import build
from tablebase.game import load_game
from tablebase.store import open_store
from tests.backends import database_url  # noqa: F401 (a fixture)
from tests.dask_cluster import dask_cluster

CASES = [
    ("tictactoe", {"m": "4", "n": "4", "k": "4"}),
    ("connect4", {"width": "5", "height": "4"}),
    ("chess", {"material": "KQvKR"}),
]


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The same tablebases built here, in one process."""
    path = tmp_path_factory.mktemp("local") / "local.sqlite"
    with open_store(path) as store:
        for name, params in CASES:
            build(load_game(name, params), store)
    return str(path)


def stored(location: str) -> dict[str, tuple[np.ndarray, ...]]:
    with open_store(location, create=False) as store:
        return {row.description: store.read_values(row) for row in store.catalog() if row.status == "complete"}


def assert_built_as_locally(found: str, expected: str) -> None:
    """Every tablebase in ``found`` is complete and equals the one of ``expected``."""
    ours, theirs = stored(found), stored(expected)
    assert ours and set(ours) <= set(theirs)
    for description, arrays in ours.items():
        for mine, local_array in zip(arrays, theirs[description]):
            np.testing.assert_array_equal(mine, local_array, err_msg=description)


def test_cluster_builds_equal_local_builds(tmp_path, local, database_url):  # noqa: F811
    from tablebase.cluster import build_on_cluster

    built = []
    with dask_cluster(tmp_path) as (client, _workers):
        for name, params in CASES:
            build_on_cluster(client, load_game(name, params), database_url, report=built.append)
    assert {result.row.description for result in built} == set(stored(local))
    assert_built_as_locally(database_url, local)


def _worker_running(client, prefix: str, seconds: float = 120.0) -> str:
    """The address of a worker processing a task whose key starts with ``prefix``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for address, keys in client.processing().items():
            if any(str(key).startswith(prefix) for key in keys):
                return address
        time.sleep(0.05)
    raise AssertionError(f"no worker ran a {prefix} task")


def test_a_killed_worker_leaves_a_complete_correct_build(tmp_path, local):
    from tablebase.cluster import build_on_cluster

    location = str(tmp_path / "cluster.sqlite")
    game = load_game("chess", {"material": "KQvKR"})
    result = {}
    with dask_cluster(tmp_path) as (client, _workers):
        for dependency in game.dependencies():
            build_on_cluster(client, dependency, location)
        pids = client.run(os.getpid)
        builder = threading.Thread(target=lambda: result.update(done=build_on_cluster(client, game, location)))
        builder.start()
        victim = _worker_running(client, "_build_here")
        time.sleep(1.0)  # into the build: its reservation is in the catalog
        os.kill(pids[victim], signal.SIGKILL)
        builder.join(timeout=600)
        assert len(client.nthreads()) == 1  # the victim is gone; the other worker built it
    assert result["done"].row.description == game.describe()
    assert_built_as_locally(location, local)


def test_build_command_on_a_cluster(tmp_path, local):
    from typer.testing import CliRunner

    from tablebase.cli import app
    from tests.serving import free_port

    runner = CliRunner()
    database = str(tmp_path / "cli.sqlite")
    with dask_cluster(tmp_path) as (client, _workers):
        address = client.scheduler.address
        result = runner.invoke(app, ["build", "connect4", "-p", "width=5", "-p", "height=4", "--db", database,
                                     "--cluster", address])
        assert result.exit_code == 0, result.output
        assert "built connect4 width=5 height=4" in result.output
    assert_built_as_locally(database, local)
    unreachable = runner.invoke(app, ["build", "nim", "--db", database, "--cluster", f"tcp://127.0.0.1:{free_port()}"])
    assert unreachable.exit_code == 2 and unreachable.stderr.startswith("error: cannot reach the Dask scheduler")
    assert len(unreachable.stderr.splitlines()) == 1
