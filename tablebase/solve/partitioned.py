"""The retrograde pass of :func:`tablebase.solve.retrograde.solve_positions`, split into
P partitions of the positions that exchange only the updates crossing between them.

Partition ``p`` owns the positions ``bounds[p] <= i < bounds[p + 1]`` (a key range, since
positions are numbered in key order) and holds their :class:`PositionState`, the same
four bytes a position as the single pass (outcome, move counter, exit code then
remoteness), updated by the same compiled loops. Each level runs as the rounds of a
bulk-synchronous parallel program (Valiant, "A bridging model for parallel computation",
CACM 1990):

1. every partition applies its exits of the level (:meth:`~tablebase.solve.retrograde.Sweeps.exit_events`), then walks back
   from the losses it resolved at the previous level, a chunk of them a round
   (:data:`FRONTIER_CHUNK`), and sends each predecessor to its owner, who marks it won;
2. once every win of the level is in, each walks back from its wins the same way, and
   each owner counts the predecessors down, marking those that reach zero lost.

The draw peel runs the same way, each predecessor sent with its drawn successor's
remoteness. A partition applies the updates it sends itself at once; the others go to
their owners as the owner's own offsets (uint32), routed by the driver, and
:class:`Traffic` counts their bytes, round by round. Values come out exactly those of the
single pass, position by position.

Partitions are plain objects: :func:`solve_partitioned` drives them in one process, and
the same objects can be held by other processes (a Dask actor per partition,
:mod:`tablebase.build.cluster`) with the driver routing the messages of each round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from tablebase.core.errors import UsageError
from tablebase.core.values import DRAW, LOSS, WIN
from tablebase.core.game import Game, provides_unmoves
from tablebase.util.progress import Advance, Stages, silent
from tablebase.solve.exits import ReadTable
from tablebase.solve.graph import slices, start_keys
from tablebase.solve.keyset import locate, sorted_unique
from tablebase.solve.predecessors import Predecessors, segments
from tablebase.solve.retrograde import (
    NO_REMOTENESS, Exits, MoveSource, PositionState, Solution, Sweeps,
    _at_zero, _Found, _next_exits, _past_int16, _see_draw,
    _to_losses, _to_wins, _undecided,
)
from tablebase.solve.scratch import Scratch
from tablebase.solve.solved import ABSENT, SolvedIndex
from tablebase.solve.unmoves import (
    Pass, PositionIndex, UnmoveSource, answered_passes, passes_run, successors_found, survey_indexed,
)
from tablebase.solve.workers import Workers
from tablebase.core.tally import Tally
from tablebase.core.values import DTZ
from tablebase.solve.kinds import kind_of

FRONTIER_CHUNK = 1 << 16
"""Positions of a partition's frontier walked back in one round: a round's messages
hold their predecessors (about 30 a chess position), never a whole level's."""

Messages = dict[int, tuple[np.ndarray, ...]]
"""Arrays sent by one partition in one round, by the receiving partition's number."""


def partition_bounds(n: int, partitions: int, align: int = 1) -> np.ndarray:
    """int64[P + 1]: the first position of each of ``partitions`` near-equal key ranges of
    ``n`` positions, each a multiple of ``align`` (the store's blocks of keys, so that
    no block is split between partitions), and ``n`` last.

    :raises ValueError: if ``partitions`` is below 1.
    """
    if partitions < 1:
        raise ValueError(f"partitions must be >= 1, not {partitions}")
    bounds = np.minimum(np.round(np.linspace(0, n, partitions + 1) / align) * align, n).astype(np.int64)
    bounds[-1] = n
    return bounds


@njit(cache=True, nogil=True)
def _by_owner(owner, order, cuts):
    """Counting sort of int64[k] ``owner`` (partition numbers): ``order`` (int64[k])
    lists the indices owner by owner, and ``cuts`` (int64[P + 1], zeroed) where each
    owner's begin."""
    for i in range(len(owner)):
        cuts[owner[i] + 1] += 1
    for p in range(len(cuts) - 1):
        cuts[p + 1] += cuts[p]
    at = cuts[:-1].copy()
    for i in range(len(owner)):
        order[at[owner[i]]] = i
        at[owner[i]] += 1


def _split(owner: np.ndarray, partitions: int, payload: Callable[[int, np.ndarray], np.ndarray], *columns: np.ndarray) -> Messages:
    """Parallel arrays split by int64[k] ``owner``: each owner gets ``payload(owner,
    its indices)`` and its entries of ``columns``."""
    order = np.empty(len(owner), dtype=np.int64)
    cuts = np.zeros(partitions + 1, dtype=np.int64)
    _by_owner(owner, order, cuts)
    sent: Messages = {}
    for p in np.flatnonzero(np.diff(cuts)).tolist():
        these = order[cuts[p] : cuts[p + 1]]
        sent[p] = (payload(p, these), *(column[these] for column in columns))
    return sent


class KeyRanges:
    """Who owns a position of an index space: the partition of its key range (positions
    are numbered by key), an update sent as the owner's own offset (uint32).

    :param bounds: int64[P + 1] from :func:`partition_bounds`.
    """

    def __init__(self, bounds: np.ndarray) -> None:
        self.bounds = bounds

    def route(self, targets: np.ndarray, *columns: np.ndarray) -> Messages:
        """int[k] position numbers ``targets`` (and parallel ``columns``) by owner."""
        owner = np.searchsorted(self.bounds, targets, side="right").astype(np.int64) - 1
        return _split(owner, len(self.bounds) - 1, lambda p, these: (targets[these] - self.bounds[p]).astype(np.uint32), *columns)

    def local(self, payload: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The offsets a received payload names, and ``None``: every one is a position."""
        return payload, None


class HashedKeys:
    """Who owns a key found by forward search: the partition its multiplicative hash
    (Knuth, *The Art of Computer Programming*, vol. 3, 6.4) names, so that the
    partitions hold near-equal shares whatever the keys' spread. An update travels as
    the key (int64); its owner numbers it by rank among the keys it holds.

    :param partitions: how many partitions.
    """

    MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # 2**64 / the golden ratio, odd

    def __init__(self, partitions: int) -> None:
        self.partitions = partitions
        self.keys = np.zeros(0, np.int64)  # the owner's keys, ascending, once found

    def owner(self, keys: np.ndarray) -> np.ndarray:
        """int64[k]: the partition that owns each of int64[k] ``keys``."""
        mixed = np.asarray(keys).astype(np.uint64) * self.MULTIPLIER
        return ((mixed >> np.uint64(32)) % np.uint64(self.partitions)).astype(np.int64)

    def route(self, targets: np.ndarray, *columns: np.ndarray) -> Messages:
        """int64[k] keys ``targets`` (and parallel ``columns``) by owner, as uint32 where
        every one fits."""
        wide = np.uint32 if targets.max(initial=0) < 2**32 else np.int64
        return _split(self.owner(targets), self.partitions, lambda _p, these: targets[these].astype(wide), *columns)

    def local(self, payload: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The positions that int[k] received keys name, and bool[k] which are positions
        (an un-move may lead to a key that forward search never reached)."""
        if self.keys.dtype != np.uint32 or payload.dtype == np.uint32:
            return locate(self.keys, payload if payload.dtype == self.keys.dtype else payload.astype(np.int64))
        fits = payload < 2**32  # searched as uint32, no int64 copy of the keys
        at, hit = np.zeros(len(payload), np.int64), np.zeros(len(payload), bool)
        at[fits], hit[fits] = locate(self.keys, payload[fits].astype(np.uint32))
        return at, hit


Owners = KeyRanges | HashedKeys
"""How positions map to partitions and how an update names its position."""


def _joined(received: Sequence[tuple[np.ndarray, ...]], width: int) -> tuple[np.ndarray, ...]:
    """The received arrays of each column end to end (``width`` columns)."""
    if not received:
        return tuple(np.zeros(0, np.uint32) for _ in range(width))
    return tuple(np.concatenate([message[column] for message in received]) for column in range(width))


@njit(cache=True, nogil=True)
def _see_draws(parents, children, counters, remoteness, found, at):
    """The draw peel for received updates: each of int[k] ``parents`` sees a move into a
    draw at remoteness ``children[i]`` (:func:`_see_draw`). Returns the new end."""
    for i in range(len(parents)):
        at = _see_draw(parents[i], children[i], counters, remoteness, found, at)
    return at


@njit(cache=True, nogil=True)
def _mark(nodes, bits, outcome):
    """Set the bit of each of int[k] ``nodes`` in the bitset ``bits`` (uint64 words);
    returns how many of them are losses."""
    losses = 0
    for p in nodes:
        bits[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
        losses += outcome[p] == -1
    return losses


@njit(cache=True, nogil=True)
def _mark_at_zero(outcome, remoteness, draws, bits):
    """Set the bits of the positions resolved at level 0 as draws (``draws``), or as wins
    and losses; returns ``(how many, how many losses)``."""
    count = losses = 0
    for p in range(len(outcome)):
        if _at_zero(outcome, remoteness, p, draws):
            bits[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
            count += 1
            losses += outcome[p] == -1
    return count, losses


@njit(cache=True, nogil=True)
def _marked(bits, outcome, want, cursor, out):
    """The positions from ``cursor`` on whose bit is set in ``bits`` and whose outcome is
    ``want``, written to ``out`` as far as it holds them, skipping a word of clear bits
    at once. Returns ``(how many, where the next search starts)``."""
    k, p, n = 0, cursor, len(outcome)
    while p < n and k < len(out):
        word = bits[p >> 6] >> np.uint64(p & 63)
        if word == 0:
            p = (p | 63) + 1
            continue
        if word & np.uint64(1) and outcome[p] == want:
            out[k] = p
            k += 1
        p += 1
    return k, p


class _Frontier:
    """The positions a partition resolved last, as a bitset over its ``n`` offsets (a bit
    a position: where a level resolves millions, as Connect Four's terminal positions,
    a thirty-second of their list), filled as the compiled loops find them
    (:meth:`Partition._collect`) and handed out in offset order, a chunk of one outcome
    at a time (:meth:`chunk`).

    :ivar size: how many positions are marked; :ivar losses: how many of them are lost.
    """

    def __init__(self, n: int, dtype: type) -> None:
        self.bits = np.zeros((n + 63) // 64, dtype=np.uint64)
        self.size = self.losses = self.cursor = 0
        self.dtype = dtype

    def add(self, found: np.ndarray, outcome: np.ndarray) -> None:
        """Mark int[k] ``found`` (positions not marked yet, their outcome final)."""
        self.losses += int(_mark(found, self.bits, outcome))
        self.size += len(found)

    def add_level_zero(self, outcome: np.ndarray, remoteness: np.ndarray, draws: bool) -> int:
        """Mark the positions level 0 resolved (:func:`_mark_at_zero`). :returns: how many."""
        count, losses = _mark_at_zero(outcome, remoteness, draws, self.bits)
        self.size += int(count)
        self.losses += int(losses)
        return int(count)

    def clear(self) -> None:
        """Mark nothing."""
        self.bits[:] = 0
        self.size = self.losses = 0

    def chunk(self, outcome: np.ndarray, want: int, number: int) -> np.ndarray:
        """The ``number``-th chunk of :data:`FRONTIER_CHUNK` positions whose outcome is
        ``want``, asked for in order from 0."""
        if number == 0:
            self.cursor = 0
        out = np.empty(FRONTIER_CHUNK, dtype=self.dtype)
        count, self.cursor = _marked(self.bits, outcome, want, self.cursor, out)
        return out[:count]


class Partition:
    """One part of the positions of a retrograde pass (a key range, or the keys a hash
    gives it), with their :class:`PositionState`.

    :param owners: who owns each position (:class:`KeyRanges`, :class:`HashedKeys`).
    :param me: this partition's number.
    :param state: its positions' state as :func:`~tablebase.solve.retrograde.solve_positions`
        takes it (terminal values, moves within the tablebase, exit codes), indexed by
        its own offsets; consumed.
    :param graph: the moves; only the predecessors of this partition's positions are read
        (:meth:`MoveSource.parents`, numbered as ``owners`` routes them: positions of
        the index, or keys), so a :class:`PredecessorRange` of them is enough.
    :param first: the number ``graph`` gives this partition's offset 0.
    """

    def __init__(self, owners: Owners, me: int, state: PositionState, graph: MoveSource, first: int = 0) -> None:
        self.owners, self.me, self.first = owners, me, first
        self._hold(state, graph)

    def _hold(self, state: PositionState, graph: MoveSource) -> None:
        """Start a pass over ``state``, its moves read from ``graph``."""
        self.state, self.graph = state, graph
        self.found = _Found(np.int32 if len(state.records) < 2**31 else np.int64)  # a call's finds
        self.frontier = _Frontier(self.size(), self.found.dtype)  # resolved at the last level
        self.resolved = _Frontier(self.size(), self.found.dtype)  # resolved at this one
        self.counted = np.zeros(0, self.found.dtype)  # positions with an exit into a win at this level
        self.sweeps = Sweeps(self.size(), parts=1)  # in one thread: a worker's other partitions use its other cores

    def size(self) -> int:
        """How many offsets it holds (its positions, and keys that are none)."""
        return len(self.state.records)

    # ---- win, loss

    def start(self) -> int:
        """Level 0 (:func:`~tablebase.solve.retrograde._start`). :returns: how many
        positions it resolves."""
        state = self.state
        resolved = self.sweeps.start(state.outcome, state.counter, state.remoteness)
        self.frontier.add_level_zero(state.outcome, state.remoteness, False)
        self.levels = self.sweeps.exit_levels(state.remoteness)
        self.exits_next = _next_exits(self.levels, 0)
        return resolved

    def next_exit(self) -> int | None:
        """The remoteness of the next exits into wins or losses, or ``None``."""
        return self.exits_next if self.exits_next < len(self.levels) else None

    def begin_level(self, level: int) -> tuple[int, int]:
        """Start ``level`` (the remoteness of the positions resolved last): the exits of
        that remoteness applied (those into losses win at once, those into wins wait for
        :meth:`end_level`). :returns: how many rounds of :meth:`losses_out` and of
        :meth:`wins_out` its frontier takes."""
        state = self.state
        _past_int16(state, level + 1)
        if level == self.exits_next < len(self.levels):
            won, self.counted = self.sweeps.exit_events(level, state.outcome, state.remoteness, level + 1, self.found.dtype)
            self.found.put(won)
            self._collect()
            self.exits_next = _next_exits(self.levels, level + 1)
        losses = self.frontier.losses
        return -(-losses // FRONTIER_CHUNK), -(-(self.frontier.size - losses) // FRONTIER_CHUNK)

    def losses_out(self, level: int, chunk: int) -> Messages:
        """A round of ``level``'s wins: the predecessors of a chunk of its frontier's
        losses, won at ``level + 1``; its own applied here, the rest by owner."""
        nodes = self.frontier.chunk(self.state.outcome, LOSS, chunk)
        return self._send(nodes, lambda parents: self._win(level, parents))

    def wins_in(self, level: int, received: Sequence[tuple[np.ndarray, ...]]) -> None:
        """Apply a round of :meth:`losses_out` sent here."""
        (offsets,) = self._arrived(received, 1)
        self._win(level, offsets)

    def wins_out(self, level: int, chunk: int) -> Messages:
        """A round of ``level``'s count-down, once every win of the level is in: the
        predecessors of a chunk of its frontier's wins; its own counted down here, the
        rest by owner."""
        nodes = self.frontier.chunk(self.state.outcome, WIN, chunk)
        return self._send(nodes, lambda parents: self._count_down(level, parents))

    def count_down_in(self, level: int, received: Sequence[tuple[np.ndarray, ...]]) -> None:
        """Apply a round of :meth:`wins_out` sent here."""
        (offsets,) = self._arrived(received, 1)
        self._count_down(level, offsets)

    def end_level(self, level: int) -> int:
        """End ``level``: the exits into wins counted down. :returns: how many positions
        the level resolved (the next frontier)."""
        self._count_down(level, self.counted)
        self.counted = self.counted[:0]
        return self._next_frontier()

    def _collect(self) -> None:
        """Move what the last compiled loop found into :attr:`resolved`, emptying the
        buffer (which so holds one call's finds at most, never a level's)."""
        self.resolved.add(self.found.buffer[: self.found.end], self.state.outcome)
        self.found.end = 0

    def _next_frontier(self) -> int:
        """The positions resolved since the last frontier become the frontier.
        :returns: how many."""
        self.frontier, self.resolved = self.resolved, self.frontier
        self.resolved.clear()
        return self.frontier.size

    def _win(self, level: int, offsets: np.ndarray) -> None:
        state = self.state
        self.found.end = _to_wins(offsets, state.outcome, state.remoteness, level + 1, self.found.room(len(offsets)), self.found.end)
        self._collect()

    def _count_down(self, level: int, offsets: np.ndarray) -> None:
        state, room = self.state, self.found.room(len(offsets))
        self.found.end = _to_losses(offsets, state.counter, state.outcome, state.remoteness, level + 1, room, self.found.end)
        self._collect()

    def _send(self, nodes: np.ndarray, own: Callable[..., None], *columns: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Messages:
        """The predecessors of int[k] ``nodes`` (offsets) by owner, ``own`` applied to
        this partition's (as offsets), each of ``columns`` giving a value a predecessor
        from ``(part of nodes as offsets, counts)``."""
        targets, values = [np.zeros(0, np.int64)], [[np.zeros(0, np.int32)] for _ in columns]
        for part, parents, counts in self.graph.parents(np.asarray(nodes, np.int64) + self.first):
            targets.append(parents)
            for column, found in zip(columns, values):
                found.append(column(part - self.first, counts))
        sent = self.owners.route(np.concatenate(targets), *(np.concatenate(found) for found in values))
        if self.me in sent:
            own(*self._arrived([sent.pop(self.me)], 1 + len(columns)))
        return sent

    def _arrived(self, received: Sequence[tuple[np.ndarray, ...]], width: int) -> tuple[np.ndarray, ...]:
        """Received messages of ``width`` columns joined, the first turned into this
        partition's offsets, those naming no position of it left out."""
        payload, *rest = _joined(received, width)
        offsets, hit = self.owners.local(payload)
        if hit is None:
            return (offsets, *rest)
        return (offsets[hit], *(column[hit] for column in rest))

    # ---- draws

    def begin_peel(self) -> int:
        """Start the draw peel (:meth:`~tablebase.solve.retrograde.Sweeps.begin_peel`), its
        first frontier the drawn terminal positions and the draws an exit already
        settles. :returns: how many of those it resolves (not the terminal ones)."""
        state = self.state
        self.found.put(self.sweeps.begin_peel(state.counter, state.remoteness, self.found.dtype))
        self._collect()
        settled = self.resolved.size
        self.resolved.add_level_zero(state.outcome, state.remoteness, True)
        self._next_frontier()
        return settled

    def peel_rounds(self) -> int:
        """How many rounds of :meth:`peel_out` the frontier takes."""
        return -(-self.frontier.size // FRONTIER_CHUNK)

    def peel_out(self, chunk: int) -> Messages:
        """A round of the peel: the predecessors of a chunk of the frontier, each with the
        remoteness of the draw it moves into; its own seen here, the rest by owner."""
        nodes = self.frontier.chunk(self.state.outcome, DRAW, chunk)
        remoteness = self.state.remoteness
        return self._send(nodes, self._see, lambda part, counts: np.repeat(remoteness[part], counts))

    def peel_in(self, received: Sequence[tuple[np.ndarray, ...]]) -> None:
        """Apply a round of :meth:`peel_out` sent here."""
        self._see(*self._arrived(received, 2))

    def end_peel_round(self) -> int:
        """:returns: how many draws the round gave a remoteness (the next frontier)."""
        return self._next_frontier()

    def _see(self, offsets: np.ndarray, children: np.ndarray) -> None:
        state = self.state
        _past_int16(state, int(children.max(initial=0)) + 1)
        room = self.found.room(len(offsets))
        self.found.end = _see_draws(offsets, children, state.counter, state.remoteness, room, self.found.end)
        self._collect()

    def finish(self, draws: bool = True) -> int:
        """End the pass: a draw the peel never reached gets :data:`NO_REMOTENESS`, as
        does a key that is no position; without ``draws`` (no peel ran), every position
        left unresolved is a draw without one (:func:`~tablebase.solve.retrograde._undecided`).
        :returns: how many draws have none."""
        state = self.state
        if draws:
            self.sweeps.no_remoteness_left(state.remoteness)
        else:
            _undecided(state.outcome, state.remoteness, 0, self.size())
        without = int(np.count_nonzero(state.remoteness == NO_REMOTENESS))
        state.remoteness[state.outcome == ABSENT] = NO_REMOTENESS
        return without

    # ---- values

    def values(self, start: int = 0, stop: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(outcome, remoteness)`` of its positions at offsets ``start:stop``: int8 and
        int16 (int32 past 32,000 plies), views."""
        return self.state.outcome[start:stop], self.state.remoteness[start:stop]

    def tally(self) -> Tally:
        """The counts of its positions, as the catalog records them."""
        return Tally.of(self.state.outcome, self.state.remoteness)


def partitions_unsupported(game: Game) -> str | None:
    """Why partitions (:class:`RangePartition`, :class:`DiscoveredPartition`) cannot
    solve ``game``, or ``None`` if they can: they need un-moves, and a value kind whose
    passes share one survey (:meth:`~tablebase.solve.kinds.ValueKind.unmove_plan`:
    win/draw/loss, and chess's DTZ and DTM without pawns)."""
    if not provides_unmoves(game):
        return f"{game.name} has no un-moves"
    kind = kind_of(game)
    if kind.unmove_plan(game, None) is not None:
        return None
    if kind.stored == DTZ:
        return f"{game.describe()}: DTZ with zeroing moves inside the tablebase (pawns) is solved one progress level at a time, which partitions do not split (-p metric=dtm)"
    return f"{game.describe()} stores {game.mode}, which partitions do not solve"


def check_partitions(game: Game) -> None:
    """Check that partitions can solve ``game`` (a collection's last member, the one they
    solve).

    :raises UsageError: if they cannot, saying why (:func:`partitions_unsupported`).
    """
    if problem := partitions_unsupported(game.members()[-1]):
        raise UsageError(f"--partitions: {problem}")


class KeyRange(PositionIndex):
    """Numbers the keys ``lo <= key < hi`` of an index space by their offset from ``lo``."""

    def __init__(self, lo: int, hi: int) -> None:
        self.lo = lo
        super().__init__(hi - lo)

    def keys(self, nodes: np.ndarray) -> np.ndarray:
        return nodes.astype(np.int64) + self.lo

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        nodes = keys - self.lo
        hit = (nodes >= 0) & (nodes < self.n)
        return nodes, None if hit.all() else hit


class SurveyedPartition(Partition):
    """A :class:`Partition` that finds its own state, so that nothing about a position
    comes from the process driving the pass: its keys surveyed a batch at a time
    (:func:`~tablebase.solve.unmoves.survey_indexed`: terminal values, distinct moves,
    moves out of the tablebase valued through ``read`` and folded into exit codes), the
    predecessors of its positions generated from the game's un-moves
    (:class:`~tablebase.solve.unmoves.UnmoveSource`, in this process), and its value
    kind's passes run over the one survey (the :class:`~tablebase.solve.unmoves.UnmovePlan`
    of :meth:`~tablebase.solve.kinds.ValueKind.unmove_plan`: one for win/draw/loss with
    remoteness, DTZ's two and DTM's for chess), driven by :func:`solve_passes`. Each
    pass holds one :class:`PositionState`; the survey's other exit codes wait on disk.
    """

    game: Game
    read: ReadTable | None
    batch_size: int

    def _survey(self, owners: Owners, own: PositionIndex, routed: PositionIndex, first: int = 0) -> None:
        """Survey the keys ``own`` numbers (the moves out of the tablebase valued through
        :attr:`read`, dropped after), their predecessors numbered by ``routed`` as
        ``owners`` routes them. No pass's state is held until :meth:`begin_pass`."""
        plan = kind_of(self.game).unmove_plan(self.game, self.read)
        assert plan is not None, partitions_unsupported(self.game)
        self.owners, self.first = owners, first
        self.plan, self.own, self.routed = plan, own, routed
        self.pool = Workers(self.game, 1)
        self.states = survey_indexed(self.game, plan, self.batch_size, silent, self.pool, own)
        plan.surveyed()
        self.loading: Iterator[PositionState] | None = None
        self.scratch: Scratch | None = None  # the survey set aside while the passes run
        self.solved: SolvedIndex | None = None

    def size(self) -> int:
        """How many offsets it holds, known from the survey on (before any pass)."""
        return self.own.n

    def _unmoves(self, state: PositionState) -> UnmoveSource:
        return UnmoveSource(self.routed, state.counter, self.pool, max(1, self.batch_size // 4))

    def passes(self) -> Sequence[Pass]:
        """The passes of its plan, in order."""
        return self.plan.passes

    def same_exits(self, first: int, second: int) -> bool:
        """Whether passes ``first`` and ``second`` value its exits alike."""
        assert self.states is not None
        return self.states.same_exits(first, second)

    def begin_pass(self, answered: Sequence[bool]) -> None:
        """Hold the state of the next pass to run (``answered``: bool a pass, those the
        next one's solution answers, run by none)."""
        if self.loading is None:
            self.scratch = Scratch()
            self.loading, self.states = self.states.each(self.scratch, answered), None
        else:
            del self.state, self.graph  # the last pass's, unless its solution is kept
        state = next(self.loading)
        self._hold(state, self._unmoves(state))

    def end_pass(self, numbers: Sequence[int]) -> None:
        """Hand the pass's solution to the plan's ``keep`` as the solution of each of
        ``numbers``; the last call's result is what :meth:`values` gives."""
        solution = Solution(self.state.outcome, self.state.remoteness)
        for number in numbers:
            kept = self.plan.keep(number, self.own, solution)
        if kept is not None:
            self.solved = kept
            self.solved.first = self.first  # its keys, where they are those of a range
        if numbers[-1] == len(self.plan.passes) - 1 and self.scratch is not None:
            self.scratch.close()  # the last pass's state is read back: the survey is not needed
            self.scratch = None

    def values(self, start: int = 0, stop: int | None = None) -> tuple[np.ndarray, ...]:
        """``(outcome, remoteness)`` of its positions at offsets ``start:stop`` as the
        plan kept them (int8 and int16 or int32), with the extra values (DTZ, int16)
        where it keeps them."""
        assert self.solved is not None
        solved = self.solved
        extra = () if solved.extra is None else (solved.extra[start:stop],)
        return solved.outcome[start:stop], solved.remoteness[start:stop], *extra

    def tally(self) -> Tally:
        assert self.solved is not None
        return self.solved.tally()


class RangePartition(SurveyedPartition):
    """A :class:`SurveyedPartition` of a key range of a game's index space.

    :param game: a game :func:`partitions_unsupported` accepts.
    :param bounds: int64[P + 1] from :func:`partition_bounds` over ``game.size``.
    :param me: this partition's number.
    :param read: the stored dependencies (:data:`~tablebase.solve.exits.ReadTable`).
    :param batch_size: keys surveyed, and positions un-moved, at a time.
    :raises NotBuiltError: if a dependency is not stored.
    """

    def __init__(self, game: Game, bounds: np.ndarray, me: int, read: ReadTable | None, batch_size: int = 1 << 16) -> None:
        self.game, self.read, self.batch_size, self.me = game, read, batch_size, me
        index = KeyRange(int(bounds[me]), int(bounds[me + 1]))
        self._survey(KeyRanges(bounds), index, PositionIndex(int(game.size)), index.lo)


class OwnKeys(PositionIndex):
    """Numbers a partition's own keys (:attr:`HashedKeys.keys`) by rank. ``routed``:
    any key it is asked for stands for itself, to be routed to its owner (the un-moves'
    predecessors); else a key is found among the partition's own (the survey)."""

    def __init__(self, owners: HashedKeys, routed: bool) -> None:
        super().__init__(len(owners.keys))
        self.owners, self.routed = owners, routed

    def keys(self, nodes: np.ndarray) -> np.ndarray:
        return self.owners.keys[nodes].astype(np.int64)

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        return (keys, None) if self.routed else self.owners.local(keys)


class DiscoveredPartition(SurveyedPartition):
    """A :class:`SurveyedPartition` of a game whose positions are found by forward search: the
    keys :class:`HashedKeys` gives it, found by a search whose successors go to their
    owners round by round (:meth:`discover_out`, :meth:`discover_in`), then surveyed
    (:meth:`survey`) and solved like any partition, its keys' predecessors generated by
    un-moves in this process. Its keys are held as uint32 while they fit (8 bytes a key
    otherwise), beside the four bytes of state.

    :param game: a game with un-moves and no index space.
    :param partitions: how many partitions in all.
    :param me: this partition's number.
    :param read: the stored dependencies (:data:`~tablebase.solve.exits.ReadTable`).
    :param batch_size: keys expanded, surveyed and un-moved at a time.
    """

    def __init__(self, game: Game, partitions: int, me: int, read: ReadTable | None, batch_size: int = 1 << 16) -> None:
        self.game, self.read, self.batch_size = game, read, batch_size
        self.owners, self.me = HashedKeys(partitions), me
        starts = start_keys(game)
        self.fresh = _narrow(starts[self.owners.owner(starts) == me])  # the keys found last
        self.owners.keys = self.fresh
        self.pending: list[np.ndarray] = []

    def discover_rounds(self) -> int:
        """How many rounds of :meth:`discover_out` the keys found last take."""
        return -(-len(self.fresh) // FRONTIER_CHUNK)

    def discover_out(self, chunk: int) -> Messages:
        """A round of the search: the successors of a chunk of the keys found last, by
        owner (its own kept for :meth:`end_discover_round`)."""
        keys = self.fresh[chunk * FRONTIER_CHUNK : (chunk + 1) * FRONTIER_CHUNK].astype(np.int64)
        found = [successors_found(self.game, part) for part in slices(keys, self.batch_size)]
        sent = self.owners.route(np.concatenate([np.zeros(0, np.int64), *found]))
        if self.me in sent:
            self._keep(sent.pop(self.me)[0])
        return sent

    def discover_in(self, received: Sequence[tuple[np.ndarray, ...]]) -> None:
        """Keep the successors a round of :meth:`discover_out` sent here."""
        for message in received:
            self._keep(message[0])

    def _keep(self, keys: np.ndarray) -> None:
        """Keep the keys not seen before among int64[k] ``keys``, merged into one sorted
        array once those kept outgrow the last merge (so that a level's successors,
        repeats and all, are never held at once)."""
        fresh = keys[~self.owners.local(keys)[1]]
        self.pending.append(fresh.astype(self.owners.keys.dtype) if fresh.max(initial=0) < 2**32 else fresh)
        if sum(map(len, self.pending)) > 2 * len(self.pending[0]) + FRONTIER_CHUNK:
            self.pending = [sorted_unique(np.concatenate(self.pending))]

    def end_discover_round(self) -> int:
        """Add the new keys kept this round. :returns: how many."""
        fresh = sorted_unique(np.concatenate([np.zeros(0, self.owners.keys.dtype), *self.pending]))
        self.pending = []
        seen = self.owners.keys
        if fresh.dtype != seen.dtype:  # a key past 2**32
            seen, fresh = seen.astype(np.int64), fresh.astype(np.int64)
        self.fresh = fresh
        merged = np.empty(len(seen) + len(fresh), dtype=seen.dtype)
        _merge(seen, fresh, merged)
        del seen
        self.owners.keys = merged
        return len(fresh)

    def survey(self) -> int:
        """Survey its keys (terminal values, moves, exits valued through ``read``) into
        its :class:`PositionState`. :returns: how many positions it holds."""
        self._survey(self.owners, OwnKeys(self.owners, False), OwnKeys(self.owners, True))
        return self.size()

    def stored(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(keys, outcome, remoteness)`` of its positions at offsets ``start:stop``:
        int64 keys, ascending."""
        return (self.owners.keys[start:stop].astype(np.int64), *self.values(start, stop))


@njit(cache=True, nogil=True)
def _merge(one, other, into):
    """Merge ascending ``one`` and ``other`` (no key in both) into ``into``: the keys a
    search round adds, with no temporary beyond the result (``np.insert`` makes three)."""
    i = j = 0
    for k in range(len(into)):
        if j == len(other) or (i < len(one) and one[i] < other[j]):
            into[k] = one[i]
            i += 1
        else:
            into[k] = other[j]
            j += 1


def _narrow(keys: np.ndarray) -> np.ndarray:
    """int64[k] keys as uint32 where every one fits."""
    return keys.astype(np.uint32) if not len(keys) or keys[-1] < 2**32 else keys


@dataclass
class Traffic:
    """Bytes sent between partitions (not to themselves), per round.

    :ivar rounds: bytes of each exchange round, in order: the rounds of a forward
        search, then of each pass (its levels, then its draw peel).
    :ivar searched: how many of ``rounds`` belong to the forward search.
    :ivar levels: how many of ``rounds`` come before the last pass's draw peel (the
        search, and the levels of every pass).
    """

    rounds: list[int] = field(default_factory=list)
    searched: int = 0
    levels: int = 0

    @property
    def total(self) -> int:
        """All bytes exchanged."""
        return sum(self.rounds)

    def count(self, sent: Sequence[Messages]) -> None:
        """Record one round: ``sent[p]`` are partition ``p``'s messages (none to itself)."""
        self.rounds.append(sum(array.nbytes for messages in sent for arrays in messages.values() for array in arrays))


Exchange = Callable[[str, Sequence[object]], list[object]]
"""Runs one method on every partition (with per-partition arguments) and returns the
results in partition order: the seam between the driver and where partitions live."""


def _each(exchange: Exchange, partitions: int, method: str, *arguments: object) -> list[object]:
    """``method`` called on every partition with the same ``arguments``."""
    return exchange(method, [arguments] * partitions)


def _rounds(exchange: Exchange, partitions: int, traffic: Traffic, out: str, into: str, count: int, *arguments: object) -> None:
    """``count`` rounds: ``out(*arguments, chunk)`` on every partition, then each one's
    messages handed to ``into(*arguments, received)`` on their receivers."""
    for chunk in range(count):
        sent = _each(exchange, partitions, out, *arguments, chunk)
        traffic.count(sent)
        boxes = [[messages[q] for messages in sent if q in messages] for q in range(partitions)]
        exchange(into, [(*arguments, box) for box in boxes])


def drive(exchange: Exchange, partitions: int, traffic: Traffic, advance: Advance = lambda _count: None, way: Pass = Pass()) -> None:
    """Run the whole pass over ``partitions`` partitions through ``exchange``, calling
    ``advance`` with the positions each level and each round of the peel resolves (and
    last the draws left without a remoteness), every position once in all. ``way``: up
    to which level, and whether the draw peel runs, as
    :func:`~tablebase.solve.retrograde.solve_positions` takes them."""

    def each(method: str, *arguments: object) -> list[object]:
        return _each(exchange, partitions, method, *arguments)

    def rounds(out: str, into: str, count: int, *arguments: object) -> None:
        _rounds(exchange, partitions, traffic, out, into, count, *arguments)

    sizes = each("start")
    advance(sum(sizes))
    level = 0
    last = np.iinfo(np.int64).max if way.until is None else way.until
    while level < last:
        nexts = [r for r in each("next_exit") if r is not None]
        if not any(sizes):
            if not nexts or min(nexts) >= last:
                break
            level = min(nexts)  # nothing happens in between
        chunks = each("begin_level", level)
        rounds("losses_out", "wins_in", max(c[0] for c in chunks), level)
        rounds("wins_out", "count_down_in", max(c[1] for c in chunks), level)
        sizes = each("end_level", level)
        advance(sum(sizes))
        level += 1
    traffic.levels = len(traffic.rounds)
    if way.draws:
        advance(sum(each("begin_peel")))
        while count := max(each("peel_rounds")):
            rounds("peel_out", "peel_in", count)
            advance(sum(each("end_peel_round")))
    advance(sum(each("finish", way.draws)))


def solve_passes(exchange: Exchange, partitions: int, traffic: Traffic, stages: Stages = silent, total: int | None = None) -> None:
    """Every pass of the :class:`SurveyedPartition` partitions' plan
    (:class:`~tablebase.solve.unmoves.UnmovePlan`), one after the other as
    :func:`~tablebase.solve.unmoves.solve_by_unmoves` runs them: a pass the next one
    answers is skipped only where every partition's exit codes allow it. Each pass is a
    ``solve`` stage of ``total`` positions."""
    passes = _each(exchange, partitions, "passes")[0]
    answered = answered_passes(passes, lambda first, second: all(_each(exchange, partitions, "same_exits", first, second)))
    for way, numbers in passes_run(passes, answered):
        _each(exchange, partitions, "begin_pass", answered)
        with stages("solve", total) as advance:
            drive(exchange, partitions, traffic, advance, way)
        _each(exchange, partitions, "end_pass", numbers)


def discover(exchange: Exchange, partitions: int, traffic: Traffic, advance: Advance = lambda _count: None) -> int:
    """Forward search over ``partitions`` :class:`DiscoveredPartition`, round by round
    until no partition finds a new key, then their surveys; ``advance`` gets the keys
    each round finds. :returns: how many positions the partitions hold in all."""
    while count := max(_each(exchange, partitions, "discover_rounds")):
        _rounds(exchange, partitions, traffic, "discover_out", "discover_in", count)
        advance(sum(_each(exchange, partitions, "end_discover_round")))
    traffic.searched = len(traffic.rounds)
    return sum(_each(exchange, partitions, "survey"))


def partition_arguments(
    terminal: np.ndarray, graph: Predecessors, partitions: int, exits: Exits | None = None, sliced: bool = False
) -> list[tuple[object, ...]]:
    """The arguments of each :class:`Partition` of a pass over a move graph: its
    :class:`PositionState` (terminal values, moves, ``exits`` folded), and with
    ``sliced`` only the predecessor lists of its own positions (a
    :class:`PredecessorRange`, for partitions held elsewhere), else the whole ``graph``.

    :raises ValueError: if ``partitions`` is below 1.
    """
    exits = exits or Exits.none()
    bounds = partition_bounds(len(terminal), partitions)
    owner = np.searchsorted(bounds, exits.src, side="right") - 1
    found = []
    for p in range(partitions):
        lo, hi = int(bounds[p]), int(bounds[p + 1])
        state = PositionState(hi - lo)
        state.outcome[:] = terminal[lo:hi]
        state.count_moves(slice(None), graph.out_degree[lo:hi])
        own = exits.select(owner == p)
        state.fold(Exits(own.src - lo, own.outcome, own.remoteness))
        found.append((KeyRanges(bounds), p, state, PredecessorRange.of(graph, lo, hi) if sliced else graph, lo))
    return found


@dataclass(frozen=True)
class PredecessorRange:
    """The predecessor lists of the positions ``lo <= v < hi`` of a
    :class:`~tablebase.solve.predecessors.Predecessors` graph, for a partition held by
    another process: ``offsets`` int64[hi - lo + 1] into ``preds`` (global indices)."""

    lo: int
    offsets: np.ndarray
    preds: np.ndarray

    @staticmethod
    def of(graph: Predecessors, lo: int, hi: int) -> PredecessorRange:
        """The range ``[lo, hi)`` of ``graph``."""
        start, end = int(graph.offsets[lo]), int(graph.offsets[hi])
        return PredecessorRange(lo, graph.offsets[lo : hi + 1] - start, graph.preds[start:end])

    def parents(self, nodes: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """:meth:`MoveSource.parents` of ``nodes`` (global indices within the range)."""
        positions, counts = segments(self.offsets, np.asarray(nodes, np.int64) - self.lo)
        yield nodes, self.preds[positions], counts


def solve_partitioned(
    terminal: np.ndarray, graph: Predecessors, partitions: int, exits: Exits | None = None
) -> tuple[Solution, Traffic]:
    """:func:`~tablebase.solve.retrograde.solve` over ``partitions`` key ranges in this
    process, exchanging updates between them as separate machines would.

    :param terminal: int8[n] terminal values, as for ``solve``.
    :param graph: the moves, as predecessor lists.
    :param partitions: how many key ranges (1 or more).
    :param exits: moves into other tablebases, as for ``solve``.
    :returns: the same :class:`Solution` as ``solve``, and the :class:`Traffic` between
        partitions.
    :raises ValueError: if ``partitions`` is below 1.
    """
    parts = [Partition(*arguments) for arguments in partition_arguments(terminal, graph, partitions, exits)]

    def exchange(method: str, arguments: Sequence[object]) -> list[object]:
        return [getattr(part, method)(*args) for part, args in zip(parts, arguments)]

    traffic = Traffic()
    drive(exchange, partitions, traffic)
    values = exchange("values", [()] * partitions)
    outcome = np.concatenate([part[0] for part in values])
    remoteness = np.concatenate([part[1] for part in values]).astype(np.int32)
    return Solution(outcome, remoteness), traffic
