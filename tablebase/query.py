"""Queries over a built tablebase: a position's value, its moves ranked, the line of best play.

Positions are handled in the user's orientation: each one is canonicalised only to
compute its key, so moves and successors are shown as the user would play them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablebase.errors import NotInTablebaseError, PositionError
from tablebase.game import Game, Move, Outcome, Position
from tablebase.store import Store, TablebaseRow

DEFAULT_LINE_BOUND = 200
"""Plies after which :meth:`Tablebase.line` stops a line that has not ended (a cycling draw)."""


@dataclass(frozen=True)
class Value:
    """A position's value for its side to move; ``remoteness`` in plies, or ``None``."""

    outcome: Outcome
    remoteness: int | None


@dataclass(frozen=True)
class RankedMove:
    """A move, the position it leads to (user's orientation) and that position's value.

    ``value`` is for the side to move *after* the move, as everywhere in tablebase.
    """

    move: Move
    position: Position
    value: Value

    def rank(self) -> tuple[int, float]:
        """Sort key, best first, for the player making the move.

        Moves to a loss (the mover wins) come first, the shortest first; then moves to a
        draw, the shortest first; then moves to a win, the longest first.
        """
        remoteness = self.value.remoteness
        if self.value.outcome == Outcome.LOSS:
            return (0, remoteness or 0)
        if self.value.outcome == Outcome.DRAW:
            return (1, float("inf") if remoteness is None else remoteness)
        return (2, -(remoteness or 0))


def _build_hint(game: Game) -> str:
    options = "".join(f" -p {p.name}={p.show(game.params[p.name])}" for p in game.parameters if p.kind != "file")
    files = "".join(f" -p {p.name}=FILE" for p in game.parameters if p.kind == "file")
    return f"tablebase build {game.name}{options}{files}"


class Tablebase:
    """A complete tablebase of one game, open for queries.

    :raises NotBuiltError: if the store holds no complete tablebase of the game with its
        parameters; the message names the build command.
    """

    def __init__(self, game: Game, store: Store) -> None:
        self.game = game
        self.store = store
        self.row: TablebaseRow = store.require(game.name, game.identity(), _build_hint(game))

    def parse(self, text: str) -> Position:
        """Read a position; ``start`` is the game's first start position.

        :raises PositionError: if the text cannot be parsed, or is illegal.
        """
        if text.strip() == "start":
            try:
                return self.game.start_positions()[0]
            except NotImplementedError as error:
                raise PositionError(str(error)) from None
        return self.game.parse(text)

    def _values(self, positions: list[Position]) -> list[Value]:
        keys = [self.game.canonical_key(p) for p in positions]
        found = self.store.probe(self.row, keys)
        values = []
        for position, key in zip(positions, keys):
            if key not in found:
                raise NotInTablebaseError(
                    f"position {self.game.format(position)} is not in the tablebase (unreachable in {self.row.description})"
                )
            outcome, remoteness = found[key]
            values.append(Value(Outcome(outcome), remoteness))
        return values

    def probe(self, position: Position) -> Value:
        """The position's value. :raises NotInTablebaseError: if it is not stored."""
        return self._values([position])[0]

    def get(self, position: Position) -> Value | None:
        """Like :meth:`probe`, but ``None`` for a position not in the tablebase."""
        try:
            return self.probe(position)
        except NotInTablebaseError:
            return None

    def moves(self, position: Position) -> list[RankedMove]:
        """Every legal move with its successor's value, best first (see :meth:`RankedMove.rank`).

        A terminal position has none.
        """
        if self.game.terminal(position) is not None:
            return []
        pairs = self.game.moves(position)
        values = self._values([child for _move, child in pairs])
        ranked = [RankedMove(move, child, value) for (move, child), value in zip(pairs, values)]
        return sorted(ranked, key=RankedMove.rank)

    @staticmethod
    def best(ranked: list[RankedMove]) -> list[RankedMove]:
        """The optimal moves among ranked ones: all those that tie with the first."""
        return [m for m in ranked if m.rank() == ranked[0].rank()] if ranked else []

    def line(self, position: Position, max_plies: int = DEFAULT_LINE_BOUND) -> list[RankedMove]:
        """The principal variation: the best move at each ply until the game ends.

        :param max_plies: bound for lines that do not end (draws that cycle).
        """
        played: list[RankedMove] = []
        while len(played) < max_plies:
            ranked = self.moves(position)
            if not ranked:
                break
            played.append(ranked[0])
            position = ranked[0].position
        return played

    # ---- JSON shapes of the CLI contract

    def value_json(self, position: Position, value: Value) -> dict[str, Any]:
        """``{"position", "outcome", "remoteness"}`` of one position."""
        return {"position": self.game.format(position), "outcome": value.outcome.label, "remoteness": value.remoteness}

    def move_json(self, move: RankedMove) -> dict[str, Any]:
        """``{"move", "position", "outcome", "remoteness"}`` of one move."""
        return {"move": self.game.format_move(move.move), **self.value_json(move.position, move.value)}

    def report(self, position: Position) -> dict[str, Any]:
        """The ``tablebase query --json`` object: value, ranked moves and best moves."""
        ranked = self.moves(position)
        return {
            **self.value_json(position, self.probe(position)),
            "moves": [self.move_json(m) for m in ranked],
            "best": [self.game.format_move(m.move) for m in self.best(ranked)],
        }
