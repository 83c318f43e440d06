"""A plain, obviously-correct solver to test the engine against.

It shares no code with ``tablebase.solve``: positions live in dicts, the game is explored
through the per-position API only, and the pass is the textbook queue form of retrograde
analysis (e-maxx, "Games on arbitrary graphs"), one position at a time.
"""

from __future__ import annotations

from collections import defaultdict, deque

import numpy as np

from tablebase.game import Game, Outcome

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


def solve_graph(successors: dict[int, list[int]], terminal: dict[int, Outcome]) -> dict[int, Value]:
    """Outcome and remoteness (plies) of every position, by the rules of DESIGN.md.

    A draw's remoteness is 1 + the smallest among its moves to draws, when every one of
    those has a remoteness (drawn terminals have 0); otherwise it is ``None``.
    """
    predecessors = defaultdict(list)
    for position, children in successors.items():
        if position not in terminal:
            for child in children:
                predecessors[child].append(position)

    value: dict[int, Value] = {}
    moves_left = {p: len(children) for p, children in successors.items()}
    queue: deque[int] = deque()
    for position, children in successors.items():
        if position in terminal:
            value[position] = (terminal[position], 0)
            queue.append(position)
        elif not children:
            value[position] = (Outcome.LOSS, 0)
            queue.append(position)
    while queue:
        child = queue.popleft()
        outcome, remoteness = value[child]
        for parent in predecessors[child]:
            if parent in value:
                continue
            if outcome == Outcome.LOSS:
                value[parent] = (Outcome.WIN, remoteness + 1)
                queue.append(parent)
            elif outcome == Outcome.WIN:
                moves_left[parent] -= 1
                if moves_left[parent] == 0:
                    value[parent] = (Outcome.LOSS, remoteness + 1)
                    queue.append(parent)

    draws = {p for p in successors if p not in value or value[p][0] == Outcome.DRAW}
    distance = {p: 0 for p in draws if p in terminal}
    changed = True
    while changed:
        changed = False
        for position in draws - distance.keys():
            draw_children = [c for c in successors[position] if c in draws]
            if all(c in distance for c in draw_children):
                distance[position] = 1 + min(distance[c] for c in draw_children)
                changed = True
    for position in draws:
        value[position] = (Outcome.DRAW, distance.get(position))
    return value


def solve_game(game: Game) -> dict[int, Value]:
    """:func:`solve_graph` of :func:`explore`."""
    return solve_graph(*explore(game))
