"""``python -m tablebase``: the same as the ``tablebase`` command."""

from tablebase.faces.cli import main

main()
