"""``python -m tablebase``: the same as the ``tablebase`` command."""

from tablebase.cli import main

main()
