"""The ground floor: the game protocol, outcomes and value codes, parameters and errors.
It imports nothing of the engine. A game plug-in needs no more than this package::

    from tablebase.core import Game, Outcome, Parameter, PositionError
"""

from tablebase.core.errors import GameError, ParameterError, PositionError
from tablebase.core.game import Game, Mode, Move, Position
from tablebase.core.parameters import Parameter, at_least
from tablebase.core.values import DRAW, LOSS, NOT_TERMINAL, WIN, Outcome

__all__ = [
    "DRAW",
    "LOSS",
    "NOT_TERMINAL",
    "WIN",
    "Game",
    "GameError",
    "Mode",
    "Move",
    "Outcome",
    "Parameter",
    "ParameterError",
    "Position",
    "PositionError",
    "at_least",
]
