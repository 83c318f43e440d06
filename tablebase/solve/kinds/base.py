"""The value kind's protocol (:class:`ValueKind`), the registry of kinds, the check of a
game's declared kind (:func:`kind_of`) and :func:`solve_game`, the engine's entry."""

from __future__ import annotations

import abc
import functools
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from tablebase.core.errors import GameError
from tablebase.core.game import Game, Mode, overrides
from tablebase.core.value import Value
from tablebase.core.values import OUTCOMES, StoredKind
from tablebase.solve.exits import ReadOnce, ReadTable
from tablebase.solve.graph import DEFAULT_BATCH_SIZE, MoveGraph, MoveShape, build_graph
from tablebase.solve.solved import SolvedGame, SolvedIndex
from tablebase.solve.unmoves.plan import UnmovePlan
from tablebase.solve.workers import RemoteWorkers, WorkersChoice
from tablebase.util.progress import Stages, silent

Finding = tuple[int, str, str]
"""A stored value verify finds wrong: the position's key, what is stored, what its moves
give (text)."""


@dataclass(frozen=True)
class StoredValues:
    """Stored values as verify reads them: int64[n] ``keys`` in key order, int8[n]
    ``outcome``, int[n] ``remoteness`` (plies, negative for none), and ``extra``
    (int64[n] values and bool[n] which are known, ``None`` where all are) for a kind that
    stores one, else ``None``."""

    keys: np.ndarray
    outcome: np.ndarray
    remoteness: np.ndarray
    extra: tuple[np.ndarray, np.ndarray | None] | None


class ValueKind(abc.ABC):
    """What a tablebase stores for each position, and the pass that computes it.

    Class attributes, each a declaration the engine reads:

    - ``name``: what a game writes in ``mode``.
    - ``stored``: the store's ``value_kind`` (:mod:`tablebase.store.schema`: ``wdl``,
      ``grundy``, ``score`` or ``dtz``), which says which extra column a row has.
    - ``requires``: the game members it needs, one of each group (checked when the game
      class is defined).
    - ``dependencies``: whether its pass can read moves into other tablebases.
    - ``splits``: a move leaves a sum of positions (int64[m, k] successors).
    - ``move_list``: its move graph is forward lists (:class:`~tablebase.solve.movelist.MoveList`),
      not predecessor lists; ``rewards``: moves carry :meth:`~tablebase.core.game.Game.move_rewards`.
    - ``remoteness``: whether it stores a remoteness.
    - ``sums_of_positions``: a query may add up positions (``a+b``) by their Grundy values.
    """

    name: ClassVar[str]
    stored: ClassVar[str] = StoredKind.WDL
    requires: ClassVar[tuple[tuple[str, ...], ...]] = ()
    dependencies: ClassVar[bool] = True
    splits: ClassVar[bool] = False
    move_list: ClassVar[bool] = False
    rewards: ClassVar[bool] = False
    remoteness: ClassVar[bool] = True
    sums_of_positions: ClassVar[bool] = False

    @functools.cached_property
    def shape(self) -> MoveShape:
        """What its passes need of a game's moves (:func:`~tablebase.solve.graph.build_graph`)."""
        return MoveShape(self.splits, self.rewards, self.move_list)

    def solve(
        self, game: Game, batch_size: int, stages: Stages, read: ReadTable | None, workers: WorkersChoice
    ) -> SolvedGame | SolvedIndex:
        """Solve every position of ``game``: by default over its move graph
        (:func:`~tablebase.solve.graph.build_graph`, :meth:`solve_graph`).

        :param batch_size: positions per call to the game's batch API.
        :param read: where the tablebases of the game's dependencies are read from.
        :param workers: processes that generate moves.
        :raises GameError: if the game breaks the protocol or the kind's rules.
        :raises NotBuiltError: if a dependency is not stored.
        """
        return self.solve_graph(game, build_graph(game, self.shape, batch_size, stages, workers), stages, read)

    @abc.abstractmethod
    def solve_graph(self, game: Game, graph: MoveGraph, stages: Stages, read: ReadTable | None) -> SolvedGame:
        """Solve the positions of ``game``'s move graph (:raises: as :meth:`solve`)."""

    @abc.abstractmethod
    def verify(self, game: Game, stored: StoredValues, graph: MoveGraph, read: ReadOnce) -> list[Finding]:
        """The positions whose stored values do not follow from their moves' (any
        order), ``graph`` the game's move graph generated afresh, with the keys of
        ``stored``; ``read`` reads the dependencies' stored values.

        :raises NotBuiltError: if a dependency is not stored.
        """

    def value(self, outcome: int, remoteness: int | None, extra: int | None) -> Value:
        """The :class:`~tablebase.core.value.Value` of stored numbers: the outcome (an
        :class:`~tablebase.core.game.Outcome` number), the remoteness in plies or ``None``,
        and the extra column's number (``None`` for a kind without one)."""
        return Value(OUTCOMES[outcome], remoteness)

    def known(self, extra: np.ndarray) -> np.ndarray | None:
        """bool[n] which of the solved extra values int64[n] are values (``None``: all)."""
        return None

    def uses_unmoves(self, game: Game) -> bool:
        """Whether its pass solves ``game`` from un-moves, without a move graph."""
        return False

    def unmove_plan(self, game: Game, read: ReadTable | None) -> UnmovePlan | None:
        """Its passes by un-moves over one survey of ``game``'s positions, as
        :func:`~tablebase.solve.unmoves.solver.solve_by_unmoves` and the partitions of
        :mod:`tablebase.solve.partitioned` run them, their exits read through ``read``
        when first asked; ``None`` where its pass is not such passes (the default)."""
        return None


_REGISTERED: dict[str, ValueKind] = {}


def register(kind: ValueKind) -> ValueKind:
    """Make ``kind`` one a game can name in ``mode``; returns it.

    :raises GameError: if another kind has its name.
    """
    if kind.name in _REGISTERED and _REGISTERED[kind.name] is not kind:
        raise GameError(f"value kind {kind.name!r} is registered twice")
    _REGISTERED[kind.name] = kind
    return kind


def kind_named(name: str) -> ValueKind:
    """The registered kind of that name.

    :raises GameError: for a name no kind has, listing those there are.
    """
    try:
        return _REGISTERED[str(name)]
    except KeyError:
        raise GameError(f"mode {name!r} is not a registered value kind ({', '.join(sorted(_REGISTERED))})") from None


_OLD_FLAGS = {"impartial": Mode.IMPARTIAL, "scored": Mode.SCORED, "buchi": Mode.BUCHI, "splits": Mode.SUMS}
"""Flags an older game protocol read in place of ``mode``, and the mode each means."""


def declared_modes(cls: type[Game]) -> tuple[str, ...]:
    """The modes a game class may take: its ``modes``, else its one ``mode``."""
    return cls.modes or (cls.mode,)


@functools.cache
def class_problem(cls: type[Game]) -> str | None:
    """What is wrong with a game class's mode declaration (see :class:`~tablebase.core.game.Game`),
    or ``None``; worked out once a class."""
    for flag, mode in _OLD_FLAGS.items():
        if flag in cls.__dict__:
            return f"'{flag} = ...' is no longer read: declare 'mode = Mode.{mode.name}' (tablebase.core.game.Mode)"
    modes = declared_modes(cls)
    if cls.mode not in modes:
        return f"mode {cls.mode} is not among its modes ({', '.join(modes)})"
    for mode in modes:
        try:
            kind = kind_named(mode)
        except GameError as error:
            return str(error)
        for group in kind.requires:
            if not any(overrides(cls, member) for member in group):
                return f"mode {mode} needs {' or '.join(f'{m}()' for m in group)}"
        if not kind.dependencies and overrides(cls, "dependencies"):
            return f"mode {mode} cannot have moves into other tablebases (dependencies()); only WDL, DTZ and impartial games can"
    return None


def check_class(cls: type[Game]) -> None:
    """:raises GameError: naming the class, if its mode declaration is wrong (:func:`class_problem`)."""
    problem = class_problem(cls)
    if problem:
        raise GameError(f"game class {cls.__qualname__}: {problem}")


def kind_of(game: Game) -> ValueKind:
    """The value kind ``game`` is solved and read by, its class's declaration checked
    (once a class): what a caller resolves once and passes down.

    :raises GameError: for a wrong declaration, or an instance whose ``mode`` its class
        does not list.
    """
    check_class(type(game))
    if game.mode not in declared_modes(type(game)):
        raise GameError(f"{game.name}: mode {game.mode} is not among its class's modes")
    return kind_named(game.mode)


THREADED_BATCH_SIZE = 1 << 14
"""The smallest default batch of a ``threaded`` game whose moves are generated in this
process's threads (chess, :func:`threaded_batch_size`): a quarter of
:data:`DEFAULT_BATCH_SIZE` keeps each thread's moves in its caches (KQvKR builds faster
and leaner than with 65,536 keys a batch, benchmarks/RESULTS.md), and compiled kernels
pay next to nothing a call."""


def threaded_batch_size(size: int | None) -> int:
    """The default batch of a ``threaded`` game of ``size`` keys (``None``: found by
    search): :data:`THREADED_BATCH_SIZE`, up to eight times that for an index space
    large enough to have 2,048 batches or more. A large space's survey (one compiled
    call a batch, no moves held) spares the building thread's work a batch: KRBvKR
    (335 million keys) surveys faster at 131,072 keys a batch than at 16,384, its passes
    as fast either way (their un-moves a quarter of a batch at a time), where KQvKR (5
    million) builds faster at 16,384 (benchmarks/RESULTS.md)."""
    return min(max((size or 0) >> 11, THREADED_BATCH_SIZE), THREADED_BATCH_SIZE << 3)


def solve_game(
    game: Game,
    batch_size: int | None = None,
    stages: Stages = silent,
    read: ReadTable | None = None,
    workers: WorkersChoice = None,
) -> SolvedGame | SolvedIndex:
    """Enumerate, expand and solve a game in memory by the pass of its value kind
    (:meth:`ValueKind.solve`).

    :param batch_size: positions per call to the game's batch API (default
        :func:`threaded_batch_size` for a ``threaded`` game solved here, else
        :data:`~tablebase.solve.graph.DEFAULT_BATCH_SIZE`); the result does not depend on
        it.
    :param read: where the tablebases of :meth:`~tablebase.core.game.Game.dependencies` are
        read from; needed only by a game whose moves leave its tablebase.
    :param workers: processes that generate moves (default: one per core), or
        :class:`~tablebase.solve.workers.RemoteWorkers` (a cluster's).
    :raises GameError: if the game breaks the protocol, or an instance chose a mode its
        class does not list.
    :raises NotBuiltError: if a dependency is not stored.
    """
    kind = kind_of(game)
    if batch_size is None:
        local = not isinstance(workers, RemoteWorkers)
        batch_size = threaded_batch_size(game.size) if game.threaded and local else DEFAULT_BATCH_SIZE
    return kind.solve(game, batch_size, stages, read, workers)
