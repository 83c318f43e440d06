"""The rules of chess for batches of positions: attacks, legal moves and legal keys, in
numpy: the reference the compiled kernels of :mod:`tablebase.generators.chess.legality`
and :mod:`tablebase.generators.chess.moves`
are held to (tests/test_chess_kernels.py).

Everything works on whole batches with numpy; the loops run over slots, directions, ray
steps and symmetries, never over positions. A batch is described by a
:class:`~tablebase.generators.chess.layout.Layout` and the arrays its ``decode`` gives:
``stm`` int64[n] (0 white, 1 black to move), ``ep`` int64[n] (the en passant bit) and
``squares`` int64[n, slots]. Occupancy is kept in uint64 bitboards. A pseudo-legal move is
legal when the mover's king is not attacked afterwards (chessprogramming wiki, "Legal
Move Generation", the make-and-test approach). Castling does not exist in tablebases.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.generators.chess.layout import WHITE, Layout
from tablebase.generators.chess.tables import (
    BETWEEN,
    BISHOP_DIRECTIONS,
    BISHOP_LINE,
    BIT,
    KING_ATTACKS,
    KING_TARGETS,
    KNIGHT_ATTACKS,
    KNIGHT_TARGETS,
    LAST_RANK,
    OFF,
    PAWN_ATTACKS,
    PAWN_CAPTURES,
    PAWN_DOUBLE_PUSHES,
    PAWN_PUSHES,
    RAYS,
    ROOK_DIRECTIONS,
    ROOK_LINE,
)

SLIDER_DIRECTIONS = {"Q": ROOK_DIRECTIONS + BISHOP_DIRECTIONS, "R": ROOK_DIRECTIONS, "B": BISHOP_DIRECTIONS}
"""The :data:`~tablebase.generators.chess.tables.RAYS` directions each slider moves along."""
SLIDER_LINES = {"Q": ROOK_LINE | BISHOP_LINE, "R": ROOK_LINE, "B": BISHOP_LINE}
"""bool[65, 65] per slider: whether it moves from one square towards the other."""


@dataclass(frozen=True)
class Moves:
    """Legal moves of a batch, one row per move.

    :ivar row: int64[m] the index of the move's position in the batch.
    :ivar slot: int64[m] the slot of the piece that moves.
    :ivar squares: int64[m, slots] every slot's square after the move; a captured
        piece's square is :data:`~tablebase.generators.chess.tables.OFF`.
    :ivar captured: int64[m] the slot of the captured piece, or -1.
    :ivar promotes: bool[m] a pawn reaching the last rank (the caller picks the piece).
    :ivar double: bool[m] a double pawn push.
    """

    row: np.ndarray
    slot: np.ndarray
    squares: np.ndarray
    captured: np.ndarray
    promotes: np.ndarray
    double: np.ndarray

    def __getitem__(self, keep: np.ndarray) -> Moves:
        """The moves selected by a bool[m] mask or an index array."""
        return Moves(*(getattr(self, name)[keep] for name in self.__dataclass_fields__))

    @staticmethod
    def join(parts: list[Moves], slots: int) -> Moves:
        """All moves of ``parts``, in order (an empty batch for none)."""
        if not parts:
            empty = np.zeros(0, dtype=np.int64)
            return Moves(empty, empty, np.zeros((0, slots), np.int64), empty, empty.astype(bool), empty.astype(bool))
        return Moves(*(np.concatenate([getattr(p, name) for p in parts]) for name in Moves.__dataclass_fields__))


def occupancy(squares: np.ndarray, slots: list[int] | range) -> np.ndarray:
    """uint64[n]: the bitboard of the given slots' squares (an :data:`OFF` one adds nothing)."""
    bits = np.zeros(len(squares), dtype=np.uint64)
    for slot in slots:
        bits |= BIT[squares[:, slot]]
    return bits


def attacks(piece: str, colour: int, origin: np.ndarray, target: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    """bool[n]: whether a piece of a colour on ``origin`` attacks ``target``.

    :param piece: one of ``K Q R B N P``; ``colour``: 0 white, 1 black (for pawns).
    :param origin: int64[n] squares, :data:`OFF` for a captured piece (attacks nothing).
    :param target: int64[n] squares; ``occupied``: uint64[n] bitboards that block sliders.
    """
    if piece == "K":
        return (KING_ATTACKS[origin] & BIT[target]) != 0
    if piece == "N":
        return (KNIGHT_ATTACKS[origin] & BIT[target]) != 0
    if piece == "P":
        return (PAWN_ATTACKS[colour, origin] & BIT[target]) != 0
    return SLIDER_LINES[piece][origin, target] & ((BETWEEN[origin, target] & occupied) == 0)


def attacked(layout: Layout, squares: np.ndarray, occupied: np.ndarray, king: np.ndarray) -> np.ndarray:
    """bool[n]: whether the king of colour ``king`` (int64[n]) is attacked by the other side.

    :param squares: int64[n, slots]; ``occupied``: uint64[n] bitboards of every piece.
    """
    target = squares[np.arange(len(squares)), king]
    hit = np.zeros(len(squares), dtype=bool)
    for slot, piece in enumerate(layout.types):
        colour = layout.colours[slot]
        hit |= (king != colour) & attacks(piece, colour, squares[:, slot], target, occupied)
    return hit


def generate(layout: Layout, stm: np.ndarray, ep: np.ndarray, squares: np.ndarray) -> Moves:
    """Every legal move of a batch (captures, promotions and en passant included).

    Only the moves that could leave their own king attacked are made and tested: king
    moves, every move while in check, moves of a pinned piece, en passant captures. Other
    moves are legal as generated.

    :returns: the moves, grouped by moving slot (not sorted by row).
    """
    occupied = occupancy(squares, range(layout.count))
    by_colour = [occupancy(squares, layout.slots(colour)) for colour in (0, 1)]
    check = attacked(layout, squares, occupied, stm)
    parts = []
    for slot, piece in enumerate(layout.types):
        colour = int(layout.colours[slot])
        rows = np.flatnonzero(stm == colour)
        origin = squares[rows, slot]
        own, theirs = by_colour[colour][rows], by_colour[1 - colour][rows]
        if piece == "P":
            targets = _pawn_targets(colour, origin, occupied[rows], theirs)
        else:
            targets = piece_targets(piece, origin, occupied[rows])
            targets = np.where((own[:, None] & BIT[targets]) != 0, OFF, targets)
        at, column = np.nonzero(targets != OFF)
        exposed = check[rows] | pinned(layout, squares[rows], occupied[rows], slot) if piece != "K" else True
        tested = np.flatnonzero(np.broadcast_to(exposed, len(rows))[at])
        keep = np.ones(len(at), dtype=bool)
        keep[tested] = _safe(layout, squares, occupied, rows[at[tested]], slot, targets[at[tested], column[tested]])
        at, column = at[keep], column[keep]
        parts.append(_make(layout, squares, rows[at], slot, targets[at, column]))
    if layout.en_passant:
        for colour in (0, 1):
            moves = en_passant(layout, squares, np.flatnonzero((ep == 1) & (stm == colour)), colour)
            parts.append(_legal_only(layout, moves))
    return Moves.join(parts, layout.count)


def _safe(
    layout: Layout, squares: np.ndarray, occupied: np.ndarray, rows: np.ndarray, slot: int, target: np.ndarray
) -> np.ndarray:
    """bool[m]: moving ``slot`` to ``target`` in ``rows`` (int64[m] each) leaves its own
    king not attacked; a piece standing on ``target`` is taken. ``squares`` and
    ``occupied`` (uint64[n]) are the whole batch's, before the move."""
    colour = int(layout.colours[slot])
    origin = squares[rows, slot]
    king = target if slot == colour else squares[rows, colour]
    after = (occupied[rows] & ~BIT[origin]) | BIT[target]
    hit = np.zeros(len(rows), dtype=bool)
    for enemy in layout.slots(1 - colour):
        where = squares[rows, enemy]
        hit |= attacks(layout.types[enemy], 1 - colour, np.where(where == target, OFF, where), king, after)
    return ~hit


def pinned(layout: Layout, squares: np.ndarray, occupied: np.ndarray, slot: int) -> np.ndarray:
    """bool[n]: the piece of ``slot`` stands alone between its king and an enemy slider
    that moves along their line."""
    colour = int(layout.colours[slot])
    king = squares[:, colour]
    found = np.zeros(len(squares), dtype=bool)
    for enemy in layout.slots(1 - colour)[1:]:
        piece = layout.types[enemy]
        if piece in SLIDER_LINES:
            origin = squares[:, enemy]
            alone = (BETWEEN[origin, king] & occupied) == BIT[squares[:, slot]]
            found |= SLIDER_LINES[piece][origin, king] & alone
    return found


def piece_targets(piece: str, origin: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    """int64[n, w]: the squares a king, knight or slider reaches (own pieces not yet
    excluded), :data:`OFF` where there is none; sliders stop at the first piece."""
    if piece == "K":
        return KING_TARGETS[origin]
    if piece == "N":
        return KNIGHT_TARGETS[origin]
    columns = []
    for direction in SLIDER_DIRECTIONS[piece]:
        open_ = np.ones(len(origin), dtype=bool)
        for step in range(7):
            target = RAYS[origin, direction, step]
            open_ &= target != OFF
            columns.append(np.where(open_, target, OFF))
            open_ &= (occupied & BIT[target]) == 0
    return np.stack(columns, axis=1) if columns else np.zeros((len(origin), 0), np.int64)


def _pawn_targets(colour: int, origin: np.ndarray, occupied: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """int64[n, 4]: a pawn's push, double push and two captures, :data:`OFF` where illegal."""
    push = PAWN_PUSHES[colour, origin]
    push = np.where((occupied & BIT[push]) != 0, OFF, push)
    double = PAWN_DOUBLE_PUSHES[colour, origin]
    double = np.where((push == OFF) | ((occupied & BIT[double]) != 0), OFF, double)
    captures = PAWN_CAPTURES[colour, origin]
    captures = np.where((theirs[:, None] & BIT[captures]) != 0, captures, OFF)
    return np.column_stack([push, double, captures])


def _make(layout: Layout, squares: np.ndarray, rows: np.ndarray, slot: int, target: np.ndarray) -> Moves:
    """Pseudo-legal moves of one slot to ``target`` squares, capturing what stands there."""
    after = squares[rows]
    origin = after[:, slot].copy()
    after[:, slot] = target
    captured = np.full(len(rows), -1, dtype=np.int64)
    for other in layout.slots(1 - int(layout.colours[slot]))[1:]:
        hit = after[:, other] == target
        after[hit, other] = OFF
        captured[hit] = other
    pawn = layout.types[slot] == "P"
    promotes = pawn & LAST_RANK[layout.colours[slot], target]
    double = pawn & (np.abs(target - origin) == 16)
    return Moves(rows, np.full(len(rows), slot), after, captured, promotes, double)


def en_passant(layout: Layout, squares: np.ndarray, rows: np.ndarray, colour: int) -> Moves:
    """Pseudo-legal en passant captures by ``colour`` in ``rows`` (positions whose other
    pawn has just made a double push; see :func:`en_passant_ready`)."""
    mine, theirs = (next(s for s in layout.slots(c) if layout.types[s] == "P") for c in (colour, 1 - colour))
    target = PAWN_PUSHES[colour, squares[rows, theirs]]
    reaches = (PAWN_ATTACKS[colour, squares[rows, mine]] & BIT[target]) != 0
    rows, target = rows[reaches], target[reaches]
    after = squares[rows]
    after[:, mine], after[:, theirs] = target, OFF
    none = np.zeros(len(rows), dtype=bool)
    return Moves(rows, np.full(len(rows), mine), after, np.full(len(rows), theirs), none, none)


def _legal_only(layout: Layout, moves: Moves) -> Moves:
    """The moves after which the mover's own king is not attacked, tested on the
    squares after each move (for en passant, which takes a pawn off another square)."""
    mover = layout.colours[moves.slot]
    return moves[~attacked(layout, moves.squares, occupancy(moves.squares, range(layout.count)), mover)]


def en_passant_ready(layout: Layout, stm: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """bool[n]: the pawn of the side not to move stands where a double push put it (its
    fourth rank, the two squares behind it empty), as a key with ``ep = 1`` requires."""
    pawn = np.array([next(s for s in layout.slots(c) if layout.types[s] == "P") for c in (0, 1)])[1 - stm]
    square = squares[np.arange(len(stm)), pawn]
    back = np.where(stm == WHITE, 8, -8)  # towards the pushed pawn's own side
    ranked = (square >> 3) == np.where(stm == WHITE, 4, 3)
    behind = BIT[np.where(ranked, square + back, OFF)] | BIT[np.where(ranked, square + 2 * back, OFF)]
    return ranked & ((occupancy(squares, range(layout.count)) & behind) == 0)


def has_en_passant(layout: Layout, stm: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """bool[n]: whether the side to move has a legal en passant capture, taking the other
    side's pawn to have just made a double push (the caller makes sure it could have)."""
    rows = np.arange(len(stm))
    parts = [en_passant(layout, squares, rows[stm == c], c) for c in (0, 1)]
    legal = _legal_only(layout, Moves.join(parts, layout.count))
    return np.bincount(legal.row, minlength=len(stm)) > 0


def legal_keys(layout: Layout, keys: np.ndarray) -> np.ndarray:
    """bool[n]: which keys are canonical keys of legal positions.

    Legal: no two pieces on one square, kings not adjacent, no pawn on the first or last
    rank, the side not to move not in check, and for ``ep = 1`` a pawn just pushed that
    can legally be taken en passant. A check that no move can give (two checkers on one
    line through the king, which python-chess's ``Board.status()`` flags) is legal, as
    the Syzygy generator counts it.
    """
    stm, ep, squares = layout.decode(keys)
    ok = np.ones(len(keys), dtype=bool)
    for first in range(layout.count):
        for second in range(first + 1, layout.count):
            ok &= squares[:, first] != squares[:, second]
    ok &= (KING_ATTACKS[squares[:, 0]] & BIT[squares[:, 1]]) == 0
    for slot, piece in enumerate(layout.types):
        if piece == "P":
            ok &= ((squares[:, slot] >> 3) % 7) != 0
    occupied = occupancy(squares, range(layout.count))
    ok &= ~attacked(layout, squares, occupied, 1 - stm)
    if layout.en_passant:
        maybe = np.flatnonzero(ok & (ep == 1))
        ready = en_passant_ready(layout, stm[maybe], squares[maybe])
        ok[maybe] = ready & has_en_passant(layout, stm[maybe], squares[maybe])
    return ok & (keys == layout.canonical_keys(stm, ep, squares))
