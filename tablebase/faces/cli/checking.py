"""The commands that check a tablebase or a game: ``verify`` (stored values against their
moves) and ``check`` (a game implementation against itself)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Optional

import typer

from tablebase.core.game import Game
from tablebase.faces.cli.options import DbOpt, GameArg, JsonOpt, ParamsOpt, named_game
from tablebase.faces.cli.saying import echo_json
from tablebase.store import open_store
from tablebase.tools.check import check_game, sample_positions
from tablebase.tools.verify import verify_game
from tablebase.util.progress import tqdm_stages


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

        _each_member(named_game(game, param), examine, "stored values do not follow from their moves")


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

    _each_member(named_game(game, param), examine, "the self-check fails")


def _say_findings(as_json: dict[str, Any] | None, findings: list[str], failure: str | None, success: str) -> str | None:
    """The findings of one check (verify, check): the JSON object if given, else one line
    per finding, and the success line if nothing failed. :returns: what failed, or None."""
    if as_json is not None:
        echo_json(as_json)
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
