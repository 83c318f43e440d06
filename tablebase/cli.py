"""The ``tablebase`` command: a thin typer layer that parses arguments, calls the library
and prints. Library errors become a one-line message and an exit code in one place,
:class:`_ErrorReportingGroup`: 2 for a usage error, 1 for any other.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperGroup

from tablebase.build import BuildResult
from tablebase.build import build as build_tablebase
from tablebase.check import check_game, sample_positions
from tablebase.errors import GameError, ParameterError, TablebaseError, UsageError
from tablebase.export import atomic_file, check_format
from tablebase.export import export as export_tablebase
from tablebase.game import Game, Mode, Outcome, game_class, game_entry_points, load_game, outdated
from tablebase.interrupt import Interrupted, interruptible
from tablebase.plot import image_format as image_format_of
from tablebase.plot import tablebase_histogram
from tablebase.progress import tqdm_stages
from tablebase.query import DEFAULT_LINE_BOUND, GameSum, RankedMove, Tablebase, Value
from tablebase.store import Store, TablebaseRow, open_store, schema_revisions
from tablebase.stats import RuleStatistics, rule_statistics
from tablebase.store.schema import DTZ
from tablebase.verify import verify_game


class _ErrorReportingGroup(TyperGroup):
    """Turns every :class:`TablebaseError` into ``error: ...`` on stderr and an exit code,
    and SIGINT or SIGTERM (once cleaned up) into one line and 130 or 143."""

    def invoke(self, ctx: Any) -> Any:
        try:
            with interruptible():
                return super().invoke(ctx)
        except TablebaseError as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(2 if isinstance(error, UsageError) else 1) from None
        except Interrupted as stop:
            typer.echo(f"interrupted by {stop.name}: stopped, nothing half-done is kept", err=True)
            raise typer.Exit(stop.exit_code) from None


app = typer.Typer(
    cls=_ErrorReportingGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="Build and query endgame tablebases of two-player games.",
)

GameArg = Annotated[
    str, typer.Argument(metavar="GAME", help="A registered game (see `tablebase games`).", show_default=False)
]
ParamsOpt = Annotated[
    Optional[list[str]], typer.Option("--param", "-p", help="Game parameter as name=value; repeatable.", show_default=False)
]
DbOpt = Annotated[
    Optional[str],
    typer.Option("--db", help="SQLite path or SQLAlchemy URL [default: $TABLEBASE_DB or tablebase.sqlite]", show_default=False),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
PositionArg = Annotated[
    str, typer.Argument(metavar="POSITION", help="A position in the game's syntax, `start`, or `-` for stdin.")
]


def _game(name: str, params: list[str] | None) -> Game:
    values: dict[str, str] = {}
    for item in params or []:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ParameterError(f"bad parameter {item!r}: expected name=value")
        if key in values:
            raise ParameterError(f"parameter {key!r} is given twice")
        values[key] = value.strip()
    return load_game(name, values)


def _say_value(game: Game, value: Value) -> str:
    """E.g. ``win in 19`` (plies), with the game's own reading: ``win in 19 (mate in 10)``."""
    said = value.outcome.label if value.remoteness is None else f"{value.outcome.label} in {value.remoteness}"
    details = {**value.extras(), **game.value_details(value.outcome, value.remoteness)}
    if details:
        said += " (" + ", ".join(f"{key.replace('_', ' ')} {shown}" for key, shown in details.items()) + ")"
    return said


def _mover_view(game: Game, move: RankedMove) -> str:
    """A move's value for the player making it, counted in plies from before the move
    (in a scored game, the margin it secures)."""
    if move.margin is not None:
        return f"margin {move.margin}"
    mover = Outcome(-int(move.value.outcome))
    plies = None if move.value.remoteness is None else move.value.remoteness + 1
    return _say_value(game, Value(mover, plies))


def _say_move(game: Game, move: RankedMove) -> str:
    """The move's text, then its other notations (the details that are text)."""
    text = game.format_move(move.move)
    return " ".join([text, *(v for v in game.move_details(move.move).values() if isinstance(v, str) and v != text)])


@app.command()
def games() -> None:
    """List the registered games, their parameters and position syntax."""
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


@app.command()
def build(
    game: GameArg,
    param: ParamsOpt = None,
    db: DbOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if a complete tablebase is stored; take over a build another process holds.")] = False,
    force_size: Annotated[
        bool, typer.Option("--force-size", help="Build even if the estimated memory exceeds what is available.")
    ] = False,
    layout: Annotated[
        str, typer.Option("--layout", help="Storage layout of what is built: packed (compact, fast) or rows.")
    ] = "packed",
    workers: Annotated[
        Optional[int], typer.Option("--workers", min=1, help="Processes that generate moves (default: one per core).")
    ] = None,
    cluster: Annotated[
        Optional[str],
        typer.Option("--cluster", envvar="TABLEBASE_CLUSTER", help="Dask scheduler (tcp://host:8786) whose workers build."),
    ] = None,
) -> None:
    """Build a tablebase, or reuse the one already stored."""
    instance = _game(game, param)
    if cluster:
        from tablebase.cluster import build_on_cluster, connect

        with open_store(db, layout=layout) as store, connect(cluster) as client:
            result = build_on_cluster(client, instance, store.location, layout=layout, force=force, report=_say_built)
    else:
        with open_store(db, layout=layout) as store:
            result = build_tablebase(
                instance, store, force=force, force_size=force_size, stages=tqdm_stages, workers=workers,
                report=_say_built,
            )
    if result.reused:
        typer.echo("(use --force to rebuild)")


def _say_built(result: BuildResult) -> None:
    row = result.row
    verb = "reused stored" if result.reused else "built"
    typer.echo(f"{verb} {row.description}: {_counts(row)}" + ("" if result.reused else f" in {row.build_seconds:.2f} s"))


def _counts(row: TablebaseRow) -> str:
    return (
        f"{row.positions} positions ({row.wins} wins, {row.draws} draws, {row.losses} losses), "
        f"max remoteness {row.max_remoteness}"
    )


@app.command()
def query(
    game: GameArg,
    position: PositionArg,
    param: ParamsOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print a position's value and every move ranked best first."""
    instance = _game(game, param)
    with open_store(db, create=False) as store:
        tablebase = Tablebase(instance, store)
        if position == "-":
            _query_stream(tablebase)
            return
        if GameSum.SEPARATOR in position and instance.mode is Mode.IMPARTIAL and not instance.splits:
            _query_sum(GameSum(tablebase), position, as_json)
            return
        start = tablebase.parse(position)
        if as_json:
            typer.echo(json.dumps(tablebase.report(start)))
            return
        value, ranked = tablebase.probe(start), tablebase.moves(start)
    typer.echo(f"{instance.format(start)}: {_say_value(instance, value)}")
    if value.score is not None:
        for name, shown in instance.score_details(start, value.score).items():
            typer.echo(f"  {name.replace('_', ' ')}: {shown}")
    best = tablebase.best(ranked)
    for move in ranked:
        marker = "*" if move in best else " "
        shown = f"{_say_move(instance, move):<8} {_mover_view(instance, move):<12}"
        typer.echo(f"  {marker} {shown} -> {instance.format(move.position)}")


def _query_sum(game_sum: GameSum, text: str, as_json: bool) -> None:
    """Print the value of a sum of positions and a winning move in it, if there is one."""
    report = game_sum.report(game_sum.parse(text))
    if as_json:
        typer.echo(json.dumps(report))
        return
    parts = " + ".join(f"{c['position']} (grundy {c['grundy']})" for c in report["components"])
    typer.echo(f"{report['position']}: {report['outcome']} (grundy {report['grundy']} = {parts})")
    move = report["winning_move"]
    if move is None:
        typer.echo("  every move leaves a sum of grundy value above 0: no winning move")
    else:
        typer.echo(f"  * {move['move']} in component {move['component']} -> {move['position']} (grundy 0)")


def _query_stream(tablebase: Tablebase) -> None:
    """One JSON object per line of stdin; a bad line gives ``{"position", "error"}``."""
    worst = 0
    for line in sys.stdin:
        text = line.strip()
        if not text:
            continue
        try:
            typer.echo(json.dumps(tablebase.report(tablebase.parse(text))))
        except TablebaseError as error:
            typer.echo(json.dumps({"position": text, "error": str(error)}))
            worst = max(worst, 2 if isinstance(error, UsageError) else 1)
    if worst:
        raise typer.Exit(worst)


@app.command()
def line(
    game: GameArg,
    position: Annotated[str, typer.Argument(metavar="POSITION", help="A position in the game's syntax, or `start`.")],
    param: ParamsOpt = None,
    db: DbOpt = None,
    max_plies: Annotated[int, typer.Option("--max-plies", min=1, help="Stop a line that has not ended.")] = DEFAULT_LINE_BOUND,
    as_json: JsonOpt = False,
    metric: Annotated[
        str, typer.Option("--metric", help="dtm: fastest mate; dtz: DTZ-optimal under the 50-move rule (chess).")
    ] = "dtm",
) -> None:
    """Print the principal variation: best play to the end of the game."""
    instance = _game(game, param)
    with open_store(db, create=False) as store:
        tablebase = Tablebase(instance, store)
        start = tablebase.parse(position)
        value = tablebase.probe(start)
        played = tablebase.line(start, max_plies, metric)
    if as_json:
        line_json = [tablebase.move_json(m) for m in played]
        typer.echo(json.dumps({**tablebase.value_json(start, value), "line": line_json}))
        return
    typer.echo(f"{instance.format(start)}: {_say_value(instance, value)}")
    for ply, move in enumerate(played, 1):
        after = f"{instance.format(move.position)}  ({_say_value(instance, move.value)})"
        typer.echo(f"{ply:>4}. {_say_move(instance, move):<8} -> {after}")


@app.command()
def export(
    game: GameArg,
    param: ParamsOpt = None,
    db: DbOpt = None,
    file_format: Annotated[str, typer.Option("--format", help="csv or parquet.")] = "csv",
    output: Annotated[
        str, typer.Option("--output", "-o", help="File to write, replaced only once complete; - for stdout (CSV).")
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
            export_tablebase(instance, store, sys.stdout.buffer, file_format, positions)
            return
        with atomic_file(output) as out, tqdm_stages("export", None) as advance:
            count = export_tablebase(instance, store, out, file_format, positions, advance)
    typer.echo(f"wrote {count} positions of {instance.describe()} to {output}", err=True)


@app.command()
def verify(
    game: GameArg,
    param: ParamsOpt = None,
    db: DbOpt = None,
    show: Annotated[int, typer.Option("--show", min=0, help="How many mismatches to print.")] = 20,
) -> None:
    """Re-derive every stored value from its moves' stored values; exit 1 on any mismatch."""
    instance = _game(game, param)
    with open_store(db, create=False) as store:
        checked, mismatches = verify_game(instance, store, stages=tqdm_stages)
    for mismatch in mismatches[:show]:
        position = instance.format(instance.decode(mismatch.key))
        typer.echo(f"mismatch: {position} (key {mismatch.key}): stored {mismatch.stored}, its moves give {mismatch.expected}")
    if mismatches:
        typer.echo(f"error: {len(mismatches)} of {checked} stored values of {instance.describe()} do not follow from their moves", err=True)
        raise typer.Exit(1)
    typer.echo(f"ok: {checked} stored values of {instance.describe()} follow from their moves")


@app.command()
def check(
    game: GameArg,
    param: ParamsOpt = None,
    positions: Annotated[int, typer.Option("--positions", min=1, help="How many positions to sample.")] = 1000,
) -> None:
    """Check a game implementation: keys, text, symmetry, and batch against per-position API."""
    instance = _game(game, param)
    sample = sample_positions(instance, positions)
    problems = check_game(instance, sample)
    for problem in problems:
        typer.echo(f"problem: {problem}")
    if problems:
        typer.echo(f"error: {instance.describe()} fails its self-check ({len(problems)} problems shown)", err=True)
        raise typer.Exit(1)
    typer.echo(f"ok: {instance.describe()}, {len(sample)} positions checked")


@app.command()
def info(
    game: Annotated[
        Optional[str], typer.Argument(metavar="[GAME]", help="Only this game's tablebases.", show_default=False)
    ] = None,
    param: ParamsOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the stored tablebases with their counts per outcome and largest remoteness
    (with GAME and -p, also the game's own summary, such as the green game's POI output;
    with GAME, for chess endings that store DTZ, the counts per category under the
    50-move rule and the longest DTZ and DTM, each with a position)."""
    with open_store(db, create=False) as store:
        rows = _catalog(store, game, param)
        summaries = _summaries(store, rows, _game(game, param)) if game is not None and param else {}
        statistics = _rule_statistics(store, rows) if game is not None else {}
    if as_json:
        typer.echo(
            json.dumps(
                [
                    {
                        **row.to_json(),
                        "outdated": outdated(row.game, row.game_version),
                        **({"summary": summaries[row.id]} if row.id in summaries else {}),
                        **({"statistics": statistics[row.id].to_json()} if row.id in statistics else {}),
                    }
                    for row in rows
                ]
            )
        )
        return
    if not rows:
        typer.echo("no tablebases stored")
    for row in rows:
        old = f", outdated: built for version {row.game_version} of the game" if outdated(row.game, row.game_version) else ""
        typer.echo(f"{row.description} [{row.status}{old}]")
        if row.positions is not None:
            typer.echo(f"  {_counts(row)}, built in {row.build_seconds:.2f} s")
        for line in summaries.get(row.id, []):
            typer.echo(line)
        if row.id in statistics:
            found = statistics[row.id]
            typer.echo("  under the 50-move rule: " + ", ".join(f"{n:,} {name}" for name, n in found.categories.items()))
            for metric, longest in (("DTZ", found.longest_dtz), ("DTM", found.longest_dtm)):
                if longest is not None:
                    typer.echo(f"  longest {metric}: {longest[0]} plies, {longest[1]}")


def _rule_statistics(store: Store, rows: list[TablebaseRow]) -> dict[int, RuleStatistics]:
    """:func:`~tablebase.stats.rule_statistics` of each complete row that stores DTZ."""
    return {
        row.id: rule_statistics(load_game(row.game, json.loads(row.params)), store, row)
        for row in rows
        if row.status == "complete" and row.value_kind == DTZ
    }


def _summaries(store: Store, rows: list[TablebaseRow], instance: Game) -> dict[int, list[str]]:
    """The game's :meth:`~tablebase.game.Game.summary` of each complete row, if it has one."""
    if type(instance).summary is Game.summary:
        return {}
    found = {}
    for row in rows:
        if row.status == "complete":
            keys, outcome, _remoteness = store.read_values(row)
            found[row.id] = instance.summary(keys, outcome)
    return found


def _catalog(store: Store, game: str | None, params: list[str] | None) -> list[TablebaseRow]:
    if game is None:
        if params:
            raise UsageError("-p needs a GAME")
        return store.catalog()
    return store.catalog(game_class(game).name, _game(game, params).identity() if params else None)


@app.command()
def serve(
    db: DbOpt = None,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port to listen on.")] = 8000,
) -> None:
    """Serve the stored tablebases over HTTP: a JSON API, lichess's tablebase protocol
    for chess (/standard) and web pages with boards (needs the serve extra)."""
    from tablebase.web import serve as serve_http

    with open_store(db, create=False) as store:
        typer.echo(f"serving {store.location} on http://{host}:{port}/ (Ctrl-C stops)", err=True)
        serve_http(store, host, port)


@app.command()
def plot(
    game: GameArg,
    output: Annotated[str, typer.Option("--output", "-o", help="Image file to write: .png or .svg.")],
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


db_app = typer.Typer(cls=_ErrorReportingGroup, no_args_is_help=True, help="Manage the database schema (Alembic).")
app.add_typer(db_app, name="db")


@db_app.command("current")
def db_current(db: DbOpt = None) -> None:
    """Print the database's schema revision and the newest one this tablebase knows."""
    current, head = schema_revisions(db)
    state = "up to date" if current == head else "an upgrade is available: tablebase db upgrade"
    typer.echo(f"revision {current or 'none'} (newest {head}): {state}")


@db_app.command("upgrade")
def db_upgrade(db: DbOpt = None) -> None:
    """Upgrade the database's schema to the newest revision, in one transaction."""
    before, _head = schema_revisions(db)
    with open_store(db, create=False):
        pass
    after, _head = schema_revisions(db)
    typer.echo(f"revision {before or 'none'} -> {after}" if before != after else f"revision {after}: already up to date")


def main() -> None:
    """Entry point of the ``tablebase`` command."""
    app()
