"""How many cores this process may use: the default number of move-generating workers,
of ``serve``'s worker processes, and of the threads that encode a build's blocks."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
