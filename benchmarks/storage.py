"""Compare the storage layouts: write and read time, bytes per position on disk, probe time.

Usage: ``python benchmarks/storage.py [GAME] [-p name=value ...]`` (default: 4x4 tic-tac-toe
with k=4). The game is solved once (its dependencies built into a scratch database
first); then each layout writes it to a database of its own, reads it back whole (as a
dependency lookup does), and answers point probes: the first one after opening (cold,
one chunk or row fetched) and repeated ones (warm).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from tablebase.build.builder import build, solve_in_memory
from tablebase.solve.registry import load_game
from tablebase.store import Storing, open_store
from tablebase.store.schema import LAYOUTS

PROBES = 2000


def main() -> None:
    """Print one line per layout."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?", default="tictactoe")
    parser.add_argument("-p", dest="params", action="append", default=[], help="a game parameter, name=value")
    args = parser.parse_args()
    params = dict(p.split("=", 1) for p in args.params) or ({"m": "4", "n": "4", "k": "4"} if args.game == "tictactoe" else {})
    game = load_game(args.game, params)
    with tempfile.TemporaryDirectory() as folder:
        with open_store(Path(folder) / "dependencies.sqlite") as store:
            for dependency in game.dependencies():
                build(dependency, store)
            solved = solve_in_memory(game, store=store)
        keys, outcome, remoteness = solved.keys, solved.solution.outcome, solved.solution.remoteness
        print(f"{game.describe()}: {len(keys):,} positions")
        rng = np.random.default_rng(0)
        probes = keys[rng.integers(0, len(keys), size=PROBES)].tolist()
        for layout in LAYOUTS:
            path = Path(folder) / f"{layout}.sqlite"
            with open_store(path, storing=Storing(layout=layout)) as store:
                row = store.begin_build(game.name, game.identity(), game.describe())
                started = time.perf_counter()
                store.write(row, keys, outcome, remoteness)
                row = store.complete(row, outcome, remoteness, 0.0)
                written = time.perf_counter() - started
            size = path.stat().st_size + sum(p.stat().st_size for p in Path(folder).glob(f"{layout}.sqlite-*"))
            with open_store(path, storing=Storing(layout=layout)) as store:
                started = time.perf_counter()
                store.read_values(row)
                read = time.perf_counter() - started
            with open_store(path, storing=Storing(layout=layout)) as store:
                started = time.perf_counter()
                store.probe(row, [probes[0]])
                cold = time.perf_counter() - started
                for key in probes:  # warm the cache, as a session of queries does
                    store.probe(row, [key])
                started = time.perf_counter()
                for key in probes:
                    store.probe(row, [key])
                warm = (time.perf_counter() - started) / len(probes)
            print(
                f"  {layout:<7} write {written:6.2f} s ({len(keys) / written / 1e6:5.2f} M positions/s)  "
                f"{size / len(keys):5.2f} bytes/position  read {read:5.2f} s  "
                f"probe cold {cold * 1e6:7.0f} us, warm {warm * 1e6:5.1f} us"
            )


if __name__ == "__main__":
    main()
