"""Where six pieces stand: every 6-piece pawnless ending's index keys, and its time and
peak memory projected from a build measured in the same run.

Usage::

    python benchmarks/six_pieces.py --db DB [--material KNNNNvK] [--metric dtz]
    python benchmarks/six_pieces.py --material KRRvKRB --measured SECONDS MIB

builds ``--material`` (default KNNNNvK, the 6-piece ending with the fewest keys, with
``--metric``, default ``dtz``: what Syzygy stores, the default of six pieces) in a
process of its own onto its dependencies, built before by another (not timed), reads
its seconds and peak memory (``benchmarks/chess_endgames.py``'s figures), or takes the seconds and peak MiB of its build from a run before
(``--measured``: a 6-piece build of an hour, ``chess_endgames.py --syzygy``'s line beside
the generator's), and prints for
every 6-piece pawnless ending (no pawns: 5 + ... material balances of six pieces in
Syzygy's normal form) its index keys under the current key format
(:mod:`tablebase.generators.chess.layout`: 462 king pairs, identical pieces as
combinations) and the projection:

- time: the measured seconds a key times the ending's keys (the measured pace held
  constant; a drawn ending is faster, so this is the rough basis the line prints);
- peak memory: the size guard's estimate (:func:`tablebase.solve.budget.estimate`: the
  one-byte pass's byte a key, its threads' batches and the dependencies it reads),
  printed beside the measured peak for the measured ending, against the 20 GiB the
  issue allows.

The total is the sum over all of them: the hours this machine would take at the measured
pace; with ``--generator``, the Syzygy generator's seconds for the same ending in the same
run, also the generator's hours at the measured ratio.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from itertools import combinations_with_replacement, product
from pathlib import Path

from tablebase.generators.chess.layout import Layout
from tablebase.generators.chess.material import PIECES, build_order, normal_form
from tablebase.solve.budget import estimate
from tablebase.solve.registry import load_game

LIMIT = 20 * 2**30
"""The peak memory the issue allows a 6-piece build, in bytes."""


def pawnless_six() -> list[tuple[str, str]]:
    """Every 6-piece pawnless material, ``(first side, second side)`` in normal form,
    in build order."""
    names = set()
    for pieces in combinations_with_replacement(PIECES[1:5], 4):
        for owners in product((0, 1), repeat=4):
            sides = ["K" + "".join(p for p, o in zip(pieces, owners) if o == side) for side in (0, 1)]
            first, second, _swapped = normal_form(*sides)
            names.add((first, second))
    return sorted(names, key=lambda sides: build_order("v".join(sides)))


def measured(material: str, metric: str, database: str) -> tuple[float, int]:
    """``(seconds, peak bytes)`` of ``material``'s build, its dependencies built before."""
    script = Path(__file__).with_name("chess_endgames.py")
    output = subprocess.run(
        [sys.executable, str(script), "--material", material, "--metric", metric, "--db", database],
        check=True, capture_output=True, text=True,
    ).stdout
    line = next(line for line in output.splitlines() if line.startswith(f"{material} metric="))
    seconds = float(re.search(r": ([\d.]+) s in all", line).group(1))
    peak = float(re.search(r"peak memory ([\d,]+) MiB", line).group(1).replace(",", ""))
    print(line)
    return seconds, int(peak * 2**20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database for the measured build and its dependencies")
    parser.add_argument("--material", default="KNNNNvK", help="the ending measured (default KNNNNvK)")
    parser.add_argument("--metric", default="dtz", choices=["both", "dtm", "dtz"])
    parser.add_argument("--measured", nargs=2, type=float, metavar=("SECONDS", "MIB"), help="the ending's build measured before: no build")
    parser.add_argument("--generator", type=float, metavar="SECONDS", help="the Syzygy generator's build of the ending in the same run")
    args = parser.parse_args()
    if args.measured:
        seconds, peak = args.measured[0], int(args.measured[1] * 2**20)
        print(f"{args.material} metric={args.metric}: {seconds:.1f} s and {args.measured[1]:,.0f} MiB, measured in a run before")
    elif args.db:
        seconds, peak = measured(args.material, args.metric, args.db)
    else:
        parser.error("--db (to build the ending) or --measured is needed")
    keys = Layout(*args.material.split("v")).size
    pace = seconds / keys
    guessed = _peak(args.material, args.metric)
    print(
        f"basis: {args.material} metric={args.metric} {seconds:.1f} s and {peak / 2**20:,.0f} MiB (estimated "
        f"{guessed / 2**20:,.0f} MiB) over {keys:,} keys: {pace * 1e9:.0f} ns a key, held constant for "
        f"every 6-piece ending; peaks as the size guard estimates them"
    )
    total_seconds, fitting = 0.0, 0
    print(f"{'ending':10} {'index keys':>18} {'time':>9} {'peak':>10}")
    for first, second in pawnless_six():
        size = Layout(first, second).size
        projected = _peak(f"{first}v{second}", args.metric)
        fitting += projected <= LIMIT
        total_seconds += size * pace
        print(f"{first + 'v' + second:10} {size:>18,} {size * pace / 3600:>7.1f} h {projected / 2**30:>7.0f} GiB")
    count = len(pawnless_six())
    print(
        f"{count} pawnless 6-piece endings: {total_seconds / 3600:,.0f} hours at that pace; "
        f"{fitting} of them within {LIMIT / 2**30:.0f} GiB"
    )
    if args.generator:
        ratio = seconds / args.generator
        print(
            f"the Syzygy generator took {args.generator:.1f} s for {args.material} in the same run (ours {ratio:.2f} times its time): "
            f"{total_seconds / ratio / 3600:,.0f} hours for the {count} at that ratio"
        )


def _peak(material: str, metric: str) -> int:
    """The size guard's peak estimate of ``material``'s build, in bytes."""
    found = estimate(load_game("chess", {"material": material, "metric": metric}))
    assert found is not None
    return found.memory


if __name__ == "__main__":
    main()
