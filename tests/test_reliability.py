"""Crash safety and concurrent use, with real processes and real SIGKILLs.

``TABLEBASE_KILLS`` sets how many builds the kill test kills (default 8).
"""

from __future__ import annotations

import hashlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tablebase.read.query import Tablebase
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tablebase.util.interrupt import Interrupted, interruptible

KILLS = int(os.environ.get("TABLEBASE_KILLS", "8"))
GAME = ["connect4", "-p", "width=5", "-p", "height=4"]


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "tablebase", *args]


def start(*args: str) -> subprocess.Popen:
    """A tablebase command in a process group of its own (workers included)."""
    return subprocess.Popen(command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def finish(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(command(*args), capture_output=True, text=True, timeout=300)


def checksum(db: Path) -> str:
    game = load_game("connect4", {"width": "5", "height": "4"})
    with open_store(db) as store:
        keys, outcome, remoteness = store.read_values(store.require(game.name, game.identity(), ""))
    return hashlib.sha256(keys.tobytes() + outcome.tobytes() + remoteness.tobytes()).hexdigest()


def statuses(db: Path) -> list[str]:
    if not db.exists():
        return []
    with sqlite3.connect(db, timeout=60) as connection:
        try:
            return [r[0] for r in connection.execute("SELECT status FROM tablebases")]
        except sqlite3.OperationalError:  # killed before the catalog existed
            return []


def stacks_of_hung(process: subprocess.Popen) -> str:
    """Kill a hung command's process group, first asking it for every thread's stack
    (SIGUSR1); what it wrote to stderr, for the failure's message."""
    process.send_signal(signal.SIGUSR1)
    time.sleep(1)
    os.killpg(process.pid, signal.SIGKILL)
    return process.communicate()[1].decode()[-6000:]


def wait_for_status(db: Path, status: str) -> None:
    """Wait (up to a minute) until a catalog row of ``db`` has ``status``."""
    deadline = time.monotonic() + 60
    while status not in statuses(db) and time.monotonic() < deadline:
        time.sleep(0.02)


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> tuple[str, float]:
    """The checksum of a clean build, and how long it took."""
    db = tmp_path_factory.mktemp("clean") / "tb.sqlite"
    started = time.perf_counter()
    assert finish("build", *GAME, "--db", str(db)).returncode == 0
    return checksum(db), time.perf_counter() - started


def test_sigusr1_writes_every_thread_s_stack_and_the_build_goes_on(tmp_path):
    """``kill -USR1`` of a build shows where it stands, its threads' stacks on stderr,
    and the build ends as if it had not been sent."""
    db = tmp_path / "usr1.sqlite"
    process = start("build", *GAME, "--workers", "2", "--db", str(db))
    wait_for_status(db, "building")
    process.send_signal(signal.SIGUSR1)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0 and "built" in out.decode(), err.decode()
    assert "most recent call first" in err.decode() and 'File "' in err.decode()


def test_killed_builds_are_never_served_and_the_next_build_matches_a_clean_one(tmp_path, clean):
    expected, seconds = clean
    rng = random.Random(2026)
    recovered = 0
    for kill in range(KILLS):
        db = tmp_path / f"kill{kill}.sqlite"
        process = start("build", *GAME, "--db", str(db))
        time.sleep(rng.uniform(0.0, seconds * 1.1))
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        info = finish("info", "--db", str(db)) if db.exists() else None
        assert info is None or info.returncode == 0, info.stderr
        if "complete" not in statuses(db):
            query = finish("query", *GAME, "start", "--db", str(db))
            assert query.returncode != 0 and "\n" not in query.stderr.strip()
            assert "Traceback" not in query.stderr
        rebuilt = finish("build", *GAME, "--db", str(db))
        assert rebuilt.returncode == 0, rebuilt.stderr
        assert statuses(db) == ["complete"]
        assert checksum(db) == expected
        recovered += 1
    assert recovered == KILLS


def test_a_second_build_of_the_same_tablebase_stops_with_a_clear_message(tmp_path):
    db = tmp_path / "tb.sqlite"
    first = start("build", *GAME, "--db", str(db))
    wait_for_status(db, "building")
    first.send_signal(signal.SIGSTOP)  # held mid-build, however fast this machine is
    try:
        second = finish("build", *GAME, "--db", str(db))
    finally:
        first.send_signal(signal.SIGCONT)
    assert second.returncode == 1 and "being built by another process" in second.stderr, second.stderr
    assert first.wait(timeout=300) == 0
    assert statuses(db) == ["complete"]


def test_a_build_whose_builder_was_killed_is_taken_over_at_once(tmp_path):
    db = tmp_path / "tb.sqlite"
    first = start("build", *GAME, "--db", str(db))
    wait_for_status(db, "building")
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    assert "building" in statuses(db)
    second = finish("build", *GAME, "--db", str(db))
    assert second.returncode == 0, second.stderr
    assert statuses(db) == ["complete"]


def test_two_builds_of_different_tablebases_into_one_file_both_finish(tmp_path):
    db = tmp_path / "tb.sqlite"
    finish("info", "--db", str(db))  # nothing yet: an error, but the file is created
    assert finish("build", "subtraction", "--db", str(db)).returncode == 0
    first = start("build", *GAME, "--db", str(db))
    second = start("build", "tictactoe", "-p", "m=4", "-p", "n=4", "-p", "k=4", "--db", str(db))
    assert first.wait(timeout=300) == 0, first.stderr.read()
    assert second.wait(timeout=300) == 0, second.stderr.read()
    assert sorted(statuses(db)) == ["complete"] * 3
    for args in (GAME, ["tictactoe", "-p", "m=4", "-p", "n=4", "-p", "k=4"]):
        assert finish("verify", *args, "--db", str(db)).returncode == 0


def test_queries_run_while_a_build_writes_to_the_same_file(tmp_path):
    db = tmp_path / "tb.sqlite"
    assert finish("build", "tictactoe", "--db", str(db)).returncode == 0
    game = load_game("tictactoe", {})
    with open_store(db) as store:
        tablebase = Tablebase(game, store)
        position = tablebase.parse("x../.o./...")
        expected = tablebase.report(position)
        builder = start("build", *GAME, "--db", str(db))
        answered = 0
        while builder.poll() is None:
            assert tablebase.report(position) == expected
            answered += 1
    assert builder.returncode == 0 and answered > 0


def group_members(group: int) -> list[int]:
    """The live processes of a process group (zombies excluded), from /proc."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:  # the process ended meanwhile
            continue
        if fields[0] != "Z" and int(fields[2]) == group:
            members.append(int(stat.parent.name))
    return members


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_workers_of_a_killed_build_exit_within_a_second(tmp_path, clean):
    _expected, seconds = clean
    rng = random.Random(11)
    for kill in range(max(2, KILLS // 2)):
        process = start("build", *GAME, "--workers", "2", "--db", str(tmp_path / f"kill{kill}.sqlite"))
        time.sleep(rng.uniform(seconds * 0.2, seconds * 0.9))
        os.kill(process.pid, signal.SIGKILL)  # the build alone: its workers must notice
        process.wait()
        time.sleep(1.0)
        left = group_members(process.pid)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        assert left == [], f"kill {kill}: processes {left} outlived their build"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_build_cleans_up_says_so_and_exits_128_plus_the_signal(tmp_path, clean, signum):
    _expected, seconds = clean
    rng = random.Random(signum)
    for attempt in range(max(2, KILLS // 2)):
        db = tmp_path / f"stop{attempt}.sqlite"
        process = start("build", *GAME, "--workers", "2", "--db", str(db))
        wait_for_status(db, "building")
        time.sleep(rng.uniform(0.0, seconds * 0.6))
        process.send_signal(signum)  # the build alone, not its workers
        try:
            code = process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"attempt {attempt}: the build hung after {signal.Signals(signum).name}; where it stood:\n{stacks_of_hung(process)}")
        stderr = process.stderr.read().decode()
        if "built" in process.stdout.read().decode():  # the signal came after the build finished
            continue
        assert code == 128 + signum, stderr
        assert "Traceback" not in stderr
        assert stderr.strip().splitlines()[-1] == f"interrupted by {signal.Signals(signum).name}: stopped, nothing half-done is kept"
        assert "building" not in statuses(db)
        time.sleep(0.2)
        assert group_members(process.pid) == []


def test_an_interrupted_export_leaves_no_temporary_file(tmp_path, clean):
    db = tmp_path / "tb.sqlite"
    assert finish("build", *GAME, "--db", str(db)).returncode == 0
    out = tmp_path / "out" / "tb.csv"
    out.parent.mkdir()
    process = start("export", *GAME, "--db", str(db), "-o", str(out))
    deadline = time.monotonic() + 60
    while not list(out.parent.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.2)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 143
    assert "interrupted by SIGTERM" in process.stderr.read().decode()
    assert list(out.parent.iterdir()) == []


def test_a_signal_turned_into_another_exception_still_interrupts():
    """Compiled code can turn the signal's exception into its own (numba's dispatcher
    raised ``SystemError`` in a full test run); ``interruptible`` still reports the
    interrupt, so the command exits 128 plus the signal."""
    with pytest.raises(Interrupted) as stopped:
        with interruptible():
            try:
                os.kill(os.getpid(), signal.SIGINT)  # the handler runs before the next line
            except Interrupted as error:
                raise SystemError("a result with an exception set") from error
    assert stopped.value.exit_code == 128 + signal.SIGINT


def test_a_signal_whose_exception_python_drops_still_interrupts_at_once():
    """A signal whose handler runs in a finalizer (``__del__``, where Python drops the
    exception: any garbage collection may run one) stops the block at once, not when it
    would have ended."""

    class SignalsWhenDeleted:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)  # the handler runs inside __del__

    started = time.monotonic()
    with pytest.raises(Interrupted), interruptible():
        SignalsWhenDeleted()
        time.sleep(3)
    assert time.monotonic() - started < 1


SIGNAL_IN_THE_POOL = """
import os, signal, sqlalchemy
from tablebase.util.interrupt import Interrupted, interruptible
engine = sqlalchemy.create_engine("sqlite://")
sqlalchemy.event.listen(engine.pool, "reset", lambda *args: os.kill(os.getpid(), signal.SIGINT))
try:
    with interruptible():
        with engine.connect() as connection:
            connection.execute(sqlalchemy.text("select 1"))
except Interrupted:
    print("interrupted")
import logging
try:
    raise ValueError("a real error")
except ValueError:
    logging.getLogger("elsewhere").error("still logged", exc_info=True)
"""
"""A signal while SQLAlchemy's pool resets a connection that is given back: the pool
logs the signal's exception with a traceback, then raises it again. In a process of its
own, so that Python's last-resort handler prints (pytest's own handler would take the
record instead); after the block, another error is logged as usual."""


def test_a_signal_that_a_library_logs_on_its_way_prints_no_traceback():
    """Found by the fifty interrupted builds in CI: SIGINT inside SQLAlchemy's
    ``_finalize_fairy`` printed "Exception during reset or similar" and a traceback
    before the command's one line."""
    done = subprocess.run([sys.executable, "-c", SIGNAL_IN_THE_POOL], check=False, capture_output=True, text=True, timeout=60)
    assert done.stdout == "interrupted\n"
    assert "Interrupted" not in done.stderr and "reset or similar" not in done.stderr, done.stderr
    assert "still logged" in done.stderr and "ValueError: a real error" in done.stderr


SMALL = ["connect4", "-p", "width=4", "-p", "height=4"]
"""A build with two workers short enough to interrupt fifty times (1.5 s, most of it the
import)."""

AT = {
    "arguments": "ErrorReportingGroup.make_context = lambda *a, **k: (signal_once(), make_context(*a, **k))[1]",
    "start-up": "os.register_at_fork(before=lambda: signal_once())",
    "solve": "unmoves._run_pass = lambda *a, **k: (signal_once(), run_pass(*a, **k))[1]",
    "write": "Writing.write = lambda *a, **k: (signal_once(), write(*a, **k))[1]",
}
"""Where a build signals itself (the group, as Ctrl-C does): as typer parses its arguments,
forking its workers, starting a pass of its solve, writing its values."""

SIGNALLED_AT = """
import os, runpy, signal, sys
import tablebase.solve.unmoves.solver as unmoves
from tablebase.store.writing import Writing
from tablebase.faces.cli.group import ErrorReportingGroup
run_pass, write, make_context, sent = unmoves._run_pass, Writing.write, ErrorReportingGroup.make_context, []
def signal_once():
    if not sent and os.getpid() == os.getpgid(0):
        sent.append(True)
        os.killpg(0, signal.SIGINT)
{hook}
sys.argv[0] = "tablebase"
runpy.run_module("tablebase", run_name="__main__")
"""


STARTED = 0.3
"""Seconds after which a ``python`` process runs the command's code: a signal before,
while the interpreter itself starts, is Python's to handle."""


def burn_cpu() -> subprocess.Popen:
    """A process that keeps a core busy, at a lower priority than the builds (niced), so
    that they wait for the processor without taking twice as long."""
    return subprocess.Popen(["nice", "-n", "10", sys.executable, "-c", "while True: pass"])


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_build_interrupted_fifty_times_under_load_always_ends_at_once(tmp_path):
    """Fifty builds with two workers, five at a time beside a process that burns a core,
    each sent SIGINT: at a time spread over the build (import, argument parsing, start-up,
    solve, write, the end), to the build alone or to its group as Ctrl-C does, or from inside the build as
    typer parses its arguments, as it forks its workers, starts its solve or writes. Each ends within a few seconds with
    130 and the one line (if the build was done: 0, or 130, or killed by the signal in
    Python's last moments), its catalog holds no ``building``
    row, and none of its processes is left."""
    burner = burn_cpu()
    try:
        started = time.monotonic()
        assert finish("build", *SMALL, "--workers", "2", "--db", str(tmp_path / "clean.sqlite")).returncode == 0
        seconds = time.monotonic() - started
        rng = random.Random(52)
        attempts = [(None, STARTED + (n + rng.random()) / 38 * seconds * 1.2, n % 2 == 0) for n in range(38)]
        attempts += [(at, 0.0, True) for at in AT for _ in range(3)]
        rng.shuffle(attempts)
        for first in range(0, len(attempts), 5):
            _interrupt_side_by_side(tmp_path, attempts[first : first + 5], first)
    finally:
        burner.kill()
        burner.wait()


def _interrupt_side_by_side(tmp_path: Path, attempts: list[tuple[str | None, float, bool]], first: int) -> None:
    """Start a build for each attempt ``(hook, seconds, group)`` at once, signal each after
    its seconds (``hook``: it signals itself), and check how each ended."""
    runs = []
    for number, (hook, delay, group) in enumerate(attempts, first):
        db = tmp_path / f"stop{number}.sqlite"
        args = ["build", *SMALL, "--workers", "2", "--db", str(db)]
        program = command(*args) if hook is None else [sys.executable, "-c", SIGNALLED_AT.format(hook=AT[hook]), *args]
        process = subprocess.Popen(program, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        runs.append((number, hook, delay, group, db, process, time.monotonic()))
    for number, hook, delay, group, db, process, began in sorted(runs, key=lambda run: run[2]):
        what = f"attempt {number} ({hook or f'at {delay:.2f} s'}{', group' if group else ''})"
        if hook is None:
            time.sleep(max(0.0, began + delay - time.monotonic()))
            if process.poll() is None:
                (os.killpg if group else os.kill)(process.pid, signal.SIGINT)
        try:
            code = process.wait(timeout=5 if hook is None else 60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{what}: the build hung after SIGINT; where it stood:\n{stacks_of_hung(process)}")
        out, err = process.stdout.read().decode(), process.stderr.read().decode()
        assert hook is None or "built" not in out, f"{what}: the build went on to the end"
        if "built" not in out:
            assert code == 130, f"{what}: {code} {err}"
            assert (err.strip().splitlines() or [""])[-1] == "interrupted by SIGINT: stopped, nothing half-done is kept", f"{what}: {err}"
        assert code in (0, 130, -signal.SIGINT) and "Traceback" not in err, f"{what}: {code} {err}"  # done: at the last moment, killed
        assert "building" not in statuses(db), what
        deadline = time.monotonic() + 2
        while group_members(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert group_members(process.pid) == [], f"{what}: processes left behind"
