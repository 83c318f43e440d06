"""Queries over a built tablebase: a position's value, its moves ranked, the line of best play.

Positions are handled in the user's orientation: each one is canonicalised only to
compute its key, so moves and successors are shown as the user would play them.
"""

from __future__ import annotations

import functools
import itertools
import operator
from dataclasses import dataclass
from typing import Any

from tablebase.core.errors import NotInTablebaseError, PositionError, StoreError, UsageError
from tablebase.core.game import Game, Mode, Move, Position
from tablebase.core.parameters import not_one_of
from tablebase.core.value import Value
from tablebase.core.values import Outcome
from tablebase.read.filled import probe_both
from tablebase.solve.kinds import ValueKind, kind_of
from tablebase.store import Store, TablebaseRow
from tablebase.store.schema import EXTRA_KINDS

LINE_ORDERS = ("dtm", "dtz")
"""The orders a line can follow (``--metric``): distance to mate, or DTZ under the 50-move
rule. Not chess's ``metric`` parameter, which says what a tablebase stores."""


def check_metric(metric: str) -> None:
    """:raises UsageError: if ``metric`` is not one of :data:`LINE_ORDERS`."""
    if metric not in LINE_ORDERS:
        raise UsageError(not_one_of("metric", metric, LINE_ORDERS))


VALUE_FIELDS_KEPT = 1 << 16
"""Distinct values whose JSON fields a :class:`Tablebase` keeps (a chess ending has a few
thousand: outcome, DTM and DTZ)."""

DEFAULT_LINE_BOUND = 200
"""Plies after which :meth:`Tablebase.line` stops a line that has not ended (a cycling draw)."""


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
        category = value.category
        if category is not None:
            mated = value.outcome == Outcome.LOSS and 0 in (remoteness, value.dtz)
            zeroing = -int(self.zeroing) if category < 0 else int(self.zeroing)
            dtm = () if metric == "dtz" else (-int(value.outcome) * (remoteness or 0),)
            return (category, int(not mated), *dtm, zeroing, -int(value.dtz or 0))
        if value.outcome == Outcome.LOSS:
            return (0, remoteness or 0)
        if value.outcome == Outcome.DRAW:
            return (1, float("inf") if remoteness is None else remoteness)
        return (2, -(remoteness or 0))


@dataclass(frozen=True)
class Line:
    """Best play from ``position`` (of ``value``): the ``moves`` played, and whether the
    game ``ended`` after them (false when a bound in plies cut the line)."""

    position: Position
    value: Value
    moves: list[RankedMove]
    ended: bool


class Tablebase:
    """The tablebases of one game, open for queries.

    A position is looked up in the tablebase that holds it (``game.table_of``), which for
    a chess position is the one of its material; a position that is not stored itself
    (``game.stored``, e.g. with an en passant right) is valued from its moves.
    """

    def __init__(self, game: Game, store: Store) -> None:
        self.game = game
        self.kind = kind_of(game)
        self.store = store
        self._sums: Tablebase | None = None
        self._value_fields: dict[Value, dict[str, Any]] = {}

    def row(self, table: Game) -> TablebaseRow:
        """The catalog row of a game's tablebase: among the rows of all its complete
        tablebases, which the store reads in one query and keeps a moment
        (:meth:`Store.complete_rows`), or, for one built since, looked up on its own.

        :raises NotBuiltError: if it is not complete in the store; the message names the
            build command.
        """
        row = self.store.complete_rows(table.name, table.version).get(table.identity())
        if row is None:
            row = self.store.require(table.name, table.identity(), table.build_command(), table.version)
        return row

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

    def position(self, given: Position | str) -> Position:
        """A position given as text (:meth:`parse`), as an object of the game's own
        library (``Game.position_of``: a ``chess.Board``), or as the game's position.

        :raises PositionError: for text or an object that is not a legal position.
        """
        return self.parse(given) if isinstance(given, str) else self.game.position_of(given)

    def reader(self, text: str) -> Tablebase:
        """The tablebase that reads ``text``: this one, or, for a sum ``a+b+...`` of an
        impartial game that does not split, the one of its :class:`Sums`."""
        game = self.game
        if Sums.SEPARATOR not in text or not self.kind.sums_of_positions:
            return self
        if self._sums is None:
            self._sums = Tablebase(Sums(game), self.store)
        return self._sums

    def values(self, positions: list[Position]) -> list[Value]:
        """Values of positions, with one probe per tablebase.

        :raises NotInTablebaseError: if one is not stored.
        :raises NotBuiltError: if a tablebase they need is not built.
        """
        if self.kind.splits:
            return self._sum_values(positions)
        return self._keyed_values([(position, *self.game.stored_key(position)) for position in positions])

    def _keyed_values(self, keyed: list[tuple[Position, Game | None, int]]) -> list[Value]:
        """Values of positions given with their tablebase and canonical key there (as
        :meth:`Game.keyed_moves` gives them; no tablebase for a position valued from its
        moves), with one probe per tablebase.

        :raises NotInTablebaseError: if one is not stored.
        """
        valued: dict[int, Value] = {}
        by_table: dict[int, tuple[Game, list[int]]] = {}
        for index, (position, owner, _key) in enumerate(keyed):
            if owner is None:
                valued[index] = self._value_from_moves(position)
            else:
                by_table.setdefault(id(owner), (owner, []))[1].append(index)
        for owner, indices in by_table.values():
            keys = [keyed[i][2] for i in indices]
            stored = self._stored(owner, keys)
            for index, key in zip(indices, keys):
                if key not in stored:
                    raise NotInTablebaseError(
                        f"position {owner.format(keyed[index][0])} is not in the tablebase "
                        f"(unreachable in {self.row(owner).description})"
                    )
                valued[index] = stored[key]
        return [valued[i] for i in range(len(keyed))]

    def value_of_key(self, table: Game, key: int, dtm: bool = True) -> Value:
        """The stored value of a canonical key of ``table``'s tablebase: the probe of a
        caller that has the key (no position is parsed, formatted or searched); with
        ``dtm`` false, its remoteness may be None where the tablebase leaves it out
        (:func:`~tablebase.read.filled.probe_both`), for a reader of WDL and DTZ alone.

        :raises NotInTablebaseError: if it is not stored.
        :raises NotBuiltError: if the tablebase is not built.
        """
        stored = self._stored(table, [key], dtm)
        if key not in stored:
            raise NotInTablebaseError(f"key {key} is not in the tablebase (unreachable in {self.row(table).description})")
        return stored[key]

    def _stored(self, table: Game, keys: list[int], dtm: bool = True) -> dict[int, Value]:
        """The stored values of canonical keys of one tablebase (absent keys left out).
        Where the catalog row read a moment ago names tables that are gone (another
        process rebuilt or repacked the tablebase since), the catalog is read again and
        the probe made once more.

        :raises StoreError: if the database fails.
        """
        row, kind = self.row(table), kind_of(table)
        try:
            return self._stored_in(row, keys, kind, dtm)
        except StoreError:
            self.store.forget_catalog()
            fresh = self.row(table)
            if fresh.id == row.id:
                raise
            return self._stored_in(fresh, keys, kind, dtm)

    def _stored_in(self, row: TablebaseRow, keys: list[int], kind: ValueKind, dtm: bool = True) -> dict[int, Value]:
        """:meth:`_stored` from a given catalog row, its values made by ``kind``."""
        if row.value_kind not in EXTRA_KINDS:
            return {key: kind.value(outcome, remoteness, None) for key, (outcome, remoteness) in self.store.probe(row, keys).items()}
        value = kind.value
        return {key: value(outcome, remoteness, extra) for key, ((outcome, remoteness), extra) in probe_both(self.store, row, keys, dtm).items()}

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

    def _value_from_moves(self, position: Position, owner: Game | None = None, ranked: list[RankedMove] | None = None) -> Value:
        """The value of a position that is not stored: one ply of search over its moves.

        :param owner: its tablebase's game (``game.table_of``), when the caller has it.
        :param ranked: its moves as :meth:`moves` ranks them by DTM, when the caller has them.
        """
        owner = self.game.table_of(position) if owner is None else owner
        outcome = owner.terminal(position)
        if outcome is not None:
            return Value(outcome, 0)
        ranked = self._moves(position, owner) if ranked is None else ranked
        if not ranked:
            return Value(Outcome.LOSS, 0)
        best = ranked[0].value
        return Value(Outcome(-int(best.outcome)), None if best.remoteness is None else best.remoteness + 1)

    def probe(self, position: Position | str) -> Value:
        """The position's value (a position as :meth:`position` takes it).

        :raises NotInTablebaseError: if it is not stored.
        :raises NotBuiltError: if its tablebase is not built.
        :raises PositionError: for text or an object that is not a legal position.
        """
        return self.values([self.position(position)])[0]

    def get(self, position: Position | str) -> Value | None:
        """Like :meth:`probe`, but ``None`` for a position not in the tablebase."""
        try:
            return self.probe(position)
        except NotInTablebaseError:
            return None

    def moves(self, position: Position | str, metric: str = "dtm") -> list[RankedMove]:
        """Every legal move with its successor's value, best first (see
        :meth:`RankedMove.rank`, which ``metric``, ``dtm`` or ``dtz``, steers); a
        position as :meth:`position` takes it.

        A terminal position has none, unless its game lists them (``Game.moves_when_ended``).
        """
        position = self.position(position)
        return self._moves(position, self.game.table_of(position), metric)

    def _moves(self, position: Position, owner: Game, metric: str = "dtm") -> list[RankedMove]:
        """:meth:`moves`, the position's tablebase ``owner`` (``game.table_of``) given."""
        ended = owner.terminal(position)
        if ended is not None:
            return self._moves_when_ended(position, owner, ended)
        return self._ranked(position, owner, metric)

    def _ranked(self, position: Position, owner: Game, metric: str = "dtm") -> list[RankedMove]:
        """The moves of a position that is not terminal, with their successors' values,
        ranked (:meth:`moves`)."""
        if self.kind.splits:  # sums are valued from their components, not by keys
            keyed = [(move, child, None, -1) for move, child in owner.moves(position)]
            values = self.values([child for _move, child, _table, _key in keyed])
        else:
            keyed = owner.keyed_moves(position)
            values = self._keyed_values([(child, table, key) for _move, child, table, key in keyed])
        ranked = [
            RankedMove(
                move,
                child,
                value,
                owner.reward(position, move) - value.score if value.score is not None else None,
                _zeroing(owner, move),
            )
            for (move, child, _table, _key), value in zip(keyed, values)
        ]
        return sorted(ranked, key=lambda ranked_move: ranked_move.rank(metric))

    def _moves_when_ended(self, position: Position, owner: Game, ended: Outcome) -> list[RankedMove]:
        """The moves of a terminal position (of outcome ``ended``): none, or, in a game
        whose moves go on (``Game.moves_when_ended``), each to a position that has ended
        the same way, at remoteness 0 (chess: KvK's king moves, each a draw)."""
        if not owner.moves_when_ended:
            return []
        value = self.kind.value(int(ended), 0, 0)
        return [
            RankedMove(move, child, value, zeroing=_zeroing(owner, move))
            for move, child in owner.moves(position)
        ]

    def probe_with_moves(self, position: Position | str) -> tuple[Value, list[RankedMove]]:
        """:meth:`probe`, then :meth:`moves`, of one position, as ``tablebase query`` shows
        them: its tablebase found once (``game.table_of``), each value read once.

        :raises NotInTablebaseError, NotBuiltError: as :meth:`probe` (first) and
            :meth:`moves` raise them.
        """
        position = self.position(position)
        if self.kind.splits:
            return self.probe(position), self.moves(position)
        owner = self.game.table_of(position)
        if owner.stored(position):
            value = self._stored_value(position, owner)
            return value, self._moves(position, owner)
        ranked = self._moves(position, owner)
        return self._value_from_moves(position, owner, ranked), ranked

    def _stored_value(self, position: Position, owner: Game) -> Value:
        """The stored value of a position that its tablebase ``owner`` (``game.table_of``) stores.

        :raises NotInTablebaseError: if it is not there.
        """
        return self._keyed_values([(position, owner, owner.canonical_key(position))])[0]

    @staticmethod
    def best(ranked: list[RankedMove]) -> list[RankedMove]:
        """The optimal moves among ranked ones (sorted as :meth:`moves` sorts them by
        DTM): all those that tie with the first, which come first."""
        if not ranked:
            return []
        first = ranked[0].rank()
        return list(itertools.takewhile(lambda move: move.rank() == first, ranked))

    def line(self, position: Position | str, max_plies: int = DEFAULT_LINE_BOUND, metric: str = "dtm") -> list[RankedMove]:
        """The principal variation: the best move at each ply until the game ends, from a
        position as :meth:`position` takes it.

        :param max_plies: bound for lines that do not end (draws that cycle).
        :param metric: ``dtm``, or ``dtz`` for the DTZ-optimal line under the 50-move
            rule (lichess's mainline: a zeroing move first where it wins).
        :raises UsageError: for another metric, or ``dtz`` where no DTZ is stored.
        """
        check_metric(metric)
        position = self.position(position)
        if metric == "dtz" and self.probe(position).dtz is None:
            if not any(parameter.name == "metric" for parameter in self.game.parameters):
                raise UsageError(f"{self.game.name} has no DTZ (a chess notion): use --metric dtm")
            raise UsageError(f"{self.game.describe()} stores no DTZ: build it with -p metric=dtz or -p metric=both")
        played: list[RankedMove] = []
        while len(played) < max_plies:
            ranked = self._played_on(position, metric)
            if not ranked:
                break
            played.append(ranked[0])
            position = ranked[0].position
        return played

    # ---- JSON shapes of the CLI contract

    def value_json(self, position: Position, value: Value) -> dict[str, Any]:
        """``{"position", "outcome", "remoteness"}`` of one position, with the game's details
        of its value and of the position itself."""
        game = self.game
        found = {"position": game.format(position)}
        fields = self._value_fields.get(value)
        if fields is None:
            fields = {"outcome": value.outcome.label, "remoteness": value.remoteness, **value.extras()}
            if value.score is None:  # else the score's details, which the position steers, come first
                fields.update(game.value_details(value.outcome, value.remoteness))
            if len(self._value_fields) >= VALUE_FIELDS_KEPT:
                self._value_fields.clear()
            self._value_fields[value] = fields
        found.update(fields)
        if value.score is not None:
            found.update(game.score_details(position, value.score))
            found.update(game.value_details(value.outcome, value.remoteness))
        found.update(game.position_details(position))
        return found

    def move_json(self, move: RankedMove) -> dict[str, Any]:
        """``{"move", "position", "outcome", "remoteness"}`` of one move, with the game's
        details (and ``margin`` in a scored game)."""
        found = {"move": self.game.format_move(move.move)}
        found.update(self.game.move_details(move.move))
        if move.margin is not None:
            found["margin"] = move.margin
        found.update(self.value_json(move.position, move.value))
        return found

    def play(self, position: Position | str, max_plies: int = DEFAULT_LINE_BOUND, metric: str = "dtm") -> Line:
        """The :meth:`line` from a position (by ``metric``), with its value and whether it
        ended."""
        position = self.position(position)
        played = self.line(position, max_plies, metric)
        last = played[-1].position if played else position
        return Line(position, self.probe(position), played, not self._played_on(last))

    def _played_on(self, position: Position, metric: str = "dtm") -> list[RankedMove]:
        """The moves a line may play from a position, ranked: none once the game has
        ended (a terminal position, whatever moves its game lists there)."""
        owner = self.game.table_of(position)
        return [] if owner.terminal(position) is not None else self._ranked(position, owner, metric)

    def line_json(self, line: Line) -> dict[str, Any]:
        """The ``tablebase line --json`` object of a :class:`Line`."""
        return {
            **self.value_json(line.position, line.value),
            "line": [self.move_json(m) for m in line.moves],
            "ended": line.ended,
        }

    def report(self, position: Position | str) -> dict[str, Any]:
        """The ``tablebase query --json`` object: value, ranked moves and best moves (the
        moves read first, then the value; the position's tablebase found once)."""
        position = self.position(position)
        if self.kind.splits:
            ranked = self.moves(position)
            value = self.probe(position)
        else:
            owner = self.game.table_of(position)
            ranked = self._moves(position, owner)
            value = self._stored_value(position, owner) if owner.stored(position) else self._value_from_moves(position, owner, ranked)
        return {
            **self.value_json(position, value),
            "moves": [self.move_json(m) for m in ranked],
            "best": [self.game.format_move(m.move) for m in self.best(ranked)],
        }


def _zeroing(game: Game, move: Move) -> bool:
    """Whether a move resets the 50-move counter (its ``zeroing`` detail; false where the
    game gives none)."""
    return bool(game.move_details(move).get("zeroing", False))


def nim_sum(values: list[int]) -> int:
    """The xor of Grundy values: the value of the sum of their games."""
    return functools.reduce(operator.xor, values, 0)


SumPosition = tuple[Position, ...]
SumMove = tuple[int, Move]
"""``(component index from 0, the component's move)``."""


class Sums(Game):
    """The sums ``a+b+...`` of positions of an impartial game that does not split (Nim,
    a subtraction game), as a game that splits: a position is a tuple of the base game's
    positions, a move is a move in one component, and a sum is valued from the base
    game's stored Grundy values by their xor (the Sprague–Grundy theorem; Berlekamp,
    Conway and Guy, *Winning Ways*, ch. 2). Nothing is stored for it: its tablebase is
    the base game's.

    :raises UsageError: if the base game is not impartial.
    """

    mode = Mode.SUMS
    SEPARATOR = "+"

    def __init__(self, base: Game) -> None:  # no parameters of its own: the base game's
        if not kind_of(base).sums_of_positions:
            raise UsageError(f"{base.name} is not an impartial game: its positions do not add up")
        self.base = base
        self.name = base.name  # type: ignore[misc]
        self.params = base.params

    def identity(self) -> str:
        return self.base.identity()

    def build_command(self) -> str:
        return self.base.build_command()

    def describe(self) -> str:
        return self.base.describe()

    def components(self, position: SumPosition) -> list[SumPosition]:
        return [(part,) for part in position]

    def moves(self, position: SumPosition) -> list[tuple[SumMove, SumPosition]]:
        """Every move of every component, with the sum it leaves (components in place)."""
        base = self.base
        return [
            ((index, move), position[:index] + (child,) + position[index + 1 :])
            for index, part in enumerate(position)
            if base.terminal(part) is None
            for move, child in base.moves(part)
        ]

    def terminal(self, position: SumPosition) -> Outcome | None:
        """``LOSS`` when no component has a move (normal play), else ``None``."""
        return None if self.moves(position) else Outcome.LOSS

    def encode(self, position: SumPosition) -> int:
        """The key of a single component in the base game's tablebase."""
        if len(position) != 1:
            raise UsageError("only a single component of a sum has a key")
        return self.base.canonical_key(position[0])

    def parse(self, text: str) -> SumPosition:
        """The components of ``a+b+...``. :raises PositionError: for a bad component."""
        return tuple(self.base.parse(part) for part in text.split(self.SEPARATOR))

    def format(self, position: SumPosition) -> str:
        return self.SEPARATOR.join(self.base.format(part) for part in position)

    def format_move(self, move: SumMove) -> str:
        """The component's move and the component's number from 1: ``1:5>3 in component 2``."""
        index, inner = move
        return f"{self.base.format_move(inner)} in component {index + 1}"
