"""Build atomic or antichess endings beside the Syzygy generator's variant program, in one
run: each ending's build time ours and theirs, the ratio, and whether our counts equal the
generator's statistics cell by cell.

    python benchmarks/variant_endings.py --variant atomic --material KQvKR KRvKN \\
        --generator /tmp/tb/src/atbgen --tables /tmp/atb

``--generator`` is ``atbgen`` (atomic, no pawns), ``atbgenp`` (atomic pawns; syzygy1/tb
master does not compile it, 70287e7 with ``-fcommon`` does), ``gtbgen`` or ``gtbgenp``
(antichess), built under /tmp, never in this repository; ``--tables`` the folder it
writes its tables and statistics to, where the smaller endings a capture or promotion
leads into must already be (it probes them). Our smaller endings are built first, not
timed; each ending is then built again (``--force``) and timed. Both programs run on every
core (``-t`` the core count for the generator). ``--metric`` is the ending's default unless
named (``dtz`` from five pieces, what the generator makes).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

from tablebase.build.builder import build
from tablebase.generators.chess.statistics import count_positions, differing, read_statistics
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tablebase.util.cores import usable_cores

PATHS = {"atomic": "ATBPATH", "antichess": "GTBPATH"}
"""The environment variable each generator reads its smaller tables' folder from."""


WARM_UP = {"atomic": "KQvK", "antichess": "QvN"}
"""A small ending built (again) before the timed build, untimed: its kernels are the
ending's, so the timed build neither compiles nor loads them."""


def ours(variant: str, material: str, metric: str, database: str) -> tuple[float, dict]:
    """Build the ending's dependencies and a small ending of the variant again (the
    kernels compiled or loaded), then the ending itself timed; return the seconds and
    our counts (compared with the generator's statistics later)."""
    game = load_game(variant, {"material": material, "metric": metric})
    print(f"{material}: {game.build_command()}", flush=True)
    with open_store(database) as store:
        for dependency in game.dependencies():
            build(dependency, store)
        build(load_game(variant, {"material": WARM_UP[variant], "metric": game.metric}), store, force=True)
        started = time.perf_counter()
        build(game, store, force=True)
        seconds = time.perf_counter() - started
        row = store.require(game.name, game.identity(), game.build_command(), game.version)
        parts = ((keys, outcome, dtz) for keys, outcome, _remoteness, dtz in store.read_parts(row, extra=True))
        return seconds, count_positions(game.layout, parts)


def theirs(variant: str, material: str, generator: Path, tables: Path) -> float:
    """Run the generator on the ending with statistics (``-s``); its seconds."""
    started = time.perf_counter()
    subprocess.run(
        [str(generator), "-t", str(usable_cores()), "-s", material],
        cwd=tables, env={**os.environ, PATHS[variant]: str(tables)}, check=True, capture_output=True,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", required=True, choices=sorted(PATHS))
    parser.add_argument("--material", nargs="+", required=True)
    parser.add_argument("--metric", default="", choices=["", "both", "dtm", "dtz"], help="default: the ending's default metric")
    parser.add_argument("--generator", type=Path, required=True)
    parser.add_argument("--tables", type=Path, required=True)
    parser.add_argument("--db", help="database path (default: a temporary file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        database = args.db or str(Path(scratch) / "variants.sqlite")
        print(f"{'ending':10} {'ours s':>9} {'generator s':>12} {'ratio':>6}  statistics")
        for given in args.material:
            material = load_game(args.variant, {"material": given}).material  # the normal form: white holds the first side
            seconds, counts = ours(args.variant, material, args.metric, database)
            generated = theirs(args.variant, material, args.generator, args.tables)
            wrong = differing(counts, read_statistics(args.tables / f"{material}.txt"))
            verdict = "equal" if not wrong else f"{len(wrong)} cells differ"
            print(f"{material:10} {seconds:9.2f} {generated:12.2f} {seconds / generated:6.1f}  {verdict}", flush=True)


if __name__ == "__main__":
    main()
