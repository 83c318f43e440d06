"""The query layer: probes in the user's orientation, move ranking, principal variations."""

from __future__ import annotations

import pytest

from tablebase.build.builder import build
from tablebase.core.errors import NotBuiltError
from tablebase.core.values import Outcome
from tablebase.read.query import Tablebase
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tests.reference import explore


@pytest.fixture(scope="module")
def tablebases(tmp_path_factory):
    """3x3 tic-tac-toe with and without symmetry, in one store."""
    store = open_store(tmp_path_factory.mktemp("query") / "tb.sqlite")
    folded, plain = (load_game("tictactoe", {"symmetry": s}) for s in ("on", "off"))
    for game in (folded, plain):
        build(game, store)
    yield Tablebase(folded, store), Tablebase(plain, store)
    store.close()


def test_symmetric_positions_have_the_unfolded_value(tablebases):
    folded, plain = tablebases
    positions = [plain.game.decode(key) for key in explore(plain.game)[0]]
    assert len(positions) == 5478
    for position in positions:
        assert folded.probe(position) == plain.probe(position)


def test_moves_are_shown_in_the_users_orientation(tablebases):
    folded, _plain = tablebases
    position = folded.parse("..x/.../...")  # not the canonical corner
    ranked = folded.moves(position)
    assert sorted(folded.game.format_move(m.move) for m in ranked) == sorted(
        folded.game.format_move(move) for move, _child in folded.game.moves(position)
    )
    for move in ranked:
        assert folded.game.format(move.position)[2] == "x"  # the user's x stays where it was


def test_best_moves_realise_the_value(tablebases):
    folded, plain = tablebases
    for key in explore(plain.game)[0]:
        position = plain.game.decode(key)
        value = folded.probe(position)
        ranked = folded.moves(position)
        if not ranked:
            assert value.remoteness == 0
            continue
        best = ranked[0].value
        assert best.outcome == Outcome(-value.outcome)
        if value.remoteness is not None:
            assert best.remoteness is not None and best.remoteness + 1 == value.remoteness


@pytest.mark.parametrize("text", ["x.o/.x./...", "xo./.x./..o", ".../.../..."])
def test_line_plays_out_the_remoteness(tablebases, text):
    folded, _plain = tablebases
    position = folded.parse(text)
    value = folded.probe(position)
    line = folded.line(position)
    assert len(line) == value.remoteness
    assert folded.game.terminal(line[-1].position) is not None


def test_tablebase_of_other_parameters_is_not_built(tablebases):
    folded, _plain = tablebases
    wider = Tablebase(load_game("tictactoe", {"m": "4"}), folded.store)
    with pytest.raises(NotBuiltError, match="tablebase build tictactoe -p m=4"):
        wider.probe(wider.parse("start"))
