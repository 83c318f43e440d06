"""Storing built tablebases again in another storage layout (``tablebase db repack``).

A tablebase built before the blocks layout (:mod:`tablebase.store.blocks`) existed keeps
its keys beside its values, in several times the space; repacking rewrites it without
solving anything, one tablebase at a time, each copy replacing the old one only once it
is complete (:meth:`~tablebase.store.Store.repack`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from tablebase.core.errors import TablebaseError
from tablebase.read.catalog import row_game
from tablebase.read.filled import read_parts
from tablebase.read.stored import key_shape
from tablebase.store import Store, TablebaseRow
from tablebase.store.schema import COMPLETE, EXTRA_KINDS
from tablebase.util.progress import Stages, silent


class Repacked(NamedTuple):
    """What became of one complete tablebase."""

    old: TablebaseRow
    new: TablebaseRow | None
    """Its copy in the new layout (``old`` itself when it was in it already), or None
    when it was left as it was."""
    why_not: str | None = None
    """Why it was left as it was (its game is not installed, say)."""


def repack(store: Store, stages: Stages = silent, rows: Iterable[TablebaseRow] | None = None) -> Iterator[Repacked]:
    """Store every complete tablebase of ``store`` again in the store's layout (``auto``:
    where the game's keys are an index space, sided where they alternate sides to move,
    else blocks; elsewhere packed), oldest first.

    A tablebase whose game cannot be loaded here (a plug-in not installed) is left as it
    is, since whether its keys are an index space is the game's to say. When any was
    repacked, or the file's pages are of an older size, the space of the old copies is
    given back at the end, in pages of the current size where it can
    (:meth:`~tablebase.store.Store.reclaim_space`).

    :param rows: only these catalog rows (those of :func:`~tablebase.read.catalog.listings`,
        say); None: every one.
    :raises BuildInProgressError: if another process is building one of them.
    :raises StoreError: if the database fails or a stored chunk is damaged.
    """
    changed = False
    for row in store.catalog() if rows is None else rows:
        if row.status != COMPLETE:
            continue
        try:
            game = row_game(row)
        except TablebaseError as error:
            yield Repacked(row, None, str(error))
            continue
        with stages(f"repack {row.description}", row.positions) as advance:
            new = store.repack(row, key_shape(game), read_parts(store, row, extra=row.value_kind in EXTRA_KINDS, known=True), advance)
        changed |= new is not row
        yield Repacked(row, new)
    if changed or store.pages_outdated():
        store.reclaim_space()
