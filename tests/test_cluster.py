"""Builds on a real Dask cluster (a scheduler and two worker processes on loopback, shared
by the module) give the values of a local build, position by position: their moves
generated on both workers, even when a worker is killed; Ctrl-C cancels the cluster's
tasks."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from tablebase.build.builder import build
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tests.backends import POSTGRES, postgres_database
from tests.dask_cluster import dask_cluster, start_worker
from tests.recorded import Recorded
from tests.terminal import on_terminal

TICTACTOE = ("tictactoe", {"m": "4", "n": "4", "k": "4"})
CONNECT4 = ("connect4", {"width": "5", "height": "4"})
ALL3 = ("chess", {"material": "all3", "metric": "dtm"})
KQVKR = ("chess", {"material": "KQvKR", "metric": "dtm"})
CASES = [TICTACTOE, CONNECT4, ALL3, KQVKR]
MOVE_TASKS = ("legal-", "expand-", "survey-", "_discover-", "_unmoves-", "_moves-")
"""The keys of the tasks that generate moves (a batch each), by the worker layer's task."""
KQVKR_TASKS = ("survey-", "_unmoves-")
"""The move tasks of KQvKR's batches (chess with metric=dtm is solved by un-moves)."""


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    """A Dask scheduler and two workers for the whole module: a client connected, the
    worker processes (a worker added to them is stopped at the end too), their directory."""
    directory = tmp_path_factory.mktemp("dask")
    with dask_cluster(directory) as (client, workers):
        yield client, workers, directory


@pytest.fixture(scope="module")
def cluster(running):
    """The client of the module's cluster."""
    return running[0]


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The same tablebases built here, in one process."""
    path = tmp_path_factory.mktemp("local") / "local.sqlite"
    with open_store(path) as store:
        for name, params in CASES:
            build(load_game(name, params), store)
    return str(path)


@pytest.fixture
def shared_database(tmp_path):
    """Where the workers store: a fresh PostgreSQL database where a server is given
    (``$TABLEBASE_TEST_POSTGRES``), else an SQLite file."""
    if not POSTGRES:
        yield str(tmp_path / "cluster.sqlite")
        return
    with postgres_database() as url:
        yield url


def stored(location: str) -> dict[str, tuple[np.ndarray, ...]]:
    """Every complete tablebase's keys, outcomes and remoteness, and DTZ where stored."""
    with open_store(location, create=False) as store:
        rows = [row for row in store.catalog() if row.status == "complete"]
        return {row.description: (*store.read_values(row), *(store.read_extra(row)[1:2] if row.value_kind == "dtz" else ())) for row in rows}


def assert_built_as_locally(found: str, expected: str) -> None:
    """Every tablebase in ``found`` is complete and equals the one of ``expected``."""
    ours, theirs = stored(found), stored(expected)
    assert ours and set(ours) <= set(theirs)
    for description, arrays in ours.items():
        for mine, local_array in zip(arrays, theirs[description]):
            np.testing.assert_array_equal(mine, local_array, err_msg=description)


def test_cluster_builds_equal_local_builds_with_moves_generated_on_both_workers(cluster, local, shared_database):
    from distributed import get_task_stream

    from tablebase.build.cluster import build_on_cluster

    built, progress = [], {}
    for name, params in CASES:
        recorded = Recorded()
        with get_task_stream(cluster) as tasks:
            result = build_on_cluster(cluster, load_game(name, params), shared_database, stages=recorded, report=built.append)
        progress[result.row.description] = recorded.stages
        if result.row.positions > 1_000_000:  # many batches (a collection's last member has few)
            generated_on = {task["worker"] for task in tasks.data if task["key"].startswith(MOVE_TASKS)}
            assert len(generated_on) == 2, (name, params)
    assert {result.row.description for result in built} == set(stored(local))
    assert_built_as_locally(shared_database, local)
    enumerated = progress["chess material=KQvKR metric=dtm"][0]
    keys = 2 * 462 * 64 * 64  # KQvKR's index space: two sides to move, 462 king pairs, two pieces
    assert enumerated == ["enumerate", keys, keys]  # every batch of the index space counted


def test_partitions_held_by_the_workers_store_the_local_values(cluster, local, shared_database, monkeypatch):
    """``build --cluster --partitions 2``: KQvKR's index space as two key ranges, one
    actor on each worker surveying and un-moving its own positions; its dependencies
    built on the workers first. Into PostgreSQL each worker writes its own range, into
    SQLite this process writes them all."""
    from distributed import get_task_stream
    from typer.testing import CliRunner

    from tablebase.faces.cli import app
    from tablebase.store import Store

    written_here = []
    write = Store.write
    monkeypatch.setattr(Store, "write", lambda self, row, keys, *rest, **named: written_here.append(len(keys)) or write(self, row, keys, *rest, **named))
    name, params = KQVKR
    command = ["build", name, *[f"-p{k}={v}" for k, v in params.items()], "--db", shared_database]
    with get_task_stream(cluster) as tasks:
        result = CliRunner().invoke(app, [*command, "--cluster", cluster.scheduler.address, "--partitions", "2"])
    assert result.exit_code == 0, result.output
    assert sum(written_here) == (0 if shared_database.startswith("postgresql") else stored(local)["chess material=KQvKR metric=dtm"][0].size)
    assert_built_as_locally(shared_database, local)
    assert "chess material=KQvKR metric=dtm" in stored(shared_database)
    held_on = {task["worker"] for task in tasks.data if task["key"].startswith("StoredRangePartition-")}
    assert len(held_on) == 2
    refused = CliRunner().invoke(app, ["build", name, "-pmaterial=KRPvKR", "--db", shared_database,
                                       "--cluster", cluster.scheduler.address, "--partitions", "2"])
    assert refused.exit_code != 0 and "metric=dtm" in refused.stderr and len(refused.stderr.splitlines()) == 1
    alone = CliRunner().invoke(app, [*command, "--partitions", "2"])
    assert alone.exit_code != 0 and "--partitions needs --cluster" in alone.stderr


def test_partitions_run_every_pass_of_the_default_chess_metric(cluster, tmp_path, shared_database, monkeypatch):
    """``build chess -p material=KRvK --cluster --partitions 2`` with the default metric
    (DTZ's passes and DTM's, over one survey a partition): the DTM and DTZ of a local
    build, its dependency built on a worker first; a bar for each pass run. The workers
    write their own key ranges, DTZ included, as into PostgreSQL (into SQLite too here:
    its writers take turns)."""
    from tablebase.build.cluster import build_on_cluster
    from tablebase.store import Store

    game = load_game("chess", {"material": "KRvK"})
    local = str(tmp_path / "local.sqlite")
    with open_store(local) as store:
        build(game, store)
    written_here = []
    monkeypatch.setattr(Store, "concurrent_writes", property(lambda self: True))
    monkeypatch.setattr(Store, "write", lambda *arguments, **named: written_here.append(arguments))
    recorded = Recorded()
    build_on_cluster(cluster, game, shared_database, stages=recorded, partitions=2)
    assert not written_here  # every value written by the workers
    assert_built_as_locally(shared_database, local)
    assert len(stored(shared_database)[game.describe()]) == 4  # DTZ compared too
    passes = [stage[1:] for stage in recorded.stages if stage[0] == "solve"]
    assert passes == [[game.size, game.size]] * 2  # pass A answered by pass B, then DTM's


def test_partitions_that_search_their_own_keys_store_the_local_values(cluster, local, shared_database):
    """``build connect4 --cluster --partitions 2``: the positions found by a forward search
    split by the keys' hash between two actors, one on each worker; the values merged
    back into key order as the store writes them."""
    from distributed import get_task_stream

    from tablebase.build.cluster import build_on_cluster

    name, params = CONNECT4
    recorded = Recorded()
    with get_task_stream(cluster) as tasks:
        result = build_on_cluster(cluster, load_game(name, params), shared_database, stages=recorded, partitions=2)
    assert_built_as_locally(shared_database, local)
    held_on = {task["worker"] for task in tasks.data if task["key"].startswith("StoredDiscoveredPartition-")}
    assert len(held_on) == 2
    bars = {stage[0]: stage[1:] for stage in recorded.stages}
    assert bars["discover"][1] + 1 == result.row.positions  # every key but the start found by the search
    assert bars["solve"] == [result.row.positions, result.row.positions]


def _worker_running(client, prefixes: tuple[str, ...], seconds: float = 300.0, passing_over=()) -> str:
    """The address of a worker processing a task whose key starts with one of ``prefixes``;
    workers whose pid is in ``passing_over`` (killed, though the scheduler may not know yet)
    are passed over. ``seconds`` is generous: a build may first compile the chess kernels
    in a worker of a fresh checkout (a minute or more on a loaded machine)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pids = _worker_pids(client)
        for address, keys in client.processing().items():
            alive = address in pids and pids[address] not in passing_over
            if alive and any(str(key).startswith(prefixes) for key in keys):
                return address
        time.sleep(0.02)
    raise AssertionError(f"no worker ran a {prefixes} task")


def _worker_pids(client) -> dict[str, int]:
    """The pid of each worker, by address, as the scheduler knows them."""
    return client.run_on_scheduler(lambda dask_scheduler: {address: worker.pid for address, worker in dask_scheduler.workers.items()})


def _kill_worker_running(client, prefixes: tuple[str, ...], killed: set[int], after: float = 0.0) -> str:
    """SIGKILL a worker processing a task whose key starts with one of ``prefixes``, ``after``
    seconds into it, add its pid to ``killed`` and return its address. The pid comes from the
    scheduler: asking a worker for it may reach one just killed."""
    victim = _worker_running(client, prefixes, passing_over=killed)
    pid = _worker_pids(client)[victim]
    time.sleep(after)
    killed.add(pid)
    os.kill(pid, signal.SIGKILL)
    return victim


def test_build_command_on_a_cluster_draws_cluster_wide_progress(cluster, tmp_path):
    from typer.testing import CliRunner

    from tablebase.faces.cli import app
    from tests.serving import free_port

    database, here = str(tmp_path / "cli.sqlite"), str(tmp_path / "here.sqlite")
    command = [sys.executable, "-m", "tablebase", "build", "connect4", "-pwidth=4", "-pheight=4"]
    code, text = on_terminal([*command, "--db", database, "--cluster", cluster.scheduler.address])
    assert code == 0, text
    assert "built connect4 width=4 height=4" in text
    for stage in ("discover", "solve", "write"):  # the bars, drawn as the batches come back from the workers
        assert f"\r{stage}" in text, stage
    totals = re.findall(r"\r(\w+) *:[^\r]*/([0-9.]+k?) ", text)
    assert totals and all(total == "80.5k" for _stage, total in totals), totals  # its 80,541 positions
    assert on_terminal([*command, "--db", here])[0] == 0
    assert_built_as_locally(database, here)
    runner = CliRunner()
    unreachable = runner.invoke(app, ["build", "nim", "--db", database, "--cluster", f"tcp://127.0.0.1:{free_port()}"])
    assert unreachable.exit_code == 2 and unreachable.stderr.startswith("error: cannot reach the Dask scheduler")
    assert len(unreachable.stderr.splitlines()) == 1


def test_ctrl_c_cancels_the_cluster_tasks(cluster, tmp_path):
    database = tmp_path / "interrupted.sqlite"
    name, params = TICTACTOE
    command = [sys.executable, "-m", "tablebase", "build", name, *[f"-p{k}={v}" for k, v in params.items()],
               "--db", str(database), "--cluster", cluster.scheduler.address]
    building = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _worker_running(cluster, MOVE_TASKS)
        building.send_signal(signal.SIGINT)
        _out, errors = building.communicate(timeout=60)
    finally:
        if building.poll() is None:
            building.kill()
    assert building.returncode == 130, errors
    assert errors.splitlines() == ["interrupted by SIGINT: stopped, nothing half-done is kept"]
    deadline = time.monotonic() + 30
    while cluster.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert cluster.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) == 0  # none queued or running
    time.sleep(3)  # what a worker still ran would be stored by now
    if database.exists():  # a new database that holds no tablebase is removed
        with open_store(database, create=False) as store:
            assert [row.status for row in store.catalog()] == ["building"]


def test_a_batch_that_kills_its_workers_fails_the_build_with_one_error_line(tmp_path):
    """With no failure allowed, a worker killed under a batch ends the build: one error
    line, exit code 1, the tablebase not kept."""
    database = tmp_path / "failed.sqlite"
    name, params = KQVKR
    with dask_cluster(tmp_path, workers=1, allowed_failures=0) as (client, workers):
        command = [sys.executable, "-m", "tablebase", "build", name, *[f"-p{k}={v}" for k, v in params.items()],
                   "--db", str(database), "--cluster", client.scheduler.address]
        building = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        killed: set[int] = set()
        try:
            while building.poll() is None:
                _kill_worker_running(client, KQVKR_TASKS, killed)
                try:
                    building.wait(timeout=15)
                except subprocess.TimeoutExpired:  # killed between two batches: the batch is rerun, not failed
                    workers.append(start_worker(client.scheduler.address, tmp_path))
            _out, errors = building.communicate(timeout=60)
        finally:
            if building.poll() is None:
                building.kill()
    assert building.returncode == 1, errors
    assert "Traceback" not in errors and [line for line in errors.splitlines() if line.startswith("error:")] == [
        errors.splitlines()[-1]
    ]
    assert re.match(r"error: task (survey|_unmoves)-\S+ killed every worker that ran it \(1, the last tcp://", errors.splitlines()[-1])
    with open_store(database, create=False) as store:
        assert "chess material=KQvKR metric=dtm" not in {row.description for row in store.catalog()}


def test_a_result_lost_in_its_gather_then_failing_where_run_again_fails_its_batch(tmp_path):
    """A batch's result lost while the driver gathers it (its worker killed, running the
    next batch), then the batch killed on the worker that runs it again: with no failure
    allowed, taking its result raises Dask's ``KilledWorker`` within seconds. (Through
    ``Client.get_executor()`` it never came, and such a build waited forever.)"""
    from distributed import KilledWorker

    from tablebase.build.cluster import cluster_workers

    def holding(client, prefix: str) -> bool:
        return any(str(key).startswith(prefix) and where for key, where in client.who_has().items())

    with dask_cluster(tmp_path, workers=1, allowed_failures=0) as (client, workers):
        executor = cluster_workers(client).executor
        result = executor.submit(os.urandom, 100_000_000)  # 100 MB, gathered for a while
        executor.submit(time.sleep, 60)
        while not holding(client, "urandom-"):
            time.sleep(0.001)
        os.kill(_worker_pids(client)[next(iter(client.processing()))], signal.SIGKILL)
        workers.append(start_worker(client.scheduler.address, tmp_path))
        _kill_worker_running(client, ("urandom-",), set())
        with pytest.raises(KilledWorker, match="urandom-"):
            result.result(timeout=60)


def _actors_held(client, prefix: str) -> dict[str, str]:
    """The worker address holding each actor whose key starts with ``prefix``, once made."""
    held = client.who_has()
    return {key: where[0] for key, where in held.items() if str(key).startswith(prefix) and where}


def test_a_worker_lost_with_a_partition_restarts_the_pass(running, tmp_path, local):
    """The worker holding one of KQvKR's two partitions is killed once both are made:
    the pass starts again on the worker left, says so in one line, and stores the local
    values. A fresh worker joins after, for the tests that follow."""
    from tablebase.build.cluster import build_on_cluster

    client, workers, directory = running
    location = str(tmp_path / "partitioned.sqlite")
    game, lines, result = load_game(*KQVKR), [], {}
    with open_store(location) as store:
        for dependency in game.dependencies():
            build(dependency, store)

    def building() -> None:
        result["done"] = build_on_cluster(client, game, location, partitions=2, notice=lines.append)

    builder = threading.Thread(target=building)
    builder.start()
    deadline = time.monotonic() + 300
    while len(held := _actors_held(client, "StoredRangePartition-")) < 2:
        assert time.monotonic() < deadline and builder.is_alive()
        time.sleep(0.02)
    victim = sorted(held.values())[0]
    killed = _worker_pids(client)[victim]
    os.kill(killed, signal.SIGKILL)
    builder.join(timeout=600)
    workers.append(start_worker(client.scheduler.address, directory))
    assert result["done"].row.description == game.describe()
    assert len(lines) == 1 and "starts again" in lines[0], lines
    assert_built_as_locally(location, local)
    deadline = time.monotonic() + 30  # nothing is left behind: the partitions are released, the victim gone
    while _actors_held(client, "StoredRangePartition-") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _actors_held(client, "StoredRangePartition-")
    import psutil  # distributed's own dependency

    assert not psutil.pid_exists(killed) or psutil.Process(killed).status() == psutil.STATUS_ZOMBIE


def test_killed_workers_leave_a_complete_correct_build(running, tmp_path, local):
    """A worker killed while it builds a dependency whole, then another while the
    tablebase's batches run (a fresh worker joining between): the build ends complete and
    equal to a local one. Runs last: it leaves the module's cluster short of a worker."""
    from tablebase.build.cluster import build_on_cluster

    client, workers, directory = running
    location = str(tmp_path / "killed.sqlite")
    game = load_game(*KQVKR)
    result, killed = {}, set()
    builder = threading.Thread(target=lambda: result.update(done=build_on_cluster(client, game, location)))
    builder.start()
    _kill_worker_running(client, ("_build_here-",), killed, after=0.2)  # into the build: its reservation is in the catalog
    workers.append(start_worker(client.scheduler.address, directory))
    victim = _kill_worker_running(client, KQVKR_TASKS, killed)
    builder.join(timeout=600)
    assert victim not in client.nthreads()
    assert result["done"].row.description == game.describe()
    with open_store(location, create=False) as store:
        assert {row.description for row in store.catalog()} == {
            f"chess material={material} metric=dtm" for material in ("KvK", "KQvK", "KRvK", "KQvKR")
        }
    assert_built_as_locally(location, local)
