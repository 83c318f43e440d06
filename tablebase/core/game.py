"""The game protocol: :class:`Game`, the base class of every game, and :class:`Mode`,
the names of the built-in value kinds a game declares.

A game is a subclass of :class:`Game`. A plug-in author implements the per-position API
(about 40 lines for a small game); built-in games also implement the batch API, which is
the fast path. Every member is documented below as *required* or *optional*, with the
fallback used when an optional one is missing (the style of GamesmanOne's game API).

Games are found through the entry-point group ``tablebase.games`` (the registry,
:mod:`tablebase.solve.registry`): a third-party package declares, in its
``pyproject.toml``::

    [project.entry-points."tablebase.games"]
    mygame = "mypackage.mygame:MyGame"

Semantics (see docs/design.md): an outcome is always for the side to move, and remoteness is
counted in plies.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Hashable
from typing import Any, ClassVar

import numpy as np

from tablebase.core.batches import BatchMoves, BatchSurvey, KeyWindow, LevelSplit
from tablebase.core.errors import GameError
from tablebase.core.parameters import Parameter, resolve_parameters
from tablebase.core.values import NOT_TERMINAL, SUCCESSOR_LOST, SUCCESSOR_OTHER, SUCCESSOR_WON, Outcome

Position = Hashable
"""A game's own position object (an int, a tuple, ...); the library never looks inside."""

Move = Any
"""A game's own move object, shown to users only through :meth:`Game.format_move`."""


class Mode(enum.StrEnum):
    """The names of the built-in value kinds (:mod:`tablebase.solve.kinds`): how a game
    is solved and what its tablebase stores beside each position's outcome
    (docs/design.md, "Game modes"). A game declares one, or the name of a kind a
    plug-in registers, as the attribute ``mode``.

    - ``WDL``: win, draw or loss and the remoteness in plies.
    - ``IMPARTIAL``: both players have the same moves and the player without one loses;
      the Grundy value is stored too.
    - ``SUMS``: impartial, and a move may leave a sum of positions; the Grundy values of
      single components.
    - ``SCORED``: the negamax score for the side to move (win/draw/loss is its sign).
    - ``BUCHI``: endless play; the owner of a position wins if it is the winner of the
      Büchi condition; no remoteness.
    - ``DTZ`` and ``DTZ_DTM``: DTZ under the 50-move rule (chess), without and with DTM.
    """

    WDL = "wdl"
    IMPARTIAL = "impartial"
    SUMS = "sums"
    SCORED = "scored"
    BUCHI = "buchi"
    DTZ = "dtz"
    DTZ_DTM = "dtz+dtm"


class Game:
    """Base class of every game. Subclass it and fill in the members marked *required*.

    Class attributes:

    - ``name`` (required): the registered name, e.g. ``"tictactoe"``.
    - ``version`` (optional, default 1): bump it whenever the game's keys or values change;
      with the name and the parameters it identifies a tablebase, so tablebases built
      for an older version are reported as outdated and rebuilt, never served.
    - ``description`` (optional): one line for ``tablebase games``.
    - ``position_syntax`` (required): how a position is written, for ``tablebase games``.
    - ``parameters`` (optional): a tuple of :class:`Parameter`; parsed values are in
      ``self.params``.
    - ``mode`` (optional, default :attr:`Mode.WDL`): the name of the game's value kind
      (:mod:`tablebase.solve.kinds`): how it is solved and what its tablebase stores.
      The built-in kinds, :class:`Mode`:

      - ``Mode.IMPARTIAL``: both players have the same moves from every position and the
        player without a move loses. Such a tablebase also stores each position's Grundy
        value, and queries add up sums of positions (``a+b+c``).
      - ``Mode.SUMS``: impartial, and a move may leave a *sum* of positions (Kayles: a
        row knocked in two). A position is then a sum; the tablebase stores single
        components, keyed by :meth:`encode`, with their Grundy values, and values a sum
        by the xor of its :meth:`components` (required). The batch :meth:`successors`
        returns ``(src_index, parts)``, ``parts`` int64[m, k] keys padded with -1
        (int64[m] for one part a move). No remoteness is stored for such a game.
      - ``Mode.SCORED``: a position without moves carries a :meth:`score` for its side to
        move, and a move may earn a :meth:`reward`. The tablebase stores each position's
        negamax value, the best margin the side to move can secure, with win/draw/loss as
        its sign. Batch forms: :meth:`terminal_scores` and :meth:`move_rewards`; a
        scored game overrides at least one of the four.
      - ``Mode.BUCHI``: play never ends; player A (:meth:`owners`, required) wins a play
        that visits :meth:`accepting` (required) positions infinitely often. Each
        position stores whether its owner, the side to move, wins; no remoteness.
      - ``Mode.DTZ`` and ``Mode.DTZ_DTM``, for a game with a 50-move rule (chess): DTZ
        too (:mod:`tablebase.solve.dtz`), without or with the remoteness (DTM); the
        game implements :meth:`progress`, and every move that leaves the tablebase is
        a zeroing move.

      A game whose mode depends on its parameters lists every mode it may take in
      ``modes`` and sets ``self.mode`` in ``__init__`` (chess: from its ``metric``).

    The declaration is checked once, when the registry loads the game or a caller
    resolves its kind (:func:`tablebase.solve.kinds.kind_of`): an unknown mode, a
    missing member its kind needs, or moves into other tablebases (:meth:`dependencies`)
    in a kind whose pass cannot read them (scored, Büchi, sums) raise
    :class:`~tablebase.core.errors.GameError`.

    Enumeration, one of two forms (required):

    - *index space*: set ``self.size`` to an int; keys are ``range(size)`` and
      :meth:`legal` tells which of them are positions of the tablebase;
    - *discovery*: leave ``size`` as ``None`` and implement :meth:`start_positions`; the
      engine finds every position by forward search from them.

    Class attribute ``sides_alternate`` (default false): an index space whose keys'
    lowest bit is the side to move (chess's), which the store keeps side by side apart
    (the ``sided`` layout), each side's values next to their like. Attribute
    ``moves_cross_sides`` (default false): besides, every move within the tablebase leads
    from a key with that bit set to one without it and back (a chess ending whose
    canonical form never swaps the colours), so that the store may leave one side's DTM
    out and value it from the other's (``--dtm-sides one``); and ``dtm_left_out_by_default``
    (default false) that the store does so by default (``--dtm-sides auto``).

    Per position (required): :meth:`moves`, :meth:`terminal`, :meth:`encode`,
    :meth:`decode`, :meth:`parse`, :meth:`format`; optional: :meth:`canonical`
    (default: no symmetry), :meth:`format_move` (default: ``str``). Attribute
    ``moves_when_ended`` (default false): a terminal position's :meth:`moves` are real
    moves, each to a position that has ended the same way, which queries list beside its
    value (chess: a position without mating material, whose kings still move, each move
    to another such draw).

    Batch (optional fast path): :meth:`successors`, :meth:`exits` and
    :meth:`terminal_batch`. The default implementations loop over the per-position API one
    position at a time.

    Instance attribute ``threaded`` (default false): the batch API is compiled code that
    releases the GIL (chess's numba kernels) and is safe to call from several threads at
    once, so the engine runs its batches in threads of the building process, not in
    worker processes: no results travel through pipes.

    Attribute ``prefers_byte_pass`` (default false): DTZ alone goes through the one-byte
    pass (:mod:`tablebase.solve.bytepass`) at every size of the index space, not only
    where the pass with counters would not fit: the game's survey decides most positions
    (antichess without pawns, whose compulsory captures leave most positions no move
    within the tablebase), and the one-byte pass follows few of them where the pass with
    counters un-moves every one.

    Un-moves (optional): :meth:`predecessors`. A game that provides them is solved
    without a move graph in memory (see :func:`provides_unmoves`); without them the
    engine builds the graph from :meth:`successors` (predecessor lists plus move counts).
    Instance attribute ``distinct_unmoves`` (default false): :meth:`predecessors` never
    lists one ``(src_index, pred_key)`` pair twice, so the engine does not look for
    repeats.

    Sub-tablebases (optional): a move may leave the tablebase, as a chess capture or
    promotion does. Such a game lists the smaller tablebases in :meth:`dependencies` and
    tells with :meth:`table_of` which one holds a position; the engine builds them first
    and reads the values of those moves' successors from the store.
    """

    name: ClassVar[str]
    version: ClassVar[int] = 1
    description: ClassVar[str] = ""
    position_syntax: ClassVar[str] = ""
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    mode: str = Mode.WDL
    modes: ClassVar[tuple[str, ...]] = ()
    threaded: bool = False
    distinct_unmoves: bool = False
    prefers_byte_pass: bool = False
    bytes_per_position: ClassVar[int | None] = None
    sides_alternate: ClassVar[bool] = False
    moves_cross_sides: bool = False
    dtm_left_out_by_default: bool = False
    moves_when_ended: ClassVar[bool] = False

    size: int | None = None

    def __init__(self, **params: Any) -> None:
        """:raises ParameterError: for an unknown, missing or bad parameter."""
        self.params: dict[str, Any] = resolve_parameters(self.parameters, params)

    def components(self, position: Position) -> list[Position]:
        """The single positions a sum is made of (required in the ``sums`` mode);
        itself otherwise."""
        return [position]

    # ---- identity

    def identity(self) -> str:
        """Canonical JSON of the parameters: with the name, it identifies a tablebase.
        Made once per instance (probes ask for it each time)."""
        made = self.__dict__.get("_identity")
        if made is None:
            values = {p.name: p.identity(self.params[p.name]) for p in self.parameters}
            made = self.__dict__["_identity"] = json.dumps(values, sort_keys=True, separators=(",", ":"))
        return made

    def build_command(self) -> str:
        """The ``tablebase build`` command line that builds this tablebase."""
        options = "".join(
            f" -p {p.name}={'FILE' if p.kind == 'file' else p.show(self.params[p.name])}" for p in self.parameters
        )
        return f"tablebase build {self.name}{options}"

    def same_table(self, other: Game) -> bool:
        """Whether ``other`` is the same game, version and parameters (the same tablebase)."""
        return other.name == self.name and other.version == self.version and other.identity() == self.identity()

    def describe(self) -> str:
        """The game and its parameters as a user would type them, e.g. ``nim heaps=3 max=7``."""
        shown = " ".join(f"{p.name}={p.show(self.params[p.name])}" for p in self.parameters)
        return f"{self.name} {shown}".strip()

    # ---- enumeration

    def estimate_positions(self) -> int | None:
        """Optional: about how many positions the tablebase holds, from the parameters
        alone, so that a build too big for memory is refused before it starts. Default:
        the size of the index space (an upper bound), or ``None`` (unknown: no check) for
        a game found by discovery. A game found by discovery may also set the class
        attribute ``bytes_per_position``, the peak bytes a position its builds measured,
        which the estimate then uses instead of the engine's default."""
        return self.size

    def decided_work(self) -> float:
        """Optional: about how much of a retrograde pass's work the decided positions make,
        from the parameters alone, for the time a build is estimated to take
        (:mod:`tablebase.build.timing`): the share of the positions won or lost rather
        than drawn (0 to 1: a pass goes through the predecessors of every decided position
        and of no drawn one), times their un-moves against a typical position's (above 1
        where pieces have many: chess's queens). A game whose index space holds a
        position under several keys, all but one left out, divides by their number.
        Default 1."""
        return 1.0

    def legal(self, keys: np.ndarray) -> np.ndarray:
        """Index-space form: which keys are positions of the tablebase.

        :param keys: int64[n] keys in ``range(size)``.
        :returns: bool[n]. Default: every key is legal.
        """
        return np.ones(len(keys), dtype=bool)

    def key_order_levels(self) -> np.ndarray | None:
        """Optional, index-space form of a scored game: int64[L + 1] bounds rising from 0
        to ``size`` such that every move of a key in ``[bounds[i], bounds[i + 1])`` leads
        to a key below ``bounds[i]`` (key order is a topological order of the moves).
        The scored pass then values the keys in one sweep by key, with no move graph
        (:mod:`tablebase.solve.ordered`). Default ``None``: the pass builds the graph."""
        return None

    def best_scores(self, keys: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """Optional fast path of the sweep by key order (:meth:`key_order_levels`):
        ``(best, ended)``, int64[n] each of int64[n] ``keys``' best over its moves of the
        reward less the successor's score read from ``score`` (int16[size], by key), or
        its terminal score where it has no moves, and bool[n] which have none (exactly
        those :meth:`terminal_batch` finds terminal).
        Compiled code that releases the GIL, as the sweep calls it from several threads.
        Default ``None``: the sweep uses :meth:`successors`, :meth:`move_rewards` and
        :meth:`terminal_scores`."""
        return None

    def warm_up_positions(self) -> list[str]:
        """Optional: positions (as :meth:`parse` reads them, or ``start``) whose queries a
        server process answers before its first request, where they are stored, so
        that it loads the code the game's queries compile ahead of them (chess's
        kernels, benchmarks/RESULTS.md). By default ``start`` where the game has a start
        position, else none."""
        try:
            self.start_positions()
        except NotImplementedError:
            return []
        return ["start"]

    def board_drawing(self) -> tuple[str, dict[str, Any]]:
        """Optional: how the web pages draw a position (:mod:`tablebase.faces.web.boards`),
        as a style and what that style needs. By default ``("text", {})``: the text of
        :meth:`format`. The other styles:

        - ``"chess"``: :meth:`format` writes a FEN, drawn as a chess board;
        - ``"grid"``: :meth:`format` writes rows of ``x``, ``o`` and ``.`` joined by
          ``/``, top row first (anything after a space is no cell), drawn as discs;
        - ``"pits"``: a position is a sequence of seed counts, the side to move's pits
          first, drawn as a mancala board;
        - ``"morris"``, with ``points`` (each point's ``(column, row)``, 0 to 4 from the
          top left) and ``lines`` (the pairs of points joined): a position is
          ``(black, white, black's hand, white's hand, white to move)``, bitboards of the
          points and the men in hand;
        - ``"shogi"``, with ``columns`` (squares a row) and ``names`` (each piece's name
          by its upper-case letter): a position is ``(cells, hand)``, letters, upper
          case the side to move's, ``.`` an empty square.
        """
        return "text", {}

    def start_positions(self) -> list[Position]:
        """Discovery form (required there): the positions forward search starts from.

        In the index-space form it is optional, and its first position is what a query
        of ``start`` means. :raises NotImplementedError: when the game has no start.
        """
        raise NotImplementedError(f"game {self.name!r} has no start position")

    # ---- per position

    def moves(self, position: Position) -> list[tuple[Move, Position]]:
        """Required: every legal move of the side to move, with the position it leads to.

        Not called for terminal positions. The successors need not be canonical.
        """
        raise NotImplementedError

    def terminal(self, position: Position) -> Outcome | None:
        """Required: the outcome for the side to move if the game is over, else ``None``.

        A position that is not terminal but has no move is a loss at remoteness 0 (normal
        play), so a game need not report that case.
        """
        raise NotImplementedError

    def encode(self, position: Position) -> int:
        """Required: the key of a position, an int in ``[0, 2**63)``, unique per position."""
        raise NotImplementedError

    def decode(self, key: int) -> Position:
        """Required: inverse of :meth:`encode`."""
        raise NotImplementedError

    def canonical(self, position: Position) -> Position:
        """Optional: the representative of the position's symmetry class (default: itself)."""
        return position

    def parse(self, text: str) -> Position:
        """Required: read a position. :raises PositionError: if unparsable or illegal."""
        raise NotImplementedError

    def format(self, position: Position) -> str:
        """Required: write a position in the syntax :meth:`parse` reads."""
        raise NotImplementedError

    def position_of(self, given: Any) -> Position:
        """Optional: the game's position of an object that is not text, for a library of
        the game's own (chess: a ``chess.Board``); queries call it on every position
        given to them that is not a ``str`` (text goes to :meth:`parse`). Default: the
        object itself, taken to be a position of the game.

        :raises PositionError: for an object of the library that is not a legal position.
        """
        return given

    def format_keys(self, keys: np.ndarray) -> list[str]:
        """Optional: :meth:`format` of :meth:`decode` of each of int64[n] stored keys, a
        list of n texts: what ``tablebase export`` writes in its ``position`` column, up
        to millions of times. Default: one :meth:`decode` and :meth:`format` a key. A game
        with many positions may write them all at once (chess: compiled FENs), giving
        exactly the default's texts."""
        return [self.format(self.decode(key)) for key in keys.tolist()]

    def format_move(self, move: Move) -> str:
        """Optional: write a move for users (default: ``str(move)``)."""
        return str(move)

    def move_number(self, position: Position, ply: int) -> str:
        """Optional: the number shown before a move made from ``position``, the ``ply``-th
        of a line (1 for the first). Default: ``"3."`` for the third ply; chess numbers
        moves, not plies (``"1..."`` for black's first)."""
        return f"{ply}."

    def move_details(self, move: Move) -> dict[str, str]:
        """Optional: other notations of a move, added to its JSON (chess: ``{"uci": ...}``).
        Default: none."""
        return {}

    def position_details(self, position: Position) -> dict[str, Any]:
        """Optional: the game's own facts of a position, added to its JSON (chess:
        ``{"checkmate": false, "stalemate": true, "insufficient_material": false}``);
        text output names those that are ``True``. Default: none."""
        return {}

    def value_details(self, outcome: Outcome, remoteness: int | None) -> dict[str, Any]:
        """Optional: the game's own reading of a value, added to its JSON and shown in the
        text (chess: ``{"mate_in": 10}``, in moves). One field name for every outcome.
        Default: none."""
        return {}

    # ---- collections (optional)

    def members(self) -> list[Game]:
        """Optional: the tablebases these parameters stand for. Default ``[self]``; a
        *collection* (chess ``all3``: every ending of up to 3 pieces) has no positions of
        its own and returns its member tablebases, and build, info, verify, export and
        check act on each of them."""
        return [self]

    # ---- sub-tablebases (optional)

    def dependencies(self) -> list[Game]:
        """Optional: the tablebases that moves out of this one lead into, built first.

        Default: none. They must not depend on this one, directly or not.
        """
        return []

    def table_of(self, position: Position) -> Game:
        """Optional: the game whose tablebase holds the position: ``self`` or, for a
        successor that leaves this tablebase, one of :meth:`dependencies`. Default: self.
        """
        return self

    def dependency_index(self, table: Game) -> int:
        """The number of ``table`` in :meth:`dependencies`.

        :raises GameError: if it is not one of them.
        """
        for index, dependency in enumerate(self.dependencies()):
            if dependency.same_table(table):
                return index
        raise GameError(f"a move leads into {table.describe()}, which is not a dependency of {self.describe()}")

    def keyed_moves(self, position: Position) -> list[tuple[Move, Position, Game | None, int]]:
        """Optional: :meth:`moves`, each successor with the game whose tablebase holds it
        (:meth:`table_of`) and its :meth:`canonical_key` there; ``(None, -1)`` for one
        that is not :meth:`stored`. The query layer ranks moves from these; a game whose
        moves come with their keys (chess) gives them without reading each successor
        again. Not called for terminal positions.
        """
        return [(move, child, *self.stored_key(child)) for move, child in self.moves(position)]

    def stored_key(self, position: Position) -> tuple[Game | None, int]:
        """The game whose tablebase holds a position (:meth:`table_of`) and the
        position's :meth:`canonical_key` there; ``(None, -1)`` for one that is not
        :meth:`stored` (valued from its moves)."""
        table = self.table_of(position)
        if not table.stored(position):
            return None, -1
        return table, table.canonical_key(position)

    def stored(self, position: Position) -> bool:
        """Optional: whether the position has a key in a tablebase. One that has not (a
        chess position with an en passant right) is valued by the query layer from its
        moves. Default: True.
        """
        return True

    # ---- batch (optional fast path; the defaults use the per-position API)

    def canonical_key(self, position: Position) -> int:
        """The key of the position's canonical form."""
        return self.encode(self.canonical(position))

    def expand(self, keys: np.ndarray) -> BatchMoves:
        """Every move of a batch of positions, as the engine reads them: terminal
        values, the moves within the tablebase of the others and their ways out (into
        :meth:`dependencies`), in one call. Default: :meth:`terminal_batch`, then
        :meth:`successors` and :meth:`exits` of the non-terminal keys, in their orders
        (so :meth:`move_rewards` lists the moves' rewards in the order of ``src``); a
        game whose moves come from one generation (chess) answers at once.

        :param keys: int64[n] canonical keys.
        :raises GameError: if :meth:`successors` or :meth:`exits` name a position
            outside the batch.
        """
        keys = np.asarray(keys, dtype=np.int64)
        terminal = np.asarray(self.terminal_batch(keys), dtype=np.int8)
        live = np.flatnonzero(terminal == NOT_TERMINAL)
        src, dst = (np.asarray(a, dtype=np.int64) for a in self.successors(keys[live]))
        exits = tuple(np.asarray(a, dtype=np.int64) for a in self.exits(keys[live])) if self.dependencies() else (src[:0],) * 3
        for member, rows in (("successors", src), ("exits", exits[0])):
            outside = rows[(rows < 0) | (rows >= len(live))]
            if outside.size:
                raise GameError(f"{self.name}: {member}() gave a move from index {int(outside[0])}, outside its batch")
        return BatchMoves(terminal, live[src], dst, (live[exits[0]], exits[1], exits[2]))

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """All moves out of a batch of non-terminal positions.

        :param keys: int64[n] canonical keys.
        :returns: ``(src_index, dst_key)``, int64[m] each: move ``j`` leads from
            ``keys[src_index[j]]`` to the canonical key ``dst_key[j]``.
        """
        src: list[int] = []
        dst: list[int] = []
        for index, key in enumerate(keys.tolist()):
            for _move, child in self.moves(self.decode(key)):
                if self.table_of(child) is self:
                    src.append(index)
                    dst.append(self.canonical_key(child))
        return np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)

    def move_verdicts(self, keys: np.ndarray, codes: np.ndarray, classes: np.ndarray) -> np.ndarray:
        """What the moves within the tablebase of each of a batch of positions lead to,
        by their successors' codes: the one-byte DTZ pass's check of candidate losses,
        and of wins where it looks at every undecided position
        (:mod:`tablebase.solve.bytepass`). A compiled game may stop at a position's first
        move into a :data:`~tablebase.core.values.SUCCESSOR_LOST` code, and where
        ``classes`` has none, at its first move into a code not
        :data:`~tablebase.core.values.SUCCESSOR_WON`; by default from :meth:`successors`.

        :param keys: int64[n] canonical keys of non-terminal positions.
        :param codes: uint8[size] a code per key of the index space.
        :param classes: int8[256] what each code says of a move into it
            (:data:`~tablebase.core.values.SUCCESSOR_OTHER`, ``_WON`` or ``_LOST``).
        :returns: int8[n]: ``SUCCESSOR_LOST`` where a move leads to a lost code, else
            ``SUCCESSOR_WON`` where every move leads to a won one, else ``SUCCESSOR_OTHER``.
        """
        src, dst = self.successors(keys)
        said = classes[codes[dst]]
        lost = np.bincount(src[said == SUCCESSOR_LOST], minlength=len(keys)) > 0
        other = np.bincount(src[said == SUCCESSOR_OTHER], minlength=len(keys)) > 0
        return np.where(lost, SUCCESSOR_LOST, np.where(other, SUCCESSOR_OTHER, SUCCESSOR_WON)).astype(np.int8)

    def predecessors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Optional un-moves: the positions from which one move of the other side leads to
        each key, within the tablebase (a capture or a promotion is never un-made).

        :param keys: int64[n] canonical keys of non-terminal or terminal positions.
        :returns: ``(src_index, pred_key)``, int64[m] each: a move leads from the position
            of canonical key ``pred_key[j]`` to the position ``keys[src_index[j]]`` (up to
            symmetry). Every such predecessor must be listed; listing one more than once,
            or listing a key that is no position of the tablebase (illegal, unreachable,
            terminal), is allowed: the engine ignores those.
        :raises NotImplementedError: by default, when the game has no un-moves; the
            engine then falls back on the move graph built from :meth:`successors`.
        """
        raise NotImplementedError(f"game {self.name!r} has no un-moves")

    def progress(self, keys: np.ndarray) -> np.ndarray:
        """Required of a game of a DTZ kind (:attr:`Mode.DTZ`, :attr:`Mode.DTZ_DTM`): int64[n] per key, raised by every zeroing
        move that stays in the tablebase (a chess pawn move) and kept by every other
        move that stays in it; it tells the two kinds apart."""
        raise NotImplementedError

    def zeroing_inside(self) -> bool:
        """Optional, for a game of a DTZ kind: whether some move that stays in the
        tablebase is a zeroing move (a chess pawn move). Default true; a game that
        answers false (chess without pawns) has its DTZ solved by un-moves when it has
        them (:mod:`tablebase.solve.kinds.dtz`), with every zeroing move an exit."""
        return True

    def progress_block(self) -> int:
        """Optional, for a game of a DTZ kind over an index space: a number of keys
        dividing its size such that :meth:`progress` is the same for the keys of each
        aligned block of that many (default 1). Solved by un-moves, the DTZ passes go one
        progress level at a time, a level numbered block by block
        (:class:`~tablebase.solve.unmoves.index.LevelIndex`), so larger blocks cost less."""
        return 1

    def survey_batch(self, keys: np.ndarray, split: LevelSplit | None = None, distinct: bool = True) -> BatchSurvey | None:
        """Optional fast path of a game with un-moves over an index space: legality,
        terminal values, counts of distinct moves and exits of int64[n] keys in one
        call (:class:`BatchSurvey`); with ``split``, the moves to another level are
        listed in ``crossing``, not counted. Without ``distinct`` (no ``split``), a
        count need only be nonzero exactly where a position has a move within the
        tablebase (the one-byte pass asks no more). Default ``None``: the engine asks
        :meth:`legal`, :meth:`terminal_batch`, :meth:`successors` and :meth:`exits`."""
        return None

    def exit_window(self, dependency: Game) -> KeyWindow | None:
        """Optional, for a game whose dependencies are index spaces: the keys of
        ``dependency`` (one of :meth:`dependencies`) that this game's moves can reach,
        so that a build reads only those (chess: the promoted piece on the last rank).
        Default ``None``: any key."""
        return None

    def exits(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The moves out of a batch of non-terminal positions that leave the tablebase.

        Only called when :meth:`dependencies` is not empty.

        :param keys: int64[n] canonical keys.
        :returns: ``(src_index, table, key)``, int64[m] each: move ``j`` leads from
            ``keys[src_index[j]]`` to canonical key ``key[j]`` of the tablebase
            ``dependencies()[table[j]]``.
        :raises GameError: for a successor in a tablebase not among the dependencies.
        """
        src: list[int] = []
        table: list[int] = []
        dst: list[int] = []
        for index, key in enumerate(keys.tolist()):
            for _move, child in self.moves(self.decode(key)):
                owner = self.table_of(child)
                if owner is self:
                    continue
                src.append(index)
                table.append(self.dependency_index(owner))
                dst.append(owner.canonical_key(child))
        return tuple(np.asarray(values, dtype=np.int64) for values in (src, table, dst))  # type: ignore[return-value]

    def score(self, position: Position) -> int:
        """Scored games: the score, for its side to move, of a position without moves
        (or a terminal one). Default 0."""
        return 0

    def reward(self, position: Position, move: Move) -> int:
        """Scored games: what ``move`` from ``position`` earns the side making it. Default 0."""
        return 0

    def owners(self, keys: np.ndarray) -> np.ndarray:
        """Büchi games: bool[n], whether player A moves at each key's position."""
        raise NotImplementedError(f"{self.name} is not a Büchi game")

    def accepting(self, keys: np.ndarray) -> np.ndarray:
        """Büchi games: bool[n], whether each key's position is accepting."""
        raise NotImplementedError(f"{self.name} is not a Büchi game")

    def summary(self, keys: np.ndarray, outcome: np.ndarray) -> list[Any]:
        """Lines ``tablebase info GAME -p ...`` prints after the counts, from the stored
        int64[n] keys and int8[n] outcomes (e.g. the green game's POI output), each a
        JSON value (``info --json`` lists them as they are: numbers as numbers). Default
        none."""
        return []

    def score_details(self, position: Position, score: int) -> dict[str, Any]:
        """Scored games: the game's own reading of a position's score for queries, e.g.
        the total the side to move collects. Default none."""
        return {}

    def terminal_scores(self, keys: np.ndarray) -> np.ndarray:
        """int64[n]: :meth:`score` of each key's position."""
        return np.array([self.score(self.decode(key)) for key in keys.tolist()], dtype=np.int64)

    def move_rewards(self, keys: np.ndarray) -> np.ndarray:
        """int64[m]: :meth:`reward` of each move :meth:`successors` lists for ``keys``,
        in the same order. The default follows the default :meth:`successors`; a game
        that vectorizes one must vectorize both."""
        rewards = []
        for key in keys.tolist():
            position = self.decode(key)
            rewards += [self.reward(position, move) for move, child in self.moves(position) if self.table_of(child) is self]
        return np.asarray(rewards, dtype=np.int64)

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        """Terminal values of a batch of positions.

        :param keys: int64[n] canonical keys.
        :returns: int8[n]: an :class:`Outcome` value, or :data:`NOT_TERMINAL`.
        """
        values = np.full(len(keys), NOT_TERMINAL, dtype=np.int8)
        for index, key in enumerate(keys.tolist()):
            outcome = self.terminal(self.decode(key))
            if outcome is not None:
                values[index] = outcome
        return values


def provides_unmoves(game: Game) -> bool:
    """Whether the game implements :meth:`Game.predecessors` (its class overrides it)."""
    return overrides(type(game), "predecessors")


def overrides(cls: type[Game], member: str) -> bool:
    """Whether the game class ``cls`` defines ``member`` itself, not :class:`Game`'s default."""
    return getattr(cls, member, None) is not getattr(Game, member, None)
