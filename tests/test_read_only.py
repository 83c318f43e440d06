"""A database that its user may not write, in a directory it may not write: queries,
info, export, verify and ``db current`` work, a build is a clean error, and nothing is
written there.

Root writes through permissions, so under root the commands run in a forked child that
has dropped its privileges to ``nobody`` (the database is readable by everyone); under
any other user the permissions alone make the database read-only.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablebase.faces.cli import app
from tests.forked import NOBODY, run_unprivileged

GAME = ["tictactoe"]


@contextlib.contextmanager
def database(file_mode: int, folder_mode: int) -> Iterator[Path]:
    """A database with the tic-tac-toe tablebase and nothing beside it, its file and its
    directory given these permissions (outside pytest's private temporary directory,
    which ``nobody`` cannot enter)."""
    folder = Path(tempfile.mkdtemp(prefix="tablebase-ro-"))
    db = folder / "tb.sqlite"
    try:
        assert CliRunner().invoke(app, ["build", *GAME, "--db", str(db)]).exit_code == 0
        (folder / "tb.sqlite-lock").unlink()
        db.chmod(file_mode)
        folder.chmod(folder_mode)
        yield db
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)


@pytest.fixture
def read_only_database() -> Iterator[Path]:
    """The database read-only, in a directory that everyone may read and nobody but root
    may write."""
    with database(0o444, 0o555) as db:
        yield db


def reading_commands(db: str) -> list[list[str]]:
    """The commands that read a database: query, info, export, verify, db current."""
    return [
        ["query", *GAME, "start", "--db", db, "--json"],
        ["info", "--db", db],
        ["export", *GAME, "--db", db],
        ["verify", *GAME, "--db", db],
        ["db", "current", "--db", db],
    ]


def assert_read(answers: list[tuple[int, str, str]], db: str) -> None:
    """The answers of :func:`reading_commands` are those of a user who may write ``db``."""
    query, info, export, verify, current = answers
    runner = CliRunner()
    assert query == (0, runner.invoke(app, ["query", *GAME, "start", "--db", db, "--json"]).stdout, "")
    assert info[0] == 0 and "tictactoe" in info[1] and "[complete]" in info[1]
    assert export[:2] == (0, runner.invoke(app, ["export", *GAME, "--db", db]).stdout)
    assert verify[0] == 0 and verify[1].startswith("ok: "), verify
    assert current[0] == 0 and "up to date" in current[1]


def test_a_read_only_database_answers_every_reading_command(read_only_database):
    db = str(read_only_database)
    for args in reading_commands(db):  # imports what the child needs
        CliRunner().invoke(app, args)
    before = sorted(os.listdir(read_only_database.parent))
    fresh = str(read_only_database.parent / "new.sqlite")
    *answers, built, created = run_unprivileged(
        [*reading_commands(db), ["build", "subtraction", "--db", db], ["build", "subtraction", "--db", fresh]]
    )
    assert sorted(os.listdir(read_only_database.parent)) == before
    assert_read(answers, db)
    assert built[0] == 1 and built[2] == (
        f"error: cannot write {db}: this user may read it, not write it nor its directory "
        f"{read_only_database.parent} (it can be queried, not built into)\n"
    )
    assert created[0] == 1 and created[2] == f"error: cannot create {fresh}: this user may not write in {read_only_database.parent}\n"


def test_a_read_only_file_in_a_writable_directory_is_read_and_nothing_is_written_beside_it():
    """Where the directory may be written, SQLite made the ``-shm`` and ``-wal`` files of
    the WAL database beside it to read it, and left them there."""
    with database(0o444, 0o777) as db:
        content = db.read_bytes()
        *answers, built = run_unprivileged([*reading_commands(str(db)), ["build", "subtraction", "--db", str(db)]])
        assert os.listdir(db.parent) == ["tb.sqlite"]
        assert db.read_bytes() == content
        assert_read(answers, str(db))  # opens it as this user: after the look beside it
        assert built[0] == 1 and built[2] == f"error: cannot write {db}: this user may read it, not write it (it can be queried, not built into)\n"


def test_a_build_into_a_writable_file_in_a_read_only_directory_names_the_directory():
    """It named the file: "not a usable tablebase database: unable to open database file"
    (SQLite could not make its journal beside it)."""
    with database(0o666, 0o555) as db:
        content = db.read_bytes()
        built, *answers = run_unprivileged([["build", "subtraction", "--db", str(db)], *reading_commands(str(db))])
        assert built[0] == 1 and built[2] == (
            f"error: cannot write {db}: this user may not write in its directory {db.parent}, "
            "where SQLite keeps its journal beside it (it can be queried, not built into)\n"
        )
        assert os.listdir(db.parent) == ["tb.sqlite"]
        assert db.read_bytes() == content
        assert_read(answers, str(db))


SETPRIV = shutil.which("setpriv")


@pytest.mark.skipif(os.geteuid() != 0 or SETPRIV is None, reason="needs root and setpriv to run as another user")
def test_another_user_without_a_home_queries_an_install_it_cannot_write(read_only_database):
    """A fresh process of ``nobody`` (as ``setpriv`` starts it, its home missing) imports
    the package, whose sources it cannot write, so numba cannot cache the kernels beside
    them: the cache goes to a directory of its own (tablebase/util/compile_cache.py), and
    the query answers, where it died with "cannot cache function ...: no locator"."""
    sources = Path(__file__).resolve().parents[1]
    if not all(os.stat(path).st_mode & 0o005 == 0o005 for path in (sources, sources / "tablebase")):
        pytest.skip("the checkout is not readable by other users")
    command = [SETPRIV, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", sys.executable, "-m", "tablebase"]
    environment = {key: value for key, value in os.environ.items() if not key.startswith("NUMBA_")}
    environment.update(HOME="/nonexistent", PYTHONPATH=str(sources))
    query = ["query", *GAME, "start", "--db", str(read_only_database), "--json"]
    done = subprocess.run(command + query, capture_output=True, text=True, env=environment, cwd="/", timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["outcome"] == "draw"
