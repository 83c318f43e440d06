"""How small would a chess ending be with one side to move's DTM left out, valued by a
search of one ply, while both sides keep their DTZ?

Usage: ``python benchmarks/disk_one_side.py --db DB --material KRPvKR [--positions 20000]``.

The ending (sided layout) and its dependencies must be built in DB. Two measures:

- **bytes**: every span of the index space is read (:func:`~tablebase.read.filled.probe_array`)
  and each side to move's blocks are encoded as the sided layout writes them
  (:func:`~tablebase.store.block_codec.encode_block`, format 5, zstd level 9): the value codes
  (WDL with DTM) and the DTZ with draws left out. For the side whose DTM is left out,
  one blob stands instead, as ``--dtm-sides one`` writes it (``encode_block``'s
  ``dtm_left_out``): its DTZ codes, a mated side and an unstored key each a code of its
  own, which say its WDL (Syzygy's five categories: the sign of the DTZ, beyond 100 for
  a cursed win or a blessed loss) and which keys are stored; and, measured beside it, that side's value codes without remoteness (WDL
  alone) beside its DTZ as stored. Printed in bytes of blobs a stored position
  (SQLite's pages add 2 to 3%).
- **derivation**: ``positions`` random stored positions of each side are valued from one
  ply as a reader of ``--dtm-sides one`` values the side it leaves out
  (:func:`tablebase.read.derived.derived_remoteness`: every move's successor probed, the DTM
  the best of ``1 + DTM`` over them), and each derived DTM must equal the stored one.
  Timed for batches of every size a query needs: one position (a probe), and the
  successors of one position of the other side (ranking its moves by DTM then takes a
  search of two plies).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tablebase.read.derived import derived_remoteness
from tablebase.read.filled import probe_array
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tablebase.store.block_codec import encode_block
from tablebase.store.blocks import BLOCK_KEYS, BlockFormat
from tablebase.store.blocks_layout import DRAW_DTZ_CODE
from tablebase.store.packed import extra_codes, value_codes

SPAN = 2 * BLOCK_KEYS
"""Keys of one span of the sided layout: a block of each side to move."""
SPANS_AT_ONCE = 64
"""Spans read in one array probe."""
FORMAT = BlockFormat(DRAW_DTZ_CODE, gaps=True)
"""The sided layout's format 5, as builds write it (zstd level 9)."""


VARIANTS = ("as stored", "DTM left out", "DTM left out, WDL beside DTZ")
"""What :func:`side_bytes` encodes of one side's block."""


def side_bytes(found: np.ndarray, outcome: np.ndarray, remoteness: np.ndarray, dtz: np.ndarray) -> list[int]:
    """Blob bytes of one side to move's block in each of :data:`VARIANTS`, from its keys'
    bool[n] found, int8[n] outcomes, int32[n] remoteness and int64[n] DTZ."""
    slots = np.flatnonzero(found)
    if not len(slots):
        return [0] * len(VARIANTS)
    codes, dtz = value_codes(outcome[slots], remoteness[slots]), extra_codes(dtz[slots])
    return [
        blob_bytes(encode_block(slots, codes, dtz, 9, FORMAT)),
        blob_bytes(encode_block(slots, codes, dtz, 9, FORMAT._replace(dtm_left_out=True), dtm_left_out=True)),
        blob_bytes(encode_block(slots, value_codes(outcome[slots], np.full(len(slots), -1)), dtz, 9, FORMAT)),
    ]


def blob_bytes(blobs: tuple[bytes, bytes, bytes | None]) -> int:
    """The bytes of a block's blobs, as :func:`~tablebase.store.block_codec.encode_block` makes them."""
    return sum(len(blob) for blob in blobs if blob is not None)


def measure_bytes(store, row, size: int) -> None:
    """Prints the bytes a position of the ending as stored and in the other
    :data:`VARIANTS` of each side."""
    started = time.perf_counter()
    sizes = np.zeros((2, len(VARIANTS)), dtype=np.int64)
    positions = 0
    step = SPAN * SPANS_AT_ONCE
    for first in range(0, size, step):
        keys = np.arange(first, min(first + step, size), dtype=np.int64)
        found, outcome, remoteness, dtz = probe_array(store, row, keys)
        positions += int(found.sum())
        for span in range(0, len(keys), SPAN):
            for side in (0, 1):
                part = slice(span + side, span + SPAN, 2)
                sizes[side] += side_bytes(found[part], outcome[part], remoteness[part], dtz[part])
    whole = sizes[:, 0].sum()
    print(f"{row.description}: {positions:,} positions, blobs read and encoded in {time.perf_counter() - started:.0f} s")
    print(f"  as stored: {whole / positions:.4f} bytes of blobs a position "
          f"(white to move's blocks {sizes[0, 0] / positions:.4f}, black's {sizes[1, 0] / positions:.4f})")
    for variant in range(1, len(VARIANTS)):
        for side, name in ((0, "white"), (1, "black")):
            print(f"  {name} to move's {VARIANTS[variant]}: {(whole - sizes[side, 0] + sizes[side, variant]) / positions:.4f} "
                  f"bytes a position ({name}'s blocks {sizes[side, 0] / positions:.4f} > {sizes[side, variant] / positions:.4f})")


def measure_derivation(game, store, row, side: int, count: int, rng: np.random.Generator) -> None:
    """Derives the DTM of ``count`` random stored positions of ``side`` to move, checks
    them against the stored ones and prints the time of a probe and of a ranking."""
    keys = np.empty(0, dtype=np.int64)
    while len(keys) < count:
        sample = rng.integers(0, game.size // 2, 4 * count, dtype=np.int64) * 2 + side
        found, *_ = store.probe_array(row, sample)
        keys = np.concatenate([keys, sample[found]])
    keys = np.unique(keys[:count])
    _found, outcome, remoteness, _dtz = probe_array(store, row, keys)
    wrong = np.flatnonzero(derived_remoteness(store, row, keys, outcome) != remoteness)  # warms the caches too
    print(f"  {'white' if side == 0 else 'black'} to move, {len(keys):,} positions: DTM from one ply "
          f"{'equal to the stored one in every position' if not len(wrong) else f'WRONG in {len(wrong)}, first key {int(keys[wrong[0]])}'}")
    started = time.perf_counter()
    for key, its_outcome in zip(keys[:2000], outcome[:2000]):
        derived_remoteness(store, row, np.array([key]), np.array([its_outcome]))
    alone = (time.perf_counter() - started) / min(2000, len(keys))
    parents = np.unique(keys[:500] ^ 1)  # the same placements, the other side to move
    parents = parents[store.probe_array(row, parents)[0]]
    parents = parents[[len(game.expand(np.array([parent])).dst) > 0 for parent in parents]]
    times = []
    for _pass in range(2):  # the first reads the successors' and their successors' blocks
        started = time.perf_counter()
        for parent in parents:
            successors = game.expand(np.array([parent])).dst
            stored = store.probe(row, successors.tolist())  # as a query reads them: point probes, blocks kept
            derived_remoteness(store, row, successors, np.array([stored[key][0] for key in successors.tolist()], dtype=np.int8))
        times.append((time.perf_counter() - started) / len(parents))
    print(f"    a probe's search of one ply: {alone * 1e6:.0f} us; ranking a position of the other side by DTM "
          f"(its successors' searched in one batch), first / again: {times[0] * 1e6:.0f} / {times[1] * 1e6:.0f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--material", required=True)
    parser.add_argument("--positions", type=int, default=20_000, help="of each side, for the derivation (0: none)")
    parser.add_argument("--skip-bytes", action="store_true")
    arguments = parser.parse_args()
    game = load_game("chess", {"material": arguments.material})
    rng = np.random.default_rng(1)
    with open_store(arguments.db, create=False) as store:
        row = store.require(game.name, game.identity(), game.build_command(), game.version)
        if not arguments.skip_bytes:
            measure_bytes(store, row, game.size)
        for side in (0, 1) if arguments.positions else ():
            measure_derivation(game, store, row, side, arguments.positions, rng)


if __name__ == "__main__":
    main()
