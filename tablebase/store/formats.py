"""How a store chooses the format of the tablebases it writes: whose DTM the sided
layout keeps (:data:`DTM_SIDES`), what of a game's keys chooses (:class:`KeyShape`), the
layout, codec, level and DTM sides a store is opened with (:class:`Storing`), and the
``format_version`` those make (:func:`format_version`)."""

from __future__ import annotations

from typing import NamedTuple

from tablebase.core.values import StoredKind
from tablebase.store.codecs import XZ, ZSTD, Codec
from tablebase.store.schema import AUTO, BLOCKS, LAYOUTS, ONE_SIDED_FORMATS, PACKED, SIDED, XZ_FORMATS

AUTO_SIDES, BOTH_SIDES, ONE_SIDE = "auto", "both", "one"
DTM_SIDES = (AUTO_SIDES, BOTH_SIDES, ONE_SIDE)
"""Whose DTM the sided layout stores of a tablebase with DTZ whose moves cross sides
(:attr:`~tablebase.core.game.Game.moves_cross_sides`): both sides to move's, or white to
move's alone (``one``: black to move's valued from its moves when read, one blob a
block instead of two), or ``auto``, the default: white to move's alone where the game
says so (:attr:`~tablebase.core.game.Game.dtm_left_out_by_default`: the 5-piece chess
endings where white alone has pawns, KRPvKR much smaller on disk; see
``benchmarks/disk_one_side.py``, benchmarks/RESULTS.md), both sides' elsewhere (the
endings without pawns, KQvKR and KRBvKR, keep their DTM a probe away)."""


class KeyShape(NamedTuple):
    """What of a game's keys chooses the format a store writes its tablebase in
    (:meth:`~tablebase.store.writing.Writing.begin_build`,
    :meth:`~tablebase.store.writing.Writing.repack`); the store reads no game, so its
    caller says (:func:`tablebase.read.stored.key_shape`)."""

    index_space: bool = False
    """Whether the keys are an index space (the ``auto`` layout stores those in blocks)."""
    sides_alternate: bool = False
    """Whether the lowest bit of its keys is the side to move (the ``auto`` layout
    stores such an index space sided)."""
    sides_cross: bool = False
    """Whether, besides, every move within it changes that bit
    (:attr:`~tablebase.core.game.Game.moves_cross_sides`): where a store leaves one side's
    DTM out (:data:`DTM_SIDES`), only such a tablebase's."""
    dtm_left_out_by_default: bool = False
    """Whether the ``auto`` DTM sides leave one side's DTM out of it
    (:attr:`~tablebase.core.game.Game.dtm_left_out_by_default`)."""


class Storing(NamedTuple):
    """How a store writes the tablebases it builds or repacks, as
    :func:`~tablebase.store.database.open_store` takes it
    (``open_store(location, **storing._asdict())``): one value to hand to the processes
    of a cluster build."""

    layout: str = AUTO
    """A name in :data:`~tablebase.store.schema.LAYOUTS`, or ``auto``."""
    codec: str = ZSTD.name
    """A name in :data:`~tablebase.store.codecs.CODECS`."""
    level: int | None = None
    """The codec's level; None for its default."""
    dtm_sides: str = AUTO_SIDES
    """A name in :data:`DTM_SIDES`."""


def format_version(layout: str, codec: Codec, dtm_sides: str, shape: KeyShape, value_kind: str) -> int:
    """The ``format_version`` of a new tablebase of a value kind in a store's layout
    (a name in :data:`~tablebase.store.schema.LAYOUTS`, or ``auto``), codec and DTM
    sides (:data:`DTM_SIDES`), for a game whose keys have the shape ``shape``
    (see :meth:`~tablebase.store.writing.Writing.begin_build`)."""
    if layout == AUTO:
        version = (SIDED if shape.sides_alternate else BLOCKS) if shape.index_space else PACKED
    else:
        version = LAYOUTS[layout]
    one_side = dtm_sides == ONE_SIDE or (dtm_sides == AUTO_SIDES and shape.dtm_left_out_by_default)
    if one_side and value_kind == StoredKind.DTZ and shape.sides_cross:
        version = ONE_SIDED_FORMATS.get(version, version)
    return XZ_FORMATS.get(version, version) if codec is XZ else version
