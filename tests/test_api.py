"""The Python API: README's doctest, and probes against the CLI's answers and python-chess."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import chess
import pytest
from typer.testing import CliRunner

import tablebase
from tablebase.cli import app
from tablebase.errors import NotBuiltError, PositionError, StoreError
from tablebase.game import Outcome

README = Path(__file__).parent.parent / "README.md"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    """README's database: tic-tac-toe and chess KQvK."""
    path = tmp_path_factory.mktemp("api") / "tablebase.sqlite"
    for args in (["tictactoe"], ["chess", "-p", "material=KQvK"]):
        assert CliRunner().invoke(app, ["build", *args, "--db", str(path)]).exit_code == 0
    return path


def test_readme_doctest(db, monkeypatch):
    monkeypatch.chdir(db.parent)
    section = README.read_text(encoding="utf-8").split("## Python API", 1)[1].split("\n## ", 1)[0]
    example = section.split("```pycon\n", 1)[1].split("```", 1)[0]
    test = doctest.DocTestParser().get_doctest(example, {}, "README Python API", str(README), 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0 and test.examples


def test_probe_agrees_with_the_cli(db):
    positions = ["start", "x../.../..o", "xx./oo./...", "xo./.x./..."]
    with tablebase.open(db) as tb:
        for text in positions:
            report = json.loads(CliRunner().invoke(app, ["query", "tictactoe", text, "--db", str(db), "--json"]).stdout)
            value = tb.probe("tictactoe", text)
            assert (value.outcome.label, value.remoteness) == (report["outcome"], report["remoteness"])
            assert tb.probe("tictactoe", tb.tablebase("tictactoe").parse(text)) == value  # a position object too
        with pytest.raises(NotBuiltError):
            tb.probe("tictactoe", "start", k=2)
        with pytest.raises(PositionError):
            tb.probe("tictactoe", "zzz")
        assert tb.get("tictactoe", "zzz", default="none") == "none"


def test_chess_probes_follow_python_chess_conventions(db):
    with tablebase.open(db) as tb:
        mated = chess.Board("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1")
        assert mated.is_checkmate()
        assert (tb.probe_wdl(mated), tb.probe_dtm(mated)) == (-2, 0)
        mate_in_one = chess.Board("k7/8/1K6/8/8/8/7Q/8 w - - 0 1")  # Qh8#
        assert (tb.probe_wdl(mate_in_one), tb.probe_dtm(mate_in_one)) == (2, 1)
        bare = chess.Board("8/8/8/8/8/2k5/8/K7 w - - 0 1")
        assert (tb.probe_wdl(bare), tb.probe_dtm(bare)) == (0, 0)
        # after every legal move of the winner, the loser's DTM is at most one ply shorter
        board = chess.Board("8/8/8/8/8/2k5/8/K2Q4 w - - 0 1")
        dtm = tb.probe_dtm(board)
        assert dtm > 0 and tb.probe_wdl(board) == 2
        replies = []
        for move in board.legal_moves:
            board.push(move)
            replies.append(tb.probe_dtm(board))
            board.pop()
        assert max(reply for reply in replies if reply < 0) == -(dtm - 1)
        five = chess.Board("8/8/8/8/8/2k5/1p6/K2QR3 w - - 0 1")
        assert tb.get_wdl(five) is None and tb.get_dtm(five, default=99) == 99
        with pytest.raises(NotBuiltError):  # KQRvKP
            tb.probe_wdl(five)
        assert tb.get_wdl(chess.Board("8/8/8/8/8/2k5/8/K2R4 w - - 0 1")) is None  # KRvK not built
        assert tb.probe("chess", board.fen()).outcome == Outcome.WIN


def test_dtz_probes_follow_python_chess_conventions(db):
    with tablebase.open(db) as tb:
        mated = chess.Board("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1")
        assert tb.probe_dtz(mated) == 0
        mate_in_one = chess.Board("k7/8/1K6/8/8/8/7Q/8 w - - 0 1")
        assert tb.probe_dtz(mate_in_one) == 1
        board = chess.Board("8/8/8/8/8/2k5/8/K2Q4 w - - 0 1")
        assert tb.probe_dtz(board) == tb.probe_dtm(board)  # KQvK: no zeroing move before mate
        assert tb.probe_dtz(chess.Board("8/8/8/8/8/2k5/8/K7 w - - 0 1")) == 0
        assert tb.get_dtz(chess.Board("8/8/8/8/8/2k5/8/K2R4 w - - 0 1"), default=-7) == -7  # KRvK not built


def test_open_of_no_database_raises(tmp_path):
    with pytest.raises(StoreError):
        tablebase.open(tmp_path / "none.sqlite")
    assert not (tmp_path / "none.sqlite").exists()
