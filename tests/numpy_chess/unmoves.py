"""Chess un-moves (retro moves) for batches of positions, over the index space of a layout,
in numpy: the reference of :func:`tablebase.generators.chess.unmoves.unmoves_kernel`.

An un-move takes back the last move of the side not to move: one of its pieces steps
back to an empty square it could have come from (king and knight steps, slider lines
through empty squares, pawn un-pushes and double un-pushes). Captures and promotions
lead out of a tablebase, so they are never un-made (no un-captures, no un-promotions).
The side to move of the predecessor is the side that moved. A predecessor may be
illegal (the other king in check, kings adjacent); the engine ignores such keys, as
:meth:`tablebase.core.game.Game.predecessors` allows.

En passant (layouts with the ``ep`` bit): after a double push the position has
``ep = 1`` exactly when the capture is legal, so a position with ``ep = 1`` has only the
double un-push of the pawn just pushed, and one with ``ep = 0`` has that un-push only
where no en passant capture is legal. Every predecessor is listed with ``ep = 0`` and
``ep = 1`` (its legal form, if any, is one of them): an en passant right does not change
the other moves.
"""

from __future__ import annotations

import numpy as np

from tablebase.generators.chess.layout import NO_KEY, Layout
from tablebase.generators.chess.tables import BIT, LAST_RANK, OFF, PAWN_PUSHES
from tests.numpy_chess.moves import has_en_passant, occupancy, piece_targets


def unmoves(layout: Layout, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every un-move of int64[n] keys of a layout.

    :returns: ``(src_index, pred_key)``, int64[m] each: the move from the position of
        canonical key ``pred_key[j]`` leads to ``keys[src_index[j]]``; grouped by slot,
        not sorted; none with the kings side by side, which have no key.
    """
    stm, ep, squares = layout.decode(keys)
    mover = 1 - stm
    occupied = occupancy(squares, range(layout.count))
    double_allowed = ep == 1
    if layout.en_passant:
        plain = np.flatnonzero(ep == 0)
        double_allowed[plain] = ~has_en_passant(layout, stm[plain], squares[plain])
    else:
        double_allowed[:] = True
    rows_of, targets_of = [], []
    slots_of = []
    for slot, piece in enumerate(layout.types):
        colour = int(layout.colours[slot])
        rows = np.flatnonzero(mover == colour)
        origin = squares[rows, slot]
        if piece == "P":
            targets = _pawn_origins(colour, origin, occupied[rows], ep[rows] == 0, double_allowed[rows])
        else:
            rows = rows[ep[rows] == 0]
            origin = squares[rows, slot]
            targets = piece_targets(piece, origin, occupied[rows])
            targets = np.where((occupied[rows, None] & BIT[targets]) != 0, OFF, targets)
        at, column = np.nonzero(targets != OFF)
        rows_of.append(rows[at])
        targets_of.append(targets[at, column])
        slots_of.append(np.full(len(at), slot, dtype=np.int64))
    rows = np.concatenate(rows_of)
    after = squares[rows]
    after[np.arange(len(rows)), np.concatenate(slots_of)] = np.concatenate(targets_of)
    parent_stm = mover[rows]
    zero = np.zeros(len(rows), dtype=np.int64)
    if layout.en_passant:
        rows = np.concatenate([rows, rows])
        pred = np.concatenate([layout.canonical_keys(parent_stm, zero + bit, after) for bit in (0, 1)])
    else:
        pred = layout.canonical_keys(parent_stm, zero, after)
    placed = pred != NO_KEY  # a king taken back beside the other has no key
    return rows[placed], pred[placed]


def _pawn_origins(
    colour: int, square: np.ndarray, occupied: np.ndarray, single: np.ndarray, double: np.ndarray
) -> np.ndarray:
    """int64[n, 2]: where a pawn of ``colour`` on ``square`` came from by a push and by
    a double push (:data:`OFF` where it cannot have), through empty squares, where
    bool[n] ``single`` and ``double`` allow each."""
    back = PAWN_PUSHES[1 - colour, square]  # one step towards its own side
    free = (back != OFF) & ((occupied & BIT[back]) == 0)
    push = np.where(free & single & ~LAST_RANK[1 - colour, back], back, OFF)
    home = PAWN_PUSHES[1 - colour, back]
    fourth = (square >> 3) == (3 if colour == 0 else 4)
    free_home = (home != OFF) & ((occupied & BIT[home]) == 0)
    double_push = np.where(free & free_home & fourth & double, home, OFF)
    return np.column_stack([push, double_push])
