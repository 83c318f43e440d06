"""Chess endgame tablebases of up to 6 pieces, kings included, without castling.

Each material balance (``-p material=KQvKR``) is one tablebase; ``all3``, ``all4`` and
``all5`` are collections of every ending of up to 3, 4 or 5 pieces. ``-p metric`` picks what
is stored: DTM (the remoteness, distance to mate in plies without the 50-move rule, as
Gaviota's), DTZ under the 50-move rule with Syzygy's five categories (as Syzygy's, the
default of six pieces, solved by the one-byte pass of :mod:`tablebase.solve.bytepass`),
or both (the default up to five): checkmate is a loss at remoteness 0; stalemate and the endings in
which no mate is possible at all (KvK, KBvK, KNvK) are draws. Promotion is to Q, R, B or
N. A capture or a promotion leaves the tablebase for a smaller one (its
:meth:`Chess.dependencies`).

The per-position API uses python-chess (FEN, legality, SAN); the batch API runs over the
index space of :mod:`tablebase.generators.chess.layout` with the compiled kernels of
:mod:`.legality`, :mod:`.moves`, :mod:`.survey` and :mod:`.unmoves` (the tests hold them to
a vectorized numpy move generator of their own, ``tests/numpy_chess``).

This module holds the game's declaration (its parameters and metrics), its shared
instances (:func:`table`) and its sub-tablebases; the per-position API is
:mod:`.position_api`, the batch API :mod:`.batch_api`, and the captures and promotions
that leave an ending :mod:`.events`.

En passant: a position with a legal en passant capture has a key of its own (the ``ep``
bit of the layout, used by KPvKP), so that the position after a double push is valued
with the capture available, as Syzygy's generator values it. Every other position is
stored without an en passant right, as in Syzygy.
"""

from __future__ import annotations

import chess
import numpy as np

from tablebase.core.batches import KeyWindow
from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.game import Game, Mode
from tablebase.core.parameters import Parameter, not_one_of
from tablebase.generators.chess.batch_api import BatchAPI
from tablebase.generators.chess.events import ExitDestination, ExitEvents
from tablebase.generators.chess.layout import Layout
from tablebase.generators.chess.material import COLLECTIONS, build_order, decided_work, default_metric, endings, parse_material
from tablebase.generators.chess.position_api import PositionAPI
from tablebase.generators.chess.positions import ChessPosition, material_name, material_of
from tablebase.generators.chess.spec import Spec, spec_of


def _check_material(value: str) -> str | None:
    """The :class:`Parameter` check: an error message for a bad material, else None."""
    if value.strip().lower() in COLLECTIONS:
        return None
    try:
        parse_material(value)
    except ParameterError as error:
        return str(error)
    return None


METRICS = ("both", "dtm", "dtz")
"""What a chess tablebase stores: DTM without the 50-move rule, DTZ under it (with
Syzygy's categories, see :mod:`tablebase.solve.dtz`), or both (the default)."""

KIND_OF_METRIC = {"both": Mode.DTZ_DTM, "dtm": Mode.WDL, "dtz": Mode.DTZ}
"""The value kind (:mod:`tablebase.solve.kinds`) each metric builds."""

_TABLES: dict[tuple[str, str], Chess] = {}


DTZ_ALONE_FROM = 6
"""The fewest pieces of an ending whose default metric is ``dtz``: WDL and DTZ, what
Syzygy stores (its DTM, with ``-p metric=both``, takes more than a byte a position);
smaller endings and collections default to ``both`` (:func:`~.material.default_metric`)."""


def table(material: str, metric: str = "") -> Chess:
    """The one shared :class:`Chess` instance of a normal-form material name and metric
    (default :func:`~.material.default_metric`)."""
    metric = metric or default_metric(material, DTZ_ALONE_FROM)
    if (material, metric) not in _TABLES:
        _TABLES[material, metric] = Chess(material=material, metric=metric)
    return _TABLES[material, metric]


class Chess(PositionAPI, BatchAPI, ExitEvents, Game):
    """Chess endgames; see the module docstring.

    Positions are :class:`~tablebase.generators.chess.positions.ChessPosition` and moves
    :class:`~tablebase.generators.chess.positions.ChessMove`. Keys follow
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
    moves_when_ended = True
    """A position without mating material has ended in a draw, and its kings still move."""
    version = 3
    """2: positions with a check no move can give (two checkers on a line through the
    king, three checkers) are stored, as the Syzygy generator stores and counts them.
    3: keys number the king pairs (462 without pawns), not the white king's region and
    the black king's 64 squares (:mod:`~tablebase.generators.chess.layout`)."""
    description = "Chess endgames of up to 6 pieces (no castling): exact distance to mate and to zeroing"
    position_syntax = (
        "a FEN with at most 6 pieces and no castling rights, e.g. "
        "'K3r3/8/5k2/Q7/8/8/8/8 w - - 0 1'; moves are shown in SAN"
    )
    parameters = (
        Parameter(
            "material", "str", "all3",
            "an ending such as KQvKR (kings included, at most 6 pieces), "
            "or all3 / all4 / all5 for every ending up to 3 / 4 / 5 pieces",
            _check_material,
        ),
        Parameter(
            "metric", "str", "",
            "dtm (distance to mate, no 50-move rule), dtz (distance to zeroing under the "
            "50-move rule, with Syzygy's five categories) or both; default both up to 5 "
            "pieces, dtz for 6 (what Syzygy stores)",
            lambda value: None if value in METRICS or value == "" else not_one_of("metric", value, METRICS),
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
            those hold the DTM that compresses worst (KRPvKR's with both sides' weighs far
            more a position than KRBvKR's), and a build reaches black to move's positions of
            them only through white's promotions from endings without black pawns either
            (with a black pawn too, KQvKP, KPvKP's promotions reach it: valuing their DTM
            from the moves made KPvKP's build a little slower). Endings of four pieces keep
            both sides: all4 weighs little, and the 5-piece endings' captures reach them
            (KRPvKR's into KRPvK: millions of positions valued from their moves;
            benchmarks/RESULTS.md)."""
        self.params["material"] = self.material
        self.metric_named = bool(self.params["metric"])
        """Whether the metric was asked for: a collection that names none finds each
        position's table in that table's default metric."""
        self.params["metric"] = self.params["metric"] or default_metric(self.material, DTZ_ALONE_FROM)
        self.metric = self.params["metric"]
        self.mode = KIND_OF_METRIC[self.metric]
        self._dependencies: list[Chess] | None = None
        self._children: list[ExitDestination] | None = None

    def decided_work(self) -> float:
        """A rough rule of material (:func:`~tablebase.generators.chess.material.decided_work`);
        for a collection, 1."""
        if self.layout is None:
            return 1.0
        return decided_work(*parse_material(self.material))

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
        return self._table(name)

    def _table(self, material: str) -> Chess:
        """``self`` for its own material, else the shared table of ``material`` in this
        one's metric where it named one, else in that material's default."""
        return self if material == self.material else table(material, self.metric if self.metric_named else "")

    def board_key(self, board: chess.Board) -> tuple[Chess, int]:
        """The tablebase of a python-chess board and its canonical key there, read from
        the board's bitboards (no FEN is written or parsed): the fast path of probes.

        :raises PositionError: as :meth:`parse` for the board's FEN, and for a board that
            is not :meth:`stored` (probe its FEN instead).
        """
        sides = self._checked_sides(board)
        material = material_of(sides)
        owner = self._table(material)
        if board.ep_square is not None and not owner.stored(self._position(board)):
            raise PositionError(f"{board.fen()}: en passant makes it a position valued from its moves, not stored")
        return owner, owner._board_canonical_key(board, sides)

    def exit_window(self, dependency: Game) -> KeyWindow | None:
        """The keys of ``dependency`` a promotion can reach when only promotions lead
        there: the promoted piece on the last rank
        (:meth:`~tablebase.generators.chess.layout.Layout.last_rank_digits`). ``None``
        for a dependency without pawns or with the colour flip (whose symmetries move
        the last rank), reached by another move, or where a black piece promoted joins
        its twins (their digits hold no range for the first rank)."""
        windows = set()
        for (slot, _captured, promotion), (name, order, swapped) in self._events.items():
            if name == dependency.material:
                windows.add(self._promotion_window(slot, name, order, swapped) if promotion else None)
        return windows.pop() if len(windows) == 1 else None

    def _promotion_window(self, slot: int, name: str, order: np.ndarray, swapped: bool) -> KeyWindow | None:
        """:meth:`exit_window` of one promotion by the pawn of ``slot``, into the
        ending ``name`` (its slots and colours as :meth:`~tablebase.generators.chess.events.ExitEvents._child` gives them)."""
        child = table(name).layout
        if "P" not in child.types or child.colour_flip is not None:
            return None
        placed = int(np.flatnonzero(order == slot)[0])
        eighth = (int(self.layout.colours[slot]) == 0) != swapped
        digits = child.last_rank_digits(placed, eighth)
        return None if digits is None else KeyWindow(*digits)

    def warm_up_positions(self) -> list[str]:
        """A KvK position (every chess tablebase depends on KvK), then positions with a
        promotion (KPvK), a king's capture (KPvK) and a piece's capture (KRvKR) where
        they are stored: between them their queries run every compiled step of a
        query's moves."""
        return ["8/8/8/8/8/2k5/8/K7 w - - 0 1", "8/1P6/8/8/8/2k5/8/K7 w - - 0 1", "8/8/8/8/8/8/3P4/K1k5 b - - 0 1", "8/8/8/8/8/2k5/8/KR5r w - - 0 1"]

    def start_positions(self) -> list[ChessPosition]:
        """:raises NotImplementedError: always; a chess tablebase has no start position."""
        raise NotImplementedError("chess tablebases have no start position: give a FEN")
