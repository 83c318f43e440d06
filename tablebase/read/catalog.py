"""The catalog of stored tablebases as ``tablebase info`` lists it: rows chosen by game and
by some of its parameters, their JSON, a game's own summary of a tablebase, and the
game a row was built for.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tablebase.core.errors import GameError, UsageError
from tablebase.core.game import Game
from tablebase.core.parameters import unknown_parameter
from tablebase.core.values import StoredKind
from tablebase.solve.kinds import kind_named
from tablebase.solve.registry import game_class, load_game, outdated
from tablebase.store import Store, TablebaseRow


@dataclass(frozen=True)
class Listing:
    """A catalog row, with the game's :meth:`~tablebase.core.game.Game.summary` of it (empty
    when the game has none, or the row is not complete)."""

    row: TablebaseRow
    summary: list[str]
    abandoned: bool = False
    """Whether it is a build whose builder is gone (killed): the next build takes it over."""

    @property
    def has_remoteness(self) -> bool:
        """Whether the tablebase stores remoteness: not one of scores, nor one of a game
        whose positions are sums (their solvers give none; a Büchi game's is all null)."""
        if self.row.value_kind == StoredKind.SCORE:
            return False
        if self.row.value_kind != StoredKind.GRUNDY:
            return True
        try:  # impartial or sums: the class's kind tells
            return kind_named(game_class(self.row.game).mode).remoteness
        except (GameError, UsageError):  # a plug-in gone or broken: show what is stored
            return True

    @property
    def outdated(self) -> bool:
        """Whether it was built for another version of its game (see :func:`outdated`)."""
        return outdated(self.row.game, self.row.game_version)

    def json(self) -> dict[str, Any]:
        """The ``tablebase info --json`` object of the row (schema ``info`` in README)."""
        return {
            **self.row.to_json(),
            "outdated": self.outdated,
            **({"abandoned": True} if self.abandoned else {}),
            "max_remoteness": self.row.max_remoteness if self.has_remoteness else None,
            **({"summary": self.summary} if self.summary else {}),
        }


def listings(store: Store, game: str | None = None, given: Mapping[str, str] | None = None) -> list[Listing]:
    """The stored tablebases, oldest first: all, one game's, or those of a game whose
    parameters named in ``given`` (as text) have those values, whatever the others are;
    parameters that name a collection (chess ``all3``) list its members' tablebases.

    With parameters that make a whole game, the game's summary of each complete row of
    exactly those parameters comes along.

    :raises UsageError: for parameters without a game.
    :raises UnknownGameError: for an unknown game.
    :raises ParameterError: for an unknown parameter or a bad value.
    """
    given = dict(given or {})
    cls = filter_class(game, given)
    if cls is None:
        return [_listing(store, row, []) for row in store.catalog()]
    if given:
        collection = load_game(game, given)
        members = collection.members()
        if members != [collection]:
            member_ids = {(member.name, member.identity()) for member in members}
            return [_listing(store, row, []) for row in store.catalog(cls.name) if (row.game, row.params) in member_ids]
    wanted = _identities(cls, given)
    rows = [row for row in store.catalog(cls.name) if _matches(json.loads(row.params), wanted)]
    instance = load_game(game, given) if given and cls.summary is not Game.summary else None
    return [_listing(store, row, _summary(store, row, instance)) for row in rows]


def filter_class(game: str | None, given: Mapping[str, str]) -> type[Game] | None:
    """The game class that a :func:`listings` filter names (None for no game), its
    parameters checked, so that a bad filter is reported before a database is opened.

    :raises UsageError, UnknownGameError, ParameterError: as :func:`listings`.
    """
    if game is None:
        if given:
            raise UsageError("parameters (-p) need a GAME")
        return None
    cls = game_class(game)
    _identities(cls, given)
    return cls


def _listing(store: Store, row: TablebaseRow, summary: list[str]) -> Listing:
    return Listing(row, summary, store.abandoned(row))


def _identities(cls: type[Game], given: Mapping[str, str]) -> dict[str, Any]:
    """The identity form of each given parameter. :raises ParameterError: as above."""
    declared = {parameter.name: parameter for parameter in cls.parameters}
    found = {}
    for name, text in given.items():
        if name not in declared:
            raise unknown_parameter(name, declared)
        parameter = declared[name]
        value = text if parameter.kind == "str" else parameter.parse(text)
        parameter.validate(value)
        found[name] = parameter.identity(value)
    return found


def _matches(params: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    return all(params.get(name) == value for name, value in wanted.items())


def _summary(store: Store, row: TablebaseRow, instance: Game | None) -> list[str]:
    if instance is None or row.status != "complete" or row.params != instance.identity():
        return []
    keys, outcome, _remoteness = store.read_values(row)
    return instance.summary(keys, outcome)


def row_game(row: TablebaseRow) -> Game:
    """The game a catalog row was built for: its game loaded with its JSON parameters
    (:func:`~tablebase.core.game.load_game`), made once for the last 64 rows' games (a
    chess game keeps its endings' games).

    :raises UnknownGameError: if the game is not installed here.
    :raises ParameterError: if the parameters are not the game's (another version's).
    """
    return _loaded(row.game, row.params)


@functools.lru_cache(maxsize=64)
def _loaded(name: str, params: str) -> Game:
    """:func:`row_game` of a row's game name and JSON parameters."""
    return load_game(name, json.loads(params))
