"""Solving a game by its :class:`~tablebase.game.Mode`: the one place where the mode picks
the pass.

Every mode but WDL with un-moves starts from the same move graph (:func:`~tablebase.solve.graph.build_graph`:
worker processes, index-space or discovery form, moves into other tablebases). Then:

- ``WDL``: the retrograde pass (:mod:`tablebase.solve.retrograde`), outcome and remoteness,
  with the stored values of moves into other tablebases; a game with un-moves
  (:meth:`~tablebase.game.Game.predecessors`) skips the move graph
  (:mod:`tablebase.solve.unmoves`) unless its index space is small (:func:`uses_unmoves`);
  a game that stores DTZ (``dtz``) gets DTZ under the 50-move rule first
  (:mod:`tablebase.solve.dtz`), from the same move graph, or by two more un-move passes
  when no zeroing move stays inside its tablebase (chess without pawns), else through the
  move graph;
- ``IMPARTIAL``: the same, then Grundy values (:func:`~tablebase.solve.acyclic.grundy_values`),
  counting the stored Grundy values of moves into other tablebases; a game that
  ``splits`` gets the Grundy values of its single components instead, win (above 0) or
  loss following from them, and no remoteness but 0 for a position without moves;
- ``SCORED``: negamax values (:mod:`tablebase.solve.scored`), win/draw/loss as their
  sign, no remoteness but 0 for a position without moves;
- ``BUCHI``: the winner of the Büchi condition by iterated attractors
  (:mod:`tablebase.solve.buchi`), a win for the side to move where it is that winner,
  no remoteness.

Reading other tablebases is the caller's: it passes a :data:`ReadTable`, so this package
stays free of SQL.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tablebase.errors import GameError, NotBuiltError
from tablebase.game import NOT_TERMINAL, Game, LevelSplit, Mode, Outcome, provides_unmoves
from tablebase.progress import Stages, silent
from tablebase.solve.acyclic import NO_GRUNDY, grundy_values
from tablebase.solve.buchi import buchi_winners
from tablebase.solve.dtz import (
    RULE_PLIES,
    UNKNOWN,
    Zeroing,
    categories,
    category_of,
    dtz_by_progress,
    dtz_in_place,
    rule_levels,
    zeroing_exits,
)
from tablebase.solve.graph import DEFAULT_BATCH_SIZE, ExitMoves, MoveGraph, build_graph
from tablebase.solve.movelist import MoveList
from tablebase.solve.predecessors import Predecessors
from tablebase.solve.retrograde import NO_REMOTENESS, Exits, Solution, solve
from tablebase.solve.scored import scored_values
from tablebase.solve.scratch import Scratch, Spilled
from tablebase.solve.solved import ABSENT, SolvedGame, SolvedIndex
from tablebase.solve.tables import IndexedTable, StoredTable
from tablebase.solve.unmoves import SELF, LevelIndex, Pass, PositionIndex, SpilledSurvey, Survey, solve_by_unmoves, solve_survey
from tablebase.solve.workers import RemoteWorkers, WorkersChoice


ReadTable = Callable[..., StoredTable | IndexedTable]
"""``read(game, dtz=True, window=None)``: reads the stored tablebase of a dependency,
without its DTZ where ``dtz`` is false and leaving it out saves memory (an index space),
only the keys of ``window`` where one is given (:meth:`~tablebase.game.Game.exit_window`).
:raises NotBuiltError: if it is not built."""

ExitTable = tuple[np.ndarray, Game, StoredTable | IndexedTable, np.ndarray]
"""What :func:`_exit_tables` gives for one dependency: bool[k] which moves lead into it,
the dependency, its stored tablebase, and its indices of those moves' successors."""


THREADED_BATCH_SIZE = 1 << 14
"""The default batch of a ``threaded`` game whose moves are generated in this process's
threads: a quarter of :data:`DEFAULT_BATCH_SIZE` keeps each thread's moves in its caches
(KQvKR builds 15% faster and 20% leaner than with 65,536 keys a batch), and compiled
kernels pay next to nothing a call."""


def solve_game(
    game: Game,
    batch_size: int | None = None,
    stages: Stages = silent,
    read: ReadTable | None = None,
    workers: WorkersChoice = None,
) -> SolvedGame | SolvedIndex:
    """Enumerate, expand and solve a game in memory, by its mode (see the module docstring).

    :param batch_size: positions per call to the game's batch API (default
        :data:`THREADED_BATCH_SIZE` for a ``threaded`` game solved here, else
        :data:`~tablebase.solve.graph.DEFAULT_BATCH_SIZE`); the result does not depend on
        it.
    :param read: where the tablebases of :meth:`~tablebase.game.Game.dependencies` are
        read from; needed only by a game whose moves leave its tablebase.
    :param workers: processes that generate moves (default: one per core), or
        :class:`~tablebase.solve.workers.RemoteWorkers` (a cluster's).
    :raises GameError: if the game breaks the protocol, or an instance chose a mode its
        class does not list.
    :raises NotBuiltError: if a dependency is not stored.
    """
    allowed = type(game).modes or (type(game).mode,)
    if game.mode not in allowed:
        raise GameError(f"{game.name}: mode {game.mode} is not among its class's modes")
    if batch_size is None:
        local = not isinstance(workers, RemoteWorkers)
        batch_size = THREADED_BATCH_SIZE if game.threaded and local else DEFAULT_BATCH_SIZE
    if uses_unmoves(game):
        return _by_unmoves(game, batch_size, stages, read, workers)
    graph = build_graph(game, batch_size, stages, workers)
    match game.mode:
        case Mode.IMPARTIAL if game.splits:
            return _sums(graph, stages)
        case Mode.WDL | Mode.IMPARTIAL:
            return _retrograde(game, graph, stages, read)
        case Mode.SCORED:
            return _scored(game, graph, stages)
    return _buchi(game, graph, stages)  # Mode.BUCHI, the one mode the match leaves


def _retrograde(game: Game, graph: MoveGraph, stages: Stages, read: ReadTable | None) -> SolvedGame:
    """WDL and impartial games: outcome and remoteness, and Grundy values when impartial;
    DTZ first for a game that stores it."""
    assert isinstance(graph.moves, Predecessors)
    if game.dtz:
        dtz, dtz_outcome = _dtz(game, graph, stages, read)
        return _with_dtm(game, graph.keys, dtz, dtz_outcome, lambda: _remoteness(game, graph, stages, read)[0])
    return SolvedGame(graph.keys, *_remoteness(game, graph, stages, read))


def _remoteness(game: Game, graph: MoveGraph, stages: Stages, read: ReadTable | None) -> tuple[Solution, np.ndarray | None]:
    """The retrograde pass over the move graph, and the Grundy values of an impartial game
    (else ``None``)."""
    impartial = game.mode is Mode.IMPARTIAL
    with stages("lookup", len(graph.exits.src)) as advance:
        exits, exit_grundy = exit_values(game, graph.exits, read, impartial)
        advance(len(graph.exits.src))
    n = len(graph.keys)
    with stages("solve", n) as advance:
        solution = solve(graph.terminal, graph.moves, advance, exits)
    grundy = None
    if impartial:
        with stages("grundy", n) as advance:
            known = (exits.src, exit_grundy)
            grundy = grundy_values(n, graph.moves.preds, graph.moves.targets(), advance, known)
    return solution, grundy


def _with_dtm(
    game: Game, keys: np.ndarray, dtz: np.ndarray, dtz_outcome: np.ndarray, solve_dtm: Callable[[], Solution]
) -> SolvedGame:
    """A game with DTZ: with the remoteness of ``solve_dtm()`` where it stores DTM too
    (whose outcomes must be the DTZ pass's), else with none.

    :raises GameError: if the two passes disagree on an outcome.
    """
    if not game.dtm:
        return SolvedGame(keys, Solution(dtz_outcome, np.full(len(keys), NO_REMOTENESS, np.int32)), dtz)
    solution = solve_dtm()
    if not np.array_equal(solution.outcome, dtz_outcome):
        raise GameError(f"{game.describe()}: the DTZ pass and the DTM pass disagree on an outcome")
    return SolvedGame(keys, solution, dtz)


GRAPH_UP_TO = 1 << 25
"""The largest index space solved through the move graph even when the game has
un-moves, unless its batch API is compiled (``Game.threaded``): there the graph fits in a
few GiB and builds two to three times faster than the un-move pass in numpy (measured on
KQvKR). Forward-search games and compiled ones always use their un-moves (chess KQvKR:
6.6 s at 461 MiB by un-moves, 5.5 s at 1.2 GiB by the graph, benchmarks/RESULTS.md)."""


def uses_unmoves(game: Game) -> bool:
    """Whether :func:`solve_game` solves the game without a move graph: a WDL game with
    un-moves, found by forward search, compiled (``threaded``), or over an index space
    above :data:`GRAPH_UP_TO`; a game that stores DTZ only over an index space (its
    passes go one progress level at a time, numbered over it)."""
    large = game.size is None or game.size > GRAPH_UP_TO or game.threaded
    indexed = not game.dtz or game.size is not None
    return game.mode is Mode.WDL and provides_unmoves(game) and large and indexed


class ReadOnce:
    """``read`` that reads each dependency of ``game`` once, however often it is asked,
    until :meth:`forget`; only the keys ``game``'s moves can reach
    (:meth:`~tablebase.game.Game.exit_window`).

    :raises NotBuiltError: when asked for a dependency and ``read`` is ``None``.
    """

    def __init__(self, game: Game, read: ReadTable | None, dtz: bool = True) -> None:
        self.game, self.read, self.dtz = game, read, dtz
        self.tables: dict[tuple[str, str], StoredTable | IndexedTable] = {}

    def __call__(self, dependency: Game) -> StoredTable | IndexedTable:
        identity = (dependency.name, dependency.identity())
        if identity not in self.tables:
            if self.read is None:
                raise NotBuiltError(f"{self.game.describe()} needs the stored tablebase of {dependency.describe()}")
            self.tables[identity] = self.read(dependency, dtz=self.dtz, window=self.game.exit_window(dependency))
        return self.tables[identity]

    def forget(self) -> None:
        """Drop the tablebases read so far (their memory), to read them again if asked."""
        self.tables.clear()


RULE_PASS = Pass(draws=False, until=RULE_PLIES)
"""DTZ's pass A under the 50-move rule (:mod:`tablebase.solve.dtz`): its levels up to
100 plies only, no draw remoteness."""

FREE_PASS = Pass(draws=False)
"""DTZ's pass B without the rule's limit: every level, no draw remoteness."""


def _by_unmoves(
    game: Game, batch_size: int, stages: Stages, read: ReadTable | None, workers: WorkersChoice
) -> SolvedGame | SolvedIndex:
    """A WDL game with un-moves: the retrograde pass without a move graph
    (:mod:`tablebase.solve.unmoves`); each dependency is read once, and dropped after the
    survey, the only time they are looked up, without their DTZ where the passes over
    them need none. DTZ takes two more passes (A and B of
    :mod:`tablebase.solve.dtz`): over the same survey for a game with no zeroing move
    inside its tablebase (every zeroing move an exit, valued as
    :func:`~tablebase.solve.dtz.zeroing_exits` says), else one progress level at a time
    (:func:`_dtz_by_levels`)."""
    if not game.dtz:
        return _dtm_alone(game, batch_size, stages, read, workers)
    if game.zeroing_inside():
        return _dtz_by_levels(game, batch_size, stages, read, workers)
    read_once = ReadOnce(game, read)

    def exits(moves: ExitMoves) -> tuple[Exits, ...]:
        if not game.dtm:
            return zeroing_exits(Zeroing(moves.src, exit_categories(game, moves, read_once)))
        category, values = exit_categories_and_values(game, moves, read_once)
        rule, free = zeroing_exits(Zeroing(moves.src, category))
        return rule, free, values

    passes = (RULE_PASS, FREE_PASS, Pass()) if game.dtm else (RULE_PASS, FREE_PASS)
    assembly = _DtzAssembly(game)
    return solve_by_unmoves(game, exits, batch_size, stages, workers, read_once.forget, passes, assembly.keep)[-1]


def _dtm_alone(
    game: Game, batch_size: int, stages: Stages, read: ReadTable | None, workers: WorkersChoice
) -> SolvedGame | SolvedIndex:
    """DTM's pass alone, its dependencies read without DTZ."""
    read_once = ReadOnce(game, read, dtz=False)

    def exits(moves: ExitMoves) -> tuple[Exits]:
        return (exit_values(game, moves, read_once)[0],)

    return solve_by_unmoves(game, exits, batch_size, stages, workers, read_once.forget)[0]


class _DtzAssembly:
    """Keeps what each pass of a DTZ build by un-moves over one survey leaves (passes A,
    B, then DTM's if ``game.dtm``), a few bytes a key: A's levels (a byte), then B's
    values turned into DTZ in place, spilled to disk with its outcomes kept (a byte)
    when DTM's pass follows."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.levels: np.ndarray | None = None
        self.free_outcome: np.ndarray | None = None
        self.dtz: Spilled | None = None

    def keep(self, number: int, index: PositionIndex, solution: Solution) -> SolvedIndex | None:
        if index.sorted_keys is not None:
            raise GameError(f"{self.game.describe()}: DTZ by un-moves needs an index space")
        if number == 0:
            self.levels = rule_levels(solution)
            return None
        if number == 1:
            assert self.levels is not None
            dtz_in_place(self.levels, solution)
            self.levels = None
            if not self.game.dtm:
                return SolvedIndex(solution.outcome, None, solution.remoteness)
            self.dtz = Scratch().put(solution.remoteness)
            self.free_outcome = np.ascontiguousarray(solution.outcome)
            return None
        _same_outcomes(self.game, solution.outcome, self.free_outcome)
        self.free_outcome = None
        return SolvedIndex(solution.outcome, solution.remoteness, self.dtz)


def _same_outcomes(game: Game, dtm: np.ndarray | Spilled, free: np.ndarray | Spilled, chunk: int = 1 << 24) -> None:
    """:raises GameError: if the DTM pass and DTZ's pass B disagree on an outcome
    (int8[n] each, compared ``chunk`` keys at a time)."""
    for start in range(0, len(dtm), chunk):
        if not np.array_equal(dtm[start : start + chunk], free[start : start + chunk]):
            raise GameError(f"{game.describe()}: the DTZ pass and the DTM pass disagree on an outcome")


def _dtz_by_levels(game: Game, batch_size: int, stages: Stages, read: ReadTable | None, workers: WorkersChoice) -> SolvedIndex:
    """DTZ of a game over an index space with zeroing moves inside its tablebase (chess
    with pawns), by un-moves: passes A and B one progress level at a time, the most
    advanced first, each level surveyed on its own
    (:class:`~tablebase.game.LevelSplit`), its moves to other levels zeroing exits into
    children whose category the levels before gave; the DTZ and category of every key
    in two arrays over the index space (three bytes a key), the levels' states a
    fraction of it. With ``game.dtm``, the same surveys gather DTM's survey of the whole
    space on disk (:class:`~tablebase.solve.unmoves.SpilledSurvey`), and DTM's pass
    runs last, the DTZ set aside on disk meanwhile.

    :raises GameError: if a move leads to a key at a level not solved before (a move that
        lowers the progress), or the passes disagree on an outcome.
    """
    dtm = SpilledSurvey(int(game.size or 0)) if game.dtm else None
    dtz, category = _levels(game, batch_size, stages, ReadOnce(game, read), workers, dtm)
    outcome = np.sign(category).astype(np.int8)
    outcome[category == UNKNOWN] = ABSENT
    del category
    if dtm is None:
        return SolvedIndex(outcome, None, dtz)
    with Scratch() as scratch:
        dtz_aside, outcome_aside = scratch.put(dtz), scratch.put(outcome)
        del dtz, outcome
        solved = solve_survey(game, dtm, batch_size, stages, workers)
        _same_outcomes(game, solved.outcome, outcome_aside)
        return SolvedIndex(solved.outcome, solved.remoteness, dtz_aside.load())


def _levels(
    game: Game, batch_size: int, stages: Stages, read_once: ReadOnce, workers: WorkersChoice, dtm: SpilledSurvey | None
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_dtz_by_levels`'s passes A and B: int16[size] signed DTZ and int8[size]
    category (:data:`~tablebase.solve.dtz.UNKNOWN` for a key that is no position) over
    the index space; each level's survey written to ``dtm`` too, its moves to other
    levels counted as moves and its other exits valued by DTM."""
    size = int(game.size or 0)
    block = game.progress_block()
    levels = np.asarray(game.progress(np.arange(0, size, block, dtype=np.int64)), dtype=np.int64)
    dtz = np.zeros(size, dtype=np.int16)
    category = np.full(size, UNKNOWN, dtype=np.int8)

    def exits(moves: ExitMoves) -> tuple[Exits, Exits]:
        inside = moves.table == SELF
        child = np.empty(len(moves.src), dtype=np.int8)
        child[inside] = category[moves.key[inside]]
        if np.any(child[inside] == UNKNOWN):
            missing = int(moves.key[inside][child[inside] == UNKNOWN][0])
            raise GameError(f"{game.describe()}: a pawn move leads to key {missing}, not a position of a more advanced level")
        outside = ExitMoves(moves.src[~inside], moves.table[~inside], moves.key[~inside])
        child[~inside] = exit_categories(game, outside, read_once)
        return zeroing_exits(Zeroing(moves.src, child))

    def seen(keys: np.ndarray, part: Survey) -> None:
        assert dtm is not None
        inside = part.exits.table == SELF
        moves = part.moves + np.bincount(part.exits.src[inside], minlength=len(part.keys))
        outside = ExitMoves(part.exits.src[~inside], part.exits.table[~inside], part.exits.key[~inside])
        dtm.write(keys, part, moves, exit_values(game, outside, read_once)[0])

    for level in np.unique(levels)[::-1].tolist():
        kept: list[np.ndarray] = []

        def keep(number: int, index: PositionIndex, solution: Solution) -> None:
            if number == 0:
                kept.append(rule_levels(solution))
                return
            dtz_in_place(kept.pop(), solution)
            assert isinstance(index, LevelIndex)
            index.scatter(solution.remoteness, dtz)
            index.scatter(category_of(solution.outcome, solution.remoteness), category)

        split = LevelSplit(block, levels, level)
        solve_by_unmoves(
            game, exits, batch_size, stages, workers, passes=(RULE_PASS, FREE_PASS), keep=keep, split=split, seen=seen if dtm else None
        )
    read_once.forget()
    return dtz, category


def _dtz(game: Game, graph: MoveGraph, stages: Stages, read: ReadTable | None) -> tuple[np.ndarray, np.ndarray]:
    """``(dtz, outcome)`` under the 50-move rule (:func:`~tablebase.solve.dtz.dtz_by_progress`).

    :raises GameError: if a dependency stores no DTZ, or a move lowers the progress.
    """
    assert isinstance(graph.moves, Predecessors)
    category = exit_categories(game, graph.exits, read)
    progress = np.asarray(game.progress(graph.keys), dtype=np.int64)
    with stages("dtz", len(graph.keys)) as advance:
        try:
            return dtz_by_progress(graph.terminal, graph.moves, progress, Zeroing(graph.exits.src, category), advance)
        except GameError as error:
            raise GameError(f"{game.describe()}: {error}") from None


def _sums(graph: MoveGraph, stages: Stages) -> SolvedGame:
    """A game whose moves leave sums: Grundy values of its single components."""
    assert isinstance(graph.moves, MoveList)
    with stages("grundy", len(graph.keys)) as advance:
        grundy = grundy_values(len(graph.keys), graph.moves.src, graph.moves.parts, advance)
    outcome = np.select([grundy > 0, grundy == 0], [Outcome.WIN, Outcome.LOSS], Outcome.DRAW).astype(np.int8)
    return SolvedGame(graph.keys, Solution(outcome, _ends(graph.moves)), grundy)


def _scored(game: Game, graph: MoveGraph, stages: Stages) -> SolvedGame:
    """A scored game: negamax values (:raises GameError: for a cycle with rewards)."""
    moves = graph.moves
    assert isinstance(moves, MoveList)
    ended = moves.out_degree == 0
    scores = np.zeros(len(graph.keys), dtype=np.int64)
    scores[ended] = game.terminal_scores(graph.keys[ended])
    with stages("solve", len(graph.keys)) as advance:
        value = scored_values(len(graph.keys), moves.src, moves.parts[:, 0], moves.reward, scores, advance)
    return SolvedGame(graph.keys, Solution(np.sign(value).astype(np.int8), _ends(moves)), value)


def _buchi(game: Game, graph: MoveGraph, stages: Stages) -> SolvedGame:
    """A Büchi game (:raises GameError: for a position without moves)."""
    moves = graph.moves
    assert isinstance(moves, Predecessors)
    if np.any(graph.terminal != NOT_TERMINAL) or np.any(moves.out_degree == 0):
        raise GameError(f"{game.name}: every position of a Büchi game needs a move")
    n = len(graph.keys)
    with stages("solve", n) as advance:
        owner_is_a = np.asarray(game.owners(graph.keys), dtype=bool)
        a_wins = buchi_winners(moves, owner_is_a, np.asarray(game.accepting(graph.keys), dtype=bool))
        advance(n)
    outcome = np.where(a_wins == owner_is_a, Outcome.WIN, Outcome.LOSS).astype(np.int8)
    return SolvedGame(graph.keys, Solution(outcome, np.full(n, NO_REMOTENESS, dtype=np.int32)))


def _ends(moves: MoveList) -> np.ndarray:
    """int32[n] remoteness for the passes that give none: 0 for a position without moves."""
    return np.where(moves.out_degree > 0, NO_REMOTENESS, 0).astype(np.int32)


def exit_values(
    game: Game, moves: ExitMoves, read: ReadTable | None, grundy: bool = False
) -> tuple[Exits, np.ndarray]:
    """The stored values of the successors of moves that leave the tablebase.

    :param grundy: whether to read their Grundy values too (an impartial game).
    :returns: the :class:`~tablebase.solve.retrograde.Exits`, and int64[k] the
        successors' Grundy values (:data:`~tablebase.solve.acyclic.NO_GRUNDY` where none,
        or where not asked for).
    :raises NotBuiltError: if a dependency is not stored.
    :raises GameError: if a successor is not in its tablebase, or an impartial game's
        dependency stores no Grundy values.
    """
    return _values_of(game, moves, _exit_tables(game, moves, read), grundy)


def exit_categories(game: Game, moves: ExitMoves, read: ReadTable | None) -> np.ndarray:
    """int8[k]: Syzygy's category (-2..2, :mod:`tablebase.solve.dtz`) of the successor of
    each move that leaves the tablebase, for the successor's side to move, from the DTZ
    its tablebase stores.

    :raises NotBuiltError: if a dependency is not stored.
    :raises GameError: if a dependency stores no DTZ, or a successor is not in its tablebase.
    """
    return _categories_of(game, moves, _exit_tables(game, moves, read))


def exit_categories_and_values(game: Game, moves: ExitMoves, read: ReadTable | None) -> tuple[np.ndarray, Exits]:
    """:func:`exit_categories` and :func:`exit_values` of the same moves, each
    dependency's successors found once.

    :raises: as those two.
    """
    tables = _exit_tables(game, moves, read)
    return _categories_of(game, moves, tables), _values_of(game, moves, tables, False)[0]


def _values_of(game: Game, moves: ExitMoves, tables: list[ExitTable], grundy: bool) -> tuple[Exits, np.ndarray]:
    """:func:`exit_values` from the moves' :func:`_exit_tables`."""
    outcome = np.zeros(len(moves.src), dtype=np.int8)
    remoteness = np.zeros(len(moves.src), dtype=np.int32)
    values = np.full(len(moves.src), NO_GRUNDY, dtype=np.int64)
    for these, dependency, stored, found in tables:
        outcome[these], remoteness[these] = stored.outcome[found], stored.remoteness[found]
        if grundy:
            if stored.grundy is None:
                raise GameError(f"{game.describe()} is impartial, but {dependency.describe()} stores no Grundy values")
            values[these] = stored.grundy[found]
    return Exits(moves.src, outcome, remoteness), values


def _categories_of(game: Game, moves: ExitMoves, tables: list[ExitTable]) -> np.ndarray:
    """:func:`exit_categories` from the moves' :func:`_exit_tables`."""
    category = np.zeros(len(moves.src), dtype=np.int8)
    for these, dependency, stored, found in tables:
        if stored.dtz is None:
            raise GameError(f"{game.describe()} needs the DTZ of {dependency.describe()}, which stores none")
        category[these] = categories(stored.outcome[found], stored.dtz[found])
    return category


def _exit_tables(game: Game, moves: ExitMoves, read: ReadTable | None) -> list[ExitTable]:
    """For each dependency that moves lead into: bool[k] which moves, the dependency,
    its stored tablebase, and the indices of those moves' successors in it.

    :raises NotBuiltError: if a dependency is not stored.
    :raises GameError: if a successor is not in its tablebase.
    """
    dependencies = game.dependencies()
    found = []
    for table in np.flatnonzero(np.bincount(moves.table)).tolist() if len(moves.table) else []:
        dependency = dependencies[table]
        if read is None:
            raise NotBuiltError(f"{game.describe()} needs the stored tablebase of {dependency.describe()}")
        stored = read(dependency)
        these = moves.table == table
        found.append((these, dependency, stored, stored.find(moves.key[these])))
    return found
