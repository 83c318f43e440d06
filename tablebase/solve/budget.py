"""Whether a build fits in memory, estimated from a game's parameters before it starts.

A build holds every position and move in numpy arrays, so its peak memory grows with its
positions. The estimate multiplies the positions a game expects
(:meth:`~tablebase.core.game.Game.estimate_positions`) by :data:`BYTES_PER_POSITION` (or
by the game's own measured ``bytes_per_position``), adds
the lookup table of an index space (or, for an index space solved by un-moves, counts
:data:`PROCESS_BYTES` and
:data:`UNMOVE_BYTES_PER_INDEX_KEY` a key instead, or the DTZ levels' bytes where
they take more, and :data:`DEPENDENCY_BYTES` a key of the index spaces of its
dependencies, read over them or over the keys their moves can reach), and compares that with the memory the system has
available (``MemAvailable`` of ``/proc/meminfo``, else ``os.sysconf``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from tablebase.core.errors import ParameterError, TooBigError
from tablebase.core.game import Game
from tablebase.core.values import StoredKind
from tablebase.solve.graph import DENSE_INDEX_LIMIT
from tablebase.solve.kinds import kind_of
from tablebase.solve.kinds.dtz import Dtz

BYTES_PER_POSITION = 120
"""Peak bytes of a build per position, as Connect Four's largest builds measure them end
to end with storage (benchmarks/RESULTS.md). Games with many more moves a position
(chess) need more; the estimate is there to refuse the builds that cannot fit by far."""

BYTES_PER_INDEX_KEY = 4
"""Bytes a key of an index space costs in the lookup table from key to position
(:func:`~tablebase.solve.graph.dense_index`), for spaces up to its limit."""

UNMOVE_BYTES_PER_INDEX_KEY = 6
"""Peak bytes a key of an index space costs in the un-move pass (:mod:`tablebase.solve.unmoves`:
four of :class:`~tablebase.solve.retrograde.state.PositionState`, the rest the frontiers of
the largest levels and the interpreter), as the 5-piece chess endings measure it
(benchmarks/RESULTS.md), whatever the metric: with DTZ, passes A and B over
the same survey (chess without pawns) take one byte a key more each during the survey
and hold one byte beside a pass, and a game with zeroing moves inside has its DTM pass
last, over the survey its DTZ levels wrote to disk, the DTZ set aside meanwhile. The
solved positions go to the store a range of keys at a time, at no cost a position."""

LEVEL_BYTES = (3, 6)
"""The DTZ passes one progress level at a time (a game with zeroing moves inside its
tablebase, :mod:`tablebase.solve.kinds.dtz`'s passes by levels): bytes a key of the whole index
space (DTZ and category), and bytes a key of the largest level (its survey, a state
and a byte of codes, and the frontiers)."""

BYTE_PASS_BYTES = (1, 2**29)
"""The one-byte DTZ pass (:mod:`tablebase.solve.bytepass`): a byte a key of the index
space (its code; the flags of its chunks add 1/400 byte), and what its threads hold at
once beside it (a batch's survey, a step's un-moves)."""

ORDERED_BYTES_PER_KEY = 5
"""Peak bytes a key of an index space costs in the sweep by key order
(:mod:`tablebase.solve.ordered`): four for its int16 score, its outcome and its
remoteness, and the write's batches (as Kalah(6,2) measures it, benchmarks/RESULTS.md)."""

PROCESS_BYTES = 300 * 2**20
"""What a build by un-moves holds before its first position: the interpreter, numpy,
SQLAlchemy, numba and its compiled kernels (as chess measures it, benchmarks/RESULTS.md)."""

KEY_LIMIT = 2**63
"""Keys are non-negative integers below this (docs/design.md)."""

DEPENDENCY_BYTES = (1, 2)
"""Bytes a key of a dependency's index space, read over it (or over its keys that
moves can reach, :meth:`~tablebase.core.game.Game.exit_window`;
:class:`~tablebase.solve.tables.IndexedTable`): one without DTZ, two with it."""


@dataclass(frozen=True)
class SizeEstimate:
    """About how big a build is: ``positions``, and ``memory`` in bytes at its peak
    (its time: :mod:`tablebase.build.timing`)."""

    positions: int
    memory: int


def estimate(game: Game) -> SizeEstimate | None:
    """The :class:`SizeEstimate` of a game's build, or ``None`` when the game cannot tell."""
    positions = game.estimate_positions()
    if positions is None:
        return None
    space = int(game.size or 0)
    kind = kind_of(game)
    with_dtz = kind.stored == StoredKind.DTZ
    if space and kind.uses_unmoves(game):
        dtz = with_dtz and not game.zeroing_inside()  # with pawns a byte a key, as KRPvKR measures (RESULTS.md)
        read = sum(_read_keys(game, dependency) for dependency in game.dependencies()) * DEPENDENCY_BYTES[dtz]
        if isinstance(kind, Dtz) and kind.uses_byte_pass(game):
            return SizeEstimate(int(positions), PROCESS_BYTES + space * BYTE_PASS_BYTES[0] + BYTE_PASS_BYTES[1] + read)
        memory = space * UNMOVE_BYTES_PER_INDEX_KEY
        if with_dtz and game.zeroing_inside():
            memory = max(memory, space * LEVEL_BYTES[0] + largest_level(game) * LEVEL_BYTES[1])
        return SizeEstimate(int(positions), PROCESS_BYTES + memory + read)
    if space and game.key_order_levels() is not None:
        return SizeEstimate(int(positions), PROCESS_BYTES + space * ORDERED_BYTES_PER_KEY)
    index = space * BYTES_PER_INDEX_KEY if space <= DENSE_INDEX_LIMIT else 0
    return SizeEstimate(int(positions), int(positions) * (game.bytes_per_position or BYTES_PER_POSITION) + index)


PARTITION_ROUND_BYTES = 100 * 2**20
"""What a partition of the partitioned pass (:mod:`tablebase.solve.partitioned`) holds
for one round beside its state: a chunk of its frontier's un-moves, routed by owner, and
the updates it receives, and its frontier bitsets (as KRBvKR with 4 partitions measures
it, its workers' peaks under the estimate, benchmarks/RESULTS.md)."""


def partition_estimate(game: Game, partitions: int) -> SizeEstimate | None:
    """The :class:`SizeEstimate` of each worker's share of a partitioned build of
    ``game`` over ``partitions`` parts (:mod:`tablebase.solve.partitioned`): the
    process, a round's updates, and four bytes a key of its range of an index space
    (:class:`~tablebase.solve.retrograde.state.PositionState`) and a byte a key for each
    other pass of its value kind (chess's DTZ and DTM: the survey's exit codes, then
    a pass's results kept beside the next pass's state) with the dependencies its
    survey reads, or for a game found by forward search twelve bytes a position of its
    share (the state and the key, int64 at most); ``None`` when the game cannot tell."""
    whole = estimate(game)
    if whole is None:
        return None
    share = -(-whole.positions // partitions)
    if game.size is None:
        return SizeEstimate(share, PROCESS_BYTES + share * 12 + PARTITION_ROUND_BYTES)
    keys = -(-int(game.size) // partitions)
    kind = kind_of(game)
    dtz = kind.stored == StoredKind.DTZ
    read = sum(_read_keys(game, dependency) for dependency in game.dependencies()) * DEPENDENCY_BYTES[dtz]
    plan = kind.unmove_plan(game, None)
    codes = len(plan.passes) - 1 if plan is not None else 0  # the other passes' exit codes, a byte each
    return SizeEstimate(share, PROCESS_BYTES + keys * (4 + codes) + read + PARTITION_ROUND_BYTES)


def _read_keys(game: Game, dependency: Game) -> int:
    """The keys of a dependency's index space that ``game``'s build reads: those of its
    :meth:`~tablebase.core.game.Game.exit_window`, else all."""
    window = game.exit_window(dependency)
    space = int(dependency.size or 0)
    return space if window is None else window.size(space)


def largest_level(game: Game) -> int:
    """The keys of the largest progress level of a game with ``dtz`` over an index space
    (:meth:`~tablebase.core.game.Game.progress`, by blocks of
    :meth:`~tablebase.core.game.Game.progress_block`)."""
    block = game.progress_block()
    levels = np.asarray(game.progress(np.arange(0, int(game.size or 0), block, dtype=np.int64)), dtype=np.int64)
    return int(np.unique(levels, return_counts=True)[1].max(initial=0)) * block


def available_memory() -> int | None:
    """Bytes of memory the system can give a new build without swapping: ``MemAvailable``
    of ``/proc/meminfo``, else the free physical pages of ``os.sysconf``; ``None`` when
    neither can be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def check_size(game: Game, force: bool = False, available: int | None = None, partitions: int | None = None) -> None:
    """Refuse a build that cannot fit, before it starts.

    :param force: try anyway when the estimate exceeds the memory available (keys must
        still fit below 2**63).
    :param available: bytes available (default :func:`available_memory`).
    :param partitions: check one worker's share of a build over this many partitions
        (:func:`partition_estimate`) instead of the whole build.
    :raises ParameterError: if the game's index space holds keys of 2**63 or more.
    :raises TooBigError: if the estimated memory exceeds what is available, naming both.
    """
    if game.size is not None and game.size > KEY_LIMIT:
        raise ParameterError(f"{game.describe()}: {game.size:,} keys, but keys must be below 2**63")
    found = estimate(game) if partitions is None else partition_estimate(game, partitions)
    available = available_memory() if available is None else available
    if force or found is None or available is None or found.memory <= available:
        return
    share = "" if partitions is None else f" (one of {partitions} partitions)"
    raise TooBigError(
        f"{game.describe()}{share} is too big for this machine: about {found.positions:,} positions, "
        f"about {_bytes(found.memory)} of memory, but {_bytes(available)} is available "
        "(--force-size tries anyway)"
    )


def out_of_memory(game: Game) -> TooBigError:
    """The error for a build of ``game`` that ran out of memory, with its estimate."""
    found = estimate(game)
    available = available_memory()
    said = "" if found is None else f"; estimated about {found.positions:,} positions, {_bytes(found.memory)}"
    said += "" if available is None else f"; {_bytes(available)} is available now"
    return TooBigError(f"out of memory building {game.describe()}{said}")


_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def describe_estimate(game: Game, partitions: int | None = None) -> str:
    """The memory estimate of a build in words, e.g. ``about 1.9 GiB``, or with
    ``partitions`` of each worker's share, e.g. ``each of 4 workers about 720 MiB``;
    empty when the game cannot tell."""
    if partitions is not None:
        share = partition_estimate(game, partitions)
        return "" if share is None else f"each of {partitions} workers about {_bytes(share.memory)}"
    found = estimate(game)
    return "" if found is None else f"about {_bytes(found.memory)}"


def describe_total(games: list[Game], partitions: int | None = None) -> str:
    """The memory estimate of building ``games`` one after the other, in words: the
    largest peak of one process, e.g. ``peak about 7.4 GiB``; with ``partitions``, the
    last one's peak is a worker's share (:func:`partition_estimate`)."""
    found = [e for e in map(estimate, games) if e is not None]
    share = partition_estimate(games[-1], partitions) if partitions is not None and games else None
    if share is not None:  # None exactly where the last game's own estimate is
        found[-1] = share
    return f"peak about {_bytes(max((e.memory for e in found), default=0))}"


def _bytes(count: int) -> str:
    """``count`` bytes in binary units, e.g. ``74.5 GiB`` (``1000 B`` below a KiB)."""
    power = min((max(count, 1).bit_length() - 1) // 10, len(_UNITS) - 1)
    return f"{count} B" if power == 0 else f"{count / 1024**power:.1f} {_UNITS[power]}"
