"""Kayles, Dawson's chess and the cutting game: Grundy values against published sequences
and a recursive mex, and sums that name a winning move."""

from __future__ import annotations

import functools
import json
import random

import pytest
from typer.testing import CliRunner

from tablebase.build.builder import build, solve_in_memory
from tablebase.faces.cli import app
from tablebase.read.query import Tablebase
from tablebase.solve.registry import load_game
from tablebase.store import open_store

# OEIS A002186 (Kayles, n = 0..104) and A002187 (Dawson's chess, n = 0..131), as published.
KAYLES = [int(v) for v in """0 1 2 3 1 4 3 2 1 4 2 6 4 1 2 7 1 4 3 2 1 4 6 7 4 1 2 8 5 4 7 2 1 8 6 7 4 1 2 3 1 4 7 2
1 8 2 7 4 1 2 8 1 4 7 2 1 4 2 7 4 1 2 8 1 4 7 2 1 8 6 7 4 1 2 8 1 4 7 2 1 8 2 7 4 1 2 8 1 4 7 2 1 8 2 7 4 1 2 8 1 4 7
2 1""".split()]
DAWSON = [int(v) for v in """0 1 1 2 0 3 1 1 0 3 3 2 2 4 0 5 2 2 3 3 0 1 1 3 0 2 1 1 0 4 5 2 7 4 0 1 1 2 0 3 1 1 0 3 3
2 2 4 4 5 5 2 3 3 0 1 1 3 0 2 1 1 0 4 5 3 7 4 8 1 1 2 0 3 1 1 0 3 3 2 2 4 4 5 5 9 3 3 0 1 1 3 0 2 1 1 0 4 5 3 7 4 8 1
1 2 0 3 1 1 0 3 3 2 2 4 4 5 5 9 3 3 0 1 1 3 0 2 1 1 0 4""".split()]


@pytest.mark.parametrize(("name", "published"), [("kayles", KAYLES), ("dawson", DAWSON)])
def test_grundy_values_equal_the_oeis_sequence(name, published):
    solved = solve_in_memory(load_game(name, {"max": str(len(published) - 1)}))
    assert solved.extra.tolist() == published


def test_dawsons_kayles_is_dawsons_chess_shifted_by_one():
    kayles_07 = solve_in_memory(load_game("octal", {"code": ".07", "max": "60"})).extra.tolist()
    assert kayles_07[1:] == DAWSON[:60]


def brute_cutting(width: int, height: int) -> int:
    @functools.lru_cache(maxsize=None)
    def g(w: int, h: int) -> int:
        options = {g(a, h) ^ g(w - a, h) for a in range(2, w - 1)} | {g(w, b) ^ g(w, h - b) for b in range(2, h - 1)}
        return next(v for v in range(len(options) + 1) if v not in options)

    return g(width, height)


def test_cutting_game_matches_a_recursive_mex_and_known_positions():
    game = load_game("cutting", {"max": "14"})
    solved = solve_in_memory(game)
    for key, value in zip(solved.keys.tolist(), solved.extra.tolist()):
        ((width, height),) = game.decode(key)
        assert value == brute_cutting(width, height)
    values = dict(zip(solved.keys.tolist(), solved.extra.tolist()))
    assert values[game.encode(((2, 2),))] == values[game.encode(((2, 3),))] == 0  # POJ 2311: lost
    assert values[game.encode(((2, 4),))] != 0  # 4x2 is won


@pytest.mark.parametrize("name", ["kayles", "dawson", "cutting"])
def test_best_moves_of_random_sums_lead_to_value_zero_exactly_when_the_sum_is_won(tmp_path, name):
    game = load_game(name, {"max": "20"})
    with open_store(tmp_path / "tb.sqlite") as store:
        build(game, store)
        tablebase = Tablebase(game, store)
        rng = random.Random(name)
        for _ in range(25):
            text = "+".join(
                str(rng.randrange(1, 21)) if name != "cutting" else f"{rng.randrange(2, 21)}x{rng.randrange(2, 21)}"
                for _ in range(rng.randrange(1, 4))
            )
            position = tablebase.parse(text)
            value = tablebase.probe(position)
            best = tablebase.best(tablebase.moves(position))
            if value.grundy:
                assert best and all(move.value.grundy == 0 for move in best)
            else:
                assert all(move.value.grundy != 0 for move in tablebase.moves(position))


def test_query_of_a_kayles_sum_on_the_command_line(tmp_path):
    db = str(tmp_path / "tb.sqlite")
    assert CliRunner().invoke(app, ["build", "kayles", "--db", db]).exit_code == 0
    report = json.loads(CliRunner().invoke(app, ["query", "kayles", "5+7+12", "--db", db, "--json"]).stdout)
    assert report["grundy"] == KAYLES[5] ^ KAYLES[7] ^ KAYLES[12]
    assert report["best"] and all(m["grundy"] == 0 for m in report["moves"] if m["move"] in report["best"])
    bad = CliRunner().invoke(app, ["query", "kayles", "5+x", "--db", db])
    assert bad.exit_code == 2 and "bad heaps" in bad.stderr


@pytest.mark.parametrize(
    ("name", "params", "positions"),
    [("kayles", ["max=0"], 1), ("dawson", ["max=0"], 1), ("cutting", ["max=2"], 1), ("octal", ["code=.0"], 101)],
)
def test_a_sum_game_without_any_move_builds(tmp_path, name, params, positions):
    db = str(tmp_path / "tb.sqlite")
    options = [arg for param in params for arg in ("-p", param)]
    built = CliRunner().invoke(app, ["build", name, *options, "--db", db])
    assert built.exit_code == 0, built.output
    rows = json.loads(CliRunner().invoke(app, ["info", name, *options, "--db", db, "--json"]).stdout)
    assert rows[0]["positions"] == positions
    assert (rows[0]["wins"], rows[0]["draws"], rows[0]["losses"]) == (0, 0, positions)
