"""A value kind added the way a plug-in adds one: this module defines the kind and
registers it, and a game names it in ``mode``. The kind is misère play: the player who
cannot move *wins* (the last mover loses), so a position without moves is a win at
remoteness 0 for its side to move; every other rule of the WDL kind holds.
"""

from __future__ import annotations

import numpy as np

from tablebase.core.values import NOT_TERMINAL, WIN
from tablebase.generators.nim import Nim
from tablebase.solve.graph import MoveGraph
from tablebase.solve.kinds import register
from tablebase.solve.kinds.wdl import Wdl


class MisereWdl(Wdl):
    """Win/draw/loss and remoteness under misère play: solved and verified from the
    move graph, a position without moves (in or out of the tablebase) a win."""

    name = "misere"

    def uses_unmoves(self, game) -> bool:
        return False

    def terminal(self, graph: MoveGraph) -> np.ndarray:
        moves = graph.moves.out_degree + np.bincount(graph.exits.src, minlength=len(graph.keys))
        return np.where((graph.terminal == NOT_TERMINAL) & (moves == 0), WIN, graph.terminal).astype(np.int8)


MISERE = register(MisereWdl())


class MisereNim(Nim):
    """Nim under misère play."""

    name = "misere-nim"
    description = "Misère Nim: whoever takes the last counter loses"
    mode = "misere"
