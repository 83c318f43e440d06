"""How long a build takes, estimated before it starts (``build --dry-run``), and what the
estimate assumes.

A command's time is Python's start-up (:data:`STARTUP_SECONDS`), then each tablebase's build:
:data:`TABLE_SECONDS` and the work of its positions at a pace. The work of a tablebase at
the reference pace (this project's 2-core machine, benchmarks/RESULTS.md) is
:func:`reference_seconds`: for an index space solved by un-moves (chess, its pawn endings)
a power of its keys, fitted to chess endings of 4 and 5 pieces, less for a share of drawn
positions (:data:`UNMOVE_PACE`); for any other game its estimated positions
at Connect Four's pace. Where the database holds complete builds of the same game, the
pace is theirs (:func:`recorded_pace`): their recorded seconds over their reference
seconds, so that a machine twice as slow, or busy, is estimated twice as slow. The
kernels are assumed compiled (numba caches them on disk); the first build after an install
or an upgrade compiles them first, :data:`COMPILE_SECONDS` more, which a build's
recorded seconds leave out.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablebase.build.plan import PlannedTable
from tablebase.core.errors import TablebaseError
from tablebase.core.game import Game
from tablebase.core.values import StoredKind
from tablebase.read.catalog import row_game
from tablebase.solve.kinds import ValueKind, kind_of
from tablebase.solve.kinds.dtz import Dtz
from tablebase.store import COMPLETE, Store

STARTUP_SECONDS = 1.4
"""Seconds from the command's start to its first build and from its last to its end: the
interpreter, the imports (typer, SQLAlchemy, numba), the database opened, the workers
stopped, as ``build tictactoe`` measures them (its wall time less its recorded build time:
1.33 to 1.42 s on an idle machine, 1.3 to 2.0 s on a busy one, benchmarks/RESULTS.md)."""

TABLE_SECONDS = 0.15
"""Seconds a tablebase's build takes beyond its positions' work: reserving its row,
reading its dependencies' rows, writing and completing it (chess KQvK, KRvK and KBvK,
benchmarks/RESULTS.md)."""

UNMOVE_PACE = {
    "dtm": (1.51e-6, 0.925, 0.34),
    "dtm with zeroing inside": (1.91e-7, 1.013, 0.62),
    "dtz": (1.37e-6, 0.955, 0.27),
    "dtz with zeroing inside": (3.84e-7, 1.013, 0.63),
    "dtz in one byte": (3.4e-7, 1.0, 0.27),
}
"""``(c, p, a)``: an index space of ``n`` keys solved by un-moves takes ``c * n ** p``
seconds at the reference pace when all its positions are decided, and ``a`` times that
when all are drawn, in between by the work of its decided positions
(:meth:`~tablebase.core.game.Game.decided_work`: their share, weighed by their un-moves); by what it stores, DTM alone or DTZ
(and DTM), and whether some moves inside are zeroing moves (chess with pawns). Fitted to
chess builds on this project's 2-core machine, idle (benchmarks/RESULTS.md, "Issue 52:
estimates fitted"): ``a`` and the time of a decided ending of 4 pieces by a line through
every 4-piece ending's time against its measured share (DTZ without pawns: drawn 0.72 s,
decided 2.62 s, each within 15% of the line but KRRvK and KBBvK, 27% below; with pawns
4.46 s and 7.07 s, KPPvK 36% below); ``p`` through one 5-piece ending besides (KRBvKR,
a share of 0.22: 78 s with DTZ, 55 s with DTM; KRPvKR, 0.56: 400 s; for DTM with pawns
the DTZ's ``p``). When keys came to number king pairs (chess version 3: 462 of the 640
placements of two kings without pawns, 1806 of 2048 with), ``c`` was raised by that
ratio to the power ``-p``, the time of an ending changing little (KRBvKR 10% less). Then,
the survey faster at five pieces than at four (KRBvKR 63 to 66 s with DTZ and DTM on an
idle machine, against 91 s estimated), ``p`` without pawns was lowered by 0.069 through
KRBvKR's 68 s, ``c`` raised to keep the 4-piece endings' times (KQvKR's keys); DTM
alone was given the same change, its 5-piece time not measured again. DTZ by the
one-byte pass of six pieces (:mod:`tablebase.solve.bytepass`): ``p`` 1 and ``a``
DTZ's, ``c`` between the two 6-piece endings built beside the generator
(benchmarks/RESULTS.md, seventh session: KRBvKRN 15.5 x 10^9 keys in 2,187 s, 18% less
than this says; KRRvKRB 7.6 x 10^9 in 1,501 s, 15% more), both of decided work 0.3.
KNNNNvK (587 x 10^6 keys, decided work 0.93) took 557 s with an older pass, three times
what this says: its knights' and twins' un-moves make it slow a key, so endings of
many minor pieces are under-estimated."""

GRAPH_SECONDS_PER_POSITION = 0.8e-6
"""Seconds a position (as :meth:`~tablebase.core.game.Game.estimate_positions` counts
them) takes in a build by a move graph or forward search, at Connect Four's pace (5x4:
2.8 million positions estimated, 2.0 million found, in 2.2 to 2.5 s on an idle machine,
benchmarks/RESULTS.md)."""

PACE_FROM_SECONDS = 0.5
"""A recorded build counts towards :func:`recorded_pace` when its reference seconds
reach this: below, its fixed costs are most of it."""

PACE_PRIOR_SECONDS = 10.0
"""The reference's own pace counts in :func:`recorded_pace` as builds of this many
reference seconds would: one tablebase may take twice its estimate at any pace (KQvKR),
so that a few small builds move the pace only part of the way, and many all of it."""

COMPILE_SECONDS = (15, 180)
"""About how long the first build after an install or upgrade compiles the kernels it
uses, which the estimate leaves out: from tic-tac-toe's (15 s) to a chess variant's
(180 s; chess's 60 s), with an empty cache (benchmarks/RESULTS.md)."""


@dataclass(frozen=True)
class Pace:
    """How fast this machine builds a game's tablebases against the reference.

    :ivar factor: seconds here over seconds at the reference pace (2: twice as slow).
    :ivar builds: the recorded builds it comes from; 0 for the reference's own pace.
    """

    factor: float
    builds: int


@dataclass(frozen=True)
class PlanTime:
    """The estimated time of a build plan.

    :ivar tables: seconds of each tablebase of the plan, in its order; 0 for one reused.
    :ivar total: seconds of the whole command, start-up included, kernels compiled.
    :ivar assumes: what the estimate assumes, in words.
    """

    tables: list[float]
    total: float
    assumes: str


def reference_seconds(game: Game) -> float | None:
    """Seconds the work of ``game``'s positions takes at the reference pace, kernels
    compiled, beyond :data:`TABLE_SECONDS`; ``None`` when the game cannot tell how many
    positions it has."""
    space = int(game.size or 0)
    kind = kind_of(game)
    if space and kind.uses_unmoves(game):
        c, p, drawn = UNMOVE_PACE[_unmove_bucket(game, kind)]
        return c * space**p * (drawn + (1 - drawn) * game.decided_work())
    positions = game.estimate_positions()
    return None if positions is None else positions * GRAPH_SECONDS_PER_POSITION


def _unmove_bucket(game: Game, kind: ValueKind) -> str:
    """The key of :data:`UNMOVE_PACE` for a game solved by un-moves, of value kind ``kind``."""
    if isinstance(kind, Dtz) and kind.uses_byte_pass(game):
        return "dtz in one byte"
    stored = "dtz" if kind.stored == StoredKind.DTZ else "dtm"
    return f"{stored} with zeroing inside" if game.zeroing_inside() else stored


def recorded_pace(store: Store, name: str) -> Pace:
    """The pace of this machine at game ``name``: the seconds recorded by its complete
    builds in ``store`` (less :data:`TABLE_SECONDS` each) over their reference seconds,
    summed over those whose reference seconds reach :data:`PACE_FROM_SECONDS`, each sum
    with :data:`PACE_PRIOR_SECONDS` of the reference's own pace (1) added; 1 where there
    are none. A build whose game cannot be loaded here (another version's parameters) is
    left out.

    :raises StoreError: if the database fails.
    """
    spent = reference = 0.0
    builds = 0
    for row in store.catalog(name):
        if row.status != COMPLETE or row.build_seconds is None:
            continue
        try:
            expected = reference_seconds(row_game(row))
        except TablebaseError:
            continue
        if expected is None or expected < PACE_FROM_SECONDS:
            continue
        spent += max(0.0, row.build_seconds - TABLE_SECONDS)
        reference += expected
        builds += 1
    return Pace((spent + PACE_PRIOR_SECONDS) / (reference + PACE_PRIOR_SECONDS), builds)


def plan_time(plan: list[PlannedTable], store: Store) -> PlanTime | None:
    """The estimated time of carrying out ``plan`` (:func:`~tablebase.build.plan.build_plan`)
    in a command: :data:`STARTUP_SECONDS`, then each tablebase it builds at
    :func:`recorded_pace` of its game. ``None`` when a tablebase to build cannot tell
    its positions.

    :raises StoreError: if the database fails.
    """
    paces: dict[str, Pace] = {}
    tables = []
    for planned in plan:
        if planned.reused:
            tables.append(0.0)
            continue
        expected = reference_seconds(planned.game)
        if expected is None:
            return None
        name = planned.game.name
        if name not in paces:
            paces[name] = recorded_pace(store, name)
        pace = paces[name]
        tables.append(TABLE_SECONDS + pace.factor * expected)
    return PlanTime(tables, STARTUP_SECONDS + sum(tables), _assumptions(paces))


def _assumptions(paces: dict[str, Pace]) -> str:
    """What :func:`plan_time` assumed, in words."""
    said = []
    for name, pace in paces.items():
        if pace.builds:
            builds = f"{pace.builds} earlier {name} build{'s' if pace.builds > 1 else ''} here"
            said.append(f"{name} at the pace of {builds} ({pace.factor:.2g}x the reference machine's)")
        else:
            said.append(f"{name} at the reference machine's pace (2 cores; nothing built here yet to measure this one's)")
    return (
        f"{STARTUP_SECONDS:g} s to start, " + ", ".join(said)
        + f", the kernels compiled (the first build after an install compiles them: "
        f"{COMPILE_SECONDS[0]} s to {COMPILE_SECONDS[1] // 60} min more)"
    )


def duration(seconds: float) -> str:
    """``seconds`` in words: ``2.5 s`` below 10 s, ``40 s``, ``1.5 min`` below 10 min,
    ``12 min`` or ``5.2 h``."""
    minutes = seconds / 60
    if seconds < 10:
        return f"{seconds:.1f} s"
    if minutes < 10:
        return f"{seconds:.0f} s" if minutes < 1 else f"{minutes:.1f} min"
    return f"{minutes:.0f} min" if minutes < 90 else f"{minutes / 60:.1f} h"
