"""Commands run on a pseudo-terminal, as a user's shell runs them, so that what is drawn
only on a terminal (the progress bars) is drawn."""

from __future__ import annotations

import os
import subprocess


def on_terminal(command: list[str], timeout: float = 120) -> tuple[int, str]:
    """Run ``command`` with a fresh pseudo-terminal (0 columns by 0 rows) as its stdin,
    stdout and stderr; its exit code and everything it wrote there."""
    master, slave = os.openpty()
    process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return process.wait(timeout=timeout), shown.decode()
