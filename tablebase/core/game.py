"""The game protocol, outcomes, parameters and the registry of games.

A game is a subclass of :class:`Game`. A plug-in author implements the per-position API
(about 40 lines for a small game); built-in games also implement the batch API, which is
the fast path. Every member is documented below as *required* or *optional*, with the
fallback used when an optional one is missing (the style of GamesmanOne's game API).

Games are found through the entry-point group ``tablebase.games``: a third-party package
declares, in its ``pyproject.toml``::

    [project.entry-points."tablebase.games"]
    mygame = "mypackage.mygame:MyGame"

Semantics (see docs/design.md): an outcome is always for the side to move, and remoteness is
counted in plies.
"""

from __future__ import annotations

import difflib
import enum
import hashlib
import json
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from tablebase.core.errors import GameError, ParameterError, TablebaseError, UnknownGameError

if TYPE_CHECKING:
    from tablebase.solve.kinds import ValueKind

ENTRY_POINT_GROUP = "tablebase.games"

Position = Hashable
"""A game's own position object (an int, a tuple, ...); the library never looks inside."""

Move = Any
"""A game's own move object, shown to users only through :meth:`Game.format_move`."""


@dataclass(frozen=True)
class LevelSplit:
    """The progress levels of an index space (:meth:`Game.progress`), constant over
    aligned blocks of ``block`` keys: ``levels`` int64[blocks] the level of each block.
    A DTZ pass over ``level`` takes the moves to another level (zeroing moves, chess
    pawn moves) as exits into its own tablebase."""

    block: int
    levels: np.ndarray
    level: int

    def elsewhere(self, keys: np.ndarray) -> np.ndarray:
        """bool[k]: which int64[k] keys lie at another level."""
        return self.levels[keys // self.block] != self.level


@dataclass(frozen=True)
class KeyWindow:
    """The keys of an index space that moves into it from another tablebase can reach
    (:meth:`Game.exit_window`): those whose digit ``(key // unit) % radix`` lies in
    ``[low, low + width)``; ``unit * radix`` divides the size of the index space. A
    chess promotion puts the new piece on the last rank: one eighth of the squares of
    its slot.
    """

    unit: int
    radix: int
    low: int
    width: int

    def size(self, space: int) -> int:
        """How many keys of an index space of ``space`` keys lie in the window."""
        return space // self.radix * self.width

    def contains(self, keys: np.ndarray) -> np.ndarray:
        """bool[k]: which int64[k] keys lie in the window."""
        digit = keys // self.unit % self.radix
        return (digit >= self.low) & (digit < self.low + self.width)

    def compact(self, keys: np.ndarray) -> np.ndarray:
        """int64[k]: the number of each of int64[k] keys among the window's keys, in key
        order (meaningful for the keys it contains)."""
        digit = keys // self.unit % self.radix
        return keys // (self.unit * self.radix) * (self.unit * self.width) + (digit - self.low) * self.unit + keys % self.unit


@dataclass(frozen=True)
class BatchSurvey:
    """What :meth:`Game.survey_batch` tells of int64[n] keys of an index space.

    :ivar legal: bool[n] which keys are positions of the tablebase.
    :ivar terminal: int8[n] their terminal values, :data:`NOT_TERMINAL` for the others
        (read where ``legal`` only).
    :ivar moves: int64[n] the distinct successors of each, within the tablebase and at
        its own progress level (0 where illegal or terminal).
    :ivar crossing: ``(src, key)`` int64[c] each: the moves within the tablebase to
        another progress level (``src`` numbering the keys), each distinct successor once.
    :ivar exits: ``(src, table, key)`` int64[e] each, as :meth:`Game.exits` gives them,
        ``src`` numbering the keys.
    """

    legal: np.ndarray
    terminal: np.ndarray
    moves: np.ndarray
    crossing: tuple[np.ndarray, np.ndarray]
    exits: tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class BatchMoves:
    """What :meth:`Game.expand` tells of int64[n] keys: every move of them, in one answer.

    :ivar terminal: int8[n] terminal values, :data:`NOT_TERMINAL` for the others.
    :ivar src: int64[m] the key (its row) each move within the tablebase leaves, a
        non-terminal one.
    :ivar dst: int64[m] the canonical key it leads to (int64[m, k] for a game that
        splits: the parts of the sum, -1 padding fewer).
    :ivar exits: ``(src, table, key)`` int64[e] each, as :meth:`Game.exits` gives them,
        ``src`` numbering the keys.
    """

    terminal: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    exits: tuple[np.ndarray, np.ndarray, np.ndarray]


class Outcome(enum.IntEnum):
    """Game-theoretic value for the side to move. Negating it gives the opponent's view."""

    LOSS = -1
    DRAW = 0
    WIN = 1

    @property
    def label(self) -> str:
        """``"win"``, ``"draw"`` or ``"loss"``, as printed by the CLI and in JSON."""
        return _LABELS[self]

    @classmethod
    def from_label(cls, text: str) -> Outcome:
        """Inverse of :attr:`label`. :raises ValueError: for any other text."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown outcome {text!r}: expected win, draw or loss") from None


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


NOT_TERMINAL = 2
"""Value of :meth:`Game.terminal_batch` for a position that is not terminal."""

WIN, DRAW, LOSS = int(Outcome.WIN), int(Outcome.DRAW), int(Outcome.LOSS)
"""The outcomes as plain integers, as outcome arrays and compiled loops hold them."""


_LABELS = {outcome: outcome.name.lower() for outcome in Outcome}
""":attr:`Outcome.label` of each outcome (an enum's ``name`` is slow to read)."""


def signed_distance(outcome: Outcome, remoteness: int | None) -> int | None:
    """A distance signed for the side to move, as lichess and Gaviota give DTM: the
    remoteness in plies, positive for a win, negative for a loss; 0 for a draw; ``None``
    for a win or loss without a remoteness."""
    if outcome == Outcome.DRAW:
        return 0
    if remoteness is None:
        return None
    return remoteness if outcome == Outcome.WIN else -remoteness


# --------------------------------------------------------------------------- parameters


def _parse_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError("expected an integer") from None


def _parse_ints(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        values = ()
    if not values:
        raise ValueError("expected a comma-separated list of integers")
    return values


def _parse_set(text: str) -> tuple[int, ...]:
    return _normal_set(_parse_ints(text))


def _normal_set(values: Iterable[int]) -> tuple[int, ...]:
    """The canonical form of a set of integers: distinct, ascending."""
    return tuple(sorted(set(values)))


def _parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected on/off, true/false, yes/no or 1/0")


def _read_file(text: str) -> str:
    return Path(text).expanduser().read_text(encoding="utf-8")


_PARSERS: dict[str, Callable[[str], Any]] = {
    "int": _parse_int,
    "ints": _parse_ints,
    "set": _parse_set,
    "bool": _parse_bool,
    "str": str,
    "file": _read_file,
}


@dataclass(frozen=True)
class Parameter:
    """One parameter of a game, set on the command line as ``-p name=value``.

    :param name: the parameter's name.
    :param kind: ``"int"``, ``"ints"`` (a comma-separated sequence), ``"set"`` (a
        comma-separated set of integers: order and repeats do not matter, the game gets
        them distinct and ascending, so ``3,2,1`` and ``1,2,3`` name one tablebase),
        ``"bool"``, ``"str"`` or ``"file"``. A ``file`` parameter is given as a path; the game receives the file's
        text, and the tablebase is identified by the text's SHA-256, not by the path.
    :param default: the value used when none is given (already parsed); ``None`` makes
        the parameter required.
    :param help: one line shown by ``tablebase games``.
    :param check: optional; returns an error message for a parsed value that is out of
        range, or ``None`` when the value is fine.
    """

    name: str
    kind: str
    default: Any
    help: str
    check: Callable[[Any], str | None] | None = None

    def parse(self, text: str) -> Any:
        """Parse a value given as text. :raises ParameterError: on a bad value."""
        try:
            value = _PARSERS[self.kind](text)
        except (ValueError, OSError) as error:
            reason = error.strerror if isinstance(error, OSError) else error
            raise ParameterError(f"bad value {text!r} for parameter {self.name!r}: {reason}") from None
        self.validate(value)
        return value

    def normalize(self, value: Any) -> Any:
        """A parsed value in its canonical form (a ``set`` distinct and ascending)."""
        return _normal_set(value) if self.kind == "set" else value

    def validate(self, value: Any) -> None:
        """:raises ParameterError: when :attr:`check` rejects the value."""
        problem = self.check(value) if self.check else None
        if problem:
            raise ParameterError(f"bad value for parameter {self.name!r}: {problem}")

    def identity(self, value: Any) -> Any:
        """The JSON-able form of a value that identifies the tablebase."""
        if self.kind == "file":
            return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()
        if isinstance(value, tuple):
            return list(value)
        return value

    def show(self, value: Any) -> str:
        """The value as a user would type it after ``-p name=`` (a file by its hash)."""
        if self.kind in ("ints", "set"):
            return ",".join(map(str, value))
        if self.kind == "bool":
            return "on" if value else "off"
        if self.kind == "file":
            return self.identity(value)[: len("sha256:") + 12]
        return str(value)


def at_least(minimum: int) -> Callable[[int], str | None]:
    """A :class:`Parameter` check: an int parameter must be ``minimum`` or more."""
    return lambda value: None if value >= minimum else f"must be >= {minimum}"


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """The hint after a mistyped name: ``"; did you mean 'x'?"`` when one of ``choices``
    is close to ``name`` (difflib's ratio of at least 0.6), else ``""``."""
    close = difflib.get_close_matches(name, list(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def not_one_of(what: str, value: str, choices: Iterable[str]) -> str:
    """The message for a ``value`` that is not one of ``choices``, with a hint."""
    choices = list(choices)
    return f"bad {what} {value!r}: expected one of {', '.join(choices)}{did_you_mean(value, choices)}"


def unknown_parameter(name: str, declared: Iterable[str]) -> ParameterError:
    """The error for a parameter the game does not declare, naming those it does."""
    declared = list(declared)
    return ParameterError(f"unknown parameter {name!r} (known: {', '.join(declared) or 'none'}){did_you_mean(name, declared)}")


def resolve_parameters(declared: Iterable[Parameter], given: Mapping[str, Any]) -> dict[str, Any]:
    """Merge given values (text or already parsed) with the declared defaults.

    :returns: a dict with one parsed value per declared parameter.
    :raises ParameterError: for an unknown or missing parameter, or a bad value.
    """
    by_name = {parameter.name: parameter for parameter in declared}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise unknown_parameter(unknown[0], by_name)
    values: dict[str, Any] = {}
    for name, parameter in by_name.items():
        if name in given:
            raw = given[name]
            if isinstance(raw, str) and parameter.kind != "str":
                values[name] = parameter.parse(raw)
            else:
                values[name] = parameter.normalize(raw)
                parameter.validate(values[name])
        elif parameter.default is None:
            raise ParameterError(f"parameter {name!r} is required: -p {name}=...")
        else:
            values[name] = parameter.default
    return values


# --------------------------------------------------------------------------- the protocol


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

    The declaration is checked when the class is defined (:meth:`__init_subclass__`):
    an unknown mode, a missing member its kind needs, or moves into other tablebases
    (:meth:`dependencies`) in a kind whose pass cannot read them (scored, Büchi, sums)
    raise :class:`~tablebase.core.errors.GameError`.

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
    (default: no symmetry), :meth:`format_move` (default: ``str``).

    Batch (optional fast path): :meth:`successors`, :meth:`exits` and
    :meth:`terminal_batch`. The default implementations loop over the per-position API one
    position at a time.

    Instance attribute ``threaded`` (default false): the batch API is compiled code that
    releases the GIL (chess's numba kernels) and is safe to call from several threads at
    once, so the engine runs its batches in threads of the building process, not in
    worker processes: no results travel through pipes.

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
    bytes_per_position: ClassVar[int | None] = None
    sides_alternate: ClassVar[bool] = False
    moves_cross_sides: bool = False
    dtm_left_out_by_default: bool = False

    size: int | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Check a game's declared mode and the members it needs (see the class docstring).

        :raises GameError: naming the class and what is wrong.
        """
        super().__init_subclass__(**kwargs)
        problem = _mode_problem(cls)
        if problem:
            raise GameError(f"game class {cls.__qualname__}: {problem}")

    def __init__(self, **params: Any) -> None:
        """:raises ParameterError: for an unknown, missing or bad parameter."""
        self.params: dict[str, Any] = resolve_parameters(self.parameters, params)

    @property
    def kind(self) -> ValueKind:
        """The value kind named by ``mode`` (:mod:`tablebase.solve.kinds`)."""
        from tablebase.solve.kinds import kind_named  # the kinds import this module

        return kind_named(self.mode)

    @property
    def splits(self) -> bool:
        """Whether a move may leave a sum of positions (the ``sums`` kind)."""
        return self.kind.splits

    def components(self, position: Position) -> list[Position]:
        """The single positions a sum is made of (required for a game that ``splits``);
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
        kernels: about 0.24 s). By default ``start`` where the game has a start
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

    def format_move(self, move: Move) -> str:
        """Optional: write a move for users (default: ``str(move)``)."""
        return str(move)

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
        (:class:`~tablebase.solve.unmoves.LevelIndex`), so larger blocks cost less."""
        return 1

    def survey_batch(self, keys: np.ndarray, split: LevelSplit | None = None) -> BatchSurvey | None:
        """Optional fast path of a game with un-moves over an index space: legality,
        terminal values, counts of distinct moves and exits of int64[n] keys in one
        call (:class:`BatchSurvey`); with ``split``, the moves to another level are
        listed in ``crossing``, not counted. Default ``None``: the engine asks
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


_OLD_FLAGS = {"impartial": Mode.IMPARTIAL, "scored": Mode.SCORED, "buchi": Mode.BUCHI, "splits": Mode.SUMS}


def _overrides(cls: type[Game], member: str) -> bool:
    return getattr(cls, member, None) is not getattr(Game, member, None)


def _mode_problem(cls: type[Game]) -> str | None:
    """What is wrong with a game class's mode declaration, or ``None``."""
    from tablebase.solve.kinds import kind_named  # the kinds import this module

    for flag, mode in _OLD_FLAGS.items():
        if flag in cls.__dict__:
            return f"'{flag} = ...' is no longer read: declare 'mode = Mode.{mode.name}' (tablebase.core.game.Mode)"
    modes = cls.modes or (cls.mode,)
    if cls.mode not in modes:
        return f"mode {cls.mode} is not among its modes ({', '.join(modes)})"
    for mode in modes:
        try:
            kind = kind_named(mode)
        except GameError as error:
            return str(error)
        for group in kind.requires:
            if not any(_overrides(cls, member) for member in group):
                return f"mode {mode} needs {' or '.join(f'{m}()' for m in group)}"
        if not kind.dependencies and _overrides(cls, "dependencies"):
            return f"mode {mode} cannot have moves into other tablebases (dependencies()); only WDL, DTZ and impartial games can"
    return None


def provides_unmoves(game: Game) -> bool:
    """Whether the game implements :meth:`Game.predecessors` (its class overrides it)."""
    return _overrides(type(game), "predecessors")


# --------------------------------------------------------------------------- registry


def game_entry_points() -> dict[str, EntryPoint]:
    """The registered games: entry points of the group ``tablebase.games``, by name."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def game_class(name: str) -> type[Game]:
    """Load the class of a registered game.

    :raises UnknownGameError: if no game of that name is registered.
    :raises GameError: if the entry point fails to import, or loads no :class:`Game` subclass.
    """
    registered = game_entry_points()
    if name not in registered:
        known = ", ".join(sorted(registered)) or "none"
        raise UnknownGameError(f"unknown game {name!r} (registered: {known}){did_you_mean(name, registered)}")
    try:
        loaded = registered[name].load()
    except Exception as error:  # a broken plug-in must not take the others down with it
        raise GameError(f"game {name!r} failed to load ({registered[name].value}): {error}") from None
    if not (isinstance(loaded, type) and issubclass(loaded, Game)):
        raise GameError(f"entry point {name!r} does not name a tablebase.core.game.Game subclass")
    return loaded


def outdated(name: str, version: int) -> bool:
    """Whether a tablebase built for ``version`` of the game ``name`` is outdated: the
    registered game is at another version now. False for a game that is not registered
    or does not load (nothing tells)."""
    try:
        return game_class(name).version != version
    except (UnknownGameError, GameError):
        return False


def game_failure(error: BaseException) -> GameError | None:
    """The error to report when ``error`` was raised by a game's own code (a plug-in's
    ``parse`` that fails on odd text, say), naming the game and the method the engine
    called; ``None`` when no method of a :class:`Game` subclass raised it.

    The traceback is searched for the outermost frame of a method defined in a game's
    module (not in this one), so a bug in a plug-in is one line naming the plug-in.
    """
    if isinstance(error, TablebaseError):
        return None
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        game = frame.f_locals.get("self")
        if isinstance(game, Game) and frame.f_code.co_filename != __file__:
            name = getattr(game, "name", type(game).__name__)
            return GameError(f"game {name!r} failed in {frame.f_code.co_name}: {type(error).__name__}: {error}")
        tb = tb.tb_next
    return None


def parse_assignments(items: Iterable[str]) -> dict[str, str]:
    """Parameters given as ``name=value`` texts (``-p`` on the command line), by name.

    >>> parse_assignments(["heaps=2", " max = 3"])
    {'heaps': '2', 'max': '3'}

    :raises ParameterError: for an item without ``=`` or a name, or a name given twice.
    """
    values: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ParameterError(f"bad parameter {item!r}: expected name=value")
        if key in values:
            raise ParameterError(f"parameter {key!r} is given twice")
        values[key] = value.strip()
    return values


def load_game(name: str, params: Mapping[str, Any] | None = None) -> Game:
    """Instantiate a registered game with parameters given as text or values.

    >>> load_game("nim", {"heaps": "2", "max": "3"}).describe()
    'nim heaps=2 max=3'

    :raises UnknownGameError: for an unregistered name.
    :raises ParameterError: for an unknown, missing or bad parameter.
    """
    return game_class(name)(**dict(params or {}))
