"""Six Men's Morris and its smaller kin: men placed, then moved, on two concentric
squares; a mill removes an opponent's man.

The board has 16 points, the corners and midpoints of two squares, joined along each
square's sides and between the squares' midpoints. A mill is three men of one side along
one side of a square (8 mills). Black (``x``) and white (``o``) in turn drop their
``men`` men on empty points (black first); once both have dropped them all, each turn
moves a man along a line to an adjacent empty point (no flying). A drop or a step that
closes a mill removes one opponent man that is not in a mill, any of them if all are
in mills (one man however many mills close). Once both hands are empty, the side to move
loses with fewer than three men, or with no step. Endless play is a draw.

These are the rules of R. Gasser's Nine Men's Morris solution ("Solving Nine Men's
Morris", Games of No Chance, 1996) without flying, as Six Men's Morris was solved by B.
Liou's tablebases ("Morris tablebases v1", github.com/brianhliou/game-solver, 2025: a
draw for 4, 5 and 6 men, with 4,111,151, 17,844,721 and 42,372,745 positions reachable
from the empty board) and by D. De Clercq (a draw).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from tablebase.core.errors import PositionError
from tablebase.core.game import Game
from tablebase.core.parameters import Parameter
from tablebase.core.values import NOT_TERMINAL, Outcome
from tablebase.generators.bitboards import KeySymmetries

POINTS = 16
"""Points 0 to 7 go clockwise round the outer square from its top-left corner, 8 to 15
the same round the inner square; odd points are midpoints."""

NAMES = ["a5", "c5", "e5", "e3", "e1", "c1", "a1", "a3", "b4", "c4", "d4", "d3", "d2", "c2", "b2", "b3"]
"""Each point's name on a 5x5 grid, columns a-e, rows 1-5 from the bottom."""

MILLS = np.array(
    [[ring + (2 * side + k) % 8 for k in range(3)] for ring in (0, 8) for side in range(4)], dtype=np.int64
)
"""int64[8, 3]: the points of each mill, the sides of the two squares."""

NEIGHBOURS = np.array(
    [
        [ring + (p - 1) % 8, ring + (p + 1) % 8, (p + 8 - ring) if p % 2 else -1]
        for ring in (0, 8)
        for p in range(8)
    ],
    dtype=np.int64,
)
"""int64[16, 3]: the points next to each point (-1 pads a corner's two)."""

HAND_BITS, BLACK_HAND, WHITE_HAND, WHITE_TO_MOVE = 3, 32, 35, 38
"""A key: black's men at bits 0-15, white's at 16-31, the men in each hand at bits
32-34 and 35-37, and bit 38 set when white is to move."""

Position = tuple[int, int, int, int, bool]
"""``(black, white, black_hand, white_hand, white_to_move)``: bitboards of the points
and the men still to drop."""

Move = tuple[int, int, int]
"""``(from, to, removed)``: ``from`` -1 for a drop, ``removed`` -1 when no mill closes."""


def _symmetry_maps() -> list[list[int]]:
    """The 16 symmetries of the board: the square's 8 (turns shift a ring by 2, mirrors
    reflect it) with or without swapping the two squares; the identity first."""
    ring_maps = [[(2 * k + p) % 8 for p in range(8)] for k in range(4)]
    ring_maps += [[(2 * k - p) % 8 for p in range(8)] for k in range(4)]
    return [
        [(ring ^ swap) * 8 + image[p] for ring in (0, 1) for p in range(8)]
        for swap in (0, 1)
        for image in ring_maps
    ]


@njit(cache=True)
def _in_mills(men: int) -> int:
    """The men of bitboard ``men`` that stand in one of its mills."""
    found = 0
    for m in range(MILLS.shape[0]):
        mask = (1 << MILLS[m, 0]) | (1 << MILLS[m, 1]) | (1 << MILLS[m, 2])
        if men & mask == mask:
            found |= mask
    return found


@njit(cache=True)
def _closes_mill(men: int, point: int) -> bool:
    for m in range(MILLS.shape[0]):
        mask = (1 << MILLS[m, 0]) | (1 << MILLS[m, 1]) | (1 << MILLS[m, 2])
        if mask >> point & 1 and men & mask == mask:
            return True
    return False


@njit(cache=True)
def _can_step(men: int, empty: int) -> bool:
    for p in range(POINTS):
        if men >> p & 1:
            for k in range(3):
                q = NEIGHBOURS[p, k]
                if q >= 0 and empty >> q & 1:
                    return True
    return False


@njit(cache=True)
def _popcount(bits: int) -> int:
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@njit(cache=True)
def _lost(key: int) -> bool:
    """Whether the side to move of ``key`` has lost: both hands empty, and fewer than
    three men or no step."""
    if (key >> BLACK_HAND) & 63:
        return False
    white = key >> WHITE_TO_MOVE & 1
    black_men, white_men = key & 0xFFFF, key >> 16 & 0xFFFF
    mover = white_men if white else black_men
    return _popcount(mover) < 3 or not _can_step(mover, 0xFFFF & ~(black_men | white_men))


@njit(cache=True)
def _lost_each(keys: np.ndarray) -> np.ndarray:
    """bool[n]: :func:`_lost` of each of int64[n] ``keys``."""
    lost = np.zeros(len(keys), dtype=np.bool_)
    for index in range(len(keys)):
        lost[index] = _lost(keys[index])
    return lost


@njit(cache=True)
def _moves(keys: np.ndarray, fill: bool, src: np.ndarray, dst: np.ndarray, moves: np.ndarray) -> int:
    """Every move of each of int64[n] ``keys`` (none where the side to move has lost);
    with ``fill``, written to ``src``, ``dst`` (the successor's key, not canonical) and
    ``moves`` (int64[m, 3], as :data:`Move`). Returns how many there are."""
    count = 0
    for index in range(len(keys)):
        key = keys[index]
        if _lost(key):
            continue
        white = key >> WHITE_TO_MOVE & 1
        black_men, white_men = key & 0xFFFF, key >> 16 & 0xFFFF
        mover, other = (white_men, black_men) if white else (black_men, white_men)
        hand = key >> (WHITE_HAND if white else BLACK_HAND) & 7
        other_hand = key >> (BLACK_HAND if white else WHITE_HAND) & 7
        empty = 0xFFFF & ~(black_men | white_men)
        removable = other & ~_in_mills(other)
        if removable == 0:
            removable = other
        for origin in range(-1, POINTS):
            if (origin < 0) != (hand > 0) or (origin >= 0 and not mover >> origin & 1):
                continue
            for k in range(POINTS if origin < 0 else 3):
                target = k if origin < 0 else NEIGHBOURS[origin, k]
                if target < 0 or not empty >> target & 1:
                    continue
                moved = mover | (1 << target)
                if origin >= 0:
                    moved ^= 1 << origin
                mill = _closes_mill(moved, target)
                for removed in range(-1, POINTS):
                    if removed < 0:
                        if mill and other != 0:
                            continue
                    elif not (mill and removable >> removed & 1):
                        continue
                    left = other ^ (1 << removed) if removed >= 0 else other
                    if fill:
                        new_hand = hand - 1 if origin < 0 else hand
                        if white:
                            child = left | moved << 16 | other_hand << BLACK_HAND | new_hand << WHITE_HAND
                        else:
                            child = moved | left << 16 | new_hand << BLACK_HAND | other_hand << WHITE_HAND | 1 << WHITE_TO_MOVE
                        src[count], dst[count] = index, child
                        moves[count, 0], moves[count, 1], moves[count, 2] = origin, target, removed
                    count += 1
    return count


class Morris(Game):
    """Men's Morris on 16 points (see the module docstring), found by forward search
    from the empty board. The key is laid out as :data:`HAND_BITS` tells; with
    ``symmetry`` on, the canonical position is the smallest key among the board's 16
    images.

    :raises ~tablebase.core.errors.ParameterError: unless ``3 <= men <= 7`` (16 points hold 14 men at most with
        a step left, and a hand holds 7 at most).
    """

    name = "morris"
    description = "Men's Morris on two squares (Six Men's Morris by default): drop, then step; a mill removes a man"
    position_syntax = (
        "the outer square's 8 points then the inner's, each clockwise from the top-left "
        "corner, as x (black), o (white) or ., joined by /, then the men in black's hand, "
        "in white's hand, and the side to move: x.o...../........ 5 5 x, or start; a move "
        "is a drop c4 or a step c4-d4, then xa1 for the man a mill removes"
    )
    parameters = (
        Parameter("men", "int", 6, "men a side (3 to 7; 6 is Six Men's Morris)",
                  lambda value: None if 3 <= value <= 7 else "must be 3 to 7"),
        Parameter("symmetry", "bool", True, "fold positions equal under the board's 16 symmetries"),
    )

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        self.men = int(self.params["men"])
        maps = _symmetry_maps() if self.params["symmetry"] else [list(range(POINTS))]
        self.symmetries = KeySymmetries.of_boards(maps, 2, extra_bits=7)

    # ---- per position

    def start_positions(self) -> list[Position]:
        """The empty board, every man in hand, black to move."""
        return [(0, 0, self.men, self.men, False)]

    def _turns(self, position: Position) -> list[tuple[Move, int]]:
        key = np.array([self.encode(position)], dtype=np.int64)
        count = _moves(key, False, key[:0], key[:0], np.zeros((0, 3), dtype=np.int64))
        src, dst, moves = np.zeros(count, np.int64), np.zeros(count, np.int64), np.zeros((count, 3), np.int64)
        _moves(key, True, src, dst, moves)
        return [(tuple(move), child) for move, child in zip(moves.tolist(), dst.tolist())]

    def moves(self, position: Position) -> list[tuple[Move, Position]]:
        """Drops while the mover has men in hand, else steps; each with every removal a
        closed mill allows."""
        return [(move, self.decode(child)) for move, child in self._turns(position)]

    def terminal(self, position: Position) -> Outcome | None:
        """``LOSS`` once both hands are empty for a side to move with fewer than three
        men or no step, else ``None``."""
        return Outcome.LOSS if _lost(self.encode(position)) else None

    def encode(self, position: Position) -> int:
        """The key (see :data:`HAND_BITS`)."""
        black, white, black_hand, white_hand, white_to_move = position
        return black | white << 16 | black_hand << BLACK_HAND | white_hand << WHITE_HAND | int(white_to_move) << WHITE_TO_MOVE

    def decode(self, key: int) -> Position:
        """Inverse of :meth:`encode`."""
        return key & 0xFFFF, key >> 16 & 0xFFFF, key >> BLACK_HAND & 7, key >> WHITE_HAND & 7, bool(key >> WHITE_TO_MOVE & 1)

    def canonical(self, position: Position) -> Position:
        """The image with the smallest key under the board's symmetries."""
        return self.decode(int(self.canonical_keys(np.array([self.encode(position)], dtype=np.int64))[0]))

    def parse(self, text: str) -> Position:
        """Read ``OUTER/INNER BLACK_HAND WHITE_HAND SIDE``. :raises PositionError: for bad
        syntax, more men than the game has, or a side to move that cannot be."""
        fields = text.split()
        if len(fields) != 4 or fields[0].count("/") != 1 or fields[3] not in ("x", "o"):
            raise PositionError(f"bad position {text!r}: expected e.g. x.o...../........ 5 5 x")
        points = fields[0].replace("/", "")
        if len(points) != POINTS or set(points) - set("xo.") or not all(f.isdigit() for f in fields[1:3]):
            raise PositionError(f"bad position {text!r}: two squares of 8 points each as x, o or ., and two hand counts")
        black = sum(1 << p for p, mark in enumerate(points) if mark == "x")
        white = sum(1 << p for p, mark in enumerate(points) if mark == "o")
        black_hand, white_hand, white_to_move = int(fields[1]), int(fields[2]), fields[3] == "o"
        if points.count("x") + black_hand > self.men or points.count("o") + white_hand > self.men:
            raise PositionError(f"bad position {text!r}: each side has {self.men} men at most, on the board and in hand")
        placing = black_hand or white_hand
        if placing and white_hand != black_hand + (1 if white_to_move else 0):
            raise PositionError(
                f"bad position {text!r}: black drops first, so white's hand holds as many men as black's when black "
                "is to move, one more when white is"
            )
        return black, white, black_hand, white_hand, white_to_move

    def format(self, position: Position) -> str:
        """``OUTER/INNER BLACK_HAND WHITE_HAND SIDE``, e.g. ``x.o...../........ 5 5 x``."""
        black, white, black_hand, white_hand, white_to_move = position
        marks = "".join("x" if black >> p & 1 else "o" if white >> p & 1 else "." for p in range(POINTS))
        return f"{marks[:8]}/{marks[8:]} {black_hand} {white_hand} {'o' if white_to_move else 'x'}"

    def board_drawing(self) -> tuple[str, dict[str, Any]]:
        """A Morris board on the web pages: each point where :data:`NAMES` puts it on the
        5x5 grid, and a line between each two neighbours."""
        return "morris", {
            "points": [("abcde".index(name[0]), 5 - int(name[1])) for name in NAMES],
            "lines": [(p, int(q)) for p in range(POINTS) for q in NEIGHBOURS[p] if q > p],
        }

    def format_move(self, move: Move) -> str:
        """``c4`` (a drop), ``c4-d4`` (a step), then ``xa1`` for a man removed."""
        origin, target, removed = move
        text = NAMES[target] if origin < 0 else f"{NAMES[origin]}-{NAMES[target]}"
        return text + (f"x{NAMES[removed]}" if removed >= 0 else "")

    # ---- batch

    def canonical_keys(self, keys: np.ndarray) -> np.ndarray:
        """int64[n]: the canonical key of each of int64[n] keys."""
        return self.symmetries.canonical(keys)

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every move of each key, compiled: ``(src_index, dst_key)``, int64[m] each,
        sources ascending, in the order of :meth:`moves`; destinations canonical."""
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        count = _moves(keys, False, keys[:0], keys[:0], np.zeros((0, 3), dtype=np.int64))
        src, dst = np.zeros(count, np.int64), np.zeros(count, np.int64)
        _moves(keys, True, src, dst, np.zeros((count, 3), dtype=np.int64))
        return src, self.canonical_keys(dst)

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        """int8[n]: LOSS where the side to move has lost, else :data:`NOT_TERMINAL`."""
        lost = _lost_each(np.ascontiguousarray(keys, dtype=np.int64))
        return np.where(lost, np.int8(Outcome.LOSS), np.int8(NOT_TERMINAL)).astype(np.int8)
