"""Writing a stored tablebase out for analysis, as CSV or Parquet, in any storage layout.

One row per stored position: for a collection (chess ``all3``), first ``tablebase``, the
member tablebase that holds it (e.g. ``chess material=KQvK``); ``key`` (the canonical
key), ``position`` (the game's text of it, unless left out), ``outcome`` (``win``, ``draw`` or ``loss`` for the side to move),
``remoteness`` (plies; empty or null where there is none), and for a tablebase that has
them ``grundy`` (Grundy values), ``score`` (negamax scores) or ``dtz`` (chess: signed
DTZ in plies under the 50-move rule). Rows come in key
order (a collection's member by member, in build order). CSV is written a block of rows
at a time by :mod:`tablebase.tools.csv_text` (as the standard library's ``csv.writer``
writes it), Parquet with pyarrow (the optional ``parquet`` extra); the positions' texts
come from the game's :meth:`~tablebase.core.game.Game.format_keys`, a block at a time.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import numpy as np

from tablebase.core.errors import StoreError, UsageError
from tablebase.core.game import Game
from tablebase.core.values import DRAW, LABELS, LOSS, WIN
from tablebase.read.filled import read_parts
from tablebase.store import Store
from tablebase.store.schema import EXTRA_KINDS, TablebaseRow
from tablebase.tools.csv_text import csv_rows, number_cells, text_cells, word_cells
from tablebase.util.progress import Stages, silent

FORMATS = ("csv", "parquet")
COLUMNS = ("key", "position", "outcome", "remoteness")
TABLE_COLUMN = "tablebase"
"""The first column of a collection's export: the member tablebase of the row."""
_ROWS_PER_GROUP = 1 << 20
"""The most rows formatted and written at once (a Parquet row group)."""
_FIRST_GROUP = 1 << 10
"""The rows of a CSV export's first group, doubled group by group up to
:data:`_ROWS_PER_GROUP`: the first rows reach a pipe (``| head``) at once, whatever the
size of the tablebase, which is read a stored chunk at a time."""

_OUTCOME_LABELS = [LABELS[outcome] for outcome in (LOSS, DRAW, WIN)]
"""The label of each outcome, at ``outcome - LOSS``."""


def check_format(file_format: str) -> None:
    """:raises UsageError: unless ``file_format`` is one of :data:`FORMATS`."""
    if file_format not in FORMATS:
        raise UsageError(f"unknown export format {file_format!r}; choose one of {', '.join(FORMATS)}")


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """A binary file that appears at ``path`` only when the block ends without error
    (written beside it, then renamed over it); on error nothing is left behind.

    :raises StoreError: if the file cannot be written.
    """
    target = Path(path)
    try:
        handle = tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", delete=False)
    except OSError as error:
        raise StoreError(f"cannot write {path}: {error.strerror or error}") from None
    try:
        with handle:
            yield handle
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(handle.name, 0o666 & ~umask)  # as an ordinary new file, not the temporary's 0600
        os.replace(handle.name, target)
    except OSError as error:
        raise StoreError(f"cannot write {path}: {error.strerror or error}") from None
    finally:
        if os.path.exists(handle.name):
            os.unlink(handle.name)


def export(
    game: Game,
    store: Store,
    out: IO[bytes],
    file_format: str,
    positions: bool = True,
    progress: Stages = silent,
) -> int:
    """Write the game's complete tablebase to ``out`` (a binary file); for a collection,
    those of its members (:meth:`~tablebase.core.game.Game.members`), one after the other.

    :param file_format: ``csv`` or ``parquet``.
    :param positions: whether to write the ``position`` column (the game's
        :meth:`~tablebase.core.game.Game.format_keys`, a group of rows at a time).
    :param progress: the stage factory of the ``export`` stage, told the rows to write
        (the tablebases' stored positions) and advanced group by group.
    :returns: the number of rows written.
    :raises UsageError: for an unknown format, or Parquet without pyarrow.
    :raises NotBuiltError: if the tablebase (or a member's) is not built; nothing is
        written then.
    :raises StoreError: if the database fails.
    """
    check_format(file_format)
    members = game.members()
    rows = [store.require(member.name, member.identity(), member.build_command(), member.version) for member in members]
    extra_name = rows[0].value_kind if rows[0].value_kind in EXTRA_KINDS else None
    labelled = members != [game]
    file = (_ParquetFile if file_format == "parquet" else _CsvFile)(out, positions, extra_name, labelled)
    total = None if any(row.positions is None for row in rows) else sum(row.positions for row in rows)
    first = _FIRST_GROUP if file_format == "csv" else _ROWS_PER_GROUP
    written = 0
    try:
        with progress("export", total) as advance:
            for member, keys, values in _groups(store, members, rows, extra_name is not None, first):
                texts = member.format_keys(keys) if positions else None
                file.write(member.describe() if labelled else None, keys, texts, *values)
                advance(len(keys))
                written += len(keys)
    except BaseException:
        # Closed now, while ``out`` is open: pyarrow would otherwise write its footer when
        # the writer is collected, into a file already closed. The caller drops the file.
        with contextlib.suppress(Exception):
            file.close()
        raise
    file.close()
    return written


def _groups(
    store: Store, members: list[Game], rows: list[TablebaseRow], extra: bool, first: int
) -> Iterator[tuple[Game, np.ndarray, tuple[np.ndarray, ...]]]:
    """The stored positions of each member in key order, in groups of ``first`` rows,
    doubled group by group up to :data:`_ROWS_PER_GROUP`, each stored chunk read once:
    ``(member, keys, values)``, int64[g] keys and ``(outcome, remoteness)`` as
    :func:`~tablebase.read.filled.read_parts` gives them, then ``(extra, known)`` when
    ``extra``."""
    group = first
    for member, row in zip(members, rows):
        for part in read_parts(store, row, extra=extra, known=True):
            start = 0
            while start < len(part[0]):
                these = slice(start, start + group)
                yield member, part[0][these], tuple(column[these] for column in part[1:])
                start += group
                group = min(2 * group, _ROWS_PER_GROUP)


class _CsvFile:
    """A CSV file with a header row, as the standard library's ``csv.writer`` writes it,
    a block of rows at a time (:mod:`tablebase.tools.csv_text`)."""

    def __init__(self, out: IO[bytes], positions: bool, extra_name: str | None, labelled: bool = False) -> None:
        self.out = out
        header = [TABLE_COLUMN] if labelled else []
        header += [c for c in COLUMNS if positions or c != "position"] + ([extra_name] if extra_name else [])
        self.out.write(csv_rows([text_cells([name]) for name in header]).data)

    def write(
        self,
        label: str | None,
        keys: np.ndarray,
        texts: list[str] | None,
        outcome: np.ndarray,
        remoteness: np.ndarray,
        extra: np.ndarray | None = None,
        known: np.ndarray | None = None,
    ) -> None:
        """Write rows: the member tablebase of a collection's rows (or none), int64[n]
        keys, n position texts (or none), int8[n] outcomes, int32[n] remoteness (plies,
        negative for none), and int64[n] Grundy values or scores with bool[n] ``known``
        (or none)."""
        columns = [word_cells([label], np.zeros(len(keys), dtype=np.int64))] if label is not None else []
        columns.append(number_cells(keys))
        if texts is not None:
            columns.append(text_cells(texts))
        columns += [word_cells(_OUTCOME_LABELS, outcome - LOSS), number_cells(remoteness, remoteness >= 0)]
        if extra is not None:
            columns.append(number_cells(extra, known))
        self.out.write(csv_rows(columns).data)

    def close(self) -> None:
        """Nothing to flush: each block went to ``out``, left open for its owner."""


class _ParquetFile:
    """A Parquet file, one row group per :meth:`write` (pyarrow).

    :raises UsageError: if pyarrow is not installed.
    """

    def __init__(self, out: IO[bytes], positions: bool, extra_name: str | None, labelled: bool = False) -> None:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise UsageError("Parquet export needs pyarrow: pip install 'tablebase[parquet]'") from None
        self.pa = pa
        fields = [pa.field(TABLE_COLUMN, pa.string())] if labelled else []
        fields.append(pa.field("key", pa.int64()))
        if positions:
            fields.append(pa.field("position", pa.string()))
        fields += [pa.field("outcome", pa.string()), pa.field("remoteness", pa.int32())]
        if extra_name:
            fields.append(pa.field(extra_name, pa.int64()))
        self.schema = pa.schema(fields)
        self.writer = pq.ParquetWriter(out, self.schema)

    def write(
        self,
        label: str | None,
        keys: np.ndarray,
        texts: list[str] | None,
        outcome: np.ndarray,
        remoteness: np.ndarray,
        extra: np.ndarray | None = None,
        known: np.ndarray | None = None,
    ) -> None:
        """Write rows, as :meth:`_CsvFile.write` takes them."""
        pa = self.pa
        labels = pa.array(np.array(_OUTCOME_LABELS)[outcome - LOSS])
        plies = pa.array(remoteness, mask=remoteness < 0)
        columns = [pa.array([label] * len(keys), pa.string())] if label is not None else []
        columns += [pa.array(keys)] + ([pa.array(texts, pa.string())] if texts is not None else []) + [labels, plies]
        if extra is not None:
            columns.append(pa.array(extra, mask=~known))
        self.writer.write_table(pa.Table.from_arrays(columns, schema=self.schema))

    def close(self) -> None:
        """Write the footer."""
        self.writer.close()
