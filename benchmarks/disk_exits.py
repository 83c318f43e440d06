"""How much less would a chess ending's DTM and DTZ keep if the positions that a capture
or a promotion values were don't-cares, as Syzygy's WDL files leave them?

Usage: ``python benchmarks/disk_exits.py --db DB --material KRPvKR [--samples 4] [--fraction 0.01]``.

The ending and every one of its dependencies must be built in DB. For ``samples`` ranges
of the index space, each ``fraction`` of it, spread evenly: every stored position's moves
that leave the ending (:meth:`~tablebase.core.game.Game.expand`'s exits) are valued from the
dependencies, and a position whose value one of them reaches (its DTM, from either side)
is counted as resolved by its exits. The DTM codes of each side to move (the sided
layout's blocks of 2^16 keys, zstd level 9) are compressed as stored, and again with the
resolved positions filled like unstored ones (the value of the key before): a bound from
below of what such don't-cares could save. A reader that takes the better of the stored
value and the exits' (as Syzygy's WDL probe does) needs each stored value no better than
the truth, so a third figure fills a resolved position only where the value before it
is no better than its own (:func:`filled_at_most`). DTZ alike: a position whose DTZ a
capture or promotion gives (1 into a loss, 0 into a draw, -1 into a win; 101 and -101
across the 50-move rule's line) is filled where the DTZ before it is no better, draws'
DTZ left out as the sided layout leaves it.
The price is the reader's: every DTM or DTZ probe of a position with such a move then
values those moves, and ranking a position's moves does so for each of its successors.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from disk_bound import compressed
from numba import njit

from tablebase.read.filled import probe_array
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tablebase.store.blocks import BLOCK_KEYS
from tablebase.store.packed import value_codes

SPAN = 2 * BLOCK_KEYS


def merit(outcome: np.ndarray, remoteness: np.ndarray) -> np.ndarray:
    """int64[n]: values ordered for the side to move, the faster win and the slower loss
    above (remoteness in plies)."""
    return np.where(outcome > 0, 10_000 - remoteness, np.where(outcome < 0, remoteness - 10_000, 0)).astype(np.int64)


def dtz_merit(dtz: np.ndarray) -> np.ndarray:
    """int64[n]: DTZ (plies, signed as python-chess gives it) ordered for the side to
    move: the faster win above, a cursed win (beyond 100) below every win, then the draw,
    a blessed loss, and the slower loss above."""
    return np.where(dtz > 0, 100_000 - dtz, np.where(dtz < 0, -100_000 - dtz, 0)).astype(np.int64)


def dtz_by_exit(their_outcome: np.ndarray, their_dtz: np.ndarray) -> np.ndarray:
    """The DTZ a move out of the ending gives the side that makes it (a capture or a
    promotion zeroes the count): 1 into a loss (101 into a blessed one), -1 into a win
    (-101 into a cursed one), 0 into a draw."""
    beyond = np.abs(their_dtz) > 100
    return np.where(their_outcome < 0, np.where(beyond, 101, 1), np.where(their_outcome > 0, np.where(beyond, -101, -1), 0))


def filled(codes: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """``codes`` with every slot not ``kept`` taking the code of the kept one before it."""
    at = np.maximum.accumulate(np.where(kept, np.arange(len(codes)), 0))
    return codes[at]


@njit(cache=True)
def filled_at_most(codes: np.ndarray, merits: np.ndarray, stored: np.ndarray, free: np.ndarray) -> np.ndarray:
    """``codes`` (int64[n] value codes, ``merits`` their int64[n] :func:`merit`) with
    every slot not ``stored`` taking the code before it, and every ``free`` slot too
    where that code's merit is no better than its own: what a writer may store for a
    reader that values a position by the better of its stored value and its exits'."""
    out = codes.copy()
    kept = merits.copy()
    for i in range(1, len(out)):
        if not stored[i] or (free[i] and kept[i - 1] <= merits[i]):
            out[i], kept[i] = out[i - 1], kept[i - 1]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--material", required=True)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--fraction", type=float, default=0.01, help="of the index space, each sample")
    arguments = parser.parse_args()
    game = load_game("chess", {"material": arguments.material})
    started = time.perf_counter()
    positions = resolved = stored_bytes = freed_bytes = bounded_bytes = resolved_dtz = dtz_bytes = dtz_bounded_bytes = 0
    with open_store(arguments.db, create=False) as store:
        row = store.require(game.name, game.identity(), game.build_command(), game.version)
        rows = [store.require(d.name, d.identity(), d.build_command(), d.version) for d in game.dependencies()]
        length = max(SPAN, int(game.size * arguments.fraction) // SPAN * SPAN)
        for sample in range(arguments.samples):
            first = int(game.size * sample / arguments.samples) // SPAN * SPAN
            keys = np.arange(first, min(first + length, game.size), dtype=np.int64)
            found, outcome, remoteness, dtz = probe_array(store, row, keys)
            here = keys[found]
            src, table, child = game.expand(here).exits
            best = np.full(len(here), np.iinfo(np.int64).min, dtype=np.int64)
            best_dtz = best.copy()
            for number, dependency_row in enumerate(rows):
                into = table == number
                reached, their_outcome, their_remoteness, their_dtz = probe_array(store, dependency_row, child[into])
                if not reached.all():
                    raise SystemExit(f"{dependency_row.description}: a move's successor is not stored")
                np.maximum.at(best, src[into], merit(-their_outcome, their_remoteness + 1))
                np.maximum.at(best_dtz, src[into], dtz_merit(dtz_by_exit(their_outcome, their_dtz)))
            by_exit = np.zeros(len(keys), dtype=bool)
            by_exit[np.flatnonzero(found)[best == merit(outcome[found], remoteness[found])]] = True
            dtz_free = np.zeros(len(keys), dtype=bool)
            dtz_free[np.flatnonzero(found)[best_dtz == dtz_merit(dtz[found])]] = True
            kept_dtz = found & (outcome != 0)  # the sided layout leaves a draw's DTZ out
            codes, merits = value_codes(outcome, remoteness), merit(outcome, remoteness)
            for side in (0, 1):
                stored, free = found[side::2], by_exit[side::2]
                stored_bytes += compressed(filled(codes[side::2], stored), BLOCK_KEYS, 9)
                freed_bytes += compressed(filled(codes[side::2], stored & ~free), BLOCK_KEYS, 9)
                bounded = filled_at_most(codes[side::2], merits[side::2], stored, free)
                bounded_bytes += compressed(bounded, BLOCK_KEYS, 9)
                kept, side_dtz = kept_dtz[side::2], dtz[side::2]
                dtz_bytes += compressed(filled(side_dtz, kept), BLOCK_KEYS, 9)
                dtz_bounded = filled_at_most(side_dtz, dtz_merit(side_dtz), kept, dtz_free[side::2])
                dtz_bounded_bytes += compressed(dtz_bounded, BLOCK_KEYS, 9)
            resolved_dtz += int((dtz_free & kept_dtz).sum())
            positions += int(found.sum())
            resolved += int(by_exit.sum())
    print(f"{arguments.material}: {positions:,} stored positions in {arguments.samples} samples of "
          f"{arguments.fraction:.1%} of the index space ({time.perf_counter() - started:.0f} s)")
    print(f"  valued by a capture or promotion: {resolved / positions:.1%}")
    print(f"  DTM as stored:                          {stored_bytes / positions:.4f} bytes a position")
    print(f"  DTM, those positions as don't-cares:    {freed_bytes / positions:.4f} bytes a position")
    print(f"  DTM, each stored no better than it is:  {bounded_bytes / positions:.4f} bytes a position")
    print(f"  DTZ valued by a capture or promotion (draws aside): {resolved_dtz / positions:.1%}")
    print(f"  DTZ as stored (draws left out):         {dtz_bytes / positions:.4f} bytes a position")
    print(f"  DTZ, each stored no better than it is:  {dtz_bounded_bytes / positions:.4f} bytes a position")


if __name__ == "__main__":
    main()
