"""Kalah(m, n): every position against an independent minimax over whole boards, and the
published results of Irving, Donkers and Uiterwijk, "Solving Kalah" (ICGA Journal 23(3),
2000, empty-capture rules): Table 10's win/draw/loss of every Kalah(m, n) with m <= 3 and
n <= 6, and Table 9's margins for m >= 4 that build in seconds here."""

from __future__ import annotations

import functools
import itertools
import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from tablebase.build.builder import solve_in_memory
from tablebase.core.errors import GameError, ParameterError, PositionError
from tablebase.faces.cli import app
from tablebase.generators.compositions import Boards
from tablebase.solve.registry import load_game

TABLE_10 = {1: "DLWLWD", 2: "WLLLWW", 3: "DWWWWL"}
"""Irving et al., Table 10: the first player's result of Kalah(m, n), n = 1..6, by m."""

TABLE_9 = {(4, 1): 2, (4, 2): 6, (4, 3): 8, (5, 1): 0, (6, 1): 2}
"""Irving et al., Table 9: the first player's margin under perfect play (the cases that
build in a few seconds; Kalah(4,4), +2, and Kalah(6,2), +10, are the documented full
builds of tests/test_solved_games.py)."""


def brute_margins(m: int, total: int, empty_capture: bool):
    """The margin, for the player to move, of the rest of the game from a board of ``2m``
    pits (the mover's first, each side in sowing order), by plain minimax over single
    sowings: a sowing that ends in the mover's store is followed by another of the same
    player. Written from the rules, apart from the game module."""

    @functools.lru_cache(maxsize=None)
    def margin(board: tuple[int, ...]) -> int:
        if not sum(board[:m]) or not sum(board[m:]):
            return sum(board[:m]) - sum(board[m:])
        best = None
        for pit in range(m):
            if not board[pit]:
                continue
            holes = list(board[:m]) + [0] + list(board[m:])  # the mover's store at index m
            seeds, holes[pit], spot = holes[pit], 0, pit
            for _ in range(seeds):
                spot = (spot + 1) % (2 * m + 1)
                holes[spot] += 1
            if spot < m and holes[spot] == 1 and (empty_capture or holes[2 * m - spot]):
                holes[m] += 1 + holes[2 * m - spot]
                holes[spot] = holes[2 * m - spot] = 0
            gained, after = holes[m], tuple(holes[:m] + holes[m + 1 :])
            ended = not sum(after[:m]) or not sum(after[m:])
            if spot == m and not ended:
                value = gained + margin(after)
            else:
                value = gained - margin(after[m:] + after[:m])
            best = value if best is None else max(best, value)
        return best

    return margin


@pytest.mark.parametrize(
    ("m", "n", "empty_capture", "positions"),
    [(2, 3, "on", "reachable"), (3, 2, "on", "reachable"), (3, 3, "off", "reachable"), (2, 5, "off", "reachable"),
     (3, 3, "on", "reachable"), (2, 3, "on", "all"), (3, 2, "on", "all"), (3, 2, "off", "all")],
)
def test_every_position_agrees_with_plain_minimax(m, n, empty_capture, positions):
    game = load_game("kalah", {"pits": str(m), "seeds": str(n), "empty_capture": empty_capture, "positions": positions})
    solved = solve_in_memory(game)
    margin = brute_margins(m, 2 * m * n, empty_capture == "on")
    scores = {game.decode(key): score for key, score in zip(solved.keys.tolist(), solved.extra.tolist())}
    assert scores == {position: margin(position) for position in scores}
    assert solved.solution.outcome.tolist() == np.sign(solved.extra).tolist()
    if positions == "all":  # every board of up to 2mn seeds, each once
        assert len(scores) == solved.positions == math.comb(2 * m * n + 2 * m, 2 * m)


def test_boards_are_numbered_by_seeds_then_potential_downwards():
    boards = Boards((0, 1, 2, 0, 1, 2), 4)
    every = [board for board in itertools.product(range(5), repeat=6) if sum(board) <= 4]
    assert boards.size == len(every) == math.comb(10, 6)
    order = sorted(every, key=lambda board: (sum(board), -sum(w * s for w, s in zip(boards.weights.tolist(), board)), board))
    assert [boards.board(key) for key in range(boards.size)] == order
    assert [boards.key(board) for board in order] == list(range(boards.size))
    classes = [(sum(board), sum(w * s for w, s in zip((0, 1, 2, 0, 1, 2), board))) for board in order]
    changes = [key for key in range(1, len(order)) if classes[key] != classes[key - 1]]
    assert boards.level_bounds().tolist() == [0, *changes, len(order)]


def test_the_sweep_through_the_batch_api_agrees_with_the_compiled_one(monkeypatch):
    game = load_game("kalah", {"pits": "3", "seeds": "2", "positions": "all"})
    compiled = solve_in_memory(game, batch_size=1000)
    monkeypatch.setattr(game, "best_scores", lambda keys, score: None)
    generic = solve_in_memory(game, batch_size=1000)
    assert np.array_equal(generic.extra, compiled.extra) and np.array_equal(generic.remoteness, compiled.remoteness)
    assert np.array_equal(generic.outcome, compiled.outcome)
    monkeypatch.setattr(game, "key_order_levels", lambda: np.array([0, game.size]))
    with pytest.raises(GameError, match="not below its level"):
        solve_in_memory(game)
    monkeypatch.setattr(game, "best_scores", lambda keys, score: (np.full(len(keys), 40_000), np.zeros(len(keys), bool)))
    with pytest.raises(GameError, match="a score passes -32768 to 32767"):
        solve_in_memory(game)


@pytest.mark.parametrize(("m", "n"), [(m, n) for m in TABLE_10 for n in range(1, 7)])
def test_table_10_results(m, n):
    game = load_game("kalah", {"pits": str(m), "seeds": str(n)})
    solved = solve_in_memory(game)
    score = int(solved.extra[np.searchsorted(solved.keys, game.encode(game.start_positions()[0]))])
    assert "LDW"[int(np.sign(score)) + 1] == TABLE_10[m][n - 1]


@pytest.mark.parametrize(("m", "n", "positions"), [(m, n, positions) for m, n in sorted(TABLE_9) for positions in ("reachable", "all")])
def test_table_9_margins(tmp_path, m, n, positions):
    args = ["-p", f"pits={m}", "-p", f"seeds={n}", "-p", f"positions={positions}", "--db", str(tmp_path / "tb.sqlite")]
    assert CliRunner().invoke(app, ["build", "kalah", *args]).exit_code == 0
    report = json.loads(CliRunner().invoke(app, ["query", "kalah", "start", *args, "--json"]).stdout)
    assert report["score"] == TABLE_9[m, n]
    assert report["mover_seeds"] == (2 * m * n + TABLE_9[m, n]) // 2
    assert all(move["margin"] <= report["score"] for move in report["moves"])


def test_a_turn_chains_sowings_that_end_in_the_store():
    game = load_game("kalah", {"pits": "3", "seeds": "3"})
    # pit 3's seed ends in the store, then pit 2's second; pit 1's seed ends in the empty
    # pit 2 and captures it, the opposite pit empty: 3 seeds stored, the turn passes
    position = game.parse("1,2,1/0,0,1")
    turns = dict(game.moves(position))
    assert game.format(turns[(3, 2, 1)]) == "0,0,1/0,0,1" and game.reward(position, (3, 2, 1)) == 3
    assert (1,) in turns and (3, 1) in turns and (2,) not in turns and (3,) not in turns
    assert game.terminal(game.parse("0,0,0/1,0,2")) is not None and game.score(game.parse("0,0,0/1,0,2")) == -3


@pytest.mark.parametrize(
    ("params", "problem"),
    [
        ({"pits": "12", "seeds": "12"}, "2\\*\\*63 keys"),
        ({"pits": "6", "seeds": "10"}, "MiB of tables"),
        ({"pits": "0"}, "must be >= 1"),
        ({"positions": "some"}, "positions"),
    ],
)
def test_boards_too_large_for_a_key_are_refused(params, problem):
    with pytest.raises(ParameterError, match=problem):
        load_game("kalah", params)


@pytest.mark.parametrize("text", ["4,4/4,4", "1,1,1", "a,b,c/1,1,1", "9,9,9/9,9,9", "-1,1,1/1,1,1", "1,1,1/1,1,1/1"])
def test_bad_positions_are_refused(text):
    with pytest.raises(PositionError):
        load_game("kalah", {"pits": "3", "seeds": "3"}).parse(text)
