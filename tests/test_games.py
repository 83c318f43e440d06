"""Every built-in game, solved by the engine, against the reference solver and known facts."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

import tablebase.solve.graph as graph_module
from tablebase.build.builder import solve_in_memory
from tablebase.core.errors import GameError
from tablebase.core.values import Outcome
from tablebase.generators.subtraction import Subtraction
from tablebase.solve.registry import load_game
from tests.reference import solve_game as reference_solve

DATA = Path(__file__).parent / "data"

CASES = [
    ("subtraction", {"max": "60"}),
    ("subtraction", {"moves": "2,5,7", "max": "50"}),
    ("nim", {"heaps": "3", "max": "5"}),
    ("nim", {"heaps": "2", "max": "7"}),
    ("tictactoe", {}),
    ("tictactoe", {"symmetry": "off"}),
    ("tictactoe", {"m": "2", "n": "4", "k": "2"}),
    ("tictactoe", {"m": "3", "n": "4", "k": "4"}),
    *[("cops", {"map": str(path)}) for path in sorted(DATA.glob("cops_*.txt"))],
    ("graph", {"file": str(DATA / "graph_example.txt")}),
    ("connect4", {"width": "4", "height": "3", "k": "3"}),
    ("connect4", {"width": "3", "height": "4", "k": "3", "symmetry": "off"}),
    ("connect4", {"width": "5", "height": "2", "k": "2"}),
    ("morris", {"men": "3"}),
    ("dobutsu", {"start": "l../.../.../.L. Cc"}),
    ("dobutsu", {"start": "l../.e./.../.L. C", "symmetry": "off"}),
]


def engine_values(game, batch_size=1 << 16):
    """{key: (Outcome, remoteness or None)} from the engine (the games' batch API)."""
    solved = solve_in_memory(game, batch_size=batch_size)
    remoteness = [None if r < 0 else r for r in solved.solution.remoteness.tolist()]
    outcome = [Outcome(o) for o in solved.solution.outcome.tolist()]
    return dict(zip(solved.keys.tolist(), zip(outcome, remoteness)))


@functools.lru_cache(maxsize=None)
def solved(name, params):
    return engine_values(load_game(name, dict(params)))


def values_of(name, **params):
    return solved(name, tuple(sorted(params.items())))


@pytest.mark.parametrize(("name", "params"), CASES, ids=lambda case: str(case))
def test_engine_matches_reference_on_every_position(name, params):
    game = load_game(name, params)
    assert values_of(name, **params) == reference_solve(game)


@pytest.mark.parametrize(("name", "params"), [CASES[2], CASES[5], CASES[8]], ids=lambda case: str(case))
def test_batch_size_changes_nothing(name, params):
    game = load_game(name, params)
    assert engine_values(game, batch_size=1) == engine_values(game, batch_size=7) == values_of(name, **params)


def test_tictactoe_published_facts():
    plain = values_of("tictactoe", symmetry="off")
    assert len(plain) == 5478
    game = load_game("tictactoe", {})
    empty = game.canonical_key(game.start_positions()[0])
    assert values_of("tictactoe")[empty] == (Outcome.DRAW, 9)
    assert len(values_of("tictactoe")) == 765


def test_subtraction_is_lost_exactly_on_multiples_of_four():
    game = load_game("subtraction", {"max": "60"})
    for key, (outcome, remoteness) in values_of("subtraction", max="60").items():
        heap = game.decode(key)
        if heap % 4 == 0:
            assert (outcome, remoteness) == (Outcome.LOSS, heap // 2)
        else:
            assert (outcome, remoteness) == (Outcome.WIN, 2 * (heap // 4) + 1)


def test_nim_is_lost_exactly_when_the_xor_is_zero():
    game = load_game("nim", {"heaps": "3", "max": "5"})
    values = values_of("nim", heaps="3", max="5")
    assert len(values) == 56  # multisets of 3 heaps from 0..5
    for key, (outcome, _remoteness) in values.items():
        heaps = game.decode(key)
        assert outcome == (Outcome.LOSS if np.bitwise_xor.reduce(heaps) == 0 else Outcome.WIN)


def test_cops_facts():
    walled = load_game("cops", {"map": str(DATA / "cops_walled.txt")})
    start = walled.canonical_key(walled.start_positions()[0])
    assert values_of("cops", map=str(DATA / "cops_walled.txt"))[start] == (Outcome.DRAW, None)
    ring = values_of("cops", map=str(DATA / "cops_ring.txt"))
    # Cutting corners diagonally, the police catches a thief on a ring from anywhere.
    assert all(outcome != Outcome.DRAW for outcome, _ in ring.values())


# Tiny maps whose values follow from the rules by hand (the police moves first).
HAND_SOLVED_MAPS = [
    # The police walks up (1 ply), the thief cannot pass it, the police steps on (3).
    ("1 3\nC.T\n", Outcome.WIN, 3),
    # The thief is next to the police: caught at once.
    ("1 3\nCTE\n", Outcome.WIN, 1),
    # Whatever the police does, the thief steps onto the exit on its first move.
    ("1 4\nC.TE\n", Outcome.LOSS, 2),
    # Walls on both orthogonal sides: only a diagonal step, cutting the corner, reaches.
    ("2 2\nC*\n*T\n", Outcome.WIN, 1),
    # A wall between them and no way round: neither side can ever win.
    ("1 3\nC*T\n", Outcome.DRAW, None),
]


@pytest.mark.parametrize(("text", "outcome", "remoteness"), HAND_SOLVED_MAPS)
def test_cops_on_hand_solved_maps(tmp_path, text, outcome, remoteness):
    path = tmp_path / "map.txt"
    path.write_text(text)
    game = load_game("cops", {"map": str(path)})
    start = game.canonical_key(game.start_positions()[0])
    assert engine_values(game)[start] == (outcome, remoteness)


class LeaksKeys(Subtraction):
    """Its batch API sends heap 1 to a key outside the index space."""

    def successors(self, keys):
        src, dst = super().successors(keys)
        return src, np.where(dst == 0, self.size + 5, dst)


@pytest.mark.parametrize("limit", [1 << 26, 0], ids=["lookup table", "search"])
def test_a_successor_outside_the_tablebase_is_a_game_error(monkeypatch, limit):
    monkeypatch.setattr(graph_module, "DENSE_INDEX_LIMIT", limit)
    with pytest.raises(GameError, match="not a position of the tablebase"):
        solve_in_memory(LeaksKeys(max=10))
