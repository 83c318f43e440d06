"""Dobutsu shogi: the rules as Tanaka coded them, the compiled moves and un-moves against
the per-position rules, notation and bad input. The engine is checked against the
reference solver on endgames in test_games; the whole game (Tanaka's counts) in
test_solved_games."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.values import NOT_TERMINAL, Outcome
from tablebase.solve.registry import load_game


def dobutsu(**params: str):
    return load_game("dobutsu", params)


def walk(game, steps: int, seed: int = 1) -> np.ndarray:
    """Canonical keys of the positions a random game visits, restarted at each end,
    preferring moves that do not hand the opponent a win (so games run long and hands
    fill)."""
    rng = random.Random(seed)
    start = position = game.start_positions()[0]
    seen = set()
    for _ in range(steps):
        seen.add(game.canonical_key(position))
        if game.terminal(position) is not None:
            position = start
            continue
        children = [child for _move, child in game.moves(position)]
        quiet = [child for child in children if game.terminal(child) is None]
        position = rng.choice(quiet if quiet and rng.random() < 0.95 else children)
    return np.array(sorted(seen), dtype=np.int64)


@pytest.fixture(scope="module")
def sample():
    game = dobutsu()
    return game, walk(game, 6000)


def test_the_start_has_the_four_moves_tanaka_lists():
    """Tanaka (2009) §4.1: the first player's four moves, B2 chick (a capture), C3
    giraffe, C3 lion and A3 lion, here from the mover's bottom left."""
    game = dobutsu()
    start = game.start_positions()[0]
    assert game.format(start) == "gle/.c./.C./ELG -"
    assert sorted(game.format_move(move) for move, _child in game.moves(start)) == ["b1-a2", "b1-c2", "b2xb3", "c1-c2"]
    assert game.terminal(start) is None


def test_a_capture_joins_the_hand_and_the_board_turns_round():
    game = dobutsu()
    moves = dict((game.format_move(move), child) for move, child in game.moves(game.start_positions()[0]))
    assert game.format(moves["b2xb3"]) == "gle/.../.c./ELG c"  # seen from the opponent, who holds no chick now
    assert game.format(moves["c1-c2"]) == ".le/gc./.C./ELG -"


def test_terminal_positions_follow_tanakas_rules():
    game = dobutsu()
    assert game.terminal(game.parse(".l./.G./.../..L -")) == Outcome.WIN  # the giraffe takes the lion
    assert game.terminal(game.parse("L../.../.../..l -")) == Outcome.LOSS  # the opponent's lion made its try
    assert game.terminal(game.parse(".../.../.../lL. -")) == Outcome.WIN  # a try that can be captured fails
    assert game.terminal(game.parse("..l/.../L../... -")) is None


def test_a_chick_promotes_on_the_far_rank_and_a_captured_hen_is_a_chick():
    game = dobutsu()
    children = {game.format_move(move): child for move, child in game.moves(game.parse("h.l/C../.../L.. -"))}
    assert "a3-a4+" not in children and "a3xa4+" in children
    assert game.format(children["a3xa4+"]) == "..l/.../.../L.h c"


def test_a_chick_dropped_on_the_far_rank_cannot_move():
    game = dobutsu()
    position = game.parse("C.l/.../.../L.. -")
    assert [game.format_move(move) for move, _child in game.moves(position) if move[0] == "C"] == []


def test_compiled_moves_and_terminal_values_match_the_rules(sample):
    game, keys = sample
    terminal = game.terminal_batch(keys)
    expected = [NOT_TERMINAL if (o := game.terminal(game.decode(k))) is None else int(o) for k in keys.tolist()]
    assert terminal.tolist() == expected
    assert set(expected) == {NOT_TERMINAL, Outcome.WIN, Outcome.LOSS}
    live = keys[terminal == NOT_TERMINAL]
    src, dst = game.successors(live)
    for row, key in enumerate(live.tolist()):
        assert sorted(dst[src == row].tolist()) == sorted(game.canonical_key(c) for _m, c in game.moves(game.decode(key)))


def test_un_moves_reverse_exactly_the_moves(sample):
    game, keys = sample
    live = keys[game.terminal_batch(keys) == NOT_TERMINAL]
    src, dst = game.successors(live)
    moves = set(zip(live[src].tolist(), dst.tolist()))
    children = np.unique(dst)
    back_src, back_dst = game.predecessors(children)
    sampled = set(live.tolist())
    assert {(parent, child) for child, parent in zip(children[back_src].tolist(), back_dst.tolist()) if parent in sampled} == moves
    parents = np.unique(back_dst)
    assert (game.terminal_batch(parents) == NOT_TERMINAL).all()
    forward_src, forward_dst = game.successors(parents)
    forward = set(zip(parents[forward_src].tolist(), forward_dst.tolist()))
    assert all((parent, child) in forward for child, parent in zip(children[back_src].tolist(), back_dst.tolist()))


def test_symmetry_folds_the_mirror_image():
    game, plain = dobutsu(), dobutsu(symmetry="off")
    position = game.parse("g.e/.cl/.C./ELG -")
    mirror = game.parse("e.g/lc./.C./GLE -")
    assert game.canonical_key(position) == game.canonical_key(mirror)
    assert plain.canonical_key(position) != plain.canonical_key(mirror)
    assert game.decode(game.encode(position)) == position


@pytest.mark.parametrize(
    "text",
    ["", "gle/.c./.C./ELG", "gle/.c./.C. -", "gle/.x./.C./ELG -", "gle/.c./.C./EGG -", "gle/.c./.C./ELG L",
     "gle/.c./.C./ELG CCc", "gll/.c./.C./E.G -"],
)
def test_bad_positions_raise_a_position_error(text):
    with pytest.raises(PositionError):
        dobutsu().parse(text)


def test_a_bad_start_is_a_parameter_error():
    with pytest.raises(ParameterError):
        dobutsu(start="gle/.c./.C./ELX -")
