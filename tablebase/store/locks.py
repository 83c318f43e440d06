"""Build locks that end with the process holding them, wherever it runs.

A build reserves its tablebase with a catalog row (status ``building``) and holds a lock
on that row's id for as long as it runs. The operating system or the database server
drops the lock when the process ends, however it ends, so a second build tells a live
build from a dead one by trying the lock, on any host, whatever became of the pid:

- PostgreSQL: a session-level advisory lock, ``pg_advisory_lock(LOCK_SPACE, id)``, on a
  connection of its own; the server releases it when the session ends.
- SQLite: a POSIX record lock (``fcntl.lockf``) on byte ``id`` of the file
  ``<database>-lock`` beside the database; the kernel (or the network file system's lock
  manager, which SQLite itself needs) releases it when the process ends.

POSIX record locks belong to a process and all of them on a file go when the process
closes any descriptor of it, so one descriptor per lock file serves every store of a
process, and the builds of this process never count as held by another.

While a process has that descriptor, it holds a shared lock on byte :data:`IN_USE` of
the lock file: a store opened to build (``open_store(create=True)``) opens it before it
first opens the database, so :func:`unused` tells whether another build uses the
database (a new one that a failed first build would remove).
"""

from __future__ import annotations

import abc
import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator

import sqlalchemy as sa
from sqlalchemy.engine import Engine

LOCK_SPACE = 0x7461626C
"""``"tabl"``: the first key of the two-key PostgreSQL advisory locks: of builds (the
second key a catalog id, from 1), and of schema upgrades (0)."""


IN_USE = 2**62
"""The byte of an SQLite lock file that a process using the database holds a shared lock
on (build ids, the other bytes, are far below)."""


def lock_file(path: str) -> str:
    """The lock file beside the SQLite database at ``path``."""
    return path + "-lock"


def discard_lock_file(path: str) -> None:
    """Remove the lock file of the SQLite database at ``path`` if no process has it open
    (one that has holds :data:`IN_USE`, which every lock of the file comes with)."""
    with unused(path) as alone:
        if alone:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(lock_file(path))


class BuildLocks(abc.ABC):
    """The build locks of one database: :meth:`hold` and :meth:`release` those of this
    process's builds, :meth:`held_elsewhere` asks about another build. Made by
    :func:`build_locks`."""

    @abc.abstractmethod
    def hold(self, build: int) -> None:
        """Lock the build with catalog id ``build`` until :meth:`release` or the end of
        this process."""

    @abc.abstractmethod
    def release(self, build: int) -> None:
        """Unlock a build this process holds (nothing if it holds none)."""

    @abc.abstractmethod
    def held_elsewhere(self, build: int) -> bool:
        """Whether another live process holds the lock of a build."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release every lock held through this object."""


def build_locks(engine: Engine, path: str | None, writer: bool = False) -> BuildLocks:
    """The build locks for a database: advisory locks on PostgreSQL, a lock file beside
    an SQLite database file at ``path``, none for an in-memory one (``path`` ``None``),
    which no other process can see.

    :param writer: whether this process may write the database: its lock file is then
        opened at once (made if missing), marking the database in use until
        :meth:`BuildLocks.close`; call this before the database is first opened.
    """
    if engine.dialect.name == "postgresql":
        return _AdvisoryLocks(engine)
    if path is None:
        return _PrivateLocks()
    locks = _FileLocks(lock_file(path))
    if writer:
        locks.open()
    return locks


class _PrivateLocks(BuildLocks):
    """The locks of a database only this process sees: no other process can hold one."""

    def hold(self, build: int) -> None:
        pass

    def release(self, build: int) -> None:
        pass

    def held_elsewhere(self, build: int) -> bool:
        return False

    def close(self) -> None:
        pass


class _AdvisoryLocks(BuildLocks):
    """PostgreSQL session-level advisory locks, on a connection held while any is held."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._session: sa.Connection | None = None
        self._held: set[int] = set()

    def _connection(self) -> sa.Connection:
        if self._session is None:
            self._session = self._engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        return self._session

    def _call(self, function: str, build: int) -> object:
        return self._connection().execute(sa.text(f"SELECT {function}(:space, :build)"), {"space": LOCK_SPACE, "build": build}).scalar()

    def hold(self, build: int) -> None:
        if build not in self._held:
            self._call("pg_advisory_lock", build)
            self._held.add(build)

    def release(self, build: int) -> None:
        if build in self._held:
            self._held.discard(build)
            self._call("pg_advisory_unlock", build)

    def held_elsewhere(self, build: int) -> bool:
        if build in self._held:
            return False
        if not self._call("pg_try_advisory_lock", build):
            return True
        self._call("pg_advisory_unlock", build)
        return False

    def close(self) -> None:
        if self._session is not None:
            self._session.close()  # ends the session's locks: the pool resets the connection
            self._session = None
        self._held.clear()


class _LockFile:
    """One descriptor of a lock file for the whole process, with the bytes it locks, and
    a shared lock on :data:`IN_USE` while it is open."""

    def __init__(self, path: str) -> None:
        self.fd = _opened_in_use(path)
        self.held: set[int] = set()
        self.users = 0


def _opened_in_use(path: str) -> int:
    """A descriptor of the lock file at ``path`` (made if missing) with a shared lock on
    :data:`IN_USE`, once no :func:`unused` holds it; opened again where that removed the
    file meanwhile, so that the lock is on the file at ``path``."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        fcntl.lockf(fd, fcntl.LOCK_SH, 1, IN_USE)
        if _is_at(fd, path):
            return fd
        os.close(fd)


def _is_at(fd: int, path: str) -> bool:
    """Whether the open file ``fd`` is the one at ``path`` (not removed or replaced)."""
    try:
        there = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)


@contextlib.contextmanager
def unused(path: str) -> Iterator[bool]:
    """Whether no process has the lock file of the SQLite database at ``path`` open now
    (each store opened to build has, from before it opens the database, holding a shared
    lock on :data:`IN_USE`); where so, none opens it until the end of the block (an
    exclusive lock on that byte, the file made if missing), which may remove the
    database and its lock file: a store waiting to open it then opens the new one."""
    lock_path = os.path.abspath(lock_file(path))
    with _LOCK_FILES_GUARD:
        if lock_path in _LOCK_FILES:
            yield False
            return
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, IN_USE)
            except OSError:
                yield False
                return
            yield _is_at(fd, lock_path)
        finally:
            os.close(fd)


_LOCK_FILES: dict[str, _LockFile] = {}
_LOCK_FILES_GUARD = threading.Lock()


class _FileLocks(BuildLocks):
    """POSIX record locks on the bytes of a lock file, through the process's one
    descriptor of it (opened when first needed, closed with its last user)."""

    def __init__(self, path: str) -> None:
        self._path = os.path.abspath(path)
        self._file: _LockFile | None = None
        self._mine: set[int] = set()

    def open(self) -> _LockFile:
        """This process's descriptor of the lock file, opened if needed."""
        if self._file is None:
            with _LOCK_FILES_GUARD:
                if self._path not in _LOCK_FILES:
                    _LOCK_FILES[self._path] = _LockFile(self._path)
                self._file = _LOCK_FILES[self._path]
                self._file.users += 1
        return self._file

    def hold(self, build: int) -> None:
        file = self.open()
        fcntl.lockf(file.fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, build)
        file.held.add(build)
        self._mine.add(build)

    def release(self, build: int) -> None:
        if build in self._mine:
            file = self.open()
            self._mine.discard(build)
            file.held.discard(build)
            fcntl.lockf(file.fd, fcntl.LOCK_UN, 1, build)

    def held_elsewhere(self, build: int) -> bool:
        if not os.path.exists(self._path):
            return False
        file = self.open()
        if build in file.held:
            return False
        try:
            fcntl.lockf(file.fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, build)
        except OSError:
            return True
        fcntl.lockf(file.fd, fcntl.LOCK_UN, 1, build)
        return False

    def close(self) -> None:
        for build in list(self._mine):
            self.release(build)
        if self._file is None:
            return
        with _LOCK_FILES_GUARD:
            self._file.users -= 1
            if self._file.users == 0:
                os.close(self._file.fd)  # drops this process's locks on it: none is left in use
                del _LOCK_FILES[self._path]
        self._file = None
