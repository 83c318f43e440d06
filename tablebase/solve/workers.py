"""Worker processes that run a game's batch API on batches of keys, one per core.

Move generation is numpy work with Python between the calls, so threads would queue on
the GIL; processes do not. The workers are forked, so they inherit the game as it is (a
plug-in's game need not be picklable); only key batches go out and results come back.
Batches go to the workers in turn and results come back in the order the batches went
out, at most a few batches ahead of the caller, which bounds the memory they hold. Where
``fork`` is unavailable, or for one worker or a single batch, everything runs in this
process.

The batches can go to an executor's workers instead (:class:`RemoteWorkers`, such as a
``distributed.Client``'s executor, whose workers are other machines): each batch is one
task ``task(game, keys)``, at most twice the executor's slots in flight, results taken in
order, the tasks still queued cancelled when the caller stops early (an error, Ctrl-C).
The executor, not this module, runs again a task whose worker died (Dask does). On the
way, every int64 array whose values fit in int32 (indices within a batch, keys of a
small index space) travels as int32 and is widened back on arrival: the same arrays,
about half the bytes.

Each worker has two pipes of its own whose other ends only this process holds, so that
nothing is shared between workers: a worker killed mid-message breaks its own pipe, not a
queue all of them use (which is how a pool of :mod:`concurrent.futures` can hang for
good). A worker never outlives its parent: on Linux the kernel kills it when the parent
dies (``PR_SET_PDEATHSIG``), elsewhere it ends when its task pipe closes or a thread of
its own sees its parent gone. Leaving the pool on an exception (an error, Ctrl-C, SIGTERM)
kills the workers at once rather than waiting for them; a signal that arrives while they
are forked is raised once all of them are in the list that kills them
(:func:`~tablebase.util.interrupt.held`), so that none is left untracked and none loses it.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass, fields, is_dataclass, replace
from itertools import chain
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from typing import Any, TypeVar

import numpy as np

from tablebase.core.errors import GameError
from tablebase.core.game import Game
from tablebase.util.cores import usable_cores
from tablebase.util.interrupt import held

Result = TypeVar("Result")
Task = Callable[[Game, np.ndarray], Result]

_PR_SET_PDEATHSIG = 1
"""``prctl`` option of Linux: the signal this process gets when its parent dies."""
_WATCH_SECONDS = 0.2
"""How often a worker without ``PR_SET_PDEATHSIG`` checks that its parent lives."""


@dataclass
class RemoteWorkers:
    """Move generation on an executor's workers instead of local processes.

    :ivar executor: a :class:`concurrent.futures.Executor` whose tasks may run anywhere
        (a Dask client's, :func:`tablebase.build.cluster.cluster_workers`); the game and the task functions are
        pickled to it.
    :ivar slots: the tasks it runs at once (the cluster's threads); twice as many batches
        are kept in flight.
    :ivar sent: bytes of keys sent to its workers so far (the arrays' payload).
    :ivar received: bytes of results received from them so far (the arrays' payload).
    """

    executor: Executor
    slots: int
    sent: int = 0
    received: int = 0


WorkersChoice = int | RemoteWorkers | None
"""Where moves are generated: a number of local processes (``None``: one per core), or
:class:`RemoteWorkers`."""


def payload_bytes(value: object) -> int:
    """The bytes of the numpy arrays in ``value``: an array, or a tuple, list or dataclass
    of them (nested), narrowed or not (:func:`narrowed`); anything else counts 0."""
    if isinstance(value, _Narrow):
        return value.values.nbytes
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(payload_bytes(item) for item in value)
    if is_dataclass(value) and not isinstance(value, type):
        return sum(payload_bytes(getattr(value, field.name)) for field in fields(value))
    return 0


class Workers:
    """A pool of worker processes for one game, started on first use; a context manager
    that stops them (kills them, when left on an exception).

    :param count: the number of processes (default one per core, :func:`~tablebase.util.cores.usable_cores`), or
        :class:`RemoteWorkers` to run the batches on an executor's workers.
    :raises ValueError: for a count below 1.
    """

    def __init__(self, game: Game, count: WorkersChoice = None) -> None:
        self.remote = count if isinstance(count, RemoteWorkers) else None
        if self.remote is not None:
            count = self.remote.slots
        if count is not None and count < 1:
            raise ValueError("the number of workers must be at least 1")
        self.game = game
        self.count = count or usable_cores()
        self._workers: list[_Worker] = []
        self._threads: ThreadPoolExecutor | None = None

    @property
    def in_process(self) -> bool:
        """Whether tasks run in this process (threads of a ``threaded`` game, or one
        after the other here), so that a batch may carry this process's large objects
        without copying them."""
        return self.remote is None and (
            self.game.threaded or self.count == 1 or "fork" not in multiprocessing.get_all_start_methods()
        )

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *_exc: object) -> None:
        self._stop(kill=exc_type is not None)

    def _stop(self, kill: bool) -> None:
        for worker in self._workers:
            worker.stop(kill)
        self._workers = []
        if self._threads is not None:
            self._threads.shutdown(wait=True, cancel_futures=True)
            self._threads = None

    def map(self, task: Task[Result], batches: Iterable[np.ndarray]) -> Iterator[Result]:
        """``task(game, keys)`` for each batch of keys, in order.

        :param task: a module-level function (workers receive it by reference).
        :raises GameError: if a worker process dies (killed, or out of memory).
        :raises: whatever ``task`` raises, in this process.
        """
        if self.remote is not None:
            yield from self._map_remote(self.remote, task, batches)
            return
        if self.game.threaded and self.count > 1:
            yield from self._map_threads(task, batches)
            return
        batches = iter(batches)
        first = list(next(batches, None) for _ in range(2))
        batches = chain((b for b in first if b is not None), batches)
        if first[1] is None or self.count == 1 or "fork" not in multiprocessing.get_all_start_methods():
            yield from (task(self.game, keys) for keys in batches)
            return
        if not self._workers:
            context = multiprocessing.get_context("fork")
            with held():  # a signal raises once every worker forked is in the list that kills them
                for _ in range(self.count):
                    self._workers.append(_Worker(context, self.game, self._workers))
        pending: deque[_Worker] = deque()
        try:
            for number, keys in enumerate(batches):
                worker = self._workers[number % self.count]
                worker.send(task, keys)
                pending.append(worker)
                if len(pending) > 2 * self.count:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            if pending:  # left early: results still on their way would answer the next map
                self._stop(kill=True)

    def _map_threads(self, task: Task[Result], batches: Iterable[np.ndarray]) -> Iterator[Result]:
        """:meth:`map` in threads of this process, for a ``threaded`` game: at most twice
        :attr:`count` batches in flight, the ones not started cancelled when the caller
        stops early."""
        if self._threads is None:
            self._threads = ThreadPoolExecutor(self.count, thread_name_prefix="moves")
        pending: deque[Future[Result]] = deque()
        try:
            for keys in batches:
                pending.append(self._threads.submit(task, self.game, keys))
                if len(pending) >= 2 * self.count:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()

    def _map_remote(self, remote: RemoteWorkers, task: Task[Result], batches: Iterable[np.ndarray]) -> Iterator[Result]:
        """:meth:`map` on ``remote``'s executor; the tasks not taken are cancelled when the
        caller stops early."""
        pending: deque[Future[Result]] = deque()
        narrowed_task = _NarrowedTask(task)
        try:
            for keys in batches:
                keys = narrowed(keys)
                pending.append(remote.executor.submit(narrowed_task, self.game, keys))
                remote.sent += payload_bytes(keys)
                if len(pending) >= 2 * self.count:
                    yield _received(remote, pending.popleft())
            while pending:
                yield _received(remote, pending.popleft())
        finally:
            for future in pending:
                future.cancel()


def _received(remote: RemoteWorkers, future: Future[Result]) -> Result:
    result = future.result()
    remote.received += payload_bytes(result)
    return widened(result)


class _Narrow:
    """An int64 array sent as int32 (:func:`narrowed`)."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values


def narrowed(value: Any) -> Any:
    """``value`` (an array, or a tuple, list or dataclass of them, nested) with every int64
    array whose values fit in int32 replaced by a :class:`_Narrow` of it as int32;
    :func:`widened` gives ``value`` back, equal and of the same dtypes."""
    if isinstance(value, np.ndarray):
        fits = value.dtype == np.int64 and (not value.size or (value.min() >= -(2**31) and value.max() < 2**31))
        return _Narrow(value.astype(np.int32)) if fits else value
    return _mapped(value, narrowed)


def widened(value: Any) -> Any:
    """The inverse of :func:`narrowed`."""
    if isinstance(value, _Narrow):
        return value.values.astype(np.int64)
    return _mapped(value, widened)


def _mapped(value: Any, function: Callable[[Any], Any]) -> Any:
    """``function`` applied to the items of a tuple, list or dataclass (a copy); anything
    else as it is."""
    if isinstance(value, (tuple, list)):
        return type(value)(function(item) for item in value)
    if is_dataclass(value) and not isinstance(value, type):
        return replace(value, **{field.name: function(getattr(value, field.name)) for field in fields(value)})
    return value


class _NarrowedTask:
    """A remote task: ``task(game, keys)`` on widened keys, its result narrowed; named as
    ``task`` (Dask names the task after it)."""

    def __init__(self, task: Task[Any]) -> None:
        self.task = task
        self.__name__ = task.__name__

    def __call__(self, game: Game, keys: Any) -> Any:
        return narrowed(self.task(game, widened(keys)))


class _Worker:
    """One forked process, with a pipe for tasks and one for results."""

    def __init__(self, context: BaseContext, game: Game, siblings: list[_Worker]) -> None:
        task_reader, self._tasks = context.Pipe(duplex=False)
        self._results, result_writer = context.Pipe(duplex=False)
        inherited = [end for sibling in siblings for end in (sibling._tasks, sibling._results)]
        self._process = context.Process(
            target=_serve, args=(game, task_reader, result_writer, inherited, os.getpid()), daemon=True
        )
        self._process.start()
        task_reader.close()
        result_writer.close()

    def send(self, task: Task[Any], keys: np.ndarray) -> None:
        try:
            self._tasks.send((task, keys))
        except OSError:
            raise _died() from None

    def result(self) -> Any:
        """The result of the oldest task sent, or what it raised, raised here."""
        try:
            failed, value = self._results.recv()
        except (EOFError, OSError):
            raise _died() from None
        except Exception as problem:  # an error that pickles but does not unpickle
            raise GameError(f"an answer of a worker process cannot be read: {problem}") from None
        if failed:
            raise value
        return value

    def stop(self, kill: bool) -> None:
        if kill:
            self._process.kill()
        else:
            try:
                self._tasks.send(None)
            except OSError:
                pass
        self._tasks.close()
        self._results.close()
        self._process.join()


def _died() -> GameError:
    return GameError("a move-generating worker process died (out of memory?); try --workers 1")


def _serve(game: Game, tasks: Connection, results: Connection, inherited: list[Connection], parent: int) -> None:
    """A worker's life: run tasks as they come, send each result or error back, until the
    task pipe says stop or closes. A thread receives tasks, so that the parent's sends
    never wait on this process's own (large) sends of results."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler, if it has one
    for end in inherited:  # the siblings' pipes: only the parent may hold their other ends
        end.close()
    _die_with(parent)
    received: queue.SimpleQueue[Any] = queue.SimpleQueue()
    threading.Thread(target=_receive, args=(tasks, received), daemon=True).start()
    while (item := received.get()) is not None:
        task, keys = item
        try:
            answer: tuple[bool, Any] = (False, task(game, keys))
        except BaseException as error:  # noqa: BLE001 - every failure goes back to the parent
            answer = (True, error)
        try:
            results.send(answer)
        except (pickle.PicklingError, TypeError, AttributeError) as problem:
            what = f"{'error' if answer[0] else 'result'} ({type(answer[1]).__name__})"
            results.send((True, GameError(f"a worker process cannot send back its {what}: {problem}")))
        except OSError:  # the parent is gone
            return


def _receive(tasks: Connection, received: queue.SimpleQueue[Any]) -> None:
    while True:
        try:
            item = tasks.recv()
        except (EOFError, OSError):  # the parent closed its end, or died
            item = None
        received.put(item)
        if item is None:
            return


def _die_with(parent: int) -> None:
    """End this process when ``parent`` (the pid that forked it) dies, even by SIGKILL,
    also while a task runs."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    else:
        threading.Thread(target=_watch, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # it died before the watch began
        os._exit(1)


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_WATCH_SECONDS)
    os._exit(1)
