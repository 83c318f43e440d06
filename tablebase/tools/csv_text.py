"""CSV text a block of rows at a time, byte for byte as the standard library's
``csv.writer`` writes it (its default dialect: fields joined by commas, a field quoted
only where it holds a comma, a double quote, ``\\r`` or ``\\n``, its quotes doubled, and
rows ended by ``\\r\\n``), from whole columns: a few numpy steps and one compiled pass
(numba) per block instead of a Python step per row.

A column is given as *cells*: ``(blob, lengths)``, uint8[b] the UTF-8 bytes of its
fields one after the other and int64[n] the byte length of each. :func:`text_cells`,
:func:`number_cells` and :func:`word_cells` make them; :func:`csv_rows` joins columns
into rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

Cells = tuple[np.ndarray, np.ndarray]
"""``(blob, lengths)``: uint8[b] the fields' bytes in row order, int64[n] their lengths."""

_SPECIAL = (",", '"', "\r", "\n")
"""The characters for which ``csv.writer`` quotes a field."""


def quoted(text: str) -> str:
    """A field as ``csv.writer`` writes it: in double quotes, its quotes doubled, when it
    holds a comma, a double quote, ``\\r`` or ``\\n``; else as it is."""
    if any(special in text for special in _SPECIAL):
        return '"' + text.replace('"', '""') + '"'
    return text


def text_cells(texts: Sequence[str]) -> Cells:
    """The cells of a column of texts, quoted as :func:`quoted` says and encoded in UTF-8."""
    joined = "".join(texts)
    if any(special in joined for special in _SPECIAL):
        texts = [quoted(text) for text in texts]
        joined = "".join(texts)
    blob = joined.encode("utf-8")
    if len(blob) == len(joined):  # all ASCII: a character is a byte
        lengths = np.fromiter(map(len, texts), np.int64, len(texts))
    else:
        lengths = np.fromiter((len(text.encode("utf-8")) for text in texts), np.int64, len(texts))
    return np.frombuffer(blob, np.uint8), lengths


def number_cells(values: np.ndarray, present: np.ndarray | None = None) -> Cells:
    """The cells of a column of integers in decimal, as ``str(int)`` writes them (a minus
    sign for a negative one), empty where ``present`` (bool[n]) is false.

    :param values: integers[n] of any integer dtype up to 64 bits.
    """
    values = np.ascontiguousarray(values, dtype=np.int64)
    present = np.ones(len(values), dtype=bool) if present is None else np.ascontiguousarray(present, dtype=bool)
    return _decimal(values, present)


def word_cells(words: Sequence[str], index: np.ndarray) -> Cells:
    """The cells of a column whose field in row ``i`` is ``words[index[i]]``, quoted as
    :func:`quoted` says: outcome labels, say, or one text repeated.

    :param index: integers[n] in ``range(len(words))``.
    """
    encoded = [quoted(word).encode("utf-8") for word in words]
    width = max(map(len, encoded), default=0)
    table = np.zeros((len(words), width), dtype=np.uint8)
    for row, word in enumerate(encoded):
        table[row, : len(word)] = np.frombuffer(word, np.uint8)
    sizes = np.array([len(word) for word in encoded], dtype=np.int64)
    index = np.asarray(index, dtype=np.int64)
    used = np.arange(width) < sizes[index][:, None]  # bool[n, width]: the bytes of each row's word
    return table[index][used], sizes[index]


def csv_rows(columns: Sequence[Cells]) -> np.ndarray:
    """uint8[b]: the rows of the CSV text of ``columns`` (each the cells of n rows, one or
    more columns), every row ended by ``\\r\\n``; a buffer to write as it is."""
    blob = np.concatenate([np.asarray(cells, dtype=np.uint8) for cells, _lengths in columns])
    lengths = np.stack([np.asarray(lengths, dtype=np.int64) for _cells, lengths in columns], axis=1)
    return _joined(blob, lengths)


@njit(cache=True, nogil=True)
def _decimal(values, present):
    """:func:`number_cells` of int64[n] ``values``, bool[n] ``present``, in one pass."""
    blob = np.empty(20 * len(values), np.uint8)  # a sign and 19 digits at most
    lengths = np.zeros(len(values), np.int64)
    digits = np.empty(20, np.uint8)
    at = 0
    for row in range(len(values)):
        if not present[row]:
            continue
        start = at
        value = values[row]
        if value < 0:
            blob[at] = 45  # -
            at += 1
        count = 0
        while True:  # digits from the last; a negative value stays negative (no overflow at the least int64)
            if value >= 0:
                digit = value % 10
                value = (value - digit) // 10
            else:
                digit = -(value % -10)
                value = (value + digit) // 10
            digits[count] = 48 + digit
            count += 1
            if value == 0:
                break
        for k in range(count):
            blob[at + k] = digits[count - 1 - k]
        at += count
        lengths[row] = at - start
    return blob[:at], lengths


@njit(cache=True, nogil=True)
def _joined(blob, lengths):
    """:func:`csv_rows` of the columns' blobs concatenated (uint8[b]) and int64[n, c]
    lengths, in one pass."""
    rows, columns = lengths.shape
    cursor = np.zeros(columns, np.int64)
    for column in range(1, columns):
        cursor[column] = cursor[column - 1] + lengths[:, column - 1].sum()
    out = np.empty(len(blob) + rows * (columns + 1), np.uint8)  # c - 1 commas and \r\n a row
    at = 0
    for row in range(rows):
        for column in range(columns):
            if column:
                out[at] = 44  # ,
                at += 1
            size = lengths[row, column]
            source = cursor[column]
            for k in range(size):
                out[at + k] = blob[source + k]
            at += size
            cursor[column] = source + size
        out[at] = 13
        out[at + 1] = 10
        at += 2
    return out
