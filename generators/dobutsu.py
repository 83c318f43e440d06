"""Dobutsu shogi ("animal shogi", M. Kitao and M. Fujita, 2008): shogi on a 3x4 board
with captured pieces dropped back, as T. Tanaka solved it ("An Analysis of a Board Game
"Doubutsu Shogi"", IPSJ SIG Technical Report GI-22, 2009: the second player wins in 78
plies; 246,803,167 positions reachable from the start).

Each side has a lion (moves one square any way), a giraffe (one square orthogonally), an
elephant (one square diagonally) and a chick (one square forward). A chick that moves
onto the far rank becomes a hen (one square any way but diagonally backwards). A piece
moves onto an empty square or captures the opponent's piece there, which joins the
captor's hand, a hen as a chick; instead of moving, a side may drop a piece from its
hand on any empty square (a chick dropped on the far rank stays a chick until it moves
off the board's edge: it cannot move). The game ends as Tanaka's programs
(github.com/tanakat01/dobutsu, ``dobutsu.h``) end it, each end a terminal position of
remoteness 0:

- the side to move wins when one of its pieces can capture the opponent's lion;
- otherwise it loses when the opponent's lion stands on its own back rank (the
  opponent's "try" that survived).

Endless play is a draw. A position is always seen from the side to move, whose pieces
stand at the bottom and move up: the key does not say which player that is, as in
Tanaka's count. Tanaka's 78 plies count the capture of the lion as a ply, which a
terminal position's remoteness does not (docs/design.md), so the start position's
remoteness here is 77.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from tablebase.core.errors import PositionError
from tablebase.core.game import Game
from tablebase.core.parameters import Parameter
from tablebase.core.values import LOSS, NOT_TERMINAL, WIN, Outcome

ROWS, COLUMNS = 4, 3
SQUARES = ROWS * COLUMNS

CHICK, ELEPHANT, GIRAFFE, HEN, LION = 1, 2, 3, 4, 5
"""Piece codes of the side to move; :data:`THEIRS` added for the opponent's."""

THEIRS = 8
HAND = 48
"""A key holds each square's piece code in 4 bits, square ``s`` at bits ``4 s`` (squares
row by row from the top in the side to move's view, left to right), then at bit
:data:`HAND` the pieces in hand, 2 bits a count: the side to move's chicks, elephants
and giraffes, then the opponent's. This is Tanaka's packing."""

LETTERS = ".CEGHL"
"""The letter of each piece code (upper case the side to move's, lower case the
opponent's)."""

START = "gle/.c./.C./ELG -"

STEPS = {
    CHICK: [(-1, 0)],
    ELEPHANT: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
    GIRAFFE: [(-1, 0), (1, 0), (0, -1), (0, 1)],
    HEN: [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, 0)],
    LION: [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)],
}
"""Each piece's steps ``(rows, columns)`` for the side to move (up is -1)."""

Position = tuple[str, str]
"""``(cells, hand)``: the 12 squares' letters row by row from the top in the side to
move's view (upper case its pieces, lower case the opponent's, ``.`` empty), and the
pieces in hand as letters, sorted (``C``, ``E``, ``G``, upper case the side to move's)."""

Move = tuple[str, int, int, str]
"""``(piece letter, from, to, captured letter)``: ``from`` -1 for a drop, the captured
letter ``.`` when none."""


def _squares_by_step(backward: bool) -> np.ndarray:
    """int64[6, 12, 8]: for each piece code and square, the squares its steps reach
    (``backward``: the squares it may have come from), -1 after the last."""
    table = np.full((LION + 1, SQUARES, 8), -1, dtype=np.int64)
    for piece, steps in STEPS.items():
        for square in range(SQUARES):
            row, column = divmod(square, COLUMNS)
            sign = -1 if backward else 1
            reached = [
                (row + sign * dr) * COLUMNS + column + sign * dc
                for dr, dc in steps
                if 0 <= row + sign * dr < ROWS and 0 <= column + sign * dc < COLUMNS
            ]
            table[piece, square, : len(reached)] = reached
    return table


TARGETS = _squares_by_step(False)
ORIGINS = _squares_by_step(True)


def _square_name(square: int) -> str:
    """``a1`` ... ``c4``: columns from the left, rows from the bottom, in the side to
    move's view."""
    row, column = divmod(square, COLUMNS)
    return f"{'abc'[column]}{ROWS - row}"


def parse_position(text: str) -> Position:
    """Read ``ROWS HAND`` (e.g. the start, ``gle/.c./.C./ELG -``) or ``start``.

    :raises PositionError: for bad syntax, not one lion a side, more than two chicks
        (hens included), elephants or giraffes, or a lion or hen in hand.
    """
    text = START if text.strip() == "start" else text
    fields = text.split()
    rows = fields[0].split("/") if fields else []
    if len(fields) != 2 or len(rows) != ROWS or any(len(row) != COLUMNS for row in rows):
        raise PositionError(f"bad position {text!r}: expected 4 rows of 3 squares joined by /, then the hand, e.g. {START}")
    cells, hand = "".join(rows), "" if fields[1] == "-" else fields[1]
    if set(cells) - set(LETTERS + LETTERS[1:].lower()) or set(hand) - set("CEGceg"):
        raise PositionError(f"bad position {text!r}: squares are . or one of CEGHL (side to move), ceghl (opponent); hands hold CEG, ceg")
    if cells.count("L") != 1 or cells.count("l") != 1:
        raise PositionError(f"bad position {text!r}: each side has one lion on the board")
    pieces = (cells + hand).upper().replace("H", "C")
    for letter, name in (("C", "chicks and hens"), ("E", "elephants"), ("G", "giraffes")):
        if pieces.count(letter) > 2:
            raise PositionError(f"bad position {text!r}: more than two {name}")
    return cells, "".join(sorted(hand))


def format_position(position: Position) -> str:
    """The text :func:`parse_position` reads."""
    cells, hand = position
    return "/".join(cells[r * COLUMNS : (r + 1) * COLUMNS] for r in range(ROWS)) + " " + (hand or "-")


def _valid_start(text: str) -> str | None:
    try:
        parse_position(text)
    except PositionError as error:
        return str(error)
    return None


# ---- the per-position rules, written for reading (the kernels below are the fast path)


def _owned(letter: str) -> bool:
    return letter.isupper()


def _steps_from(cells: str, square: int) -> list[int]:
    """The squares the side to move's piece on ``square`` steps to (any occupant)."""
    row, column = divmod(square, COLUMNS)
    return [
        (row + dr) * COLUMNS + column + dc
        for dr, dc in STEPS[LETTERS.index(cells[square])]
        if 0 <= row + dr < ROWS and 0 <= column + dc < COLUMNS
    ]


def _turned(cells: str, hand: str) -> Position:
    """The position seen from the other side: the board turned round, colours swapped."""
    return cells[::-1].swapcase(), "".join(sorted(hand.swapcase()))


def position_moves(position: Position) -> list[tuple[Move, Position]]:
    """Every move of a position that is not terminal, each with its successor seen
    from the opponent: steps in square order, then drops (chick, elephant, giraffe) on
    each empty square."""
    cells, hand = position
    found: list[tuple[Move, Position]] = []
    for square, letter in enumerate(cells):
        if not _owned(letter):
            continue
        for target in _steps_from(cells, square):
            taken = cells[target]
            if _owned(taken):
                continue
            piece = "H" if letter == "C" and target < COLUMNS else letter
            after = list(cells)
            after[square], after[target] = ".", piece
            gained = {"h": "C", ".": ""}.get(taken, taken.upper())
            found.append(((letter, square, target, taken), _turned("".join(after), hand + gained)))
    for letter in sorted(set(hand) & set("CEG")):
        rest = hand.replace(letter, "", 1)
        for target in (s for s, there in enumerate(cells) if there == "."):
            found.append(((letter, -1, target, "."), _turned(cells[:target] + letter + cells[target + 1 :], rest)))
    return found


def position_terminal(position: Position) -> Outcome | None:
    """``WIN`` when the side to move can capture the opponent's lion; else ``LOSS``
    when that lion stands on the side to move's back rank; else ``None``."""
    cells, _hand = position
    lion = cells.index("l")
    if any(lion in _steps_from(cells, s) for s, letter in enumerate(cells) if _owned(letter)):
        return Outcome.WIN
    return Outcome.LOSS if lion >= SQUARES - COLUMNS else None


# ---- compiled kernels over keys


@njit(cache=True, nogil=True)
def _piece(key: int, square: int) -> int:
    return (key >> (4 * square)) & 15


@njit(cache=True, nogil=True)
def _turn(key: int) -> int:
    """The key seen from the other side (the board turned round, colours and hands
    swapped)."""
    turned = 0
    for square in range(SQUARES):
        piece = _piece(key, square)
        if piece:
            turned |= (piece ^ THEIRS) << (4 * (SQUARES - 1 - square))
    mine, theirs = (key >> HAND) & 63, (key >> (HAND + 6)) & 63
    return turned | theirs << HAND | mine << (HAND + 6)


@njit(cache=True, nogil=True)
def _canonical(key: int, symmetry: bool) -> int:
    """The smaller of the key and its mirror image (columns swapped), with ``symmetry``."""
    if not symmetry:
        return key
    mirrored = key & ~((1 << HAND) - 1)
    for square in range(SQUARES):
        column = square % COLUMNS
        mirrored |= _piece(key, square) << (4 * (square - column + COLUMNS - 1 - column))
    return min(key, mirrored)


@njit(cache=True, nogil=True)
def _canonical_each(keys: np.ndarray, symmetry: bool) -> np.ndarray:
    canonical = np.empty(len(keys), dtype=np.int64)
    for i in range(len(keys)):
        canonical[i] = _canonical(keys[i], symmetry)
    return canonical


@njit(cache=True, nogil=True)
def _terminal(key: int) -> int:
    """:meth:`Dobutsu.terminal` of a key, as an int (:data:`NOT_TERMINAL` for none)."""
    lion = 0
    for square in range(SQUARES):
        if _piece(key, square) == LION | THEIRS:
            lion = square
    for square in range(SQUARES):
        piece = _piece(key, square)
        if piece == 0 or piece & THEIRS:
            continue
        for k in range(8):
            target = TARGETS[piece, square, k]
            if target < 0:
                break
            if target == lion:
                return WIN
    return LOSS if lion >= SQUARES - COLUMNS else NOT_TERMINAL


@njit(cache=True, nogil=True)
def _terminal_each(keys: np.ndarray) -> np.ndarray:
    values = np.empty(len(keys), dtype=np.int8)
    for i in range(len(keys)):
        values[i] = _terminal(keys[i])
    return values


@njit(cache=True, nogil=True)
def _successors(keys: np.ndarray, symmetry: bool, fill: bool, src: np.ndarray, dst: np.ndarray) -> int:
    """The moves of int64[n] non-terminal keys; with ``fill``, written to ``src`` and
    ``dst`` (canonical successor keys). Returns how many there are."""
    count = 0
    for i in range(len(keys)):
        key = keys[i]
        for square in range(SQUARES):
            piece = _piece(key, square)
            if piece == 0 or piece & THEIRS:
                continue
            for k in range(8):
                target = TARGETS[piece, square, k]
                if target < 0:
                    break
                taken = _piece(key, target)
                if taken and not taken & THEIRS:
                    continue
                if fill:
                    moved = HEN if piece == CHICK and target < COLUMNS else piece
                    child = key & ~(15 << (4 * square)) & ~(15 << (4 * target)) | moved << (4 * target)
                    if taken:
                        kind = CHICK if taken & 7 == HEN else taken & 7
                        child += 1 << (HAND + 2 * (kind - 1))
                    src[count], dst[count] = i, _canonical(_turn(child), symmetry)
                count += 1
        for kind in range(CHICK, GIRAFFE + 1):
            if not (key >> (HAND + 2 * (kind - 1))) & 3:
                continue
            for target in range(SQUARES):
                if _piece(key, target):
                    continue
                if fill:
                    child = key - (1 << (HAND + 2 * (kind - 1))) | kind << (4 * target)
                    src[count], dst[count] = i, _canonical(_turn(child), symmetry)
                count += 1
    return count


@njit(cache=True, nogil=True)
def _emit(i: int, parent: int, symmetry: bool, count: int, fill: bool, src: np.ndarray, dst: np.ndarray) -> int:
    """Writes one predecessor unless it is terminal (no move leaves it); the new count."""
    if _terminal(parent) != NOT_TERMINAL:
        return count
    if fill:
        src[count], dst[count] = i, _canonical(parent, symmetry)
    return count + 1


@njit(cache=True, nogil=True)
def _predecessors(keys: np.ndarray, symmetry: bool, fill: bool, src: np.ndarray, dst: np.ndarray) -> int:
    """The un-moves of int64[n] keys; with ``fill``, written to ``src`` and ``dst``
    (canonical, non-terminal predecessor keys). Returns how many there are."""
    count = 0
    for i in range(len(keys)):
        moved = _turn(keys[i])  # the side that just moved is now to move
        for target in range(SQUARES):
            piece = _piece(moved, target)
            if piece == 0 or piece & THEIRS:
                continue
            lifted = moved & ~(15 << (4 * target))
            if piece <= GIRAFFE:  # an un-drop
                count = _emit(i, lifted + (1 << (HAND + 2 * (piece - 1))), symmetry, count, fill, src, dst)
            for promoted in range(2):
                if not promoted and piece == CHICK and target < COLUMNS:
                    continue  # a chick moving onto the far rank becomes a hen
                if promoted and not (piece == HEN and target < COLUMNS):
                    continue  # only a hen on the far rank may have been a chick
                before = CHICK if promoted else piece
                for k in range(8):
                    origin = ORIGINS[before, target, k]
                    if origin < 0:
                        break
                    if _piece(moved, origin):
                        continue
                    parent = lifted | before << (4 * origin)
                    count = _emit(i, parent, symmetry, count, fill, src, dst)
                    for kind in range(CHICK, GIRAFFE + 1):  # un-captures
                        if not (parent >> (HAND + 2 * (kind - 1))) & 3:
                            continue
                        held = parent - (1 << (HAND + 2 * (kind - 1)))
                        count = _emit(i, held | (kind | THEIRS) << (4 * target), symmetry, count, fill, src, dst)
                        if kind == CHICK:
                            count = _emit(i, held | (HEN | THEIRS) << (4 * target), symmetry, count, fill, src, dst)
    return count


def _pairs(kernel, keys: np.ndarray, symmetry: bool) -> tuple[np.ndarray, np.ndarray]:
    """Run a counting-then-filling kernel: ``(src_index, key)``, int64[m] each."""
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    count = kernel(keys, symmetry, False, keys[:0], keys[:0])
    src, dst = np.empty(count, dtype=np.int64), np.empty(count, dtype=np.int64)
    kernel(keys, symmetry, True, src, dst)
    return src, dst


class Dobutsu(Game):
    """Dobutsu shogi (see the module docstring), found by forward search from the start
    position (``start``: the standard one, or any position, for an endgame). The key is
    Tanaka's packing (:data:`HAND`); with ``symmetry`` on, the canonical position is the
    smaller key of the position and its mirror image, as in Tanaka's count.
    """

    name = "dobutsu"
    description = "Dobutsu shogi: lion, giraffe, elephant and chick on a 3x4 board, captures dropped back"
    position_syntax = (
        "the side to move's view: rows from the top joined by /, pieces L lion, G giraffe, "
        "E elephant, C chick, H hen, upper case the side to move's (moving up), lower case "
        "the opponent's, . empty; then the hands (C, E, G; upper case the side to move's) "
        f"or -, e.g. {START}, or start; a move is b2-b3, b2xb3 (a capture), a drop C*b2 "
        "(squares a1-c4 from the side to move's bottom left)"
    )
    parameters = (
        Parameter("start", "str", START, "the position forward search starts from (an endgame, or the standard start)",
                  _valid_start),
        Parameter("symmetry", "bool", True, "fold each position with its mirror image"),
    )
    threaded = True
    bytes_per_position = 23
    """Peak bytes a position of the whole game's build, measured for its 246,803,167
    positions (benchmarks/RESULTS.md)."""

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        self.symmetry = bool(self.params["symmetry"])
        self.start = parse_position(str(self.params["start"]))

    def estimate_positions(self) -> int:
        """Tanaka's 246,803,167 for the standard start (twice that unfolded); for
        another start, the placements of its pieces, each piece but the lions on a
        square or in either hand (an upper bound)."""
        if self.start == parse_position(START):
            return 246_803_167 * (1 if self.symmetry else 2)
        cells, hand = self.start
        others = len(cells.replace(".", "")) + len(hand) - 2
        return SQUARES * (SQUARES - 1) * (4 * (SQUARES - 2) + 2) ** others

    # ---- per position

    def start_positions(self) -> list[Position]:
        """The ``start`` position."""
        return [self.start]

    def moves(self, position: Position) -> list[tuple[Move, Position]]:
        """:func:`position_moves`."""
        return position_moves(position)

    def terminal(self, position: Position) -> Outcome | None:
        """:func:`position_terminal`."""
        return position_terminal(position)

    def encode(self, position: Position) -> int:
        """The key (:data:`HAND`)."""
        cells, hand = position
        key = 0
        for square, letter in enumerate(cells):
            if letter != ".":
                key |= (LETTERS.index(letter.upper()) | (0 if _owned(letter) else THEIRS)) << (4 * square)
        for offset, letters in ((0, "CEG"), (6, "ceg")):
            for kind, letter in enumerate(letters):
                key |= hand.count(letter) << (HAND + offset + 2 * kind)
        return key

    def decode(self, key: int) -> Position:
        """Inverse of :meth:`encode`."""
        cells = ""
        for square in range(SQUARES):
            piece = key >> (4 * square) & 15
            cells += LETTERS[piece & 7].lower() if piece & THEIRS else LETTERS[piece]
        hand = "".join(letter * (key >> (HAND + 2 * k) & 3) for k, letter in enumerate("CEGceg"))
        return cells, "".join(sorted(hand))

    def canonical(self, position: Position) -> Position:
        """The position or its mirror image, whichever has the smaller key (with
        ``symmetry``)."""
        return self.decode(int(self.canonical_keys(np.array([self.encode(position)], dtype=np.int64))[0]))

    def parse(self, text: str) -> Position:
        """:func:`parse_position`."""
        return parse_position(text)

    def format(self, position: Position) -> str:
        """:func:`format_position`."""
        return format_position(position)

    def board_drawing(self) -> tuple[str, dict[str, Any]]:
        """A board of :data:`COLUMNS` squares a row on the web pages, its pieces named."""
        return "shogi", {"columns": COLUMNS, "names": {"L": "lion", "G": "giraffe", "E": "elephant", "C": "chick", "H": "hen"}}

    def format_move(self, move: Move) -> str:
        """``b2-b3``, ``b2xb3`` (a capture), ``b3-b4+`` (a chick promoted) or ``C*b2``
        (a drop)."""
        letter, origin, target, taken = move
        if origin < 0:
            return f"{letter}*{_square_name(target)}"
        promoted = "+" if letter == "C" and target < COLUMNS else ""
        return f"{_square_name(origin)}{'-' if taken == '.' else 'x'}{_square_name(target)}{promoted}"

    # ---- batch

    def canonical_keys(self, keys: np.ndarray) -> np.ndarray:
        """int64[n]: the canonical key of each of int64[n] keys."""
        return _canonical_each(np.ascontiguousarray(keys, dtype=np.int64), self.symmetry)

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every move of each non-terminal key, compiled: ``(src_index, dst_key)``,
        int64[m] each, sources ascending; destinations canonical."""
        return _pairs(_successors, keys, self.symmetry)

    def predecessors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Un-moves of the side that just moved, compiled: un-drops, steps back, and
        steps back that put a captured piece back on the square (an elephant, giraffe,
        chick or hen, from the mover's hand), a hen on the far rank also stepped back as
        the chick it was. ``(src_index, pred_key)``, int64[m] each, canonical keys,
        terminal predecessors left out."""
        return _pairs(_predecessors, keys, self.symmetry)

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        """int8[n]: WIN, LOSS or :data:`NOT_TERMINAL` (:meth:`terminal`)."""
        return _terminal_each(np.ascontiguousarray(keys, dtype=np.int64))
