"""CLI commands run in forked children of the test process, which has imported what they
need, so that they start at once: one after another as a user that cannot write what
the test made (:func:`run_unprivileged`), or side by side, begun at the same moment
(:func:`run_together`). Each gives ``(exit code, stdout, stderr)`` a command."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable

from typer.testing import CliRunner

from tablebase.faces.cli import app

NOBODY = 65534
Outcome = tuple[int, str, str]


def invoke(args: list[str]) -> Outcome:
    """A command run through the CLI in this process."""
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.stdout, result.stderr


def _forked(work: Callable[[], object], gate: tuple[int, int] | None = None) -> Callable[[], object]:
    """Fork a child that runs ``work`` (once the write end of the pipe ``gate`` is closed
    in every process, where given) and sends back its result as JSON; returns what waits
    for the child and gives that result."""
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        try:
            os.close(reader)
            if gate is not None:
                os.close(gate[1])
                os.read(gate[0], 1)  # end of file: the parent let every child go
            os.write(writer, json.dumps(work()).encode())
        finally:
            os._exit(0)
    os.close(writer)

    def result() -> object:
        with os.fdopen(reader, "rb") as pipe:
            answer = pipe.read()
        os.waitpid(child, 0)
        return json.loads(answer)

    return result


def run_unprivileged(commands: list[list[str]]) -> list[Outcome]:
    """Each command run through the CLI, one after another, in a forked child that cannot
    write what this process made: under root it drops its privileges to ``nobody``."""

    def work() -> list[Outcome]:
        if os.geteuid() == 0:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        return [invoke(args) for args in commands]

    return [tuple(outcome) for outcome in _forked(work)()]  # type: ignore[attr-defined]


def run_together(commands: list[list[str]]) -> list[Outcome]:
    """Each command run through the CLI in a forked child of its own, all of them begun
    at the same moment, once every child is there."""
    gate = os.pipe()
    results = [_forked(functools.partial(invoke, args), gate) for args in commands]
    os.close(gate[0])
    os.close(gate[1])
    return [tuple(result()) for result in results]  # type: ignore[misc]
