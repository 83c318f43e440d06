"""``/atomic`` and ``/antichess`` against the Syzygy generator's own tables, as
lila-tablebase answers them: it probes the generator's files (shakmaty-syzygy), here
python-chess probes the same files (``chess.syzygy.open_tablebase(path,
VariantBoard=...)``) for the category and DTZ of each position and of each move's
successor.

``tests/data/variants/syzygy`` holds a few small tables the generator's variant programs
made (``atbgen``, ``gtbgen`` of syzygy1/tb master): atomic KQvK, KRvK, KBvK, KNvK and KRvKN,
antichess KvK, RvN, NvN and BvN.
"""

from __future__ import annotations

import random
from pathlib import Path
from urllib.parse import urlencode

import chess
import chess.syzygy
import chess.variant
import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")
from starlette.testclient import TestClient  # noqa: E402

from tablebase.build.builder import build  # noqa: E402
from tablebase.core.values import CATEGORIES  # noqa: E402
from tablebase.faces.web.app import create_app  # noqa: E402
from tablebase.solve.registry import load_game  # noqa: E402
from tablebase.store import open_store  # noqa: E402

TABLES = Path(__file__).parent / "data" / "variants" / "syzygy"
ENDINGS = {"atomic": ["KQvK", "KRvK", "KBvK", "KNvK", "KRvKN"], "antichess": ["KvK", "RvN", "NvN", "BvN"]}
BOARDS = {"atomic": chess.variant.AtomicBoard, "antichess": chess.variant.AntichessBoard}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    with open_store(tmp_path_factory.getbasetemp() / "variants.sqlite") as store:
        for variant, endings in ENDINGS.items():
            for material in endings:
                build(load_game(variant, {"material": material}), store)
        with TestClient(create_app(store)) as served:
            yield served


def _random_board(variant: str, material: str, rng: random.Random) -> chess.Board:
    """A random valid position of an ending (either colour may hold the first side)."""
    first, second = material.split("v")
    flip = rng.random() < 0.5
    while True:
        board = BOARDS[variant](None)
        for colour, side in ((chess.WHITE, first), (chess.BLACK, second)):
            for letter in side:
                square = rng.choice([s for s in chess.SQUARES if board.piece_at(s) is None])
                board.set_piece_at(square, chess.Piece.from_symbol(letter if (colour == chess.WHITE) != flip else letter.lower()))
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        other = board.copy()
        other.turn = not other.turn
        if board.is_valid() and not other.is_check() and not board.is_variant_end():
            return board


def _expected_category(syzygy: chess.syzygy.Tablebase, board: chess.Board) -> str:
    """The lichess category of a board for its side to move: the game's result where it
    has ended, else the generator's WDL."""
    if board.is_variant_win():
        return "win"
    if board.is_variant_loss() or board.is_checkmate():
        return "loss"
    if board.is_stalemate() or (isinstance(board, chess.variant.AtomicBoard) and len(board.piece_map()) == 2):
        return "draw"  # stalemate, or atomic KvK, which has no table of the generator's
    return CATEGORIES[syzygy.probe_wdl(board)]


@pytest.mark.parametrize("variant", list(ENDINGS))
def test_variant_routes_answer_as_the_generator_s_tables(client, variant):
    with chess.syzygy.open_tablebase(str(TABLES), VariantBoard=BOARDS[variant]) as syzygy:
        for material in ENDINGS[variant]:
            rng = random.Random(f"{variant} {material}")
            for _ in range(20):
                board = _random_board(variant, material, rng)
                answer = client.get(f"/{variant}?" + urlencode({"fen": board.fen()}))
                assert answer.status_code == 200, answer.text
                served = answer.json()
                assert served["category"] == _expected_category(syzygy, board), board.fen()
                assert served["precise_dtz"] == served["dtz"]
                wdl = syzygy.probe_wdl(board)
                if wdl:
                    expected = syzygy.probe_dtz(board)
                    assert served["dtz"] == expected or abs(served["dtz"] - expected) == 1, (board.fen(), served["dtz"], expected)
                assert sorted(m["uci"] for m in served["moves"]) == sorted(m.uci() for m in board.legal_moves)
                for move in served["moves"]:
                    played = chess.Move.from_uci(move["uci"])
                    assert (move["san"], move["zeroing"]) == (board.san(played), board.is_zeroing(played)), move
                    board.push(played)
                    assert move["category"] == _expected_category(syzygy, board), (board.fen(), move)
                    assert (move["variant_win"], move["variant_loss"]) == (board.is_variant_win(), board.is_variant_loss()), move
                    assert (move["checkmate"], move["stalemate"]) == (board.is_checkmate(), board.is_stalemate()), move
                    board.pop()
                order = ["loss", "blessed-loss", "draw", "cursed-win", "win"]
                ranks = [order.index(m["category"]) for m in served["moves"]]
                assert ranks == sorted(ranks), board.fen()


def test_the_mainline_plays_to_the_end_of_the_game(client):
    """Atomic KQvK: the line reaches an exploded king or a mate, lost for black."""
    fen = "8/8/8/3k4/8/8/8/KQ6 w - - 0 1"
    served = client.get("/atomic/mainline?" + urlencode({"fen": fen})).json()
    board = chess.variant.AtomicBoard(fen)
    for move in served["mainline"]:
        board.push_uci(move["uci"])
    assert board.is_game_over() and served["winner"] == "w"
    assert len(served["mainline"]) == client.get("/atomic?" + urlencode({"fen": fen})).json()["dtm"]
