"""The command that lists the stored tablebases: ``info``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from tablebase.core.parameters import parse_assignments
from tablebase.core.values import StoredKind
from tablebase.faces.cli.options import DbOpt, JsonOpt, ParamsOpt
from tablebase.faces.cli.saying import counts, echo_json, plural
from tablebase.read.catalog import filter_class, listings, row_game
from tablebase.store import Store, TablebaseRow, open_store
from tablebase.tools.stats import RuleStatistics, rule_statistics


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
        others = len(listings(store, game)) if game is not None and given and not found else 0
        statistics = _rule_statistics(store, [listing.row for listing in found]) if game is not None else {}
    if as_json:
        echo_json(
            [
                {**listing.json(), **({"statistics": statistics[listing.row.id].to_json()} if listing.row.id in statistics else {})}
                for listing in found
            ]
        )
        return
    if others:
        wanted = " ".join(f"{name}={text}" for name, text in given.items())
        typer.echo(f"no stored {game} tablebase matches {wanted} ({plural(others, 'other', 'others')} stored: tablebase info {game})")
    elif not found:
        typer.echo(f"no {game} tablebases stored" if game is not None else "no tablebases stored")
    for listing in found:
        row = listing.row
        old = f", outdated: built for version {row.game_version} of the game" if listing.outdated else ""
        old += ", abandoned: its builder is gone; the next build takes it over" if listing.abandoned else ""
        typer.echo(f"{row.description} [{row.status}{old}]")
        if row.positions is not None:
            typer.echo(f"  {counts(listing)}, built in {row.build_seconds:.2f} s")
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
    return {row.id: rule_statistics(row_game(row), store, row) for row in rows if row.status == "complete" and row.value_kind == StoredKind.DTZ}
