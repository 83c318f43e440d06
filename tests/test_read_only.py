"""A database that its user may not write, in a directory it may not write: queries,
info, export, verify and ``db current`` work, a build is a clean error, and nothing is
written there.

Root writes through permissions, so under root the commands run in a forked child that
has dropped its privileges to ``nobody`` (the database is readable by everyone); under
any other user the permissions alone make the database read-only.
"""

from __future__ import annotations

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

NOBODY = 65534
GAME = ["tictactoe"]


def run_unprivileged(commands: list[list[str]]) -> list[tuple[int, str, str]]:
    """Each command run through the CLI, in a forked child that cannot write what this
    process made: ``(exit code, stdout, stderr)`` of each."""
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        try:
            os.close(reader)
            if os.geteuid() == 0:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            results = [CliRunner().invoke(app, args) for args in commands]
            answer = [(r.exit_code, r.stdout, r.stderr) for r in results]
            os.write(writer, json.dumps(answer).encode())
        finally:
            os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as pipe:
        answer = pipe.read()
    os.waitpid(child, 0)
    return [tuple(result) for result in json.loads(answer)]


@pytest.fixture
def read_only_database() -> Iterator[Path]:
    """A database with the tic-tac-toe tablebase, in a directory that everyone may read
    and nobody but root may write (outside pytest's private temporary directory, which
    ``nobody`` cannot enter)."""
    folder = Path(tempfile.mkdtemp(prefix="tablebase-ro-"))
    db = folder / "tb.sqlite"
    try:
        assert CliRunner().invoke(app, ["build", *GAME, "--db", str(db)]).exit_code == 0
        db.chmod(0o444)
        folder.chmod(0o555)
        yield db
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)


def test_a_read_only_database_answers_every_reading_command(read_only_database):
    db = str(read_only_database)
    expected = CliRunner().invoke(app, ["query", *GAME, "start", "--db", db, "--json"])  # as this user
    exported = CliRunner().invoke(app, ["export", *GAME, "--db", db])
    assert expected.exit_code == 0 and exported.exit_code == 0
    for args in (["info"], ["verify", *GAME], ["db", "current"]):  # imports what the child needs
        CliRunner().invoke(app, [*args, "--db", db])
    before = sorted(os.listdir(read_only_database.parent))
    fresh = str(read_only_database.parent / "new.sqlite")
    query, info, export, verify, current, built, created = run_unprivileged(
        [
            ["query", *GAME, "start", "--db", db, "--json"],
            ["info", "--db", db],
            ["export", *GAME, "--db", db],
            ["verify", *GAME, "--db", db],
            ["db", "current", "--db", db],
            ["build", "subtraction", "--db", db],
            ["build", "subtraction", "--db", fresh],
        ]
    )
    assert query == (0, expected.stdout, "")
    assert info[0] == 0 and "tictactoe" in info[1] and "[complete]" in info[1]
    assert export[:2] == (0, exported.stdout)
    assert verify[0] == 0 and verify[1].startswith("ok: "), verify
    assert current[0] == 0 and "up to date" in current[1]
    assert built[0] == 1 and len(built[2].splitlines()) == 1
    assert built[2].startswith(f"error: database {db}: this user may read it, not write it (it can be queried")
    assert created[0] == 1 and created[2] == f"error: cannot create {fresh}: this user may not write in {read_only_database.parent}\n"
    assert sorted(os.listdir(read_only_database.parent)) == before


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
