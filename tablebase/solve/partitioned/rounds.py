"""Driving a partitioned pass: each method run on every partition through an
:data:`Exchange`, the messages of each round handed to their owners, their bytes counted
(:class:`Traffic`); the levels and the draw peel of a pass (:func:`drive`), the passes of a
plan (:func:`solve_passes`), and a forward search (:func:`discover`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from tablebase.solve.partitioned.owners import Messages
from tablebase.solve.unmoves.plan import Pass, answered_passes, passes_run
from tablebase.util.progress import Advance, Stages, silent


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
    :func:`~tablebase.solve.retrograde.solver.solve_positions` takes them."""

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
    """Every pass of the :class:`~tablebase.solve.partitioned.surveyed.SurveyedPartition` partitions' plan
    (:class:`~tablebase.solve.unmoves.plan.UnmovePlan`), one after the other as
    :func:`~tablebase.solve.unmoves.solver.solve_by_unmoves` runs them: a pass the next one
    answers is skipped only where every partition's exit codes allow it. Each pass is a
    ``solve`` stage of ``total`` positions."""
    passes = _each(exchange, partitions, "passes")[0]
    answered = answered_passes(passes, lambda first, second, until: all(_each(exchange, partitions, "exits_agree", first, second, until)))
    for way, numbers in passes_run(passes, answered):
        _each(exchange, partitions, "begin_pass", answered)
        with stages("solve", total) as advance:
            drive(exchange, partitions, traffic, advance, way)
        _each(exchange, partitions, "end_pass", numbers)


def discover(exchange: Exchange, partitions: int, traffic: Traffic, advance: Advance = lambda _count: None) -> int:
    """Forward search over ``partitions`` :class:`~tablebase.solve.partitioned.discovered.DiscoveredPartition`, round by round
    until no partition finds a new key, then their surveys; ``advance`` gets the keys
    each round finds. :returns: how many positions the partitions hold in all."""
    while count := max(_each(exchange, partitions, "discover_rounds")):
        _rounds(exchange, partitions, traffic, "discover_out", "discover_in", count)
        advance(sum(_each(exchange, partitions, "end_discover_round")))
    traffic.searched = len(traffic.rounds)
    return sum(_each(exchange, partitions, "survey"))
