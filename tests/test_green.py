"""The green game (POI 2001) and the Büchi solver, against a brute force over all plays."""

from __future__ import annotations

import random

import numpy as np
import pytest
from typer.testing import CliRunner

from tablebase.build.builder import solve_in_memory
from tablebase.core.errors import ParameterError
from tablebase.core.values import Outcome
from tablebase.faces.cli import app
from tablebase.solve.registry import load_game


def brute_force(a: int, green: list[bool], successors: list[list[int]]) -> set[int]:
    """The start fields (1-based) from which A wins, playing out every play: the play
    stops when the token returns to a visited field, and A wins if that cycle holds green."""

    def a_wins(path: tuple[int, ...]) -> bool:
        field = path[-1]
        outcomes = []
        for target in successors[field - 1]:
            if target in path:
                cycle = path[path.index(target) :]
                outcomes.append(any(green[f - 1] for f in cycle))
            else:
                outcomes.append(a_wins(path + (target,)))
        return any(outcomes) if field <= a else all(outcomes)

    return {field for field in range(1, len(green) + 1) if a_wins((field,))}


def random_board(rng: random.Random) -> tuple[int, list[bool], list[list[int]]]:
    a, b = rng.randint(1, 4), rng.randint(1, 4)
    green = [rng.random() < 0.3 for _ in range(a + b)]
    successors = []
    for field in range(1, a + b + 1):
        others = list(range(a + 1, a + b + 1)) if field <= a else list(range(1, a + 1))
        successors.append(sorted(rng.sample(others, rng.randint(1, min(3, len(others))))))
    return a, green, successors


def board_text(a: int, green: list[bool], successors: list[list[int]]) -> str:
    lines = [f"{a} {len(green) - a}"]
    lines += [f"{int(g)} {len(s)} {' '.join(map(str, s))}" for g, s in zip(green, successors)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(40))
def test_winners_equal_a_brute_force_over_all_plays(tmp_path, seed):
    board = random_board(random.Random(seed))
    path = tmp_path / "gra.in"
    path.write_text(board_text(*board))
    game = load_game("green", {"file": str(path)})
    solved = solve_in_memory(game)
    owner_is_a = game.owners(solved.keys)
    a_wins = (solved.solution.outcome == Outcome.WIN) == owner_is_a
    assert set((solved.keys[a_wins] + 1).tolist()) == brute_force(*board)


def test_info_prints_the_poi_output(tmp_path):
    path = tmp_path / "gra.in"
    # fields 1, 2 are A's, 3, 4 B's; only 1 is green. From 2, A goes to 3, then 1, 3: green.
    path.write_text("2 2\n1 1 3\n0 2 3 4\n0 1 1\n0 1 2\n")
    db = str(tmp_path / "tb.sqlite")
    args = ["-p", f"file={path}", "--db", db]
    assert CliRunner().invoke(app, ["build", "green", *args]).exit_code == 0
    out = CliRunner().invoke(app, ["info", "green", *args]).stdout.splitlines()
    assert out[-5:] == ["4", "1", "2", "3", "4"]
    query = CliRunner().invoke(app, ["query", "green", "2", *args])
    assert query.exit_code == 0 and query.stdout.startswith("2: win")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("1 1\n0 1 1\n0 1 1\n", "not a field of the other player"),
        ("1 1\n0 0\n0 1 1\n", "k >= 1"),
        ("1 1\n0 1 2\n", "missing"),
        ("x y\n", "integer"),
        ("1 1\n0 1 2\n0 1 1\n7\n", "more numbers"),
    ],
)
def test_bad_boards_are_refused(tmp_path, text, problem):
    path = tmp_path / "gra.in"
    path.write_text(text)
    with pytest.raises(ParameterError, match=problem):
        load_game("green", {"file": str(path)})


def test_attractor_rounds_handle_a_chain_of_green_traps():
    # B can hold the play away from green forever only in the 3 <-> 4 loop.
    from tablebase.solve.buchi import buchi_winners
    from tablebase.solve.predecessors import predecessors_of

    src = np.array([0, 1, 1, 2, 3, 3])
    dst = np.array([1, 0, 2, 3, 2, 0])
    owner_is_a = np.array([True, False, True, False])
    accepting = np.array([True, False, False, False])
    winners = buchi_winners(predecessors_of(4, src, dst), owner_is_a, accepting)
    # 0 (A, green) -> 1 (B) -> 0 or 2; B escapes via 2 -> 3 -> 2 forever.
    assert winners.tolist() == [False, False, False, False]
