"""The base of impartial games whose positions are sums of parts (heaps, sheets of paper).

A move plays in one part and leaves zero, one or two parts in its place; the position is
the sum of all parts (a tuple, sorted). The tablebase stores single parts, keyed by the
game, and values a sum by the xor of its parts' Grundy values (its kind's ``splits``, in
``Mode.IMPARTIAL``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tablebase.core.game import Game, Mode
from tablebase.core.values import Outcome

Sum = tuple[Any, ...]
"""A position: its parts, sorted."""


class SumGame(Game):
    """A game whose moves split parts; subclasses give :meth:`part_moves` (per position)
    and ``successors`` (batch, through :func:`join_part_moves`)."""

    mode = Mode.SUMS

    def part_moves(self, part: Any) -> list[tuple[Any, Sum]]:
        """``(detail, parts left)`` for every move in one part; ``detail`` names the move."""
        raise NotImplementedError

    def components(self, position: Sum) -> list[Sum]:
        """The single parts of a sum."""
        return [(part,) for part in position]

    def moves(self, position: Sum) -> list[tuple[tuple[Any, Any], Sum]]:
        """Every move in every part (each distinct part once), as ``(part, detail)``,
        with the sum it leaves."""
        found = []
        for part in sorted(set(position)):
            others = list(position)
            others.remove(part)
            for detail, left in self.part_moves(part):
                found.append(((part, detail), tuple(sorted(others + list(left)))))
        return found

    def terminal(self, position: Sum) -> Outcome | None:
        """``LOSS`` when no part allows a move, else ``None``."""
        return None if self.moves(position) else Outcome.LOSS


def join_part_moves(sources: list[np.ndarray], parts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The batch ``successors`` answer from groups of moves: ``(src_index, parts)``,
    int64[m] ascending and int64[m, 2] (keys of the parts left, -1 for none).

    :param sources: int[m_i] the batch index each move of group ``i`` is made from.
    :param parts: int[m_i, 2] the parts each leaves.
    """
    src = np.concatenate(sources) if sources else np.zeros(0, np.int64)
    joined = np.concatenate(parts) if parts else np.zeros((0, 2), np.int64)
    order = np.argsort(src, kind="stable")
    return src[order].astype(np.int64), joined[order].astype(np.int64)
