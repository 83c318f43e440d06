"""Time chess tablebase builds stage by stage, with peak memory.

Usage:
  ``python benchmarks/chess_endgames.py``: KQvK, KRvK, KPvK, KQvKR and KRvKP, each in a fresh
  process on one shared database, so each line shows that ending's own build (its
  dependencies are built by the lines before it, or first, on their own line);
  ``python benchmarks/chess_endgames.py --material all4``: every ending of up to 4 pieces at once.
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

    with open_store(database) as store:
        build(load_game("chess", {"material": material}), store, stages=timer, report=show)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        f"{material}: {time.perf_counter() - started:.1f} s in all, peak memory {peak:,.0f} MiB "
        f"(and {workers:,.0f} MiB in the largest move-generating worker)"
    )


def main() -> None:
    """Run the builds asked for on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--material", help="one ending, or all3/all4, built in this process")
    parser.add_argument("--db", help="database path or URL (default: a temporary file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        database = args.db or str(Path(folder) / "chess.sqlite")
        if args.material:
            build_one(args.material, database)
            return
        for material in ENDINGS:
            subprocess.run([sys.executable, __file__, "--material", material, "--db", database], check=True)


if __name__ == "__main__":
    main()
