"""The ``tablebase`` command: a thin typer layer that parses arguments, calls the library
and prints. Errors become one ``error: ...`` line and an exit code in one place,
:class:`_ErrorReportingGroup`: 2 for a usage error, 1 for any other.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from collections.abc import Callable
from typing import Annotated, Any, NoReturn, Optional

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from tablebase import __version__
from tablebase.build.builder import BuildResult
from tablebase.build.builder import build as build_tablebase
from tablebase.read.catalog import Listing, filter_class, listings
from tablebase.util.cores import usable_cores
from tablebase.tools.check import check_game, sample_positions
from tablebase.core.errors import GameError, TablebaseError, UsageError
from tablebase.tools.export import atomic_file, check_format
from tablebase.tools.export import export as export_tablebase
from tablebase.core.game import Game, Position
from tablebase.solve.registry import game_class, game_entry_points, game_failure, load_game
from tablebase.core.parameters import parse_assignments
from tablebase.util.interrupt import Interrupted, interruptible
from tablebase.build.plan import PlannedTable, build_plan
from tablebase.tools.plot import image_format as image_format_of
from tablebase.tools.plot import tablebase_histogram
from tablebase.util.progress import plan_bar, tqdm_stages
from tablebase.solve.budget import describe_estimate, describe_total
from tablebase.solve.partitioned.surveyed import check_partitions
from tablebase.tools.repack import repack
from tablebase.read.query import DEFAULT_LINE_BOUND, RankedMove, Tablebase, Value, check_metric
from tablebase.tools.stats import RuleStatistics, rule_statistics
from tablebase.read.stream import report_lines
from tablebase.store import Store, Storing, TablebaseRow, open_store, removed_if_unused, resolve_location, schema_revisions, upgrade_schema
from tablebase.core.values import DTZ
from tablebase.tools.verify import verify_game


class _PlainHelp:
    """Help that names each value plainly: ``GAME`` for a required argument, ``[GAME]``
    for an optional one, a flag without a type, an option by its metavar (typer would
    write ``{GAME}``, ``<bool>``, ``<list[str]>``)."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = super().collect_usage_pieces(ctx)  # type: ignore[misc]
        arguments = [p for p in self.get_params(ctx) if isinstance(p, TyperArgument)]
        shown = [a.metavar or (a.name or "").upper() for a in arguments]
        return pieces[: len(pieces) - len(arguments)] + [
            name if a.required else f"[{name}]" for a, name in zip(arguments, shown)
        ]

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)  # type: ignore[misc]
        for param in params:
            if isinstance(param, TyperArgument):
                param.display_type_rich = _no_type  # type: ignore[method-assign]
            elif isinstance(param, TyperOption) and param.metavar is None:
                param.metavar = "" if param.is_flag else (param.name or "").upper()
        return params


def _no_type(ctx: Any = None) -> None:
    return None


class _ErrorReportingGroup(_PlainHelp, TyperGroup):
    """Turns every :class:`TablebaseError`, every exception raised in a game's own code
    and every command-line usage error into one ``error: ...`` line on stderr and an exit
    code: 2 for a usage error, 1 for any other."""

    def invoke(self, ctx: Any) -> Any:
        try:
            with interruptible():
                return super().invoke(ctx)
        except TablebaseError as error:
            _fail(error)
        except Interrupted as stop:
            typer.echo(f"interrupted by {stop.name}: stopped, nothing half-done is kept", err=True)
            raise typer.Exit(stop.exit_code) from None
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except Exception as error:
            failure = game_failure(error)
            if failure is None:
                raise
            _fail(failure)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        try:
            code = super().main(*args, **kwargs)
        except typer.TyperException as error:  # typer's usage errors: one line too
            typer.echo(f"error: {_usage_message(error)}", err=True)
            code = 2
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            code = 1
        sys.exit(code if isinstance(code, int) else 0)


def _fail(error: TablebaseError) -> NoReturn:
    typer.echo(f"error: {error}", err=True)
    raise typer.Exit(2 if isinstance(error, UsageError) else 1) from None


def _usage_message(error: typer.TyperException) -> str:
    """Typer's message on one line, with the help to turn to."""
    message = " ".join(error.format_message().split())
    if str(getattr(error, "option_name", ""))[1:2].isdigit():
        message += " (write a position that starts with '-' after '--', e.g. tablebase query GAME -- -5)"
    ctx = getattr(error, "ctx", None)
    return message + (f" (see '{ctx.command_path} --help')" if ctx is not None else "")


class _Command(_PlainHelp, TyperCommand):
    """A command with :class:`_PlainHelp`."""


app = typer.Typer(
    cls=_ErrorReportingGroup,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="Build and query endgame tablebases of two-player games.",
)
command = functools.partial(app.command, cls=_Command)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"tablebase {__version__}")
        raise typer.Exit()


def _help_without_command(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        shown = ctx.get_help()  # rich prints it as it renders, and returns ""
        if shown:
            typer.echo(shown)


@app.callback(invoke_without_command=True)
def _main(
    ctx: typer.Context,
    version: Annotated[
        bool, typer.Option("--version", callback=_show_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Build and query endgame tablebases of two-player games."""
    _help_without_command(ctx)


GameArg = Annotated[
    str, typer.Argument(metavar="GAME", help="A registered game (see `tablebase games`).", show_default=False)
]
ParamsOpt = Annotated[
    Optional[list[str]],
    typer.Option("--param", "-p", metavar="NAME=VALUE", help="A game parameter; repeatable.", show_default=False),
]
DbOpt = Annotated[
    Optional[str],
    typer.Option(
        "--db", metavar="PATH_OR_URL", help="SQLite path or SQLAlchemy URL.", show_default="$TABLEBASE_DB or tablebase.sqlite"
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON (schemas in README).")]
LayoutOpt = Annotated[
    str,
    typer.Option(
        "--layout",
        metavar="auto|sided|blocks|packed|rows",
        help="Storage layout: sided (blocks with each side to move's keys apart, the smallest for chess), blocks "
        "(values over ranges of keys), packed (chunks with their keys) or rows; auto: over an index space sided "
        "where keys alternate sides to move, else blocks; packed elsewhere.",
    ),
]
CODEC_LEVELS = "zstd's 1-22 (default 9; 15 keeps chess about 12% smaller and writes 3 times slower), xz's 0-9 (default 6)"
LevelOpt = Annotated[
    Optional[int],
    typer.Option(
        "--level",
        metavar="LEVEL",
        help=f"Write every tablebase of the sided and blocks layouts again at this level of the codec: {CODEC_LEVELS}.",
    ),
]
CodecOpt = Annotated[
    str,
    typer.Option(
        "--codec",
        metavar="zstd|xz",
        help="What compresses the sided and blocks layouts: zstd (as builds write by default) or xz, which keeps chess "
        "20 to 26% smaller, repacks 4 to 5 times slower and reads a block for the first time about twice as slow "
        "(warm probes alike).",
    ),
]
BuildLevelOpt = Annotated[
    Optional[int], typer.Option("--level", metavar="LEVEL", help=f"The codec's level for the sided and blocks layouts: {CODEC_LEVELS}.")
]
BuildCodecOpt = Annotated[
    str,
    typer.Option(
        "--codec",
        metavar="zstd|xz",
        help="What compresses the sided and blocks layouts: zstd (default) or xz, which keeps chess 20 to 26% smaller "
        "(KRPvKR in 0.28 bytes a position), takes 1.8 times as long to build KRPvKR and reads a block for the first "
        "time two to three times as slow (warm probes alike); `tablebase db repack` changes it later.",
    ),
]
DtmSidesOpt = Annotated[
    str,
    typer.Option(
        "--dtm-sides",
        metavar="auto|both|one",
        help="Whose DTM the sided layout keeps of a chess ending of unlike sides with DTZ (chess's default metric): "
        "both sides to move's, or `one`, white to move's alone, black to move's then valued from one ply of moves when "
        "read (KRPvKR in 0.27 bytes a position with zstd, against 0.39; such a DTM takes hundreds of microseconds to "
        "probe, ranking white's moves by DTM about a millisecond); `auto` (default): `one` for the endings of five "
        "pieces where white alone has pawns (KRPvKR), `both` elsewhere.",
    ),
]
PositionArg = Annotated[
    str, typer.Argument(metavar="POSITION", help="A position in the game's syntax, `start`, or `-` for stdin.")
]


def _game(name: str, params: list[str] | None) -> Game:
    return load_game(name, parse_assignments(params or []))


def _echo_json(data: Any) -> None:
    typer.echo(json.dumps(data))


# --------------------------------------------------------------------------- text


def _plural(count: int | None, one: str, many: str) -> str:
    """E.g. ``1 position``, ``2,467,122 positions``: thousands separated, as elsewhere."""
    return f"{count:,} {one if count == 1 else many}" if count is not None else f"{count} {many}"


def _say_value(game: Game, value: Value) -> str:
    """E.g. ``win in 19`` (plies), with the game's own reading: ``win in 19 (mate in 10)``."""
    said = value.outcome.label if value.remoteness is None else f"{value.outcome.label} in {value.remoteness}"
    details = {**value.extras(), **game.value_details(value.outcome, value.remoteness)}
    if details:
        said += " (" + ", ".join(f"{key.replace('_', ' ')} {shown}" for key, shown in details.items()) + ")"
    return said


def _say_state(game: Game, position: Position, value: Value) -> str:
    """E.g. ``draw in 0, stalemate``: the position's value and the game's facts of it
    that hold (see ``Game.position_details``)."""
    facts = [name.replace("_", " ") for name, holds in game.position_details(position).items() if holds is True]
    return ", ".join([_say_value(game, value), *facts])


def _say_move(game: Game, move: RankedMove) -> str:
    """The move's text, then its other notations (the details that are text)."""
    text = game.format_move(move.move)
    return " ".join([text, *(v for v in game.move_details(move.move).values() if isinstance(v, str) and v != text)])


def _columns(rows: list[list[str]]) -> list[str]:
    """Rows of cells, each column as wide as its widest cell, the last one left ragged."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)] if rows else []
    return ["  ".join([*(cell.ljust(w) for cell, w in zip(row, widths)), row[-1]]) for row in rows]


def _counts(listing: Listing) -> str:
    row = listing.row
    said = f"{_plural(row.positions, 'position', 'positions')} ({_plural(row.wins, 'win', 'wins')}, "
    said += f"{_plural(row.draws, 'draw', 'draws')}, {_plural(row.losses, 'loss', 'losses')})"
    if listing.has_remoteness and row.max_remoteness is not None:
        said += f", max remoteness {row.max_remoteness}"
    return said


# --------------------------------------------------------------------------- commands


@command()
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


@command()
def build(
    game: GameArg,
    param: ParamsOpt = None,
    db: DbOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if a complete tablebase is stored; take over a build another process holds.")] = False,
    force_size: Annotated[
        bool, typer.Option("--force-size", help="Build even if the estimated memory exceeds what is available.")
    ] = False,
    layout: LayoutOpt = "auto",
    codec: BuildCodecOpt = "zstd",
    level: BuildLevelOpt = None,
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
    instance = _game(game, param)
    report = _echo_build_json if as_json else _say_built
    if partitions is not None and not cluster:
        raise UsageError("--partitions needs --cluster: the partitions are held by a cluster's workers")
    if partitions is not None:
        check_partitions(instance)
    storing = Storing(layout, codec, level, dtm_sides)
    with removed_if_unused(db), open_store(db, **storing._asdict()) as store:
        plan = build_plan(instance, store, force)
        if dry_run or (len(plan) > 1 and not as_json):
            _say_plan(plan, estimates=dry_run, partitions=partitions)
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

                build_tablebase(
                    instance, store, force=force, force_size=force_size, stages=tqdm_stages, workers=workers, report=reported
                )
    if all(planned.reused for planned in plan) and not as_json:
        typer.echo("(use --force to rebuild)")


def _say_plan(plan: list[PlannedTable], estimates: bool = False, partitions: int | None = None) -> None:
    """The plan, one tablebase a line; with ``estimates``, each build's estimated peak
    memory and time, the last one's per worker with ``partitions``."""
    to_build = sum(not planned.reused for planned in plan)
    typer.echo(f"plan: {to_build} to build, {len(plan) - to_build} to reuse")
    for number, planned in enumerate(plan, 1):
        shared = partitions if number == len(plan) else None
        said = describe_estimate(planned.game, shared) if estimates and not planned.reused else ""
        typer.echo(f"  {planned.action:<7} {planned.game.describe()}" + (f"  ({said})" if said else ""))
    if estimates and to_build > 1:
        built = [planned.game for planned in plan if not planned.reused]
        typer.echo(f"in all: {describe_total(built, partitions if not plan[-1].reused else None)}")


def _say_built(result: BuildResult) -> None:
    listing = Listing(result.row, [])
    verb = "reused stored" if result.reused else "built"
    took = "" if result.reused else f" in {result.row.build_seconds:.2f} s"
    typer.echo(f"{verb} {result.row.description}: {_counts(listing)}{took}")


def _echo_build_json(result: BuildResult) -> None:
    _echo_json({**Listing(result.row, []).json(), "reused": result.reused})


@command()
def query(
    game: GameArg,
    position: PositionArg,
    param: ParamsOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    workers: Annotated[
        Optional[int],
        typer.Option("--workers", metavar="N", min=1, help="Processes that answer the lines of `-`  [default: one per core]"),
    ] = None,
) -> None:
    """Print a position's value and every move, best first.

    Each move shows the value of the position it leads to, for the side to move there.
    With `-`, reads positions from stdin, one a line, and prints one JSON report a line,
    in their order.
    """
    instance = _game(game, param)
    if position == "-":
        _query_stream(instance, db, workers or usable_cores())
        return
    with open_store(db, create=False) as store:
        tablebase = Tablebase(instance, store)
        reader = tablebase.reader(position)
        start = reader.parse(position)
        if as_json:
            _echo_json(reader.report(start))
            return
        value, ranked = reader.probe(start), reader.moves(start)
        best = reader.best(ranked)
    shown = reader.game
    typer.echo(f"{shown.format(start)}: {_say_state(shown, start, value)}")
    if value.score is not None:
        for name, said in shown.score_details(start, value.score).items():
            typer.echo(f"  {name.replace('_', ' ')}: {said}")
    rows = [
        [
            "*" if move in best else " ",
            _say_move(shown, move),
            _say_value(shown, move.value) + ("" if move.margin is None else f", margin {move.margin}"),
            f"-> {shown.format(move.position)}",
        ]
        for move in ranked
    ]
    for text in _columns(rows):
        typer.echo(f"  {text}")


def _query_stream(game: Game, db: str | None, workers: int) -> None:
    """One JSON object per line of stdin (:func:`tablebase.read.stream.report_lines`). The exit
    code is the worst line's, as if each were queried alone."""
    worst = 0
    for answer, code in report_lines(resolve_location(db), game, sys.stdin, workers):
        typer.echo(answer)
        worst = max(worst, code)
    if worst:
        raise typer.Exit(worst)


@command()
def line(
    game: GameArg,
    position: Annotated[str, typer.Argument(metavar="POSITION", help="A position in the game's syntax, or `start`.")],
    param: ParamsOpt = None,
    db: DbOpt = None,
    max_plies: Annotated[
        int, typer.Option("--max-plies", metavar="N", min=1, help="Stop a line that has not ended after N plies.")
    ] = DEFAULT_LINE_BOUND,
    as_json: JsonOpt = False,
    metric: Annotated[
        str, typer.Option("--metric", help="dtm: fastest mate; dtz: DTZ-optimal under the 50-move rule (chess).")
    ] = "dtm",
) -> None:
    """Print the principal variation: best play to the end of the game."""
    instance = _game(game, param)
    check_metric(metric)  # a usage error before the database
    with open_store(db, create=False) as store:
        reader = Tablebase(instance, store).reader(position)
        played = reader.play(reader.parse(position), max_plies, metric)
    if as_json:
        _echo_json(reader.line_json(played))
        return
    shown = reader.game
    typer.echo(f"{shown.format(played.position)}: {_say_state(shown, played.position, played.value)}")
    rows = [
        [f"{ply:>4}.", _say_move(shown, move), _say_state(shown, move.position, move.value), f"-> {shown.format(move.position)}"]
        for ply, move in enumerate(played.moves, 1)
    ]
    for text in _columns(rows):
        typer.echo(text)
    if not played.ended:
        typer.echo(f"(cut after {_plural(len(played.moves), 'ply', 'plies')}: the game goes on; --max-plies N for more)")


@command()
def export(
    game: GameArg,
    param: ParamsOpt = None,
    db: DbOpt = None,
    file_format: Annotated[str, typer.Option("--format", metavar="csv|parquet", help="csv or parquet.")] = "csv",
    output: Annotated[
        str, typer.Option("--output", "-o", metavar="PATH", help="File to write, replaced only once complete; - for stdout (CSV).")
    ] = "-",
    positions: Annotated[
        bool, typer.Option("--positions/--no-positions", help="Write each position's text (slow for big tablebases).")
    ] = True,
) -> None:
    """Write every stored position with its outcome and remoteness, in key order."""
    instance = _game(game, param)
    check_format(file_format)  # before opening the database, so a usage error comes first
    with open_store(db, create=False) as store:
        if output == "-":
            if file_format != "csv":
                raise UsageError(f"{file_format} export needs a file: give --output PATH")
            try:
                export_tablebase(instance, store, sys.stdout.buffer, file_format, positions)
            except BrokenPipeError:  # the reader has had enough (| head): end quietly
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return
        with atomic_file(output) as out, tqdm_stages("export", None) as advance:
            count = export_tablebase(instance, store, out, file_format, positions, advance)
    typer.echo(f"wrote {count:,} positions of {instance.describe()} to {output}", err=True)


@command()
def verify(
    game: GameArg,
    param: ParamsOpt = None,
    db: DbOpt = None,
    show: Annotated[int, typer.Option("--show", metavar="N", min=0, help="How many mismatches to print.")] = 20,
    as_json: JsonOpt = False,
) -> None:
    """Re-derive every stored value from its moves' stored values (of each member of a
    collection); exit 1 on any mismatch."""
    with open_store(db, create=False) as store:

        def examine(member: Game) -> str | None:
            checked, mismatches = verify_game(member, store, stages=tqdm_stages)
            shown = [
                {"position": member.format(member.decode(m.key)), "key": m.key, "stored": m.stored, "expected": m.expected}
                for m in mismatches[:show]
            ]
            return _say_findings(
                {"tablebase": member.describe(), "checked": checked, "mismatches": len(mismatches), "shown": shown}
                if as_json
                else None,
                [f"mismatch: {m['position']} (key {m['key']}): stored {m['stored']}, its moves give {m['expected']}" for m in shown],
                f"{len(mismatches):,} of {checked:,} stored values of {member.describe()}" if mismatches else None,
                f"ok: {checked:,} stored values of {member.describe()} follow from their moves",
            )

        _each_member(_game(game, param), examine, "stored values do not follow from their moves")


@command()
def check(
    game: GameArg,
    param: ParamsOpt = None,
    positions: Annotated[int, typer.Option("--positions", metavar="N", min=1, help="How many positions to sample.")] = 1000,
    as_json: JsonOpt = False,
) -> None:
    """Check a game implementation: keys, text, symmetry, batch against per-position API
    (on each member of a collection, --positions each; one JSON object per member). It
    reads no database."""

    def examine(member: Game) -> str | None:
        sample = sample_positions(member, positions)
        problems = check_game(member, sample)
        return _say_findings(
            {"game": member.describe(), "checked": len(sample), "problems": problems} if as_json else None,
            [f"problem: {problem}" for problem in problems],
            f"{member.describe()} ({len(problems)} problems shown)" if problems else None,
            f"ok: {member.describe()}, {len(sample)} positions checked",
        )

    _each_member(_game(game, param), examine, "the self-check fails")


def _say_findings(as_json: dict[str, Any] | None, findings: list[str], failure: str | None, success: str) -> str | None:
    """The findings of one check (verify, check): the JSON object if given, else one line
    per finding, and the success line if nothing failed. :returns: what failed, or None."""
    if as_json is not None:
        _echo_json(as_json)
    else:
        for finding in findings:
            typer.echo(finding)
        if failure is None:
            typer.echo(success)
    return failure


def _each_member(game: Game, examine: Callable[[Game], Optional[str]], failure: str) -> None:
    """Run ``examine`` on each member of the game (itself, unless it is a collection): it
    prints its findings and returns a summary of what failed, or None. Then one error
    line names every failure, and the exit code is 1."""
    failed = [summary for member in game.members() if (summary := examine(member)) is not None]
    if failed:
        typer.echo(f"error: {failure}: {'; '.join(failed)}", err=True)
        raise typer.Exit(1)


@command()
def info(
    game: Annotated[Optional[str], typer.Argument(metavar="GAME", help="Only this game's tablebases.", show_default=False)] = None,
    param: ParamsOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the stored tablebases with their counts per outcome and largest remoteness.

    With GAME, only its tablebases; with -p, only those with these parameters (the others
    may be anything). With every parameter of a game that has a summary, its summary
    follows the counts, such as the green game's POI output. With GAME, chess endings
    that store DTZ add their counts per category under the 50-move rule and the longest
    DTZ and DTM, each with a position.
    """
    given = parse_assignments(param or [])
    filter_class(game, given)  # a bad filter is reported before a missing database
    with open_store(db, create=False) as store:
        found = listings(store, game, given)
        statistics = _rule_statistics(store, [listing.row for listing in found]) if game is not None else {}
    if as_json:
        _echo_json(
            [
                {**listing.json(), **({"statistics": statistics[listing.row.id].to_json()} if listing.row.id in statistics else {})}
                for listing in found
            ]
        )
        return
    if not found:
        typer.echo("no tablebases stored")
    for listing in found:
        row = listing.row
        old = f", outdated: built for version {row.game_version} of the game" if listing.outdated else ""
        old += ", abandoned: its builder is gone; the next build takes it over" if listing.abandoned else ""
        typer.echo(f"{row.description} [{row.status}{old}]")
        if row.positions is not None:
            typer.echo(f"  {_counts(listing)}, built in {row.build_seconds:.2f} s")
        for said in listing.summary:
            typer.echo(str(said))
        if row.id in statistics:
            rule = statistics[row.id]
            typer.echo("  under the 50-move rule: " + ", ".join(f"{n:,} {name}" for name, n in rule.categories.items()))
            for metric, longest in (("DTZ", rule.longest_dtz), ("DTM", rule.longest_dtm)):
                if longest is not None:
                    typer.echo(f"  longest {metric} of a win: {longest[0]} plies, {longest[1]}")
            if rule.longest_dtm is not None and row.max_remoteness is not None and row.max_remoteness != rule.longest_dtm[0]:
                typer.echo(f"  longest DTM of a loss: {row.max_remoteness} plies (the max remoteness)")


def _rule_statistics(store: Store, rows: list[TablebaseRow]) -> dict[int, RuleStatistics]:
    """:func:`~tablebase.tools.stats.rule_statistics` of each complete row that stores DTZ."""
    return {
        row.id: rule_statistics(load_game(row.game, json.loads(row.params)), store, row)
        for row in rows
        if row.status == "complete" and row.value_kind == DTZ
    }


@command()
def serve(
    db: DbOpt = None,
    host: Annotated[str, typer.Option("--host", metavar="ADDRESS", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", metavar="PORT", min=1, max=65535, help="Port to listen on.")] = 8000,
    workers: Annotated[
        Optional[int], typer.Option("--workers", metavar="N", min=1, help="Server processes  [default: one per core]")
    ] = None,
) -> None:
    """Serve the stored tablebases over HTTP (needs the serve extra).

    A JSON API, lichess's tablebase protocol for chess (/standard) and web pages with boards.
    """
    from tablebase.faces.web.server import serve as serve_http

    count = workers or usable_cores()
    serve_http(
        db, host, port, count,
        lambda shown, url: typer.echo(f"serving {shown} on {url} with {count} worker{'s' if count > 1 else ''} (Ctrl-C stops)", err=True),
    )


@command()
def plot(
    game: GameArg,
    output: Annotated[str, typer.Option("--output", "-o", metavar="PATH", help="Image file to write: .png or .svg.")],
    param: ParamsOpt = None,
    db: DbOpt = None,
) -> None:
    """Draw a tablebase's histogram of positions per remoteness, by outcome (matplotlib)."""
    instance = _game(game, param)
    image_format_of(output)  # before opening the database, so a usage error comes first
    with open_store(db, create=False) as store:
        image = tablebase_histogram(instance, store, image_format_of(output))
    with atomic_file(output) as out:
        out.write(image)
    typer.echo(f"wrote the histogram of {instance.describe()} to {output}", err=True)


db_app = typer.Typer(cls=_ErrorReportingGroup, help="Manage the database schema (Alembic).")
app.add_typer(db_app, name="db")


@db_app.callback(invoke_without_command=True)
def _db_main(ctx: typer.Context) -> None:
    """Manage the database schema (Alembic)."""
    _help_without_command(ctx)


@db_app.command("current", cls=_Command)
def db_current(db: DbOpt = None) -> None:
    """Print the database's schema revision and the newest one this tablebase knows."""
    current, head = schema_revisions(db)
    state = "up to date" if current == head else "an upgrade is available: tablebase db upgrade"
    typer.echo(f"revision {current or 'none'} (newest {head}): {state}")


@db_app.command("upgrade", cls=_Command)
def db_upgrade(db: DbOpt = None) -> None:
    """Upgrade the database's schema to the newest revision, in one transaction."""
    before, after = upgrade_schema(db)
    typer.echo(f"revision {before or 'none'} -> {after}" if before != after else f"revision {after}: already up to date")


@db_app.command("repack", cls=_Command)
def db_repack(
    game: Annotated[Optional[str], typer.Argument(metavar="GAME", help="Only this game's tablebases.", show_default=False)] = None,
    param: ParamsOpt = None,
    db: DbOpt = None,
    layout: LayoutOpt = "auto",
    codec: CodecOpt = "zstd",
    level: LevelOpt = None,
    dtm_sides: DtmSidesOpt = "auto",
) -> None:
    """Store every complete tablebase again in a storage layout and codec, without solving
    anything: each copy replaces the old one once complete, so a killed repack loses nothing.

    With GAME, only its tablebases; with -p, only those with these parameters (as `info`
    lists them: `chess -p material=KRPvKR`, or a collection's members).
    """
    given = parse_assignments(param or [])
    filter_class(game, given)  # a bad filter is reported before a missing database
    with open_store(db, create=False, layout=layout, level=level, codec=codec, dtm_sides=dtm_sides) as store:
        chosen = None if game is None else [listing.row for listing in listings(store, game, given)]
        if chosen == []:
            raise UsageError(f"no tablebase of {' '.join([game, *(param or [])])} is stored")
        for done in repack(store, tqdm_stages, chosen):
            if done.new is None:
                typer.echo(f"left {done.old.description} as it is: {done.why_not}")
            else:
                verb = "kept" if done.new is done.old else "repacked"
                codec = f", {done.new.codec}" if done.new.codec else ""
                one_side = ", black to move's DTM left out" if done.new.dtm_left_out else ""
                typer.echo(f"{verb} {done.old.description} ({done.new.layout}{codec}{one_side})")


def main() -> None:
    """Entry point of the ``tablebase`` command."""
    app()
