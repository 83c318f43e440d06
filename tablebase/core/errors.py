"""Exceptions raised by the library.

Every error a user can cause is a :class:`TablebaseError`. The CLI turns them into a
one-line message and an exit code in one place (``tablebase.faces.cli``): a :class:`UsageError`
exits with 2, any other :class:`TablebaseError` with 1.
"""

from __future__ import annotations


class TablebaseError(Exception):
    """Base class of every error the library raises on purpose."""


class UsageError(TablebaseError, ValueError):
    """The caller asked for something that cannot exist (exit code 2)."""


class UnknownGameError(UsageError, LookupError):
    """No game of that name is registered in the ``tablebase.games`` entry points."""


class ParameterError(UsageError):
    """A game parameter is unknown, missing or has a bad value."""


class PositionError(UsageError):
    """A position cannot be parsed, or is illegal in the game."""


class GameError(TablebaseError):
    """A game implementation broke the protocol (e.g. a successor outside its key space)."""


class TooBigError(TablebaseError):
    """A build needs more memory than the machine has: refused before it starts, or run
    out of memory."""


class StoreError(TablebaseError):
    """The database cannot be used: not a tablebase database, or from a newer version."""


class ServeError(TablebaseError):
    """``tablebase serve`` cannot listen where it was asked: the address is in use,
    not this machine's, or the port is reserved (exit code 1)."""


class ClusterError(TablebaseError):
    """A build on a Dask cluster failed for the cluster's sake: a task killed every worker
    that ran it."""


class MissingError(TablebaseError, KeyError):
    """A value that is not in this database: a ``KeyError``, as python-chess's
    ``chess.syzygy.MissingTableError`` is, so ``except KeyError`` catches it."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class NotBuiltError(MissingError):
    """The tablebase asked for has not been built (completely) in this database."""


class NotInTablebaseError(MissingError):
    """A position's key is not in the tablebase (e.g. unreachable from the start)."""


class BuildInProgressError(StoreError):
    """Another live process is building the same tablebase."""


class UnknownLayoutError(UsageError, StoreError):
    """A storage layout that does not exist was asked for (a usage error, exit code 2)."""
