"""A game defined outside the package registers through the entry-point group and builds.

The game is the complete example of README.md, so the README stays true.
"""

from __future__ import annotations

import json
import re
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tablebase.solve.registry
from tablebase.build.builder import solve_in_memory
from tablebase.core.values import Outcome
from tablebase.faces.cli import app
from tablebase.solve.registry import ENTRY_POINT_GROUP, load_game
from tests.reference import solve_game as reference_solve

README = Path(__file__).parent.parent / "README.md"


def register(monkeypatch, name: str, value: str) -> None:
    """Add an entry point to the ``tablebase.games`` group, as an installed package would."""
    real_entry_points = tablebase.solve.registry.entry_points

    def with_extra(**selection):
        found = list(real_entry_points(**selection))
        if selection.get("group") == ENTRY_POINT_GROUP:
            found.append(EntryPoint(name, value, ENTRY_POINT_GROUP))
        return found

    monkeypatch.setattr(tablebase.solve.registry, "entry_points", with_extra)


@pytest.fixture
def race_registered(tmp_path, monkeypatch):
    """Write README's example to a module and register it as a third party would."""
    section = README.read_text(encoding="utf-8").split("## Writing your own game", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)
    (tmp_path / "race_game.py").write_text(code, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    register(monkeypatch, "race", "race_game:RaceTo")


def test_a_broken_plugin_does_not_hide_the_others(monkeypatch):
    register(monkeypatch, "broken", "no_such_module:Game")
    result = CliRunner().invoke(app, ["games"])
    assert result.exit_code == 1
    assert "nim:" in result.stdout and "tictactoe:" in result.stdout
    assert result.stderr.startswith("error: game 'broken' failed to load")


def test_readme_game_matches_reference_and_theory(race_registered):
    game = load_game("race", {"target": "21"})
    solved = solve_in_memory(game)
    columns = (solved.keys, solved.solution.outcome, solved.solution.remoteness)
    values = {key: (Outcome(o), r) for key, o, r in zip(*(c.tolist() for c in columns))}
    assert values == reference_solve(game)
    for total, value in values.items():
        left = 21 - total  # a multiple of 3 left is lost: the opponent keeps it so
        expected = (Outcome.LOSS, 2 * left // 3) if left % 3 == 0 else (Outcome.WIN, 2 * (left // 3) + 1)
        assert value == expected


def test_readme_game_through_the_cli(race_registered, tmp_path):
    runner = CliRunner()
    db = str(tmp_path / "race.sqlite")
    listed = runner.invoke(app, ["games"])
    assert listed.exit_code == 0 and "race:" in listed.stdout
    built = runner.invoke(app, ["build", "race", "-p", "target=21", "--db", db])
    assert built.exit_code == 0, built.output
    answer = runner.invoke(app, ["query", "race", "start", "-p", "target=21", "--db", db, "--json"])
    assert answer.exit_code == 0, answer.output
    report = json.loads(answer.stdout)
    assert (report["outcome"], report["remoteness"]) == ("loss", 14)
    assert set(report["best"]) == {"+1", "+2"}  # both lead to a win at 13


def test_readme_game_rejects_a_unicode_digit_cleanly(race_registered, tmp_path):
    """'²' passes str.isdigit but is no number: the README's parser must say so."""
    db = str(tmp_path / "race.sqlite")
    assert CliRunner().invoke(app, ["build", "race", "--db", db]).exit_code == 0
    result = CliRunner().invoke(app, ["query", "race", "²", "--db", db])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: expected a total") and len(result.stderr.splitlines()) == 1


BROKEN = """
from race_game import RaceTo


class Broken(RaceTo):
    name = "broken"

    def parse(self, text):
        return int(text)  # ValueError on bad text: not the PositionError the protocol asks for

    def moves(self, total):
        if total == 5:
            raise RuntimeError("no moves from 5 today")
        return super().moves(total)
"""


@pytest.mark.parametrize(
    ("args", "method", "error"),
    [
        (["query", "broken", "x"], "parse", "ValueError"),
        (["build", "broken"], "moves", "RuntimeError: no moves from 5 today"),
    ],
)
def test_any_exception_of_a_plugin_is_one_line_naming_the_game(race_registered, tmp_path, monkeypatch, args, method, error):
    (tmp_path / "broken_game.py").write_text(BROKEN, encoding="utf-8")
    register(monkeypatch, "broken", "broken_game:Broken")
    db = str(tmp_path / "tb.sqlite")
    assert CliRunner().invoke(app, ["build", "race", "--db", db]).exit_code == 0
    result = CliRunner().invoke(app, [*args, "--db", db])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    [message] = result.stderr.splitlines()
    assert message.startswith(f"error: game 'broken' failed in {method}: {error}"), message


def test_a_failed_first_build_leaves_no_database_behind(race_registered, tmp_path, monkeypatch):
    """A plug-in build that fails into a new database removes the file it made (it left
    an empty tablebase.sqlite), as does a dry run; a database that existed is kept."""
    (tmp_path / "broken_game.py").write_text(BROKEN, encoding="utf-8")
    register(monkeypatch, "broken", "broken_game:Broken")
    fresh = tmp_path / "fresh.sqlite"
    assert CliRunner().invoke(app, ["build", "broken", "--db", str(fresh)]).exit_code == 1
    assert CliRunner().invoke(app, ["build", "race", "--db", str(fresh), "--dry-run"]).exit_code == 0
    assert sorted(path.name for path in tmp_path.glob("fresh*")) == []
    kept = tmp_path / "kept.sqlite"
    assert CliRunner().invoke(app, ["build", "race", "--db", str(kept)]).exit_code == 0
    assert CliRunner().invoke(app, ["build", "broken", "--db", str(kept)]).exit_code == 1
    assert kept.exists() and "race" in CliRunner().invoke(app, ["info", "--db", str(kept)]).stdout
