"""The commands that list the games and build their tablebases: ``games`` and ``build``."""

from __future__ import annotations

import contextlib
from typing import Annotated, Optional

import typer

from tablebase.build.builder import BuildResult, carry_out
from tablebase.build.plan import PlannedTable, build_plan
from tablebase.build.timing import duration, plan_time
from tablebase.core.errors import GameError, UsageError
from tablebase.faces.cli.options import CODEC_LEVELS, DbOpt, DtmSidesOpt, GameArg, JsonOpt, LayoutOpt, ParamsOpt, named_game
from tablebase.faces.cli.saying import counts, echo_json
from tablebase.read.catalog import Listing
from tablebase.solve.budget import describe_estimate, describe_total
from tablebase.solve.partitioned.surveyed import check_partitions
from tablebase.solve.registry import game_class, game_entry_points
from tablebase.store import Store, Storing, open_store, removed_if_unused, resolve_location
from tablebase.util.progress import plan_bar, tqdm_stages

LevelOpt = Annotated[
    Optional[int], typer.Option("--level", metavar="LEVEL", help=f"The codec's level for the sided and blocks layouts: {CODEC_LEVELS}.")
]
CodecOpt = Annotated[
    str,
    typer.Option(
        "--codec",
        metavar="zstd|xz",
        help="What compresses the sided and blocks layouts: zstd (default) or xz, which keeps chess 20 to 26% smaller "
        "(KRPvKR in 0.28 bytes a position), takes 1.8 times as long to build KRPvKR and reads a block for the first "
        "time two to three times as slow (warm probes alike); `tablebase db repack` changes it later.",
    ),
]


def games() -> None:
    """List the registered games, their parameters and position syntax (no database)."""
    broken = 0
    for name in sorted(game_entry_points()):
        try:
            cls = game_class(name)
        except GameError as error:
            typer.echo(f"error: {error}", err=True)
            broken += 1
            continue
        typer.echo(f"{name}: {cls.description}")
        typer.echo(f"  position: {cls.position_syntax}")
        for p in cls.parameters:
            default = "required" if p.default is None else f"default {p.show(p.default)}"
            typer.echo(f"  -p {p.name}=...  {p.help} ({default})")
    if broken:
        raise typer.Exit(1)


def build(
    game: GameArg,
    param: ParamsOpt = None,
    db: DbOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if a complete tablebase is stored; take over a build another process holds.")] = False,
    force_size: Annotated[
        bool, typer.Option("--force-size", help="Build even if the estimated memory exceeds what is available.")
    ] = False,
    layout: LayoutOpt = "auto",
    codec: CodecOpt = "zstd",
    level: LevelOpt = None,
    dtm_sides: DtmSidesOpt = "auto",
    workers: Annotated[
        Optional[int], typer.Option("--workers", metavar="N", min=1, help="Processes that generate moves (default: one per core).")
    ] = None,
    cluster: Annotated[
        Optional[str],
        typer.Option("--cluster", metavar="URL", envvar="TABLEBASE_CLUSTER", help="Dask scheduler (tcp://host:8786) whose workers build and generate moves."),
    ] = None,
    partitions: Annotated[
        Optional[int],
        typer.Option(
            "--partitions", metavar="P", min=1,
            help="With --cluster: solve the tablebase over P partitions of its positions, each held by a worker (games with un-moves: chess, its pawn endings with -p metric=dtm; Connect Four).",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan (what would be built, what reused) and build nothing.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Build a tablebase, or reuse the one already stored; first print the plan, when it
    holds more than the tablebase itself: every tablebase the build makes or reuses
    (dependencies first)."""
    instance = named_game(game, param)
    report = _echo_build_json if as_json else _say_built
    if partitions is not None and not cluster:
        raise UsageError("--partitions needs --cluster: the partitions are held by a cluster's workers")
    if partitions is not None:
        check_partitions(instance)
    storing = Storing(layout, codec, level, dtm_sides)
    with removed_if_unused(db), open_store(db, storing=storing) as store:
        plan = build_plan(instance, store, force)
        if dry_run or (len(plan) > 1 and not as_json):
            _say_plan(plan, store, estimates=dry_run, partitions=partitions)
        if dry_run:
            return
        if cluster:
            from tablebase.build.cluster import build_on_cluster, connect

            with connect(cluster) as client:
                build_on_cluster(
                    client, instance, resolve_location(db), storing=storing, force=force, force_size=force_size,
                    stages=tqdm_stages, report=report, partitions=partitions,
                    notice=lambda line: typer.echo(line, err=True),
                )
        else:
            building = [planned.game for planned in plan if not planned.reused]
            expected = [game.estimate_positions() or 0 for game in building]
            weights = iter(expected)  # the builds report in the plan's order
            with plan_bar(len(building), sum(expected)) if len(building) > 1 else contextlib.nullcontext(None) as done:

                def reported(result: BuildResult) -> None:
                    report(result)
                    if done is not None and not result.reused:
                        done(next(weights))

                carry_out(plan, store, force_size=force_size, stages=tqdm_stages, workers=workers, report=reported)
    if all(planned.reused for planned in plan) and not as_json:
        typer.echo("(use --force to rebuild)")


def _say_plan(plan: list[PlannedTable], store: Store, estimates: bool = False, partitions: int | None = None) -> None:
    """The plan, one tablebase a line; with ``estimates``, each build's estimated peak
    memory (the last one's per worker with ``partitions``) and time, the whole plan's, and
    what the time assumes (:func:`~tablebase.build.timing.plan_time`)."""
    to_build = sum(not planned.reused for planned in plan)
    typer.echo(f"plan: {to_build} to build, {len(plan) - to_build} to reuse")
    timed = plan_time(plan, store) if estimates and to_build else None
    for number, planned in enumerate(plan, 1):
        shared = partitions if number == len(plan) else None
        said = describe_estimate(planned.game, shared) if estimates and not planned.reused else ""
        if said and timed is not None:
            said += f", {duration(timed.tables[number - 1])}"
        typer.echo(f"  {planned.action:<7} {planned.game.describe()}" + (f"  ({said})" if said else ""))
    if estimates and to_build:
        built = [planned.game for planned in plan if not planned.reused]
        took = "" if timed is None else f", about {duration(timed.total)}"
        typer.echo(f"in all: {describe_total(built, partitions if not plan[-1].reused else None)}{took}")
        if timed is not None:
            typer.echo(f"assuming: {timed.assumes}")


def _say_built(result: BuildResult) -> None:
    listing = Listing(result.row, [])
    verb = "reused stored" if result.reused else "built"
    took = "" if result.reused else f" in {result.row.build_seconds:.2f} s"
    typer.echo(f"{verb} {result.row.description}: {counts(listing)}{took}")


def _echo_build_json(result: BuildResult) -> None:
    echo_json({**Listing(result.row, []).json(), "reused": result.reused})
