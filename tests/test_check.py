"""The self-check of game implementations: clean on the built-in games, and it catches bugs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tablebase.core.game import Game
from tablebase.core.values import Outcome
from tablebase.faces.cli import app
from tablebase.generators.kalah import Kalah
from tablebase.generators.nim import Nim
from tablebase.generators.subtraction import Subtraction
from tablebase.generators.tictactoe import TicTacToe
from tablebase.solve.registry import load_game
from tablebase.tools.check import check_game, sample_positions

DATA = Path(__file__).parent / "data"

BUILT_IN = [
    ("subtraction", {}),
    ("nim", {"heaps": "4", "max": "6"}),
    ("tictactoe", {}),
    ("tictactoe", {"m": "3", "n": "4", "k": "3"}),
    ("connect4", {"width": "5", "height": "4"}),
    ("kayles", {"max": "40"}),
    ("octal", {"code": ".4", "max": "30"}),
    ("cutting", {"max": "12"}),
    ("kalah", {"pits": "3", "seeds": "3"}),
    ("kalah", {"pits": "3", "seeds": "3", "positions": "reachable"}),
    ("teeko", {}),
    ("morris", {}),
    ("morris", {"men": "3", "symmetry": "off"}),
    ("teeko", {"variant": "advanced", "symmetry": "off"}),
    ("dobutsu", {}),
    ("dobutsu", {"start": "l.e/.../.../GL. C", "symmetry": "off"}),
    ("cops", {"map": str(DATA / "cops_ring.txt")}),
    ("graph", {"file": str(DATA / "graph_example.txt")}),
]


@pytest.mark.parametrize(("name", "params"), BUILT_IN, ids=str)
def test_built_in_games_pass_their_self_check(name, params):
    game = load_game(name, params)
    assert check_game(game, sample_positions(game, 300)) == []


class DropsAMove(Subtraction):
    """The batch API forgets the largest take."""

    def successors(self, keys):
        src, dst = super().successors(keys)
        keep = np.ones(len(src), dtype=bool)
        keep[np.flatnonzero(np.diff(np.append(src, -1)) != 0)] = False  # the last move of each
        return src[keep], dst[keep]


class WrongTerminal(Subtraction):
    """The batch API calls an empty heap a draw."""

    def terminal_batch(self, keys):
        values = super().terminal_batch(keys)
        values[keys == 0] = Outcome.DRAW
        return values


class ReversedFormat(Nim):
    """Writes heaps in the reverse order of parse."""

    def format(self, position):
        return super().format(position[::-1])


class MisplacedTexts(Subtraction):
    """Its batch of texts is one key behind."""

    def format_keys(self, keys):
        return [self.format(self.decode(key - 1 if key else key)) for key in keys.tolist()]


class HalfSymmetric(TicTacToe):
    """canonical() forgets the symmetry that the batch API applies."""

    def canonical(self, board):
        return board


class OneLevel(Kalah):
    """Claims its whole index space is one level, though moves stay within it."""

    def key_order_levels(self):
        return np.array([0, self.size])


class ShortLevels(Kalah):
    """Its levels stop short of its index space."""

    def key_order_levels(self):
        return np.array([0, self.size // 2])


class BestOfTheWorst(Kalah):
    """Its compiled best score is the worst turn's."""

    def best_scores(self, keys, score):
        best, ended = super().best_scores(keys, -score)
        return -best, ended


@pytest.mark.parametrize(
    ("game", "finding"),
    [
        (OneLevel(pits=2, seeds=2, positions="all"), "a move leads to a key not below its level (0)"),
        (ShortLevels(pits=2, seeds=2, positions="all"), "key_order_levels() does not rise from 0"),
        (BestOfTheWorst(pits=2, seeds=2, positions="all"), "best_scores() gives another score"),
        (DropsAMove(), "successors() and exits() differ from moves()"),
        (WrongTerminal(), "terminal_batch gives 0, terminal gives None"),
        (ReversedFormat(), "parse(format(p)) != p"),
        (MisplacedTexts(), "format_keys gives"),
        (HalfSymmetric(), "successors() and exits() differ from moves()"),
    ],
    ids=["kalah-one-level", "kalah-short-levels", "kalah-best-of-the-worst", "drops-a-move", "wrong-terminal", "reversed-format", "misplaced-texts", "half-symmetric"],
)
def test_self_check_catches_broken_games(game, finding):
    problems = check_game(game, sample_positions(game, 200))
    assert any(finding in problem for problem in problems), problems


def test_check_command():
    result = CliRunner().invoke(app, ["check", "tictactoe", "--positions", "100"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ok: tictactoe m=3 n=3 k=3 symmetry=on, 100 positions checked")


@pytest.mark.parametrize("material", ["KQvK", "KPvK", "KQvKR", "KPvKP"])
def test_chess_passes_its_self_check_moves_into_smaller_endings_included(material):
    game = load_game("chess", {"material": material})
    assert check_game(game, sample_positions(game, 40)) == []


def test_self_check_catches_exits_into_the_wrong_tablebase():
    from tests.test_dependencies import HighHeaps

    class WrongExits(HighHeaps):
        """Its batch exits land one key too high."""

        def exits(self, keys):
            src, table, key = super().exits(keys)
            return src, table, key + 1

    assert check_game(HighHeaps(), sample_positions(HighHeaps(), 40)) == []
    problems = check_game(WrongExits(), sample_positions(WrongExits(), 40))
    assert any("successors() and exits() differ from moves()" in p for p in problems), problems


class FoldsNothing(Game):
    """A walk on a line of 9 squares towards either end, symmetric under x -> 8 - x, over
    an index space whose legal() accepts every key: canonical() folds nothing then, as
    the key of a non-canonical position is a position of the tablebase too."""

    name = "folds-nothing"
    size = 9

    def legal(self, keys):
        return np.ones(len(keys), dtype=bool)

    def moves(self, position):
        return [(step, position + step) for step in (-1, 1) if 0 < position < 8]

    def terminal(self, position):
        return Outcome.LOSS if position in (0, 8) else None

    def encode(self, position):
        return position

    def decode(self, key):
        return key

    def canonical(self, position):
        return min(position, 8 - position)

    def parse(self, text):
        return int(text)

    def format(self, position):
        return str(position)


def test_self_check_catches_a_legal_non_canonical_key():
    problems = check_game(FoldsNothing(), sample_positions(FoldsNothing(), 9))
    assert any("legal() accepts key 5, which is not canonical (its canonical form's is 3)" in p for p in problems), problems
    assert not any("legal() accepts key 3," in p for p in problems)
