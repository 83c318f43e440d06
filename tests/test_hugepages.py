"""The huge-page allocator of the one-byte pass's codes."""

import mmap

import numpy as np
import pytest

from tablebase.util.hugepages import HUGE_PAGE, huge_zeros


@pytest.mark.parametrize("count", [0, 1, 4097, 3 * HUGE_PAGE + 5])
def test_an_array_on_huge_pages_is_zeroed_and_writable_at_its_size(count):
    array = huge_zeros(count, np.uint8)
    assert array.shape == (count,) and array.dtype == np.uint8
    assert not array.any()
    array[:] = 7
    assert int(array.sum()) == 7 * count


def test_a_wider_dtype_counts_elements_not_bytes():
    array = huge_zeros(HUGE_PAGE // 2 + 3, np.int64)
    assert array.shape == (HUGE_PAGE // 2 + 3,) and array.nbytes == 8 * (HUGE_PAGE // 2 + 3)
    array[-1] = -5
    assert array[-1] == -5 and not array[:-1].any()


@pytest.mark.skipif(not hasattr(mmap, "MADV_HUGEPAGE"), reason="no transparent huge pages on this platform")
def test_the_mapping_is_advised_to_huge_pages(monkeypatch):
    advised = []
    real = mmap.mmap

    class Watched(real):
        def madvise(self, option, *args):
            advised.append(option)
            return super().madvise(option, *args)

    monkeypatch.setattr(mmap, "mmap", Watched)
    huge_zeros(2 * HUGE_PAGE)
    huge_zeros(HUGE_PAGE // 2)  # below one huge page: no advice
    assert advised == [mmap.MADV_HUGEPAGE]
