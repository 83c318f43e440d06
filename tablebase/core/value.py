"""A position's value as a query returns it: :class:`Value`, built from stored numbers by
its tablebase's value kind (:mod:`tablebase.solve.kinds`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from tablebase.core.values import CATEGORIES, Outcome, position_category


@dataclass(frozen=True)
class Value:
    """A position's value for its side to move; ``remoteness`` in plies, or ``None``;
    ``grundy``, the Grundy value, for a position of an impartial game, ``score``, the
    negamax value, for one of a scored game, and ``dtz``, signed plies to the next
    zeroing move under the 50-move rule (:mod:`tablebase.solve.dtz`), for one of a
    tablebase that stores it (else ``None``)."""

    outcome: Outcome
    remoteness: int | None
    grundy: int | None = None
    score: int | None = None
    dtz: int | None = None

    @functools.cached_property
    def category(self) -> int | None:
        """Syzygy's category (-2..2) under the 50-move rule, where DTZ is known."""
        return None if self.dtz is None else position_category(self.outcome, self.dtz)

    def extras(self) -> dict[str, int | str]:
        """``grundy``, ``score``, and ``category`` (lichess's name, e.g.
        ``cursed-win``) with ``dtz``: those that are known."""
        found: dict[str, int | str] = {
            name: number for name, number in (("grundy", self.grundy), ("score", self.score)) if number is not None
        }
        if self.dtz is not None:
            found.update(category=CATEGORIES[self.category], dtz=self.dtz)  # type: ignore[index]
        return found
