"""The compiled moves of one position (generators/chess/children.py, ``Chess.keyed_moves``)
against python-chess: every legal move's SAN, UCI and zeroing, the successor's FEN
(placement, side to move, legal en passant square, clocks), its tablebase and canonical
key as a board read from that FEN gives them, and its check, mate and stalemate flags,
on random positions of every ending of up to five pieces, and on positions right after a
double push where en passant is legal."""

from __future__ import annotations

import random

import chess
import pytest

from tablebase.generators.chess.game import table
from tablebase.generators.chess.material import endings
from tablebase.generators.chess.positions import ChessPosition, material_name
from tests.test_chess_oracle import random_board

BOARDS_PER_ENDING = 12


def expected_moves(board: chess.Board) -> list[tuple[str, str, bool, str, str, int, dict[str, bool]]]:
    """What python-chess says of each legal move, with the successor's ending and key read
    back from its FEN (a fresh position, none kept from a move generation)."""
    found = []
    for move in board.legal_moves:
        san, zeroing = board.san(move), board.is_zeroing(move)
        board.push(move)
        after = board.copy(stack=False)
        board.pop()
        if not after.has_legal_en_passant():
            after.ep_square = None
        owner = table(material_name(after))
        fen = after.fen()
        stored = owner.stored(ChessPosition(after.board_fen(), after.turn, after.ep_square, 0, 1))
        key = owner._board_canonical_key(chess.Board(fen)) if stored else None
        flags = {
            "checkmate": after.is_checkmate(),
            "stalemate": after.is_stalemate(),
            "insufficient_material": after.is_insufficient_material(),
        }
        found.append((san, move.uci(), zeroing, fen, owner.material, key, flags))
    return sorted(found)


def ours(board: chess.Board) -> list[tuple[str, str, bool, str, str, int, dict[str, bool]]]:
    """The same of ``Chess.keyed_moves``."""
    position = ChessPosition(board.board_fen(), board.turn, board.ep_square, board.halfmove_clock, board.fullmove_number)
    game = table(material_name(board))
    found = []
    for move, child, owner, key in game.keyed_moves(position):
        fen = game.format(child)
        material = material_name(chess.Board(fen))
        assert owner is None or owner.material == material
        found.append((move.san, move.uci, move.zeroing, fen, material, None if owner is None else key, game.position_details(child)))
    return sorted(found)


def positions(material: str, rng: random.Random) -> list[chess.Board]:
    """Random positions of an ending with random clocks, and for each one's double pushes
    the position after it where the en passant capture is legal."""
    boards = []
    for number in range(BOARDS_PER_ENDING):
        board = random_board(material, rng)
        if number % 2:
            board = _double_push_ready(board, rng)
        board.halfmove_clock, board.fullmove_number = rng.randrange(50), rng.randrange(1, 80)
        boards.append(board)
        for move in board.legal_moves:
            if board.piece_type_at(move.from_square) == chess.PAWN and abs(move.to_square - move.from_square) == 16:
                after = board.copy(stack=False)
                after.push(move)
                if after.has_legal_en_passant():
                    boards.append(after)
    return boards


def _double_push_ready(board: chess.Board, rng: random.Random) -> chess.Board:
    """The board with a pawn of the side to move on its second rank and a pawn of the
    other side two ranks ahead on a neighbouring file, where both have pawns and the
    squares are free and the result legal; else the board."""
    mine, theirs = board.pieces(chess.PAWN, board.turn), board.pieces(chess.PAWN, not board.turn)
    if not mine or not theirs:
        return board
    file = rng.randrange(8)
    beside = file + rng.choice([-1, 1])
    if not 0 <= beside < 8:
        return board
    second, fourth = (1, 3) if board.turn == chess.WHITE else (6, 4)
    ready = board.copy(stack=False)
    pawn, other = ready.remove_piece_at(min(mine)), ready.remove_piece_at(min(theirs))
    start, waiting = chess.square(file, second), chess.square(beside, fourth)
    middle = chess.square(file, (second + fourth) // 2)
    if any(ready.piece_at(square) for square in (start, waiting, middle, chess.square(file, fourth))):
        return board
    ready.set_piece_at(start, pawn)
    ready.set_piece_at(waiting, other)
    return ready if ready.is_valid() else board


@pytest.mark.parametrize("pieces", [3, 4, 5])
def test_every_move_and_successor_agrees_with_python_chess(pieces):
    rng = random.Random(pieces)
    materials = [m for m in endings(pieces) if len(m) == pieces + 1 and m not in ("KvK",)]
    checked = passant = 0
    for material in materials:
        for board in positions(material, rng):
            assert ours(board) == expected_moves(board), board.fen()
            checked += 1
            passant += board.ep_square is not None
    assert checked >= len(materials) * BOARDS_PER_ENDING
    assert pieces < 4 or passant > 0


@pytest.mark.parametrize(
    "fen",
    [
        "8/2p5/8/KP5r/8/8/8/7k b - - 0 1",  # c7c5: taking en passant would expose the king on the fifth rank
        "8/2p5/8/1P5r/K7/8/8/7k b - - 0 1",  # c7c5: the capture is legal
        "7k/8/8/8/2Pp4/8/8/K7 b - c3 0 1",  # the capture itself, and the king's moves beside it
        "8/8/8/8/k1Pp3R/8/8/K7 b - c3 0 1",  # an en passant square whose capture is illegal
    ],
)
def test_en_passant_rights_follow_python_chess(fen):
    board = chess.Board(fen)
    if not board.has_legal_en_passant():
        board.ep_square = None
    assert ours(board) == expected_moves(board)
