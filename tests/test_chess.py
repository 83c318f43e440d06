"""Chess through the ``tablebase`` command, without the oracle files: published longest
mates, the facts of a position (checkmate, stalemate, insufficient material), the FEN's
clocks, a material that contradicts the FEN, collections (``all3``, ``all4``) and the
build plan.

One KQvKR tablebase (with KvK, KQvK and KRvK; about 25 s, the price of the published
KQvKR mate in 35) and one of ``all3`` (a few seconds) are built once for the module.
"""

from __future__ import annotations

import csv
import io
import json
import re
import threading
from collections import Counter
from pathlib import Path

import chess
import numpy as np
import pytest

from tablebase.build import timing
from tablebase.core.values import Outcome
from tablebase.generators.chess.game import table
from tablebase.generators.chess.layout import Layout
from tablebase.read.stored import stored_tables
from tablebase.solve.exits import ReadOnce
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tests.test_cli import assert_error, ok, run

ALL3 = ["KvK", "KQvK", "KRvK", "KBvK", "KNvK", "KPvK"]


@pytest.fixture(scope="module")
def kqkr(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("kqkr") / "tb.sqlite"
    ok("build", "chess", "-p", "material=KQvKR", "--db", db)
    return db


@pytest.fixture(scope="module")
def all3(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("all3") / "tb.sqlite"
    ok("build", "chess", "--db", db)
    return db


def materials(rows: list[dict]) -> list[str]:
    return [row["params"]["material"] for row in rows]


# --------------------------------------------------------------------------- values


@pytest.mark.parametrize(("material", "mate_in"), [("KQvK", 10), ("KRvK", 16), ("KQvKR", 35)])
def test_published_longest_mates(kqkr, material, mate_in):
    """The longest wins: KQvK mate in 10, KRvK in 16 (Ströhlein 1970), KQvKR in 35
    (Thompson 1986), in moves of the winning side."""
    game = load_game("chess", {"material": material})
    with open_store(kqkr, create=False) as store:
        _keys, outcome, remoteness = store.read_values(store.find(game.name, game.identity(), game.version))
    assert remoteness[outcome == Outcome.WIN].max() == 2 * mate_in - 1


@pytest.mark.parametrize(
    ("fen", "outcome", "facts"),
    [
        ("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1", "draw", {"stalemate"}),
        ("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", "loss", {"checkmate"}),
        ("8/8/8/4k3/8/8/8/4K3 w - - 0 1", "draw", {"insufficient_material"}),
        ("8/8/8/4k3/8/8/Q7/4K3 w - - 0 1", "win", set()),
    ],
    ids=["stalemate", "checkmate", "KvK", "KQvK"],
)
def test_query_tells_checkmate_stalemate_and_insufficient_material(kqkr, fen, outcome, facts):
    report = json.loads(ok("query", "chess", fen, "--db", kqkr, "--json").stdout)
    assert report["outcome"] == outcome
    for fact in ("checkmate", "stalemate", "insufficient_material"):
        assert report[fact] is (fact in facts), fact
    said = ok("query", "chess", fen, "--db", kqkr).stdout.splitlines()[0]
    assert said.startswith(f"{fen}: {outcome}")
    for fact in ("checkmate", "stalemate", "insufficient material"):
        assert (fact in said) is (fact.replace(" ", "_") in facts), said


def test_the_printed_fen_keeps_its_clocks_and_moves_advance_them(kqkr):
    """A capture resets the half-move clock, another move adds one; black's move
    advances the move number."""
    fen = "8/8/8/8/8/k7/8/K2Qr3 b - - 7 42"
    report = json.loads(ok("query", "chess", fen, "--db", kqkr, "--json").stdout)
    assert report["position"] == fen
    assert {m["move"].rstrip("+#") for m in report["moves"]} >= {"Rxd1", "Kb4", "Re2"}
    for move in report["moves"]:
        clocks = move["position"].split()[-2:]
        assert clocks == (["0", "43"] if "x" in move["move"] else ["8", "43"]), move
    said = ok("query", "chess", fen, "--db", kqkr).stdout.splitlines()
    assert said[0].startswith(f"{fen}: ")
    line = ok("line", "chess", "8/8/8/8/8/2k5/8/K2Q4 b - - 3 10", "--max-plies", "2", "--db", kqkr).stdout
    after = [text.split("->")[1].split()[-2:] for text in line.splitlines()[1:] if "->" in text]
    assert after == [["4", "11"], ["5", "11"]]


def test_a_material_that_contradicts_the_fen_is_a_usage_error(kqkr):
    fen = "8/8/8/4k3/8/8/Q7/4K3 w - - 0 1"
    error = assert_error(run("query", "chess", fen, "-p", "material=KRvK", "--db", kqkr), 2)
    assert "KQvK" in error and "KRvK" in error
    assert json.loads(ok("query", "chess", fen, "-p", "material=kqvk", "--db", kqkr, "--json").stdout)["outcome"] == "win"


# --------------------------------------------------------------------------- collections


def test_a_collection_is_built_as_its_endings_and_stores_no_tablebase_of_its_own(all3):
    rows = json.loads(ok("info", "--db", all3, "--json").stdout)
    assert sorted(materials(rows)) == sorted(ALL3)
    assert all(row["positions"] > 0 for row in rows)
    assert materials(json.loads(ok("info", "chess", "-p", "material=all3", "--db", all3, "--json").stdout)) == ALL3
    again = ok("build", "chess", "--db", all3).stdout
    assert "plan: 0 to build, 6 to reuse" in again and "(use --force to rebuild)" in again


def test_verify_of_a_collection_verifies_each_ending(all3):
    lines = ok("verify", "chess", "-p", "material=all3", "--db", all3).stdout.splitlines()
    assert [line.split(" material=")[1].split()[0] for line in lines] == ALL3
    assert all(line.startswith("ok: ") and " 0 stored" not in line for line in lines)


def test_export_of_a_collection_writes_each_ending(all3):
    text = ok("export", "chess", "--no-positions", "--db", all3).stdout
    assert text.splitlines()[0] == "tablebase,key,outcome,remoteness,dtz"
    rows = list(csv.DictReader(io.StringIO(text)))
    counts = {row["params"]["material"]: row["positions"] for row in json.loads(ok("info", "--db", all3, "--json").stdout)}
    assert Counter(row["tablebase"] for row in rows) == {f"chess material={m} metric=both": counts[m] for m in ALL3}
    assert {row["outcome"] for row in rows if row["tablebase"] == "chess material=KvK metric=both"} == {"draw"}


def king_pairs(pawns: bool) -> list[tuple[int, int]]:
    """The king pairs as :mod:`tablebase.generators.chess.layout` defines them, in plain
    loops: two kings not side by side, the white king in its region (the a1-d1-d4 triangle
    with the black king on or below the diagonal when the white king is on it, or files a
    to d with pawns), ordered by ``wk * 64 + bk``."""
    pairs = []
    for wk in range(64):
        file, rank = wk % 8, wk // 8
        if file > 3 or (not pawns and (rank > file or rank > 3)):
            continue
        for bk in range(64):
            if max(abs(file - bk % 8), abs(rank - bk // 8)) > 1 and (pawns or file != rank or bk % 8 >= bk // 8):
                pairs.append((wk, bk))
    return pairs


def test_king_pairs_are_syzygys_462_without_pawns():
    assert len(king_pairs(pawns=False)) == 462  # Syzygy's and Gaviota's count of legal king pairs
    assert table("KQvKR").layout.king_pairs.tolist() == [list(p) for p in king_pairs(pawns=False)]
    assert table("KPvK").layout.king_pairs.tolist() == [list(p) for p in king_pairs(pawns=True)]


def fen_of_key(layout: Layout, key: int) -> str:
    """python-chess's FEN of a key's position, the key read by the formula of
    :mod:`tablebase.generators.chess.layout` (no en passant bit)."""
    rest, stm = divmod(key, 2)
    rest, pair = divmod(rest, len(layout.king_pairs))
    squares = list(king_pairs("P" in layout.types)[pair])
    for _slot in range(2, layout.count):
        rest, square = divmod(rest, 64)
        squares.append(square)
    assert rest == 0
    board = chess.Board(None)
    for square, letter, colour in zip(squares, layout.types, layout.colours.tolist()):
        board.set_piece_at(square, chess.Piece.from_symbol(letter if colour == 0 else letter.lower()))
    board.turn = stm == 0
    return board.fen()


def test_export_writes_the_fen_of_every_stored_position(all3, tmp_path, monkeypatch):
    """Every row of KRvK's CSV holds python-chess's FEN of its key's position, and the
    file is what the standard library's csv.writer writes of its rows. The FENs are
    compiled, not written a position at a time (which made a KQvKR export take 2 min 40 s)."""
    monkeypatch.setattr(type(table("KRvK")), "format", lambda self, position: pytest.fail("a FEN written one by one"))
    target = tmp_path / "krk.csv"
    ok("export", "chess", "-p", "material=KRvK", "--db", all3, "-o", target)
    data = target.read_bytes()
    rows = list(csv.reader(io.StringIO(data.decode())))
    assert rows[0] == ["key", "position", "outcome", "remoteness", "dtz"]
    layout = table("KRvK").layout
    assert [row[1] for row in rows[1:]] == [fen_of_key(layout, int(row[0])) for row in rows[1:]]
    assert len(rows) - 1 == 50_015  # every legal position, up to symmetry
    text = io.StringIO(newline="")
    csv.writer(text).writerows(rows)
    assert text.getvalue().encode() == data


def test_a_collection_missing_an_ending_is_not_built(all3, tmp_path):
    error = assert_error(run("verify", "chess", "-p", "material=all4", "--db", all3), 1)
    assert "not built" in error
    error = assert_error(run("export", "chess", "-p", "material=all4", "-o", tmp_path / "x.csv", "--db", all3), 1)
    assert "not built" in error and not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize(("material", "endings"), [("all3", 6), ("all4", 36)])
def test_check_of_a_collection_checks_each_ending(material, endings):
    lines = ok("check", "chess", "-p", f"material={material}", "--positions", "4").stdout.splitlines()
    assert len(lines) == endings
    assert all(line.startswith("ok: chess material=K") and line.endswith(", 4 positions checked") for line in lines)


def test_check_of_chess_defaults_to_all3():
    assert len(ok("check", "chess", "--positions", "4").stdout.splitlines()) == 6


# --------------------------------------------------------------------------- the plan


def test_dry_run_prints_the_plan_and_builds_nothing(tmp_path):
    db = tmp_path / "tb.sqlite"
    out = ok("build", "chess", "-p", "material=KPvKP", "--dry-run", "--db", db).stdout.splitlines()
    assert out[0] == "plan: 21 to build, 0 to reuse"  # promotions reach 14 endings of 4 pieces, captures 6 of 3
    planned = [line.split()[:4] for line in out[1:-2]]
    assert [action for action, _game, _material, _metric in planned] == ["build"] * 21
    assert all(re.search(r"\(about [\d.]+ [KMG]iB, [\d.]+ s\)$", line) for line in out[1:-2])  # each build's estimate
    assert re.fullmatch(r"in all: peak about [\d.]+ [KMG]iB, about [\d.]+ (s|min)", out[-2])
    assert out[-1].startswith(f"assuming: {timing.STARTUP_SECONDS:g} s to start, chess at the reference machine's pace")
    names = [material.split("=")[1] for _action, _game, material, _metric in planned]
    assert names[0] == "KvK" and names[-1] == "KPvKP" and {"KQvKP", "KQvKQ", "KPvK"} <= set(names)
    assert not db.exists()  # a dry run into a new database leaves no file behind


def test_the_plan_names_what_is_reused_before_the_build(all3):
    out = ok("build", "chess", "-p", "material=KRvKP", "--dry-run", "--db", all3).stdout.splitlines()
    assert out[-2].startswith("in all: peak about ")
    planned = [(action, material.split("=")[1]) for action, _game, material, _metric, *_ in (line.split() for line in out[1:-2])]
    assert out[0] == f"plan: {len(planned) - 6} to build, 6 to reuse"
    assert sorted(m for action, m in planned if action == "reuse") == sorted(ALL3)
    assert planned[-1] == ("build", "KRvKP")
    order = [m for _action, m in planned]
    for name in order:  # each ending after the endings its captures and promotions lead into
        for dependency in load_game("chess", {"material": name}).dependencies():
            assert order.index(dependency.material) < order.index(name)
    forced = ok("build", "chess", "-p", "material=KQvK", "--force", "--dry-run", "--db", all3).stdout.splitlines()
    assert forced[:2] == ["plan: 1 to build, 1 to reuse", "  reuse   chess material=KvK metric=both"]
    assert forced[2].startswith("  rebuild chess material=KQvK metric=both  (about ")


def test_info_writes_numbers_one_way_and_says_what_its_longest_values_are(tmp_path):
    """Counts with thousands separators, as the categories are written; the longest DTZ
    and DTM named as those of a win, and max remoteness, when longer, named as the longest
    DTM of a loss (issue 23.8; KRPvK's longest loss, 56 plies, starts with a capture into
    KPvK, its longest win is 31)."""
    db = str(tmp_path / "tb.sqlite")
    ok("build", "chess", "-p", "material=KQvK", "--db", db)
    shown = ok("info", "chess", "-p", "material=KQvK", "--db", db).stdout
    assert "46,137 positions (18,081 wins, 2,896 draws, 25,160 losses), max remoteness 20" in shown
    assert "longest DTM of a win: 19 plies" in shown and "longest DTZ of a win: 19 plies" in shown
    assert "longest DTM of a loss: 20 plies (the max remoteness)" in shown


def test_a_childs_fen_is_python_chess_board_fen():
    """The board part of a position's FEN, written from the occupied squares alone, is
    python-chess's ``board_fen`` on random boards of 2 to 32 pieces (empty ranks, pieces
    at both edges, runs of empty squares)."""
    import random

    import chess

    from tablebase.generators.chess.positions import board_fen

    rng = random.Random(7)
    for _ in range(3000):
        board = chess.Board(None)
        for square in rng.sample(range(64), rng.randrange(2, 33)):
            board.set_piece_at(square, chess.Piece(rng.randrange(1, 7), rng.random() < 0.5))
        assert board_fen(board) == board.board_fen()


def test_a_positions_fen_is_python_chess_fen():
    """``Chess.format`` writes the FEN from the position's own fields: python-chess's
    ``fen()`` of the same board, clocks and en passant square (shown where a capture is
    legal) included, on random legal positions, half of them just after a double push
    beside an enemy pawn."""
    import random

    import chess

    from tablebase.solve.registry import load_game

    game = load_game("chess", {"material": "all5"})
    rng = random.Random(11)
    checked = with_en_passant = 0
    while checked < 400:
        board = chess.Board(None)
        board.turn = rng.random() < 0.5
        if rng.random() < 0.5:  # the side not to move has just pushed a pawn two squares
            file = rng.randrange(8)
            pushed = chess.square(file, 4 if board.turn else 3)
            beside = chess.square(min(max(file + rng.choice((-1, 1)), 0), 7), chess.square_rank(pushed))
            board.set_piece_at(pushed, chess.Piece(chess.PAWN, not board.turn))
            board.set_piece_at(beside, chess.Piece(chess.PAWN, board.turn))
            board.ep_square = pushed + (8 if board.turn else -8)
        free = [square for square in range(8, 56) if board.piece_at(square) is None]
        for square, symbol in zip(rng.sample(free, 5 - len(board.piece_map())), "KkRPp"):
            board.set_piece_at(square, chess.Piece.from_symbol(symbol))
        board.halfmove_clock, board.fullmove_number = rng.randrange(50), rng.randrange(1, 90)
        if not board.is_valid():
            continue
        assert game.format(game.parse(board.fen())) == board.fen()
        with_en_passant += board.has_legal_en_passant()
        checked += 1
    assert with_en_passant >= 50


def test_dependencies_read_at_once_in_threads_equal_those_read_one_by_one(all3):
    game = load_game("chess", {"material": "KPvK"})
    readers: list[str] = []
    with open_store(all3, create=False) as store:
        read = stored_tables(store)

        def counted(dependency, **options):
            readers.append(threading.current_thread().name)
            return read(dependency, **options)

        at_once, one_by_one = ReadOnce(game, counted), ReadOnce(game, read)
        at_once.read_all()
        for dependency in game.dependencies():
            mine, theirs = at_once(dependency), one_by_one(dependency)
            for name in ("numbers", "keys", "outcome", "remoteness", "dtz"):
                if hasattr(theirs, name):
                    np.testing.assert_array_equal(getattr(mine, name), getattr(theirs, name))
    assert len(readers) == len(game.dependencies()) == 5  # each once, none again when asked
    assert all(name.startswith("read") for name in readers)
