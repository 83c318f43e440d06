"""Dependencies as a pass reads them: over the index space (IndexedTable), read from the
store a chunk at a time, against the arrays written and the sorted form (StoredTable)."""

from __future__ import annotations

import numpy as np
import pytest

from tablebase.core.batches import KeyWindow
from tablebase.core.errors import GameError
from tablebase.core.values import StoredKind
from tablebase.solve.tables import IndexedTable, StoredTable
from tablebase.store import Storing, open_store
from tablebase.store.packed import CHUNK_POSITIONS


def written(rng, size, count, top):
    """Random values of ``count`` keys below ``size``, remoteness below ``top``."""
    keys = np.sort(rng.choice(size, size=count, replace=False)).astype(np.int64)
    outcome = rng.integers(-1, 2, size=count).astype(np.int8)
    remoteness = rng.integers(-1, top, size=count).astype(np.int32)
    dtz = rng.integers(-300, 300, size=count).astype(np.int64)
    return keys, outcome, remoteness, dtz


@pytest.mark.parametrize("layout", ["packed", "rows"])
@pytest.mark.parametrize("kind", [StoredKind.WDL, StoredKind.DTZ])
def test_an_indexed_table_gives_the_values_written(tmp_path, layout, kind):
    rng = np.random.default_rng(5)
    size = 5 * CHUNK_POSITIONS
    keys, outcome, remoteness, dtz = written(rng, size, 2 * CHUNK_POSITIONS + 7, 40)
    with open_store(tmp_path / "tb.sqlite", storing=Storing(layout=layout)) as store:
        row = store.begin_build("test", "{}", "test", kind)
        store.write(row, keys, outcome, remoteness, extra=dtz if kind == StoredKind.DTZ else None)
        parts = list(store.read_parts(row, extra=kind == StoredKind.DTZ))
        table = IndexedTable.gather(size, store.read_parts(row, extra=kind == StoredKind.DTZ), kind == StoredKind.DTZ)
    assert layout == "rows" or len(parts) > 1
    sorted_table = StoredTable(keys, outcome, remoteness, None, dtz if kind == StoredKind.DTZ else None)
    picks = rng.permutation(keys)[:500]
    at, sorted_at = table.find(picks), sorted_table.find(picks)
    np.testing.assert_array_equal(table.outcome[at], outcome[sorted_at])
    np.testing.assert_array_equal(table.remoteness[at], remoteness[sorted_at])
    if kind == StoredKind.DTZ:
        np.testing.assert_array_equal(table.dtz[at], dtz[sorted_at])
    else:
        assert table.dtz is None
    # 3 outcomes x 41 remoteness: one byte a key; times 600 DTZ values: two
    assert table.numbers.dtype == (np.uint16 if kind == StoredKind.DTZ else np.uint8)
    absent = np.setdiff1d(np.arange(size), keys)[:3]
    with pytest.raises(GameError, match=f"key {absent[0]}"):
        table.find(absent)


def test_a_table_of_few_values_takes_a_byte_a_key():
    keys = np.arange(0, 1000, 3, dtype=np.int64)
    parts = [(keys, np.ones(len(keys), np.int8), (keys % 200).astype(np.int32))]
    table = IndexedTable.gather(1000, parts, dtz=False)
    assert table.numbers.dtype == np.uint8 and table.numbers.nbytes == 1000
    assert table.remoteness[table.find(keys)].tolist() == (keys % 200).tolist()


def test_more_values_than_two_bytes_number_leave_the_sorted_form():
    keys = np.arange(70_000, dtype=np.int64)
    parts = [(keys, np.zeros(len(keys), np.int8), keys.astype(np.int32))]
    assert IndexedTable.gather(len(keys), parts, dtz=False) is None


@pytest.mark.parametrize("unit, low", [(1, 0), (6, 56), (6 * 64, 8)])
def test_a_window_keeps_its_keys_alone_with_their_values(unit, low):
    """Read over a window (a chess promotion's last rank: one digit of the key in eight
    of 64 values), a table gives every key inside the values written, in an eighth of
    the bytes, and refuses a key outside."""
    window = KeyWindow(unit, 64, low, 8)
    size = unit * 64 * 64
    keys = np.arange(size, dtype=np.int64)
    numbers = window.compact(keys[window.contains(keys)])
    assert numbers.tolist() == list(range(window.size(size)))  # key order, no gaps
    rng = np.random.default_rng(7)
    _keys, outcome, remoteness, _dtz = written(rng, size, size, 30)
    table = IndexedTable.gather(size, [(keys, outcome, remoteness)], dtz=False, window=window)
    assert table.numbers.nbytes == size // 8
    inside = rng.permutation(keys[window.contains(keys)])[:500]
    at = table.find(inside)
    np.testing.assert_array_equal(table.outcome[at], outcome[inside])
    np.testing.assert_array_equal(table.remoteness[at], remoteness[inside])
    outside = keys[~window.contains(keys)][:3]
    with pytest.raises(GameError, match=f"key {outside[0]}, outside the keys its moves can reach"):
        table.find(outside)
