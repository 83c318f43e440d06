"""Impartial games: stored Grundy values against published facts, and sums of positions."""

from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

from tablebase.build import build
from tablebase.cli import app
from tablebase.game import load_game
from tablebase.query import GameSum, Tablebase
from tablebase.store import open_store


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("impartial") / "tb.sqlite") as store:
        yield store


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_subtraction_of_one_to_k_has_grundy_value_n_mod_k_plus_one(store, k):
    game = load_game("subtraction", {"moves": ",".join(map(str, range(1, k + 1))), "max": "60"})
    row = build(game, store).row
    assert row.value_kind == "grundy"
    keys, grundy, known = store.read_extra(row)
    assert known.all()
    assert grundy.tolist() == [game.decode(key) % (k + 1) for key in keys.tolist()]


def test_nim_has_the_xor_of_its_heaps(store):
    game = load_game("nim", {"heaps": "3", "max": "5"})
    keys, grundy, _known = store.read_extra(build(game, store).row)
    for key, value in zip(keys.tolist(), grundy.tolist()):
        a, b, c = game.decode(key)
        assert value == a ^ b ^ c


def test_a_sum_names_a_winning_move_exactly_when_its_xor_is_not_zero(store):
    game = load_game("subtraction", {"moves": "1,2,4", "max": "40"})
    build(game, store)
    tablebase = Tablebase(game, store)
    game_sum = GameSum(tablebase)
    rng = random.Random(5)
    for _ in range(60):
        components = [rng.randrange(41) for _ in range(rng.randrange(1, 5))]
        values = game_sum.grundy(components)
        total = 0
        for value in values:
            total ^= value
        move = game_sum.winning_move(components)
        assert (move is None) == (total == 0)
        if move is not None:
            after = 0
            for value in game_sum.grundy(move.after):
                after ^= value
            assert after == 0
            assert move.after[move.component] in [child for _m, child in game.moves(components[move.component])]


def test_query_of_a_sum_on_the_command_line(tmp_path):
    db = str(tmp_path / "tb.sqlite")
    assert CliRunner().invoke(app, ["build", "nim", "-p", "heaps=1", "-p", "max=20", "--db", db]).exit_code == 0
    report = json.loads(
        CliRunner().invoke(app, ["query", "nim", "3+5+7", "-p", "heaps=1", "-p", "max=20", "--db", db, "--json"]).stdout
    )
    assert report["grundy"] == 3 ^ 5 ^ 7 and report["outcome"] == "win"
    assert report["winning_move"]["component"] in (1, 2, 3)
    single = json.loads(
        CliRunner().invoke(app, ["query", "nim", "6", "-p", "heaps=1", "-p", "max=20", "--db", db, "--json"]).stdout
    )
    assert single["grundy"] == 6
    info = json.loads(CliRunner().invoke(app, ["info", "--db", db, "--json"]).stdout)
    assert info[0]["value_kind"] == "grundy"


def test_a_sum_of_a_partizan_game_is_not_a_sum(tmp_path):
    db = str(tmp_path / "tb.sqlite")
    assert CliRunner().invoke(app, ["build", "tictactoe", "--db", db]).exit_code == 0
    result = CliRunner().invoke(app, ["query", "tictactoe", "x........+o........", "--db", db])
    assert result.exit_code == 2
