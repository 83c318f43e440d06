"""The pace of chess's un-move kernel: ``Chess.predecessors`` of the legal keys among 3
million random ones, in batches of 32,768 keys as the retrograde pass asks, best of 3.

    python benchmarks/unmoves.py KQQvKQ KRBvKR KBBvKN KQvKR

prints, per ending, the keys, the predecessors found and the nanoseconds a predecessor
and a key (the kernels compiled first).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from tablebase.generators.chess.game import table

BATCH = 1 << 15


def main(materials: list[str]) -> None:
    for material in materials:
        game = table(material, "dtz")
        keys = np.unique(np.random.default_rng(1).integers(0, game.size, size=3_000_000))
        keys = keys[game.legal(keys)]
        game.predecessors(keys[:1000])  # compiled, or loaded from numba's cache
        best, found = float("inf"), 0
        for _round in range(3):
            started, found = time.perf_counter(), 0
            for start in range(0, len(keys), BATCH):
                found += len(game.predecessors(keys[start : start + BATCH])[1])
            best = min(best, time.perf_counter() - started)
        print(f"{material}: {len(keys):,} keys, {found:,} predecessors, {best / found * 1e9:.1f} ns a predecessor, {best / len(keys) * 1e9:.0f} ns a key")


if __name__ == "__main__":
    main(sys.argv[1:] or ["KQQvKQ", "KRBvKR", "KBBvKN", "KQvKR"])
