"""Tablebases whose moves lead into smaller ones: build order, reuse, and exact values."""

from __future__ import annotations

from typer.testing import CliRunner

from tablebase.build.builder import build, solve_in_memory
from tablebase.core.game import Game
from tablebase.core.parameters import Parameter
from tablebase.core.values import Outcome
from tablebase.faces.cli import app
from tablebase.generators.subtraction import Subtraction
from tablebase.read.query import Tablebase
from tablebase.store import open_store
from tests.test_plugin import register


class HighHeaps(Game):
    """One heap of ``low``..``max`` counters, taking 1, 2 or 3; a move below ``low`` leaves
    into the subtraction tablebase of heaps up to ``low - 1``. Per-position API only."""

    name = "highheaps"
    parameters = (Parameter("low", "int", 10, "smallest heap here"), Parameter("max", "int", 40, "largest heap"))

    def __init__(self, **params):
        super().__init__(**params)
        self.low, self.top = self.params["low"], self.params["max"]
        self.size = self.top + 1
        self.below = Subtraction(max=self.low - 1)

    def legal(self, keys):
        return keys >= self.low

    def dependencies(self):
        return [self.below]

    def table_of(self, heap):
        return self if heap >= self.low else self.below

    def moves(self, heap):
        return [(take, heap - take) for take in (1, 2, 3) if take <= heap]

    def terminal(self, heap):
        return None

    def encode(self, heap):
        return heap

    def decode(self, key):
        return int(key)

    def parse(self, text):
        return int(text)

    def format(self, heap):
        return str(heap)


def test_values_across_the_boundary_equal_the_single_tablebase(tmp_path):
    game = HighHeaps(low=10, max=40)
    with open_store(tmp_path / "tb.sqlite") as store:
        built = []
        build(game, store, report=built.append)
        assert [(r.row.description, r.reused) for r in built] == [
            ("subtraction moves=1,2,3 max=9", False),
            ("highheaps low=10 max=40", False),
        ]
        solved = solve_in_memory(game, store=store)
        assert solved.keys.tolist() == list(range(10, 41))
        for heap, outcome, remoteness in zip(
            solved.keys.tolist(), solved.solution.outcome.tolist(), solved.solution.remoteness.tolist()
        ):
            if heap % 4 == 0:
                assert (outcome, remoteness) == (Outcome.LOSS, heap // 2)
            else:
                assert (outcome, remoteness) == (Outcome.WIN, 2 * (heap // 4) + 1)

        again = []
        build(game, store, force=True, report=again.append)
        assert [r.reused for r in again] == [True, False]  # --force rebuilds only the target


def test_queries_follow_moves_into_the_smaller_tablebase(tmp_path):
    game = HighHeaps(low=10, max=40)
    with open_store(tmp_path / "tb.sqlite") as store:
        build(game, store)
        tablebase = Tablebase(game, store)
        ranked = tablebase.moves(11)
        assert [(m.position, m.value.outcome, m.value.remoteness) for m in ranked][0] == (8, Outcome.LOSS, 4)
        # From 8 every move loses; the ranking keeps the first of equals: take 1.
        assert [m.position for m in tablebase.line(11)] == [8, 7, 4, 3, 0]


def test_build_command_builds_dependencies_first(tmp_path, monkeypatch):
    register(monkeypatch, "highheaps", "tests.test_dependencies:HighHeaps")
    db = str(tmp_path / "tb.sqlite")
    first = CliRunner().invoke(app, ["build", "highheaps", "--db", db])
    assert first.exit_code == 0, first.output
    plan = ["plan: 2 to build, 0 to reuse", "  build   subtraction moves=1,2,3 max=9", "  build   highheaps low=10 max=40"]
    assert first.stdout.splitlines()[:3] == plan
    assert first.stdout.splitlines()[3].startswith("built subtraction moves=1,2,3 max=9")
    assert first.stdout.splitlines()[4].startswith("built highheaps low=10 max=40")
    again = CliRunner().invoke(app, ["build", "highheaps", "--db", db])
    assert [line.split()[:2] for line in again.stdout.splitlines()[3:5]] == [["reused", "stored"]] * 2
