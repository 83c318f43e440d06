"""Büchi games: player A wins a play that visits an accepting position infinitely often.

The classic algorithm by iterated attractors (Grädel, Thomas and Wilke, eds., *Automata,
Logics, and Infinite Games*, LNCS 2500, 2002, ch. 2; the "force sets" ("Wymuś") of the
POI 2001 problem "Gra w zielone"): in the arena still undecided, compute the positions
from which A can force a visit to an accepting position. From the rest, B keeps the play
away from them forever, so B wins there and from everything B can force into it; remove
that and repeat. When A can force a visit from everywhere, A wins everywhere left. Each
round costs O(moves) and removes positions, and the rounds are at most one more than the
accepting positions, so the whole is O(accepting positions x moves).

An attractor is computed level by level with move counters over the predecessor lists,
as in the retrograde pass: a position of the attracting player joins once one of its
moves leads into the set, one of the other player once all of its moves do.
"""

from __future__ import annotations

import numpy as np

from tablebase.solve.predecessors import Predecessors, tally


def attractor(graph: Predecessors, arena: np.ndarray, owner_is_a: np.ndarray, target: np.ndarray, for_a: bool) -> np.ndarray:
    """bool[n]: the positions of ``arena`` from which one player forces the play into
    ``target`` (included) while staying in ``arena``.

    :param graph: the moves as predecessor lists, ``out_degree`` counting every move.
    :param arena: bool[n] the positions still in play; moves leaving it are not counted
        (the arena must be a trap for neither player to leave: every position keeps a move).
    :param owner_is_a: bool[n] whether A moves at each position.
    :param target: bool[n] the positions to reach.
    :param for_a: whether A (or B) is the attracting player.
    """
    n = len(arena)
    inside = np.flatnonzero(arena)
    moves_in_arena = np.bincount(graph.of(inside)[0], minlength=n)  # moves into the arena, by source
    remaining = np.where(arena, moves_in_arena, 0)
    attracting = owner_is_a if for_a else ~owner_is_a
    found = target & arena
    frontier = np.flatnonzero(found)
    while frontier.size:
        parents = graph.of(frontier)[0]
        parents = parents[arena[parents] & ~found[parents]]
        candidates, hits = tally(parents)
        remaining[candidates] -= hits
        joins = candidates[attracting[candidates] | (remaining[candidates] == 0)]
        found[joins] = True
        frontier = joins
    return found


def buchi_winners(graph: Predecessors, owner_is_a: np.ndarray, accepting: np.ndarray) -> np.ndarray:
    """bool[n]: the positions from which A wins the Büchi game (see the module docstring).

    :param graph: every move, as predecessor lists; every position has a move.
    :param owner_is_a: bool[n] whether A moves at each position.
    :param accepting: bool[n] the accepting ("green") positions.
    """
    arena = np.ones(len(accepting), dtype=bool)
    while True:
        reach = attractor(graph, arena, owner_is_a, accepting & arena, for_a=True)
        escape = arena & ~reach
        if not escape.any():
            return arena
        arena &= ~attractor(graph, arena, owner_is_a, escape, for_a=False)
