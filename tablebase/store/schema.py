"""SQLAlchemy schema: the catalog (owned by Alembic) and one values table per tablebase.

The values tables are made at build time, one per catalog row, in one of four storage
layouts, recorded as the row's ``format_version``:

- :data:`ROWS` (1): ``positions_<id>``, one row per position. Its key is an ``INTEGER
  PRIMARY KEY`` in SQLite, the rowid itself, which keeps a table much smaller than a
  ``BIGINT`` key would (no separate index of the keys).
- :data:`PACKED` (2): ``chunks_<id>``, compressed chunks of positions with their keys (see
  :mod:`tablebase.store.packed`); the default for a game whose keys are not an index space.
- :data:`BLOCKS` (3): ``blocks_<id>``, compressed values over fixed ranges of keys, no
  keys stored (see :mod:`tablebase.store.blocks`); the default over an index space.
- :data:`SIDED` (5): ``blocks_<id>`` too, the keys of each side to move in blocks of their
  own, no bitmap (an unstored key has a value code of its own) and a drawn position's
  DTZ (0) not stored; the default over an index space whose keys alternate sides to move
  (chess). Format 4 (:data:`SIDED_DRAWS_STORED`), with a bitmap and every DTZ stored, is
  still read.
- :data:`SIDED_XZ` (6) and :data:`BLOCKS_XZ` (7): the sided and blocks layouts with their
  blobs compressed by xz instead of zstd (``tablebase db repack --codec xz``).
- :data:`ONE_SIDED` (8) and :data:`ONE_SIDED_XZ` (9): the sided layout (zstd, xz) of a
  tablebase with DTZ, black to move's DTM left out and valued from its moves when read
  (``--dtm-sides``, by default the 5-piece chess endings where white alone has pawns;
  :attr:`~tablebase.store.blocks.BlockFormat.dtm_left_out`).
"""

from __future__ import annotations

import functools
import json
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Column, DateTime, Float, Index, Integer, MetaData, SmallInteger, String, Table, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from tablebase.core.values import StoredKind

ROWS = 1
"""``format_version`` of the row layout: one table row per position."""
PACKED = 2
"""``format_version`` of the packed layout: compressed chunks of positions."""
BLOCKS = 3
"""``format_version`` of the blocks layout: compressed values over ranges of keys."""
SIDED_DRAWS_STORED = 4
"""``format_version`` of the sided layout before :data:`SIDED`: a bitmap of the stored
keys, a draw's DTZ stored like any other. Read, no longer written (``tablebase db repack`` rewrites it as :data:`SIDED`)."""
SIDED = 5
"""``format_version`` of the sided layout: the blocks layout with each side to move's keys
in blocks of their own, no bitmap, a draw's DTZ left to the reader."""
SIDED_XZ = 6
"""``format_version`` of the sided layout (as :data:`SIDED`) with its blobs compressed by
xz, not zstd (:mod:`~tablebase.store.codecs`)."""
BLOCKS_XZ = 7
"""``format_version`` of the blocks layout (as :data:`BLOCKS`) with its blobs compressed
by xz."""
ONE_SIDED = 8
"""``format_version`` of the sided layout (as :data:`SIDED`) with black to move's DTM
left out, for a tablebase with DTZ."""
ONE_SIDED_XZ = 9
"""``format_version`` of :data:`ONE_SIDED` with its blobs compressed by xz."""
LAYOUTS = {"sided": SIDED, "blocks": BLOCKS, "packed": PACKED, "rows": ROWS}
"""The storage layouts written, by name (their blobs, where they have a codec, by zstd)."""
XZ_FORMATS = {SIDED: SIDED_XZ, BLOCKS: BLOCKS_XZ, ONE_SIDED: ONE_SIDED_XZ}
"""The ``format_version`` of each layout of :data:`LAYOUTS` that xz can compress, with xz."""
ONE_SIDED_FORMATS = {SIDED: ONE_SIDED}
"""The ``format_version`` of each layout that can leave black to move's DTM out, so."""
FORMATS = {
    **{version: name for name, version in LAYOUTS.items()},
    **{version: "sided" for version in (SIDED_DRAWS_STORED, SIDED_XZ, ONE_SIDED, ONE_SIDED_XZ)},
    BLOCKS_XZ: "blocks",
}
"""The layout's name of each ``format_version`` this version of tablebase reads."""
AUTO = "auto"
"""The default layout's name: over an index space sided where its keys alternate sides
to move, else blocks; packed where the keys are no index space."""
_TABLE_PREFIXES = {ROWS: "positions", PACKED: "chunks", **{version: "blocks" for version, name in FORMATS.items() if name in ("sided", "blocks")}}
EXTRA_KINDS = (StoredKind.GRUNDY, StoredKind.SCORE, StoredKind.DTZ)
"""Value kinds with one more number per position: in a table ``extra_<id>`` in the
packed and rows layouts, in a column of its own in the blocks layout."""

BUILDING = "building"
COMPLETE = "complete"


class Base(DeclarativeBase):
    """Declarative base of the Alembic-owned tables."""


class TablebaseRow(Base):
    """One tablebase: a game with its parameters, and what its build produced.

    Counts and ``max_remoteness`` (plies) are filled in when the build completes.
    """

    __tablename__ = "tablebases"
    # Ids are never reused, so a reader holding an old id never sees a rebuilt table. The
    # index is not unique: a rebuild is written beside the tablebase it replaces.
    __table_args__ = (Index("ix_tablebases_game_params", "game", "params"), {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game: Mapped[str] = mapped_column(String(64))
    params: Mapped[str] = mapped_column(Text)
    description: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    format_version: Mapped[int] = mapped_column(Integer)
    value_kind: Mapped[str] = mapped_column(String(16), server_default="wdl")
    game_version: Mapped[int] = mapped_column(Integer, server_default="1")
    """The game's :attr:`~tablebase.core.game.Game.version` it was built for: with ``game``
    and ``params``, the identity of the tablebase."""
    builder: Mapped[str | None] = mapped_column(String(255), nullable=True)
    """``host:pid`` of the process building it, while ``building`` (for messages: a
    build's lock tells whether that process lives, see :mod:`tablebase.store.locks`)."""
    positions: Mapped[int | None] = mapped_column(BigInteger)
    wins: Mapped[int | None] = mapped_column(BigInteger)
    draws: Mapped[int | None] = mapped_column(BigInteger)
    losses: Mapped[int | None] = mapped_column(BigInteger)
    max_remoteness: Mapped[int | None] = mapped_column(Integer)
    build_seconds: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    completed_at: Mapped[datetime | None] = mapped_column(DateTime)

    @property
    def table_name(self) -> str:
        """Name of this tablebase's values table (see the module docstring)."""
        return f"{_TABLE_PREFIXES[self.format_version]}_{self.id}"

    @property
    def layout(self) -> str | None:
        """The name of its storage layout (None for a format this version does not know)."""
        return FORMATS.get(self.format_version)

    @property
    def codec(self) -> str | None:
        """The name of the codec of its blobs in a blocks layout, ``zstd`` or ``xz``
        (:mod:`~tablebase.store.codecs`); None in the packed and rows layouts and in a
        format this version does not know."""
        if self.format_version in XZ_FORMATS.values():
            return "xz"
        return "zstd" if self.layout in ("sided", "blocks") else None

    @property
    def dtm_left_out(self) -> bool:
        """Whether its black to move's DTM is left out, valued from the moves when read
        (:data:`ONE_SIDED`, :data:`ONE_SIDED_XZ`)."""
        return self.format_version in (ONE_SIDED, ONE_SIDED_XZ)

    def to_json(self) -> dict[str, Any]:
        """The catalog row as JSON, as ``tablebase info --json`` and ``/api/tablebases``
        print it: parameters parsed, the layout named, times in ISO 8601."""
        return {
            "game": self.game,
            "params": json.loads(self.params),
            "description": self.description,
            "game_version": self.game_version,
            "status": self.status,
            "format_version": self.format_version,
            "layout": self.layout,
            "codec": self.codec,
            "dtm_left_out": self.dtm_left_out,
            "value_kind": self.value_kind,
            "positions": self.positions,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "max_remoteness": self.max_remoteness,
            "build_seconds": self.build_seconds,
            "created_at": self.created_at.isoformat(),
            "completed_at": self.completed_at.isoformat() if self.completed_at else None,
        }


KEY_TYPE = BigInteger().with_variant(Integer(), "sqlite")


@functools.lru_cache(maxsize=256)
def positions_table(name: str) -> Table:
    """The positions table of one tablebase (in a metadata of its own, not Alembic's).

    Columns: ``key`` (canonical key), ``outcome`` (-1 loss, 0 draw, 1 win, for the side
    to move), ``remoteness`` (plies; null for a draw that can cycle). The same object is
    returned for the same name, so SQLAlchemy's statement cache serves repeated probes.
    """
    return Table(
        name,
        MetaData(),
        Column("key", KEY_TYPE, primary_key=True, autoincrement=False),
        Column("outcome", SmallInteger, nullable=False),
        Column("remoteness", Integer, nullable=True),
    )
