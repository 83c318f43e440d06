"""README.md's shell examples, run in order as a user types them, in a fresh directory.

Every ``tablebase`` command of the README's ``sh`` blocks must exit 0, and the output the
README quotes must be what it prints: the JSON fields quoted in a command's trailing
comment (``# "category": "win", "dtz": 11``), and the comment lines that follow a command
(its output, line by line). Commands that need what a test cannot start here are left to
the tests named in :data:`LEFT_OUT`.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

README = Path(__file__).parent.parent / "README.md"

LEFT_OUT = {
    "tablebase serve": "a server that runs until stopped: tests/test_serve.py",
    "--cluster": "a Dask cluster: tests/test_cluster.py",
    " race": "the README's plug-in, installed by tests/test_plugin.py",
    "gra.in": "a POI input file: tests/test_green.py",
    "width=6": "47M positions, two minutes: benchmarks/RESULTS.md",
    "build teeko": "21M positions, three minutes: tests/test_solved_games.py",
}
"""A command holding one of these is not run here; the value says what tests it."""


@dataclass
class Example:
    """One command of the README, with the output it quotes."""

    command: str
    fields: list[str] = field(default_factory=list)
    output: list[str] = field(default_factory=list)


def examples() -> list[Example]:
    """The ``tablebase`` commands of README's ``sh`` blocks, in order."""
    found: list[Example] = []
    for block in re.findall(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), re.S):
        last = None
        for line in block.replace("\\\n", " ").splitlines():
            if line.startswith("tablebase "):
                command, _hash, comment = line.partition("  #")
                last = Example(command.strip(), re.findall(r'"\w+": [^,]+', comment))
                found.append(last)
            elif line.startswith("# ") and last is not None:
                last.output.append(line[2:])
            else:
                last = None
    return found


def test_the_readme_quotes_commands_to_run():
    """The parser finds the examples this test is for (it would pass vacuously if not)."""
    commands = [example.command for example in examples()]
    assert "tablebase build tictactoe" in commands and len(commands) > 20
    assert any(example.output for example in examples()) and any(example.fields for example in examples())


def test_every_readme_command_runs_and_prints_what_the_readme_quotes(tmp_path):
    failures = []
    for example in examples():
        if any(marker in example.command for marker in LEFT_OUT):
            continue
        args = shlex.split(example.command)[1:]
        result = subprocess.run(
            [sys.executable, "-m", "tablebase", *args], cwd=tmp_path, capture_output=True, text=True, timeout=300
        )
        if result.returncode != 0:
            failures.append(f"{example.command}: exit {result.returncode}: {result.stderr.strip()}")
            continue
        missing = [quoted for quoted in example.fields if quoted not in result.stdout]
        if missing:
            failures.append(f"{example.command}: prints no {missing}")
        printed = [line.rstrip() for line in result.stdout.splitlines()]
        if example.output and printed != [line.rstrip() for line in example.output]:
            failures.append(f"{example.command}: prints {printed}, README quotes {example.output}")
    assert failures == []
