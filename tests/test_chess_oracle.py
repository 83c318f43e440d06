"""Chess tablebases against real Syzygy (WDL, DTZ) and Gaviota (DTM) tables, probed with python-chess.

The oracle directory is ``$TABLEBASE_ORACLE``, by default ``../shared/oracle`` beside the
repository; without it these tests skip. Every 3-piece position is checked (one per
symmetry class, both sides to move, plus a sample of raw placements for the symmetry
maps). 4-piece endings are checked on ``$TABLEBASE_ORACLE_SAMPLE`` random legal positions
each (default 300), or on every stored position with ``all``; the full check is
``TABLEBASE_ORACLE_SAMPLE=all TABLEBASE_ORACLE_ENDINGS=all`` (see :func:`four_piece_endings`). The 4-piece tablebases
are built into ``$TABLEBASE_ORACLE_DB`` when it is set, and reused from there by later
runs; else into a temporary database. The published longest mates, which need no oracle
files, are in ``tests/test_chess.py``.

Syzygy's category and DTZ (under the 50-move rule) are compared on
``$TABLEBASE_DTZ_SAMPLE`` positions of each 3-piece ending (default 300; ``all`` checks
every one) and on the 4-piece sample, as python-chess's ``probe_wdl`` and ``probe_dtz``
give them, except that python-chess answers DTZ -1 for a checkmated side to move where
we, and lichess, answer 0 (:func:`syzygy_category_and_dtz`). The command that checks
every position of every 3- and 4-piece ending is in README.md.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.gaviota
import chess.syzygy
import pytest
from typer.testing import CliRunner

from tablebase.build.builder import build
from tablebase.core.values import CATEGORIES, Outcome
from tablebase.faces.cli import app as cli
from tablebase.read.query import Tablebase
from tablebase.solve.registry import load_game
from tablebase.store import open_store

ORACLE = Path(os.environ.get("TABLEBASE_ORACLE", Path(__file__).resolve().parents[2] / "shared" / "oracle"))
SAMPLE = os.environ.get("TABLEBASE_ORACLE_SAMPLE", "300")
DATABASE = os.environ.get("TABLEBASE_ORACLE_DB")
DTZ_SAMPLE = os.environ.get("TABLEBASE_DTZ_SAMPLE", "300")
THREE_PIECE = ["KQvK", "KRvK", "KPvK", "KBvK", "KNvK"]

pytestmark = pytest.mark.skipif(
    not (ORACLE / "syzygy").is_dir(), reason=f"no oracle tablebases at {ORACLE} (set $TABLEBASE_ORACLE)"
)


def four_piece_endings() -> list[str]:
    """The 4-piece endings to check, named by the Syzygy files themselves.

    By default the pawnless ones and KRvKP, which build in minutes; ``all`` in
    ``$TABLEBASE_ORACLE_ENDINGS`` checks every one (building all of them takes longer),
    and a comma-separated list checks those.
    """
    names = {path.stem for path in (ORACLE / "syzygy").glob("*.rtbw")} if ORACLE.is_dir() else set()
    every = sorted(name for name in names if len(name) - 1 == 4)
    chosen = os.environ.get("TABLEBASE_ORACLE_ENDINGS", "")
    if chosen == "all":
        return every
    if chosen:
        return chosen.split(",")
    return [name for name in every if "P" not in name or name == "KRvKP"]


@pytest.fixture(scope="module")
def oracles():
    with chess.syzygy.open_tablebase(str(ORACLE / "syzygy")) as syzygy, chess.gaviota.open_tablebase(
        str(ORACLE / "gaviota")
    ) as gaviota:
        yield syzygy, gaviota


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("chess") / "chess.sqlite") as store:
        build(load_game("chess", {"material": "all3"}), store)
        yield store


def sign(value: int) -> int:
    return (value > 0) - (value < 0)


def syzygy_category_and_dtz(syzygy: chess.syzygy.Tablebase, board: chess.Board) -> tuple[int, int]:
    """The oracle's category (WDL, -2..2) and DTZ in python-chess's convention, with 0
    (not python-chess's -1) for a checkmated side to move."""
    if board.is_checkmate():
        return -2, 0
    return syzygy.probe_wdl(board), syzygy.probe_dtz(board)


def dtz_in_plies(syzygy: chess.syzygy.Tablebase, board: chess.Board, wdl: int) -> bool:
    """Whether python-chess reads this position's DTZ from a file that stores plies.

    Syzygy's generator stores DTZ in moves where the 50-move rule cannot be at stake
    (its flags, read as python-chess's ``_probe_dtz_table`` reads them), and
    ``probe_dtz`` doubles such a value back, one ply off at times: e.g. KBBvK
    ``1B3K2/8/8/8/8/8/8/2k2B2 w - - 0 1`` is a win in DTZ 29, which python-chess gives as 28.
    Where the side to move's table is missing, python-chess searches a ply, over values
    that may be rounded themselves.
    """
    if wdl == 0 or board.is_checkmate():
        return True
    if syzygy.probe_dtz_table(board, wdl)[1] < 0:
        return False
    flags = syzygy.dtz[chess.syzygy.calc_key(board)].flags
    return all(f & chess.syzygy.PA_FLAGS[wdl + 2] and not wdl & 1 for f in (flags if isinstance(flags, list) else [flags]))


def dtz_agrees(syzygy: chess.syzygy.Tablebase, board: chess.Board, category: int | None, dtz: int | None) -> bool:
    """Our category and DTZ against the oracle's: the category exactly, DTZ exactly where
    the file stores plies, else within the one ply python-chess may round it by."""
    wdl, expected = syzygy_category_and_dtz(syzygy, board)
    if category != wdl or dtz is None:
        return False
    return dtz == expected or (abs(dtz - expected) == 1 and not dtz_in_plies(syzygy, board, wdl))


def random_board(material: str, rng: random.Random) -> chess.Board:
    """A random legal position of an ending (either colour may hold the stronger side)."""
    strong, weak = material.split("v")
    flip = rng.random() < 0.5
    while True:
        board = chess.Board(None)
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        squares = rng.sample(range(64), len(strong) + len(weak))
        for colour, side in ((chess.WHITE, strong), (chess.BLACK, weak)):
            for letter in side:
                piece = chess.Piece(chess.Piece.from_symbol(letter).piece_type, colour ^ flip)
                board.set_piece_at(squares.pop(), piece)
        if board.is_valid():
            return board


@pytest.mark.parametrize("material", THREE_PIECE)
def test_every_three_piece_position_matches_syzygy_wdl_and_gaviota_dtm(store, oracles, material):
    syzygy, gaviota = oracles
    game = load_game("chess", {"material": material})
    keys, outcome, remoteness = store.read_values(store.find(game.name, game.identity(), game.version))
    assert len(keys) > 0
    wrong = []
    for key, ours, plies in zip(keys.tolist(), outcome.tolist(), remoteness.tolist()):
        fen = game.format(game.decode(key))
        board = chess.Board(fen)
        wdl, dtm = syzygy.probe_wdl(board), gaviota.probe_dtm(board)
        if ours != sign(wdl) or (ours != Outcome.DRAW and plies != abs(dtm)):
            wrong.append((fen, ours, plies, wdl, dtm))
    assert wrong[:5] == [], f"{len(wrong)} of {len(keys)} positions differ"


@pytest.mark.parametrize("material", THREE_PIECE)
def test_raw_three_piece_placements_find_their_canonical_value(store, oracles, material):
    syzygy, gaviota = oracles
    tablebase = Tablebase(load_game("chess", {"material": material}), store)
    rng = random.Random(material)
    for _ in range(300):
        board = random_board(material, rng)
        value = tablebase.probe(tablebase.parse(board.fen()))
        assert value.outcome == sign(syzygy.probe_wdl(board)), board.fen()
        if value.outcome != Outcome.DRAW:
            assert value.remoteness == abs(gaviota.probe_dtm(board)), board.fen()


@pytest.mark.parametrize("material", THREE_PIECE)
def test_three_piece_category_and_dtz_match_syzygy(store, oracles, material):
    syzygy, _gaviota = oracles
    tablebase = Tablebase(load_game("chess", {"material": material}), store)
    game = tablebase.game
    keys, _outcome, _remoteness = store.read_values(tablebase.row(game))
    chosen = keys.tolist() if DTZ_SAMPLE == "all" else random.Random(material).sample(keys.tolist(), int(DTZ_SAMPLE))
    wrong = []
    for key in chosen:
        position = game.decode(key)
        value = tablebase.probe(position)
        board = chess.Board(game.format(position))
        if not dtz_agrees(syzygy, board, value.category, value.dtz):
            wrong.append((board.fen(), value.category, value.dtz, syzygy_category_and_dtz(syzygy, board)))
    assert wrong[:5] == [], f"{len(wrong)} of {len(chosen)} positions differ"

@pytest.mark.parametrize("material", four_piece_endings())
def test_four_piece_wdl_matches_syzygy_on_random_positions(tmp_path_factory, oracles, material):
    syzygy, _gaviota = oracles
    game = load_game("chess", {"material": material})
    with open_store(DATABASE or tmp_path_factory.getbasetemp() / "chess4.sqlite") as store:
        build(game, store)
        tablebase = Tablebase(game, store)
        wrong, checked = [], 0
        for board in _boards_to_check(tablebase, material):
            value = tablebase.probe(tablebase.parse(board.fen()))
            expected = syzygy_category_and_dtz(syzygy, board)
            if value.outcome != sign(expected[0]) or not dtz_agrees(syzygy, board, value.category, value.dtz):
                wrong.append((board.fen(), value, expected))
            checked += 1
        assert wrong[:5] == [], f"{len(wrong)} of {checked} positions differ"


def _boards_to_check(tablebase: Tablebase, material: str) -> Iterator[chess.Board]:
    """Every stored position (one per symmetry class) with ``$TABLEBASE_ORACLE_SAMPLE``
    ``all``, else that many random legal boards."""
    game = tablebase.game
    if SAMPLE == "all":
        keys, _outcome, _remoteness = tablebase.store.read_values(tablebase.row(game))
        for key in keys.tolist():
            yield chess.Board(game.format(game.decode(key)))
        return
    rng = random.Random(material)
    for _ in range(int(SAMPLE)):
        yield random_board(material, rng)


def cli_json(*args: str) -> dict:
    """Run ``tablebase ARGS --json`` as a user types it and read its one JSON object."""
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_query_json_gives_lichess_fields_from_the_stored_dtz(store, oracles):
    syzygy, gaviota = oracles
    fen = "8/8/8/4k3/8/8/2KP4/8 w - - 0 1"
    board = chess.Board(fen)
    answer = cli_json("query", "chess", fen, "--db", store.location)
    assert (answer["category"], answer["dtz"], answer["dtm"]) == ("win", syzygy.probe_dtz(board), gaviota.probe_dtm(board))
    for move in answer["moves"]:
        played = chess.Move.from_uci(move["uci"])
        assert move["san"] == board.san(played) and move["zeroing"] == board.is_zeroing(played)
        board.push(played)
        assert dtz_agrees(syzygy, board, {v: k for k, v in CATEGORIES.items()}[move["category"]], move["dtz"]), move
        assert move["dtm"] == gaviota.probe_dtm(board), move
        board.pop()
    assert answer["moves"][0]["category"] == "loss" and answer["moves"][-1]["category"] != "loss"


@pytest.mark.parametrize("fen", ["8/8/8/4k3/8/8/2KP4/8 w - - 0 1", "8/8/8/8/8/2k5/1p6/4K3 w - - 0 1"])
def test_dtz_line_keeps_the_win_under_the_50_move_rule_to_mate(store, oracles, fen):
    syzygy, _gaviota = oracles
    board = chess.Board(fen)
    start = cli_json("line", "chess", board.fen(), "--db", store.location, "--metric", "dtz", "--max-plies", "400")
    winner = board.turn if start["category"] == "win" else not board.turn
    quiet = 0
    for move in start["line"]:
        played = chess.Move.from_uci(move["uci"])
        if board.turn == winner:  # a zeroing move into a loss for the opponent is played first
            zeroing_wins = [m for m in board.legal_moves if board.is_zeroing(m) and _lost_after(syzygy, board, m)]
            assert not zeroing_wins or board.is_zeroing(played), (board.fen(), move["san"])
        quiet = 0 if board.is_zeroing(played) else quiet + 1
        board.push(played)
        assert quiet <= 100 and move["category"] == ("loss" if board.turn != winner else "win"), board.fen()
        if not board.is_checkmate():
            assert (syzygy.probe_wdl(board), move["dtz"]) == syzygy_category_and_dtz(syzygy, board), board.fen()
    assert board.is_checkmate() and board.turn != winner


def _lost_after(syzygy: chess.syzygy.Tablebase, board: chess.Board, move: chess.Move) -> bool:
    board.push(move)
    try:
        return board.is_checkmate() or syzygy.probe_wdl(board) == -2
    finally:
        board.pop()


def test_line_refuses_an_unknown_metric(store):
    result = CliRunner().invoke(cli, ["line", "chess", "8/8/8/4k3/8/8/2KP4/8 w - - 0 1", "--db", store.location, "--metric", "dtx"])
    assert result.exit_code == 2 and "bad metric 'dtx'" in result.output


@pytest.mark.parametrize("material", ["KQvK", "KPvK"])
def test_info_counts_categories_and_shows_the_longest_dtz_and_dtm(store, oracles, material):
    syzygy, gaviota = oracles
    game = load_game("chess", {"material": material})
    keys, _outcome, _remoteness = store.read_values(store.find(game.name, game.identity(), game.version))
    expected = dict.fromkeys(CATEGORIES.values(), 0)
    for key in keys.tolist():
        board = chess.Board(game.format(game.decode(key)))
        expected[CATEGORIES[-2 if board.is_checkmate() else syzygy.probe_wdl(board)]] += 1
    [row] = CliRunner().invoke(cli, ["info", "chess", "-p", f"material={material}", "--db", store.location, "--json"]).stdout.splitlines()
    statistics = json.loads(row)[0]["statistics"]
    assert statistics["categories"] == expected
    longest_dtz, longest_dtm = statistics["longest_dtz"], statistics["longest_dtm"]
    assert syzygy.probe_dtz(chess.Board(longest_dtz["fen"])) == longest_dtz["dtz"]
    assert gaviota.probe_dtm(chess.Board(longest_dtm["fen"])) == longest_dtm["dtm"]
    if material == "KQvK":
        assert longest_dtm["dtm"] == longest_dtz["dtz"] == 2 * 10 - 1  # mate in 10, no zeroing move on the way
