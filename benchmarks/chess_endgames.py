"""Time chess tablebase builds stage by stage, with peak memory.

Usage:
  ``python benchmarks/chess_endgames.py``: KQvK, KRvK, KPvK, KQvKR and KRvKP, each in a fresh
  process on one shared database, so each line shows that ending's own build (its
  dependencies are built by the lines before it, or first, on their own line);
  ``python benchmarks/chess_endgames.py --material all4``: every ending of up to 4 pieces at once;
  ``--unmoves``: solve every ending by un-moves, not the move graph (as 5-piece endings are).
  A single ending's line ends with the peak bytes per key of its index space.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tablebase.build import BuildResult, build
from tablebase.game import load_game
from tablebase.progress import StageTimer
from tablebase.solve import modes
from tablebase.store import open_store

ENDINGS = ["KQvK", "KRvK", "KPvK", "KQvKR", "KRvKP"]


def build_one(material: str, database: str) -> None:
    """Build one ending (and whatever it needs) and print the figures of each build."""
    timer = StageTimer()
    started = time.perf_counter()

    def show(result: BuildResult) -> None:
        row = result.row
        if result.reused:
            return
        stages = "  ".join(f"{stage} {seconds:6.2f}s" for stage, seconds in timer.seconds.items())
        print(f"  {row.description:<22} {row.positions:>10,} positions  {row.build_seconds:7.2f} s   {stages}")
        timer.seconds.clear()

    game = load_game("chess", {"material": material})
    with open_store(database) as store:
        build(game, store, stages=timer, report=show)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    per_key = f", {peak * 2**20 / game.size:.1f} bytes per index key" if game.size else ""
    print(
        f"{material}: {time.perf_counter() - started:.1f} s in all, peak memory {peak:,.0f} MiB "
        f"(and {workers:,.0f} MiB in the largest move-generating worker){per_key}"
    )


def main() -> None:
    """Run the builds asked for on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--material", help="one ending, or all3/all4, built in this process")
    parser.add_argument("--db", help="database path or URL (default: a temporary file)")
    parser.add_argument("--unmoves", action="store_true", help="solve by un-moves, not the move graph")
    args = parser.parse_args()
    if args.unmoves:
        modes.GRAPH_UP_TO = 0
    with tempfile.TemporaryDirectory() as folder:
        database = args.db or str(Path(folder) / "chess.sqlite")
        if args.material:
            build_one(args.material, database)
            return
        for material in ENDINGS:
            command = [sys.executable, __file__, "--material", material, "--db", database]
            subprocess.run(command + ["--unmoves"] * args.unmoves, check=True)


if __name__ == "__main__":
    main()
