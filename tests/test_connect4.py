"""Connect Four: published position counts and values, notation, bad input."""

from __future__ import annotations

import pytest

from tablebase.build.builder import solve_in_memory
from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.values import Outcome
from tablebase.solve.registry import load_game


def connect4(**params: str):
    return load_game("connect4", params)


def test_four_by_four_has_the_published_number_of_positions_and_is_a_draw():
    """Tromp: 161,029 positions reachable on 4x4, terminal ones included."""
    game = connect4(width="4", height="4", symmetry="off")
    solved = solve_in_memory(game)
    assert len(solved.keys) == 161_029
    start = int(solved.keys.searchsorted(game.canonical_key(game.start_positions()[0])))
    assert solved.solution.outcome[start] == Outcome.DRAW


@pytest.mark.parametrize(("width", "height", "count"), [("4", "5", 1_706_255), ("5", "4", 3_945_711)])
def test_bigger_boards_have_the_published_number_of_positions(width, height, count):
    """Tromp's counts for boards 4 wide and 5 high, and 5 wide and 4 high."""
    assert len(solve_in_memory(connect4(width=width, height=height, symmetry="off")).keys) == count


def test_mirror_symmetry_folds_positions_without_changing_values():
    plain, folded = connect4(width="4", height="4", symmetry="off"), connect4(width="4", height="4")
    plain_values = solve_in_memory(plain)
    folded_values = solve_in_memory(folded)
    assert len(folded_values.keys) < len(plain_values.keys)
    lookup = dict(zip(folded_values.keys.tolist(), folded_values.solution.outcome.tolist()))
    for key, outcome in zip(plain_values.keys[::97].tolist(), plain_values.solution.outcome[::97].tolist()):
        assert lookup[folded.canonical_key(plain.decode(key))] == outcome


def test_column_sequences_and_rows_give_the_same_position():
    game = connect4(width="4", height="4")
    assert game.parse("2332") == game.parse("..../..../.ox./.xo.")
    assert game.format(game.parse("2332")) == "..../..../.ox./.xo."
    assert game.parse("") == game.start_positions()[0]
    board = game.parse("1213")
    assert game.decode(game.encode(board)) == board


def test_a_vertical_four_is_a_loss_for_the_side_to_move():
    game = connect4(width="4", height="4")
    board = game.parse("1212121")
    assert game.terminal(board) == Outcome.LOSS
    assert [game.format_move(move) for move, _child in game.moves(game.parse("121212"))] == ["1", "2", "3", "4"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("1115", "column 5"),
        ("11111", "full"),
        ("12121212", "over"),
        ("..../..../..../.xxx", "as many stones"),
        ("..../..../..../oo..", "as many stones"),
        ("..../..x./..../.xo.", "floats"),
        ("..../..../..../x.", "rows"),
        ("x/y", "rows"),
        ("1²", "bad board"),
        ("..../o.../ooo./xxxx", "x is to move but has 4"),
    ],
)
def test_bad_positions_are_refused_with_the_reason(text, problem):
    with pytest.raises(PositionError, match=problem):
        connect4(width="4", height="4").parse(text)


def test_play_after_a_win_is_refused():
    """o has two separate fours: no single last move made both."""
    game = connect4()
    with pytest.raises(PositionError, match="after a win"):
        game.parse("......./......./o.o..../oxo..../oxoxx../oxoxxx.")


@pytest.mark.parametrize("params", [{"width": "9", "height": "6"}, {"width": "4", "height": "4", "k": "5"}])
def test_boards_that_do_not_fit_are_refused(params):
    with pytest.raises(ParameterError):
        connect4(**params)
