"""A stream of positions answered one JSON report a line (``tablebase query GAME -``), in
several processes.

Each line is answered as ``Tablebase.report`` answers it, or with ``{"position",
"error"}``; the answers come in the order of the lines, each as soon as it and those
before it are ready, so a caller that writes a line and waits for its answer is served
at once. The first line is answered in this process, which loads the compiled kernels
it needs (numba loads each from its cache in a process's first call: a third of a
second); with more than one worker, the other lines go to processes forked from this one
after it, which have the kernels loaded, open the store again and keep their own block
caches (as ``tablebase serve``'s workers do): a thread hands the lines out in turn, one
at a time, and the answers are read back in that order.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import queue
import signal
import threading
import traceback
from collections.abc import Iterable, Iterator
from multiprocessing.connection import Connection

from tablebase.core.errors import TablebaseError, UsageError
from tablebase.core.game import Game
from tablebase.read.query import Tablebase
from tablebase.store import open_store
from tablebase.store.block_threads import share_cores

_FAILED = -1
"""The exit code a worker sends with a traceback when a line raised an unexpected error."""


def report_lines(location: str | None, game: Game, lines: Iterable[str], workers: int = 1) -> Iterator[tuple[str, int]]:
    """``(answer, exit code)`` of each non-empty line, in order: the JSON text of its
    report, or of ``{"position", "error"}`` with code 2 for a usage error (a bad
    position) and 1 for another (a tablebase not built).

    :param location: the database (a path or an SQLAlchemy URL; None for the default).
    :param workers: processes that answer lines; 1 answers them in this one.
    :raises StoreError: if the database cannot be opened.
    :raises RuntimeError: if a worker fails on a line (its traceback in the message).
    """
    wanted = (text for text in (line.strip() for line in lines) if text)
    with open_store(location, create=False) as store:  # a database that cannot be opened fails here, once
        tablebase = Tablebase(game, store)
        for text in wanted:  # the first line here: the workers forked after it find the kernels loaded
            yield _answer(tablebase, text)
            if workers > 1:
                break
        following = next(wanted, None) if workers > 1 else None
        if following is None:
            return
    yield from _answered_by(workers, location, game, itertools.chain([following], wanted))


def _answered_by(workers: int, location: str | None, game: Game, wanted: Iterator[str]) -> Iterator[tuple[str, int]]:
    """:func:`report_lines` of ``workers`` forked processes, lines handed out in turn."""
    context = multiprocessing.get_context("fork")
    requests, answers, processes = [], [], []
    for _ in range(workers):
        get, put = context.Pipe(duplex=False)
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_work, args=(get, send, location, game, workers), daemon=True)
        process.start()
        get.close()
        send.close()
        requests.append(put)
        answers.append(receive)
        processes.append(process)
    order: queue.Queue[int | None] = queue.Queue()
    feeder = threading.Thread(target=_feed, args=(wanted, requests, order), daemon=True)
    feeder.start()
    try:
        while (worker := order.get()) is not None:
            answer, code = answers[worker].recv()
            if code == _FAILED:
                raise RuntimeError(f"a worker failed on a line:\n{answer}")
            yield answer, code
    finally:
        for connection in (*requests, *answers):
            connection.close()
        for process in processes:  # all told first: they end side by side (one freeing a GiB of blocks takes a while)
            process.kill()  # not a SIGTERM, which one just forked may take before it has set its handlers
        for process in processes:
            process.join()


def _feed(wanted: Iterator[str], requests: list[Connection], order: queue.Queue[int | None]) -> None:
    """Send each line to the next worker in turn and queue that worker's number."""
    try:
        for number, text in enumerate(wanted):
            worker = number % len(requests)
            requests[worker].send(text)
            order.put(worker)
    except OSError:  # the answers' reader stopped and closed the pipes
        pass
    finally:
        order.put(None)


def _work(requests: Connection, answers: Connection, location: str | None, game: Game, workers: int) -> None:
    """A worker, one of ``workers``: answer each line it is sent until its pipe closes.
    Ctrl-C is the parent's to handle; the parent kills it when the lines end."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    share_cores(workers)
    with open_store(location, create=False) as store:
        tablebase = Tablebase(game, store)
        while True:
            try:
                text = requests.recv()
            except EOFError:
                return
            try:
                answers.send(_answer(tablebase, text))
            except Exception:  # noqa: BLE001 - sent to the parent, which raises it
                answers.send((traceback.format_exc(), _FAILED))


def _answer(tablebase: Tablebase, text: str) -> tuple[str, int]:
    """:func:`report_lines`' answer to one line."""
    try:
        reader = tablebase.reader(text)
        return json.dumps(reader.report(reader.parse(text))), 0
    except TablebaseError as error:
        return json.dumps({"position": text, "error": str(error)}), 2 if isinstance(error, UsageError) else 1
