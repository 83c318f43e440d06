"""``python -m tablebase``: the same as the ``tablebase`` command."""

from tablebase.faces.command import main

main()
