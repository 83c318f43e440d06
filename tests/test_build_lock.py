"""Build locks and the identity of a tablebase, on every backend (SQLite and PostgreSQL):
a live builder blocks a second build wherever it runs, a dead one is taken over whatever
its recorded pid or host, ``build --force`` breaks a lock, two first builds into a new
database both build, and a tablebase built for an older version of its game is outdated."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys

import pytest
import sqlalchemy as sa
from alembic import command
from typer.testing import CliRunner

from tablebase.build.builder import build
from tablebase.core.errors import BuildInProgressError
from tablebase.faces.cli import app
from tablebase.solve.registry import load_game
from tablebase.store import open_store, removed_if_unused
from tablebase.store.engine import engine_for
from tablebase.store.migration import _alembic_config
from tests.backends import POSTGRES, database_url, postgres_database  # noqa: F401  (the fixture)
from tests.forked import invoke, run_together

HOLDER = """
import sys
import numpy as np
from tablebase.core.errors import StoreError
from tablebase.store import open_store
store = open_store(sys.argv[1])
row = store.begin_build("subtraction", sys.argv[2], "subtraction max=20")
print("holding", flush=True)
sys.stdin.readline()
try:
    keys = np.arange(3, dtype=np.int64)  # its tables dropped by then: the write fails first
    store.write(row, keys, np.zeros(3, dtype=np.int8), np.zeros(3, dtype=np.int32))
    store.complete(row, np.zeros(1, dtype=np.int8), np.zeros(1, dtype=np.int32), 0.0)
    print("completed", flush=True)
except StoreError as error:
    print(error, flush=True)
"""


@pytest.fixture
def subtraction():
    return load_game("subtraction", {"max": "20"})


@pytest.fixture
def holder(database_url, subtraction):
    """Another process that has begun a build of ``subtraction`` and holds it until a
    line comes on its stdin, then tries to write values and complete it (taken over
    meanwhile, its write failed with "no such table: chunks_N" before it said so)."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, database_url, subtraction.identity()],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    assert process.stdout.readline() == "holding\n"
    yield process
    process.kill()
    process.wait()


def test_a_live_builder_blocks_a_second_build_and_a_killed_one_is_taken_over(database_url, subtraction, holder):
    with open_store(database_url) as store:
        with pytest.raises(BuildInProgressError, match="being built by another process"):
            build(subtraction, store)
        holder.kill()
        holder.wait()
        assert not build(subtraction, store).reused
        assert [row.status for row in store.catalog()] == ["complete"]


def test_a_query_of_a_tablebase_being_built_says_so_and_one_of_a_killed_build_says_to_build(database_url, subtraction, holder):
    runner = CliRunner()
    query = ["query", "subtraction", "4", "-p", "max=20", "--db", database_url]
    waiting = runner.invoke(app, query)
    assert waiting.exit_code == 1 and "is being built by another process" in waiting.stderr, waiting.stderr
    holder.kill()
    holder.wait()
    killed = runner.invoke(app, query)
    assert killed.exit_code == 1 and "not built; run: tablebase build subtraction" in killed.stderr, killed.stderr


def test_force_takes_a_build_over_from_a_live_process_which_then_fails(database_url, subtraction, holder):
    runner = CliRunner()
    refused = runner.invoke(app, ["build", "subtraction", "-p", "max=20", "--db", database_url])
    assert refused.exit_code == 1 and "take it over with --force" in refused.stderr
    forced = runner.invoke(app, ["build", "subtraction", "-p", "max=20", "--force", "--db", database_url])
    assert forced.exit_code == 0, forced.stderr
    holder.stdin.write("complete\n")
    holder.stdin.flush()
    assert "taken over by another build" in holder.stdout.readline()
    with open_store(database_url) as store:
        [row] = store.catalog()
        assert row.status == "complete" and row.positions == 21


@pytest.mark.parametrize("builder", ["another-host:4242", f"{socket.gethostname()}:1"])
def test_a_dead_build_is_taken_over_whatever_pid_or_host_it_records(database_url, subtraction, builder):
    """A build whose process ended, recorded on another host or under a pid now of
    another process (1, init)."""
    with open_store(database_url) as store:
        store.begin_build(subtraction.name, subtraction.identity(), subtraction.describe())
    with open_store(database_url) as store:
        with store.engine.begin() as connection:
            connection.execute(sa.text("UPDATE tablebases SET builder = :builder"), {"builder": builder})
        assert not build(subtraction, store).reused
        assert [row.status for row in store.catalog()] == ["complete"]


def test_a_tablebase_of_an_older_game_version_is_outdated_and_rebuilt(database_url, subtraction, monkeypatch):
    runner = CliRunner()
    args = ["subtraction", "-p", "max=20", "--db", database_url]
    assert runner.invoke(app, ["build", *args]).exit_code == 0
    monkeypatch.setattr(type(subtraction), "version", 2)
    info = runner.invoke(app, ["info", "--db", database_url])
    assert "[complete, outdated: built for version 1 of the game]" in info.stdout
    [row] = json.loads(runner.invoke(app, ["info", "--db", database_url, "--json"]).stdout)
    assert (row["game_version"], row["outdated"]) == (1, True)
    query = runner.invoke(app, ["query", *args[:3], "4", *args[3:]])
    assert query.exit_code == 1 and "outdated" in query.stderr and "tablebase build subtraction" in query.stderr
    rebuilt = runner.invoke(app, ["build", *args])
    assert rebuilt.exit_code == 0 and rebuilt.stdout.startswith("built ")
    [row] = json.loads(runner.invoke(app, ["info", "--db", database_url, "--json"]).stdout)
    assert (row["game_version"], row["outdated"]) == (2, False)
    assert json.loads(runner.invoke(app, ["query", *args[:3], "4", *args[3:], "--json"]).stdout)["outcome"] == "loss"


def test_upgrading_from_revision_0003_records_version_1_for_every_tablebase(database_url, subtraction):
    engine = engine_for(database_url)
    config = _alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0003")
        connection.execute(
            sa.text(
                "INSERT INTO tablebases (game, params, description, status, format_version, value_kind, created_at) "
                "VALUES ('subtraction', :params, 'old', 'complete', 2, 'wdl', '2026-11-01 00:00:00')"
            ),
            {"params": subtraction.identity()},
        )
    engine.dispose()
    with open_store(database_url) as store:
        [row] = store.catalog()
        assert row.game_version == 1
        assert store.find(subtraction.name, subtraction.identity(), version=1).id == row.id
        assert store.find(subtraction.name, subtraction.identity(), version=2) is None


def test_two_builds_completing_side_by_side_both_complete(tmp_path):
    """A build's completion that reads the catalog while another process's completion
    writes it waits for that write, instead of failing (SQLite's busy snapshot)."""
    import threading

    import numpy as np

    values = (np.zeros(0, np.int8), np.zeros(0, np.int32))
    with open_store(tmp_path / "side.sqlite") as ours, open_store(tmp_path / "side.sqlite") as theirs:
        first = ours.begin_build("nim", '{"a": 1}', "nim a", "wdl")
        second = theirs.begin_build("nim", '{"a": 2}', "nim b", "wdl")
        other = threading.Thread(target=theirs.complete, args=(second, *values, 0.0))

        @sa.event.listens_for(ours.engine, "after_cursor_execute")
        def meanwhile(_connection, _cursor, statement, *_args):  # type: ignore[no-untyped-def]
            if statement.startswith("SELECT tablebases") and not other.is_alive() and other.ident is None:
                other.start()  # right after the read inside complete
                other.join(timeout=1)  # it completes now, unless this one holds the write lock

        assert ours.complete(first, *values, 0.0).status == "complete"
        other.join()
        assert sorted(row.status for row in ours.catalog()) == ["complete", "complete"]


def test_info_tells_a_build_whose_builder_is_gone(database_url, holder):
    """While its process lives, a build is ``[building]``; once killed (-9), ``info``
    says it is abandoned, in text and JSON, where it showed ``[building]`` as before."""
    runner = CliRunner()
    live = runner.invoke(app, ["info", "--db", database_url])
    assert "[building]" in live.stdout and "abandoned" not in live.stdout
    holder.kill()
    holder.wait()
    gone = runner.invoke(app, ["info", "--db", database_url])
    assert "[building, abandoned: its builder is gone; the next build takes it over]" in gone.stdout
    [listed] = json.loads(runner.invoke(app, ["info", "--db", database_url, "--json"]).stdout)
    assert listed["status"] == "building" and listed["abandoned"] is True


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_first_builds_side_by_side_both_build(backend, tmp_path):
    """Two builds begun at the same moment into a database that does not exist yet (an
    empty one on PostgreSQL) both build, 20 times of 20, and store both tablebases whole
    and right; on SQLite one of them failed with "database is locked" (both created the
    schema, or one read it while the other took the file into WAL mode)."""
    if backend == "postgresql" and not POSTGRES:
        pytest.skip("no PostgreSQL server: set $TABLEBASE_TEST_POSTGRES (see .ci/postgres.sh)")
    for attempt in range(20):
        fresh = contextlib.nullcontext(str(tmp_path / f"tb{attempt}.sqlite")) if backend == "sqlite" else postgres_database()
        with fresh as db:
            built = run_together([["build", "subtraction", "--db", db], ["build", "nim", "--db", db]])
            assert [code for code, _out, _err in built] == [0, 0], built
            listed = json.loads(invoke(["info", "--json", "--db", db])[1])
            assert sorted((row["game"], row["status"], row["positions"]) for row in listed) == [
                ("nim", "complete", 120),  # three heaps of 0 to 7, in any order: C(10, 3)
                ("subtraction", "complete", 101),
            ]
            for game, position, expected in [  # n % 4 == 0 loses in n / 2 plies; a nim sum of 0 loses
                ("subtraction", "96", ("loss", 48)), ("subtraction", "97", ("win", 49)),
                ("nim", "1,2,3", ("loss",)), ("nim", "1,2,2", ("win",)), ("nim", "7,7,0", ("loss",)),
            ]:
                answer = json.loads(invoke(["query", game, position, "--json", "--db", db])[1])
                assert (answer["outcome"], answer["remoteness"])[: len(expected)] == expected, (game, position)


OPENER = """
import sys
from tablebase.build.builder import build
from tablebase.solve.registry import load_game
from tablebase.store import open_store
with open_store(sys.argv[1]) as store:
    print("open", flush=True)
    sys.stdin.readline()
    print(build(load_game("subtraction", {"max": "20"}), store).row.status, flush=True)
"""


def test_a_failed_first_build_leaves_a_new_database_another_build_has_open(tmp_path):
    """A first build into a new file that ends with nothing stored (failed, or a dry run)
    removes the file, but not while another build has it open: that one goes on, and
    its tablebase is found in the file. It was removed under the other build, whose
    writes then failed ("disk I/O error", "attempt to write a readonly database")."""
    db = tmp_path / "new.sqlite"
    with removed_if_unused(db):
        other = subprocess.Popen([sys.executable, "-c", OPENER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert other.stdout.readline() == "open\n"
    assert db.exists()
    other.communicate("go\n", timeout=300)
    assert other.returncode == 0
    answer = json.loads(invoke(["query", "subtraction", "20", "-p", "max=20", "--json", "--db", str(db)])[1])
    assert (answer["outcome"], answer["remoteness"]) == ("loss", 10)  # 20 % 4 == 0: lost in 10 plies
    with removed_if_unused(tmp_path / "alone.sqlite"):
        open_store(tmp_path / "alone.sqlite").close()
    assert sorted(os.listdir(tmp_path)) == [db.name, f"{db.name}-lock"]  # a new file no build has open is removed
