"""A plain, obviously-correct solver to test the engine against.

It shares no code with ``tablebase.solve``: positions live in dicts, the game is explored
through the per-position API only, and the pass is the textbook queue form of retrograde
analysis (e-maxx, "Games on arbitrary graphs"), one position at a time, with a priority
queue so that moves into other tablebases join at their own remoteness.
"""

from __future__ import annotations

import heapq
import itertools
from collections import defaultdict

import numpy as np

from tablebase.core.game import Game
from tablebase.core.values import Outcome

Value = tuple[Outcome, "int | None"]


def explore(game: Game) -> tuple[dict[int, list[int]], dict[int, Outcome]]:
    """Every position of a game by canonical key: its successors' keys, and terminal values.

    Index-space games list every legal key; others are explored from their start
    positions with ``moves``. Moves out of terminal positions are not followed.
    """
    if game.size is not None:
        keys = np.arange(game.size, dtype=np.int64)
        pending = [int(k) for k in keys[game.legal(keys)]]
    else:
        pending = sorted({game.encode(game.canonical(p)) for p in game.start_positions()})
    successors: dict[int, list[int]] = {}
    terminal: dict[int, Outcome] = {}
    while pending:
        key = pending.pop()
        if key in successors:
            continue
        position = game.decode(key)
        outcome = game.terminal(position)
        if outcome is not None:
            terminal[key] = Outcome(outcome)
            successors[key] = []
            continue
        children = [game.encode(game.canonical(child)) for _move, child in game.moves(position)]
        successors[key] = children
        pending.extend(c for c in children if c not in successors)
    return successors, terminal


def solve_graph(
    successors: dict[int, list[int]],
    terminal: dict[int, Outcome],
    exits: dict[int, list[Value]] | None = None,
) -> dict[int, Value]:
    """Outcome and remoteness (plies) of every position, by the rules of docs/design.md.

    ``exits`` gives, per position, the values of successors outside the graph (moves into
    another tablebase). Positions are resolved in order of remoteness with a heap.

    A draw's remoteness is 1 + the smallest among its moves to draws, when every one of
    those has a remoteness (drawn terminals have 0); otherwise it is ``None``.
    """
    exits = exits or {}
    predecessors = defaultdict(list)
    for position, children in successors.items():
        if position not in terminal:
            for child in children:
                predecessors[child].append(position)

    value: dict[int, Value] = {}
    moves_left = {p: len(children) + len(exits.get(p, [])) for p, children in successors.items()}
    heap: list[tuple[int, int, Outcome, list[int]]] = []  # remoteness, tie-break, outcome, parents
    tie_break = itertools.count()

    def resolve(position: int, outcome: Outcome, remoteness: int) -> None:
        value[position] = (outcome, remoteness)
        heapq.heappush(heap, (remoteness, next(tie_break), outcome, predecessors[position]))

    for position in successors:
        if position in terminal:
            resolve(position, terminal[position], 0)
        elif moves_left[position] == 0:
            resolve(position, Outcome.LOSS, 0)
    for position, outside in exits.items():
        if position not in terminal:
            for outcome, remoteness in outside:
                heapq.heappush(heap, (remoteness or 0, next(tie_break), outcome, [position]))
    while heap:
        remoteness, _order, outcome, parents = heapq.heappop(heap)
        for parent in parents:
            if parent in value:
                continue
            if outcome == Outcome.LOSS:
                resolve(parent, Outcome.WIN, remoteness + 1)
            elif outcome == Outcome.WIN:
                moves_left[parent] -= 1
                if moves_left[parent] == 0:
                    resolve(parent, Outcome.LOSS, remoteness + 1)

    draws = {p for p in successors if p not in value or value[p][0] == Outcome.DRAW}
    distance = {p: 0 for p in draws if p in terminal}
    changed = True
    while changed:
        changed = False
        for position in draws - distance.keys():
            inside = [distance.get(c) for c in successors[position] if c in draws]
            outside = [r for o, r in exits.get(position, []) if o == Outcome.DRAW]
            if all(d is not None for d in inside + outside):
                distance[position] = 1 + min(inside + outside)
                changed = True
    for position in draws:
        value[position] = (Outcome.DRAW, distance.get(position))
    return value


def solve_game(game: Game) -> dict[int, Value]:
    """:func:`solve_graph` of :func:`explore`."""
    return solve_graph(*explore(game))
