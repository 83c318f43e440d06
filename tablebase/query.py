"""Queries over a built tablebase: a position's value, its moves ranked, the line of best play.

Positions are handled in the user's orientation: each one is canonicalised only to
compute its key, so moves and successors are shown as the user would play them.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from typing import Any

import numpy as np
from tablebase.errors import NotInTablebaseError, PositionError, UsageError
from tablebase.game import Game, Mode, Move, Outcome, Position
from tablebase.store import Store, TablebaseRow
from tablebase.solve.dtz import CATEGORIES, categories
from tablebase.store.schema import DTZ, EXTRA_KINDS, GRUNDY, SCORE

METRICS = ("dtm", "dtz")
"""The orders a line can follow: distance to mate, or DTZ under the 50-move rule."""

DEFAULT_LINE_BOUND = 200
"""Plies after which :meth:`Tablebase.line` stops a line that has not ended (a cycling draw)."""


@dataclass(frozen=True)
class Value:
    """A position's value for its side to move; ``remoteness`` in plies, or ``None``;
    ``grundy``, the Grundy value, for a position of an impartial game, ``score``, the
    negamax value, for one of a scored game, and ``dtz``, signed plies to the next
    zeroing move under the 50-move rule (:mod:`tablebase.solve.dtz`), for one of a
    tablebase that stores it (else ``None``)."""

    outcome: Outcome
    remoteness: int | None
    grundy: int | None = None
    score: int | None = None
    dtz: int | None = None

    @property
    def category(self) -> int | None:
        """Syzygy's category (-2..2) under the 50-move rule, where DTZ is known."""
        return None if self.dtz is None else int(categories(np.array([self.outcome]), np.array([self.dtz]))[0])

    def extras(self) -> dict[str, int | str]:
        """``grundy``, ``score``, and ``category`` (lichess's name, e.g.
        ``cursed-win``) with ``dtz``: those that are known."""
        found: dict[str, int | str] = {
            name: number for name, number in (("grundy", self.grundy), ("score", self.score)) if number is not None
        }
        if self.dtz is not None:
            found.update(category=CATEGORIES[self.category], dtz=self.dtz)  # type: ignore[index]
        return found


@dataclass(frozen=True)
class RankedMove:
    """A move, the position it leads to (user's orientation) and that position's value.

    ``value`` is for the side to move *after* the move, as everywhere in tablebase.
    """

    move: Move
    position: Position
    value: Value
    margin: int | None = None
    """In a scored game, the margin the move secures for its maker: reward minus the
    successor's score."""
    zeroing: bool = False
    """Whether the move resets the 50-move counter (the game's ``zeroing`` move detail)."""

    def rank(self, metric: str = "dtm") -> tuple[float, ...]:
        """Sort key, best first, for the player making the move.

        In a scored game, the largest margin first. Where the successor's DTZ is known
        (chess), as lichess ranks moves: by category (the successor's worst first),
        then checkmate first, then DTM (unless ``metric`` is ``dtz``: the shortest win,
        the longest loss), then zeroing moves first where the mover wins (last where it
        loses), then DTZ likewise. Otherwise moves to a loss (the mover wins) come first,
        the shortest first; then moves to a draw, the shortest first; then moves to a
        win, the longest first.
        """
        if self.margin is not None:
            return (-self.margin, 0)
        value = self.value
        remoteness = value.remoteness
        if value.category is not None:
            mated = value.outcome == Outcome.LOSS and 0 in (remoteness, value.dtz)
            zeroing = -int(self.zeroing) if value.category < 0 else int(self.zeroing)
            dtm = () if metric == "dtz" else (-int(value.outcome) * (remoteness or 0),)
            return (value.category, int(not mated), *dtm, zeroing, -int(value.dtz or 0))
        if value.outcome == Outcome.LOSS:
            return (0, remoteness or 0)
        if value.outcome == Outcome.DRAW:
            return (1, float("inf") if remoteness is None else remoteness)
        return (2, -(remoteness or 0))


class Tablebase:
    """The tablebases of one game, open for queries.

    A position is looked up in the tablebase that holds it (``game.table_of``), which for
    a chess position is the one of its material; a position that is not stored itself
    (``game.stored``, e.g. with an en passant right) is valued from its moves.
    """

    def __init__(self, game: Game, store: Store) -> None:
        self.game = game
        self.store = store
        self._rows: dict[tuple[str, str], TablebaseRow] = {}

    def row(self, table: Game) -> TablebaseRow:
        """The catalog row of a game's tablebase.

        :raises NotBuiltError: if it is not complete in the store; the message names the
            build command.
        """
        identity = (table.name, table.identity())
        if identity not in self._rows:
            self._rows[identity] = self.store.require(table.name, table.identity(), table.build_command(), table.version)
        return self._rows[identity]

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

    def values(self, positions: list[Position]) -> list[Value]:
        """Values of positions, with one probe per tablebase.

        :raises NotInTablebaseError: if one is not stored.
        :raises NotBuiltError: if a tablebase they need is not built.
        """
        if self.game.splits:
            return self._sum_values(positions)
        valued: dict[int, Value] = {}
        by_table: dict[int, tuple[Game, list[int]]] = {}
        for index, position in enumerate(positions):
            owner = self.game.table_of(position)
            if owner.stored(position):
                by_table.setdefault(id(owner), (owner, []))[1].append(index)
            else:
                valued[index] = self._value_from_moves(position)
        for owner, indices in by_table.values():
            row = self.row(owner)
            keys = [owner.canonical_key(positions[i]) for i in indices]
            found = self.store.probe(row, keys)
            extra = self.store.probe_extra(row, keys) if row.value_kind in EXTRA_KINDS else {}
            for index, key in zip(indices, keys):
                if key not in found:
                    raise NotInTablebaseError(
                        f"position {owner.format(positions[index])} is not in the tablebase "
                        f"(unreachable in {row.description})"
                    )
                outcome, remoteness = found[key]
                kind = {row.value_kind: extra.get(key)}
                valued[index] = Value(Outcome(outcome), remoteness, kind.get(GRUNDY), kind.get(SCORE), kind.get(DTZ))
        return [valued[i] for i in range(len(positions))]

    def _sum_values(self, positions: list[Position]) -> list[Value]:
        """Values of sums of a game that ``splits``: the xor of the components' stored
        Grundy values; a win when it is not 0 (no remoteness, but 0 at the end)."""
        game = self.game
        keys = {game.canonical_key(c) for p in positions for c in game.components(p)}
        grundy = self.store.probe_extra(self.row(game), keys)
        values = []
        for position in positions:
            parts = [grundy.get(game.canonical_key(component)) for component in game.components(position)]
            if None in parts:
                missing = game.components(position)[parts.index(None)]
                raise NotInTablebaseError(f"{game.format(missing)} has no stored Grundy value")
            total = nim_sum(parts)  # type: ignore[arg-type]
            ended = game.terminal(position) is not None
            values.append(Value(Outcome.WIN if total else Outcome.LOSS, 0 if ended else None, total))
        return values

    def _value_from_moves(self, position: Position) -> Value:
        """The value of a position that is not stored: one ply of search over its moves."""
        owner = self.game.table_of(position)
        outcome = owner.terminal(position)
        if outcome is not None:
            return Value(outcome, 0)
        ranked = self.moves(position)
        if not ranked:
            return Value(Outcome.LOSS, 0)
        best = ranked[0].value
        return Value(Outcome(-int(best.outcome)), None if best.remoteness is None else best.remoteness + 1)

    def probe(self, position: Position) -> Value:
        """The position's value.

        :raises NotInTablebaseError: if it is not stored.
        :raises NotBuiltError: if its tablebase is not built.
        """
        return self.values([position])[0]

    def get(self, position: Position) -> Value | None:
        """Like :meth:`probe`, but ``None`` for a position not in the tablebase."""
        try:
            return self.probe(position)
        except NotInTablebaseError:
            return None

    def moves(self, position: Position, metric: str = "dtm") -> list[RankedMove]:
        """Every legal move with its successor's value, best first (see
        :meth:`RankedMove.rank`, which ``metric``, ``dtm`` or ``dtz``, steers).

        A terminal position has none.
        """
        owner = self.game.table_of(position)
        if owner.terminal(position) is not None:
            return []
        pairs = owner.moves(position)
        values = self.values([child for _move, child in pairs])
        ranked = [
            RankedMove(
                move,
                child,
                value,
                owner.reward(position, move) - value.score if value.score is not None else None,
                bool(owner.move_details(move).get("zeroing", False)),
            )
            for (move, child), value in zip(pairs, values)
        ]
        return sorted(ranked, key=lambda ranked_move: ranked_move.rank(metric))

    @staticmethod
    def best(ranked: list[RankedMove]) -> list[RankedMove]:
        """The optimal moves among ranked ones: all those that tie with the first."""
        return [m for m in ranked if m.rank() == ranked[0].rank()] if ranked else []

    def line(self, position: Position, max_plies: int = DEFAULT_LINE_BOUND, metric: str = "dtm") -> list[RankedMove]:
        """The principal variation: the best move at each ply until the game ends.

        :param max_plies: bound for lines that do not end (draws that cycle).
        :param metric: ``dtm``, or ``dtz`` for the DTZ-optimal line under the 50-move
            rule (lichess's mainline: a zeroing move first where it wins).
        :raises UsageError: for another metric, or ``dtz`` where no DTZ is stored.
        """
        if metric not in METRICS:
            raise UsageError(f"bad metric {metric!r}: expected one of {', '.join(METRICS)}")
        if metric == "dtz" and self.probe(position).dtz is None:
            raise UsageError(f"{self.game.describe()} stores no DTZ: build it with -p metric=dtz or -p metric=both")
        played: list[RankedMove] = []
        while len(played) < max_plies:
            ranked = self.moves(position, metric)
            if not ranked:
                break
            played.append(ranked[0])
            position = ranked[0].position
        return played

    # ---- JSON shapes of the CLI contract

    def value_json(self, position: Position, value: Value) -> dict[str, Any]:
        """``{"position", "outcome", "remoteness"}`` of one position, with the game's details."""
        return {
            "position": self.game.format(position),
            "outcome": value.outcome.label,
            "remoteness": value.remoteness,
            **value.extras(),
            **(self.game.score_details(position, value.score) if value.score is not None else {}),
            **self.game.value_details(value.outcome, value.remoteness),
        }

    def move_json(self, move: RankedMove) -> dict[str, Any]:
        """``{"move", "position", "outcome", "remoteness"}`` of one move, with the game's
        details (and ``margin`` in a scored game)."""
        return {
            "move": self.game.format_move(move.move),
            **self.game.move_details(move.move),
            **({"margin": move.margin} if move.margin is not None else {}),
            **self.value_json(move.position, move.value),
        }

    def report(self, position: Position) -> dict[str, Any]:
        """The ``tablebase query --json`` object: value, ranked moves and best moves."""
        ranked = self.moves(position)
        return {
            **self.value_json(position, self.probe(position)),
            "moves": [self.move_json(m) for m in ranked],
            "best": [self.game.format_move(m.move) for m in self.best(ranked)],
        }


def nim_sum(values: list[int]) -> int:
    """The xor of Grundy values: the value of the sum of their games."""
    return functools.reduce(operator.xor, values, 0)


@dataclass(frozen=True)
class SumMove:
    """A move in one component of a sum: ``component`` (0-based), the move, and the
    whole sum after it."""

    component: int
    move: Move
    after: list[Position]


class GameSum:
    """A sum of positions of one impartial game, valued by the xor of their stored Grundy
    values (the Sprague–Grundy theorem; Berlekamp, Conway and Guy, *Winning Ways*, ch. 2).

    :raises UsageError: if the game is not impartial.
    """

    SEPARATOR = "+"

    def __init__(self, tablebase: Tablebase) -> None:
        if tablebase.game.mode is not Mode.IMPARTIAL:
            raise UsageError(f"{tablebase.game.name} is not an impartial game: its positions do not add up")
        self.tablebase = tablebase

    def parse(self, text: str) -> list[Position]:
        """The components of ``a+b+...``. :raises PositionError: for a bad component."""
        return [self.tablebase.parse(part) for part in text.split(self.SEPARATOR)]

    def format(self, components: list[Position]) -> str:
        """The sum written back, components joined by ``+``."""
        return self.SEPARATOR.join(self.tablebase.game.format(c) for c in components)

    def grundy(self, components: list[Position]) -> list[int]:
        """Each component's stored Grundy value.

        :raises NotInTablebaseError: for a component without one.
        """
        values = self.tablebase.values(components)
        if any(v.grundy is None for v in values):
            raise NotInTablebaseError("a component has no stored Grundy value (rebuild the tablebase)")
        return [int(v.grundy) for v in values]  # type: ignore[arg-type]

    def winning_move(self, components: list[Position]) -> SumMove | None:
        """A move to a sum of Grundy value 0, or ``None`` when the sum's value is 0 (lost).

        In a component whose value ``g`` has the sum's highest bit, a move to ``g ^ total``
        exists by the definition of mex.
        """
        return self._winning_move(components, self.grundy(components))

    def _winning_move(self, components: list[Position], values: list[int]) -> SumMove | None:
        """:meth:`winning_move`, given the components' Grundy ``values``."""
        total = nim_sum(values)
        if total == 0:
            return None
        index = next(i for i, g in enumerate(values) if g ^ total < g)
        wanted = values[index] ^ total
        for ranked in self.tablebase.moves(components[index]):
            if ranked.value.grundy == wanted:
                after = components[:index] + [ranked.position] + components[index + 1 :]
                return SumMove(index, ranked.move, after)
        raise NotInTablebaseError(f"no move of component {index + 1} reaches Grundy value {wanted}")

    def report(self, components: list[Position]) -> dict[str, Any]:
        """The ``tablebase query --json`` object of a sum."""
        game = self.tablebase.game
        values = self.grundy(components)
        total = nim_sum(values)
        move = self._winning_move(components, values)
        return {
            "position": self.format(components),
            "components": [{"position": game.format(c), "grundy": g} for c, g in zip(components, values)],
            "grundy": total,
            "outcome": (Outcome.WIN if total else Outcome.LOSS).label,
            "winning_move": None
            if move is None
            else {"component": move.component + 1, "move": game.format_move(move.move), "position": self.format(move.after)},
        }
