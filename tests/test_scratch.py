"""Scratch files (tablebase/solve/scratch.py): what is spilled reads back the same, in
any slice, and room reserved reads as zeros until written."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase.solve import scratch as scratch_module
from tablebase.solve.retrograde.state import STATE_DTYPE
from tablebase.solve.scratch import ALIGN, Scratch


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-(2**15), 2**15 - 1), max_size=300), st.integers(1, 50), st.data())
def test_a_spilled_array_reads_back_in_any_slice(values, chunk, data):
    array = np.array(values, dtype=np.int16)
    with Scratch() as scratch:
        scratch.put(np.zeros(7, dtype=np.int8))  # not at the file's start
        spilled = scratch.put(array, chunk=chunk)
        start = data.draw(st.integers(0, len(array)))
        stop = data.draw(st.integers(start, len(array)))
        np.testing.assert_array_equal(spilled[start:stop], array[start:stop])
        np.testing.assert_array_equal(spilled.load(), array)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 40_000), st.sampled_from(["i1", "i2", "records"]), st.integers(0, 9), st.data())
def test_arrays_written_around_the_page_cache_read_back_in_any_slice(length, kind, before, data):
    # Every array direct (where the file system takes it), the buffer eight blocks, so an
    # array takes several aligned writes and reads, after an array of odd length.
    rng = np.random.default_rng(length)
    records = np.frombuffer(rng.bytes(4 * length), dtype=STATE_DTYPE)
    values = records["remoteness"] if kind == "i2" else records if kind == "records" else records["outcome"]  # strided views
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scratch_module, "DIRECT_BYTES", 1)
        patch.setattr(scratch_module, "CHUNK_BYTES", 8 * ALIGN)
        with Scratch() as scratch:
            first = scratch.put(np.arange(before, dtype=np.int8))
            spilled = scratch.put(values)
            after = scratch.put(np.arange(5, dtype=np.int64))
            if scratch._reads is not None and length:  # this disk takes direct I/O: it was used
                assert spilled._direct
            start = data.draw(st.integers(0, length))
            stop = data.draw(st.integers(start, length))
            assert spilled[start:stop].tobytes() == values[start:stop].tobytes()
            assert spilled.load().tobytes() == values.tobytes()
            np.testing.assert_array_equal(first.load(), np.arange(before))
            np.testing.assert_array_equal(after.load(), np.arange(5))


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 200), st.lists(st.tuples(st.integers(0, 199), st.integers(1, 20)), max_size=10))
def test_reserved_records_are_zero_until_written_in_runs(length, runs):
    expected = np.zeros(length, dtype=STATE_DTYPE)
    with Scratch() as scratch:
        scratch.put(np.ones(3, dtype=np.int64))
        reserved = scratch.reserve(STATE_DTYPE, length)
        after = scratch.put(np.arange(5, dtype=np.int32))
        for start, size in runs:
            if start + size > length:
                continue
            part = np.zeros(size, dtype=STATE_DTYPE)
            part["outcome"], part["counter"], part["remoteness"] = -1, start % 200, np.arange(size) - start
            reserved.write(start, part)
            expected[start : start + size] = part
        assert reserved.load().tobytes() == expected.tobytes()
        np.testing.assert_array_equal(after.load(), np.arange(5))
        with pytest.raises(ValueError, match="past the end"):
            reserved.write(length, np.zeros(1, dtype=STATE_DTYPE))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.lists(st.tuples(st.booleans(), st.integers(0, 6 * 1024), st.integers(1, 3 * 1024)), max_size=8))
def test_reserved_records_written_in_aligned_runs_go_around_the_page_cache(blocks, runs):
    # Runs of whole aligned blocks (1,024 records) go around the page cache, through a
    # buffer of two blocks; the other runs through it; both read back alike, in order.
    length = blocks * 1024
    per = ALIGN // STATE_DTYPE.itemsize
    expected = np.zeros(length, dtype=STATE_DTYPE)
    went_direct = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scratch_module, "CHUNK_BYTES", 2 * ALIGN)
        direct_write = Scratch.write_direct
        patch.setattr(Scratch, "write_direct", lambda self, *a: went_direct.append(direct_write(self, *a)) or went_direct[-1])
        with Scratch() as scratch:
            scratch.put(np.ones(3, dtype=np.int64))
            reserved = scratch.reserve(STATE_DTYPE, length)
            for aligned, start, size in runs:
                if aligned:
                    start, size = start // per * per, -(-size // per) * per
                if start + size > length:
                    continue
                part = np.frombuffer(np.random.default_rng(start).bytes(4 * size), dtype=STATE_DTYPE)
                reserved.write(start, part)
                if scratch._reads is not None:  # this disk takes direct I/O
                    assert went_direct.pop() == (start % per == 0 and size % per == 0)
                expected[start : start + size] = part
            reserved.write(0, expected[:0])  # nothing to write: nothing written
            assert reserved.load().tobytes() == expected.tobytes()
