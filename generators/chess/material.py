"""Chess material balances named as Syzygy names its tables, e.g. ``KQvKR``.

A name is two sides joined by ``v``, each a king and its other pieces among ``Q R B N P``.
Its normal form orders each side's pieces ``K Q R B N P`` and puts the stronger side first
as Syzygy does (``normalise_tablename`` in python-chess's ``chess/syzygy.py``): the side
with more pieces, and between sides of as many pieces the one whose pieces, in that
order, compare greater by value (Q > R > B > N > P). So ``KRvKQ`` and ``kqvkr`` both
become ``KQvKR``.
"""

from __future__ import annotations

from itertools import combinations_with_replacement, product

from tablebase.core.errors import ParameterError

PIECES = "KQRBNP"
"""Piece letters in the order of value, as Syzygy orders them within a side."""

MAX_PIECES = 5
"""The largest tablebases supported, kings included."""


def sort_side(letters: str) -> str:
    """A side's pieces in :data:`PIECES` order, e.g. ``"KPQ"`` -> ``"KQP"``."""
    return "".join(sorted(letters, key=PIECES.index))


def normal_form(white: str, black: str) -> tuple[str, str, bool]:
    """``(first, second, swapped)``: the sides in Syzygy's order, and whether black's
    side came first (then the tablebase holds the position with colours reversed)."""
    white, black = sort_side(white), sort_side(black)
    weaker_white = (len(white), [PIECES.index(c) for c in black]) < (len(black), [PIECES.index(c) for c in white])
    return (black, white, True) if weaker_white else (white, black, False)


def parse_material(text: str) -> tuple[str, str]:
    """The normal form of a material name, as ``(first side, second side)``.

    >>> parse_material("krvkq")
    ('KQ', 'KR')

    :raises ParameterError: unless the text is two sides joined by ``v``, each exactly
        one king and pieces among Q R B N P, at most :data:`MAX_PIECES` pieces in all.
    """
    sides = text.strip().upper().split("V")
    if len(sides) != 2 or not all(sides):
        raise ParameterError(f"bad material {text!r}: expected two sides joined by 'v', e.g. KQvKR")
    bad = set("".join(sides)) - set(PIECES)
    if bad:
        raise ParameterError(f"bad material {text!r}: unknown piece {min(bad)!r}; pieces are K Q R B N P")
    if any(side.count("K") != 1 for side in sides):
        raise ParameterError(f"bad material {text!r}: each side needs exactly one king")
    if len(sides[0]) + len(sides[1]) > MAX_PIECES:
        raise ParameterError(f"bad material {text!r}: at most {MAX_PIECES} pieces in all, kings included")
    first, second, _swapped = normal_form(*sides)
    return first, second


def build_order(name: str) -> tuple:
    """Sort key: fewer pieces first, then fewer pawns (a promotion keeps the count but
    removes a pawn, so dependencies come first), then stronger material first."""
    return len(name) - 1, name.count("P"), [PIECES.index(c) for c in name.replace("v", "")]


def endings(max_pieces: int) -> list[str]:
    """Every material of 2 to ``max_pieces`` pieces in normal form, in :func:`build_order`.

    >>> endings(3)
    ['KvK', 'KQvK', 'KRvK', 'KBvK', 'KNvK', 'KPvK']
    """
    names = set()
    for extra in range(max_pieces - 1):
        for pieces in combinations_with_replacement(PIECES[1:], extra):
            for owners in product((0, 1), repeat=extra):
                sides = ["K" + "".join(p for p, o in zip(pieces, owners) if o == side) for side in (0, 1)]
                first, second, _swapped = normal_form(*sides)
                names.add(f"{first}v{second}")
    return sorted(names, key=build_order)


COLLECTIONS = {"all3": 3, "all4": 4, "all5": 5}
"""The collections of every ending up to 3, 4 and 5 pieces: no positions of their own."""

INSUFFICIENT = ("KvK", "KBvK", "KNvK")
"""Endings in which no mate is possible at all: every position is a draw."""
