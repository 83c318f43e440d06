"""Time the tic-tac-toe builds (3x3, and 4x4 with k=4) stage by stage, storage included.

Usage: ``python benchmarks/tictactoe.py [--db PATH]`` (default: a temporary SQLite file).
Prints, for each board, the seconds of every stage, the positions and moves, and the
end-to-end rate in positions per second.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from tablebase.build.builder import build
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tablebase.util.progress import StageTimer

BOARDS = [{"m": "3", "n": "3", "k": "3"}, {"m": "4", "n": "4", "k": "4"}]


def run(params: dict[str, str], database: str) -> None:
    """Build one tic-tac-toe tablebase into ``database`` (forced); print seconds and
    positions per second for each stage and end to end.

    :param params: the game's parameters as text, e.g. ``{"m": "3", "n": "3", "k": "3"}``.
    :param database: an SQLite path or SQLAlchemy URL.
    :raises ParameterError: for bad ``params``.
    :raises StoreError: if the database cannot be opened.
    """
    game = load_game("tictactoe", params)
    timer = StageTimer()
    started = time.perf_counter()
    with open_store(database) as store:
        row = build(game, store, force=True, stages=timer).row
    total = time.perf_counter() - started
    print(f"{game.describe()}: {row.positions:,} positions, max remoteness {row.max_remoteness}")
    for stage, seconds in timer.seconds.items():
        print(f"  {stage:<10} {seconds:8.2f} s  {row.positions / seconds:14,.0f} positions/s")
    print(f"  {'total':<10} {total:8.2f} s  {row.positions / total:14,.0f} positions/s end to end")


def main() -> None:
    """Run :func:`run` for each of :data:`BOARDS`, then print the peak memory in MiB."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database path or URL (default: a temporary file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        database = args.db or str(Path(folder) / "bench.sqlite")
        for params in BOARDS:
            run(params, database)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
