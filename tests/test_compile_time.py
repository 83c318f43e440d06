"""numba's compile time is the compiler's, not a tablebase's: ``build_seconds`` leaves it
out (tablebase/util/compile_cache.py's CompileTimer), so the first build of a machine does
not report seconds of compiling as its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from numba import njit

from tablebase.util.compile_cache import CompileTimer


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


def test_a_first_build_reports_its_own_seconds_without_the_compile(tmp_path):
    """KvK in a process whose numba cache is empty: it compiles the kernels it runs
    (seconds), while its build takes a fraction of a second."""
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    db = str(tmp_path / "tb.sqlite")
    command = [sys.executable, "-m", "tablebase"]
    started = time.perf_counter()
    done = subprocess.run(command + ["build", "chess", "-p", "material=KvK", "--db", db], env=environment, capture_output=True, text=True)
    wall = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    [row] = json.loads(subprocess.run(command + ["info", "--db", db, "--json"], capture_output=True, text=True).stdout)
    assert row["build_seconds"] < 0.5 * wall
