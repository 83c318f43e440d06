"""Moves into other tablebases (:class:`Exits`) and their exit codes: every exit of a
position folded into one number, which
:class:`~tablebase.solve.retrograde.state.PositionState` keeps where the remoteness goes
(it says how they are made), and the compiled helpers that read a code."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from tablebase.core.values import DRAW, LOSS, WIN, code_remoteness, code_tag, pack_code


@dataclass(frozen=True)
class Exits:
    """Moves that leave the tablebase, with their successors' values known beforehand.

    :ivar src: int[k] index of each such move's position.
    :ivar outcome: int8[k] the successor's outcome, for its side to move.
    :ivar remoteness: int32[k] the successor's remoteness in plies; negative for none.
    """

    src: np.ndarray
    outcome: np.ndarray
    remoteness: np.ndarray

    @staticmethod
    def none() -> Exits:
        """No move leaves the tablebase."""
        return Exits(np.zeros(0, np.int64), np.zeros(0, np.int8), np.zeros(0, np.int32))

    def select(self, mask: np.ndarray) -> Exits:
        """The exits where ``mask`` (bool[k]) is true."""
        return Exits(self.src[mask], self.outcome[mask], self.remoteness[mask])


WIN_BY, LOSS_BY, DRAW_BY = 0, 1, 2
"""The kinds of exit codes (:class:`~tablebase.solve.retrograde.state.PositionState`)."""


_pack = njit(nogil=True, inline="always")(pack_code)
_tag = njit(nogil=True, inline="always")(code_tag)
_remoteness = njit(nogil=True, inline="always")(code_remoteness)


@njit(cache=True, nogil=True, inline="always")
def _code(kind, remoteness):
    """The exit code (:class:`~tablebase.solve.retrograde.state.PositionState`) of an exit
    of ``kind`` at ``remoteness``: one more than :func:`~tablebase.core.values.pack_code`
    of them, so that 0 is no exit."""
    return 1 + _pack(kind, remoteness)


@njit(cache=True, nogil=True, inline="always")
def _kind(code):
    """The kind of a non-zero code (:data:`WIN_BY`, :data:`LOSS_BY`, :data:`DRAW_BY`)."""
    return _tag(code - 1)


@njit(cache=True, nogil=True, inline="always")
def _reach(code):
    """The remoteness of a non-zero code's exit (-1 for a draw without one)."""
    return _remoteness(code - 1)


@njit(cache=True, nogil=True, inline="always")
def _held(value):
    """An exit code as an undecided position's remoteness holds it, ``-1 - code`` (below
    -1 for every code), and back: its own inverse."""
    return -1 - value


@njit(cache=True, nogil=True)
def _fold(codes, src, outcome, remoteness):
    """Fold each exit into its position's code: the nearest exit into a loss over
    anything else, then the nearest exit into a draw (none where one has none), then the
    farthest exit into a win."""
    for i in range(len(src)):
        p = src[i]
        kind = WIN_BY if outcome[i] == LOSS else LOSS_BY if outcome[i] == WIN else DRAW_BY
        reach = max(remoteness[i], -1)
        held = codes[p]
        if held != 0:
            was, before = _kind(held), _reach(held)
            if was == WIN_BY:
                if kind != WIN_BY or before <= reach:
                    continue
            elif was == DRAW_BY:
                if kind == LOSS_BY:
                    continue
                if kind == DRAW_BY and (before == -1 or (reach != -1 and before <= reach)):
                    continue
            elif kind == LOSS_BY and before >= reach:
                continue
        codes[p] = _code(kind, reach)


def codes_agree(one: np.ndarray, other: np.ndarray, until: int | None = None) -> bool:
    """Whether two passes' exit codes (int arrays of n codes, 0 for no exit) give every
    position the same values at every level up to ``until`` plies (``None``: at every
    level, the codes equal). Below a level, an exit into a win or a loss of remoteness
    ``until`` or more acts as an exit into a draw (the position wins or loses past
    ``until`` by it, or not at all), and the remoteness of a draw's exit plays no part
    (a pass without draw remoteness)."""
    if until is None:
        return bool(np.array_equal(one, other))
    return bool(_agree_below(one, other, until))


@njit(cache=True, nogil=True)
def _agree_below(one, other, until):
    """:func:`codes_agree` with a level."""
    for p in range(len(one)):
        if one[p] != other[p] and _below(one[p], until) != _below(other[p], until):
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _below(code, until):
    """What a code says of the levels up to ``until``: the code, or the code of a draw's
    exit without remoteness where it is one (a win or a loss past ``until`` included)."""
    if code == 0:
        return 0
    if _kind(code) == DRAW_BY or _reach(code) >= until:
        return _code(DRAW_BY, -1)
    return code


def _widest_code(exits: Exits) -> int:
    """The largest code any of ``exits`` can fold to.

    :raises ValueError: for an exit into a win or a loss without a remoteness.
    """
    if np.any((exits.outcome != DRAW) & (exits.remoteness < 0)):
        raise ValueError("an exit into a win or a loss needs a remoteness")
    return _code(DRAW_BY, int(exits.remoteness.max()))


def fold_codes(codes: np.ndarray, exits: Exits) -> np.ndarray:
    """:meth:`~tablebase.solve.retrograde.state.PositionState.fold` into a plain array of codes (a pass that shares a
    survey but not its record), returned widened (uint8, int16, int32) where one does
    not fit.

    :raises ValueError: for an exit into a win or a loss without a remoteness.
    """
    if len(exits.src):
        widest = _widest_code(exits)
        if widest > np.iinfo(codes.dtype).max:
            codes = codes.astype(np.int16 if widest < 2**15 else np.int32)
        _fold(codes, exits.src, exits.outcome, exits.remoteness)
    return codes
