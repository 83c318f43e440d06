"""Atomic and antichess endgame tablebases (:class:`Atomic`, :class:`Antichess`), the
variants lichess serves beside standard chess, by the rules of :mod:`.rules`.

Each material balance (``-p material=KQvK`` for atomic, ``-p material=RvN`` for
antichess) is one tablebase, of up to five pieces; ``all3``, ``all4`` and ``all5`` are
the collections of every ending up to 3, 4 or 5 pieces. ``-p metric`` picks what is
stored, as for standard chess (:mod:`tablebase.generators.chess.game`): DTM (plies to the
end of the game without the 50-move rule), DTZ under the 50-move rule with Syzygy's five
categories, or both. An ending of five pieces defaults to DTZ alone, what Syzygy's atomic
and giveaway tables hold and lichess serves, smaller endings and the collections to both
(:data:`DTZ_ALONE_FROM`); a table that names no metric finds its dependencies each in its
own default. A capture or a promotion leaves the tablebase for a
smaller one; a move that explodes the other king (atomic) or takes the other side's last
piece (antichess) leads into :data:`~tablebase.generators.variants.material.ENDED`, a
tablebase of one position, lost (atomic) or won (antichess) for its side to move.

Positions are :class:`~tablebase.generators.chess.positions.ChessPosition` read and
written as FENs with python-chess's ``AtomicBoard`` and ``AntichessBoard``; moves are
:class:`~tablebase.generators.chess.positions.ChessMove`. A FEN's en passant square is
kept where the capture is legal, with a key of its own
(:mod:`~tablebase.generators.variants.layout`); castling rights are refused.
"""

from __future__ import annotations

from typing import Any, ClassVar

import chess
import chess.variant
import numpy as np

from tablebase.core.batches import BatchMoves, BatchSurvey, LevelSplit
from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.game import Game, Mode
from tablebase.core.parameters import Parameter, not_one_of
from tablebase.core.values import NOT_TERMINAL, Outcome, signed_distance
from tablebase.generators.chess.material import COLLECTIONS, build_order, default_metric
from tablebase.generators.chess.positions import ChessMove, ChessPosition
from tablebase.generators.variants.exits import (
    Destination,
    destination,
)
from tablebase.generators.variants.kernels import (
    expand_kernel,
    legal_kernel,
    move_verdicts_kernel,
    progress_kernel,
)
from tablebase.generators.variants.keys import (
    canonical_keys_kernel,
    decode_kernel,
    exit_keys_kernel,
)
from tablebase.generators.variants.layout import (
    ANTICHESS,
    ATOMIC,
    PIECES,
    VariantLayout,
)
from tablebase.generators.variants.material import (
    ENDED,
    MAX_PIECES,
    parse_variant_material,
    variant_endings,
)
from tablebase.generators.variants.survey import survey_kernel
from tablebase.generators.variants.unmoves import unmoves_kernel
from tablebase.util.grouping import grouped

METRICS = ("both", "dtm", "dtz")
"""As standard chess's: DTM, DTZ under the 50-move rule, or both."""

DTZ_ALONE_FROM = 5
"""The fewest pieces of an ending whose default metric is ``dtz`` (WDL and DTZ, what
Syzygy's variant tables hold; lichess serves no DTM for the variants): its DTM
(``-p metric=both``) takes the pass with counters and a DTM pass, more than twice the
generator's time (benchmarks/RESULTS.md). Smaller endings and the collections default to
``both`` (:func:`~tablebase.generators.chess.material.default_metric`)."""

KIND_OF_METRIC = {"both": Mode.DTZ_DTM, "dtm": Mode.WDL, "dtz": Mode.DTZ}
"""The value kind each metric builds."""


_PIECE_TYPES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}
"""python-chess's piece type of each piece letter."""


def _side(board: chess.Board, colour: bool) -> str:
    """A side's piece letters in ``KQRBNP`` order."""
    return "".join(letter * len(board.pieces(_PIECE_TYPES[letter], colour)) for letter in PIECES)


def _legal_en_passant(board: chess.Board) -> int | None:
    """The en passant square of a board where an en passant capture is a legal move of
    the variant, else None (python-chess's ``has_legal_en_passant`` follows standard
    chess: it lets an atomic capture pass that would explode the taker's own king)."""
    if board.ep_square is None:
        return None
    return board.ep_square if any(board.is_en_passant(move) for move in board.legal_moves) else None


class VariantChess(Game):
    """An ending of a chess variant; see the module docstring. Subclasses set ``name``,
    ``rules`` (:data:`~tablebase.generators.variants.layout.ATOMIC` or ``ANTICHESS``),
    ``royal`` (one king a side) and ``board_class`` (python-chess's variant board).

    :raises ParameterError: for a bad material name
        (:func:`~tablebase.generators.variants.material.parse_variant_material`).
    """

    rules: ClassVar[int]
    royal: ClassVar[bool]
    board_class: ClassVar[type[chess.Board]]
    ended_outcome: ClassVar[Outcome]
    """The value of :data:`ENDED`'s position for its side to move."""
    modes = tuple(KIND_OF_METRIC.values())
    sides_alternate = True
    threaded = True
    version = 1
    distinct_unmoves = True
    """:meth:`predecessors` lists each pair once (:func:`~tablebase.generators.variants.unmoves.unmoves_kernel`)."""

    _tables: ClassVar[dict[tuple[str, str], VariantChess]]

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        text = self.params["material"].strip()
        self.layout: VariantLayout | None = None
        if text.lower() in COLLECTIONS or text.lower() == ENDED:
            self.material = text.lower()
            self.size = 2 if self.material == ENDED else 0
        else:
            white, black = parse_variant_material(text, self.royal)
            self.material = f"{white}v{black}"
            self.layout = VariantLayout(white, black, self.rules)
            self.size = self.layout.size
        self.params["material"] = self.material
        self.metric_named = bool(self.params["metric"])
        """Whether the metric was asked for: a table that names none finds the tables of
        its members, dependencies and positions each in its own default metric."""
        self.params["metric"] = self.params["metric"] or default_metric(self.material, DTZ_ALONE_FROM)
        self.metric = self.params["metric"]
        self.mode = KIND_OF_METRIC[self.metric]
        self.prefers_byte_pass = self.rules == ANTICHESS and self.layout is not None
        """Antichess's survey decides most positions (a capture is compulsory, and leaves
        the ending): DTZ alone goes through the one-byte pass at any size (RBNvKQ: 54 s
        against 113 s with counters, benchmarks/RESULTS.md)."""
        self._dependencies: list[VariantChess] | None = None
        self._destinations: dict[int, tuple[int, Destination]] = {}

    @classmethod
    def table(cls, material: str, metric: str = "") -> VariantChess:
        """The one shared instance of a normal-form material name (or :data:`ENDED`) and a
        metric, where ``""`` names none (the material's default, :data:`DTZ_ALONE_FROM`)."""
        if (material, metric) not in cls._tables:
            cls._tables[material, metric] = cls(material=material, metric=metric)
        return cls._tables[material, metric]

    @classmethod
    def _check_material(cls, value: str) -> str | None:
        """The :class:`Parameter` check: an error message for a bad material, else None."""
        if value.strip().lower() in COLLECTIONS or value.strip().lower() == ENDED:
            return None
        try:
            parse_variant_material(value, cls.royal)
        except ParameterError as error:
            return str(error)
        return None

    # ---- sub-tablebases

    def members(self) -> list[Game]:
        """For a collection, every ending up to 3, 4 or 5 pieces in build order; else ``[self]``."""
        if self.material in COLLECTIONS:
            return [self._table(name) for name in variant_endings(COLLECTIONS[self.material], self.royal)]
        return [self]

    def dependencies(self) -> list[Game]:
        """Every ending a capture or a promotion can lead into (:data:`ENDED` first),
        fewest pieces first."""
        if self._dependencies is None:
            names = {destination(self.layout, code, self.royal).material for code in self._possible_codes()} if self.layout else set()
            ordered = sorted(names - {ENDED}, key=build_order)
            self._dependencies = [self._table(name) for name in ([ENDED] if ENDED in names else []) + ordered]
        return list(self._dependencies)

    def _possible_codes(self) -> list[int]:
        """The exit codes of every capture and promotion the pieces might make (a
        superset: each capture with every set of other pieces gone in its explosion)."""
        layout = self.layout
        assert layout is not None
        codes = []
        for slot in range(layout.count):
            colour = layout.colours[slot]
            pawn = layout.types[slot] == "P"
            promotions = ([-1] + list(range(0 if not self.royal else 1, 5))) if pawn else [-1]
            for captured in [-1] + [s for s in range(layout.count) if layout.colours[s] != colour]:
                if self.royal and (layout.types[slot] == "K" or (captured >= 0 and layout.types[captured] == "K")):
                    continue
                others = [s for s in range(layout.count) if s not in (slot, captured) and layout.types[s] != "P"]
                blasts = [0] if captured < 0 or not self.royal else range(1 << len(others))
                for blast in blasts:
                    gone = 0 if captured < 0 else (1 << captured) | ((1 << slot) if self.royal else 0)
                    gone |= sum(1 << s for i, s in enumerate(others) if blast >> i & 1)
                    for promotion in promotions:
                        if captured < 0 and promotion < 0:
                            continue
                        codes.append((gone * 8 + (slot if promotion >= 0 else 0)) * 8 + promotion + 1)
        return codes

    def _destination(self, code: int) -> tuple[int, Destination]:
        """The dependency number and :class:`Destination` of an exit code."""
        if code not in self._destinations:
            where = destination(self.layout, code, self.royal)
            names = [d.material for d in self.dependencies()]
            self._destinations[code] = (names.index(where.material), where)
        return self._destinations[code]

    def table_of(self, position: ChessPosition) -> Game:
        """The tablebase of a position's material (:data:`ENDED` for a finished game)."""
        return self._table(self._material_of(self._board(position)))

    def _table(self, material: str) -> VariantChess:
        """The shared table of a material in this one's metric where it named one, else
        in that material's default."""
        return self.table(material, self.metric if self.metric_named else "")

    # ---- batch API

    def legal(self, keys: np.ndarray) -> np.ndarray:
        """bool[n]: which int64[n] keys are positions (:func:`~tablebase.generators.variants.kernels.legal_kernel`)."""
        keys = np.asarray(keys, dtype=np.int64)
        if self.layout is None:
            return keys == 1
        return legal_kernel(keys, self.layout.spec)

    def expand(self, keys: np.ndarray) -> BatchMoves:
        """Every move of int64[n] keys from one :func:`~tablebase.generators.variants.kernels.expand_kernel`
        call, the exits' successors keyed in their endings."""
        keys = np.asarray(keys, dtype=np.int64)
        if self.layout is None:
            empty = np.zeros(0, np.int64)
            return BatchMoves(np.full(len(keys), int(self.ended_outcome), np.int8), empty, empty, (empty, empty, empty))
        terminal, src, dst, rows, codes, squares = expand_kernel(keys, self.layout.spec)
        return BatchMoves(terminal, src, dst, (rows, *self._exit_keys(keys[rows] & 1, codes, squares)))

    def _exit_keys(self, movers: np.ndarray, codes: np.ndarray, squares: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(table, key)`` int64[e] each: the dependency and canonical key there of each
        move out of the ending, given int64[e] the sides that make them, their
        :func:`~tablebase.generators.variants.kernels.exit_code` and int64[e, slots] the
        squares after them (:func:`~tablebase.generators.variants.keys.exit_keys_kernel`,
        one call a code)."""
        tables = np.empty(len(codes), np.int64)
        found = np.empty(len(codes), np.int64)
        present = np.bincount(codes) > 0  # codes are small (below 2 ** (slots + 6)): no sort
        unique = np.flatnonzero(present)
        order, starts = grouped((np.cumsum(present) - 1)[codes], len(unique))
        for index, code in enumerate(unique.tolist()):
            these = order[starts[index] : starts[index + 1]]
            number, where = self._destination(code)
            tables[these] = number
            if where.material == ENDED:
                found[these] = 1
                continue
            child = self.dependencies()[number]
            exit_keys_kernel(squares, movers, these, where.order, int(where.swapped), child.layout.spec, found)
        return tables, found

    def survey_batch(self, keys: np.ndarray, split: LevelSplit | None = None, distinct: bool = True) -> BatchSurvey | None:
        """Legality, terminal values, distinct moves (those to another level of
        ``split`` listed) and exits of int64[n] keys in one compiled pass
        (:func:`~tablebase.generators.variants.survey.survey_kernel`); None for
        :data:`ENDED`."""
        if self.layout is None:
            return None
        keys = np.asarray(keys, dtype=np.int64)
        levels, block, level = (split.levels, split.block, split.level) if split is not None else (np.zeros(1, np.int64), 1 << 62, 0)
        legal, terminal, moves, cross_row, cross_key, rows, codes, squares = survey_kernel(keys, self.layout.spec, levels, block, level)
        return BatchSurvey(legal, terminal, moves, (cross_row, cross_key), (rows, *self._exit_keys(keys[rows] & 1, codes, squares)))

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        """int8[n]: the terminal values of :meth:`expand`."""
        return self.expand(keys).terminal

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The moves within the ending of :meth:`expand`, rows numbering the non-terminal keys."""
        moves = self.expand(keys)
        live = np.cumsum(moves.terminal == NOT_TERMINAL) - 1
        return live[moves.src], moves.dst

    def exits(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The moves out of the ending of :meth:`expand`, rows numbering the non-terminal keys."""
        moves = self.expand(keys)
        live = np.cumsum(moves.terminal == NOT_TERMINAL) - 1
        rows, tables, found = moves.exits
        return live[rows], tables, found

    def predecessors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every un-move of int64[n] keys (:func:`~tablebase.generators.variants.unmoves.unmoves_kernel`):
        ``(src_index, pred_key)``, some predecessors no position; none for :data:`ENDED`."""
        keys = np.asarray(keys, dtype=np.int64)
        if self.layout is None:
            return keys[:0], keys[:0]
        return unmoves_kernel(keys, self.layout.spec)

    def move_verdicts(self, keys: np.ndarray, codes: np.ndarray, classes: np.ndarray) -> np.ndarray:
        """int8[n]: the one-byte DTZ pass's check of int64[n] keys, as
        :meth:`~tablebase.core.game.Game.move_verdicts` gives it
        (:func:`~tablebase.generators.variants.kernels.move_verdicts_kernel`)."""
        assert self.layout is not None
        return move_verdicts_kernel(np.asarray(keys, dtype=np.int64), self.layout.spec, codes, classes)

    def progress(self, keys: np.ndarray) -> np.ndarray:
        """int64[n]: the pawns' advance (:func:`~tablebase.generators.variants.kernels.progress_kernel`)."""
        keys = np.asarray(keys, dtype=np.int64)
        if self.layout is None:
            return np.zeros(len(keys), np.int64)
        return progress_kernel(keys, self.layout.spec)

    def progress_block(self) -> int:
        """The keys that share the squares of every slot from the first pawn's on, so
        their :meth:`progress` (:meth:`~tablebase.generators.variants.layout.VariantLayout.stride`
        of that slot); the whole index space without pawns."""
        if not self.zeroing_inside():
            return max(int(self.size or 1), 1)
        assert self.layout is not None
        return self.layout.stride(self.layout.types.index("P"))

    def zeroing_inside(self) -> bool:
        """Whether a move within the ending can zero: a pawn's push."""
        return self.layout is not None and self.layout.pawns

    # ---- per position

    def _board(self, position: ChessPosition) -> chess.Board:
        """The variant board of a position."""
        board = self.board_class(None)
        board.set_board_fen(position.board)
        board.turn = position.turn
        board.ep_square = position.ep_square
        board.halfmove_clock, board.fullmove_number = position.halfmove, position.fullmove
        return board

    def _material_of(self, board: chess.Board) -> str:
        """The normal-form material of a board, or :data:`ENDED` for a finished game.

        :raises PositionError: for more than :data:`MAX_PIECES` pieces."""
        sides = [_side(board, colour) for colour in (chess.WHITE, chess.BLACK)]
        if (self.royal and any(side.count("K") != 1 for side in sides)) or not all(sides):
            return ENDED
        if len(sides[0]) + len(sides[1]) > MAX_PIECES:
            raise PositionError(f"{board.fen()}: more than {MAX_PIECES} pieces; {self.name} tablebases hold at most {MAX_PIECES}")
        first, second = parse_variant_material("v".join(sides), self.royal)
        return f"{first}v{second}"

    def parse(self, text: str) -> ChessPosition:
        """Read a FEN of the variant (python-chess's syntax, ``_`` for spaces).

        :raises PositionError: for a FEN python-chess cannot read, castling rights, more
            than five pieces, an illegal position (python-chess's ``is_valid`` of the
            variant, or in atomic the side not to move in check, as the Syzygy generator
            has it, where python-chess lets it pass), or a material other than this
            tablebase's (a collection takes any).
        """
        try:
            board = self.board_class(text.replace("_", " ").strip())
        except ValueError as error:
            raise PositionError(f"bad FEN {text!r}: {error}") from None
        return self.position_of(board)

    def position_of(self, given: Any) -> Any:
        """The position of a python-chess variant board, checked as :meth:`parse` checks."""
        if not isinstance(given, chess.Board):
            return given
        board = given
        if board.castling_rights:
            raise PositionError(f"bad FEN {board.fen()!r}: castling rights are not allowed in a tablebase; write '-'")
        if not board.is_valid():
            raise PositionError(f"illegal FEN {board.fen()!r} for {self.name}: python-chess status {int(board.status()):#x}")
        material = self._material_of(board)
        if self.layout is not None and material != self.material:
            raise PositionError(f"FEN {board.fen()!r} is a {material} position, not {self.material} as -p material says")
        ep = _legal_en_passant(board)
        position = ChessPosition(board.board_fen(), board.turn, ep, board.halfmove_clock, board.fullmove_number)
        owner = self._table(material)
        if owner.layout is not None and not owner.legal(np.array([owner.canonical_key(position)]))[0]:
            raise PositionError(f"illegal FEN {board.fen()!r} for {self.name}: the side not to move is in check")
        return position

    def format(self, position: ChessPosition) -> str:
        """The FEN, no castling rights."""
        ep = "-" if position.ep_square is None else chess.SQUARE_NAMES[position.ep_square]
        return f"{position.board} {'w' if position.turn else 'b'} - {ep} {position.halfmove} {position.fullmove}"

    def board_drawing(self) -> tuple[str, dict[str, Any]]:
        """Drawn as a chess board."""
        return "chess", {}

    def format_move(self, move: ChessMove) -> str:
        """The move in SAN."""
        return move.san

    def move_details(self, move: ChessMove) -> dict[str, Any]:
        """The move's UCI, SAN and whether it zeroes (a capture or a pawn move)."""
        return {"uci": move.uci, "san": move.san, "zeroing": move.zeroing}

    def position_details(self, position: ChessPosition) -> dict[str, bool]:
        """How a position may have ended, as python-chess's variant board tells (and
        lila-tablebase's flags name): ``checkmate``, ``stalemate``, ``variant_win`` and
        ``variant_loss`` (an exploded king, no piece or no move left in antichess) for
        the side to move, and ``insufficient_material``."""
        board = self._board(position)
        return {
            "checkmate": board.is_checkmate(),
            "stalemate": board.is_stalemate(),
            "variant_win": board.is_variant_win(),
            "variant_loss": board.is_variant_loss(),
            "insufficient_material": board.is_insufficient_material(),
        }

    def value_details(self, outcome: Outcome, remoteness: int | None) -> dict[str, int]:
        """``dtm``: lichess's signed distance to the end of the game in plies (0 for a
        draw); none without it."""
        if outcome == Outcome.DRAW:
            return {"dtm": 0} if self.metric != "dtz" else {}
        return {} if remoteness is None else {"dtm": signed_distance(outcome, remoteness)}

    def move_number(self, position: ChessPosition, ply: int) -> str:
        """The move number as chess writes it: ``"2."`` before white's move, ``"2..."`` before black's."""
        return f"{position.fullmove}." if position.turn else f"{position.fullmove}..."

    def moves(self, position: ChessPosition) -> list[tuple[ChessMove, ChessPosition]]:
        """Every legal move of the variant (python-chess), with its position."""
        board = self._board(position)
        found = []
        for move in board.legal_moves:
            san = board.san(move)
            zeroing = board.is_zeroing(move)
            board.push(move)
            ep = _legal_en_passant(board)
            found.append((ChessMove(san, move.uci(), zeroing), ChessPosition(board.board_fen(), board.turn, ep, board.halfmove_clock, board.fullmove_number)))
            board.pop()
        return found

    def terminal(self, position: ChessPosition) -> Outcome | None:
        """The value of a finished game for its side to move, else None: atomic, a loss
        without a king or when checkmated, a draw when stalemated; antichess, a win
        without a piece or a legal move."""
        board = self._board(position)
        if self._material_of(board) == ENDED:
            return self.ended_outcome
        if any(board.generate_legal_moves()):
            return None
        if self.rules == ANTICHESS:
            return Outcome.WIN
        return Outcome.LOSS if board.is_check() else Outcome.DRAW

    def encode(self, position: ChessPosition) -> int:
        """The canonical key of a position of this tablebase's material."""
        return self.canonical_key(position)

    def canonical_key(self, position: ChessPosition) -> int:
        """The canonical key of a position of this tablebase's material (either colouring).

        :raises PositionError: for a position of another material.
        """
        board = self._board(position)
        if self.layout is None:
            return 1
        material = self._material_of(board)
        if material != self.material:
            raise PositionError(f"{board.fen()}: not a {self.material} position")
        layout = self.layout
        swapped = _side(board, chess.WHITE) != layout.white
        squares = []
        for colour, side in ((chess.WHITE, layout.white), (chess.BLACK, layout.black)):
            owner = colour != swapped
            for letter in dict.fromkeys(side):
                squares += [s ^ (56 if swapped else 0) for s in sorted(board.pieces(_PIECE_TYPES[letter], owner))]
        stm = int(not board.turn) ^ int(swapped)
        ep_file = -1 if position.ep_square is None else position.ep_square & 7
        keys = canonical_keys_kernel(np.array([squares], np.int64), np.array([stm], np.int64), layout.spec, np.array([ep_file], np.int64))
        return int(keys[0])

    def decode(self, key: int) -> ChessPosition:
        """The position of a key in this tablebase's colouring."""
        if self.layout is None:
            return ChessPosition("8/8/8/8/8/8/8/8", chess.BLACK, None)
        squares, stm = decode_kernel(np.array([key], np.int64), self.layout.spec, self.layout.count)
        board = chess.Board(None)
        for slot, square in enumerate(squares[0].tolist()):
            letter = self.layout.types[slot]
            board.set_piece_at(square, chess.Piece.from_symbol(letter if self.layout.colours[slot] == 0 else letter.lower()))
        ep_file = key // self.layout.placements - 1
        ep_square = None if ep_file < 0 else (16 if stm[0] == 1 else 40) + ep_file
        return ChessPosition(board.board_fen(), bool(stm[0] == 0), ep_square)

    def start_positions(self) -> list[ChessPosition]:
        """:raises NotImplementedError: always; a tablebase of endings has no start."""
        raise NotImplementedError(f"{self.name} tablebases have no start position: give a FEN")


def _parameters(royal: bool, example: str, check: Any) -> tuple[Parameter, ...]:
    """The parameters of a variant: material and metric."""
    return (
        Parameter(
            "material", "str", "all3",
            f"an ending such as {example} (at most {MAX_PIECES} pieces), or all3 / all4 / all5 for every ending up to 3 / 4 / 5 pieces",
            check,
        ),
        Parameter(
            "metric", "str", "",
            "dtm (distance to the end, no 50-move rule), dtz (distance to zeroing under the 50-move rule, with Syzygy's "
            "five categories) or both; the default: dtz from 5 pieces, both below and for a collection",
            lambda value: None if value in METRICS or value == "" else not_one_of("metric", value, METRICS),
        ),
    )


class Atomic(VariantChess):
    """Atomic chess endings (lichess's rules, python-chess's ``AtomicBoard``)."""

    name = "atomic"
    rules = ATOMIC
    royal = True
    board_class = chess.variant.AtomicBoard
    ended_outcome = Outcome.LOSS
    description = "Atomic chess endgames of up to 5 pieces: captures explode; exact distance to the end and to zeroing"
    position_syntax = "an atomic FEN with at most 5 pieces and no castling rights, e.g. '8/8/8/8/8/2k5/8/KQ6 w - - 0 1'"
    _tables: ClassVar[dict[tuple[str, str], VariantChess]] = {}
    parameters = _parameters(True, "KQvK", lambda value: Atomic._check_material(value))


class Antichess(VariantChess):
    """Antichess endings (lichess's rules, python-chess's ``AntichessBoard``, Syzygy's giveaway tables)."""

    name = "antichess"
    rules = ANTICHESS
    royal = False
    board_class = chess.variant.AntichessBoard
    ended_outcome = Outcome.WIN
    description = "Antichess endgames of up to 5 pieces: captures compulsory, losing every piece wins"
    position_syntax = "an antichess FEN with at most 5 pieces and no castling rights, e.g. '8/8/8/8/8/2n5/8/R7 w - - 0 1'"
    _tables: ClassVar[dict[tuple[str, str], VariantChess]] = {}
    parameters = _parameters(False, "RvN", lambda value: Antichess._check_material(value))
