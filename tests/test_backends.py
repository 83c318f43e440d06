"""The store on every backend (SQLite and PostgreSQL, one parametrized fixture): build,
reuse, probe, bulk reads, rebuilds, abandoned builds, migrations state, and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from tablebase.build.builder import build
from tablebase.core.errors import NotBuiltError, StoreError
from tablebase.faces.cli import app
from tablebase.solve.registry import load_game
from tablebase.store import Storing, open_store, schema_revisions
from tests.backends import database_url  # noqa: F401  (the fixture)
from tests.reference import solve_game as reference_solve


@pytest.fixture(params=["sided", "blocks", "packed", "rows"])
def layout(request) -> str:
    return request.param


def test_a_build_stores_exactly_the_reference_values_and_is_reused(database_url, layout):
    game = load_game("subtraction", {"moves": "1,3,4", "max": "80"})
    with open_store(database_url, storing=Storing(layout=layout)) as store:
        first = build(game, store)
        assert not first.reused and first.row.status == "complete"
        keys, outcome, remoteness = store.read_values(first.row)
        expected = reference_solve(game)
        assert {k: (int(o), None if r < 0 else int(r)) for k, o, r in zip(keys.tolist(), outcome, remoteness)} == {
            k: (int(v[0]), v[1]) for k, v in expected.items()
        }
        assert store.probe(first.row, [0, 5, 80, 81]) == {k: (int(expected[k][0]), expected[k][1]) for k in (0, 5, 80)}
        again = build(game, store)
        assert again.reused and again.row.id == first.row.id


def test_tiny_write_batches_and_probes_across_chunks(database_url, layout):
    rng = np.random.default_rng(11)
    keys = np.unique(rng.integers(0, 2**40, size=9000))
    outcome = rng.integers(-1, 2, size=len(keys)).astype(np.int8)
    remoteness = rng.integers(-1, 60, size=len(keys)).astype(np.int32)
    with open_store(database_url, storing=Storing(layout=layout)) as store:
        row = store.begin_build("test", "{}", "test")
        store.write(row, keys, outcome, remoteness, batch_size=1000)
        store.complete(row, outcome, remoteness, 0.0)
        for got, wanted in zip(store.read_values(row), (keys, outcome, remoteness)):
            np.testing.assert_array_equal(got, wanted)
        picks = rng.choice(len(keys), 50, replace=False)
        probed = store.probe(row, [int(keys[i]) for i in picks])
        assert probed == {int(keys[i]): (int(outcome[i]), int(remoteness[i]) if remoteness[i] >= 0 else None) for i in picks}


def test_a_rebuild_replaces_the_old_tablebase_only_when_complete(database_url):
    game = load_game("tictactoe", {})
    with open_store(database_url) as store:
        old = build(game, store).row
        pending = store.begin_build(game.name, game.identity(), game.describe())
        assert store.find(game.name, game.identity(), game.version).id == old.id
        store.abandon(pending)
        new = build(game, store, force=True).row
        assert new.id > old.id and store.find(game.name, game.identity(), game.version).id == new.id
        assert [r.id for r in store.catalog()] == [new.id]


def test_grundy_values_and_scores_are_stored(database_url):
    with open_store(database_url) as store:
        kayles = build(load_game("kayles", {"max": "12"}), store).row
        assert store.read_extra(kayles)[1].tolist() == [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4]
        piles = build(load_game("piles", {}), store).row
        assert store.probe_extra(piles, [15]) == {15: -5}


def test_a_missing_tablebase_and_a_bad_url_are_clean_errors(database_url):
    with open_store(database_url) as store:
        with pytest.raises(NotBuiltError, match="tablebase build"):
            store.require("tictactoe", "{}", "tablebase build tictactoe")
    with pytest.raises(StoreError):
        open_store("nosuchdialect://x/y")


def test_the_schema_is_at_the_newest_revision(database_url):
    open_store(database_url).close()
    current, head = schema_revisions(database_url)
    assert current == head


def test_the_command_line_builds_queries_verifies_and_exports(database_url):
    runner = CliRunner()
    assert runner.invoke(app, ["build", "tictactoe", "--db", database_url]).exit_code == 0
    report = json.loads(runner.invoke(app, ["query", "tictactoe", "start", "--db", database_url, "--json"]).stdout)
    assert (report["outcome"], report["remoteness"]) == ("draw", 9)
    assert runner.invoke(app, ["verify", "tictactoe", "--db", database_url]).exit_code == 0
    info = json.loads(runner.invoke(app, ["info", "--db", database_url, "--json"]).stdout)
    assert info[0]["positions"] == 765
    exported = runner.invoke(app, ["export", "tictactoe", "--db", database_url])
    assert exported.exit_code == 0 and len(exported.stdout.splitlines()) == 766
