"""Nim: players alternately reduce one heap to any smaller size; no move, you lose.

Bouton's theorem (C. L. Bouton, "Nim, a game with a complete mathematical theory", 1901):
a position is lost for the side to move exactly when the XOR of the heap sizes is 0.
"""

from __future__ import annotations

import numpy as np

from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.game import Game, Mode
from tablebase.core.parameters import Parameter, at_least
from tablebase.core.values import NOT_TERMINAL

Heaps = tuple[int, ...]
HeapMove = tuple[int, int, int]
"""``(heap index from 0, old size, new size)``."""


class Nim(Game):
    """Normal-play Nim on ``heaps`` heaps of at most ``max`` counters.

    Index-space form: a position is a tuple of heap sizes in the user's order; its key is
    the mixed-radix number with digits ``position[0]`` (most significant) to
    ``position[-1]`` in base ``max + 1``. Heaps are unordered, so the canonical position is
    the sorted tuple, and :meth:`legal` keeps the keys whose digits are non-decreasing.

    :raises ParameterError: when ``(max + 1) ** heaps`` is not below ``2**62``.
    """

    name = "nim"
    description = "Normal-play Nim: reduce one heap to any smaller size"
    position_syntax = (
        "heap sizes separated by commas, e.g. 1,3,5; "
        "a move is HEAP:OLD>NEW with heaps counted from 1, e.g. 2:3>1"
    )
    mode = Mode.IMPARTIAL
    parameters = (
        Parameter("heaps", "int", 3, "number of heaps", at_least(1)),
        Parameter("max", "int", 7, "largest heap", at_least(0)),
    )

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        self.heaps, self.max = self.params["heaps"], self.params["max"]
        if self.heaps > 62:
            raise ParameterError(f"{self.heaps} heaps: at most 62")
        self.size = (self.max + 1) ** self.heaps
        if self.size >= 2**62:
            raise ParameterError(f"(max + 1) ** heaps = {self.size} positions: must be below 2**62")
        self.weights = (self.max + 1) ** np.arange(self.heaps - 1, -1, -1, dtype=np.int64)

    def digits(self, keys: np.ndarray) -> np.ndarray:
        """Heap sizes of a batch of keys: int64[n, heaps], in key (user) order."""
        return keys[:, None] // self.weights[None, :] % (self.max + 1)

    def legal(self, keys: np.ndarray) -> np.ndarray:
        """bool[n]: the keys whose heap sizes are sorted (the canonical positions)."""
        return np.all(np.diff(self.digits(keys), axis=1) >= 0, axis=1)

    def start_positions(self) -> list[Heaps]:
        """One position: every heap at ``max``."""
        return [(self.max,) * self.heaps]

    def moves(self, position: Heaps) -> list[tuple[HeapMove, Heaps]]:
        """Each heap to each smaller size; the move is ``(heap index from 0, old size, new size)``."""
        return [
            ((heap, size, new), position[:heap] + (new,) + position[heap + 1 :])
            for heap, size in enumerate(position)
            for new in range(size)
        ]

    def terminal(self, position: Heaps) -> None:
        """Always ``None``: all heaps empty means no move, a loss under normal play."""
        return None

    def encode(self, position: Heaps) -> int:
        """The key: heap sizes as digits in base ``max + 1``, ``position[0]`` most significant."""
        key = 0
        for size in position:
            key = key * (self.max + 1) + size
        return key

    def decode(self, key: int) -> Heaps:
        """Inverse of :meth:`encode`: the heap sizes, in key order."""
        return tuple(int(size) for size in self.digits(np.array([key], dtype=np.int64))[0])

    def canonical(self, position: Heaps) -> Heaps:
        """Heaps sorted ascending: heaps are unordered."""
        return tuple(sorted(position))

    def parse(self, text: str) -> Heaps:
        """Read ``heaps`` comma-separated sizes. :raises PositionError: if malformed or out of range."""
        parts = text.split(",")
        if len(parts) != self.heaps:
            raise PositionError(f"bad position {text!r}: expected {self.heaps} comma-separated heap sizes")
        try:
            position = tuple(int(part) for part in parts)
        except ValueError:
            raise PositionError(f"bad position {text!r}: heap sizes must be integers") from None
        if not all(0 <= size <= self.max for size in position):
            raise PositionError(f"bad position {text!r}: heap sizes must be in 0..{self.max}")
        return position

    def format(self, position: Heaps) -> str:
        """Heap sizes joined by commas, e.g. ``1,3,5``."""
        return ",".join(map(str, position))

    def format_move(self, move: HeapMove) -> str:
        """``HEAP:OLD>NEW`` with heaps counted from 1, e.g. ``2:3>1``."""
        heap, size, new = move
        return f"{heap + 1}:{size}>{new}"

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorized moves of canonical keys: ``(src_index, dst_key)``, int64[m] each.

        Sources are ascending, and each source's moves come in the order of :meth:`moves`.
        Loops run over pairs of heaps only, each step over all new sizes at once.
        """
        digits = self.digits(keys)
        new = np.arange(self.max, dtype=np.int64)
        children = np.empty((len(keys), self.heaps, self.max), dtype=np.int64)
        for heap in range(self.heaps):
            # The sorted child: later heaps keep their places, earlier heaps above the new
            # size shift one place right, and the new size goes in after the others.
            child = np.repeat(keys[:, None] % self.weights[heap], self.max, axis=1)
            slot = np.zeros_like(child)
            for left in range(heap):
                above = digits[:, left, None] > new
                child += digits[:, left, None] * np.where(above, self.weights[left + 1], self.weights[left])
                slot += ~above
            children[:, heap] = child + new * self.weights[slot]
        valid = digits[:, :, None] > new
        return np.nonzero(valid)[0].astype(np.int64), children[valid]

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        """int8[n], all :data:`NOT_TERMINAL`."""
        return np.full(len(keys), NOT_TERMINAL, dtype=np.int8)
