"""Self-check of a game implementation, in the spirit of GamesmanOne's game tests.

On a sample of positions it checks that the parts of a :class:`~tablebase.core.game.Game`
agree with each other: keys round-trip, text round-trips, canonical forms are stable (and,
over an index space, the only legal keys), the
batch API gives what the per-position API gives (``format_keys`` what ``format`` writes), un-moves are moves back, and symmetric positions have the same
moves up to symmetry. Run it as ``tablebase check GAME``.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator

import numpy as np

from tablebase.core.batches import BatchMoves
from tablebase.core.game import Game, Position, overrides, provides_unmoves
from tablebase.core.values import NOT_TERMINAL
from tablebase.solve.kinds import kind_of
from tablebase.solve.ordered import levels_cover

MAX_PROBLEMS = 20


def sample_positions(game: Game, count: int, seed: int = 0) -> list[Position]:
    """Up to ``count`` positions: random legal keys of an index space, or the first ones
    found by breadth-first search from the start positions.
    """
    if game.size is not None:
        rng = np.random.default_rng(seed)
        if game.size <= 16 * count:
            keys = np.arange(game.size, dtype=np.int64)
        else:
            keys = np.unique(rng.integers(0, game.size, size=16 * count, dtype=np.int64))
        keys = keys[np.asarray(game.legal(keys), dtype=bool)]
        if len(keys) > count:
            keys = np.sort(rng.choice(keys, size=count, replace=False))
        return [game.decode(int(key)) for key in keys]
    found: list[Position] = []
    seen: set[int] = set()
    frontier = list(game.start_positions())
    while frontier and len(found) < count:
        position = frontier.pop(0)
        key = game.canonical_key(position)
        if key in seen:
            continue
        seen.add(key)
        found.append(position)
        if game.terminal(position) is None:
            frontier.extend(child for _move, child in game.moves(position))
    return found


def check_game(game: Game, positions: list[Position]) -> list[str]:
    """Check a game on some of its positions (see :func:`sample_positions`).

    :returns: the problems found, at most :data:`MAX_PROBLEMS`; empty if none.
    """
    problems: list[str] = []
    for problem in _problems(game, positions):
        problems.append(problem)
        if len(problems) >= MAX_PROBLEMS:
            break
    return problems


class _Sample:
    """The sampled positions' canonical forms, their keys and their moves by the batch
    API, each found once (the batch checks share them) when first asked for."""

    def __init__(self, game: Game, positions: list[Position], splits: bool) -> None:
        self.game, self.positions, self.splits = game, positions, splits

    @functools.cached_property
    def canonical(self) -> list[Position]:
        """The canonical form of each sampled position."""
        return [self.game.canonical(p) for p in self.positions]

    @functools.cached_property
    def keys(self) -> np.ndarray:
        """int64[n] the keys of :attr:`canonical`."""
        return np.array([self.game.encode(p) for p in self.canonical], dtype=np.int64)

    @functools.cached_property
    def batch(self) -> BatchMoves:
        """:meth:`~tablebase.core.game.Game.expand` of :attr:`keys` (a failure is raised again
        at each ask, so that every check reports it)."""
        return self.game.expand(self.keys)


def _problems(game: Game, positions: list[Position]) -> Iterator[str]:
    if not positions:
        yield "no positions to check"
        return
    splits = kind_of(game).splits
    for position in positions:
        try:
            yield from _position_problems(game, position, splits)
        except Exception as error:  # a game's bug is a finding, not a crash of the check
            yield f"{position!r}: {type(error).__name__}: {error}"
    sample = _Sample(game, positions, splits)
    checks = [("batch API", _batch_problems)]
    if overrides(type(game), "format_keys"):
        checks.append(("format_keys", _format_problems))
    if provides_unmoves(game):
        checks.append(("un-moves", _unmove_problems))
    if game.size is not None and game.key_order_levels() is not None:
        checks.append(("key order", _key_order_problems))
    for name, check in checks:
        try:
            yield from check(game, sample)
        except Exception as error:
            yield f"{name}: {type(error).__name__}: {error}"


def _position_problems(game: Game, position: Position, splits: bool) -> Iterator[str]:
    """Keys, text, canonical form and symmetry of one position."""
    shown = game.format(position)
    key = game.encode(position)
    if not 0 <= key < 2**63:
        yield f"{shown}: key {key} is outside [0, 2**63)"
    if game.size is not None and not key < game.size:
        yield f"{shown}: key {key} is outside the index space of size {game.size}"
    if game.decode(key) != position:
        yield f"{shown}: decode(encode(p)) != p"
    if game.parse(shown) != position:
        yield f"{shown}: parse(format(p)) != p"
    canonical = game.canonical(position)
    if game.size is not None and canonical != position:
        yield (
            f"{shown}: legal() accepts key {key}, which is not canonical (its canonical form's is "
            f"{game.encode(canonical)}): over an index space, legal() must reject non-canonical keys, "
            "or symmetric positions are stored twice and canonical() folds nothing"
        )
    if game.canonical(canonical) != canonical:
        yield f"{shown}: canonical(canonical(p)) != canonical(p)"
    if game.terminal(position) != game.terminal(canonical):
        yield f"{shown}: terminal value differs from its canonical form's"
    elif game.terminal(position) is None and _child_keys(game, position, splits) != _child_keys(game, canonical, splits):
        yield f"{shown}: its moves and its canonical form's lead to different positions"


def _batch_problems(game: Game, sample: _Sample) -> Iterator[str]:
    """The batch API against the per-position API, on the canonical forms."""
    canonical, batch = sample.canonical, sample.batch
    terminal = np.asarray(batch.terminal)
    live = np.flatnonzero(terminal == NOT_TERMINAL)
    src, dst = (np.asarray(a, dtype=np.int64) for a in (batch.src, batch.dst))
    batch_children: dict[int, Counter[tuple[int, object]]] = {int(i): Counter() for i in live}
    for index, child in zip(src.tolist(), dst.tolist()):
        batch_children[index][(IN_TABLE, _sum_key(child) if sample.splits else child)] += 1
    dst = dst[dst >= 0]  # a game that splits pads its parts with -1
    if game.size is not None and len(dst) and not np.asarray(game.legal(dst), bool).all():
        yield "successors() returns keys that legal() rejects"
    dependencies = game.dependencies()
    if dependencies:
        src, table, dst = (np.asarray(a, dtype=np.int64) for a in batch.exits)
        for index, into, child in zip(src.tolist(), table.tolist(), dst.tolist()):
            batch_children[index][(into, child)] += 1
        for into in np.unique(table).tolist():
            dependency = dependencies[into]
            if dependency.size is not None and not np.asarray(dependency.legal(dst[table == into]), bool).all():
                yield f"exits() returns keys that {dependency.describe()} rejects"
    for index, position in enumerate(canonical):
        shown = game.format(position)
        expected = game.terminal(position)
        if (NOT_TERMINAL if expected is None else int(expected)) != int(terminal[index]):
            yield f"{shown}: terminal_batch gives {int(terminal[index])}, terminal gives {expected}"
        elif expected is None and batch_children[index] != _child_keys(game, position, sample.splits):
            yield f"{shown}: successors() and exits() differ from moves()"


def _format_problems(game: Game, sample: _Sample) -> Iterator[str]:
    """:meth:`~tablebase.core.game.Game.format_keys` against :meth:`~tablebase.core.game.Game.format`
    of :meth:`~tablebase.core.game.Game.decode`, on the canonical forms' keys."""
    texts = game.format_keys(sample.keys)
    if len(texts) != len(sample.keys):
        yield f"format_keys gives {len(texts)} texts for {len(sample.keys)} keys"
        return
    for key, text in zip(sample.keys.tolist(), texts):
        expected = game.format(game.decode(key))
        if text != expected:
            yield f"{expected}: format_keys gives {text!r}"


def _unmove_problems(game: Game, sample: _Sample) -> Iterator[str]:
    """:meth:`~tablebase.core.game.Game.predecessors` against :meth:`~tablebase.core.game.Game.successors`
    on canonical positions: every un-move from a non-terminal position of the tablebase
    is a move back (an un-move into an illegal or terminal key is allowed, and skipped),
    and every move within the tablebase is an un-move of its successor."""
    positions, keys = sample.canonical, sample.keys
    src, pred = (np.asarray(a, dtype=np.int64) for a in game.predecessors(keys))
    if game.size is not None:
        inside = (pred >= 0) & (pred < game.size)
        inside[inside] = np.asarray(game.legal(pred[inside]), dtype=bool)
        src, pred = src[inside], pred[inside]
    back = game.expand(pred)
    moves_back = set(zip(np.asarray(back.src).tolist(), np.asarray(back.dst).tolist()))
    live = (np.asarray(back.terminal) == NOT_TERMINAL).tolist()
    for j, (index, parent) in enumerate(zip(src.tolist(), pred.tolist())):
        if live[j] and (j, int(keys[index])) not in moves_back:
            yield f"{game.format(positions[index])}: un-move to {game.format(game.decode(parent))}, which has no move back"
    forth = sample.batch
    move_src, child = (np.asarray(a, dtype=np.int64) for a in (forth.src, forth.dst))
    un_src, un_pred = (np.asarray(a, dtype=np.int64) for a in game.predecessors(child))
    unmoves = set(zip(un_src.tolist(), un_pred.tolist()))
    for j, (index, into) in enumerate(zip(move_src.tolist(), child.tolist())):
        if (j, int(keys[index])) not in unmoves:
            yield f"{game.format(positions[index])}: its move to {game.format(game.decode(into))} is not an un-move of it"


RANDOM_SCORES_UP_TO = 1 << 24
"""The largest index space whose :meth:`~tablebase.core.game.Game.best_scores` the check tries
on random scores of every key (two bytes a key)."""


def _key_order_problems(game: Game, sample: _Sample) -> Iterator[str]:
    """:meth:`~tablebase.core.game.Game.key_order_levels`: levels that rise over the index
    space, every move below its key's level; and :meth:`~tablebase.core.game.Game.best_scores`
    against the batch API, on random scores of the successors."""
    bounds = np.asarray(game.key_order_levels(), dtype=np.int64)
    if not levels_cover(bounds, int(game.size or 0)):
        yield f"key_order_levels() does not rise from 0 to the index space's size {game.size}"
        return
    positions, keys, batch = sample.canonical, sample.keys, sample.batch
    src, dst = (np.asarray(a, dtype=np.int64) for a in (batch.src, batch.dst))
    level = bounds[np.searchsorted(bounds, keys, side="right") - 1]
    for index in np.unique(src[dst >= level[src]]).tolist():
        yield f"{game.format(positions[index])}: a move leads to a key not below its level ({int(level[index])})"
    if game.size > RANDOM_SCORES_UP_TO or game.best_scores(keys[:0], np.zeros(0, np.int16)) is None:
        return
    score = np.random.default_rng(0).integers(-9, 10, size=game.size).astype(np.int16)
    ended = np.asarray(batch.terminal) != NOT_TERMINAL
    expected = np.full(len(keys), np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(expected, src, np.asarray(game.move_rewards(keys[~ended]), dtype=np.int64) - score[dst])
    expected[ended] = np.asarray(game.terminal_scores(keys[ended]), dtype=np.int64)
    best, no_moves = (np.asarray(a) for a in game.best_scores(keys, score))
    for index in np.flatnonzero((best != expected) | (no_moves != ended)).tolist():
        yield f"{game.format(positions[index])}: best_scores() gives another score than successors() and move_rewards()"


IN_TABLE = -1
"""Table number of a successor in the game's own tablebase; others number dependencies()."""


def _sum_key(parts: list[int]) -> tuple[int, ...]:
    """The keys of a sum's parts, sorted, padding (-1) left out."""
    return tuple(sorted(part for part in parts if part >= 0))


def _child_keys(game: Game, position: Position, splits: bool) -> Counter[tuple[int, object]]:
    """``(table, canonical key)`` of each move's successor, as the batch API numbers them
    (for a game whose moves leave sums, ``splits``, the sorted keys of the successor's parts).

    :raises GameError: for a successor in a tablebase that is not a dependency (the
        check reports it as a problem).
    """
    found: Counter[tuple[int, object]] = Counter()
    for _move, child in game.moves(position):
        if splits:
            found[(IN_TABLE, _sum_key([game.canonical_key(part) for part in game.components(child)]))] += 1
            continue
        owner = game.table_of(child)
        into = IN_TABLE if owner is game else game.dependency_index(owner)
        found[(into, owner.canonical_key(child))] += 1
    return found
