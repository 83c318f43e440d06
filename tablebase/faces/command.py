"""The ``tablebase`` command's entry point (``python -m tablebase`` too): ``tablebase
--version`` is answered at once, before the commands' modules (numba, SQLAlchemy, the
solver) are imported; SIGINT and SIGTERM stop every other command cleanly from its first
moment to its last.

The command line interface (:mod:`tablebase.faces.cli`) takes a second or two to import
(typer, SQLAlchemy, numba), and a signal meanwhile would end Python with a traceback; a
signal while typer parses the arguments would end it with typer's exit code 130 and no
word (typer turns a ``KeyboardInterrupt`` in its own code into that); a signal after the
command is done, while Python shuts down (joining threads and worker processes), with a
traceback again. Here the import and the command run inside
:func:`~tablebase.util.interrupt.interruptible`, whatever ends them after a signal ends
the process with the one line and the exit code of an interrupted command
(:func:`~tablebase.util.interrupt.announce`), and before and after them a signal ends the
process at once, so. Only in the last moments of Python's shutdown, once it has put the
default handlers back, does a signal end the process as it ends any other (killed by it:
the shell says 130 or 143 all the same).

SIGUSR1 writes the stack of every thread to stderr and the command goes on
(:func:`faulthandler.register`): ``kill -USR1 PID`` shows where a slow or stuck command
is.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
from importlib.metadata import version

from tablebase.util.interrupt import SIGNALS, Interrupted, announce, interruptible


def main() -> None:
    """Run the ``tablebase`` command with the arguments of ``sys.argv``; exits."""
    if sys.argv[1:] == ["--version"]:
        print(f"tablebase {version('tablebase')}")
        return
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    for signum in SIGNALS:  # before and after the command (interruptible puts them back)
        signal.signal(signum, _end_at_once)
    arrived: list[int] = []
    try:
        with interruptible() as arrived:
            from tablebase.faces.cli import main as run

            run()
    except Interrupted as stop:
        sys.exit(announce(stop))
    except SystemExit:
        if arrived:  # a signal that code on the way (typer's) turned into an exit of its own
            sys.exit(announce(Interrupted(arrived[0])))
        raise


def _end_at_once(signum: int, _frame: object) -> None:
    """A signal before or after the command: say so and end, without waiting for
    Python's shutdown."""
    os.write(2, f"{Interrupted(signum).message}\n".encode())
    os._exit(128 + signum)
