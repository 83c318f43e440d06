"""Compiled legal moves of one position with what a query shows of each (numba ``@njit``).

A query ranks every move of a position: it needs each move's squares, its successor's
tablebase and canonical key, and whether the successor is in check, mated or stalemated.
:func:`children_kernel` finds all of it in one call from the position's squares by slot
(a layout's slots, :mod:`tablebase.generators.chess.layout`), in the layout's colouring,
so that the query makes no python-chess board per move; the build's kernels
(:mod:`tablebase.generators.chess.moves` and the others) work on keys and keep no
move's squares.

The successors' legality follows python-chess: a move is legal when it leaves the mover's
king unattacked; a successor has an en passant square only where the capture is legal
(``Board.has_legal_en_passant``). tests/test_chess_children.py compares every field with
python-chess on random positions of every ending.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

import chess
import numpy as np
from numba import njit

from tablebase.generators.chess.attacks import king_attacked, occupancy_bits, piece_targets, slot_on
from tablebase.generators.chess.keys import canonical_placement_key, child_keys_kernel
from tablebase.generators.chess.spec import PAWN, Spec
from tablebase.generators.chess.tables import BIT, LAST_RANK, OFF, PAWN_ATTACKS

MOST_CHILDREN = 4 * 27 + 2 * 27 + 8 + 4
"""More moves than a position of at most five pieces has (a queen's 27 four times over
stands for four promoting pawns)."""


@njit(cache=True, inline="always")
def _en_passant_taker(pieces, colours, squares, side, target):
    """The slot of a pawn of ``side`` that takes en passant on ``target`` legally (the
    other side's pawn taken one rank behind it, towards ``side``), or -1."""
    if target == OFF:
        return -1
    taken_square = target - 8 if side == 0 else target + 8
    taken = -1
    for slot in range(len(squares)):
        if colours[slot] != side and pieces[slot] == PAWN and squares[slot] == taken_square:
            taken = slot
    if taken < 0:
        return -1
    for slot in range(len(squares)):
        if colours[slot] != side or pieces[slot] != PAWN or (PAWN_ATTACKS[side, squares[slot]] & BIT[target]) == 0:
            continue
        origin = squares[slot]
        squares[slot], squares[taken] = target, OFF
        safe = not king_attacked(pieces, colours, squares, occupancy_bits(squares), side)
        squares[slot], squares[taken] = origin, taken_square
        if safe:
            return slot
    return -1


@njit(cache=True, inline="always")
def _legal_moves(pieces, colours, squares, side, targets, found, first_only):
    """Write ``(slot, origin, target, captured slot or -1)`` of each legal move of
    ``side`` but en passant captures into int64[k, 4] ``found`` (``targets`` scratch);
    return how many, stopping at the first with ``first_only``. ``squares`` is changed
    and restored."""
    occupied = occupancy_bits(squares)
    own = np.uint64(0)
    for slot in range(len(squares)):
        if colours[slot] == side:
            own |= BIT[squares[slot]]
    theirs = occupied & ~own
    count = 0
    for slot in range(len(squares)):
        origin = squares[slot]
        if colours[slot] != side or origin == OFF:
            continue
        reached = piece_targets(pieces[slot], side, origin, occupied, theirs, targets)
        for j in range(reached):
            target = targets[j]
            if (own & BIT[target]) != 0:
                continue
            captured = slot_on(squares, target, slot)
            if captured >= 0:
                squares[captured] = OFF
            squares[slot] = target
            safe = not king_attacked(pieces, colours, squares, (occupied & ~BIT[origin]) | BIT[target], side)
            squares[slot] = origin
            if captured >= 0:
                squares[captured] = target
            if safe:
                found[count, 0], found[count, 1], found[count, 2], found[count, 3] = slot, origin, target, captured
                count += 1
                if first_only:
                    return count
    return count


@njit(cache=True, inline="always")
def _has_move(pieces, colours, squares, side, en_passant, targets, found):
    """Whether ``side`` has a legal move (``en_passant``: the square of a legal en
    passant capture, or :data:`OFF`); ``targets`` and ``found`` as :func:`_legal_moves`."""
    return en_passant != OFF or _legal_moves(pieces, colours, squares, side, targets, found, True) > 0


@njit(cache=True, inline="always")
def _en_passant_square(pieces, colours, squares, side, target):
    """``target`` where ``side`` can take en passant there legally, else :data:`OFF`."""
    return target if _en_passant_taker(pieces, colours, squares, side, target) >= 0 else OFF


@njit(cache=True, inline="always")
def _record(row, slot, origin, target, captured, promotion, pieces, colours, squares, stm, spec, events, en_passant, image, scratch, out):
    """Write the move just made on ``squares`` at ``row`` of the arrays ``out``: its
    fields, whether it checks or ends the game, the successor's en passant square, and
    its canonical key within the tablebase or its way out (``events``)."""
    moved, fields, after, key, event = out
    fields[row, 0] = slot
    fields[row, 1] = origin
    fields[row, 2] = target
    fields[row, 3] = captured
    fields[row, 4] = promotion
    piece = pieces[slot]
    if promotion:
        pieces[slot] = promotion  # Q R B N are piece codes 1 to 4, as promotions count them
    other = 1 - stm
    occupied = occupancy_bits(squares)
    check = king_attacked(pieces, colours, squares, occupied, other)
    passing = OFF
    if piece == PAWN and abs(target - origin) == 16:
        passing = _en_passant_square(pieces, colours, squares, other, (origin + target) // 2)
    fields[row, 5] = int(check)
    fields[row, 6] = int(not _has_move(pieces, colours, squares, other, passing, scratch[0], scratch[1]))
    fields[row, 7] = passing
    pieces[slot] = piece
    for s in range(len(squares)):
        after[row, s] = squares[s]
    if captured >= 0 or promotion:
        key[row] = -1
        event[row] = events[slot, captured + 1, promotion]
    else:
        key[row] = canonical_placement_key(other, squares, spec, image)
        if en_passant and passing != OFF:
            key[row] += 2 * spec.placements
        event[row] = -1
    moved[0] = row + 1


@njit(cache=True, nogil=True)
def children_kernel(squares, stm, en_passant_square, spec, events):
    """Every legal move of one position, with its successor.

    :param squares: int64[slots] the square of each slot of ``spec``'s layout, in the
        layout's colouring (white holds the first side); not changed.
    :param stm: the side to move in that colouring (0 white, 1 black).
    :param en_passant_square: the square of a legal en passant capture, or :data:`OFF`.
    :param spec: the layout (:class:`~tablebase.generators.chess.spec.Spec`).
    :param events: int64[slots, slots + 1, 5], the numbers of the ways to leave the
        tablebase (as ``generate_kernel`` takes them).
    :returns: ``(fields, after, key, event)`` of m moves: int64[m, 8] ``fields`` (slot,
        origin, target, captured slot or -1, promotion 0 or 1 to 4 for Q R B N,
        whether the successor's side to move is in check, whether it has no legal
        move, and the successor's en passant square or :data:`OFF`); int64[m, slots]
        the squares after the move (:data:`OFF` for a taken piece); int64[m] the
        successor's canonical key where it stays in the tablebase, else -1; int64[m] the
        number of its way out (``events``), else -1. The moves come by slot, then by
        target as the build's kernels find them, an en passant capture last.
    """
    count = len(squares)
    squares = squares.copy()
    pieces = spec.pieces.copy()
    colours = spec.colours
    layout_passant = spec.pawns[0] >= 0
    fields = np.empty((MOST_CHILDREN, 8), np.int64)
    after = np.empty((MOST_CHILDREN, count), np.int64)
    key = np.empty(MOST_CHILDREN, np.int64)
    event = np.empty(MOST_CHILDREN, np.int64)
    moved = np.zeros(1, np.int64)
    out = (moved, fields, after, key, event)
    image = np.empty(count, np.int64)
    targets = np.empty(32, np.int64)
    legal = np.empty((MOST_CHILDREN, 4), np.int64)
    scratch = (np.empty(32, np.int64), np.empty((1, 4), np.int64))
    for row in range(_legal_moves(pieces, colours, squares, stm, targets, legal, False)):
        slot, origin, target, captured = legal[row, 0], legal[row, 1], legal[row, 2], legal[row, 3]
        if captured >= 0:
            squares[captured] = OFF
        squares[slot] = target
        promotes = pieces[slot] == PAWN and LAST_RANK[stm, target]
        for promotion in range(1 if promotes else 0, 5 if promotes else 1):
            _record(moved[0], slot, origin, target, captured, promotion, pieces, colours, squares, stm, spec, events, layout_passant, image, scratch, out)
        squares[slot] = origin
        if captured >= 0:
            squares[captured] = target
    taker = _en_passant_taker(pieces, colours, squares, stm, en_passant_square)
    if taker >= 0:
        taken_square = en_passant_square - 8 if stm == 0 else en_passant_square + 8
        taken = slot_on(squares, taken_square, taker)
        origin = squares[taker]
        squares[taker], squares[taken] = en_passant_square, OFF
        _record(moved[0], taker, origin, en_passant_square, taken, 0, pieces, colours, squares, stm, spec, events, layout_passant, image, scratch, out)
        squares[taker], squares[taken] = origin, taken_square
    m = moved[0]
    return fields[:m].copy(), after[:m].copy(), key[:m].copy(), event[:m].copy()


# ---- the moves of a python-chess board, for a query

_SYMBOLS = "kqrbnp"
"""python-chess's piece letters by piece code (:data:`~tablebase.generators.chess.spec.KING` ...)."""


class Child(NamedTuple):
    """One legal move of a position as a query shows it (see :func:`children`)."""

    san: str
    uci: str
    zeroing: bool
    board_fen: str
    """The successor's piece placement (the first field of its FEN)."""
    en_passant: int | None
    """The successor's en passant square where the capture is legal, else None."""
    check: bool
    stuck: bool
    """Whether the successor's side to move has no legal move (mated or stalemated)."""
    table: int | None
    """-1 where the successor stays in the position's tablebase, else its number among
    the tablebase's dependencies; None for a way out that the tablebase does not number
    (the captures of KBvK and KNvK, whose positions are all drawn)."""
    key: int
    """The successor's canonical key in that tablebase (-1 for None)."""


def children(board: chess.Board, squares: list[int], flip: bool, spec: Spec, events: np.ndarray, exits: Sequence[tuple[int, np.ndarray, bool, Spec]]) -> list[Child]:
    """Every legal move of a board, with its SAN and UCI as python-chess writes them
    (``Board.san``, ``Move.uci``) and its successor, from one :func:`children_kernel` call.

    :param board: a position of ``spec``'s material (either colouring) whose en passant
        square, if any, is that of a legal capture.
    :param squares: the square of each slot in the layout's colouring
        (``Chess._slot_squares``); ``flip``: whether the board is that colouring's flip.
    :param events: as :func:`children_kernel` takes them; ``exits``: where each way out
        leads, ``(dependency number, the child's slots as this layout's, whether its
        colours are reversed, its spec)``.
    """
    mirror = 56 if flip else 0
    stm = int(not board.turn) ^ int(flip)
    passing = OFF if board.ep_square is None else board.ep_square ^ mirror
    fields, after, keys, numbers = children_kernel(np.array(squares, dtype=np.int64), stm, passing, spec, events)
    moved = fields.tolist()
    letters = [_SYMBOLS[piece] for piece in spec.pieces.tolist()]
    arrivals: dict[tuple[str, int], list[int]] = {}
    for slot, origin, target, *_rest in moved:
        arrivals.setdefault((letters[slot], target), []).append(origin)
    placement = _Placement(board)
    found = []
    for row, (slot, origin, target, captured, promotion, check, stuck, passed) in enumerate(moved):
        letter = letters[slot]
        start, end = origin ^ mirror, target ^ mirror
        taken = OFF if captured < 0 else squares[captured] ^ mirror
        promoted = _SYMBOLS[promotion] if promotion else ""
        san = _san(letter, start, end, taken != OFF, promoted, [o ^ mirror for o in arrivals[letter, target] if o != origin])
        san += ("#" if stuck else "+") if check else ""
        symbol = (promoted or letter) if board.turn == chess.BLACK else (promoted or letter).upper()
        table: int | None = -1
        key = int(keys[row])
        if numbers[row] >= 0:
            table, order, swapped, child_spec = exits[int(numbers[row])]
            key = int(child_keys_kernel(after[row : row + 1], np.array([stm]), order, int(swapped), child_spec)[0])
        elif taken != OFF or promoted:  # a way out the tablebase does not number (KBvK's captures)
            table, key = None, -1
        found.append(
            Child(
                san,
                chess.SQUARE_NAMES[start] + chess.SQUARE_NAMES[end] + promoted,
                taken != OFF or letter == "p",
                placement.after(start, end, taken, symbol),
                None if passed == OFF else passed ^ mirror,
                bool(check),
                bool(stuck),
                table,
                key,
            )
        )
    return found


def _san(letter: str, start: int, end: int, capture: bool, promoted: str, others: list[int]) -> str:
    """SAN without its check suffix, as python-chess disambiguates: by file where that
    tells the piece from ``others`` (the squares of the same pieces that reach ``end``),
    else by rank, else by both."""
    target = chess.SQUARE_NAMES[end]
    if letter == "p":
        text = (chess.FILE_NAMES[start & 7] + "x" if capture else "") + target
        return text + ("=" + promoted.upper() if promoted else "")
    text = letter.upper()
    if others:
        same_file = any((other & 7) == (start & 7) for other in others)
        same_rank = any((other >> 3) == (start >> 3) for other in others)
        if not same_file or same_rank:
            text += chess.FILE_NAMES[start & 7]
        if same_file:
            text += chess.RANK_NAMES[start >> 3]
    return text + ("x" if capture else "") + target


class _Placement:
    """The piece placement of a board by rank, to write a successor's placement with
    only the ranks a move changes written again."""

    def __init__(self, board: chess.Board) -> None:
        self.ranks: list[list[str]] = [[""] * 8 for _ in range(8)]
        for square, piece in board.piece_map().items():
            self.ranks[square >> 3][square & 7] = piece.symbol()
        self.texts = [_rank_text(tuple(rank)) for rank in self.ranks]

    def after(self, start: int, end: int, taken: int, symbol: str) -> str:
        """The placement after ``symbol`` moves from ``start`` to ``end`` (a piece on
        ``taken``, :data:`OFF` for none, taken: on ``end``, or beside ``start`` for an
        en passant capture)."""
        texts = self.texts[:]
        first, last = start >> 3, end >> 3
        rank = self.ranks[first][:]
        rank[start & 7] = ""
        if taken != OFF and taken >> 3 == first:  # en passant: a capture elsewhere is on ``end``
            rank[taken & 7] = ""
        if last == first:
            rank[end & 7] = symbol
        else:
            moved = self.ranks[last][:]
            moved[end & 7] = symbol
            texts[last] = _rank_text(tuple(moved))
        texts[first] = _rank_text(tuple(rank))
        return "/".join(reversed(texts))


@functools.lru_cache(maxsize=1 << 14)
def _rank_text(rank: tuple[str, ...]) -> str:
    """One rank of a FEN's placement: pieces by letter, runs of empty squares by count."""
    text, empty = "", 0
    for symbol in rank:
        if symbol:
            text += (str(empty) if empty else "") + symbol
            empty = 0
        else:
            empty += 1
    return text + (str(empty) if empty else "")
