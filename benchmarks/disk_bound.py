"""How far below today's bytes a position could a chess ending's DTM and DTZ go on disk?

Usage: ``python benchmarks/disk_bound.py --db DB --material KRPvKR [--fraction 0.05]``.

Reads the first ``fraction`` of the ending's index space from a database in the blocks
layout (values in key order, a key that is not stored taking the value of the one before
it, as the layout fills its gaps) and prints, per column (DTM with WDL: the ``codes``;
DTZ: the ``extra``), in bytes per stored position:

- ``zstd 9``: the blobs as the blocks layout writes them (2^16 keys, zstd level 9);
- ``zstd 19``: the same at zstd's level 19, and at 2^18 keys a block;
- ``one side``: each side to move's values alone (every other key: the side to move is
  the index's fastest digit), as a tablebase that stores one side to move and values the
  other by a search of one ply would keep them (Syzygy's DTZ files);
- ``H0``, ``H|...``: the empirical entropy of a stored position's value, alone and given
  the values of the keys 1, 2 and 64 before it (the other side to move, the white king a
  square back, the next piece a square back): what a coder that models those neighbours
  could reach at best, the model's own cost left out (so a bound from below for such a
  coder, not for every coder).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator

import numpy as np
import zstandard

from tablebase.read.filled import read_parts
from tablebase.solve.registry import game_class
from tablebase.store import open_store
from tablebase.store.blocks import BLOCK_KEYS
from tablebase.store.packed import extra_codes, value_codes

CHUNK = 1 << 24
"""Keys of the index space taken at a time (each is measured on its own)."""


def chunks(db: str, material: str, fraction: float) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``(stored, dtm codes, dtz codes)`` of each :data:`CHUNK` of the index space up to
    ``fraction`` of it: bool[CHUNK], int64[CHUNK] each, gaps filled from the key before."""
    game = game_class("chess")(material=material)
    stop = int(game.size * fraction)
    with open_store(db, create=False) as store:
        row = next(r for r in store.catalog("chess") if r.status == "complete" and f'"material":"{material}"' in r.params)
        if row.layout not in ("blocks", "sided"):
            raise SystemExit(f"{material} is not stored in a blocks layout: repack it first")
        start, parts = 0, []
        for keys, outcome, remoteness, dtz, known in read_parts(store, row, extra=True, known=True):
            first = int(keys[0]) // CHUNK * CHUNK
            if first != start and parts:
                yield _filled(start, parts)
                parts = []
            start = first
            if first >= stop:
                return
            parts.append((keys, value_codes(outcome, remoteness), extra_codes(dtz, known)))
        if parts:
            yield _filled(start, parts)


def _filled(start: int, parts: list[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    keys = np.concatenate([p[0] for p in parts]) - start
    at = np.zeros(CHUNK, np.int64)
    at[keys] = np.arange(len(keys))
    at = np.maximum.accumulate(at)
    stored = np.zeros(CHUNK, bool)
    stored[keys] = True
    return stored, np.concatenate([p[1] for p in parts])[at], np.concatenate([p[2] for p in parts])[at]


def compressed(values: np.ndarray, block: int, level: int) -> int:
    """Bytes of ``values`` as the blocks layout's codes blobs, ``block`` keys a blob."""
    compressor = zstandard.ZstdCompressor(level=level)
    total = 0
    for start in range(0, len(values), block):
        table, symbols = np.unique(values[start : start + block], return_inverse=True)
        symbols = symbols.astype(np.uint8 if len(table) <= 256 else np.uint16)
        total += len(compressor.compress(table.astype(np.int64).tobytes() + symbols.tobytes())) + 4
    return total


def entropy_bytes(values: np.ndarray) -> float:
    """Bytes of ``values`` at their empirical order-0 entropy."""
    _, counts = np.unique(values, return_counts=True)
    return float(-(counts * np.log2(counts / counts.sum())).sum() / 8)


def conditional_bytes(values: np.ndarray, context: np.ndarray) -> float:
    """Bytes of ``values`` at their empirical entropy given ``context`` (int64, same length)."""
    return entropy_bytes(context * (int(values.max()) + 1) + values) - entropy_bytes(context)


def measures(stored: np.ndarray, values: np.ndarray) -> dict[str, float]:
    """Each figure of the module docstring, in bytes, of one chunk's column."""
    skip = 64
    these = values[skip:][stored[skip:]]
    back = {d: values[skip - d : len(values) - d][stored[skip:]] for d in (1, 2, 64)}
    width = int(values.max()) + 1
    return {
        "zstd 9 (as stored)": compressed(values, BLOCK_KEYS, 9),
        "zstd 19": compressed(values, BLOCK_KEYS, 19),
        "zstd 19, 2^18 keys a block": compressed(values, 4 * BLOCK_KEYS, 19),
        "one side: white to move": compressed(values[0::2], BLOCK_KEYS // 2, 9),
        "one side: black to move": compressed(values[1::2], BLOCK_KEYS // 2, 9),
        "H0": entropy_bytes(these),
        "H|key-1": conditional_bytes(these, back[1]),
        "H|key-2": conditional_bytes(these, back[2]),
        "H|key-1,key-2,key-64": conditional_bytes(these, (back[1] * width + back[2]) * width + back[64]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--material", required=True)
    parser.add_argument("--fraction", type=float, default=0.05, help="of the index space, from its start")
    arguments = parser.parse_args()
    started = time.perf_counter()
    totals: dict[tuple[str, str], float] = {}
    positions = 0
    for stored, dtm, dtz in chunks(arguments.db, arguments.material, arguments.fraction):
        positions += int(stored.sum())
        for column, values in (("DTM", dtm), ("DTZ", dtz)):
            for name, figure in measures(stored, values).items():
                totals[column, name] = totals.get((column, name), 0.0) + figure
    print(f"{arguments.material}: {positions:,} stored positions in the first {arguments.fraction:.0%} of the index space "
          f"({time.perf_counter() - started:.0f} s)")
    for (column, name), figure in totals.items():
        print(f"  {column} {name:30} {figure / max(positions, 1):.4f} bytes a position")


if __name__ == "__main__":
    main()
