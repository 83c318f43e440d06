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

MAX_PIECES = 6
"""The largest tablebases supported, kings included (six pieces solve by the one-byte
DTZ pass, :mod:`tablebase.solve.bytepass`, without pawns)."""


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


def default_metric(material: str, dtz_alone_from: int) -> str:
    """The metric of a table that names none: ``dtz`` (WDL and DTZ, what Syzygy stores)
    for an ending of at least ``dtz_alone_from`` pieces, else ``both`` (DTZ and DTM); a
    collection (``all5``) or any other name without piece letters counts no pieces."""
    pieces = sum(letter in PIECES for letter in material)
    return "dtz" if pieces >= dtz_alone_from else "both"


INSUFFICIENT = ("KvK", "KBvK", "KNvK")
"""Endings in which no mate is possible at all: every position is a draw."""

PIECE_VALUES = {"K": 0, "Q": 9, "R": 5, "B": 3, "N": 3, "P": 1}
"""The textbook values of the pieces, in pawns."""


QUEEN_WORK = 0.25
"""How much more a retrograde pass's work on decided positions each queen makes (its
un-moves): KQvKR, KQRvK, KQQvK, KQQvKQ and KQRvKR took 6 to 54% longer than the
endings of as many keys and decided positions without queens (benchmarks/RESULTS.md)."""


def decided_share(first: str, second: str) -> float:
    """About what share of an ending's positions are won or lost, from its sides (as
    :func:`parse_material` gives them), by a rough rule of material: 0 when neither side
    can force mate with what it has (a lone minor piece, or two knights), 0.9 when a side
    that can leads by four pawns or more or faces a bare king, else 0.3. Measured (this
    project's builds and the Syzygy generator's statistics, ``shared/oracle``): 0.87 to
    1.00 for KQvKR, KQvKN, KRvKP, KRPvK, KQQvKQ 0.80, KPvK 0.67; KBBvK 0.45 (bishops of one
    colour draw); 0.18 to 0.42 for KRvKB, KRvKN, KRvKR, KQvKQ, KRBvKR, KBBvKN, KNvKP, and
    KRPvKR 0.56, KPvKP 0.67."""
    def can_mate(side: str) -> bool:
        pieces = side[1:]
        return any(piece in pieces for piece in "QRP") or (len(pieces) >= 2 and pieces != "NN")

    if not can_mate(first) and not can_mate(second):
        return 0.0
    lead = sum(PIECE_VALUES[piece] for piece in first) - sum(PIECE_VALUES[piece] for piece in second)
    leader, other = (first, second) if lead >= 0 else (second, first)
    return 0.9 if can_mate(leader) and (abs(lead) >= 4 or other == "K") else 0.3


def decided_work(first: str, second: str) -> float:
    """About how much of a retrograde pass's work an ending's decided positions make,
    relative to an ending of unlike pieces without queens whose positions are all
    decided (:meth:`~tablebase.core.game.Game.decided_work`): :func:`decided_share`,
    :data:`QUEEN_WORK` more for each queen (like pieces need no weight of their own:
    their digit numbers their squares as a combination, one key a position)."""
    return decided_share(first, second) * (1 + QUEEN_WORK * (first + second).count("Q"))
