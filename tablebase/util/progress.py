"""Progress reporting for long stages, kept apart from the work itself.

The engine reports progress through a *stage factory*: ``stages(name, total)`` returns a
context manager that yields an ``advance(k)`` callable. The CLI passes
:func:`tqdm_stages`; library callers and tests use :func:`silent` (the default), and
benchmarks wrap either one to time each stage.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import ContextManager, Protocol, TextIO

from tqdm import tqdm

from tablebase.util.compile_cache import work_clock

Advance = Callable[[int], None]


class Stages(Protocol):
    """A factory of progress reporters, one per named stage."""

    def __call__(self, name: str, total: int | None) -> ContextManager[Advance]: ...


@contextlib.contextmanager
def silent(name: str, total: int | None) -> Iterator[Advance]:
    """Report nothing."""
    yield lambda _count: None


@contextlib.contextmanager
def tqdm_stages(name: str, total: int | None) -> Iterator[Advance]:
    """A tqdm bar on stderr per stage, counting positions, shown only when stderr is a
    terminal; one that reports no size (0 columns, as a fresh pseudo-terminal does) gets
    80 by 24, where tqdm would draw nothing."""
    with _bar(f"{name:<10}", total, leave=False) as bar:
        yield bar.update


def _bar(desc: str, total: int | None, **options: object) -> tqdm:
    """A tqdm bar on stderr counting positions, sized to the terminal (see
    :func:`tqdm_stages`), shown only when stderr is one; its elapsed time and rate leave
    numba's compiles out (:func:`~tablebase.util.compile_cache.work_clock`)."""
    columns, rows = _terminal_size(sys.stderr)
    bar = tqdm(
        total=total, desc=desc, unit=" pos", unit_scale=True, disable=None, file=sys.stderr,
        ncols=columns - 1, nrows=rows - 1, **options,
    )
    bar._time = work_clock  # tqdm's clock (set per bar in its __init__), one that stands still while compiling
    bar.start_t = bar.last_print_t = work_clock()
    return bar


def note(text: str) -> None:
    """Write a line on stderr above the tqdm bars drawn there."""
    tqdm.write(text, file=sys.stderr)


@contextlib.contextmanager
def plan_bar(tables: int, positions: int) -> Iterator[Callable[[int], None]]:
    """A tqdm bar on stderr over a whole plan, above each stage's bar, shown only when
    stderr is a terminal: the tablebases done of ``tables``, the positions (as each
    game expects them) done of ``positions``, the time elapsed and the time left at the
    rate measured so far. Yields ``done(positions)``, called as each tablebase ends."""
    finished = 0
    with _bar(f"plan 0/{tables}", positions, leave=True, position=0) as bar:

        def done(count: int) -> None:
            nonlocal finished
            finished += 1
            bar.set_description(f"plan {finished}/{tables}", refresh=False)
            bar.update(count)

        yield done


def _terminal_size(stream: TextIO) -> tuple[int, int]:
    """``(columns, rows)`` of the terminal behind ``stream``; 80 and 24 where unknown or 0."""
    try:
        columns, rows = os.get_terminal_size(stream.fileno())
    except (AttributeError, OSError, ValueError):
        columns, rows = 0, 0
    return columns if columns > 0 else 80, rows if rows > 0 else 24


class StageTimer:
    """Wrap a stage factory and record the wall-clock seconds of each stage.

    >>> timer = StageTimer(silent)
    >>> with timer("solve", 10) as advance:
    ...     advance(10)
    >>> list(timer.seconds)
    ['solve']
    """

    def __init__(self, inner: Stages = silent) -> None:
        self.inner = inner
        self.seconds: dict[str, float] = {}

    @contextlib.contextmanager
    def __call__(self, name: str, total: int | None) -> Iterator[Advance]:
        start = time.perf_counter()
        with self.inner(name, total) as advance:
            yield advance
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start
