"""Two piles of valued items: players in turn take the top item of either pile.

A classic exercise of game dynamic programming: each player maximizes their own total
(equivalently, under zero sum, the margin over the other). Item values are given top
first, e.g. ``-p a=3,1,4 -p b=1,5,9``. A position is how many items are left in each
pile; the game ends when both are empty. The tablebase stores, for the side to move,
the best margin it can secure over the rest of the game; its total from there is
``(items left + margin) / 2``, shown by ``query``.
"""

from __future__ import annotations

import numpy as np

from tablebase.core.errors import PositionError
from tablebase.core.game import Game, Mode
from tablebase.core.parameters import Parameter
from tablebase.core.values import Outcome

Piles = tuple[int, int]
"""Items left in piles a and b (the top ones are taken first)."""


def _values(values: tuple[int, ...]) -> str | None:
    return None if len(values) <= 10_000 else "at most 10000 items a pile"


class TwoPiles(Game):
    """Index-space form: key ``i * (len(b) + 1) + j`` for ``i`` items left in pile a and
    ``j`` in pile b. A move is ``"a"`` or ``"b"``, the pile whose top item is taken."""

    name = "piles"
    description = "Two piles of valued items; take the top item of either; most in total wins"
    position_syntax = "items left in each pile as I,J, e.g. 3,2, or start; a move is a or b"
    parameters = (
        Parameter("a", "ints", (3, 1, 4), "values of pile a, top first", _values),
        Parameter("b", "ints", (1, 5, 9), "values of pile b, top first", _values),
    )
    mode = Mode.SCORED

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        self.a, self.b = list(self.params["a"]), list(self.params["b"])
        self.stride = len(self.b) + 1
        self.size = (len(self.a) + 1) * self.stride

    def _top(self, pile: str, left: int) -> int:
        values = self.a if pile == "a" else self.b
        return values[len(values) - left]

    def start_positions(self) -> list[Piles]:
        """Both piles full."""
        return [(len(self.a), len(self.b))]

    def moves(self, position: Piles) -> list[tuple[str, Piles]]:
        """Take the top of pile a, then of pile b, where they are not empty."""
        i, j = position
        return ([("a", (i - 1, j))] if i else []) + ([("b", (i, j - 1))] if j else [])

    def terminal(self, position: Piles) -> Outcome | None:
        """``DRAW`` (a margin of 0 is left) when both piles are empty, else ``None``."""
        return Outcome.DRAW if position == (0, 0) else None

    def reward(self, position: Piles, move: str) -> int:
        """The value of the item taken."""
        return self._top(move, position[0] if move == "a" else position[1])

    def remaining(self, position: Piles) -> int:
        """The total value of the items left."""
        i, j = position
        return sum(self.a[len(self.a) - i :]) + sum(self.b[len(self.b) - j :])

    def score_details(self, position: Piles, score: int) -> dict[str, int]:
        """``{"mover_total": t}``: what the side to move collects from here with best play."""
        return {"mover_total": (self.remaining(position) + score) // 2}

    def encode(self, position: Piles) -> int:
        """``i * (len(b) + 1) + j``."""
        return position[0] * self.stride + position[1]

    def decode(self, key: int) -> Piles:
        """Inverse of :meth:`encode`."""
        return divmod(key, self.stride)

    def parse(self, text: str) -> Piles:
        """Read ``I,J``. :raises PositionError: for bad syntax or counts out of range."""
        try:
            i, j = (int(part) for part in text.split(","))
        except ValueError:
            raise PositionError(f"bad piles {text!r}: expected items left in each pile as I,J, e.g. 3,2") from None
        if not (0 <= i <= len(self.a) and 0 <= j <= len(self.b)):
            raise PositionError(f"bad piles {text!r}: pile a holds 0..{len(self.a)} items, pile b 0..{len(self.b)}")
        return i, j

    def format(self, position: Piles) -> str:
        """``I,J``, e.g. ``3,2``."""
        return f"{position[0]},{position[1]}"

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorized moves: ``(src_index, dst_key)``, sources ascending, pile a first."""
        i, j = np.divmod(np.asarray(keys, dtype=np.int64), self.stride)
        src = np.concatenate([np.flatnonzero(i > 0), np.flatnonzero(j > 0)])
        dst = np.concatenate([keys[i > 0] - self.stride, keys[j > 0] - 1])
        order = np.argsort(src, kind="stable")
        return src[order], dst[order]

    def move_rewards(self, keys: np.ndarray) -> np.ndarray:
        """int64[m]: the item each move of :meth:`successors` takes, in its order."""
        i, j = np.divmod(np.asarray(keys, dtype=np.int64), self.stride)
        a, b = np.array(self.a + [0], dtype=np.int64), np.array(self.b + [0], dtype=np.int64)
        src = np.concatenate([np.flatnonzero(i > 0), np.flatnonzero(j > 0)])
        reward = np.concatenate([a[len(self.a) - i[i > 0]], b[len(self.b) - j[j > 0]]])
        return reward[np.argsort(src, kind="stable")]
