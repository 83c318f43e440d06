"""Where numba keeps the compiled kernels: a place this user can write, or the import fails.

The kernels are compiled with ``cache=True``. numba writes the cache beside the sources
(``__pycache__``) where it can, else in the user's cache directory; where it can do
neither (an install owned by another user, run by a service user whose home does not
exist), ``@njit(cache=True)`` raises ``RuntimeError: cannot cache function ...: no
locator available`` at import. Before numba is imported, :func:`choose` points
``NUMBA_CACHE_DIR`` at a directory this user owns when the sources are not writable and
none is set (numba's documented setting, numba.readthedocs.io "Environment variables").
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

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


def _owned(folder: Path) -> bool:
    """Whether ``folder`` is (or now is) a directory of this user's alone that it can
    write: a cache of compiled code must not be one another user could plant."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError:
        return False
    return info.st_uid == os.getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and os.access(folder, os.W_OK)


class CompileTimer:
    """The seconds numba spent compiling (or loading from its cache) while active:
    ``numba:compile`` events (numba.core.event), nested ones counted once. A build's
    ``build_seconds`` leaves them out, so the first build of a process (KvK's, nearly all
    of it compiling) tells the cost of its tablebase, not of the compiler."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def __enter__(self) -> CompileTimer:
        from numba.core import event  # not at import: choose() must run before numba is imported

        self._listener = event.TimingListener()
        event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *_exc: object) -> None:
        from numba.core import event

        event.unregister("numba:compile", self._listener)
        self.seconds = self._listener.duration if self._listener.done else 0.0
