"""The entry point of the ``tablebase`` command (and of ``python -m tablebase``):
``tablebase --version`` is answered at once, before the commands' modules (numba,
SQLAlchemy, the solver) are imported; anything else goes to the typer application,
:mod:`tablebase.faces.cli`."""

from __future__ import annotations

import sys
from importlib.metadata import version


def main() -> None:
    """Run the ``tablebase`` command on ``sys.argv``."""
    if sys.argv[1:] == ["--version"]:
        print(f"tablebase {version('tablebase')}")
        return
    from tablebase.faces.cli import main as run_command  # the commands' modules: a second or so of imports

    run_command()
