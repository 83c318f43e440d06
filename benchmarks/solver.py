"""Time the retrograde pass alone on a random move graph.

Usage: ``python benchmarks/solver.py [--positions N] [--moves-per-position D]``
(default 2M positions, 3 moves each). Prints positions and moves per second for building
the predecessor lists (CSR) and for the retrograde pass over them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tablebase.core.values import NOT_TERMINAL, Outcome
from tablebase.solve import solve
from tablebase.solve.predecessors import predecessors_of


def random_graph(n: int, degree: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions with 0..2*degree random moves each; 1% terminal losses."""
    rng = np.random.default_rng(seed)
    moves = rng.integers(0, 2 * degree + 1, size=n)
    src = np.repeat(np.arange(n, dtype=np.int32), moves)
    dst = rng.integers(0, n, size=len(src), dtype=np.int32)
    terminal = np.full(n, NOT_TERMINAL, dtype=np.int8)
    terminal[rng.random(n) < 0.01] = Outcome.LOSS
    return terminal, src, dst


def main() -> None:
    """Time :func:`predecessors_of` and :func:`solve` on a :func:`random_graph`; print
    moves per second, positions per second, the level count and the outcome counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=2_000_000)
    parser.add_argument("--moves-per-position", type=int, default=3)
    args = parser.parse_args()
    terminal, src, dst = random_graph(args.positions, args.moves_per_position)
    n, m = len(terminal), len(src)
    print(f"random graph: {n:,} positions, {m:,} moves")

    started = time.perf_counter()
    graph = predecessors_of(n, src, dst)
    csr = time.perf_counter() - started
    print(f"  predecessor CSR {csr:7.2f} s  {m / csr:14,.0f} moves/s")

    started = time.perf_counter()
    solution = solve(terminal, graph)
    total = time.perf_counter() - started
    print(f"  retrograde pass {total:7.2f} s  {m / total:14,.0f} moves/s  {n / total:14,.0f} positions/s")
    levels = int(solution.remoteness.max()) + 1
    counts = {o.label: int(np.count_nonzero(solution.outcome == o)) for o in Outcome}
    print(f"  {levels} levels, {counts}")


if __name__ == "__main__":
    main()
