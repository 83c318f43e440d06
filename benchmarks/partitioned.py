"""Traffic of the partitioned retrograde pass: bytes exchanged between partitions, per
level and in total, for P key-range partitions (tablebase.solve.partitioned).

    python benchmarks/partitioned.py connect4 -p width=6 -p height=4 --partitions 2,4,16
    python benchmarks/partitioned.py chess -p material=KQvKR

Prints, for each P: the rounds (levels of the win/loss pass + rounds of the draw peel),
total bytes, the largest round, bytes per position, and the seconds of the pass run in
one process (against the single-process pass).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from tablebase.build.builder import build
from tablebase.read.stored import stored_tables
from tablebase.solve import build_graph, solve
from tablebase.solve.exits import exit_values
from tablebase.solve.kinds import kind_of
from tablebase.solve.partitioned.in_process import solve_partitioned
from tablebase.solve.registry import load_game
from tablebase.store import open_store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("-p", "--param", action="append", default=[])
    parser.add_argument("--partitions", default="2,4,16")
    args = parser.parse_args()
    game = load_game(args.game, dict(item.split("=", 1) for item in args.param))
    with tempfile.TemporaryDirectory() as directory, open_store(Path(directory) / "tb.sqlite") as store:
        for dependency in game.dependencies():
            build(dependency, store)
        graph = build_graph(game, kind_of(game).shape)
        exits, _grundy = exit_values(game, graph.exits, stored_tables(store))
    n = len(graph.keys)
    started = time.perf_counter()
    solve(graph.terminal, graph.moves, exits=exits)
    single = time.perf_counter() - started
    print(f"{game.describe()}: {n:,} positions, {int(graph.moves.out_degree.sum()):,} moves; single-process pass {single:.2f} s")
    print("| P | rounds (levels + peel) | total | largest round | bytes/position | pass in one process |")
    print("|---:|---|---:|---:|---:|---:|")
    for partitions in map(int, args.partitions.split(",")):
        started = time.perf_counter()
        _solution, traffic = solve_partitioned(graph.terminal, graph.moves, partitions, exits)
        seconds = time.perf_counter() - started
        rounds = f"{len(traffic.rounds)} ({traffic.levels} + {len(traffic.rounds) - traffic.levels})"
        print(
            f"| {partitions} | {rounds} | {traffic.total / 2**20:,.1f} MiB | {max(traffic.rounds) / 2**20:,.1f} MiB "
            f"| {traffic.total / n:.2f} | {seconds:.2f} s |"
        )


if __name__ == "__main__":
    main()
