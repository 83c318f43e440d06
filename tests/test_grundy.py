"""The batched Grundy pass against a recursive mex on random games with sums."""

from __future__ import annotations

import functools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase.solve.acyclic import NO_GRUNDY, grundy_values


def brute_force(n: int, moves: list[tuple[int, tuple[int, ...]]]) -> list[int]:
    """Grundy values by memoized recursion; -1 for a position that reaches a cycle."""
    by_source: dict[int, list[tuple[int, ...]]] = {p: [] for p in range(n)}
    for source, parts in moves:
        by_source[source].append(parts)

    @functools.lru_cache(maxsize=None)
    def value(position: int, path: frozenset[int] = frozenset()) -> int:
        if position in path:
            return -1
        options = set()
        for parts in by_source[position]:
            part_values = [value(p, path | {position}) for p in parts]
            if -1 in part_values:
                return -1
            options.add(functools.reduce(lambda a, b: a ^ b, part_values, 0))
        return next(g for g in range(len(options) + 1) if g not in options)

    return [value(p) for p in range(n)]


@st.composite
def games_with_sums(draw):
    """Random games whose moves lead to sums of up to 2 positions, cycles allowed."""
    n = draw(st.integers(1, 14))
    node = st.integers(0, n - 1)
    parts = st.lists(node, max_size=2).map(tuple)
    moves = draw(st.lists(st.tuples(node, parts), max_size=3 * n))
    return n, moves


def engine(n, moves):
    src = np.array([s for s, _p in moves], dtype=np.int64)
    parts = np.array([list(p) + [-1] * (2 - len(p)) for _s, p in moves], dtype=np.int64).reshape(len(moves), 2)
    return grundy_values(n, src, parts).tolist()


@settings(max_examples=400, deadline=None)
@given(games_with_sums())
def test_grundy_pass_matches_recursive_mex(game):
    assert engine(*game) == brute_force(*game)


def test_nim_heaps_have_their_own_size_as_value():
    n = 9  # heap sizes 0..8; a move takes any number of counters
    moves = [(h, (h - t,)) for h in range(n) for t in range(1, h + 1)]
    assert engine(n, moves) == list(range(n))


def test_cycles_have_no_value():
    assert engine(3, [(0, (1,)), (1, (0,)), (2, ())]) == [NO_GRUNDY, NO_GRUNDY, 1]
