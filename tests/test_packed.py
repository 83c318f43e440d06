"""The packed storage layout: chunk encoding, probes across chunks, damaged chunks."""

from __future__ import annotations

import sqlite3
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase.core.errors import StoreError
from tablebase.store import Storing, open_store, packed
from tablebase.store.packed import (
    CHUNK_POSITIONS,
    decode_codes,
    encode_codes,
    extra_codes,
    extra_value_of,
    extra_values,
    pack_array,
    split_codes,
    unpack_array,
    value_codes,
)


def encode_chunk(keys: np.ndarray, outcome: np.ndarray, remoteness: np.ndarray) -> tuple[int, bytes, bytes]:
    """One chunk's row of values, as :func:`encode_codes` of their :func:`value_codes`."""
    return encode_codes(keys, value_codes(outcome, remoteness))


def decode_chunk(first_key: int, key_deltas: bytes, codes: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inverse of :func:`encode_chunk`: ``(keys, outcome, remoteness)``."""
    keys, values = decode_codes(first_key, key_deltas, codes)
    return (keys, *split_codes(values))


@st.composite
def chunks(draw):
    """Distinct ascending keys anywhere in [0, 2**63) with random values."""
    keys = sorted(set(draw(st.lists(st.integers(0, 2**63 - 1), min_size=1, max_size=60))))
    n = len(keys)
    outcome = draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=n, max_size=n))
    remoteness = draw(st.lists(st.integers(-1, 2**31 - 1), min_size=n, max_size=n))
    return np.array(keys, np.int64), np.array(outcome, np.int8), np.array(remoteness, np.int32)


@settings(max_examples=200, deadline=None)
@given(chunks())
def test_a_chunk_decodes_to_what_was_encoded(chunk):
    keys, outcome, remoteness = chunk
    decoded = decode_chunk(*encode_chunk(keys, outcome, remoteness))
    for got, wanted in zip(decoded, chunk):
        assert got.dtype == wanted.dtype
        np.testing.assert_array_equal(got, wanted)


def test_packed_arrays_use_the_narrowest_width_little_endian():
    """The format, built by hand: a width byte, then zlib of little-endian integers."""
    assert pack_array(np.array([1, 255])) == b"\x01" + zlib.compress(bytes([1, 255]), 1)
    assert pack_array(np.array([256])) == b"\x02" + zlib.compress(bytes([0, 1]), 1)
    assert pack_array(np.array([2**32])) == b"\x08" + zlib.compress((2**32).to_bytes(8, "little"), 1)
    assert unpack_array(b"\x04" + zlib.compress((70000).to_bytes(4, "little"))).tolist() == [70000]


def test_value_codes_follow_the_documented_formula():
    """code = (remoteness + 1) * 3 + outcome + 1, remoteness -1 for none."""
    _first, _deltas, codes = encode_chunk(
        np.array([3, 4, 9], np.int64), np.array([1, 0, -1], np.int8), np.array([5, -1, 0], np.int32)
    )
    assert unpack_array(codes).tolist() == [6 * 3 + 2, 0 * 3 + 1, 1 * 3 + 0]


@pytest.mark.parametrize("blob", [b"", b"\x03abc", b"\x01not zlib"])
def test_damaged_blobs_are_refused(blob):
    with pytest.raises((ValueError, zlib.error)):
        unpack_array(blob)


def test_probes_across_many_chunks_agree_with_the_written_arrays(tmp_path, monkeypatch):
    monkeypatch.setattr(packed, "CACHED_POSITIONS", 2 * CHUNK_POSITIONS)  # chunks get evicted
    rng = np.random.default_rng(3)
    keys = np.unique(rng.integers(0, 2**40, size=3 * CHUNK_POSITIONS + 17))
    outcome = rng.integers(-1, 2, size=len(keys)).astype(np.int8)
    remoteness = rng.integers(-1, 300, size=len(keys)).astype(np.int32)
    with open_store(tmp_path / "tb.sqlite") as store:
        row = store.begin_build("test", "{}", "test")
        store.write(row, keys, outcome, remoteness, batch_size=CHUNK_POSITIONS + 5)
        read = store.read_values(row)
        for got, wanted in zip(read, (keys, outcome, remoteness)):
            np.testing.assert_array_equal(got, wanted)
        picks = rng.choice(len(keys), size=200, replace=False)
        absent = [int(keys[0]) - 1, int(keys[-1]) + 1, int(keys[5]) + 1]
        probed = store.probe(row, [int(keys[i]) for i in picks] + absent)
        assert store.probe(row, [int(keys[i]) for i in picks]) == probed
    expected = {
        int(keys[i]): (int(outcome[i]), int(remoteness[i]) if remoteness[i] >= 0 else None) for i in picks
    }
    assert probed == expected


@pytest.mark.parametrize("layout", ["packed", "blocks"])
def test_a_damaged_chunk_is_a_store_error_not_a_crash(tmp_path, layout):
    db = tmp_path / "tb.sqlite"
    with open_store(db, storing=Storing(layout=layout)) as store:
        row = store.begin_build("test", "{}", "test")
        store.write(row, np.arange(10, dtype=np.int64), np.zeros(10, np.int8), np.zeros(10, np.int32))
        row = store.complete(row, np.zeros(10, np.int8), np.zeros(10, np.int32), 0.0)
    with sqlite3.connect(db) as connection:
        connection.execute(f"UPDATE {row.table_name} SET codes = x'01deadbeef'")
    with open_store(db) as store:
        with pytest.raises(StoreError, match="damaged"):
            store.probe(row, [3])
        with pytest.raises(StoreError, match="damaged"):
            store.read_values(row)


def test_an_unknown_layout_is_refused(tmp_path):
    with pytest.raises(StoreError, match="unknown storage layout"):
        open_store(tmp_path / "tb.sqlite", storing=Storing(layout="columns"))


def test_packed_writes_must_come_in_ascending_key_order(tmp_path):
    with open_store(tmp_path / "tb.sqlite") as store:
        row = store.begin_build("test", "{}", "test")
        zeros = np.zeros(3, np.int8), np.zeros(3, np.int32)
        store.write(row, np.array([0, 2, 4], np.int64), *zeros)
        with pytest.raises(StoreError, match="ascending"):
            store.write(row, np.array([1, 3, 5], np.int64), *zeros)
        store.write(row, np.array([5, 6, 7], np.int64), *zeros)
        assert store.read_values(row)[0].tolist() == [0, 2, 4, 5, 6, 7]
        assert store.probe(row, [2**63, 2**70, -1, 4]) == {4: (0, 0)}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-(2**40), 2**40), st.booleans()), max_size=40))
def test_grundy_values_and_scores_round_trip_through_their_codes(pairs):
    values = np.array([v for v, _k in pairs], dtype=np.int64)
    known = np.array([k for _v, k in pairs], dtype=bool)
    codes = extra_codes(values, known)
    assert (codes >= 0).all()
    back, back_known = extra_values(codes)
    assert back_known.tolist() == known.tolist()
    assert back[known].tolist() == values[known].tolist()
    assert [extra_value_of(code) for code in codes.tolist()] == [v if k else None for v, k in pairs]
