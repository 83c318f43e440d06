"""The subtraction game: players alternately take a fixed number of counters from one heap.

A classic impartial game (Berlekamp, Conway and Guy, *Winning Ways*, ch. 4): with the
moves ``{1, 2, 3}`` a heap of ``n`` is lost for the side to move exactly when
``n % 4 == 0``. Under normal play the side left without a move loses.
"""

from __future__ import annotations

import numpy as np

from tablebase.core.errors import PositionError
from tablebase.core.game import Game, Mode
from tablebase.core.parameters import Parameter, at_least
from tablebase.core.values import NOT_TERMINAL


def _check_moves(moves: tuple[int, ...]) -> str | None:
    return None if all(move >= 1 for move in moves) else "every move must be a positive integer"


class Subtraction(Game):
    """One heap of counters; a move takes ``m`` of them, ``m`` in the ``moves`` parameter.

    Index-space form: a position is the heap size, an int in ``0..max``; its key is
    itself, and every key of ``range(max + 1)`` is legal. A move is the int ``m`` taken.
    No position is terminal: an empty (or too small) heap simply has no move, a loss.
    """

    name = "subtraction"
    description = "One heap; a move takes a number of counters from a fixed set"
    position_syntax = "the heap size, e.g. 17; a move taking 3 counters is written -3"
    mode = Mode.IMPARTIAL
    parameters = (
        Parameter("moves", "set", (1, 2, 3), "how many counters a move may take", _check_moves),
        Parameter("max", "int", 100, "largest heap", at_least(0)),
    )

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        self.takes = list(self.params["moves"])
        self.size = self.params["max"] + 1

    def start_positions(self) -> list[int]:
        """One position: a heap of ``max`` counters."""
        return [self.params["max"]]

    def moves(self, position: int) -> list[tuple[int, int]]:
        """Take each allowed number up to the heap size, ascending; the move is the number taken."""
        return [(take, position - take) for take in self.takes if take <= position]

    def terminal(self, position: int) -> None:
        """Always ``None``: a heap too small for any move has none, a loss under normal play."""
        return None

    def encode(self, position: int) -> int:
        """The key is the heap size itself."""
        return position

    def decode(self, key: int) -> int:
        """The heap size is the key itself."""
        return key

    def parse(self, text: str) -> int:
        """Read a heap size. :raises PositionError: for a non-integer or one outside 0..max."""
        try:
            heap = int(text.strip())
        except ValueError:
            raise PositionError(f"bad heap {text!r}: expected an integer") from None
        if not 0 <= heap <= self.params["max"]:
            raise PositionError(f"heap {heap} out of range 0..{self.params['max']}")
        return heap

    def format(self, position: int) -> str:
        """The heap size, e.g. ``17``."""
        return str(position)

    def format_move(self, move: int) -> str:
        """``-m`` for taking ``m`` counters, e.g. ``-3``."""
        return f"-{move}"

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vectorized moves: ``(src_index, dst_key)``, int64[m] each, src ascending."""
        children = keys[:, None] - np.asarray(self.takes, dtype=np.int64)[None, :]
        valid = children >= 0
        return np.nonzero(valid)[0].astype(np.int64), children[valid]

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        """int8[n], all :data:`NOT_TERMINAL`."""
        return np.full(len(keys), NOT_TERMINAL, dtype=np.int8)
