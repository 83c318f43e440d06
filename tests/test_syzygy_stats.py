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

import os

import pytest

from tablebase.build.builder import build
from tablebase.generators.chess.statistics import Counts, count_positions, differing, read_statistics
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tests.test_chess_oracle import DATABASE, ORACLE

STATS = ORACLE / "syzygy5" / "stats"
FIVE_PIECE = os.environ.get("TABLEBASE_FIVE_PIECE") == "1"

def syzygy_counts(material: str) -> Counts:
    """The statistics file of ``material`` in :data:`STATS`."""
    return read_statistics(STATS / f"{material}.txt")


def stored_counts(store, game) -> Counts:
    """The generator's counts over a stored chess table, read a part at a time."""
    row = store.require(game.name, game.identity(), game.build_command(), game.version)
    parts = ((keys, outcome, dtz) for keys, outcome, _remoteness, dtz in store.read_parts(row, extra=True))
    return count_positions(game.layout, parts)


def _check(material: str, database) -> None:
    game = load_game("chess", {"material": material})
    with open_store(database) as store:
        build(game, store)
        ours = stored_counts(store, game)
    theirs = syzygy_counts(material)
    assert sum(n for (_side, what, _ply), n in theirs.items() if what in ("win", "lose")) > 0
    assert differing(ours, theirs) == {}


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
