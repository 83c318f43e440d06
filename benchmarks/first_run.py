"""A user's first runs and the start of later ones, timed on two source trees in turns.

Prints, for each figure, the median over the rounds for both trees and the ratio new/old:

- ``--version``: seconds for ``tablebase --version``;
- ``query FEN``: seconds for one ``tablebase query chess FEN`` (KQvKR), end to end;
- ``query - first``: seconds from starting ``tablebase query chess -`` (two workers) to its
  answer to the first FEN written to it;
- ``query - 2,000``: seconds for 2,000 KQvKR FENs through ``tablebase query chess -``;
- ``query - KRBvKR``: with ``--five DB`` (a database holding KRBvKR, read by both trees),
  ``query - first`` for a KRBvKR position.

Then, with ``--cold`` (the new tree only, once: about three minutes on 2 cores), the first
run of each command with an empty numba cache (``NUMBA_CACHE_DIR`` a fresh directory): its
wall seconds and the seconds it says it compiled (the notice's "compiled in N s"), the basis
of ``FIRST_COMPILE_SECONDS`` in ``tablebase/faces/cli/group.py``.

Usage::

    python benchmarks/first_run.py --old OLD_TREE/.venv/bin/python --new .venv/bin/python [--rounds 5] [--cold] [--five DB]

Each interpreter builds KQvKR (KvK, KQvK, KRvK with it) into a database of its own first.
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from trees import random_fens

FEN = "K3r3/8/5k2/Q7/8/8/8/8 w - - 0 1"
FIVE_FEN = "8/8/8/8/8/2k5/8/KRB1r3 w - - 0 1"


def tablebase(python: str, *args: str, **options: object) -> subprocess.CompletedProcess[str]:
    """Run ``python -m tablebase ARGS``, checked."""
    return subprocess.run([python, "-m", "tablebase", *args], capture_output=True, text=True, check=True, **options)  # type: ignore[call-overload]


def seconds(python: str, *args: str, stdin: str | None = None) -> float:
    """Wall seconds of ``python -m tablebase ARGS``."""
    started = time.perf_counter()
    tablebase(python, *args, input=stdin)
    return time.perf_counter() - started


def first_answer(python: str, db: str, fen: str = FEN) -> float:
    """Seconds from starting ``query chess -`` to its answer to ``fen``."""
    started = time.perf_counter()
    command = [python, "-m", "tablebase", "query", "chess", "-", "--db", db, "--workers", "2"]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(fen + "\n")
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], 120)
        assert ready, "no answer in 120 s"
        process.stdout.readline()
        took = time.perf_counter() - started
        process.stdin.close()
        process.wait(timeout=60)
    return took


def cold(python: str, folder: Path) -> None:
    """Each command's first run with an empty numba cache: wall and compile seconds."""
    db = str(folder / "cold.sqlite")
    commands = [
        ["build", "chess", "-p", "material=KQvK", "--db", db],
        ["query", "chess", "8/8/8/8/8/2k5/8/K2Q4 w - - 0 1", "--db", db],
        ["line", "chess", "8/8/8/8/8/2k5/8/K2Q4 w - - 0 1", "--db", db],
        ["verify", "chess", "-p", "material=KQvK", "--db", db],
        ["build", "tictactoe", "--db", db],
    ]
    print("\nfirst run of each command, numba's cache empty (new tree):")
    for args in commands:
        cache = tempfile.mkdtemp(prefix="numba-", dir=folder)
        started = time.perf_counter()
        done = tablebase(python, *args, env={**os.environ, "NUMBA_CACHE_DIR": cache})
        wall = time.perf_counter() - started
        said = [line for line in done.stderr.splitlines() if line.startswith(("compiling", "compiled"))]
        print(f"  {' '.join(args[:2]):<16} {wall:6.1f} s wall   {' / '.join(said) or 'no compile said'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="the old tree's interpreter")
    parser.add_argument("--new", required=True, help="the new tree's interpreter")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="also time first runs with an empty numba cache (new tree)")
    parser.add_argument("--five", help="a database holding KRBvKR: also time query -'s first answer from it")
    options = parser.parse_args()
    trees = {"old": os.path.abspath(options.old), "new": os.path.abspath(options.new)}
    five = options.five and os.path.abspath(options.five)
    folder = Path(tempfile.mkdtemp(prefix="first-run-"))
    os.chdir(folder)  # `python -m tablebase` imports from the working directory first: not a tree's
    fens = "\n".join(random_fens(2000)) + "\n"
    databases = {}
    for name, python in trees.items():
        databases[name] = str(folder / f"{name}.sqlite")
        tablebase(python, "build", "chess", "-p", "material=KQvKR", "--db", databases[name])
    figures: dict[str, dict[str, list[float]]] = {}
    for _ in range(options.rounds):
        for name, python in trees.items():
            db = databases[name]
            measured = {
                "--version": seconds(python, "--version"),
                "query FEN": seconds(python, "query", "chess", FEN, "--db", db),
                "query - first": first_answer(python, db),
                "query - 2,000": seconds(python, "query", "chess", "-", "--db", db, stdin=fens),
            }
            if options.five:
                measured["query - KRBvKR"] = first_answer(python, five, FIVE_FEN)
            for figure, value in measured.items():
                figures.setdefault(figure, {}).setdefault(name, []).append(value)
    print(f"{'figure':<16}{'old s':>9}{'new s':>9}{'new/old':>9}   (medians of {options.rounds})")
    for figure, by_tree in figures.items():
        old, new = statistics.median(by_tree["old"]), statistics.median(by_tree["new"])
        print(f"{figure:<16}{old:9.3f}{new:9.3f}{new / old:9.3f}")
    if options.cold:
        cold(options.new, folder)


if __name__ == "__main__":
    main()
