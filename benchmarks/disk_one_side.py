"""How small would a chess ending be with one side to move's DTM left out, valued by a
search of one ply, while both sides keep their DTZ?

Usage: ``python benchmarks/disk_one_side.py --db DB --material KRPvKR [--positions 20000]``.

The ending (sided layout) and its dependencies must be built in DB. Two measures:

- **bytes**: every span of the index space is read (:meth:`~tablebase.store.Store.probe_array`)
  and each side to move's blocks are encoded as the sided layout writes them
  (:func:`~tablebase.store.blocks.encode_block`, format 5, zstd level 9): the value codes
  (WDL with DTM) and the DTZ with draws left out. For the side whose DTM is left out,
  one blob stands instead: its DTZ with a draw's stored (0) and an unstored key as
  :data:`~tablebase.store.blocks.GAP`, which says its WDL (Syzygy's five categories:
  the sign of the DTZ, beyond 100 for a cursed win or a blessed loss) and which keys are
  stored; and, measured beside it, that side's value codes without remoteness (WDL
  alone) beside its DTZ as stored. Printed in bytes of blobs a stored position
  (SQLite's pages add 2 to 3%).
- **derivation**: ``positions`` random stored positions of the side left out are valued
  from one ply, as a reader would: every move's successor probed (in the ending, whose
  other side keeps its DTM, or through a capture or a promotion into a dependency), the
  DTM the best of ``1 + DTM`` over them (R. de Man's Syzygy prober values the side that
  its DTZ files leave out the same way, ``probe_dtz`` in syzygy1/tb's ``src/tbprobe.c``).
  Each derived DTM must equal the stored one. Timed for batches of every size a query
  needs: one position (a probe), and the successors of one position of the other side
  (ranking its moves by DTM then takes a search of two plies).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tablebase.game import NOT_TERMINAL, load_game
from tablebase.store import open_store
from tablebase.store.blocks import BLOCK_KEYS, GAP, BlockFormat, encode_block, encode_symbols
from tablebase.store.database import DRAW_DTZ_CODE
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
    outcome, remoteness, dtz = outcome[slots], remoteness[slots], extra_codes(dtz[slots])
    whole = np.full(int(slots[-1] - slots[0]) + 1, GAP, dtype=np.int64)
    whole[slots - slots[0]] = dtz
    return [
        sum(map(len, encode_block(slots, value_codes(outcome, remoteness), dtz, 9, FORMAT))),
        len(encode_symbols(whole, None, 9)) + 4,
        sum(map(len, encode_block(slots, value_codes(outcome, np.full(len(slots), -1)), dtz, 9, FORMAT))),
    ]


def measure_bytes(store, row, size: int) -> None:
    """Prints the bytes a position of the ending as stored and in the other
    :data:`VARIANTS` of each side."""
    started = time.perf_counter()
    sizes = np.zeros((2, len(VARIANTS)), dtype=np.int64)
    positions = 0
    step = SPAN * SPANS_AT_ONCE
    for first in range(0, size, step):
        keys = np.arange(first, min(first + step, size), dtype=np.int64)
        found, outcome, remoteness, dtz = store.probe_array(row, keys)
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


def merit(outcome: np.ndarray, remoteness: np.ndarray) -> np.ndarray:
    """int64[n]: values ordered for the side to move (a faster win, a slower loss above)."""
    return np.where(outcome > 0, 10_000 - remoteness, np.where(outcome < 0, remoteness - 10_000, 0)).astype(np.int64)


class Successors:
    """The values of a batch's successors, gathered move by move into each position's best
    value and its draws' remoteness (docs/design.md, "Semantics")."""

    def __init__(self, count: int) -> None:
        self.best = np.full(count, np.iinfo(np.int64).min, dtype=np.int64)
        self.nearest_draw = np.full(count, np.iinfo(np.int32).max, dtype=np.int64)
        self.endless_draw = np.zeros(count, dtype=bool)

    def add(self, src: np.ndarray, outcome: np.ndarray, remoteness: np.ndarray) -> None:
        """Moves from positions ``src`` to successors of these values (for their side to move)."""
        np.maximum.at(self.best, src, merit(-outcome, remoteness + 1))
        draws = outcome == 0
        np.minimum.at(self.nearest_draw, src[draws], remoteness[draws])
        self.endless_draw[src[draws & (remoteness < 0)]] = True

    def values(self, terminal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(outcome, remoteness)``: int8[n] and int32[n] (-1 for none)."""
        best = self.best
        outcome = np.where(best > 0, 1, np.where(best < 0, -1, 0)).astype(np.int8)
        drawn = np.where(self.endless_draw, -1, self.nearest_draw + 1)
        remoteness = np.where(best > 0, 10_000 - best, np.where(best < 0, best + 10_000, drawn)).astype(np.int32)
        ended = terminal != NOT_TERMINAL
        outcome[ended] = terminal[ended]
        remoteness[ended] = 0
        return outcome, remoteness


def stored_values(store, row, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(outcome, remoteness)`` of int64[n] stored keys, int8[n] and int32[n] (-1 for
    none), by the point probes that keep decoded blocks (a query's successors are read
    so; an array probe decodes its blocks anew)."""
    values = store.probe(row, keys.tolist())
    if len(values) < len(np.unique(keys)):
        raise SystemExit(f"{row.description}: a move's successor is not stored")
    found = [values[key] for key in keys.tolist()]
    outcome = np.array([int(outcome) for outcome, _remoteness in found], dtype=np.int8)
    remoteness = np.array([-1 if remoteness is None else remoteness for _outcome, remoteness in found], dtype=np.int32)
    return outcome, remoteness


def derived(game, store, row, dependency_rows, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(outcome, remoteness)`` of int64[n] stored keys from one ply: int8[n], int32[n]."""
    moves = game.expand(keys)
    successors = Successors(len(keys))
    reached = [(row, moves.src, moves.dst)]
    src, table, child = moves.exits
    reached += [(dependency_row, src[table == number], child[table == number]) for number, dependency_row in enumerate(dependency_rows)]
    for their_row, their_src, their_keys in reached:
        successors.add(their_src, *stored_values(store, their_row, their_keys))
    return successors.values(moves.terminal)


def measure_derivation(game, store, row, dependency_rows, side: int, count: int, rng: np.random.Generator) -> None:
    """Derives the DTM of ``count`` random stored positions of ``side`` to move, checks
    them against the stored ones and prints the time of a probe and of a ranking."""
    keys = np.empty(0, dtype=np.int64)
    while len(keys) < count:
        sample = rng.integers(0, game.size // 2, 4 * count, dtype=np.int64) * 2 + side
        found, *_ = store.probe_array(row, sample)
        keys = np.concatenate([keys, sample[found]])
    keys = np.unique(keys[:count])
    _found, outcome, remoteness, _dtz = store.probe_array(row, keys)
    got_outcome, got_remoteness = derived(game, store, row, dependency_rows, keys)  # warms the caches too
    wrong = np.flatnonzero((got_outcome != outcome) | (got_remoteness != remoteness))
    print(f"  {'white' if side == 0 else 'black'} to move, {len(keys):,} positions: DTM from one ply "
          f"{'equal to the stored one in every position' if not len(wrong) else f'WRONG in {len(wrong)}, first key {int(keys[wrong[0]])}'}")
    started = time.perf_counter()
    for key in keys[:2000]:
        derived(game, store, row, dependency_rows, np.array([key]))
    alone = (time.perf_counter() - started) / min(2000, len(keys))
    parents = np.unique(keys[:500] ^ 1)  # the same placements, the other side to move
    parents = parents[store.probe_array(row, parents)[0]]
    rankings = 0
    successors = 0
    started = time.perf_counter()
    for parent in parents:
        moves = game.expand(np.array([parent]))
        if len(moves.dst):
            derived(game, store, row, dependency_rows, moves.dst)
            rankings += 1
            successors += len(moves.dst)
    ranking = (time.perf_counter() - started) / max(rankings, 1)
    print(f"    a probe's search of one ply: {alone * 1e6:.0f} us; "
          f"a ranking's of two ({successors / max(rankings, 1):.1f} successors in the ending, derived in one batch): {ranking * 1e6:.0f} us")


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
        dependency_rows = [store.require(d.name, d.identity(), d.build_command(), d.version) for d in game.dependencies()]
        if not arguments.skip_bytes:
            measure_bytes(store, row, game.size)
        for side in (0, 1) if arguments.positions else ():
            measure_derivation(game, store, row, dependency_rows, side, arguments.positions, rng)


if __name__ == "__main__":
    main()
