"""The ``dtz`` and ``dtz+dtm`` kinds: DTZ under the 50-move rule with Syzygy's five
categories (:mod:`tablebase.solve.dtz`), for chess, and DTM beside it in ``dtz+dtm``.

The game implements :meth:`~tablebase.core.game.Game.progress`, and every move that leaves
its tablebase is a zeroing move. Over an index space with un-moves (chess) DTZ takes two
passes over one survey (A under the rule, B without it) and DTM a third; with zeroing
moves inside the tablebase (pawns) they go one progress level at a time. Otherwise from
the move graph (:func:`~tablebase.solve.dtz.dtz_by_progress`).
"""

from __future__ import annotations

import functools

import numpy as np

from tablebase.core.batches import LevelSplit
from tablebase.core.errors import GameError
from tablebase.core.game import Game, Mode
from tablebase.core.value import Value
from tablebase.core.values import CATEGORIES, DRAW, NOT_TERMINAL, OUTCOMES, RULE_PLIES, StoredKind
from tablebase.solve.bytepass.solved import ByteSolved
from tablebase.solve.bytepass.solver import solve_dtz_in_bytes
from tablebase.solve.dtz import (
    UNKNOWN,
    Zeroing,
    categories,
    dtz_by_progress,
    dtz_in_place,
    rule_levels,
    scatter_dtz_and_category,
    zeroing_exits,
)
from tablebase.solve.exits import ReadOnce, ReadTable, exit_categories, exit_categories_and_values, exit_values
from tablebase.solve.graph import ExitMoves, MoveGraph
from tablebase.solve.kinds.base import StoredValues, register
from tablebase.solve.kinds.wdl import NONE, MoveValues, PositionValues, Wdl, extreme
from tablebase.solve.predecessors import Predecessors
from tablebase.solve.retrograde.exit_codes import Exits
from tablebase.solve.retrograde.state import NO_REMOTENESS, STATE_DTYPE, Solution
from tablebase.solve.scratch import Scratch, Spilled
from tablebase.solve.solved import ABSENT, SolvedGame, SolvedIndex
from tablebase.solve.unmoves.index import LevelIndex, PositionIndex
from tablebase.solve.unmoves.plan import Pass, UnmovePlan
from tablebase.solve.unmoves.solver import solve_by_unmoves
from tablebase.solve.unmoves.spilled import SpilledSurvey, solve_survey
from tablebase.solve.unmoves.survey import SELF, Survey
from tablebase.solve.unmoves.surveying import SurveyTap
from tablebase.solve.workers import WorkersChoice
from tablebase.util.progress import Stages


@functools.lru_cache(maxsize=1 << 16)
def _dtz_value(outcome: int, remoteness: int | None, dtz: int | None) -> Value:
    """The :class:`~tablebase.core.value.Value` of a stored chess position, one object for
    each distinct value (they are immutable): a query ranking moves values tens of
    positions."""
    return Value(OUTCOMES[outcome], remoteness, dtz=dtz)


class Dtz(Wdl):
    """DTZ under the 50-move rule, with DTM beside it where ``dtm`` (see the module
    docstring). Verify adds DTZ's rules to the WDL kind's: a win (category 2) has a
    move of at most 100 plies to a loss, the fewest plies its DTZ; a loss has only moves
    to such wins (see :func:`_dtz_findings`); without DTM only the outcome is checked,
    not the remoteness."""

    stored = StoredKind.DTZ

    def __init__(self, name: str, dtm: bool) -> None:
        self.name, self.dtm, self.remoteness = name, dtm, dtm

    def uses_unmoves(self, game: Game) -> bool:
        """As the WDL kind's, over an index space only (the passes go one progress
        level at a time, numbered over it)."""
        return super().uses_unmoves(game) and game.size is not None

    def uses_byte_pass(self, game: Game) -> bool:
        """Whether DTZ alone over an index space of at least :data:`BYTE_PASS_KEYS`
        keys, or of any size where the game ``prefers_byte_pass`` (antichess without
        pawns), with every zeroing move an exit and a compiled batch API (chess of six
        pieces without pawns), is solved by the one-byte pass
        (:mod:`tablebase.solve.bytepass`)."""
        sized = game.size is not None and (game.size >= BYTE_PASS_KEYS or game.prefers_byte_pass)
        return sized and not self.dtm and game.threaded and not game.zeroing_inside()

    def solve_by_unmoves(
        self, game: Game, batch_size: int, stages: Stages, read: ReadTable | None, workers: WorkersChoice
    ) -> SolvedGame | SolvedIndex | ByteSolved:
        """The one-byte pass where :meth:`uses_byte_pass`; else the passes of
        :meth:`unmove_plan`, or with zeroing moves inside the tablebase (chess with
        pawns) one progress level at a time (:func:`_dtz_by_levels`)."""
        if self.uses_byte_pass(game):
            return solve_dtz_in_bytes(game, batch_size, stages, read, workers if isinstance(workers, int) else None)
        if game.zeroing_inside():
            return _dtz_by_levels(game, self.dtm, batch_size, stages, read, workers)
        return super().solve_by_unmoves(game, batch_size, stages, read, workers)

    def unmove_plan(self, game: Game, read: ReadTable | None) -> UnmovePlan | None:
        """DTZ's passes A and B over one survey (and DTM's after them where ``dtm``),
        every zeroing move an exit valued as :func:`~tablebase.solve.dtz.zeroing_exits`
        says, each dependency read once and dropped after the survey; ``None`` for a game
        with zeroing moves inside its tablebase (they go by levels)."""
        if game.zeroing_inside():
            return None
        read_once = ReadOnce(game, read)
        dtm = self.dtm

        def exits(moves: ExitMoves) -> tuple[Exits, ...]:
            if not dtm:
                return zeroing_exits(Zeroing(moves.src, exit_categories(game, moves, read_once)))
            category, values = exit_categories_and_values(game, moves, read_once)
            rule, free = zeroing_exits(Zeroing(moves.src, category))
            return rule, free, values

        passes = (RULE_PASS, FREE_PASS, Pass()) if dtm else (RULE_PASS, FREE_PASS)
        return UnmovePlan(exits, passes, _DtzAssembly(game, dtm).keep, read_once.forget, read_once.read_all)

    def solve_graph(self, game: Game, graph: MoveGraph, stages: Stages, read: ReadTable | None) -> SolvedGame:
        dtz, dtz_outcome = _dtz(game, graph, stages, read)
        if not self.dtm:
            return SolvedGame(graph.keys, Solution(dtz_outcome, np.full(len(graph.keys), NO_REMOTENESS, np.int32)), dtz)
        solution = self.graph_pass(game, graph, stages, read)[0]
        _same_outcomes(game, solution.outcome, dtz_outcome)
        return SolvedGame(graph.keys, solution, dtz)

    def neighbourhood(
        self,
        game: Game,
        stored: StoredValues,
        terminal: np.ndarray,
        src: np.ndarray,
        successors: StoredValues,
        dst: np.ndarray,
        exits: ExitMoves,
    ) -> tuple[PositionValues, MoveValues]:
        """As the WDL kind's, with the positions' and the successors' DTZ, and which
        moves zero (raise the game's ``progress``)."""
        assert stored.extra is not None and successors.extra is not None
        dtz, successor_dtz = stored.extra[0], successors.extra[0][dst]
        values = PositionValues(stored.keys, terminal, stored.outcome, stored.remoteness, dtz)
        zeroing = _progress(game, successors.keys[dst]) > _progress(game, stored.keys)[src]
        return values, MoveValues(src, successors.outcome[dst], successors.remoteness[dst], successor_dtz, exits, zeroing)

    def findings(self, game: Game, read: ReadOnce, values: PositionValues, moves: MoveValues) -> list[tuple[int, str, str]]:
        assert values.dtz is not None and moves.dtz is not None and moves.zeroing is not None
        exit_category = exit_categories(game, moves.exits, read)
        return super().findings(game, read, values, moves) + _dtz_findings(
            values.keys, values.outcome, values.dtz, values.terminal,
            moves.src, moves.outcome, moves.dtz, moves.zeroing, moves.exits.src, exit_category,
        )  # fmt: skip

    value = staticmethod(_dtz_value)  # the most probed kind: no call between the probe and the cache


def _progress(game: Game, keys: np.ndarray) -> np.ndarray:
    """int64[k]: the game's ``progress`` of int64[k] keys (a move that raises it zeroes)."""
    return np.asarray(game.progress(keys), dtype=np.int64)


BYTE_PASS_KEYS = 2**29
"""The least index space whose DTZ alone goes through the one-byte pass: every chess
ending of six pieces without pawns (KNNNNvK has the fewest keys, 587 x 10^6), none of
five (KRBvKR's 242 x 10^6 the most). The pass with counters holds four bytes a key and
six at its peak (the 15.5 x 10^9 keys of KRBvKRN would take 93 GB); the one-byte pass
holds one, and gives the same values at about the same speed (KRBvKR,
benchmarks/RESULTS.md)."""


RULE_PASS = Pass(draws=False, until=RULE_PLIES)
"""DTZ's pass A under the 50-move rule (:mod:`tablebase.solve.dtz`): its levels up to
100 plies only, no draw remoteness."""

FREE_PASS = Pass(draws=False)
"""DTZ's pass B without the rule's limit: every level, no draw remoteness."""


class _DtzAssembly:
    """Keeps what each pass of a DTZ build by un-moves over one survey leaves (passes A,
    B, then DTM's if ``dtm``), a few bytes a key: A's levels (a byte), then B's
    values turned into DTZ in place, spilled to disk with its outcomes kept (a byte)
    when DTM's pass follows."""

    def __init__(self, game: Game, dtm: bool) -> None:
        self.game, self.dtm = game, dtm
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
            if not self.dtm:
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


def _dtz_by_levels(game: Game, dtm: bool, batch_size: int, stages: Stages, read: ReadTable | None, workers: WorkersChoice) -> SolvedIndex:
    """DTZ of a game over an index space with zeroing moves inside its tablebase (chess
    with pawns), by un-moves: passes A and B one progress level at a time, the most
    advanced first, each level surveyed on its own
    (:class:`~tablebase.core.game.LevelSplit`), its moves to other levels zeroing exits into
    children whose category the levels before gave; the DTZ and category of every key
    in two arrays over the index space (three bytes a key), the levels' states a
    fraction of it. With ``dtm``, the same surveys gather DTM's survey of the whole
    space on disk (:class:`~tablebase.solve.unmoves.spilled.SpilledSurvey`), and DTM's pass
    runs last, the DTZ set aside on disk meanwhile.

    :raises GameError: if a move leads to a key at a level not solved before (a move that
        lowers the progress), or the passes disagree on an outcome.
    """
    survey = SpilledSurvey(int(game.size or 0)) if dtm else None
    dtz, category = _levels(game, batch_size, stages, ReadOnce(game, read), workers, survey)
    outcome = np.sign(category).astype(np.int8)
    outcome[category == UNKNOWN] = ABSENT
    del category
    if survey is None:
        return SolvedIndex(outcome, None, dtz)
    with Scratch() as scratch:
        dtz_aside, outcome_aside = scratch.put(dtz), scratch.put(outcome)
        del dtz, outcome
        solved = solve_survey(game, survey, batch_size, stages, workers)
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

    def spilled(keys: np.ndarray, at: np.ndarray, part: Survey) -> np.ndarray:
        inside = part.exits.table == SELF
        moves = part.moves + np.bincount(part.exits.src[inside], minlength=len(part.keys))
        outside = ExitMoves(part.exits.src[~inside], part.exits.table[~inside], part.exits.key[~inside])
        return SpilledSurvey.batch_records(len(keys), at, part, moves, exit_values(game, outside, read_once)[0])

    tap = None if dtm is None else SurveyTap(spilled, dtm.write)

    # one record array for every level's survey: memory touched afresh costs more than
    # the survey's copies into it on this project's build machine (benchmarks/RESULTS.md)
    level_numbers, blocks_per_level = np.unique(levels, return_counts=True)
    records = np.empty(int(blocks_per_level.max()) * block, dtype=STATE_DTYPE)
    for level in level_numbers[::-1].tolist():
        kept: list[np.ndarray] = []

        def keep(number: int, index: PositionIndex, solution: Solution) -> None:
            if number == 0:
                kept.append(rule_levels(solution))
                return
            assert isinstance(index, LevelIndex)
            scatter_dtz_and_category(kept.pop(), solution, index.blocks, index.block, dtz, category)

        split = LevelSplit(block, levels, level)
        plan = UnmovePlan(exits, (RULE_PASS, FREE_PASS), keep, ready=read_once.read_all)
        solve_by_unmoves(game, plan, batch_size, stages, workers, split=split, tap=tap, records=records)
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


def _dtz_findings(
    keys, outcome, dtz, terminal, src, successor_outcome, successor_dtz, zeroing, exit_src, exit_category
) -> list[tuple[int, str, str]]:
    """Positions whose stored category and DTZ (:mod:`tablebase.solve.dtz`) do not follow
    from their moves'.

    A move zeroes when it leaves the tablebase or raises the game's ``progress``; it then
    counts 1 ply, a quiet move 1 + the successor's ``|dtz|``. A position is a win
    (category 2) when a move of at most 100 plies leads to a loss (category -2), with DTZ
    the fewest such plies; a loss (-2) when it has moves and every one leads to a win (2)
    in at most 100 plies, with DTZ minus the most; a draw (0, DTZ 0) when its outcome
    without the rule is; else a cursed win or blessed loss (±1) by that outcome, with
    ``|dtz|`` above 100 (its exact value needs the pass without the rule's levels, which
    are not stored). A checkmated side to move is a loss with DTZ 0, a stalemate a draw.

    :param keys: int64[n] the positions, ``outcome`` int8[n], ``dtz`` int[n] and
        ``terminal`` int8[n] theirs; ``src`` int64[m] the position of each move within
        the tablebase, ``successor_outcome`` and ``successor_dtz`` its successor's, and
        ``zeroing`` bool[m] whether it raises the game's ``progress``; ``exit_src`` and
        ``exit_category`` the moves out of the tablebase and their successors' categories.
    """
    n, outside = len(keys), len(exit_src)
    category = categories(outcome, dtz)
    parent = np.concatenate([src, exit_src.astype(np.int64)])
    child = np.concatenate([categories(successor_outcome, successor_dtz), exit_category])
    zeroing = np.concatenate([zeroing, np.ones(outside, dtype=bool)])
    quiet_plies = np.abs(np.concatenate([successor_dtz, np.zeros(outside, dtype=successor_dtz.dtype)])).astype(np.int64) + 1
    plies = np.where(zeroing, 1, quiet_plies)
    within = plies <= RULE_PLIES
    fastest_win = extreme(np.minimum, n, parent, plies, (child == -2) & within, NONE)
    slowest_loss = extreme(np.maximum, n, parent, plies, child == 2, -1)
    moves = np.bincount(parent, minlength=n)
    held = np.bincount(parent[(child == 2) & within], minlength=n)
    sign = outcome.astype(np.int64)
    cursed = (np.abs(dtz) > RULE_PLIES) & (np.sign(dtz) == sign)
    expected_category = np.select(
        [fastest_win < NONE, (moves > 0) & (held == moves), sign == 0], [2, -2, 0], sign
    ).astype(np.int8)
    expected_dtz = np.select(
        [expected_category == 2, expected_category == -2, sign == 0, cursed], [fastest_win, -slowest_loss, 0, dtz], NONE
    )
    ended = (terminal != NOT_TERMINAL) | (moves == 0)
    expected_category[ended] = np.where(terminal[ended] == DRAW, 0, -2)
    expected_dtz[ended] = 0
    wrong = (category != expected_category) | (dtz != expected_dtz)

    def say(category: int, plies: int) -> str:
        return f"{CATEGORIES[category]}, dtz {plies if plies != NONE else 'beyond ±100'}"

    return [
        (int(keys[i]), say(category[i], dtz[i]), say(expected_category[i], expected_dtz[i]))
        for i in np.flatnonzero(wrong).tolist()
    ]


DTZ_ALONE = register(Dtz(Mode.DTZ, dtm=False))
DTZ_AND_DTM = register(Dtz(Mode.DTZ_DTM, dtm=True))
