"""Sorted key sets grown in place, and forward search over them, against plain Python sets
and a breadth-first search written apart from the module."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase.solve import keyset
from tablebase.solve.keyset import KeySet, search_forward

key_lists = st.lists(st.integers(0, 2**62), max_size=300)


def ascending(keys: set[int]) -> np.ndarray:
    return np.array(sorted(keys), dtype=np.int64)


@given(key_lists, key_lists)
def test_add_unseen_and_drop_are_set_union_and_difference(first, second):
    grown = KeySet(ascending(set(first)))
    grown.add_unseen(ascending(set(second)))
    assert grown.keys.tolist() == sorted(set(first) | set(second))
    grown.drop(KeySet(ascending(set(second))))
    assert grown.keys.tolist() == sorted(set(first) - set(second))


@given(key_lists, key_lists)
def test_add_merges_disjoint_keys_in_order(first, second):
    grown = KeySet(ascending(set(first)))
    grown.add(ascending(set(second) - set(first)))
    assert grown.keys.tolist() == sorted(set(first) | set(second))


def breadth_first(starts: list[int], edges: dict[int, list[int]]) -> set[int]:
    reached, frontier = set(starts), list(starts)
    while frontier:
        frontier = [after for key in frontier for after in edges.get(key, []) if after not in reached]
        reached.update(frontier)
    return reached


@settings(max_examples=60)
@given(
    st.dictionaries(st.integers(0, 400), st.lists(st.integers(0, 400), max_size=6), max_size=200),
    st.lists(st.integers(0, 400), min_size=1, max_size=4),
    st.integers(1, 7),
    st.integers(1, 40),
)
def test_search_forward_reaches_what_breadth_first_search_does(edges, starts, batch, group):
    """Cycles and moves back into earlier levels included; tiny batches and groups, so that
    a level is gathered over several merges."""
    def successors(frontier: np.ndarray):
        for start in range(0, len(frontier), batch):
            found = {after for key in frontier[start : start + batch].tolist() for after in edges.get(key, [])}
            yield ascending(found)

    expanded = []
    original, keyset.GROUP_KEYS = keyset.GROUP_KEYS, group
    try:
        reached = search_forward(ascending(set(starts)), successors, expanded.append)
    finally:
        keyset.GROUP_KEYS = original
    assert reached.tolist() == sorted(breadth_first(starts, edges))
    assert sum(expanded) == len(reached)


@settings(deadline=None)
@given(st.sampled_from([3000, 2**62]).flatmap(
    lambda top: st.tuples(st.lists(st.integers(0, top), max_size=600), st.lists(st.integers(-5, top + 5), max_size=100))
))
def test_a_key_finder_finds_what_locate_finds(keys_and_wanted):
    """Keys dense and sparse, wanted in any order, below every key, past the last one,
    and an empty key set."""
    keys, wanted = keys_and_wanted
    ordered = ascending(set(keys))
    wanted = np.array(wanted, dtype=np.int64)
    at, hit = keyset.KeyFinder(ordered).find(wanted)
    expected_at, expected_hit = keyset.locate(ordered, wanted)
    assert hit.tolist() == expected_hit.tolist()
    assert at.tolist() == expected_at.tolist()
    assert hit.tolist() == [key in set(keys) for key in wanted.tolist()]
