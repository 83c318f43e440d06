"""Chess tablebases against real Syzygy (WDL) and Gaviota (DTM) tables, probed with python-chess.

The oracle directory is ``$TABLEBASE_ORACLE``, by default ``../shared/oracle`` beside the
repository; without it these tests skip. Every 3-piece position is checked (one per
symmetry class, both sides to move, plus a sample of raw placements for the symmetry
maps). 4-piece endings are checked on ``$TABLEBASE_ORACLE_SAMPLE`` random legal positions
each (default 300); the full check is ``TABLEBASE_ORACLE_SAMPLE=20000
TABLEBASE_ORACLE_ENDINGS=all`` (see :func:`four_piece_endings`). The 4-piece tablebases
are built into ``$TABLEBASE_ORACLE_DB`` when it is set, and reused from there by later
runs; else into a temporary database.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import chess
import chess.gaviota
import chess.syzygy
import pytest

from tablebase.build import build
from tablebase.game import Outcome, load_game
from tablebase.query import Tablebase
from tablebase.store import open_store

ORACLE = Path(os.environ.get("TABLEBASE_ORACLE", Path(__file__).resolve().parents[2] / "shared" / "oracle"))
SAMPLE = int(os.environ.get("TABLEBASE_ORACLE_SAMPLE", "300"))
DATABASE = os.environ.get("TABLEBASE_ORACLE_DB")
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
    keys, outcome, remoteness = store.read_values(store.find(game.name, game.identity()))
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


@pytest.mark.parametrize(("material", "mate_in"), [("KQvK", 10), ("KRvK", 16)])
def test_published_longest_mates(store, material, mate_in):
    game = load_game("chess", {"material": material})
    _keys, outcome, remoteness = store.read_values(store.find(game.name, game.identity()))
    assert remoteness[outcome == Outcome.WIN].max() == 2 * mate_in - 1


@pytest.mark.parametrize("material", four_piece_endings())
def test_four_piece_wdl_matches_syzygy_on_random_positions(tmp_path_factory, oracles, material):
    syzygy, _gaviota = oracles
    game = load_game("chess", {"material": material})
    with open_store(DATABASE or tmp_path_factory.getbasetemp() / "chess4.sqlite") as store:
        build(game, store)
        tablebase = Tablebase(game, store)
        rng = random.Random(material)
        wrong = []
        for _ in range(SAMPLE):
            board = random_board(material, rng)
            value = tablebase.probe(tablebase.parse(board.fen()))
            if value.outcome != sign(syzygy.probe_wdl(board)):
                wrong.append((board.fen(), value, syzygy.probe_wdl(board)))
        assert wrong[:5] == [], f"{len(wrong)} of {SAMPLE} positions differ"
        if material == "KQvKR":
            row = store.find(game.name, game.identity())
            keys, outcome, remoteness = store.read_values(row)
            assert remoteness[outcome == Outcome.WIN].max() == 2 * 35 - 1  # mate in 35
