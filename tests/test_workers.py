"""Worker processes: results in order, errors and dead workers reported in the caller;
the same batches on an executor's workers (:class:`RemoteWorkers`)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

from tablebase.core.errors import GameError
from tablebase.solve.graph import ExitMoves
from tablebase.solve.registry import load_game
from tablebase.solve.workers import RemoteWorkers, Workers, narrowed, payload_bytes, widened
from tablebase.util.interrupt import Interrupted, interruptible


def double(_game, keys):
    return keys * 2


def fail_on_seven(_game, keys):
    if 7 in keys:
        raise GameError("seven is not allowed")
    return keys


def die(_game, keys):
    os._exit(3)


GAME = load_game("subtraction", {})
BATCHES = [np.arange(start, start + 3) for start in range(0, 30, 3)]


def slow_double(_game, keys):
    time.sleep(0.02)
    return keys * 2


_SIGNAL_AT_FORK: list[int] = []
"""The pid that signals itself at its next fork (once), if any."""


def _signal_at_fork() -> None:
    if _SIGNAL_AT_FORK and _SIGNAL_AT_FORK[0] == os.getpid():
        _SIGNAL_AT_FORK.clear()
        os.kill(os.getpid(), signal.SIGINT)  # the handler runs in this at-fork callback, where Python drops exceptions


os.register_at_fork(before=_signal_at_fork)


def test_a_signal_while_the_workers_are_forked_stops_at_once_and_leaves_none():
    """SIGINT as a worker is forked is raised once the workers are tracked: the map
    stops before its first result (not after its last) and no worker is left."""
    batches = [np.arange(start, start + 3) for start in range(0, 600, 3)]  # 2 s of work with two workers
    results = []
    _SIGNAL_AT_FORK.append(os.getpid())
    with pytest.raises(Interrupted), interruptible(), Workers(GAME, 2) as workers:
        for result in workers.map(slow_double, batches):
            results.append(result)
    assert results == [] and not _SIGNAL_AT_FORK
    assert multiprocessing.active_children() == []


def test_results_come_back_in_order_with_one_or_two_workers():
    for count in (1, 2):
        with Workers(GAME, count) as workers:
            assert [r.tolist() for r in workers.map(double, BATCHES)] == [(b * 2).tolist() for b in BATCHES]


def test_an_error_in_a_worker_is_raised_in_the_caller():
    with Workers(GAME, 2) as workers, pytest.raises(GameError, match="seven"):
        list(workers.map(fail_on_seven, BATCHES))


def test_a_dead_worker_is_a_clean_error_not_a_hang():
    with Workers(GAME, 2) as workers, pytest.raises(GameError, match="worker process died"):
        list(workers.map(die, BATCHES))


def test_an_executor_generates_the_batches_in_order_and_counts_the_bytes():
    with ProcessPoolExecutor(2) as executor:
        remote = RemoteWorkers(executor, slots=2)
        with Workers(GAME, remote) as workers:
            results = list(workers.map(double, BATCHES))
    assert [r.tolist() for r in results] == [(b * 2).tolist() for b in BATCHES]
    assert {r.dtype for r in results} == {np.dtype(np.int64)}
    assert remote.sent == remote.received == sum(batch.nbytes for batch in BATCHES) // 2  # sent as int32


def test_arrays_narrowed_for_the_way_come_back_equal_with_their_dtypes():
    big = np.array([0, 2**31, -1], dtype=np.int64)  # does not fit in int32
    small = np.array([-(2**31), 2**31 - 1], dtype=np.int64)
    exits = ExitMoves(small, np.zeros(0, dtype=np.int64), big)
    value = (small, [big, np.arange(3, dtype=np.int8)], exits)
    assert payload_bytes(narrowed(value)) == payload_bytes(value) - small.nbytes  # small twice, each halved
    back = widened(narrowed(value))
    for mine, theirs in zip([back[0], *back[1], back[2].src, back[2].table, back[2].key],
                            [small, big, value[1][1], small, exits.table, big]):
        assert mine.dtype == theirs.dtype
        np.testing.assert_array_equal(mine, theirs)


STARTED = []
RELEASE = threading.Event()


def wait_for_release(_game, keys):
    STARTED.append(keys)
    if keys[0] > 0:
        RELEASE.wait(10)
    return keys


def test_leaving_early_cancels_the_batches_not_yet_run():
    STARTED.clear()
    RELEASE.clear()
    with ThreadPoolExecutor(1) as executor:  # four batches in flight: one done, one running, two queued
        with pytest.raises(GameError, match="stop"), Workers(GAME, RemoteWorkers(executor, slots=2)) as workers:
            for _ in workers.map(wait_for_release, BATCHES):
                raise GameError("stop")
        RELEASE.set()
    assert len(STARTED) <= 2  # the queued ones were cancelled (one may have started)
