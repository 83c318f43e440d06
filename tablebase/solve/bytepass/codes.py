"""The byte a position of the one-byte DTZ pass, and its values once the pass is over.

A code is one of:

- :data:`ABSENT`: the key is no position;
- :data:`DRAWN`: a terminal draw (stalemate, or no mating material): never decided;
- :data:`UNKNOWN`: undecided; its zeroing moves (captures, promotions) all lead to
  positions won for the opponent under the rule, if it has any;
- :data:`CHANGED`: undecided, a successor won since its last check (a candidate loss);
- :data:`CAPT_DRAW`: undecided, a zeroing move leads to a draw: it can be won, never lost;
- :data:`CAPT_CLOSS`: undecided, its best zeroing move leads to a cursed win for the
  opponent: lost at 101 plies at the soonest (a blessed loss);
- :data:`CAPT_CWIN`: undecided, a zeroing move leads to a blessed loss for the opponent:
  won at 101 plies at the latest (a cursed win), made so at the pass's ply 101;
- a win in ``n`` plies to the next zeroing move (DTZ ``n``): ``WIN0 + n - base``, where
  ``base`` is the level the codes count from (:class:`Window`), or :data:`WIN_OLD` for a
  win settled before the window's base, its DTZ kept in an earlier snapshot;
- a loss in ``n`` plies: ``LOSS0 + n - base``, or :data:`LOSS_OLD`.

A zeroing move into a position lost for the opponent under the rule wins in 1 ply; one
into a blessed loss for the opponent wins at 101 (a cursed win), as the Syzygy generator
counts it. A DTZ past 100 plies is a cursed win or a blessed loss.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from tablebase.core.values import DRAW, LOSS, WIN

ABSENT, DRAWN, UNKNOWN, CHANGED, CAPT_DRAW, CAPT_CLOSS, CAPT_CWIN, WIN_OLD, LOSS_OLD = range(9)
WIN0 = 9
"""The code of a win at the window's base level."""
LEVELS = 123
"""The levels a window holds for wins and for losses."""
LOSS0 = WIN0 + LEVELS
"""The code of a loss at the window's base level."""

CURSED_CAPTURE_PLIES = 101
"""DTZ of a win by a zeroing move into a blessed loss, and the least DTZ of a loss whose
best zeroing move leads to a cursed win: one ply past the rule's 100."""


@dataclass(frozen=True)
class Window:
    """Which DTZ levels the codes of one table hold: ``base`` to ``base + levels - 1``
    for wins and for losses; ``levels`` at most :data:`LEVELS` (fewer in tests, to make
    the pass slide its window often)."""

    base: int = 0
    levels: int = LEVELS

    def win(self, plies: int) -> int:
        """The code of a win in ``plies``.

        :raises ValueError: if ``plies`` is outside the window."""
        return WIN0 + self._offset(plies)

    def loss(self, plies: int) -> int:
        """The code of a loss in ``plies``.

        :raises ValueError: if ``plies`` is outside the window."""
        return LOSS0 + self._offset(plies)

    def holds(self, plies: int) -> bool:
        """Whether ``plies`` has a code in this window."""
        return self.base <= plies < self.base + self.levels

    def _offset(self, plies: int) -> int:
        if not self.holds(plies):
            raise ValueError(f"{plies} plies is outside the window from {self.base}")
        return plies - self.base


@njit(cache=True, nogil=True)
def decode_codes(codes, base, outcome, dtz, older):
    """Outcome (int8[n]: win, draw, loss, or -2 for a key that is no position) and
    signed DTZ (int16[n], plies; 0 for a draw) of uint8[n] ``codes`` of a window from
    ``base``; where a code is :data:`WIN_OLD` or :data:`LOSS_OLD` ``older[i]`` is set
    (bool[n]) and the values are left for an earlier snapshot."""
    for i in range(len(codes)):
        code = codes[i]
        older[i] = False
        dtz[i] = 0
        if code == ABSENT:
            outcome[i] = -2
        elif code >= LOSS0:
            outcome[i] = LOSS
            dtz[i] = -(code - LOSS0 + base)
        elif code >= WIN0:
            outcome[i] = WIN
            dtz[i] = code - WIN0 + base
        elif code == WIN_OLD or code == LOSS_OLD:
            older[i] = True
        else:
            outcome[i] = DRAW
