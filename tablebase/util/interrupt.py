"""SIGINT and SIGTERM as an exception, so that an interrupted command cleans up.

By default SIGTERM ends Python at once: a build's reservation stays ``building`` and an
export's temporary file stays behind. Inside :func:`interruptible` both signals raise
:class:`Interrupted` in the main thread instead, and every ``finally`` and ``except
BaseException`` on the way out runs: the build is abandoned, its worker processes are
killed, the temporary file is removed.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator

SIGNALS = (signal.SIGINT, signal.SIGTERM)


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


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM raise :class:`Interrupted`; the handlers
    before it come back afterwards. A second signal raises again, cutting a slow cleanup
    short. Python drops an exception raised where it cannot propagate (in a ``__del__``
    or an at-fork callback); a signal lost so is raised, silently at first, when the block
    ends, and an exception that leaves the block after a signal (the signal's own, which
    compiled code may turn into a ``SystemError``) becomes :class:`Interrupted`. Outside the
    main thread, where Python cannot set handlers, it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []

    def raise_interrupted(signum: int, _frame: object) -> None:
        arrived.append(signum)
        raise Interrupted(signum)

    def drop_quietly(unraisable: sys.UnraisableHookArgs) -> None:
        if not isinstance(unraisable.exc_value, Interrupted):
            unraisable_hook(unraisable)

    previous = {signum: signal.signal(signum, raise_interrupted) for signum in SIGNALS}
    unraisable_hook, sys.unraisablehook = sys.unraisablehook, drop_quietly
    try:
        yield
    except Exception as error:
        if arrived:  # the signal's exception, turned into another where it was raised (numba's dispatcher: SystemError)
            raise Interrupted(arrived[0]) from error
        raise
    finally:
        sys.unraisablehook = unraisable_hook
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)  # None: set outside Python
    if arrived:
        raise Interrupted(arrived[0])
