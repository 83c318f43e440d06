"""The block CSV writer of exports writes, byte for byte, what the standard library's
``csv.writer`` writes of the same rows: quoting, doubled quotes, UTF-8, empty fields,
negative and extreme integers."""

from __future__ import annotations

import csv
import io

import numpy as np

from tablebase.tools.csv_text import csv_rows, number_cells, text_cells, word_cells

HOSTILE = ["", "plain", "x,y", 'say "hi"', "two\nlines", "cr\rhere", "crlf\r\n", "é, ü", " spaced ", '"', ",", "8/8 w - - 0 1"]
EXTREMES = [0, 1, -1, 9, 10, -10, 99, -100, 123456789, np.iinfo(np.int64).min, np.iinfo(np.int64).max]


def standard(rows) -> bytes:
    text = io.StringIO(newline="")
    csv.writer(text).writerows(rows)
    return text.getvalue().encode("utf-8")


def test_rows_are_those_of_the_standard_csv_writer():
    rng = np.random.default_rng(7)
    values = np.concatenate([np.array(EXTREMES, dtype=np.int64), rng.integers(-(10**18), 10**18, 500)])
    present = rng.random(len(values)) < 0.8
    present[: len(EXTREMES)] = True
    texts = [HOSTILE[i] for i in rng.integers(0, len(HOSTILE), len(values))]
    words = ["loss", "dr,aw", "wïn"]
    index = rng.integers(0, len(words), len(values))
    got = csv_rows([number_cells(values, present), text_cells(texts), word_cells(words, index), number_cells(values)])
    expected = standard(
        zip([v if p else "" for v, p in zip(values.tolist(), present.tolist())], texts, [words[i] for i in index], values.tolist())
    )
    assert got.tobytes() == expected


def test_one_column_and_no_rows():
    assert csv_rows([text_cells(["key"])]).tobytes() == b"key\r\n"
    empty = np.zeros(0, dtype=np.int64)
    assert csv_rows([number_cells(empty), text_cells([]), word_cells(["win"], empty)]).tobytes() == b""
