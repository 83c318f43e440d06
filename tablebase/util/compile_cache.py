"""Where numba keeps the compiled kernels: a place this user can write, or the import fails.

The kernels are compiled with ``cache=True``. numba writes the cache beside the sources
(``__pycache__``) where it can, else in the user's cache directory; where it can do
neither (an install owned by another user, run by a service user whose home does not
exist), ``@njit(cache=True)`` raises ``RuntimeError: cannot cache function ...: no
locator available`` at import. Before numba is imported, :func:`choose` points
``NUMBA_CACHE_DIR`` at a directory this user owns when the sources are not writable and
none is set (numba's documented setting, numba.readthedocs.io "Environment variables").

A first run compiles for seconds to minutes: :func:`compile_notice` says so when it
happens, and :func:`work_clock` is a clock that stands still while numba compiles, so
that build times and progress rates leave the compiler out.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

SOURCES = Path(__file__).resolve().parent


def choose() -> None:
    """Set ``NUMBA_CACHE_DIR`` where numba could not cache: unset, and the sources not
    writable. The user's ``~/.cache/tablebase/numba`` if it can be made, else a
    directory of its own under the system's temporary directory."""
    if "NUMBA_CACHE_DIR" in os.environ or os.access(SOURCES, os.W_OK):
        return
    for folder in (Path.home() / ".cache" / "tablebase" / "numba", Path(tempfile.gettempdir()) / f"tablebase-numba-{os.getuid()}"):
        if _owned(folder):
            os.environ["NUMBA_CACHE_DIR"] = str(folder)
            return
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="tablebase-numba-")


def forget_stale(module_file: str) -> None:
    """Delete numba's cached kernels beside a package's sources (``__pycache__``) when any
    source of the package (the folder of ``module_file``) has changed since they were
    cached, and note the sources' digest there. numba checks a cached kernel against its
    own file's time alone, so a kernel that inlines a helper of another file (chess's
    survey inlines ``keys.decode``) would be loaded, compiled against the helper's old
    code, after that file alone changed (a git checkout or pull of an editable install):
    wrong values, silently. An install replaces every file at once, so a cache kept
    elsewhere (:func:`choose`, sources not writable) is left to numba."""
    folder = Path(module_file).resolve().parent
    if not os.access(folder, os.W_OK):
        return
    cache, digest = folder / "__pycache__", hashlib.sha256()
    for source in sorted(folder.glob("*.py")):
        digest.update(source.read_bytes())
    stamp = cache / "kernels.sources"
    with contextlib.suppress(OSError):
        if stamp.read_text() == digest.hexdigest():
            return
    for cached in [*cache.glob("*.nbi"), *cache.glob("*.nbc")]:
        cached.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())


def _owned(folder: Path) -> bool:
    """Whether ``folder`` is (or now is) a directory of this user's alone that it can
    write: a cache of compiled code must not be one another user could plant."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError:
        return False
    return info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and os.access(folder, os.W_OK)


NOTICE_AFTER = 1.0
"""Seconds a compile runs before :func:`compile_notice` says so: loading a kernel from
numba's cache takes milliseconds."""


class _CompileWatch:
    """The ``numba:compile`` events of this process (numba.core.event), nested ones
    counted once: the seconds spent compiling, or loading compiled code from the cache,
    so far (:meth:`seconds`), and a call after :data:`NOTICE_AFTER` seconds of one."""

    def __init__(self) -> None:
        self._depth = 0
        self._started = 0.0
        self._finished = 0.0
        self._lock = threading.Lock()
        self.noticed: Callable[[], None] | None = None
        self._timer: threading.Timer | None = None

    def on_start(self, _event: Any) -> None:
        with self._lock:
            self._depth += 1
            if self._depth > 1:
                return
            self._started = time.time()
            if self.noticed is not None:
                self._timer = threading.Timer(NOTICE_AFTER, self.noticed)
                self._timer.daemon = True
                self._timer.start()

    def on_end(self, _event: Any) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth:
                return
            self._finished += time.time() - self._started
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    def seconds(self) -> float:
        """Seconds spent in compiles so far, the one under way included."""
        with self._lock:
            return self._finished + (time.time() - self._started if self._depth else 0.0)


_WATCH: _CompileWatch | None = None


def _watch() -> _CompileWatch:
    """The process's :class:`_CompileWatch`, registered with numba the first time."""
    global _WATCH
    if _WATCH is None:
        from numba.core import event  # not at import: choose() must run before numba is imported

        watch = _CompileWatch()

        class Listener(event.Listener):
            on_start = staticmethod(watch.on_start)
            on_end = staticmethod(watch.on_end)

        event.register("numba:compile", Listener())
        _WATCH = watch
    return _WATCH


def compile_seconds() -> float:
    """Seconds this process has spent in numba's compiles since they were first watched
    (by :func:`compile_notice` or :class:`CompileTimer`), the one under way included;
    0.0 before."""
    return 0.0 if _WATCH is None else _WATCH.seconds()


def work_clock() -> float:
    """``time.time()`` less the seconds spent compiling (:func:`compile_seconds`): a clock
    that stands still while numba compiles, for times and rates of the work alone."""
    return time.time() - compile_seconds()


@contextlib.contextmanager
def compile_notice(say: Callable[[str], None], expected: float | None = None) -> Iterator[None]:
    """Say, once, when numba has compiled for :data:`NOTICE_AFTER` seconds, that it is
    compiling (once, and, with ``expected``, about how many seconds it may take), and at
    the end how long it took.

    :param say: writes one line for the user (on stderr).
    :param expected: the seconds the caller's command takes to compile on a first run.
    """
    watch = _watch()
    before = watch.seconds()
    said = threading.Event()
    about = f"up to about {expected:.0f} s, " if expected else ""

    def noticed() -> None:
        if not said.is_set():
            said.set()
            say(f"compiling the solver's kernels ({about}once: later runs load them from numba's cache)")

    watch.noticed = noticed
    try:
        yield
    finally:
        watch.noticed = None
        if said.is_set():
            say(f"compiled in {watch.seconds() - before:.0f} s")


class CompileTimer:
    """The seconds numba spent compiling (or loading from its cache) while active
    (:func:`compile_seconds`). A build's ``build_seconds`` leaves them out, so the first
    build of a process (KvK's, nearly all of it compiling) tells the cost of its
    tablebase, not of the compiler."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def __enter__(self) -> CompileTimer:
        self._before = _watch().seconds()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.seconds = _watch().seconds() - self._before
