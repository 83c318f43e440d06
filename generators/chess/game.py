"""Chess endgame tablebases of up to 5 pieces, kings included, without castling.

Each material balance (``-p material=KQvKR``) is one tablebase; ``all3``, ``all4`` and
``all5`` are collections of every ending of up to 3, 4 or 5 pieces. ``-p metric`` picks what
is stored: DTM (the remoteness, distance to mate in plies without the 50-move rule, as
Gaviota's), DTZ under the 50-move rule with Syzygy's five categories (as Syzygy's), or
both (the default): checkmate is a loss at remoteness 0; stalemate and the endings in
which no mate is possible at all (KvK, KBvK, KNvK) are draws. Promotion is to Q, R, B or
N. A capture or a promotion leaves the tablebase for a smaller one (its
:meth:`Chess.dependencies`).

The per-position API uses python-chess (FEN, legality, SAN); the batch API runs over the
index space of :mod:`tablebase.generators.chess.layout` with the compiled kernels of
:mod:`tablebase.generators.chess.kernels` (the tests hold them to a vectorized numpy
move generator of their own, ``tests/numpy_chess``).

En passant: a position with a legal en passant capture has a key of its own (the ``ep``
bit of the layout, used by KPvKP), so that the position after a double push is valued
with the capture available, as Syzygy's generator values it. Every other position is
stored without an en passant right, as in Syzygy.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict
from typing import NamedTuple

import chess
import numpy as np

from tablebase.generators.chess.layout import NO_KEY, Layout
from tablebase.generators.chess.material import MAX_PIECES, PIECES, build_order, endings, normal_form, parse_material
from tablebase.generators.chess.children import children
from tablebase.generators.chess.kernels import Spec, exit_keys_kernel, generate_kernel, legal_kernel, spec_of, survey_kernel, unmoves_kernel
from tablebase.core.errors import ParameterError, PositionError
from tablebase.util.grouping import grouped
from tablebase.core.values import NOT_TERMINAL, Outcome, signed_distance
from tablebase.core.batches import BatchMoves, BatchSurvey, KeyWindow, LevelSplit
from tablebase.core.game import Game, Mode
from tablebase.core.parameters import Parameter, not_one_of


class ChessPosition(NamedTuple):
    """A chess position: the facts of a FEN that matter to a tablebase.

    :ivar board: the board part of a FEN, e.g. ``"K3r3/8/5k2/Q7/8/8/8/8"``.
    :ivar turn: the side to move, ``chess.WHITE`` (True) or ``chess.BLACK`` (False).
    :ivar ep_square: the en passant square (python-chess numbering, ``a1 = 0``) when an
        en passant capture is legal, else ``None``.
    :ivar halfmove: the half-move clock of the FEN (plies since the last capture or pawn
        move); shown, never used in values (DTZ counts from the position itself, as
        Syzygy's does, whatever the clock).
    :ivar fullmove: the full-move number of the FEN, advanced after black's move.

    Two positions that differ only in their clocks have the same key.
    """

    board: str
    turn: bool
    ep_square: int | None
    halfmove: int = 0
    fullmove: int = 1


class ChessMove(NamedTuple):
    """A legal move: ``san`` (e.g. ``"Qa8+"``, what :meth:`Chess.format_move` shows),
    ``uci`` (e.g. ``"a5a8"``, added by :meth:`Chess.move_details`), and ``zeroing``:
    whether it is a capture or a pawn move, which resets the 50-move counter."""

    san: str
    uci: str
    zeroing: bool = False


COLLECTIONS = {"all3": 3, "all4": 4, "all5": 5}
"""The collections of every ending up to 3, 4 and 5 pieces: no positions of their own."""

INSUFFICIENT = ("KvK", "KBvK", "KNvK")
"""Endings in which no mate is possible at all: every position is a draw."""

PROMOTIONS = "QRBN"

_PIECE_TYPES = {letter: chess.Piece.from_symbol(letter).piece_type for letter in PIECES}

_STATUS_PROBLEMS = (
    (int(chess.STATUS_NO_WHITE_KING | chess.STATUS_NO_BLACK_KING | chess.STATUS_TOO_MANY_KINGS),
     "each side needs exactly one king"),
    (int(chess.STATUS_PAWNS_ON_BACKRANK), "a pawn stands on the first or last rank"),
    (int(chess.STATUS_OPPOSITE_CHECK), "the side not to move is in check"),
    (int(chess.STATUS_INVALID_EP_SQUARE), "the en passant square does not follow a double pawn push"),
)

UNREACHABLE_CHECKS = int(chess.STATUS_TOO_MANY_CHECKERS | chess.STATUS_IMPOSSIBLE_CHECK)
"""Checks that no move can give (two checkers on one line through the king, three
checkers): positions no game reaches, but stored and valued as the Syzygy generator
stores and counts them, so they are accepted."""


def _compose(*maps):
    """The bitboard map applying ``maps`` right to left."""
    def composed(bitboard: int) -> int:
        for step in reversed(maps):
            bitboard = step(bitboard)
        return bitboard
    return composed


_TRANSFORMS = (
    _compose(),
    chess.flip_horizontal,
    chess.flip_vertical,
    _compose(chess.flip_horizontal, chess.flip_vertical),
    chess.flip_diagonal,
    _compose(chess.flip_diagonal, chess.flip_horizontal),
    _compose(chess.flip_diagonal, chess.flip_vertical),
    _compose(chess.flip_diagonal, chess.flip_horizontal, chess.flip_vertical),
)
"""The board's 8 symmetries as python-chess bitboard maps; with pawns only the first two
(identity and the mirror of files) keep the game the same."""


def _check_material(value: str) -> str | None:
    """The :class:`Parameter` check: an error message for a bad material, else None."""
    if value.strip().lower() in COLLECTIONS:
        return None
    try:
        parse_material(value)
    except ParameterError as error:
        return str(error)
    return None


def _sides(board: chess.Board) -> tuple[str, str]:
    """The board's material as (white side, black side), e.g. ``("KQ", "KR")``."""
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    pieces = (board.kings, board.queens, board.rooks, board.bishops, board.knights, board.pawns)  # PIECES' order
    counts = tuple([(bitboard & white).bit_count() for bitboard in pieces] + [(bitboard & black).bit_count() for bitboard in pieces])
    if counts not in _SIDES_OF_COUNTS:
        _SIDES_OF_COUNTS[counts] = tuple(  # type: ignore[assignment]
            "".join(letter * count for letter, count in zip(PIECES, half)) for half in (counts[:6], counts[6:])
        )
    return _SIDES_OF_COUNTS[counts]


_SIDES_OF_COUNTS: dict[tuple[int, ...], tuple[str, str]] = {}
""":func:`_sides` by the counts of each piece of each side (a few hundred materials)."""


def plainly_legal(board: chess.Board) -> bool:
    """Whether a board of at most :data:`MAX_PIECES` pieces is legal by the few checks
    python-chess's ``status()`` makes of such a board (one king a side, no pawn on the
    first or last rank, the side not to move not in check), without an en passant
    square: a third of ``status()``'s cost. False leaves the verdict to ``status()``."""
    return (
        board.ep_square is None
        and (board.kings & board.occupied_co[chess.WHITE]).bit_count() == 1
        and (board.kings & board.occupied_co[chess.BLACK]).bit_count() == 1
        and not board.pawns & chess.BB_BACKRANKS
        and not board.was_into_check()
    )


def material_name(board: chess.Board) -> str:
    """The normal-form material name of a board, e.g. ``"KQvKR"`` for either colouring."""
    return _material_of(_sides(board))


@functools.lru_cache(maxsize=1024)
def _material_of(sides: tuple[str, str]) -> str:
    """The normal-form material name of :func:`_sides` (cached: a probe asks it of
    every board)."""
    first, second, _swapped = normal_form(*sides)
    return f"{first}v{second}"


METRICS = ("both", "dtm", "dtz")
"""What a chess tablebase stores: DTM without the 50-move rule, DTZ under it (with
Syzygy's categories, see :mod:`tablebase.solve.dtz`), or both (the default)."""

KIND_OF_METRIC = {"both": Mode.DTZ_DTM, "dtm": Mode.WDL, "dtz": Mode.DTZ}
"""The value kind (:mod:`tablebase.solve.kinds`) each metric builds."""

_TABLES: dict[tuple[str, str], Chess] = {}

_MATING_MATERIAL = re.compile("[QRPqrp]")
"""A piece in a FEN's placement with which no position is insufficient material."""


class _Kept:
    """The last ``most`` things kept by position, the oldest dropped first (thread-safe)."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._kept: OrderedDict[ChessPosition, object] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, position: ChessPosition) -> object | None:
        with self._lock:
            return self._kept.get(position)

    def keep(self, position: ChessPosition, thing: object) -> None:
        self.keep_all([(position, thing)])

    def keep_all(self, pairs: list[tuple[ChessPosition, object]]) -> None:
        with self._lock:
            for position, thing in pairs:
                self._kept[position] = thing
                self._kept.move_to_end(position)
            while len(self._kept) > self.most:
                self._kept.popitem(last=False)


_BOARDS = _Kept(4096)
"""The boards of the positions read last, read in place (:meth:`Chess._read_board`), never
changed: a caller that changes a board takes a copy."""

_ENDED = _Kept(4096)
"""Of the successors of the positions whose moves were made last (:meth:`Chess.keyed_moves`),
whether each one's side to move is in check and whether it has no legal move: what
:meth:`Chess.position_details` then tells of it without a board."""


def board_fen(board: chess.Board) -> str:
    """``board.board_fen()``, from the occupied squares alone (python-chess reads all 64,
    a tenth of a query's time)."""
    ranks: list[list[tuple[int, str]]] = [[] for _ in range(8)]
    for square, piece in board.piece_map().items():
        ranks[square >> 3].append((square & 7, piece.symbol()))
    rows = []
    for placed in reversed(ranks):
        if not placed:
            rows.append("8")
            continue
        row, file = "", 0
        for at, symbol in sorted(placed):
            row += (str(at - file) if at > file else "") + symbol
            file = at + 1
        rows.append(row + (str(8 - file) if file < 8 else ""))
    return "/".join(rows)


def table(material: str, metric: str = METRICS[0]) -> Chess:
    """The one shared :class:`Chess` instance of a normal-form material name and metric."""
    if (material, metric) not in _TABLES:
        _TABLES[material, metric] = Chess(material=material, metric=metric)
    return _TABLES[material, metric]


class _Exits(NamedTuple):
    """The captures and promotions of a batch, as
    :func:`~tablebase.generators.chess.kernels.generate_kernel` gives them: int64[e]
    ``row`` of each, its ``event`` (the number of its kind, :attr:`Chess._events`'s
    order) and int64[e, slots] the ``squares`` after it."""

    row: np.ndarray
    event: np.ndarray
    squares: np.ndarray


class _Child(NamedTuple):
    """Where one way of leaving the tablebase leads: the ``table`` it is among
    :meth:`Chess.dependencies`, the child's slots as this layout's (``order``
    int64[c]), whether its colours are reversed (``swapped``), and its layout as the
    kernels read it (``spec``)."""

    table: int
    order: np.ndarray
    swapped: bool
    spec: Spec


class Chess(Game):
    """Chess endgames; see the module docstring.

    Positions are :class:`ChessPosition` and moves :class:`ChessMove`. Keys follow
    :mod:`tablebase.generators.chess.layout`: white holds the first (stronger) side of the material
    name, and a position with the colours reversed belongs to the same tablebase through
    the colour flip. A collection (``all3``, ``all4``, ``all5``) has no positions
    (``size == 0``); its :meth:`members` are its endings.

    :raises ParameterError: for a bad material name (see
        :func:`tablebase.generators.chess.material.parse_material`).
    """

    name = "chess"
    modes = tuple(KIND_OF_METRIC.values())
    sides_alternate = True
    """A key's lowest bit is its side to move (:mod:`tablebase.generators.chess.layout`)."""
    version = 2
    """2: positions with a check no move can give (two checkers on a line through the
    king, three checkers) are stored, as the Syzygy generator stores and counts them."""
    description = "Chess endgames of up to 5 pieces (no castling): exact distance to mate"
    position_syntax = (
        "a FEN with at most 5 pieces and no castling rights, e.g. "
        "'K3r3/8/5k2/Q7/8/8/8/8 w - - 0 1'; moves are shown in SAN"
    )
    parameters = (
        Parameter(
            "material", "str", "all3",
            "an ending such as KQvKR (kings included, at most 5 pieces), "
            "or all3 / all4 / all5 for every ending up to 3 / 4 / 5 pieces",
            _check_material,
        ),
        Parameter(
            "metric", "str", METRICS[0],
            "dtm (distance to mate, no 50-move rule), dtz (distance to zeroing under the "
            "50-move rule, with Syzygy's five categories) or both",
            lambda value: None if value in METRICS else not_one_of("metric", value, METRICS),
        ),
    )

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        text = self.params["material"].strip()
        self.layout: Layout | None = None
        self.spec: Spec | None = None
        """The layout for the compiled kernels; None for a collection."""
        if text.lower() in COLLECTIONS:
            self.material = text.lower()
            self.size = 0
        else:
            white, black = parse_material(text)
            self.material = f"{white}v{black}"
            self.layout = Layout(white, black)
            self.spec = spec_of(self.layout)
            self.threaded = True
            self.size = self.layout.size
            self.moves_cross_sides = self.layout.colour_flip is None
            """An ending of unlike sides: a move always changes the key's side bit (in
            one of like sides, KRvKR, the canonical form may swap the colours)."""
            self.dtm_left_out_by_default = self.layout.count >= 5 and self.moves_cross_sides and "P" in white and "P" not in black
            """In an ending of five pieces where white alone has pawns (KRPvKR, KPPvKR):
            those hold the DTM that compresses worst (KRPvKR 0.389 bytes a position with
            both sides', KRBvKR 0.164), and a build reaches black to move's positions of
            them only through white's promotions from endings without black pawns
            either (with a black pawn too, KQvKP, KPvKP's promotions reach it: valuing
            their DTM from the moves took KPvKP's build 1.12 times as long). Endings of
            four pieces keep both sides: all4 weighs 37 MB, and the 5-piece endings'
            captures reach them (KRPvKR's into KRPvK: 5.3 million positions valued from
            their moves, 3.6 s; benchmarks/RESULTS.md)."""
        self.params["material"] = self.material
        self.metric = self.params["metric"]
        self.mode = KIND_OF_METRIC[self.metric]
        self._dependencies: list[Chess] | None = None
        self._children: list[_Child] | None = None

    # ---- sub-tablebases

    def members(self) -> list[Game]:
        """For a collection, every ending of up to 3, 4 or 5 pieces in build order (the
        shared instances of :func:`table`, with this metric); else ``[self]``."""
        if self.layout is None:
            return [table(name, self.metric) for name in endings(COLLECTIONS[self.material])]
        return [self]

    def dependencies(self) -> list[Game]:
        """The endings that captures and promotions lead into (none for KvK, KBvK, KNvK,
        whose positions are all terminal, and none for a collection, which is no
        tablebase), fewest pieces and pawns first, as the shared instances of
        :func:`table`."""
        if self._dependencies is None:
            names = sorted({name for name, _slots, _swapped in self._events.values()}, key=build_order)
            self._dependencies = [table(name, self.metric) for name in names]
        return list(self._dependencies)

    def stored(self, position: ChessPosition) -> bool:
        """False for a position with a legal en passant capture in an ending whose keys
        have no en passant bit (pawns on both sides, not one each: KPPvKP): its tablebase
        holds it without the right, as Syzygy's do, so the query layer values it from its
        moves, as Syzygy's probers do."""
        return position.ep_square is None or self.layout is None or self.layout.en_passant

    def table_of(self, position: ChessPosition) -> Game:
        """``self`` for a position of this material (either colouring), else the shared
        instance of the position's material (:func:`table`)."""
        name = material_name(self._read_board(position))
        return self if name == self.material else table(name, self.metric)

    @functools.cached_property
    def _events(self) -> dict[tuple[int, int, str], tuple[str, np.ndarray, bool]]:
        """The ways to leave the tablebase, by ``(moving slot, captured slot or -1,
        promotion piece letter or "")``, each with what :meth:`_child` gives. A pawn
        never takes a pawn while promoting (no pawn stands on the last rank). Made at
        first use: a probe of an ending needs its layout alone (KRPvKR's 15 children's
        layouts took 0.3 of the 0.6 ms of its first probe's instance)."""
        layout = self.layout
        if layout is None or self.material in INSUFFICIENT:
            return {}
        events = {}
        for slot, piece in enumerate(layout.types):
            for captured in [-1] + layout.slots(1 - int(layout.colours[slot]))[1:]:
                options = [""] if captured >= 0 else []
                if piece == "P" and (captured < 0 or layout.types[captured] != "P"):
                    options += list(PROMOTIONS)
                for promotion in options:
                    events[(slot, captured, promotion)] = self._child(slot, captured, promotion)
        return events

    def exit_window(self, dependency: Game) -> KeyWindow | None:
        """The keys of ``dependency`` a promotion can reach when only promotions lead
        there: the promoted piece on the last rank (the first of its identical pieces,
        which a canonical key orders by descending square, on the eighth rank; the last
        on the first rank). ``None`` for a dependency without pawns or with the colour
        flip (whose symmetries move the last rank), or reached by another move."""
        windows = set()
        for (slot, _captured, promotion), (name, order, swapped) in self._events.items():
            if name == dependency.material:
                windows.add(self._promotion_window(slot, name, order, swapped) if promotion else None)
        return windows.pop() if len(windows) == 1 else None

    def _promotion_window(self, slot: int, name: str, order: np.ndarray, swapped: bool) -> KeyWindow | None:
        """:meth:`exit_window` of one promotion by the pawn of ``slot``, into the
        ending ``name`` (its slots and colours as :meth:`_child` gives them)."""
        child = table(name).layout
        if "P" not in child.types or child.colour_flip is not None:
            return None
        placed = int(np.flatnonzero(order == slot)[0])
        first, end = next(((f, e) for f, e in child.twins if f <= placed < e), (placed, placed + 1))
        eighth = (int(self.layout.colours[slot]) == 0) != swapped
        digit_slot = first if eighth else end - 1
        return KeyWindow(2 * len(child.region) * 64 ** (digit_slot - 1), 64, 56 if eighth else 0, 8)

    @functools.cached_property
    def _event_numbers(self) -> np.ndarray:
        """int64[slots, slots + 1, 5]: the number of each of :attr:`_events` (its
        place in them) by moving slot, captured slot + 1 (0 for none) and promotion (0
        for none, 1 to 4 for Q R B N); -1 for none."""
        count = self.layout.count if self.layout is not None else 0
        numbers = np.full((count, count + 1, 1 + len(PROMOTIONS)), -1, dtype=np.int64)
        for number, (slot, captured, promotion) in enumerate(self._events):
            numbers[slot, captured + 1, 1 + PROMOTIONS.index(promotion) if promotion else 0] = number
        return numbers

    def _child(self, slot: int, captured: int, promotion: str) -> tuple[str, np.ndarray, bool]:
        """The tablebase a move leads into: its material name, its slots as this
        layout's slots (int64[child slots]), and whether its colours are reversed."""
        layout = self.layout
        pieces = [(int(colour), letter) for colour, letter in zip(layout.colours, layout.types)]
        pieces[slot] = (pieces[slot][0], promotion or pieces[slot][1])
        survivors = [j for j in range(layout.count) if j != captured]
        white, black = ("".join(pieces[j][1] for j in survivors if pieces[j][0] == colour) for colour in (0, 1))
        first, second, swapped = normal_form(white, black)
        child = Layout(first, second)
        order = []
        for colour, letter in zip(child.colours, child.types):
            order.append(next(j for j in survivors if j not in order and pieces[j] == (colour ^ swapped, letter)))
        return f"{first}v{second}", np.array(order, dtype=np.int64), swapped

    # ---- per position (python-chess)

    @staticmethod
    def _board(position: ChessPosition) -> chess.Board:
        """A python-chess board of a position (no castling rights), with its clocks, the
        caller's to change: a copy of :meth:`_read_board`'s."""
        return Chess._read_board(position).copy(stack=False)

    @staticmethod
    def _read_board(position: ChessPosition) -> chess.Board:
        """The board of a position that :data:`_BOARDS` keeps (read from the FEN and
        kept if it has none), to be read only: never changed, not even and undone."""
        cached = _BOARDS.get(position)
        if cached is not None:
            return cached  # type: ignore[return-value]
        board = chess.Board(None)
        board.set_board_fen(position.board)
        board.turn = position.turn
        board.ep_square = position.ep_square
        board.halfmove_clock = position.halfmove
        board.fullmove_number = position.fullmove
        _BOARDS.keep(position, board)
        return board

    @staticmethod
    def _position(board: chess.Board) -> ChessPosition:
        """The position of a board, keeping its en passant square only where an en
        passant capture is legal, and its clocks."""
        ep_square = board.ep_square if board.has_legal_en_passant() else None
        return ChessPosition(board_fen(board), board.turn, ep_square, board.halfmove_clock, board.fullmove_number)

    def warm_up_positions(self) -> list[str]:
        """A KvK position (every chess tablebase depends on KvK), then positions with a
        promotion (KPvK), a king's capture (KPvK) and a piece's capture (KRvKR) where
        they are stored: between them their queries run every compiled step of a
        query's moves."""
        return ["8/8/8/8/8/2k5/8/K7 w - - 0 1", "8/1P6/8/8/8/2k5/8/K7 w - - 0 1", "8/8/8/8/8/8/3P4/K1k5 b - - 0 1", "8/8/8/8/8/2k5/8/KR5r w - - 0 1"]

    def start_positions(self) -> list[ChessPosition]:
        """:raises NotImplementedError: always; a chess tablebase has no start position."""
        raise NotImplementedError("chess tablebases have no start position: give a FEN")

    def parse(self, text: str) -> ChessPosition:
        """Read a FEN (python-chess syntax): of this tablebase's material, or of any
        material of at most 5 pieces for a collection (``all3``, ``all4``, ``all5``).

        :raises PositionError: (a usage error) for a FEN of another material than a
            single ending's, a FEN python-chess cannot read, more than 5 pieces,
            castling rights, or an illegal position (not exactly one king each, a pawn
            on the first or last rank, the side not to move in check, a bad en passant
            square); a check no move can give is accepted (the Syzygy generator values
            such positions too).
        """
        try:
            board = chess.Board(text.strip())
        except ValueError as error:
            raise PositionError(f"bad FEN {text!r}: {error}") from None
        self._check(board, text)
        position = self._position(board)
        board.ep_square = position.ep_square  # the board of the position, kept: no FEN read again
        _BOARDS.keep(position, board)
        return position

    def board_key(self, board: chess.Board) -> tuple[Chess, int]:
        """The tablebase of a python-chess board and its canonical key there, read from
        the board's bitboards (no FEN is written or parsed): the fast path of probes.

        :raises PositionError: as :meth:`parse` for the board's FEN, and for a board that
            is not :meth:`stored` (probe its FEN instead).
        """
        sides = self._checked_sides(board)
        material = _material_of(sides)
        owner = self if material == self.material else table(material, self.metric)
        if board.ep_square is not None and not owner.stored(self._position(board)):
            raise PositionError(f"{board.fen()}: en passant makes it a position valued from its moves, not stored")
        return owner, owner._board_canonical_key(board, sides)

    def _check(self, board: chess.Board, text: str | None = None) -> str:
        """The normal-form material of a board that this game can value.

        :param text: the FEN it was read from, for messages (default: the board's).
        :raises PositionError: as :meth:`parse` says.
        """
        return _material_of(self._checked_sides(board, text))

    def _checked_sides(self, board: chess.Board, text: str | None = None) -> tuple[str, str]:
        """:func:`_sides` of a board that this game can value.

        :raises PositionError: as :meth:`parse` says.
        """
        pieces = chess.popcount(board.occupied)
        if pieces > MAX_PIECES:
            raise PositionError(
                f"bad FEN {text or board.fen()!r}: {pieces} pieces; chess tablebases hold at most {MAX_PIECES}, kings included"
            )
        if board.castling_rights:
            raise PositionError(f"bad FEN {text or board.fen()!r}: castling rights are not allowed in a tablebase; write '-'")
        if plainly_legal(board):
            return self._own_sides(board, text)
        status = int(board.status()) & ~UNREACHABLE_CHECKS  # plain integers: IntFlag arithmetic is slow
        if not status:
            return self._own_sides(board, text)
        for flags, problem in _STATUS_PROBLEMS:
            if status & flags:
                raise PositionError(f"illegal FEN {text or board.fen()!r}: {problem}")
        raise PositionError(f"illegal FEN {text or board.fen()!r}: python-chess status {status:#x}")

    def _own_sides(self, board: chess.Board, text: str | None) -> tuple[str, str]:
        """:func:`_sides` of a board of this tablebase's material (either colouring), or
        of any material for a collection.

        :raises PositionError: for a board of another material.
        """
        sides = _sides(board)
        if self.layout is not None and (self.layout.white, self.layout.black) not in (sides, sides[::-1]):
            raise PositionError(
                f"FEN {text or board.fen()!r} is a {material_name(board)} position, not {self.material} as -p material says; "
                "leave -p material out to query any material"
            )
        return sides

    def format(self, position: ChessPosition) -> str:
        """The FEN, with no castling rights, and the position's half-move clock and
        full-move number (0 and 1 for a position decoded from a key)."""
        ep = "-" if position.ep_square is None else chess.SQUARE_NAMES[position.ep_square]
        turn = "w" if position.turn else "b"
        return f"{position.board} {turn} - {ep} {position.halfmove} {position.fullmove}"

    def format_move(self, move: ChessMove) -> str:
        """The move in SAN, e.g. ``Qa8+``."""
        return move.san

    def move_details(self, move: ChessMove) -> dict[str, str | bool]:
        """The move in UCI, e.g. ``{"uci": "a5a8"}`` (``"e7e8q"`` for a promotion),
        with ``san`` and ``zeroing`` (a capture or pawn move), lichess's names."""
        return {"uci": move.uci, "san": move.san, "zeroing": move.zeroing}

    def position_details(self, position: ChessPosition) -> dict[str, bool]:
        """Why a position may have ended, as python-chess tells: ``checkmate``,
        ``stalemate`` and ``insufficient_material`` (no sequence of legal moves can mate:
        KvK, KBvK, KNvK, or bishops all on squares of one colour). A successor of a
        position whose moves were just made is told without a board (:data:`_ENDED`)."""
        ended = _ENDED.get(position)
        if ended is None:
            board = self._read_board(position)
            ended = (board.is_check(), not any(board.generate_legal_moves()))  # one search for a legal move
        check, stuck = ended  # type: ignore[misc]
        pieces = position.board
        insufficient = not _MATING_MATERIAL.search(pieces) and self._read_board(position).is_insufficient_material()
        return {"checkmate": stuck and check, "stalemate": stuck and not check, "insufficient_material": insufficient}

    def value_details(self, outcome: Outcome, remoteness: int | None) -> dict[str, int]:
        """``dtm``, lichess's signed distance to mate in plies (negative when the side
        to move is mated, 0 for a draw), and the conventional count in moves,
        ``{"mate_in": n}``: the moves the winning side makes until mate, whichever side
        that is (a win in ``2n - 1`` plies, a loss in ``2n``; 0 for a side that is
        mated); none without DTM."""
        if outcome == Outcome.DRAW:
            return {"dtm": 0} if self.metric != "dtz" else {}
        if remoteness is None:
            return {}
        return {"dtm": signed_distance(outcome, remoteness), "mate_in": (remoteness + 1) // 2}

    def moves(self, position: ChessPosition) -> list[tuple[ChessMove, ChessPosition]]:
        """Every legal move (en passant included), with its position (:meth:`keyed_moves`)."""
        return [(move, child) for move, child, _table, _key in self.keyed_moves(position)]

    def keyed_moves(self, position: ChessPosition) -> list[tuple[ChessMove, ChessPosition, Game | None, int]]:
        """Every legal move with its SAN and UCI as python-chess writes them, and its
        position, tablebase and canonical key, from one compiled call
        (:func:`~tablebase.generators.chess.children.children`); a position with an en
        passant square keeps it only where the capture is legal. The clocks advance as
        python-chess's ``Board.push`` advances them: the half-move clock is reset by a
        capture or a pawn move, the full-move number grows after black's move."""
        owner = self.table_of(position)
        if owner is not self:
            return owner.keyed_moves(position)
        assert self.layout is not None
        board = self._read_board(position)
        flip = _sides(board) != (self.layout.white, self.layout.black)
        found = children(board, self._slot_squares(board, flip), flip, self.spec, self._event_numbers, self._children_of_events())
        dependencies = self.dependencies()
        turn, fullmove = not board.turn, position.fullmove + (board.turn == chess.BLACK)
        keyed: list[tuple[ChessMove, ChessPosition, Game | None, int]] = []
        ended = []
        for child in found:
            after = ChessPosition(child.board_fen, turn, child.en_passant, 0 if child.zeroing else position.halfmove + 1, fullmove)
            ended.append((after, (child.check, child.stuck)))
            move = ChessMove(child.san, child.uci, child.zeroing)
            if child.table is None:  # a way out this tablebase does not number
                keyed.append((move, after, *self.stored_key(after)))
                continue
            table = self if child.table < 0 else dependencies[child.table]
            stored = table.stored(after)
            keyed.append((move, after, table if stored else None, child.key if stored else -1))
        _ENDED.keep_all(ended)
        return keyed

    def terminal(self, position: ChessPosition) -> Outcome | None:
        """``LOSS`` when checkmated, ``DRAW`` for stalemate or an ending without any
        mate (:data:`INSUFFICIENT`), else ``None``."""
        board = self._read_board(position)
        if material_name(board) in INSUFFICIENT:
            return Outcome.DRAW
        if board.is_checkmate():
            return Outcome.LOSS
        return Outcome.DRAW if board.is_stalemate() else None

    def _placement(self, board: chess.Board) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(stm, ep, squares)`` arrays of one row for a board of this tablebase's
        material in its own colouring (white holds the first side).

        :raises PositionError: for another material or colouring.
        """
        if self.layout is None or _sides(board) != (self.layout.white, self.layout.black):
            first = self.material.split("v")[0]
            raise PositionError(f"{board.fen()}: not a {self.material} position with white holding {first}")
        ep = int(board.has_legal_en_passant())
        return np.array([int(not board.turn)]), np.array([ep]), np.array([self._slot_squares(board)], dtype=np.int64)

    def _slot_squares(self, board: chess.Board, flip: bool = False) -> list[int]:
        """The square of each slot of the layout on a board of its material (with
        ``flip``, on the board's colour flip, ``Board.mirror``), identical pieces in
        ascending squares."""
        squares = [0] * self.layout.count
        mirror = 56 if flip else 0
        for piece_type, white, slots in self._slot_groups:
            mask = board.pieces_mask(piece_type, white ^ flip)
            if len(slots) == 1:
                squares[slots[0]] = (mask.bit_length() - 1) ^ mirror
                continue
            for slot, square in zip(slots, sorted(square ^ mirror for square in chess.scan_forward(mask))):
                squares[slot] = square
        return squares

    @functools.cached_property
    def _slot_groups(self) -> list[tuple[int, bool, list[int]]]:
        """The slots of the layout by piece: ``(python-chess piece type, white, slots in
        ascending order)``, identical pieces in one group."""
        groups: dict[tuple[int, bool], list[int]] = {}
        for slot, (colour, letter) in enumerate(zip(self.layout.colours, self.layout.types)):
            groups.setdefault((_PIECE_TYPES[letter], not colour), []).append(slot)
        return [(piece_type, white, slots) for (piece_type, white), slots in groups.items()]

    def encode(self, position: ChessPosition) -> int:
        """The key of a position as it stands (see :mod:`tablebase.generators.chess.layout`).

        :raises PositionError: for another material or colouring, or the white king
            outside its region; :meth:`canonical_key` takes any position of the material.
        """
        key = int(self.layout.keys_of(*self._placement(self._read_board(position)))[0]) if self.layout else NO_KEY
        if key == NO_KEY:
            shown = self.format(position)
            raise PositionError(f"{shown}: not in the index space of {self.material}; use its canonical form")
        return key

    def decode(self, key: int) -> ChessPosition:
        """The position of a key (inverse of :meth:`encode` on legal keys)."""
        stm, ep, squares = self.layout.decode(np.array([key], dtype=np.int64))
        board = chess.Board(None)
        for square, colour, letter in zip(squares[0].tolist(), self.layout.colours, self.layout.types):
            board.set_piece_at(square, chess.Piece(_PIECE_TYPES[letter], not colour))
        board.turn = not stm[0]
        if ep[0]:
            pawn = next(s for s in self.layout.slots(int(stm[0]) ^ 1) if self.layout.types[s] == "P")
            board.ep_square = int(squares[0, pawn]) + (-8 if stm[0] else 8)
        return self._position(board)

    def canonical_key(self, position: ChessPosition) -> int:
        """The key of :meth:`canonical` (the same one), from the squares of the position
        or of its colour flip by :meth:`Layout.canonical_key`, the build's own
        canonical form, in plain integers (no board is transformed).

        :raises PositionError: for a position of another material.
        """
        return self._board_canonical_key(self._read_board(position))

    def _board_canonical_key(self, board: chess.Board, sides: tuple[str, str] | None = None) -> int:
        """:meth:`canonical_key` of a python-chess board, whose :func:`_sides` may be given."""
        ours = (self.layout.white, self.layout.black) if self.layout else None
        sides = sides or _sides(board)
        if ours not in (sides, sides[::-1]):
            raise PositionError(f"{board.fen()}: not a position of {self.material}")
        flip = sides != ours  # read as the colour flip (Board.mirror) does
        squares = self._slot_squares(board, flip)
        return self.layout.canonical_key(int(not board.turn) ^ flip, int(board.has_legal_en_passant()), squares)

    def canonical(self, position: ChessPosition) -> ChessPosition:
        """The image of the position with the smallest key, under the board symmetries
        (python-chess transforms) and the colour flip (``Board.mirror``), among those in
        this tablebase's colouring.

        :raises PositionError: for a position of another material.
        """
        board = self._read_board(position)
        ours = (self.layout.white, self.layout.black) if self.layout else None
        colourings = [b for b in (board, board.mirror()) if _sides(b) == ours]
        if not colourings:
            raise PositionError(f"{self.format(position)}: not a position of {self.material}")
        symmetries = _TRANSFORMS[:2] if "P" in self.layout.types else _TRANSFORMS
        images = [b.transform(symmetry) for b in colourings for symmetry in symmetries]
        keys = [int(self.layout.keys_of(*self._placement(image))[0]) for image in images]
        return self._position(images[keys.index(min(keys))])

    # ---- batch (vectorized)

    def legal(self, keys: np.ndarray) -> np.ndarray:
        """bool[n]: the canonical keys of legal positions (see
        :func:`~tablebase.generators.chess.kernels.legal_kernel`); none for a collection."""
        if self.layout is None:
            return np.zeros(len(keys), dtype=bool)
        return legal_kernel(np.asarray(keys, dtype=np.int64), self.spec, self.layout.en_passant)

    def expand(self, keys: np.ndarray) -> BatchMoves:
        """Terminal values, moves within the tablebase and captures and promotions of
        int64[n] canonical keys from one compiled generation
        (:func:`~tablebase.generators.chess.kernels.generate_kernel`), ``src`` ascending
        (see :class:`~tablebase.core.game.BatchMoves`). Every position of KvK, KBvK and KNvK
        is a draw; captures and promotions count as moves."""
        return self._generated(keys, with_exits=True)

    def _generated(self, keys: np.ndarray, with_exits: bool) -> BatchMoves:
        """:meth:`expand`, its exits left empty unless ``with_exits`` (each exit's
        canonical key in its dependency costs compiled work (``exit_keys_kernel``))."""
        keys = np.asarray(keys, dtype=np.int64)
        none = np.zeros(0, dtype=np.int64)
        if self.material in INSUFFICIENT:
            return BatchMoves(np.full(len(keys), Outcome.DRAW, dtype=np.int8), none, none, (none, none, none))
        terminal, src, dst, row, event, squares = generate_kernel(keys, self.spec, self._event_numbers, bool(self.spec.pawns[0] >= 0))
        live = np.flatnonzero(terminal == NOT_TERMINAL)
        exits = (none, none, none)
        if with_exits and self._events:
            exits = self._compiled_exits(_Exits(live[row], event, squares), keys & 1)
        return BatchMoves(terminal, live[src], dst, exits)

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The moves that stay in the tablebase (no capture, no promotion), from
        :meth:`expand`.

        :param keys: int64[n] canonical keys of non-terminal positions.
        :returns: ``(src_index, dst_key)``, int64[m] each, ``src_index`` ascending;
            destination keys are canonical.
        """
        moves = self._generated(keys, with_exits=False)
        return moves.src, moves.dst

    def survey_batch(self, keys: np.ndarray, split: LevelSplit | None = None) -> BatchSurvey | None:
        """Legality, terminal values, distinct moves (those to another level of
        ``split`` listed) and exits of int64[n] keys in one compiled pass
        (:func:`~tablebase.generators.chess.kernels.survey_kernel`)."""
        keys = np.asarray(keys, dtype=np.int64)
        none = np.zeros(0, dtype=np.int64)
        if self.material in INSUFFICIENT:
            legal = self.legal(keys)
            return BatchSurvey(legal, np.full(len(keys), Outcome.DRAW, np.int8), np.zeros(len(keys), np.int64), (none, none), (none, none, none))
        levels, block, level = (split.levels, split.block, split.level) if split is not None else (np.zeros(1, np.int64), 1 << 62, 0)
        legal, terminal, moves, cross_row, cross_key, row, event, squares = survey_kernel(
            keys, self.spec, self._event_numbers, self.layout.en_passant, levels, block, level
        )
        exits = self._compiled_exits(_Exits(row, event, squares), keys & 1) if self._events else (none, none, none)
        return BatchSurvey(legal, terminal, moves, (cross_row, cross_key), exits)

    distinct_unmoves = True
    """:meth:`predecessors` lists each pair once (``unmoves_kernel``)."""

    def predecessors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Un-moves within the tablebase (see
        :func:`~tablebase.generators.chess.kernels.unmoves_kernel`).

        :param keys: int64[n] canonical keys.
        :returns: ``(src_index, pred_key)``, int64[m] each, ``src_index`` ascending;
            predecessor keys are canonical, some of them illegal.
        """
        return unmoves_kernel(np.asarray(keys, dtype=np.int64), self.spec, self.layout.en_passant)

    def progress(self, keys: np.ndarray) -> np.ndarray:
        """int64[n]: how far the pawns have advanced, each by its ranks from its own
        side; every pawn move raises it, every other move that stays in the tablebase
        keeps it (the colour flip of KPvKP keeps it too), so the DTZ pass tells pawn
        moves by it (:mod:`tablebase.solve.dtz`). 0 without pawns, and for a
        collection, which has no positions.

        :param keys: int64[n] keys of this tablebase.
        """
        if self.layout is None:
            return np.zeros(len(keys), dtype=np.int64)
        _stm, _ep, squares = self.layout.decode(np.asarray(keys, dtype=np.int64))
        total = np.zeros(len(squares), dtype=np.int64)
        for slot, piece in enumerate(self.layout.types):
            if piece == "P":
                rank = squares[:, slot] >> 3
                total += rank if self.layout.colours[slot] == 0 else 7 - rank
        return total

    def zeroing_inside(self) -> bool:
        """Whether pawn moves stay in the tablebase: whether it has pawns."""
        return self.layout is not None and "P" in self.layout.types

    def progress_block(self) -> int:
        """The keys that share the squares of every slot from the first pawn's on (the
        pawns, and the black pieces after white's pawns), so their :meth:`progress`:
        ``2 * R * 64 ** (slot - 1)`` for that slot (the module docstring of
        :mod:`~tablebase.generators.chess.layout`); the whole index space without pawns."""
        if not self.zeroing_inside():
            return max(int(self.size or 1), 1)
        assert self.layout is not None
        return 2 * len(self.layout.region) * 64 ** (self.layout.types.index("P") - 1)

    def exits(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The captures and promotions, which lead into :meth:`dependencies`, from
        :meth:`expand`.

        :param keys: int64[n] canonical keys of non-terminal positions.
        :returns: ``(src_index, table, key)``, int64[m] each, ``src_index`` ascending:
            ``table`` indexes :meth:`dependencies`, ``key`` is canonical there.
        """
        return self.expand(keys).exits

    def _compiled_exits(self, exits: _Exits, stm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`exits` of the compiled kernels' captures and promotions (rows
        ascending), each kind's child keys computed in one compiled call."""
        children = self._children_of_events()
        tables = np.array([child.table for child in children], dtype=np.int64)[exits.event]
        dst = np.empty(len(exits.row), dtype=np.int64)
        by_event, starts = grouped(exits.event, len(children))
        movers = stm[exits.row]
        for event, (start, end) in enumerate(zip(starts[:-1].tolist(), starts[1:].tolist())):
            if end > start:
                child = children[event]
                exit_keys_kernel(exits.squares, movers, by_event[start:end], child.order, int(child.swapped), child.spec, dst)
        return exits.row, tables, dst

    def _children_of_events(self) -> list[_Child]:
        """Where each of :attr:`_events` leads (made once; the list is made whole
        before it is kept, as the worker threads may ask at once)."""
        if self._children is None:
            dependencies = {dependency.material: (i, dependency) for i, dependency in enumerate(self.dependencies())}
            children = []
            for name, order, swapped in self._events.values():
                index, dependency = dependencies[name]
                children.append(_Child(index, order, swapped, dependency.spec))
            self._children = children
        return self._children

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        """int8[n]: ``LOSS`` for checkmate, ``DRAW`` for stalemate and for every position
        of KvK, KBvK and KNvK, else :data:`NOT_TERMINAL`, from :meth:`expand`."""
        return self._generated(keys, with_exits=False).terminal
