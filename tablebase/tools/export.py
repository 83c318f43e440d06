"""Writing a stored tablebase out for analysis, as CSV or Parquet, in any storage layout.

One row per stored position: for a collection (chess ``all3``), first ``tablebase``, the
member tablebase that holds it (e.g. ``chess material=KQvK``); ``key`` (the canonical
key), ``position`` (the game's text of it, unless left out), ``outcome`` (``win``, ``draw`` or ``loss`` for the side to move),
``remoteness`` (plies; empty or null where there is none), and for a tablebase that has
them ``grundy`` (Grundy values), ``score`` (negamax scores) or ``dtz`` (chess: signed
DTZ in plies under the 50-move rule). Rows come in key
order (a collection's member by member, in build order). CSV is written with the standard library, Parquet with pyarrow (the optional
``parquet`` extra).
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import numpy as np

from tablebase.core.errors import StoreError, UsageError
from tablebase.core.game import Game
from tablebase.core.values import DRAW, LABELS, LOSS, WIN
from tablebase.read.filled import read_parts
from tablebase.store import Store
from tablebase.store.schema import EXTRA_KINDS

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
    advance: Callable[[int], None] = lambda _count: None,
) -> int:
    """Write the game's complete tablebase to ``out`` (a binary file); for a collection,
    those of its members (:meth:`~tablebase.core.game.Game.members`), one after the other.

    :param file_format: ``csv`` or ``parquet``.
    :param positions: whether to write the ``position`` column (one call of the game's
        ``format`` per position, the slow part for big tablebases).
    :param advance: called with the number of rows written, group by group.
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
    written = 0
    group = _FIRST_GROUP if file_format == "csv" else _ROWS_PER_GROUP
    try:
        for member, row in zip(members, rows):
            label = member.describe() if labelled else None
            for part in read_parts(store, row, extra=extra_name is not None, known=True):
                keys, outcome, remoteness = part[:3]
                start = 0
                while start < len(keys):
                    these = slice(start, start + group)
                    chosen = keys[these]
                    texts = [member.format(member.decode(key)) for key in chosen.tolist()] if positions else None
                    extras = (part[3][these], part[4][these]) if extra_name else (None, None)
                    file.write(label, chosen, texts, outcome[these], remoteness[these], *extras)
                    advance(len(chosen))
                    written += len(chosen)
                    start += group
                    group = min(2 * group, _ROWS_PER_GROUP)
    except BaseException:
        # Closed now, while ``out`` is open: pyarrow would otherwise write its footer when
        # the writer is collected, into a file already closed. The caller drops the file.
        with contextlib.suppress(Exception):
            file.close()
        raise
    file.close()
    return written


class _CsvFile:
    """A CSV file with a header row (the standard library's ``csv`` module)."""

    def __init__(self, out: IO[bytes], positions: bool, extra_name: str | None, labelled: bool = False) -> None:
        self.text = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)
        self.writer = csv.writer(self.text)
        header = [TABLE_COLUMN] if labelled else []
        header += [c for c in COLUMNS if positions or c != "position"] + ([extra_name] if extra_name else [])
        self.writer.writerow(header)

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
        labels = [LABELS[o] for o in outcome.tolist()]
        plies = ["" if r < 0 else r for r in remoteness.tolist()]
        columns = [[label] * len(keys)] if label is not None else []
        columns += [keys.tolist()] + ([texts] if texts is not None else []) + [labels, plies]
        if extra is not None:
            columns.append([v if k else "" for v, k in zip(extra.tolist(), known.tolist())])
        self.writer.writerows(zip(*columns))

    def close(self) -> None:
        """Flush, leaving ``out`` open for its owner."""
        self.text.flush()
        self.text.detach()


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
        labels = pa.array(np.array([LABELS[o] for o in (LOSS, DRAW, WIN)])[outcome - LOSS])
        plies = pa.array(remoteness, mask=remoteness < 0)
        columns = [pa.array([label] * len(keys), pa.string())] if label is not None else []
        columns += [pa.array(keys)] + ([pa.array(texts, pa.string())] if texts is not None else []) + [labels, plies]
        if extra is not None:
            columns.append(pa.array(extra, mask=~known))
        self.writer.write_table(pa.Table.from_arrays(columns, schema=self.schema))

    def close(self) -> None:
        """Write the footer."""
        self.writer.close()
