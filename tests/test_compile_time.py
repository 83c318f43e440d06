"""numba's compile time is the compiler's, not a tablebase's: ``build_seconds`` and the
progress bars' clock leave it out (tablebase/util/compile_cache.py), so the first build of
a machine does not report seconds of compiling as its own; a first run says that it
compiles; ``--version`` imports nothing heavy, and a command only its own module."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time

import pytest

from numba import njit
from typer.testing import CliRunner

import tablebase

from tablebase.faces.cli import app, group
from tablebase.util import compile_cache
from tablebase.util.compile_cache import CompileTimer, work_clock


def test_the_timer_counts_compiling_and_nothing_else():
    @njit
    def twice(x):
        return 2 * x

    with CompileTimer() as compiling:
        assert twice(21) == 42
    assert compiling.seconds > 0
    with CompileTimer() as again:
        assert twice(4) == 8  # compiled already
        time.sleep(0.05)
    assert again.seconds == 0


def test_the_work_clock_stands_still_while_numba_compiles():
    @njit
    def thrice(x):
        return 3 * x

    wall, work = time.time(), work_clock()
    with CompileTimer() as compiling:
        assert thrice(14) == 42
    assert compiling.seconds > 0.01
    assert (time.time() - wall) - (work_clock() - work) == pytest.approx(compiling.seconds, abs=0.005)


def test_a_first_build_reports_its_own_seconds_without_the_compile(tmp_path):
    """KvK in a process whose numba cache is empty: it compiles the kernels it runs
    (seconds), and says so on stderr as it begins and when it ends, while its build
    takes a fraction of a second; the next build compiles nothing and says nothing of it."""
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    db = str(tmp_path / "tb.sqlite")
    command = [sys.executable, "-m", "tablebase"]
    started = time.perf_counter()
    done = subprocess.run(command + ["build", "chess", "-p", "material=KvK", "--db", db], env=environment, capture_output=True, text=True)
    wall = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    [row] = json.loads(subprocess.run(command + ["info", "--db", db, "--json"], capture_output=True, text=True).stdout)
    assert row["build_seconds"] < 0.5 * wall
    said = done.stderr.splitlines()
    assert said[0].startswith("compiling the solver's kernels (up to about 60 s, once") and said[-1].startswith("compiled in "), said
    assert 0.5 * wall < float(said[-1].split()[2]) < wall
    again = subprocess.run(command + ["build", "chess", "-p", "material=KNvK", "--db", db], env=environment, capture_output=True, text=True)
    assert again.returncode == 0 and "compil" not in again.stderr, again.stderr


@pytest.mark.parametrize(("game", "material", "expected"), [("chess", "KvK", 60), ("antichess", "KvK", 180)])
def test_a_build_s_notice_expects_its_game_s_compile(tmp_path, monkeypatch, game, material, expected):
    """A chess variant's first build compiles its own kernels too: its notice expects
    longer than chess's."""
    told = []

    @contextlib.contextmanager
    def notice(say, seconds=None):
        told.append(seconds)
        yield

    monkeypatch.setattr(group, "compile_notice", notice)
    done = CliRunner().invoke(app, ["build", game, "-p", f"material={material}", "--db", str(tmp_path / "tb.sqlite")])
    assert done.exit_code == 0, done.output
    assert told == [expected]


def test_the_version_is_told_without_importing_the_solver():
    """``tablebase --version`` answers before numba, numpy, SQLAlchemy or the solver are
    imported (they took it 1.5 s)."""
    shown = "import sys; from tablebase.faces.command import main; main(); print(sorted(m for m in ('numba', 'numpy', 'sqlalchemy', 'tablebase.solve') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", shown, "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == [f"tablebase {tablebase.__version__}", "[]"]


@pytest.mark.parametrize(
    ("words", "needed"),
    [
        (["query", "subtraction", "7"], "tablebase.faces.cli.querying"),
        (["db", "current"], "tablebase.faces.cli.db"),
        (["info"], "tablebase.faces.cli.listing"),
    ],
)
def test_a_command_imports_its_own_module_and_not_the_others(tmp_path, words, needed):
    """A command line imports its command's module alone: ``query`` neither the builder
    nor the checker, the exporter or the web server (all of them took its start 0.1 s
    more)."""
    db = str(tmp_path / "tb.sqlite")
    subprocess.run([sys.executable, "-m", "tablebase", "build", "subtraction", "--db", db], capture_output=True, check=True)
    others = ["tablebase.faces.cli.building", "tablebase.build.builder", "tablebase.tools.verify", "tablebase.tools.export", "tablebase.faces.web.app", "tablebase.faces.cli.db", "tablebase.faces.cli.listing"]
    shown = (
        "import sys\nfrom tablebase.faces.command import main\ntry:\n    main()\nfinally:\n"
        f"    print(sorted(m for m in {sorted(set(others) | {needed})!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", shown, *words, "--db", db], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == str([needed]), done.stdout


def test_cached_kernels_are_forgotten_when_a_source_of_their_package_changes(tmp_path):
    """numba checks a cached kernel against its own file only: a change to another file
    of the package (a helper it inlines) must drop the package's cached kernels, and
    nothing else must."""
    (tmp_path / "kernel.py").write_text("x = 1\n")
    (tmp_path / "helper.py").write_text("y = 1\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    cached = [cache / "kernel.run-3.py311.nbi", cache / "kernel.run-3.py311.1.nbc"]
    for path in cached:
        path.write_bytes(b"compiled")
    compile_cache.forget_stale(str(tmp_path / "kernel.py"))
    assert not any(path.exists() for path in cached)  # no digest noted yet: not trusted
    for path in cached:
        path.write_bytes(b"compiled")
    compile_cache.forget_stale(str(tmp_path / "kernel.py"))
    assert all(path.exists() for path in cached)  # nothing changed
    (tmp_path / "helper.py").write_text("y = 2\n")
    compile_cache.forget_stale(str(tmp_path / "kernel.py"))
    assert not any(path.exists() for path in cached)
