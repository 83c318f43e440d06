"""Whole chess tables against the Syzygy generator's own statistics.

``../shared/oracle/syzygy5/stats/`` holds what ``rtbgen -s`` printed for some endings: per
side to move, the positions that win or lose at each DTZ in plies (cursed wins and
blessed losses beyond 100), and the positions that are wins, cursed wins, draws, blessed
("cursed") losses and losses. Counted over every stored position of a table built with
the default metric (DTM and DTZ), ours must equal them exactly: a whole table compared
in seconds, where probing each position with python-chess takes hours.

The 4-piece endings with statistics (KQvKR, KQRvK) run by default. The 5-piece ones are
on demand, since building them takes minutes and GiB::

    TABLEBASE_FIVE_PIECE=1 pytest tests/test_syzygy_stats.py

with ``$TABLEBASE_ORACLE_DB`` naming a database where they are built or to be built
(reused by later runs); KRPvKR needs its four 5-piece promotion endings too.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter

import numpy as np
import pytest

from tablebase.build.builder import build
from tablebase.generators.chess.tables import SYMMETRIES
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tests.test_chess_oracle import DATABASE, ORACLE

STATS = ORACLE / "syzygy5" / "stats"
FIVE_PIECE = os.environ.get("TABLEBASE_FIVE_PIECE") == "1"

Counts = Counter[tuple[str, str, int]]
"""``(side to move, "win"/"lose", DTZ plies) -> positions``, and ``(side, category, -1)``
for the totals per category (``wins``, ``cursed wins``, ``draws``, ``cursed losses``,
``losses``)."""

_LINE = re.compile(r"^(\d+) positions (win|lose) in (\d+) ply\.$")
_TOTAL = re.compile(r"^(\d+) positions are (wins|cursed wins|draws|cursed losses|losses)\.$")


def syzygy_counts(material: str) -> Counts:
    """The statistics file of ``material`` as :data:`Counts`."""
    counts: Counts = Counter()
    side = ""
    for line in (STATS / f"{material}.txt").read_text().splitlines():
        if line.endswith("to move:"):
            side = line.split()[0].lower()
        elif match := _LINE.match(line):
            counts[side, match[2], int(match[3])] += int(match[1])
        elif match := _TOTAL.match(line):
            counts[side, match[2], -1] += int(match[1])
    return counts


def generator_multiplicity(layout, squares: np.ndarray) -> np.ndarray:
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


def stored_counts(store, game) -> Counts:
    """The same counts over a stored chess table, read a chunk at a time (the side to
    move is bit 0 of a key), each position weighed by :func:`generator_multiplicity`."""
    row = store.require(game.name, game.identity(), game.build_command(), game.version)
    counts: Counts = Counter()
    for keys, outcome, _remoteness, dtz in store.read_parts(row, extra=True):
        side = keys & 1
        weight = generator_multiplicity(game.layout, game.layout.decode(keys)[2])
        cursed = np.abs(dtz) > 100
        for stm, name in ((0, "white"), (1, "black")):
            mine = side == stm
            for value, verb in ((1, "win"), (-1, "lose")):
                these = mine & (outcome == value)
                plies = np.abs(dtz[these])
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
    return counts


def _check(material: str, database) -> None:
    game = load_game("chess", {"material": material})
    with open_store(database) as store:
        build(game, store)
        ours = stored_counts(store, game)
    theirs = syzygy_counts(material)
    assert sum(n for (_side, what, _ply), n in theirs.items() if what in ("win", "lose")) > 0
    differing = {key: (ours.get(key, 0), theirs.get(key, 0)) for key in set(ours) | set(theirs)}
    differing = {key: pair for key, pair in differing.items() if pair[0] != pair[1]}
    assert differing == {}


needs_stats = pytest.mark.skipif(not STATS.is_dir(), reason=f"no Syzygy statistics at {STATS}")


@needs_stats
@pytest.mark.parametrize("material", ["KQvKR", "KQRvK"])
def test_four_piece_tables_equal_the_syzygy_generator_s_statistics(material, tmp_path_factory):
    _check(material, DATABASE or tmp_path_factory.getbasetemp() / "stats4.sqlite")


@needs_stats
@pytest.mark.skipif(not FIVE_PIECE, reason="5-piece builds take minutes and GiB: TABLEBASE_FIVE_PIECE=1")
@pytest.mark.parametrize("material", ["KRBvKR", "KQQvKQ", "KBBvKN", "KRPvKR"])
def test_five_piece_tables_equal_the_syzygy_generator_s_statistics(material, tmp_path_factory):
    _check(material, DATABASE or tmp_path_factory.getbasetemp() / "stats5.sqlite")


def test_the_statistics_are_read_as_written():
    """The parser reads KQvKR's file: 1,119,216 positions with white to move and
    1,347,906 with black (README of the oracle), wins by DTZ summing to the wins."""
    if not STATS.is_dir():
        pytest.skip(f"no Syzygy statistics at {STATS}")
    counts = syzygy_counts("KQvKR")
    for side, total in (("white", 1_119_216), ("black", 1_347_906)):
        categories = ("wins", "cursed wins", "draws", "cursed losses", "losses")
        assert sum(counts[side, name, -1] for name in categories) == total
        won = sum(n for (s, what, ply), n in counts.items() if s == side and what == "win")
        assert won == counts[side, "wins", -1] + counts[side, "cursed wins", -1]
