"""Where the moves that leave a variant's ending lead: the ending and its canonical keys,
from the squares after each move and its code (:func:`~tablebase.generators.variants.kernels.exit_code`)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from tablebase.generators.chess.material import PIECES, normal_form, sort_side
from tablebase.generators.variants.layout import VariantLayout
from tablebase.generators.variants.material import ENDED


class Destination(NamedTuple):
    """The ending one exit code leads into.

    :ivar material: its normal-form name, or :data:`~tablebase.generators.variants.material.ENDED`.
    :ivar order: int64[k] the slots of this layout that stand on its slots 0..k-1.
    :ivar swapped: whether its colours are this layout's reversed (squares mirrored by rank).
    """

    material: str
    order: np.ndarray
    swapped: bool


def split_code(code: int) -> tuple[int, int, int]:
    """``(gone, slot, promotion)`` of an exit code: the bits of the slots gone, the
    promoting slot, and its new piece code or -1."""
    return code >> 6, (code >> 3) & 7, (code & 7) - 1


def destination(layout: VariantLayout, code: int, royal: bool) -> Destination:
    """The ending a move of ``code`` leads into from ``layout``'s: :data:`ENDED` where a
    side has lost its king (``royal``, atomic) or every piece (antichess)."""
    gone, promoter, promotion = split_code(code)
    kept = [s for s in range(layout.count) if not gone >> s & 1]
    letters = {s: (PIECES[promotion] if promotion >= 0 and s == promoter else layout.types[s]) for s in kept}
    sides = [sort_side("".join(letters[s] for s in kept if layout.colours[s] == colour)) for colour in (0, 1)]
    if (royal and any(side.count("K") != 1 for side in sides)) or not all(sides):
        return Destination(ENDED, np.zeros(0, np.int64), False)
    first, second, swapped = normal_form(*sides)
    order = []
    for colour in (1, 0) if swapped else (0, 1):
        side = [s for s in kept if layout.colours[s] == colour]
        order += sorted(side, key=lambda s: PIECES.index(letters[s]))
    return Destination(f"{first}v{second}", np.array(order, dtype=np.int64), swapped)

