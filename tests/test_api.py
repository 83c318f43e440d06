"""The Python API: README's doctest, and probes against the CLI's answers and python-chess."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import chess
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import tablebase
from tablebase.core.errors import NotBuiltError, PositionError, StoreError
from tablebase.core.values import Outcome
from tablebase.faces.cli import app
from tablebase.generators.chess.positions import UNREACHABLE_CHECKS, plainly_legal
from tablebase.store import catalog

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


def test_python_chess_boards_and_fens_are_taken_and_moves_come_back_as_chess_moves(db):
    """Code ported from ``chess.syzygy``: every call that takes a position takes a
    ``chess.Board`` and a FEN alike; moves are ``chess.Move`` beside SAN and UCI, checked
    against python-chess's own legal moves; a missing table is a ``KeyError``."""
    fen = "8/8/8/8/8/2k5/8/K2Q4 w - - 0 1"
    board = chess.Board(fen)
    with tablebase.open(db) as tb:
        assert tb.probe("chess", board) == tb.probe("chess", fen) and tb.probe("chess", board).remoteness == tb.probe_dtm(board)
        kqk = tb.tablebase("chess", material="KQvK")
        assert kqk.probe(board) == kqk.probe(fen) == tb.probe("chess", fen)
        for given in (fen, board):
            ranked = kqk.moves(given)
            assert {move.move.move for move in ranked} == set(board.legal_moves)
            for move in ranked:
                played = board.copy()
                assert move.move.san == played.san(move.move.move) and move.move.uci == move.move.move.uci()
                played.push(move.move.move)
                assert move.value.outcome == Outcome(np.sign(tb.probe_wdl(played)))
                assert move.value.outcome == Outcome.DRAW or move.value.remoteness == abs(tb.probe_dtm(played))
            line = kqk.line(given)
            played = board.copy()
            for move in line:
                played.push(move.move.move)
            assert played.is_checkmate() and len(line) == tb.probe_dtm(board)
            assert kqk.report(given)["best"] == kqk.report(fen)["best"]
            assert kqk.play(given).ended
        assert board.fen() == fen  # the caller's board is not changed
        with pytest.raises(PositionError):
            kqk.moves(chess.Board("8/8/8/8/8/2k5/8/K2R4 w - - 0 1"))  # KRvK is not this ending
        try:
            tb.probe("chess", chess.Board("8/8/8/8/8/2k5/8/K2R4 w - - 0 1"))  # KRvK not built
        except KeyError as error:  # as chess.syzygy.MissingTableError is caught
            assert isinstance(error, NotBuiltError) and "not built" in str(error) and not str(error).startswith("'")
        else:
            raise AssertionError("no KeyError")


def test_a_position_without_mating_material_lists_its_moves_each_a_draw(db):
    """KvK has ended (no mate is possible), yet its kings move, as lichess lists: every
    legal move python-chess knows, each a draw at remoteness 0."""
    with tablebase.open(db) as tb:
        for fen in ("8/8/8/8/8/2k5/8/K7 w - - 0 1", "8/8/8/8/8/8/2k5/7K b - - 0 1"):
            board = chess.Board(fen)
            report = tb.tablebase("chess").report(board)
            assert {move["uci"] for move in report["moves"]} == {move.uci() for move in board.legal_moves} != set()
            assert {(move["outcome"], move["remoteness"]) for move in report["moves"]} == {("draw", 0)}
            assert report["best"] and report["insufficient_material"]


def test_a_line_numbers_chess_moves_as_chess_does_and_other_games_plies(db):
    """From a position with black to move at move 1: "1... Kc4", "2. Qd6", "2... ";
    tic-tac-toe's plies are numbered 1, 2, 3."""
    fen = "8/8/8/8/8/2k5/8/K2Q4 b - - 0 1"
    shown = CliRunner().invoke(app, ["line", "chess", fen, "--db", str(db)]).stdout.splitlines()[1:]
    board = chess.Board(fen)
    for text in shown:
        number, san = text.split()[:2]
        assert number == (f"{board.fullmove_number}." if board.turn else f"{board.fullmove_number}...")
        board.push_san(san)
    assert board.is_checkmate() and len(shown) == -tb_dtm(db, fen)
    plies = CliRunner().invoke(app, ["line", "tictactoe", "start", "--db", str(db)]).stdout.splitlines()[1:]
    assert [text.split()[0] for text in plies] == [f"{ply}." for ply in range(1, len(plies) + 1)] and len(plies) == 9


def tb_dtm(db: Path, fen: str) -> int:
    with tablebase.open(db) as tb:
        return tb.probe_dtm(chess.Board(fen))


def test_open_of_no_database_raises(tmp_path):
    with pytest.raises(StoreError):
        tablebase.open(tmp_path / "none.sqlite")
    assert not (tmp_path / "none.sqlite").exists()


def _boards(material: str, count: int, seed: int) -> list[chess.Board]:
    """Random valid boards of a material, either side holding either half of it."""
    import random

    rng = random.Random(seed)
    sides = material.split("v")
    found = []
    while len(found) < count:
        board = chess.Board(None)
        white, black = sides if rng.random() < 0.5 else sides[::-1]
        pieces = [letter for letter in white] + [letter.lower() for letter in black]
        for symbol, square in zip(pieces, rng.sample(range(64), len(pieces))):
            board.set_piece_at(square, chess.Piece.from_symbol(symbol))
        board.turn = rng.random() < 0.5
        if board.is_valid():
            found.append(board)
    return found


def test_many_boards_at_once_agree_with_one_at_a_time_and_with_the_fen_path(db):
    """``probe_*_many`` read each board's key from its bitboards, as single probes do;
    both agree with the value of the board's FEN (parsed, then canonicalized by
    python-chess's transforms)."""
    boards = _boards("KQvK", 300, seed=4)
    with tablebase.open(db) as tb:
        by_fen = [tb.probe("chess", board.fen()) for board in boards]
        wdl, dtm, dtz = tb.probe_wdl_many(boards), tb.probe_dtm_many(boards), tb.probe_dtz_many(boards)
        assert wdl.tolist() == [tb.probe_wdl(board) for board in boards] == [v.category for v in by_fen]
        assert dtm.tolist() == [tb.probe_dtm(board) for board in boards] == [int(v.outcome) * (v.remoteness or 0) for v in by_fen]
        assert dtz.tolist() == [tb.probe_dtz(board) for board in boards] == [v.dtz for v in by_fen]
        assert {-2, 0, 2} <= set(wdl.tolist())
        with pytest.raises(NotBuiltError):
            tb.probe_wdl_many([*boards, chess.Board("8/8/8/8/8/2k5/8/K2R4 w - - 0 1")])  # KRvK not built


def test_an_array_of_keys_is_probed_at_once(db):
    """``probe_keys`` gives every stored key's value and finds no other key."""
    with tablebase.open(db) as tb:
        game = tb.tablebase("chess", material="KQvK").game
        row = tb.tablebase("chess", material="KQvK").row(game)
        keys, outcome, remoteness = tb.store.read_values(row)
        dtz = tb.store.read_extra(row)[1]
        absent = np.setdiff1d(np.arange(game.size + 10), keys)
        mixed = np.concatenate([keys, absent])[::-1]
        found = tb.probe_keys("chess", mixed, material="KQvK")
        assert found.found.tolist() == [False] * len(absent) + [True] * len(keys)  # reversed
        order = np.argsort(mixed[found.found])
        np.testing.assert_array_equal(mixed[found.found][order], keys)
        for got, wanted in zip((found.outcome, found.remoteness, found.extra), (outcome, remoteness, dtz)):
            np.testing.assert_array_equal(got[found.found][order], wanted)
        assert (found.outcome[~found.found] == 0).all() and (found.remoteness[~found.found] == -1).all()


def test_an_ending_s_first_probe_reads_no_catalog_row_and_a_later_build_is_found(tmp_path, monkeypatch):
    """The first catalog lookup of a game reads every complete tablebase of it at once
    (``Tablebase.row``), so another ending's first probe asks the catalog nothing; a
    tablebase built after that is still found, by a lookup of its own (the rows read are
    kept for the whole test, however slow the machine: ``CATALOG_SECONDS``)."""
    monkeypatch.setattr(catalog, "CATALOG_SECONDS", 3600.0)
    path = str(tmp_path / "chess.sqlite")
    for material in ("KQvK", "KRvK"):
        assert CliRunner().invoke(app, ["build", "chess", "-p", f"material={material}", "--db", path]).exit_code == 0
    with tablebase.open(path) as tb:
        assert tb.probe_wdl(chess.Board("8/8/8/4k3/8/8/2K5/1Q6 w - - 0 1")) == 2
        asked = []
        real = tb.store.require
        monkeypatch.setattr(tb.store, "require", lambda *args, **kwargs: asked.append(args[0]) or real(*args, **kwargs))
        assert tb.probe_wdl(chess.Board("8/8/8/4k3/8/8/2K5/1R6 w - - 0 1")) == 2
        assert asked == []
        assert CliRunner().invoke(app, ["build", "chess", "-p", "material=KBvK", "--db", path]).exit_code == 0
        assert tb.probe_wdl(chess.Board("8/8/8/4k3/8/8/2K5/1B6 w - - 0 1")) == 0
        assert asked == ["chess"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 63), st.sampled_from("KQRBNPkqrbnp")), min_size=1, max_size=5), st.booleans())
def test_the_quick_legality_check_passes_only_boards_python_chess_calls_legal(pieces, white):
    """``plainly_legal``, the fast path of a probe's legality check, never passes a board
    that python-chess's ``status()`` finds illegal (checks no move can give aside, as the
    tablebase accepts them); it may leave a legal one to ``status()``."""
    board = chess.Board(None)
    for square, symbol in pieces:
        board.set_piece_at(square, chess.Piece.from_symbol(symbol))
    board.turn = white
    if plainly_legal(board):
        assert not int(board.status()) & ~UNREACHABLE_CHECKS
    if not int(board.status()) and board.ep_square is None:
        assert plainly_legal(board)


def test_a_reader_answers_after_another_process_rebuilds_the_tablebase(tmp_path, monkeypatch):
    """A reader keeps the catalog rows it read for a moment (``Store.complete_rows``; here
    for the whole test, however slow the machine); a rebuild by another process meanwhile
    drops the tables those rows name, and the reader's next probe reads the catalog again
    instead of failing. Its own rebuilds it sees at once."""
    monkeypatch.setattr(catalog, "CATALOG_SECONDS", 3600.0)
    path = str(tmp_path / "chess.sqlite")
    build = ["build", "chess", "-p", "material=KQvK", "--db", path]
    assert CliRunner().invoke(app, build).exit_code == 0
    board = chess.Board("8/8/8/4k3/8/8/2K5/1Q6 w - - 0 1")
    with tablebase.open(path) as tb:
        reader = tb.tablebase("chess")
        first = reader.row(reader.game.table_of(reader.parse(board.fen())))
        assert CliRunner().invoke(app, [*build, "--force"]).exit_code == 0  # another store: another process's view
        assert reader.row(reader.game.table_of(reader.parse(board.fen()))).id == first.id  # still the rows read before
        answered = tb.probe_dtm(board)
        assert reader.row(reader.game.table_of(reader.parse(board.fen()))).id != first.id
    with tablebase.open(path) as fresh:
        assert answered == fresh.probe_dtm(board) > 0
