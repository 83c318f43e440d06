"""Material balances of the chess variants, named as the Syzygy generator names their
tables: atomic's as standard chess's (``KQvKR``: one king a side), antichess's without a
king requirement (``BvN``, ``KRvK``, ``RRvN``: a king is an ordinary piece). The normal
form is standard chess's (:func:`~tablebase.generators.chess.material.normal_form`).

:data:`ENDED` names the one position that a move ends the game into: the side to move's
king exploded (atomic) or its last piece taken (antichess).
"""

from __future__ import annotations

from itertools import combinations_with_replacement, product

from tablebase.core.errors import ParameterError
from tablebase.generators.chess.material import PIECES, build_order, normal_form

MAX_PIECES = 5
"""The largest endings of a variant, kings included."""

ENDED = "ended"
"""The material name of the position after a move that wins at once: its side to move
has no king (atomic) or no piece (antichess)."""


def parse_variant_material(text: str, royal: bool) -> tuple[str, str]:
    """The normal form of a variant's material name, as ``(first side, second side)``.

    :param royal: whether each side has exactly one king (atomic), else any pieces
        (antichess), at least one a side.
    :raises ParameterError: unless the text is two sides joined by ``v`` of pieces among
        K Q R B N P, at most :data:`MAX_PIECES` in all.
    """
    sides = text.strip().upper().split("V")
    if len(sides) != 2 or not all(sides):
        example = "KQvKR" if royal else "RvN"
        raise ParameterError(f"bad material {text!r}: expected two sides joined by 'v', e.g. {example}")
    bad = set("".join(sides)) - set(PIECES)
    if bad:
        raise ParameterError(f"bad material {text!r}: unknown piece {min(bad)!r}; pieces are K Q R B N P")
    if royal and any(side.count("K") != 1 for side in sides):
        raise ParameterError(f"bad material {text!r}: each side needs exactly one king")
    if len(sides[0]) + len(sides[1]) > MAX_PIECES:
        raise ParameterError(f"bad material {text!r}: at most {MAX_PIECES} pieces in all")
    first, second, _swapped = normal_form(*sides)
    return first, second


def variant_endings(max_pieces: int, royal: bool) -> list[str]:
    """Every material of 2 to ``max_pieces`` pieces of a variant in normal form, fewest
    pieces and pawns first (:func:`~tablebase.generators.chess.material.build_order`).

    >>> variant_endings(3, royal=True)
    ['KvK', 'KQvK', 'KRvK', 'KBvK', 'KNvK', 'KPvK']
    """
    names = set()
    kinds = PIECES[1:] if royal else PIECES
    base = 2 if royal else 0
    for extra in range(max(0, 2 - base), max_pieces - base + 1):
        for pieces in combinations_with_replacement(kinds, extra):
            for owners in product((0, 1), repeat=extra):
                sides = [("K" if royal else "") + "".join(p for p, o in zip(pieces, owners) if o == side) for side in (0, 1)]
                if all(sides):
                    first, second, _swapped = normal_form(*sides)
                    names.add(f"{first}v{second}")
    return sorted(names, key=build_order)
