"""Impartial games: stored Grundy values against published facts, and sums of positions."""

from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

from tablebase.build.builder import build
from tablebase.faces.cli import app
from tablebase.read.query import Tablebase
from tablebase.solve.registry import load_game
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


def test_a_sum_is_lost_exactly_when_its_xor_is_zero_and_its_best_moves_reach_zero(store):
    game = load_game("subtraction", {"moves": "1,2,4", "max": "40"})
    build(game, store)
    single = Tablebase(game, store)
    rng = random.Random(5)
    for _ in range(60):
        components = [rng.randrange(41) for _ in range(rng.randrange(2, 5))]
        text = "+".join(map(str, components))
        sums = single.reader(text)
        total = 0
        for part in components:
            total ^= single.probe(part).grundy
        value = sums.probe(sums.parse(text))
        assert (value.grundy, value.outcome.label) == (total, "win" if total else "loss")
        ranked = sums.moves(sums.parse(text))
        assert len(ranked) == sum(len(game.moves(part)) for part in components)
        for move in ranked:  # each move changes one component to one of its successors
            changed = [i for i, (a, b) in enumerate(zip(components, move.position)) if a != b]
            assert len(changed) == 1 and move.position[changed[0]] in [c for _m, c in game.moves(components[changed[0]])]
        best = sums.best(ranked)
        if total:
            assert best and all(m.value.grundy == 0 for m in best)
            assert {m.position for m in best} == {m.position for m in ranked if m.value.grundy == 0}
        else:
            assert all(m.value.grundy != 0 for m in ranked)


def test_query_of_a_sum_on_the_command_line_has_the_schema_of_any_query(tmp_path):
    """A nim sum answers like a kayles sum: value, every move ranked, the best ones."""
    db = str(tmp_path / "tb.sqlite")
    assert CliRunner().invoke(app, ["build", "nim", "-p", "heaps=1", "-p", "max=20", "--db", db]).exit_code == 0
    report = json.loads(
        CliRunner().invoke(app, ["query", "nim", "3+5+7", "-p", "heaps=1", "-p", "max=20", "--db", db, "--json"]).stdout
    )
    assert report["grundy"] == 3 ^ 5 ^ 7 and report["outcome"] == "win" and report["remoteness"] is None
    assert len(report["moves"]) == 3 + 5 + 7
    assert sorted(report["best"]) == ["1:3>2 in component 1", "1:5>4 in component 2", "1:7>6 in component 3"]
    assert report["moves"][0] == {
        "move": "1:3>2 in component 1", "position": "2+5+7", "outcome": "loss", "remoteness": None, "grundy": 0
    }
    single = json.loads(
        CliRunner().invoke(app, ["query", "nim", "6", "-p", "heaps=1", "-p", "max=20", "--db", db, "--json"]).stdout
    )
    assert single["grundy"] == 6
    info = json.loads(CliRunner().invoke(app, ["info", "--db", db, "--json"]).stdout)
    assert info[0]["value_kind"] == "grundy"


@pytest.mark.parametrize("command", ["line", "query"])
def test_sums_in_a_batch_and_in_a_line(tmp_path, command):
    db = str(tmp_path / "tb.sqlite")
    assert CliRunner().invoke(app, ["build", "nim", "-p", "heaps=1", "-p", "max=20", "--db", db]).exit_code == 0
    if command == "query":
        result = CliRunner().invoke(app, ["query", "nim", "-", "-p", "heaps=1", "-p", "max=20", "--db", db], input="3+5\n4\n")
        assert result.exit_code == 0, result.output
        first, second = map(json.loads, result.stdout.splitlines())
        assert (first["position"], first["grundy"], first["best"]) == ("3+5", 6, ["1:5>3 in component 2"])
        assert (second["position"], second["grundy"]) == ("4", 4)
        return
    result = CliRunner().invoke(app, ["line", "nim", "3+5", "-p", "heaps=1", "-p", "max=20", "--db", db, "--json"])
    assert result.exit_code == 0, result.output
    played = json.loads(result.stdout)
    assert played["ended"] and played["line"][-1]["position"] == "0+0"
    # the side to move at 3+5 (grundy 6) wins: it leaves grundy 0 at each of its turns
    assert [step["grundy"] == 0 for step in played["line"]] == [ply % 2 == 0 for ply in range(len(played["line"]))]


def test_a_sum_of_a_partizan_game_is_not_a_sum(tmp_path):
    db = str(tmp_path / "tb.sqlite")
    assert CliRunner().invoke(app, ["build", "tictactoe", "--db", db]).exit_code == 0
    result = CliRunner().invoke(app, ["query", "tictactoe", "x........+o........", "--db", db])
    assert result.exit_code == 2
