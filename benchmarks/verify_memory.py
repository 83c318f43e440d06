"""Peak memory and time of ``tablebase verify`` beside ``tablebase build`` of one chess
ending, each in a process of its own (issue 23: verify took 6 to 9 times a build's
memory, KQvKR 3.36 GB against 556 MB).

Usage: ``python benchmarks/verify_memory.py --material KRBvKR --db DB``: builds the
ending's dependencies (not measured), then the ending itself with ``--force``, then
verifies it; prints each one's wall seconds and peak resident memory (``ru_maxrss`` of
the process, from ``os.wait4``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from tablebase.solve.registry import load_game


def measured(command: list[str]) -> tuple[float, int]:
    """``(wall seconds, peak bytes)`` of a command run to its end; exits on failure."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        sys.exit(f"{' '.join(command)} failed")
    return time.perf_counter() - started, usage.ru_maxrss * 1024


def main() -> None:
    """Build, then verify, the ending asked for, and print both figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--material", default="KQvKR")
    parser.add_argument("--db", required=True)
    args = parser.parse_args()
    tablebase = [sys.executable, "-m", "tablebase"]
    params = ["chess", "-p", f"material={args.material}", "--db", args.db]
    for dependency in load_game("chess", {"material": args.material}).dependencies():
        subprocess.run(tablebase + ["build", "chess", "-p", f"material={dependency.material}", "--db", args.db], check=True, capture_output=True)
    for what in ("build", "verify"):
        seconds, peak = measured(tablebase + [what, *params] + (["--force"] if what == "build" else []))
        print(f"{args.material} {what:6}: {seconds:7.1f} s, peak {peak / 2**20:8,.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
