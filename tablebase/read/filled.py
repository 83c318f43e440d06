"""The store's reads as the readers above it want them: every remoteness valued.

A one-sided tablebase (``--dtm-sides``) leaves black to move's DTM out, and the store
reads it as :data:`~tablebase.core.values.TO_DERIVE`; these reads give it valued from
the position's moves (:func:`tablebase.read.derived.with_dtm`), so that no reader sees
the difference: whole reads (``verify``, ``export``, ``stats``, a repack), array probes
(the Python API) and point probes (queries). A reader of outcomes and DTZ alone reads
the store itself, or passes ``dtm=False``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from tablebase.core.values import TO_DERIVE
from tablebase.read.derived import with_dtm
from tablebase.store import Store, TablebaseRow
from tablebase.store.layout import Value


def read_values(store: Store, row: TablebaseRow) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:meth:`Store.read_values <tablebase.store.reading.Reading.read_values>`, every
    remoteness valued.

    :returns: ``(keys, outcome, remoteness)``: int64[n] ascending, int8[n] and int32[n]
        (plies; -1 for none).
    :raises StoreError: if the database fails, a stored chunk is damaged, or a move's
        successor is not stored.
    """
    keys, outcome, remoteness = store.read_values(row)
    return keys, outcome, with_dtm(store, row, keys, outcome, remoteness)


def read_parts(store: Store, row: TablebaseRow, extra: bool = False, known: bool = False) -> Iterator[tuple[np.ndarray, ...]]:
    """:meth:`Store.read_parts <tablebase.store.reading.Reading.read_parts>`, every
    remoteness valued, a part at a time.

    :returns: ``(keys, outcome, remoteness)`` per part as :func:`read_values` gives them,
        then ``extra`` and ``known`` as the store gives them.
    :raises StoreError: as :func:`read_values`, or if the tablebase stores no extra
        values but they are asked for.
    """
    for keys, outcome, remoteness, *beside in store.read_parts(row, extra, known):
        yield (keys, outcome, with_dtm(store, row, keys, outcome, remoteness), *beside)


def probe_array(
    store: Store, row: TablebaseRow, keys: np.ndarray, dtm: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """:meth:`Store.probe_array <tablebase.store.reading.Reading.probe_array>`, every
    remoteness valued.

    :param keys: int64[n] canonical keys, in any order, repeats allowed.
    :param dtm: false for a reader of outcomes and DTZ alone: a remoteness the tablebase
        leaves out is then :data:`~tablebase.core.values.TO_DERIVE`, not valued.
    :returns: ``(found, outcome, remoteness, extra)``: bool[n]; int8[n] and int32[n]
        (plies, -1 for none), 0 and -1 where not found; int64[n] Grundy values, scores
        or DTZ (0 where there is none), or None for a tablebase that stores none.
    :raises StoreError: as :func:`read_values`.
    """
    keys = np.asarray(keys, dtype=np.int64)
    found, outcome, remoteness, extra = store.probe_array(row, keys)
    return found, outcome, (with_dtm(store, row, keys, outcome, remoteness) if dtm else remoteness), extra


def probe_both(store: Store, row: TablebaseRow, keys: Iterable[int], dtm: bool = True) -> dict[int, tuple[Value, int | None]]:
    """:meth:`Store.probe_both <tablebase.store.reading.Reading.probe_both>`, every
    remoteness valued: each stored key's value and its Grundy value, score or DTZ.

    :param dtm: false for a reader of outcomes and DTZ alone: a remoteness the tablebase
        leaves out is then None, not valued.
    :raises StoreError: as :func:`read_values`, or if the tablebase stores no extra values.
    """
    both = store.probe_both(row, keys)
    if not row.dtm_left_out:
        return both
    left_out = [key for key, ((_outcome, remoteness), _extra) in both.items() if remoteness == TO_DERIVE]
    if not left_out:
        return both
    if dtm:
        marked = np.array(left_out, dtype=np.int64)
        outcome = np.array([both[key][0][0] for key in left_out], dtype=np.int8)
        valued = with_dtm(store, row, marked, outcome, np.full(len(left_out), TO_DERIVE, dtype=np.int32)).tolist()
    else:
        valued = [-1] * len(left_out)
    return {**both, **{key: ((both[key][0][0], None if plies < 0 else plies), both[key][1]) for key, plies in zip(left_out, valued)}}
