"""SIGINT and SIGTERM as an exception, so that an interrupted command cleans up.

By default SIGTERM ends Python at once: a build's reservation stays ``building`` and an
export's temporary file stays behind. Inside :func:`interruptible` both signals raise
:class:`Interrupted` in the main thread instead, and every ``finally`` and ``except
BaseException`` on the way out runs: the build is abandoned, its worker processes are
killed, the temporary file is removed.

A signal's exception is raised wherever the main thread is, and two kinds of place drop
it: a callback whose exceptions Python cannot propagate (a ``__del__``, a weak reference's
or the garbage collector's, an at-fork callback), and a step that must not be cut in two
(forking a worker and keeping its handle). A signal dropped in the first is sent to the
main thread again a moment later (:data:`AGAIN_SECONDS`), to be raised wherever it is
then; inside :func:`held`, the second, it is raised when the step is done. Either way it
takes effect at once, not when the command would have ended.

A library may also log the signal's exception on its way out before it raises it again
(SQLAlchemy's pool: "Exception during reset or similar", with a traceback); the command
ends with its own line instead, so such a record is not printed.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

SIGNALS = (signal.SIGINT, signal.SIGTERM)

AGAIN_SECONDS = 0.01
"""Seconds after a signal's exception was dropped (raised where Python cannot
propagate it) that the signal is sent to the main thread again."""


class Interrupted(KeyboardInterrupt):
    """A SIGINT or SIGTERM arrived. A :class:`KeyboardInterrupt`, so that code which
    handles Ctrl-C handles both.

    :ivar signal: the signal's number.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signal = signum

    @property
    def name(self) -> str:
        """``SIGINT`` or ``SIGTERM``."""
        return signal.Signals(self.signal).name

    @property
    def exit_code(self) -> int:
        """128 plus the signal's number, the shell's code for a command a signal ended:
        130 for SIGINT, 143 for SIGTERM."""
        return 128 + self.signal

    @property
    def message(self) -> str:
        """The line an interrupted command ends with, e.g. ``interrupted by SIGINT:
        stopped, nothing half-done is kept``."""
        return f"interrupted by {self.name}: stopped, nothing half-done is kept"


class _DropInterrupted(logging.Filter):
    """Drops a log record that carries an :class:`Interrupted` (a library logging the
    signal's exception as it passes through)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], Interrupted))


_announced: list[int] = []
"""The signal :func:`announce` wrote the line of, if it did."""


def announce(stop: Interrupted) -> int:
    """Write an interrupted command's line (:attr:`Interrupted.message`) to stderr, once a
    process (later calls write nothing), and return the exit code it ends with.

    :returns: :attr:`Interrupted.exit_code` of the first signal announced.
    """
    if not _announced:
        _announced.append(stop.signal)
        print(stop.message, file=sys.stderr, flush=True)
    return 128 + _announced[0]


_holding: list[list[int]] = []
"""The signals that arrived inside each :func:`held` block open now, innermost last."""


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Inside :func:`interruptible`, a step that a signal must not cut in two (a worker
    forked but not yet tracked, so that nothing would kill it): a signal that arrives
    inside raises :class:`Interrupted` when the block ends, not where it arrives. In the
    main thread; elsewhere, or outside :func:`interruptible`, it changes nothing.

    :raises Interrupted: when the block ends, if a signal arrived inside it.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    waiting: list[int] = []
    _holding.append(waiting)
    try:
        yield
    finally:
        _holding.pop()  # this block's: they nest
        if waiting:
            raise Interrupted(waiting[0])


@contextlib.contextmanager
def interruptible() -> Iterator[list[int]]:
    """While the block runs, SIGINT and SIGTERM raise :class:`Interrupted`; the handlers
    before it come back afterwards. A second signal raises again, cutting a slow cleanup
    short. A signal whose exception Python drops (raised in a ``__del__``, a garbage
    collector's or an at-fork callback) is sent to the main thread again
    :data:`AGAIN_SECONDS` later, and one inside :func:`held` is raised when that block
    ends; one still unraised when the block ends is raised then (and not sent again
    after it), and an exception that leaves the block after a signal (the signal's own,
    which compiled code may turn into a ``SystemError``) becomes :class:`Interrupted`.
    A log record that carries the signal's exception (a library logging it on its way
    out) is not printed by Python's last-resort handler, the one a program that
    configured no logging prints with. Outside the main thread, where Python cannot set handlers, it does nothing.

    :returns: (as the ``with`` target) the signals that arrived so far, in order; for code
        that sees the block end otherwise (a library that turned the exception into an
        exit code of its own).
    """
    arrived: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield arrived
        return
    again: list[threading.Timer] = []

    def raise_interrupted(signum: int, _frame: object) -> None:
        arrived.append(signum)
        if _holding:
            _holding[-1].append(signum)
            return
        raise Interrupted(signum)

    def raise_again(unraisable: sys.UnraisableHookArgs) -> None:
        if not isinstance(unraisable.exc_value, Interrupted):
            unraisable_hook(unraisable)
            return
        timer = threading.Timer(AGAIN_SECONDS, signal.pthread_kill, (threading.main_thread().ident, unraisable.exc_value.signal))
        timer.daemon = True
        timer.start()
        again.append(timer)

    previous = {signum: signal.signal(signum, raise_interrupted) for signum in SIGNALS}
    unraisable_hook, sys.unraisablehook = sys.unraisablehook, raise_again
    unlogged = _DropInterrupted()
    last_resort = logging.lastResort  # the handler of a program that configured no logging
    if last_resort is not None:
        last_resort.addFilter(unlogged)
    try:
        yield arrived
    except Exception as error:
        if arrived:  # the signal's exception, turned into another where it was raised (numba's dispatcher: SystemError)
            raise Interrupted(arrived[0]) from error
        raise
    finally:
        for timer in again:
            timer.cancel()
        if last_resort is not None:
            last_resort.removeFilter(unlogged)
        sys.unraisablehook = unraisable_hook
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)  # None: set outside Python
    if arrived:
        raise Interrupted(arrived[0])


@contextlib.contextmanager
def thread_pool(count: int, name: str = "") -> Iterator[ThreadPoolExecutor]:
    """A :class:`~concurrent.futures.ThreadPoolExecutor` of ``count`` threads (named
    ``name``) for the block. Leaving the block waits for the tasks running and cancels
    those not started, where the executor's own ``with`` runs every task queued first: an
    interrupted ``map`` over a thousand batches would otherwise finish them all."""
    pool = ThreadPoolExecutor(count, thread_name_prefix=name)
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
