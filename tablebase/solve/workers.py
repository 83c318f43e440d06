"""Worker processes that run a game's batch API on batches of keys, one per core.

Move generation is numpy work with Python between the calls, so threads would queue on
the GIL; processes do not. The workers are forked, so they inherit the game as it is (a
plug-in's game need not be picklable); only key batches go out and results come back.
Results come back in the order the batches went out, at most a few batches ahead of the
caller, which bounds the memory they hold. Where ``fork`` is unavailable, or for one
worker or a single batch, everything runs in this process.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import chain
from typing import TypeVar

import numpy as np

from tablebase.errors import GameError
from tablebase.game import Game

Result = TypeVar("Result")
Task = Callable[[Game, np.ndarray], Result]

_GAME: Game | None = None
"""The game of this worker process (set when it starts)."""


def _start(game: Game) -> None:
    global _GAME
    _GAME = game
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle


def _run(task: Task[Result], keys: np.ndarray) -> Result:
    assert _GAME is not None, "worker started without a game"
    return task(_GAME, keys)


def default_workers() -> int:
    """One worker per core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Workers:
    """A pool of worker processes for one game, started on first use; a context manager
    that stops them.

    :param count: the number of processes (default :func:`default_workers`).
    :raises ValueError: for a count below 1.
    """

    def __init__(self, game: Game, count: int | None = None) -> None:
        if count is not None and count < 1:
            raise ValueError("the number of workers must be at least 1")
        self.game = game
        self.count = count or default_workers()
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def map(self, task: Task[Result], batches: Iterable[np.ndarray]) -> Iterator[Result]:
        """``task(game, keys)`` for each batch of keys, in order.

        :param task: a module-level function (workers receive it by reference).
        :raises GameError: if a worker process dies (killed, or out of memory).
        :raises: whatever ``task`` raises, in this process.
        """
        batches = iter(batches)
        first = list(next(batches, None) for _ in range(2))
        batches = chain((b for b in first if b is not None), batches)
        if first[1] is None or self.count == 1 or "fork" not in multiprocessing.get_all_start_methods():
            yield from (task(self.game, keys) for keys in batches)
            return
        if self._pool is None:
            context = multiprocessing.get_context("fork")
            self._pool = ProcessPoolExecutor(self.count, context, initializer=_start, initargs=(self.game,))
        pending: deque[Future[Result]] = deque()
        for keys in batches:
            pending.append(self._pool.submit(_run, task, keys))
            if len(pending) > 2 * self.count:
                yield _result(pending.popleft())
        while pending:
            yield _result(pending.popleft())


def _result(future: Future[Result]) -> Result:
    try:
        return future.result()
    except BrokenProcessPool:
        raise GameError("a move-generating worker process died (out of memory?); try --workers 1") from None
