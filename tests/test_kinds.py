"""Value kinds are objects: a kind added in one module with its registration
(``tests/misere.py``: misère play) builds, queries and verifies like a built-in one, from
the command line as a plug-in game, and its values are misère Nim's published ones."""

from __future__ import annotations

import itertools
import json
import operator
from functools import reduce

import pytest
from typer.testing import CliRunner

from tablebase.build.builder import build
from tablebase.core.game import Mode
from tablebase.core.values import Outcome
from tablebase.faces.cli import app
from tablebase.generators.nim import Nim
from tablebase.read.query import Tablebase
from tablebase.solve.kinds import kind_named, kind_of
from tablebase.store import open_store
from tablebase.tools.verify import verify_game
from tests.misere import MISERE, MisereNim
from tests.test_plugin import register

HEAPS, MAX = 3, 5


def bouton_misere(heaps: tuple[int, ...]) -> Outcome:
    """Misère Nim's outcome for the side to move (Bouton, "Nim, a game with a complete
    mathematical theory", Annals of Mathematics 3, 1901; Berlekamp, Conway and Guy,
    *Winning Ways*, ch. 13): play as in normal Nim while some heap has 2 or more, so the
    side to move loses where the heaps' xor is 0; once every heap has at most 1, it loses
    where an odd number of heaps hold 1."""
    if max(heaps) >= 2:
        lost = reduce(operator.xor, heaps) == 0
    else:
        lost = sum(heaps) % 2 == 1
    return Outcome.LOSS if lost else Outcome.WIN


class PlainNim(Nim):
    """Normal-play Nim under misère Nim's name: the WDL kind's rules over its tablebase."""

    name = "misere-nim"
    mode = Mode.WDL


@pytest.fixture
def misere(tmp_path, monkeypatch):
    """The misère Nim plug-in registered as a third party's would be, and its database."""
    register(monkeypatch, "misere-nim", "tests.misere:MisereNim")
    return str(tmp_path / "tb.sqlite")


def test_a_kind_registered_in_one_module_is_what_the_game_names():
    game = MisereNim(heaps=HEAPS, max=MAX)
    assert kind_of(game) is MISERE is kind_named("misere")
    assert kind_of(game).stored == "wdl"  # it stores what the WDL kind stores


def test_the_toy_kind_builds_queries_and_verifies_from_the_command_line(misere):
    runner = CliRunner()
    params = ["-p", f"heaps={HEAPS}", "-p", f"max={MAX}", "--db", misere]
    built = runner.invoke(app, ["build", "misere-nim", *params])
    assert built.exit_code == 0, built.output
    checked = runner.invoke(app, ["verify", "misere-nim", *params])
    assert checked.exit_code == 0, checked.output
    for heaps in itertools.combinations_with_replacement(range(MAX + 1), HEAPS):
        text = ",".join(map(str, heaps))
        shown = runner.invoke(app, ["query", "misere-nim", text, *params, "--json"])
        assert shown.exit_code == 0, shown.output
        assert json.loads(shown.stdout)["outcome"] == bouton_misere(heaps).label, text


def test_the_toy_kinds_values_are_misere_nims_and_its_best_moves_win(tmp_path):
    game = MisereNim(heaps=HEAPS, max=MAX)
    with open_store(tmp_path / "tb.sqlite") as store:
        build(game, store)
        tablebase = Tablebase(game, store)
        for heaps in itertools.combinations_with_replacement(range(MAX + 1), HEAPS):
            value = tablebase.probe(heaps)
            assert value.outcome == bouton_misere(heaps), heaps
            if heaps == (0,) * HEAPS:
                assert value.remoteness == 0 and tablebase.moves(heaps) == []  # the last mover lost
            elif value.outcome == Outcome.WIN:
                best = tablebase.moves(heaps)[0]
                assert bouton_misere(tuple(sorted(best.position))) == Outcome.LOSS
                assert best.value.remoteness == value.remoteness - 1


def test_verify_holds_a_tablebase_to_its_own_kinds_rules(tmp_path):
    """The same stored values checked by the WDL kind's rules (normal play) break them
    where the two kinds' rules differ, and only there: at the one position without
    moves, a misère win that normal play makes a loss (every other position's value
    follows from its successors' alike under both)."""
    with open_store(tmp_path / "tb.sqlite") as store:
        build(MisereNim(heaps=HEAPS, max=MAX), store)
        assert verify_game(MisereNim(heaps=HEAPS, max=MAX), store)[1] == []
        checked, mismatches = verify_game(PlainNim(heaps=HEAPS, max=MAX), store)
    game = PlainNim(heaps=HEAPS, max=MAX)
    assert [(game.decode(m.key), m.stored, m.expected) for m in mismatches] == [((0, 0, 0), "win in 0", "loss in 0")]
    assert checked == len(list(itertools.combinations_with_replacement(range(MAX + 1), HEAPS)))
