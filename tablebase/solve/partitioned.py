"""The retrograde pass of :func:`tablebase.solve.retrograde.solve`, split into P
partitions of the index space that exchange only the updates crossing between them.

Partition ``p`` owns the positions ``bounds[p] <= i < bounds[p + 1]`` (a key range, since
positions are numbered in key order): their outcome, remoteness, move counters and the
moves that leave the tablebase from them. Each level runs in two steps, the rounds of a
bulk-synchronous parallel program (Valiant, "A bridging model for parallel computation",
CACM 1990):

1. *expand*: each partition walks back from the positions it resolved at the previous
   level (:meth:`MoveSource.parents`) and sends every predecessor to its owner, as
   "wins now" (predecessors of losses) and "one move less" (predecessors of wins);
2. *apply*: each owner marks its unresolved "wins now" as wins, then decrements the
   counters of the rest and marks those that reach zero as losses.

The peel that gives draws their remoteness runs the same way. Updates are sent as the
receiver's own offsets (uint32), with the child's remoteness beside them in the peel;
:class:`Traffic` counts the bytes that cross between partitions, per level. Values come
out exactly those of the single-process pass, position by position.

Partitions are plain objects: :func:`solve_partitioned` drives them in one process, and
the same objects can be held by other processes (a Dask actor per partition) with the
driver routing the messages of each round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from tablebase.game import DRAW, LOSS, NOT_TERMINAL, WIN, Game, Mode, provides_unmoves
from tablebase.solve.exits import ReadOnce, ReadTable, exit_values
from tablebase.solve.predecessors import Predecessors, segments, tally
from tablebase.solve.retrograde import NO_REMOTENESS, Exits, MoveSource, Solution, counter_dtype, folded_exits
from tablebase.solve.solved import ABSENT
from tablebase.solve.unmoves import PositionIndex, UnmoveSource, survey
from tablebase.solve.workers import Workers


class _DecisiveExits:
    """Exits into wins and losses, sorted by remoteness, handed out one level at a time."""

    def __init__(self, exits: Exits) -> None:
        decisive = exits.select(exits.outcome != DRAW)
        order = np.argsort(decisive.remoteness, kind="stable")
        self.exits = decisive.select(order)
        self.next = 0

    def remaining(self) -> bool:
        """Whether some exits are still to be handed out."""
        return self.next < len(self.exits.src)

    def next_remoteness(self) -> int:
        """The remoteness of the next exits to be handed out."""
        return int(self.exits.remoteness[self.next])

    def at(self, remoteness: int) -> tuple[np.ndarray, np.ndarray]:
        """``(parents of losses, parents of wins)`` among the exits at this remoteness."""
        end = int(np.searchsorted(self.exits.remoteness, remoteness, side="right"))
        taken = self.exits.select(slice(self.next, end))  # type: ignore[arg-type]
        self.next = end
        return taken.src[taken.outcome == LOSS], taken.src[taken.outcome == WIN]


def _resolve_once(found: np.ndarray, resolved: np.ndarray, remoteness: np.ndarray, level: int) -> np.ndarray:
    """The distinct unresolved positions among int[k] ``found``, marked resolved at
    ``level``. Unresolved positions have no remoteness yet, so their ``remoteness``
    entries serve as the scratch that finds repeats, in O(k) without another array."""
    found = found[~resolved[found]]
    order = np.arange(len(found), dtype=remoteness.dtype)
    remoteness[found] = order
    found = found[remoteness[found] == order]
    resolved[found] = True
    remoteness[found] = level
    return found


def _counters(moves: np.ndarray, extra: np.ndarray) -> np.ndarray:
    """int[n] ``moves`` plus one for each entry of int[k] ``extra`` (position numbers,
    such as the sources of exits), in the smallest unsigned dtype that holds the sums;
    no temporary of n int64."""
    most_extra = int(np.unique(extra, return_counts=True)[1].max()) if len(extra) else 0
    counters = moves.astype(counter_dtype(int(moves.max(initial=0)) + most_extra))
    _add_ones(counters, extra)
    return counters


@njit(cache=True, nogil=True)
def _add_ones(counters, positions):
    """Add one to ``counters`` at each of int[k] ``positions`` (repeats count)."""
    for p in positions:
        counters[p] += 1


Messages = dict[int, tuple[np.ndarray, ...]]
"""Arrays sent by one partition in one round, by the receiving partition's number."""


def partition_bounds(n: int, partitions: int) -> np.ndarray:
    """int64[P + 1]: the first position of each of ``partitions`` near-equal key ranges of
    ``n`` positions, and ``n`` last.

    :raises ValueError: if ``partitions`` is below 1.
    """
    if partitions < 1:
        raise ValueError(f"partitions must be >= 1, not {partitions}")
    return np.linspace(0, n, partitions + 1).astype(np.int64)


def _route(bounds: np.ndarray, me: int, *arrays: np.ndarray) -> Messages:
    """Split parallel arrays by the owner of ``arrays[0]`` (global indices), which become
    the owner's offsets (uint32)."""
    owner = np.searchsorted(bounds, arrays[0], side="right") - 1
    order = np.argsort(owner, kind="stable")
    owner = owner[order]
    cuts = np.searchsorted(owner, np.arange(len(bounds)))
    sent: Messages = {}
    for p in np.unique(owner).tolist():
        these = order[cuts[p] : cuts[p + 1]]
        sent[p] = ((arrays[0][these] - bounds[p]).astype(np.uint32), *(a[these] for a in arrays[1:]))
    return sent


def _joined(received: Sequence[tuple[np.ndarray, ...]], width: int) -> tuple[np.ndarray, ...]:
    """The received arrays of each column end to end (``width`` columns)."""
    if not received:
        return tuple(np.zeros(0, np.int64) for _ in range(width))
    return tuple(np.concatenate([message[column] for message in received]) for column in range(width))


class Partition:
    """One key range of a retrograde pass, with the state of its positions.

    :param bounds: int64[P + 1] from :func:`partition_bounds`.
    :param me: this partition's number.
    :param terminal: int8[hi - lo] terminal values of its positions (as in ``solve``).
    :param out_degree: int[hi - lo] the number of moves of each of its positions.
    :param graph: the moves; only the predecessors of this partition's positions are read
        (:meth:`MoveSource.parents`, global indices), so a :class:`PredecessorRange`
        of them is enough.
    :param exits: moves that leave the tablebase from its positions (global ``src``).
    """

    def __init__(
        self, bounds: np.ndarray, me: int, terminal: np.ndarray, out_degree: np.ndarray, graph: MoveSource, exits: Exits
    ) -> None:
        self.bounds, self.me = bounds, me
        self.lo, self.hi = int(bounds[me]), int(bounds[me + 1])
        self.graph = graph
        n = self.hi - self.lo
        self.is_terminal = terminal != NOT_TERMINAL
        exits = Exits(exits.src - self.lo, exits.outcome, exits.remoteness)
        self.exits = exits.select(~self.is_terminal[exits.src])
        self.counters = _counters(np.asarray(out_degree), self.exits.src)
        self.outcome = np.where(self.is_terminal, terminal, DRAW).astype(np.int8)
        self.remoteness = np.full(n, NO_REMOTENESS, dtype=np.int32)
        stuck = ~self.is_terminal & (self.counters == 0)
        self.outcome[stuck] = LOSS
        self.resolved = self.is_terminal | stuck
        self.remoteness[self.resolved] = 0
        self.pending_exits = _DecisiveExits(self.exits)
        self.frontier = np.flatnonzero(self.resolved)

    # ---- win, loss

    def frontier_size(self) -> int:
        """How many positions this partition resolved last."""
        return len(self.frontier)

    def next_exit(self) -> int | None:
        """The remoteness of the next exits into wins or losses, or ``None``."""
        return self.pending_exits.next_remoteness() if self.pending_exits.remaining() else None

    def expand(self, level: int) -> Messages:
        """Round 1 of ``level`` (the remoteness of the positions resolved last): the
        predecessors of this partition's frontier, and of its exits at ``level``, by owner:
        ``(offsets of predecessors of losses, offsets of predecessors of wins)``."""
        exit_losses, exit_wins = self.pending_exits.at(level)
        values = self.outcome[self.frontier]
        nodes = self.frontier + self.lo
        of_losses = [exit_losses + self.lo, *(part[1] for part in self.graph.parents(nodes[values == LOSS]))]
        of_wins = [exit_wins + self.lo, *(part[1] for part in self.graph.parents(nodes[values == WIN]))]
        kind = np.concatenate([np.zeros(sum(map(len, of_losses)), np.int8), np.ones(sum(map(len, of_wins)), np.int8)])
        targets = np.concatenate([np.asarray(a, np.int64) for a in (*of_losses, *of_wins)])
        return _route(self.bounds, self.me, targets, kind)

    def apply(self, level: int, received: Sequence[tuple[np.ndarray, ...]]) -> int:
        """Round 2 of ``level``: resolve what the partitions sent here at ``level + 1``.

        :returns: how many positions it resolved (its new frontier).
        """
        offsets, kind = _joined(received, 2)
        offsets = offsets.astype(np.int64)
        resolved_at = level + 1
        to_win = _resolve_once(offsets[kind == 0], self.resolved, self.remoteness, resolved_at)
        self.outcome[to_win] = WIN
        toward_loss = offsets[kind == 1]
        parents, moves_to_wins = tally(toward_loss[~self.resolved[toward_loss]])
        self.counters[parents] = self.counters[parents] - moves_to_wins
        to_loss = parents[self.counters[parents] == 0]
        self.resolved[to_loss] = True
        self.outcome[to_loss] = LOSS
        self.remoteness[to_loss] = resolved_at
        self.frontier = np.concatenate([to_win, to_loss])
        return len(self.frontier)

    # ---- draws

    def draw_rounds(self) -> int:
        """Start the peel: how many rounds of :meth:`draws_out` this partition's draws
        take, :data:`DRAW_CHUNK` draws a round (so that no round holds the un-moves of
        every draw at once)."""
        self.draws = np.flatnonzero(self.outcome == DRAW).astype(np.uint32)  # offsets: 4 bytes a draw
        self.pending = (self.outcome == DRAW) & ~self.is_terminal
        self.counters[:] = 0  # now the moves into draws still to be peeled
        return -(-len(self.draws) // DRAW_CHUNK)

    def draws_out(self, chunk: int) -> Messages:
        """A round of the peel's count: for every move into one of this partition's draws
        of ``chunk``, one message to the owner of the position it comes from."""
        draws = self.draws[chunk * DRAW_CHUNK : (chunk + 1) * DRAW_CHUNK].astype(np.int64) + self.lo
        parents = np.concatenate([np.zeros(0, np.int64), *(part[1] for part in self.graph.parents(draws))])
        return _route(self.bounds, self.me, np.asarray(parents, np.int64))

    def draws_count(self, received: Sequence[tuple[np.ndarray, ...]]) -> int:
        """Count the moves into draws that a round of :meth:`draws_out` sent here, for
        this partition's undecided draws. :returns: how many."""
        (offsets,) = _joined(received, 1)
        offsets = offsets.astype(np.int64)
        offsets = offsets[self.pending[offsets]]
        parents, moves_to_draws = tally(offsets)
        self.counters[parents] += moves_to_draws.astype(self.counters.dtype)
        return len(offsets)

    def draws_in(self) -> int:
        """With the moves into draws counted, add the draw exits; then resolve the draws
        whose only draw moves are exits with a remoteness. :returns: the frontier size."""
        n = self.hi - self.lo
        draw = self.outcome == DRAW
        draw_exits = self.exits.select((self.exits.outcome == DRAW) & self.pending[self.exits.src])
        left = self.counters
        left += np.bincount(draw_exits.src, minlength=n).astype(left.dtype)
        self.nearest = np.full(n, np.iinfo(np.int32).max, dtype=np.int32)
        known = draw_exits.select(draw_exits.remoteness >= 0)
        np.minimum.at(self.nearest, known.src, known.remoteness)
        ready = self._peeled(known.src)
        self.frontier = np.concatenate([np.flatnonzero(draw & self.is_terminal), ready])
        return len(self.frontier)

    def peel_out(self) -> Messages:
        """A round of the peel: the predecessors of this partition's frontier, with the
        frontier's remoteness, by owner."""
        parents, remoteness = [np.zeros(0, np.int64)], [np.zeros(0, np.int32)]
        for nodes, found, counts in self.graph.parents(self.frontier + self.lo):
            parents.append(np.asarray(found, np.int64))
            remoteness.append(np.repeat(self.remoteness[nodes - self.lo], counts))
        return _route(self.bounds, self.me, np.concatenate(parents), np.concatenate(remoteness))

    def peel_in(self, received: Sequence[tuple[np.ndarray, ...]]) -> int:
        """Apply a round of the peel. :returns: the new frontier size."""
        offsets, child_remoteness = _joined(received, 2)
        offsets = offsets.astype(np.int64)
        keep = self.pending[offsets]
        offsets, child_remoteness = offsets[keep], child_remoteness[keep]
        np.minimum.at(self.nearest, offsets, child_remoteness.astype(np.int32))
        self.frontier = self._peeled(offsets)
        return len(self.frontier)

    def _peeled(self, parents: np.ndarray) -> np.ndarray:
        """Count one draw move done for each entry of ``parents``; those with none left
        get 1 + their nearest drawn successor's remoteness."""
        parents, moves_to_draws = tally(parents)
        self.counters[parents] = self.counters[parents] - moves_to_draws
        ready = parents[self.counters[parents] == 0]
        self.remoteness[ready] = self.nearest[ready] + 1
        self.pending[ready] = False
        return ready

    def values(self) -> tuple[np.ndarray, np.ndarray]:
        """``(outcome, remoteness)`` of this partition's positions."""
        return self.outcome, self.remoteness


DRAW_CHUNK = 1 << 20
"""Draws whose moves a partition counts in one round of the peel's count."""


def partitions_unsupported(game: Game) -> str | None:
    """Why :class:`RangePartition` cannot solve ``game``, or ``None`` if it can: it
    needs un-moves over an index space and the WDL kind (chess with ``metric=dtm``)."""
    if game.size is None or not provides_unmoves(game):
        return f"{game.name} has no un-moves over an index space"
    if game.mode != Mode.WDL:
        return f"{game.describe()} stores {game.mode}, and partitions solve win/draw/loss with remoteness only (chess: -p metric=dtm)"
    return None


class RangePartition(Partition):
    """A :class:`Partition` of a game's index space that finds its own state, so that
    nothing a position comes from the process driving the pass: its keys surveyed a
    batch at a time (terminal values, distinct moves, moves out of the tablebase valued
    through ``read``), and the predecessors of its positions generated from the game's
    un-moves (:class:`~tablebase.solve.unmoves.UnmoveSource`, in this process). A
    position's exits are kept as one (:func:`~tablebase.solve.retrograde.folded_exits`).

    :param game: a game :func:`partitions_unsupported` accepts.
    :param bounds: int64[P + 1] from :func:`partition_bounds` over ``game.size``.
    :param me: this partition's number.
    :param read: the stored dependencies (:data:`~tablebase.solve.exits.ReadTable`).
    :param batch_size: keys surveyed, and positions un-moved, at a time.
    :raises NotBuiltError: if a dependency is not stored.
    """

    def __init__(self, game: Game, bounds: np.ndarray, me: int, read: ReadTable | None, batch_size: int = 1 << 16) -> None:
        lo, hi = int(bounds[me]), int(bounds[me + 1])
        terminal = np.full(hi - lo, ABSENT, dtype=np.int8)
        moves = np.zeros(hi - lo, dtype=np.int32)
        found: list[Exits] = []
        lookup = ReadOnce(game, read, dtz=False)
        for start in range(lo, hi, batch_size):
            part = survey(game, np.arange(start, min(start + batch_size, hi), dtype=np.int64))
            terminal[part.keys - lo], moves[part.keys - lo] = part.terminal, part.moves
            if len(part.exits.src):
                values = folded_exits(exit_values(game, part.exits, lookup)[0], len(part.keys))
                found.append(Exits(part.keys[values.src], values.outcome, values.remoteness))
        exits = Exits(*(np.concatenate([getattr(e, f) for e in found]) for f in ("src", "outcome", "remoteness"))) if found else Exits.none()
        moves = moves.astype(counter_dtype(int(moves.max(initial=0))))  # a byte a key, mostly
        source = UnmoveSource(PositionIndex(int(game.size)), moves, Workers(game, 1), batch_size)
        super().__init__(bounds, me, terminal, moves, source, exits)


@dataclass
class Traffic:
    """Bytes sent between partitions (not to themselves), per round.

    :ivar rounds: bytes of each exchange round, in order: the levels of the win/loss
        pass, then the rounds of the draw peel.
    :ivar levels: how many of ``rounds`` belong to the win/loss pass.
    """

    rounds: list[int] = field(default_factory=list)
    levels: int = 0

    @property
    def total(self) -> int:
        """All bytes exchanged."""
        return sum(self.rounds)

    def count(self, sent: Sequence[Messages]) -> None:
        """Record one round: ``sent[p]`` are partition ``p``'s messages."""
        self.rounds.append(
            sum(array.nbytes for p, messages in enumerate(sent) for q, arrays in messages.items() if q != p for array in arrays)
        )


Exchange = Callable[[str, Sequence[object]], list[object]]
"""Runs one method on every partition (with per-partition arguments) and returns the
results in partition order: the seam between the driver and where partitions live."""


def drive(exchange: Exchange, partitions: int, traffic: Traffic) -> None:
    """Run the whole pass over ``partitions`` partitions through ``exchange``."""

    def deliver(sent: Sequence[Messages]) -> list[list[tuple[np.ndarray, ...]]]:
        traffic.count(sent)
        return [[messages[q] for messages in sent if q in messages] for q in range(partitions)]

    sizes = exchange("frontier_size", [()] * partitions)
    level = 0
    while True:
        nexts = [r for r in exchange("next_exit", [()] * partitions) if r is not None]
        if not any(sizes):
            if not nexts:
                break
            level = min(nexts)  # nothing happens in between
        sent = exchange("expand", [(level,)] * partitions)
        inbox = deliver(sent)
        sizes = exchange("apply", [(level, inbox[q]) for q in range(partitions)])
        level += 1
    traffic.levels = len(traffic.rounds)
    for chunk in range(max(exchange("draw_rounds", [()] * partitions), default=0)):
        exchange("draws_count", [(box,) for box in deliver(exchange("draws_out", [(chunk,)] * partitions))])
    sizes = exchange("draws_in", [()] * partitions)
    while any(sizes):
        sizes = exchange("peel_in", [(box,) for box in deliver(exchange("peel_out", [()] * partitions))])


def partition_arguments(
    terminal: np.ndarray, graph: MoveSource, partitions: int, exits: Exits | None = None, sliced: bool = False
) -> list[tuple[object, ...]]:
    """The arguments of each :class:`Partition` of a pass: with ``sliced``, each gets only
    the predecessor lists of its own positions (a :class:`PredecessorRange`, for
    partitions held elsewhere), else the whole ``graph``.

    :raises ValueError: if ``partitions`` is below 1.
    """
    exits = exits or Exits.none()
    bounds = partition_bounds(len(terminal), partitions)
    owner = np.searchsorted(bounds, exits.src, side="right") - 1
    found = []
    for p in range(partitions):
        lo, hi = int(bounds[p]), int(bounds[p + 1])
        source = PredecessorRange.of(graph, lo, hi) if sliced else graph
        found.append((bounds, p, terminal[lo:hi], graph.out_degree[lo:hi], source, exits.select(owner == p)))
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
    terminal: np.ndarray, graph: MoveSource, partitions: int, exits: Exits | None = None
) -> tuple[Solution, Traffic]:
    """:func:`~tablebase.solve.retrograde.solve` over ``partitions`` key ranges in this
    process, exchanging updates between them as separate machines would.

    :param terminal: int8[n] terminal values, as for ``solve``.
    :param graph: the moves.
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
    outcome = np.concatenate([part.outcome for part in parts]) if parts else np.zeros(0, np.int8)
    remoteness = np.concatenate([part.remoteness for part in parts]) if parts else np.zeros(0, np.int32)
    return Solution(outcome, remoteness), traffic
