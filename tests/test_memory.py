"""``keep_freed_memory``: memory that decoded blocks free is kept by glibc's malloc for
the next ones, not given back to the kernel and faulted in again."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tablebase.store.memory import keep_freed_memory

BATCH = textwrap.dedent(
    """
    import resource, sys
    from tablebase.store.memory import keep_freed_memory
    if sys.argv[1] == "keep":
        assert keep_freed_memory()
    def batch():  # 500 buffers of a block's size, written, then freed, as a batch probe's blocks are
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        held = [b"\\1" * 66_000 for _ in range(500)]
        del held
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    batch()
    print(batch())
    """
)


def _faults_of_a_second_batch(setting: str) -> int:
    """Page faults of a fresh process's second batch of 33 MB of buffers."""
    done = subprocess.run([sys.executable, "-c", BATCH, setting], capture_output=True, text=True, check=True, timeout=120)
    return int(done.stdout)


@pytest.mark.skipif(not keep_freed_memory(), reason="glibc's malloc only")
def test_a_second_batch_of_blocks_reuses_the_first_ones_memory():
    """8,000 pages given back and faulted in again by default; none once kept."""
    assert _faults_of_a_second_batch("default") > 4000  # what the setting is for
    assert _faults_of_a_second_batch("keep") < 400
