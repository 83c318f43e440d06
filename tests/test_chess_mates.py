"""The published longest mates, which need no oracle files: KQvK mate in 10, KRvK mate in
16, KQvKR mate in 35 (moves of the winning side, with the winner to move: 2n - 1 plies).

Sources: the Gaviota and Nalimov DTM tables as syzygy-tables.info reports them; Ken
Thompson's KQvKR result (mate in 35). Building KQvKR (DTM only) takes about 20 s."""

from __future__ import annotations

import pytest

from tablebase.build import build
from tablebase.game import Outcome, load_game
from tablebase.store import open_store


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("mates") / "chess.sqlite") as opened:
        build(load_game("chess", {"material": "KQvKR", "metric": "dtm"}), opened)
        yield opened


@pytest.mark.parametrize(("material", "mate_in"), [("KQvK", 10), ("KRvK", 16), ("KQvKR", 35)])
def test_published_longest_mates(store, material, mate_in):
    game = load_game("chess", {"material": material, "metric": "dtm"})
    _keys, outcome, remoteness = store.read_values(store.find(game.name, game.identity()))
    assert remoteness[outcome == Outcome.WIN].max() == 2 * mate_in - 1
