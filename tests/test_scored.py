"""Scored games: negamax values against brute-force minimax, thresholds on cyclic graphs."""

from __future__ import annotations

import functools
import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tablebase.build.builder import solve_in_memory
from tablebase.core.errors import GameError, ParameterError
from tablebase.faces.cli import app
from tablebase.solve.acyclic import negamax_values
from tablebase.solve.registry import load_game
from tablebase.solve.scored import scored_values, threshold_values


def brute_piles(a: list[int], b: list[int]) -> dict[tuple[int, int], tuple[int, int]]:
    """(margin, total of the side to move) for every (items left in a, in b), by plain
    minimax in which each player maximizes their own total."""

    @functools.lru_cache(maxsize=None)
    def best(i: int, j: int) -> tuple[int, int]:  # (mover's total, other's total)
        options = []
        if i:
            other, mine = best(i - 1, j)
            options.append((mine + a[len(a) - i], other))
        if j:
            other, mine = best(i, j - 1)
            options.append((mine + b[len(b) - j], other))
        return max(options) if options else (0, 0)

    return {(i, j): (best(i, j)[0] - best(i, j)[1], best(i, j)[0]) for i in range(len(a) + 1) for j in range(len(b) + 1)}


@pytest.mark.parametrize("seed", range(8))
def test_piles_agree_with_brute_force_minimax(seed):
    rng = random.Random(seed)
    a = [rng.randrange(-3, 10) for _ in range(rng.randrange(0, 7))]
    b = [rng.randrange(-3, 10) for _ in range(rng.randrange(1, 7))]
    game = load_game("piles", {"a": ",".join(map(str, a)) or "0", "b": ",".join(map(str, b))})
    if not a:
        a = [0]
    solved = solve_in_memory(game)
    expected = brute_piles(a, b)
    for key, score in zip(solved.keys.tolist(), solved.extra.tolist()):
        position = game.decode(key)
        assert score == expected[position][0], position
        assert game.score_details(position, score)["mover_total"] == expected[position][1]
    assert solved.solution.outcome.tolist() == np.sign(solved.extra).tolist()


@st.composite
def scored_dags(draw):
    """Random acyclic games (moves only to higher numbers) with terminal scores."""
    n = draw(st.integers(1, 12))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    edges = [(u, v) for u, v in edges if u < v]
    scores = draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n))
    return n, edges, scores


@settings(max_examples=300, deadline=None)
@given(scored_dags())
def test_thresholds_agree_with_negamax_on_acyclic_games(game):
    n, edges, scores = game
    src = np.array([u for u, _v in edges], dtype=np.int64)
    dst = np.array([v for _u, v in edges], dtype=np.int64)
    value, valued = negamax_values(n, src, dst, np.zeros(len(src), np.int64), np.array(scores))
    assert valued.all()
    assert threshold_values(n, src, dst, np.array(scores)).tolist() == value.tolist()


def test_a_cycle_that_neither_side_leaves_scores_zero(tmp_path):
    # a <-> b; b may stop at 3 (3 for the side to move there); a may go to c, whose side
    # to move picks -2 (worth 2 to it) over 5. Best play cycles: a and b are worth 0.
    path = tmp_path / "g.txt"
    path.write_text("start a\na b\na c\nb 3\nb a\nc -2\nc 5\n")
    game = load_game("graph", {"file": str(path), "scores": "on"})
    solved = solve_in_memory(game)
    values = {game.names[k]: v for k, v in zip(solved.keys.tolist(), solved.extra.tolist())}
    assert values == {"a": 0, "b": 0, "c": 2, "3": 3, "-2": -2, "5": 5}


def test_cycles_with_rewards_are_refused():
    with pytest.raises(GameError, match="rewards"):
        scored_values(2, np.array([0, 1]), np.array([1, 0]), np.array([1, 0]), np.zeros(2, np.int64))


@pytest.mark.parametrize(
    ("text", "problem"), [("a b\nb c\n", "named by an integer"), ("a b\nb = win\n", "labels are not allowed")]
)
def test_scored_graph_files_must_name_their_sinks_by_numbers(tmp_path, text, problem):
    path = tmp_path / "g.txt"
    path.write_text(text)
    with pytest.raises(ParameterError, match=problem):
        load_game("graph", {"file": str(path), "scores": "on"})


def test_query_shows_the_score_and_the_first_players_total(tmp_path):
    db = str(tmp_path / "tb.sqlite")
    args = ["-p", "a=3,1,4", "-p", "b=1,5,9", "--db", db]
    assert CliRunner().invoke(app, ["build", "piles", *args]).exit_code == 0
    report = json.loads(CliRunner().invoke(app, ["query", "piles", "start", *args, "--json"]).stdout)
    expected = brute_piles([3, 1, 4], [1, 5, 9])[(3, 3)]
    assert (report["score"], report["mover_total"]) == expected
    assert report["best"] == [m["move"] for m in report["moves"] if m["margin"] == report["score"]]
    text = CliRunner().invoke(app, ["query", "piles", "start", *args]).stdout
    assert f"mover total: {expected[1]}" in text
