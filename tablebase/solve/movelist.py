"""A move graph held as forward lists, for the passes that value a move at once from all
its parts (sums: the xor of their Grundy values) or with its reward (scored games).

The retrograde WDL pass needs only predecessor lists
(:mod:`tablebase.solve.predecessors`), which are smaller; these passes need each move
whole, so its parts and reward stay together here, in order of the position moving.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.solve.retrograde.state import NO_REMOTENESS


@dataclass(frozen=True)
class MoveList:
    """Every move of a graph of ``n`` positions, grouped by the position moving.

    :ivar src: int64[m] the position each move is made from, ascending.
    :ivar parts: int64[m, k] the positions it leads to: a sum of up to ``k`` of them,
        -1 padding a sum of fewer (``k = 1`` for a game whose moves do not split).
    :ivar reward: int64[m] what each move earns the side making it (zeros unless scored).
    """

    n: int
    src: np.ndarray
    parts: np.ndarray
    reward: np.ndarray

    @property
    def out_degree(self) -> np.ndarray:
        """int64[n]: the number of moves of each position."""
        return np.bincount(self.src, minlength=self.n)

    def end_remoteness(self) -> np.ndarray:
        """int32[n] the remoteness of the passes over a move list, which give none but
        0 for a position without moves (:data:`~tablebase.solve.retrograde.state.NO_REMOTENESS`
        elsewhere)."""
        return np.where(self.out_degree > 0, NO_REMOTENESS, 0).astype(np.int32)


def as_rows(parts: np.ndarray) -> np.ndarray:
    """int[m, k] parts of moves given as int[m] (one part a move) or int[m, k]."""
    return parts if parts.ndim == 2 else parts.reshape(-1, 1)


class MoveListBuilder:
    """Collects the moves of a graph of ``n`` positions part by part, then makes its
    :class:`MoveList` (the :class:`~tablebase.solve.graph.MoveSink` of sums and scores)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def add(self, sources: np.ndarray, counts: np.ndarray, dst: np.ndarray, reward: np.ndarray | None) -> None:
        """Record the moves of distinct positions ``sources`` (int[k]), ``counts`` (int[k])
        moves each, the moves of ``sources[0]`` first: successor indices ``dst``
        (int[sum(counts)] or int[sum(counts), parts], -1 padding) and their ``reward``
        (int64[sum(counts)]) or ``None`` for none."""
        src = np.repeat(np.asarray(sources, dtype=np.int64), counts)
        parts = as_rows(np.asarray(dst, dtype=np.int64))
        self.parts.append((src, parts, np.zeros(len(src), np.int64) if reward is None else np.asarray(reward, np.int64)))

    def finish(self) -> MoveList:
        """Every move added, sorted by the position moving (the parts are freed)."""
        if not self.parts:
            return MoveList(self.n, np.zeros(0, np.int64), np.zeros((0, 1), np.int64), np.zeros(0, np.int64))
        width = max(parts.shape[1] for _src, parts, _reward in self.parts)
        src = np.concatenate([src for src, _parts, _reward in self.parts])
        parts = np.concatenate(
            [np.pad(p, ((0, 0), (0, width - p.shape[1])), constant_values=-1) for _src, p, _reward in self.parts]
        )
        reward = np.concatenate([reward for _src, _parts, reward in self.parts])
        self.parts = []
        order = np.argsort(src, kind="stable")
        return MoveList(self.n, src[order], parts[order], reward[order])
