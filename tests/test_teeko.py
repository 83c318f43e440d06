"""Teeko: the winning patterns Steele and Scarne count, moves and notation, bad input, and
(in test_teeko_solution) Steele's solution of the start position."""

from __future__ import annotations

import numpy as np
import pytest

from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.values import Outcome
from tablebase.faces.web.boards import board_html
from tablebase.generators.teeko import STEPS, winning_patterns
from tablebase.solve.registry import load_game


def teeko(**params: str):
    return load_game("teeko", params)


def test_the_variants_have_44_and_58_winning_patterns():
    """G. L. Steele Jr., Teeko summary (1999): "Standard Teeko has 44 goal
    configurations", Advanced Teeko 58 (the corners of squares 3x3, 4x4 and 5x5 added)."""
    standard, advanced = winning_patterns("standard"), winning_patterns("advanced")
    assert len(set(standard)) == 44 and len(set(advanced)) == 58 and set(standard) < set(advanced)
    assert all(bin(pattern).count("1") == 4 for pattern in advanced)
    game = teeko(variant="advanced")
    black, _red, _side = game.parse("x...x/.oo../.o.../.o.../x...x o")
    assert game.won(black) and not teeko().won(black)


def test_steps_go_to_the_eight_neighbours():
    assert len(STEPS) == 4 * 3 + 12 * 5 + 9 * 8  # corners, edges, inner cells
    game = teeko()
    board = game.parse("x.o.x/.o.o./x...x/..o../..... o")
    moves = [game.format_move(move) for move, _child in game.moves(board)]
    assert "c1-b1" in moves and "d2-e2" in moves and "d2-e3" not in moves and len(moves) == len(set(moves))
    assert all("-" in move for move in moves)


def test_drops_then_steps_and_the_side_to_move():
    game = teeko()
    start = game.start_positions()[0]
    assert len(game.moves(start)) == 25 and len(teeko(centre_opening="off").moves(start)) == 24
    after = game.parse("xoxox/oxo../...../...../..... x")
    assert game.format(after).endswith(" x") and len(game.moves(after)) == 6


def test_batch_moves_match_the_per_position_moves():
    game = teeko(symmetry="off")
    boards = ["", "x.o.x/.o.o./x...x/..o../..... o", "x.o.x/.o.o./x...x/..o../..... x", "xx.../oo.../...../...../....."]
    keys = np.array([game.encode(game.parse(text) if text else game.start_positions()[0]) for text in boards])
    src, dst = game.successors(keys)
    for row, key in enumerate(keys.tolist()):
        expected = [game.encode(child) for _move, child in game.moves(game.decode(key))]
        assert dst[src == row].tolist() == expected


def test_a_pattern_of_the_side_that_just_moved_ends_the_game():
    game = teeko()
    assert game.terminal(game.parse("xxxx./oo.../o..../...../.....")) == Outcome.LOSS
    assert game.terminal(game.parse("xx.../xx.o./.o.../..o../..o.. o")) == Outcome.LOSS
    assert game.terminal(game.parse("x.o.x/.o.o./x...x/..o../..... o")) is None


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("xxxxx/...../...../...../.....", "as many men"),
        ("x.o.x/.o.o./x...x/..o../.....", "say who moves"),
        ("x..../...../...../...../..... x", "red is to drop"),
        ("xxxx./oooo./...../...../..... o", "already has four"),
        ("x.o.x/.o.o./x...x/..o../..... z", "bad side"),
        ("x.o/...", "5 rows"),
        ("q..../...../...../...../.....", "5 rows"),
    ],
)
def test_bad_positions_are_refused_with_the_reason(text, problem):
    with pytest.raises(PositionError, match=problem):
        teeko().parse(text)


def test_unknown_variants_are_refused():
    with pytest.raises(ParameterError, match="variant"):
        teeko(variant="advnced")


def test_the_web_page_draws_the_board_without_the_side_to_move():
    game = teeko()
    html = board_html(game, game.parse("x.o.x/.o.o./x...x/..o../..... o"))
    assert html.count('class="cell x"') == 4 and html.count('class="cell o"') == 4 and html.count("<td") == 25
