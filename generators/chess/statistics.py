"""The Syzygy generator's statistics of a chess ending, and the same counts over our values.

``rtbgen -s M`` (syzygy1/tb) writes ``M.txt``: per side to move, the positions that win or
lose at each DTZ in plies (cursed wins and blessed losses beyond 100), and the positions
that are wins, cursed wins, draws, blessed ("cursed") losses and losses. Counted over
every position of a table with DTZ, ours must equal them cell by cell: a whole table
compared in seconds, where probing each position takes hours.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from tablebase.generators.chess.layout import Layout
from tablebase.generators.chess.tables import SYMMETRIES

Counts = Counter[tuple[str, str, int]]
"""``(side to move, "win"/"lose", DTZ plies) -> positions``, and ``(side, category, -1)``
for the totals per category (``wins``, ``cursed wins``, ``draws``, ``cursed losses``,
``losses``)."""

_LINE = re.compile(r"^(\d+) positions (win|lose) in (\d+) ply\.$")
_TOTAL = re.compile(r"^(\d+) positions are (wins|cursed wins|draws|cursed losses|losses)\.$")


def read_statistics(path: Path) -> Counts:
    """The statistics file that ``rtbgen -s`` wrote, as :data:`Counts`.

    :raises OSError: if the file cannot be read."""
    counts: Counts = Counter()
    side = ""
    for line in path.read_text().splitlines():
        if line.endswith("to move:"):
            side = line.split()[0].lower()
        elif match := _LINE.match(line):
            counts[side, match[2], int(match[3])] += int(match[1])
        elif match := _TOTAL.match(line):
            counts[side, match[2], -1] += int(match[1])
    return counts


def generator_multiplicity(layout: Layout, squares: np.ndarray) -> np.ndarray:
    """int64[n]: how many times the Syzygy generator counts each of n positions
    (int64[n, slots] squares) in its statistics. It tells identical pieces apart (KQQvKQ:
    the two queens in either order), so a position counts once per ordering of each
    group of twins, up to the symmetries that map the position onto itself: ``k!`` for a
    group of ``k`` (product over groups), divided by the number of distinct permutations
    of the twins that those symmetries make; 1 for every position without twins.

    Measured on KQQvKQ: with it, ours equals the generator's counts per side to move and
    category exactly; without it, theirs are 2 times ours less, e.g., the 2,341 white wins (of
    21,727,212) symmetric under a reflection that swaps the queens."""
    n = len(squares)
    if not layout.twins:
        return np.ones(n, dtype=np.int64)
    twin_slots = [slot for first, end in layout.twins for slot in range(first, end)]
    symmetries = SYMMETRIES[:2] if "P" in layout.types else SYMMETRIES
    codes = np.full((n, len(symmetries)), -1, dtype=np.int64)
    for s, image in enumerate(symmetries):
        onto = np.ones(n, dtype=bool)
        for slot in range(layout.count):
            if slot not in twin_slots:
                onto &= image[squares[:, slot]] == squares[:, slot]
        code = np.zeros(n, dtype=np.int64)
        for first, end in layout.twins:
            for i in range(first, end):
                target = np.full(n, -1, dtype=np.int64)
                for j in range(first, end):
                    target[image[squares[:, i]] == squares[:, j]] = j - first
                onto &= target >= 0
                code = code * layout.count + target
        codes[onto, s] = code[onto]
    codes.sort(axis=1)
    distinct = ((codes[:, 1:] != codes[:, :-1]) & (codes[:, 1:] >= 0)).sum(axis=1) + (codes[:, 0] >= 0)
    orderings = int(np.prod([math.factorial(end - first) for first, end in layout.twins]))
    return orderings // distinct


def count_positions(layout: Layout, parts: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> Counts:
    """The generator's counts over a table's positions, given a part at a time as
    ``(keys, outcome, dtz)``: int64[n] index keys (the side to move is bit 0), int8[n]
    outcomes (+1, 0, -1 for the side to move) and int[n] DTZ in plies (beyond 100 for a
    cursed win or blessed loss), each position weighed by :func:`generator_multiplicity`;
    a key with an en passant right is left out, as the generator's index has none."""
    counts: Counts = Counter()
    for keys, outcome, dtz in parts:
        _stm, ep, squares = layout.decode(keys)
        placed = ep == 0  # the generator indexes no en passant right
        keys, outcome, dtz = keys[placed], outcome[placed], dtz[placed]
        side = keys & 1
        weight = generator_multiplicity(layout, squares[placed]) if layout.twins else np.ones(len(keys), np.int64)
        cursed = np.abs(dtz) > 100
        for stm, name in ((0, "white"), (1, "black")):
            mine = side == stm
            for value, verb in ((1, "win"), (-1, "lose")):
                these = mine & (outcome == value)
                plies = np.abs(dtz[these]).astype(np.int64)
                found = np.bincount(plies, weights=weight[these]).astype(np.int64)
                counts.update({(name, verb, int(p)): int(found[p]) for p in np.flatnonzero(found)})
            totals = {
                "wins": mine & (outcome == 1) & ~cursed,
                "cursed wins": mine & (outcome == 1) & cursed,
                "draws": mine & (outcome == 0),
                "cursed losses": mine & (outcome == -1) & cursed,
                "losses": mine & (outcome == -1) & ~cursed,
            }
            counts.update({(name, total, -1): int(weight[these].sum()) for total, these in totals.items()})
    return counts if layout.colour_flip is None else _both_sides(counts)


def _both_sides(counts: Counts) -> Counts:
    """The counts of an ending of like sides (KRvKR) as the generator gives them: it
    keeps one side to move and counts every position under each, where our keys hold
    a position and its colour flip once, under either side to move."""
    both: Counts = Counter()
    for (_side, what, ply), n in counts.items():
        for side in ("white", "black"):
            both[side, what, ply] += n
    return both


def differing(ours: Counts, theirs: Counts) -> dict[tuple[str, str, int], tuple[int, int]]:
    """The cells where two :data:`Counts` differ, each as ``(ours, theirs)``; a cell
    missing from one counts as 0 there. Empty when they are equal cell by cell."""
    pairs = {cell: (ours.get(cell, 0), theirs.get(cell, 0)) for cell in set(ours) | set(theirs)}
    return {cell: pair for cell, pair in sorted(pairs.items()) if pair[0] != pair[1]}
