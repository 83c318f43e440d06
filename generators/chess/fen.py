"""FENs of many keys at once (numba ``@njit``): the batch form of
:meth:`~tablebase.generators.chess.position_api.PositionAPI.format` of
:meth:`~tablebase.generators.chess.position_api.PositionAPI.decode`, for exports of
millions of positions."""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.generators.chess.layout import WHITE, Layout


def fens(layout: Layout, keys: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The FEN of each key's position without an en passant square, as ``format`` writes
    a decoded key (no castling rights, clocks ``0 1``), and the rows whose key has the
    ``ep`` bit (their FEN here lacks the en passant square: the caller writes those).

    :param keys: int64[n] keys of ``layout``.
    :returns: ``(texts, ep_rows)``: n FENs; int64[e] the rows with the ``ep`` bit.
    """
    if len(keys) == 0:
        return [], np.zeros(0, dtype=np.int64)
    stm, ep, squares = layout.decode(np.asarray(keys, dtype=np.int64))
    letters = np.array(
        [ord(letter if colour == WHITE else letter.lower()) for letter, colour in zip(layout.types, layout.colours.tolist())],
        dtype=np.uint8,
    )
    text = _fen_kernel(stm, squares, letters).tobytes().decode("ascii")
    return text.split("\n"), np.flatnonzero(ep)


_MOST_BYTES = 71 + 11
"""The longest FEN of a row here and its line end: 8 ranks of at most 8 characters and
7 slashes, then `` w - - 0 1`` and ``\\n``."""


_CLOCKS = np.frombuffer(b" - - 0 1", np.uint8)
"""What follows the side to move: no castling rights, no en passant square, the clocks."""


@njit(cache=True, nogil=True)
def _fen_kernel(stm, squares, letters):
    """uint8[b]: the FENs of int64[n] sides to move and int64[n, slots] squares, slot
    ``s`` holding the piece letter ``letters[s]`` (uint8[slots], ASCII), separated by
    ``\\n``. A later slot on an earlier slot's square replaces its piece, as
    python-chess's ``set_piece_at`` does when a key is decoded."""
    rows, slots = squares.shape
    out = np.empty(rows * _MOST_BYTES, np.uint8)
    board = np.zeros(64, np.uint8)
    at = 0
    for row in range(rows):
        for slot in range(slots):
            board[squares[row, slot]] = letters[slot]
        for rank in range(7, -1, -1):
            empty = 0
            for file in range(8):
                piece = board[8 * rank + file]
                if piece == 0:
                    empty += 1
                    continue
                if empty:
                    out[at] = 48 + empty
                    at += 1
                    empty = 0
                out[at] = piece
                at += 1
            if empty:
                out[at] = 48 + empty
                at += 1
            if rank:
                out[at] = 47  # /
                at += 1
        for slot in range(slots):
            board[squares[row, slot]] = 0
        out[at] = 32  # " w - - 0 1" or " b - - 0 1"
        out[at + 1] = 98 if stm[row] else 119
        out[at + 2 : at + 10] = _CLOCKS
        at += 10
        if row + 1 < rows:
            out[at] = 10
            at += 1
    return out[:at]
