"""The registry of games: the entry-point group ``tablebase.games``, loading a game's
class (its declared kind checked once, as it loads: :func:`tablebase.solve.kinds.check_class`)
and instantiating it with parameters.

A third-party package declares its games in its ``pyproject.toml``::

    [project.entry-points."tablebase.games"]
    mygame = "mypackage.mygame:MyGame"
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from tablebase.core.errors import GameError, TablebaseError, UnknownGameError
from tablebase.core.game import Game
from tablebase.core.parameters import did_you_mean
from tablebase.solve.kinds import check_class

ENTRY_POINT_GROUP = "tablebase.games"

_PROTOCOL_FILE = inspect.getfile(Game)
"""The source of :class:`Game`'s own methods, which :func:`game_failure` passes over."""


def game_entry_points() -> dict[str, EntryPoint]:
    """The registered games: entry points of the group ``tablebase.games``, by name."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def game_class(name: str) -> type[Game]:
    """Load the class of a registered game.

    :raises UnknownGameError: if no game of that name is registered.
    :raises GameError: if the entry point fails to import, or loads no :class:`Game` subclass.
    """
    registered = game_entry_points()
    if name not in registered:
        known = ", ".join(sorted(registered)) or "none"
        raise UnknownGameError(f"unknown game {name!r} (registered: {known}){did_you_mean(name, registered)}")
    try:
        loaded = registered[name].load()
    except Exception as error:  # a broken plug-in must not take the others down with it
        raise GameError(f"game {name!r} failed to load ({registered[name].value}): {error}") from None
    if not (isinstance(loaded, type) and issubclass(loaded, Game)):
        raise GameError(f"entry point {name!r} does not name a tablebase.core.game.Game subclass")
    try:
        check_class(loaded)
    except GameError as error:
        raise GameError(f"game {name!r} failed to load ({registered[name].value}): {error}") from None
    return loaded


def outdated(name: str, version: int) -> bool:
    """Whether a tablebase built for ``version`` of the game ``name`` is outdated: the
    registered game is at another version now. False for a game that is not registered
    or does not load (nothing tells)."""
    try:
        return game_class(name).version != version
    except (UnknownGameError, GameError):
        return False


def game_failure(error: BaseException) -> GameError | None:
    """The error to report when ``error`` was raised by a game's own code (a plug-in's
    ``parse`` that fails on odd text, say), naming the game and the method the engine
    called; ``None`` when no method of a :class:`Game` subclass raised it.

    The traceback is searched for the outermost frame of a method defined in a game's
    module (not in the protocol's, :mod:`tablebase.core.game`), so a bug in a plug-in is one line naming the plug-in.
    """
    if isinstance(error, TablebaseError):
        return None
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        game = frame.f_locals.get("self")
        if isinstance(game, Game) and frame.f_code.co_filename != _PROTOCOL_FILE:
            name = getattr(game, "name", type(game).__name__)
            return GameError(f"game {name!r} failed in {frame.f_code.co_name}: {type(error).__name__}: {error}")
        tb = tb.tb_next
    return None


def load_game(name: str, params: Mapping[str, Any] | None = None) -> Game:
    """Instantiate a registered game with parameters given as text or values.

    >>> load_game("nim", {"heaps": "2", "max": "3"}).describe()
    'nim heaps=2 max=3'

    :raises UnknownGameError: for an unregistered name.
    :raises ParameterError: for an unknown, missing or bad parameter.
    """
    return game_class(name)(**dict(params or {}))
