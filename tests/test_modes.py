"""Game modes: one declaration checked when the class is defined, and one graph builder
that serves every mode (bad keys, moves into other tablebases)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from typer.testing import CliRunner

from tablebase.build.builder import build, solve_in_memory
from tablebase.core.errors import GameError
from tablebase.core.game import Game, Mode
from tablebase.core.values import Outcome
from tablebase.faces.cli import app
from tablebase.generators.octal import Kayles
from tablebase.generators.piles import TwoPiles
from tablebase.solve.kinds import check_class, kind_of
from tablebase.store import open_store
from tablebase.tools.verify import verify_game
from tests.test_dependencies import HighHeaps
from tests.test_plugin import register


class ImpartialHighHeaps(HighHeaps):
    """HighHeaps (take 1, 2 or 3; heaps below ``low`` live in the subtraction tablebase),
    declared impartial: its Grundy values must count the moves into the smaller table."""

    name = "impartialhighheaps"
    mode = Mode.IMPARTIAL


def test_an_impartial_game_counts_the_grundy_values_of_moves_into_other_tablebases(tmp_path):
    game = ImpartialHighHeaps(low=10, max=40)
    with open_store(tmp_path / "tb.sqlite") as store:
        build(game, store)
        solved = solve_in_memory(game, store=store)
        # Winning Ways ch. 4: the subtraction game {1, 2, 3} has Grundy value n mod 4.
        assert solved.extra.tolist() == [heap % 4 for heap in range(10, 41)]
        checked, mismatches = verify_game(game, store)
        assert (checked, mismatches) == (31, [])


def test_the_stored_grundy_values_of_a_dependency_are_read_back(tmp_path):
    game = ImpartialHighHeaps(low=10, max=40)
    with open_store(tmp_path / "tb.sqlite") as store:
        build(game, store)
        solved = solve_in_memory(game, store=store, workers=2, batch_size=4)
        assert solved.extra.tolist() == [heap % 4 for heap in range(10, 41)]
        assert [Outcome(o) for o in solved.solution.outcome.tolist()] == [
            Outcome.LOSS if heap % 4 == 0 else Outcome.WIN for heap in range(10, 41)
        ]


def _define(mode: Mode, **members) -> type[Game]:
    return type("Declared", (Game,), {"name": "declared", "mode": mode, **members})


@pytest.mark.parametrize(
    ("members", "problem"),
    [
        ({"impartial": True}, "declare 'mode = Mode.IMPARTIAL'"),
        ({"scored": True}, "declare 'mode = Mode.SCORED'"),
        ({"mode": "impartail"}, "mode 'impartail' is not a registered value kind (buchi, dtz, dtz+dtm, impartial, "),
        ({"mode": Mode.BUCHI}, "mode buchi needs owners()"),
        ({"mode": Mode.BUCHI, "owners": lambda self, keys: keys}, "mode buchi needs accepting()"),
        ({"mode": Mode.SCORED}, "mode scored needs score() or terminal_scores()"),
        ({"splits": True, "components": lambda self, p: [p]}, "'splits = ...' is no longer read: declare 'mode = Mode.SUMS'"),
        ({"mode": Mode.SUMS}, "mode sums needs components()"),
        (
            {"mode": Mode.SCORED, "score": lambda self, p: 1, "dependencies": lambda self: []},
            "mode scored cannot have moves into other tablebases",
        ),
        (
            {"mode": Mode.BUCHI, "owners": len, "accepting": len, "dependencies": lambda self: []},
            "mode buchi cannot have moves into other tablebases",
        ),
        (
            {"mode": Mode.SUMS, "components": len, "dependencies": lambda self: []},
            "mode sums cannot have moves into other tablebases",
        ),
        ({"modes": (Mode.WDL, Mode.SCORED)}, "mode scored needs score()"),
    ],
)
def test_a_bad_mode_declaration_is_refused_when_the_kind_is_resolved(members, problem):
    declared = _define(members.pop("mode", Mode.WDL), **members)
    with pytest.raises(GameError, match=r"game class Declared: .*" + re.escape(problem)):
        check_class(declared)


def test_every_declared_mode_is_accepted_with_its_members():
    for declared in (_define(Mode.WDL), _define(Mode.SCORED, reward=len), _define(Mode.BUCHI, owners=len, accepting=len)):
        check_class(declared)
    assert _define(Mode.WDL).mode is Mode.WDL
    assert kind_of(_define(Mode.SUMS, components=len)()).splits
    assert _define(Mode.SCORED, reward=lambda self, p, m: 1).mode is Mode.SCORED
    assert _define(Mode.BUCHI, owners=len, accepting=len).mode is Mode.BUCHI


def test_a_plugin_with_a_bad_mode_fails_to_load_with_one_line(tmp_path, monkeypatch):
    (tmp_path / "old_style.py").write_text(
        "from tablebase.core.game import Game\n\nclass OldStyle(Game):\n    name = 'oldstyle'\n    impartial = True\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    register(monkeypatch, "oldstyle", "old_style:OldStyle")
    result = CliRunner().invoke(app, ["build", "oldstyle", "--db", str(tmp_path / "tb.sqlite")])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "error: game 'oldstyle' failed to load (old_style:OldStyle): game class OldStyle: "
        "'impartial = ...' is no longer read: declare 'mode = Mode.IMPARTIAL' (tablebase.core.game.Mode)"
    ]


class KaylesWithBadPart(Kayles):
    """Kayles whose batch API answers a part of key -5 for the moves from a row of 3."""

    def successors(self, keys):
        src, parts = super().successors(keys)
        parts = parts.copy()
        parts[(keys[src] == 3) & (parts[:, 0] >= 0), 0] = -5
        return src, parts


class KaylesWithPartOutside(Kayles):
    """Kayles whose batch API answers a part beyond the largest row for a row of 4."""

    def successors(self, keys):
        src, parts = super().successors(keys)
        parts = parts.copy()
        parts[(keys[src] == 4) & (parts[:, 0] >= 0), 0] = self.size + 7
        return src, parts


class PilesWithNegativeKey(TwoPiles):
    """Two piles whose batch API sends the start position's moves to key -1 (which an
    index would read as the last position)."""

    def successors(self, keys):
        src, dst = super().successors(keys)
        return src, np.where(keys[src] == self.size - 1, -1, dst)


@pytest.mark.parametrize(
    ("game", "message"),
    [
        (KaylesWithBadPart(max=6), r"kayles: a move from position '3' \(key 3\) leads to key -5: keys must be in"),
        (KaylesWithPartOutside(max=6), r"a move from position '4' \(key 4\) leads to key 14: not a position"),
        (PilesWithNegativeKey(), r"piles: a move from position '3,3' \(key 15\) leads to key -1: keys must be in"),
    ],
    ids=["sum, negative part", "sum, part outside", "scored, -1"],
)
def test_a_bad_key_from_the_batch_api_is_a_game_error_naming_the_position(game, message):
    for workers in (1, 2):
        with pytest.raises(GameError, match=message):
            solve_in_memory(game, batch_size=4, workers=workers)
