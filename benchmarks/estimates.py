"""The time ``build --dry-run`` estimates against the time the build takes.

Each case runs ``tablebase build ... --dry-run`` for its estimate (the ``in all`` line:
start-up and every tablebase of the plan), then the build itself, timed from outside
(wall clock, start-up included), :data:`REPEATS` times (each in a database as it was
before the first), and prints the estimate, the median time and their ratio. A case runs in a fresh
database (the reference pace: nothing recorded) unless it names an earlier case's, whose
recorded builds then set the pace. The kernels are compiled first (a build of each game
into a scratch database), as the estimate assumes.

    python benchmarks/estimates.py [--long]

``--long`` adds :data:`LONG_CASES`, each built once (about 5 minutes more).
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = [
    ("tictactoe", ["tictactoe"], None),
    ("connect4 4x4", ["connect4", "-p", "width=4", "-p", "height=4"], None),
    ("connect4 5x4", ["connect4", "-p", "width=5", "-p", "height=4"], None),
    ("chess KQvK", ["chess", "-p", "material=KQvK"], None),
    ("chess KQvKR", ["chess", "-p", "material=KQvKR"], None),
    ("chess KQvKR dtm", ["chess", "-p", "material=KQvKR", "-p", "metric=dtm"], None),
    ("chess KRvKP", ["chess", "-p", "material=KRvKP"], None),
    ("chess KRvKP after KQvKR", ["chess", "-p", "material=KRvKP"], "chess KQvKR"),
]
"""``(name, game arguments, the earlier case whose database it builds in, or None)``."""

LONG_CASES = [
    ("chess all4", ["chess", "-p", "material=all4"], None),
    ("chess KRBvKR after all4", ["chess", "-p", "material=KRBvKR"], "chess all4"),
]
"""Cases of minutes, built once each, with ``--long``."""

REPEATS = int(os.environ.get("REPEATS", "3"))
"""How many times each case is built (``REPEATS`` in the environment): a machine shared
with others takes from 1.4 to 2.5 s for the same tic-tac-toe build."""


def tablebase(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablebase", *args], capture_output=True, text=True, check=True)


def main() -> None:
    cases = CASES + (LONG_CASES if "--long" in sys.argv[1:] else [])
    print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1, 5, 15 min)")
    with tempfile.TemporaryDirectory() as folder:
        for _name, args, _after in CASES[:4]:  # each game's kernels compiled, as the estimate assumes
            tablebase("build", *args, "--db", f"{folder}/warm.sqlite")
        databases: dict[str, Path] = {}
        print(f"{'case':<26} {'estimate':>9} {'median':>8} {'ratio':>6}  {'range':>9}  pace")
        for name, args, after in cases:
            db = databases[after] if after else Path(folder) / f"{len(databases)}.sqlite"
            databases[name] = db
            plan = tablebase("build", *args, "--dry-run", "--db", str(db)).stdout.splitlines()
            estimate = _seconds(re.search(r"about ([\d.]+ (s|min|h))$", plan[-2])[1])
            pace = re.search(r"(reference machine's pace|pace of \d+ earlier \w+ builds?)", plan[-1])[1]
            times = []
            repeats = 1 if (name, args, after) in LONG_CASES else REPEATS
            for repeat in range(repeats):
                trial = db.with_suffix(".trial")
                if db.exists():
                    shutil.copy(db, trial)
                started = time.perf_counter()
                tablebase("build", *args, "--db", str(trial))
                times.append(time.perf_counter() - started)
                if repeat == repeats - 1:  # the last one's builds set a later case's recorded pace
                    trial.replace(db)
                for left in (trial, Path(f"{trial}-wal"), Path(f"{trial}-shm")):
                    left.unlink(missing_ok=True)
            actual = statistics.median(times)
            spread = f"{min(times):.1f}-{max(times):.1f}"
            print(f"{name:<26} {estimate:8.1f}s {actual:7.1f}s {estimate / actual:6.2f}  {spread:>9}  {pace}")
    print(f"load after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")


def _seconds(said: str) -> float:
    """Seconds of a duration as the plan writes it: ``2.5 s``, ``40 s``, ``12 min``, ``5.2 h``."""
    number, unit = said.split()
    return float(number) * {"s": 1, "min": 60, "h": 3600}[unit]


if __name__ == "__main__":
    main()
