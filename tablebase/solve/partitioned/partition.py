"""One partition's share of a partitioned pass (:class:`Partition`): its positions' state,
its frontiers as bitsets, and its part of each round of the levels and of the draw peel."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from tablebase.core.tally import Tally
from tablebase.core.values import DRAW, LOSS, WIN
from tablebase.solve.partitioned.owners import Messages, Owners, _joined
from tablebase.solve.retrograde.draw_peel import _see_draw
from tablebase.solve.retrograde.solver import MoveSource, _Found, _next_exits, _past_int16
from tablebase.solve.retrograde.state import NO_REMOTENESS, PositionState
from tablebase.solve.retrograde.sweeps import Sweeps
from tablebase.solve.retrograde.wins_losses import _at_zero, _to_losses, _to_wins, _undecided
from tablebase.solve.solved import ABSENT

FRONTIER_CHUNK = 1 << 16
"""Positions of a partition's frontier walked back in one round: a round's messages
hold their predecessors (about 30 a chess position), never a whole level's."""


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
        losses += outcome[p] == LOSS
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
            losses += outcome[p] == LOSS
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

    :param owners: who owns each position (:class:`~tablebase.solve.partitioned.owners.KeyRanges`, :class:`~tablebase.solve.partitioned.owners.HashedKeys`).
    :param me: this partition's number.
    :param state: its positions' state as :func:`~tablebase.solve.retrograde.solver.solve_positions`
        takes it (terminal values, moves within the tablebase, exit codes), indexed by
        its own offsets; consumed.
    :param graph: the moves; only the predecessors of this partition's positions are read
        (:meth:`MoveSource.parents`, numbered as ``owners`` routes them: positions of
        the index, or keys), so a :class:`~tablebase.solve.partitioned.in_process.PredecessorRange` of them is enough.
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
        """Level 0 (:func:`~tablebase.solve.retrograde.wins_losses._start`). :returns: how many
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
        """Start the draw peel (:meth:`~tablebase.solve.retrograde.sweeps.Sweeps.begin_peel`), its
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
        left unresolved is a draw without one (:func:`~tablebase.solve.retrograde.wins_losses._undecided`).
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
