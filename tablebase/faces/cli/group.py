"""The typer group and command classes of the ``tablebase`` command: help that names each
value plainly, and every error as one ``error: ...`` line with an exit code, 2 for a usage
error, 1 for any other (:class:`ErrorReportingGroup`)."""

from __future__ import annotations

import sys
from typing import Any, NoReturn

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from tablebase.core.errors import TablebaseError, UsageError
from tablebase.solve.registry import game_failure
from tablebase.util.compile_cache import compile_notice
from tablebase.util.interrupt import Interrupted, announce, interruptible
from tablebase.util.progress import note


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


FIRST_COMPILE_SECONDS = {"build": 60, "verify": 45, "check": 45, "query": 25, "line": 25, "serve": 25}
"""Seconds a command compiles numba's kernels on its first run, for chess (the game with
the most kernels) on the 2-core host of benchmarks/RESULTS.md ("First run"): the notice's
"up to about N s"."""

FIRST_BUILD_COMPILE_SECONDS = {"atomic": 180, "antichess": 180}
"""Seconds a first build of a chess variant compiles, its own kernels beside the
solver's (antichess RvN after a fresh ``pip install .``: 168 s on that host), where it
is not :data:`FIRST_COMPILE_SECONDS`' build."""


class ErrorReportingGroup(_PlainHelp, TyperGroup):
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
            raise typer.Exit(announce(stop)) from None
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


class Command(_PlainHelp, TyperCommand):
    """A command with :class:`_PlainHelp` that says when numba compiles
    (:func:`~tablebase.util.compile_cache.compile_notice`)."""

    def invoke(self, ctx: Any) -> Any:
        expected = FIRST_COMPILE_SECONDS.get(self.name or "")
        if self.name == "build":
            expected = FIRST_BUILD_COMPILE_SECONDS.get(str(ctx.params.get("game")), expected)
        with compile_notice(note, expected):
            return super().invoke(ctx)


def help_without_command(ctx: typer.Context) -> None:
    """Print the group's help when no command follows it."""
    if ctx.invoked_subcommand is None:
        shown = ctx.get_help()  # rich prints it as it renders, and returns ""
        if shown:
            typer.echo(shown)
