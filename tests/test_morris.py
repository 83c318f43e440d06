"""Men's Morris on 16 points: the board, its symmetries, the rules of mills and losses,
notation and bad input, and Liou's count of Four Men's Morris positions (the five- and
six-men builds are in tests/test_solved_games.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tablebase.build.builder import solve_in_memory
from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.values import Outcome
from tablebase.generators.morris import MILLS, NEIGHBOURS, _symmetry_maps
from tablebase.solve.registry import load_game


def morris(**params: str):
    return load_game("morris", params)


def lines() -> set[frozenset[int]]:
    return {frozenset((p, int(q))) for p in range(16) for q in NEIGHBOURS[p] if q >= 0}


def test_the_board_has_8_mills_and_20_lines():
    assert len({frozenset(mill) for mill in MILLS.tolist()}) == 8
    assert len(lines()) == 20  # 8 sides of each square, 4 between the squares' midpoints
    for mill in MILLS.tolist():
        assert frozenset(mill[:2]) in lines() and frozenset(mill[1:]) in lines()


def test_the_16_symmetries_keep_lines_and_mills():
    maps = _symmetry_maps()
    assert len({tuple(image) for image in maps}) == 16 and maps[0] == list(range(16))
    mills = {frozenset(mill) for mill in MILLS.tolist()}
    for image in maps:
        assert {frozenset(image[p] for p in line) for line in lines()} == lines()
        assert {frozenset(image[p] for p in mill) for mill in mills} == mills


def test_a_mill_removes_a_man_outside_the_opponents_mills():
    game = morris()
    # black closes a5-c5-e5 by dropping e5; white's a1, c1, e1 are a mill, a3 is not
    position = game.parse("xx..ooo./o....... 2 2 x")
    moves = [game.format_move(move) for move, _child in game.moves(position)]
    assert "e5xb4" in moves and "e5xc1" not in moves and "e5" not in moves
    assert "b3" in moves  # a drop that closes no mill removes nothing


def test_with_every_man_in_mills_any_may_go():
    game = morris(men="4")
    position = game.parse("xx..ooo./........ 1 1 x")
    moves = {game.format_move(move) for move, _child in game.moves(position)}
    assert {"e5xe1", "e5xc1", "e5xa1"} <= moves


def test_losses_come_once_both_hands_are_empty():
    game = morris()
    assert game.terminal(game.parse("xx..ooo./........ 0 0 x")) == Outcome.LOSS  # two men
    assert game.terminal(game.parse("xx..ooo./........ 1 1 x")) is None  # still dropping
    blocked = game.parse("xxxo...o/.o...... 0 0 x")  # black's men have no empty neighbour
    assert not game.moves(blocked) and game.terminal(blocked) == Outcome.LOSS


def test_batch_moves_match_the_per_position_moves():
    game = morris(symmetry="off")
    texts = ["xx..ooo./o....... 2 2 x", "xx..ooo./o.x.o... 0 0 o", "xo.xo.x./.o...... 0 0 x"]
    keys = np.array([game.encode(game.parse(text)) for text in texts])
    src, dst = game.successors(keys)
    for row, key in enumerate(keys.tolist()):
        assert dst[src == row].tolist() == [game.encode(child) for _move, child in game.moves(game.decode(key))]


def test_four_mens_morris_has_liou_s_count_and_is_a_draw():
    """B. Liou, "Morris tablebases v1" (github.com/brianhliou/game-solver, 2025): 4 men,
    no flying, 4,111,151 positions reachable, a draw."""
    game = morris(men="4", symmetry="off")
    solved = solve_in_memory(game)
    assert len(solved.keys) == 4_111_151
    start = int(np.searchsorted(solved.keys, game.encode(game.start_positions()[0])))
    assert solved.solution.outcome[start] == Outcome.DRAW


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("x......./........ 5 5", "expected"),
        ("x......./....... 5 5 x", "two squares"),
        ("x......./........ 6 6 x", "6 men at most"),
        ("x......./........ 5 4 x", "black drops first"),
        ("q......./........ 5 5 x", "two squares"),
    ],
)
def test_bad_positions_are_refused_with_the_reason(text, problem):
    with pytest.raises(PositionError, match=problem):
        morris().parse(text)


def test_men_out_of_range_are_refused():
    with pytest.raises(ParameterError, match="3 to 7"):
        morris(men="8")
