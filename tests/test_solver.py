"""The retrograde engine against the reference solver on random graphs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase.core.values import NOT_TERMINAL, Outcome
from tablebase.solve import NO_REMOTENESS, predecessors, solve
from tablebase.solve.predecessors import PredecessorBuilder, predecessors_of
from tablebase.solve.retrograde import sweeps
from tablebase.solve.retrograde.exit_codes import Exits
from tests.reference import solve_graph


@st.composite
def games_on_graphs(draw):
    """Random directed graphs with cycles, self-loops, repeated moves and labelled terminals."""
    n = draw(st.integers(1, 24))
    node = st.integers(0, n - 1)
    edges = draw(st.lists(st.tuples(node, node), max_size=4 * n))
    labels = draw(st.dictionaries(node, st.sampled_from(list(Outcome)), max_size=n // 2))
    return n, edges, labels


@st.composite
def games_with_exits(draw):
    """Random graphs whose positions may also move into other tablebases of known value."""
    n, edges, labels = draw(games_on_graphs())
    decisive = st.tuples(st.sampled_from([Outcome.WIN, Outcome.LOSS]), st.integers(0, 8))
    drawn = st.tuples(st.just(Outcome.DRAW), st.none() | st.integers(0, 8))
    exits = draw(st.dictionaries(st.integers(0, n - 1), st.lists(decisive | drawn, min_size=1, max_size=3), max_size=n))
    return n, edges, labels, exits


def engine_values(n, edges, labels, exits=None):
    terminal = np.full(n, NOT_TERMINAL, dtype=np.int8)
    for position, outcome in labels.items():
        terminal[position] = outcome
    src = np.array([e[0] for e in edges], dtype=np.int32)
    dst = np.array([e[1] for e in edges], dtype=np.int32)
    exit_list = [(p, o, -1 if r is None else r) for p, values in (exits or {}).items() for o, r in values]
    solution = solve(
        terminal,
        predecessors_of(n, src, dst),
        exits=Exits(
            np.array([e[0] for e in exit_list], dtype=np.int64),
            np.array([e[1] for e in exit_list], dtype=np.int8),
            np.array([e[2] for e in exit_list], dtype=np.int32),
        ),
    )
    return {
        p: (Outcome(int(solution.outcome[p])), None if solution.remoteness[p] == NO_REMOTENESS else int(solution.remoteness[p]))
        for p in range(n)
    }


def reference_values(n, edges, labels, exits=None):
    successors = {p: [] for p in range(n)}
    for a, b in edges:
        successors[a].append(b)
    return solve_graph(successors, labels, exits)


@settings(max_examples=400, deadline=None)
@given(games_on_graphs())
def test_engine_matches_reference_on_random_graphs(graph):
    assert engine_values(*graph) == reference_values(*graph)


@settings(max_examples=400, deadline=None)
@given(games_with_exits())
def test_moves_into_other_tablebases_join_at_their_own_remoteness(graph):
    assert engine_values(*graph) == reference_values(*graph)


@settings(max_examples=300, deadline=None)
@given(games_with_exits(), st.integers(2, 6), st.integers(1, 4))
def test_sweeps_cut_into_ranges_give_the_same_values(graph, parts, block):
    # Sweeps in threads over ranges of whole exit blocks (here of 1 to 4 positions, up to
    # 6 threads), against the reference solver.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sweeps, "EXIT_BLOCK", block)
        patch.setattr(sweeps, "SWEEP_PART", 1)
        patch.setattr(sweeps, "usable_cores", lambda: parts)
        assert engine_values(*graph) == reference_values(*graph)


def test_sweeps_cut_positions_into_whole_exit_blocks(monkeypatch):
    monkeypatch.setattr(sweeps, "EXIT_BLOCK", 4)
    monkeypatch.setattr(sweeps, "SWEEP_PART", 1)
    with sweeps.Sweeps(18, parts=3) as cut:
        assert cut.bounds == [(0, 8), (8, 16), (16, 18)]
    with sweeps.Sweeps(18, parts=1) as cut:
        assert cut.bounds == [(0, 18)]


def test_capture_into_a_distant_loss_wins_one_ply_later():
    # docs/design.md's example: a capture into a lost child at 12 makes a win at 13, unless a
    # shorter one exists (here 1 -> dead end 2 is one).
    values = engine_values(3, [(1, 2)], {}, {0: [(Outcome.LOSS, 12)], 1: [(Outcome.LOSS, 12)]})
    assert values[0] == (Outcome.WIN, 13)
    assert values[1] == (Outcome.WIN, 1)


def test_remoteness_beyond_int16_is_kept():
    """A path of 40,000 positions to a dead end (then to a drawn terminal), and a position
    whose one move leaves into a loss at 30,000 plies: remoteness past the pass's int16
    (and the exit codes' two bytes) comes out exact, for wins and losses and for draws."""
    n = 40_000
    graph = predecessors_of(n + 1, np.arange(n - 1, dtype=np.int32), np.arange(1, n, dtype=np.int32))
    terminal = np.full(n + 1, NOT_TERMINAL, dtype=np.int8)
    exits = Exits(np.array([n]), np.array([Outcome.LOSS], dtype=np.int8), np.array([30_000], dtype=np.int32))
    solution = solve(terminal, graph, exits=exits)
    distance = np.arange(n - 1, -1, -1)
    assert solution.remoteness.tolist() == [*distance.tolist(), 30_001]
    assert solution.outcome.tolist() == [*np.where(distance % 2, Outcome.WIN, Outcome.LOSS).tolist(), Outcome.WIN]
    terminal[n - 1] = Outcome.DRAW  # now a path of draws, peeled from its end
    solution = solve(terminal, graph, exits=exits)
    assert solution.remoteness.tolist() == [*distance.tolist(), 30_001]
    assert solution.outcome.tolist() == [*[Outcome.DRAW] * n, Outcome.WIN]


def test_cycle_is_a_draw_without_remoteness():
    # 0 <-> 1 cycle, 1 may also step to 2, a dead end (loss for the side to move there).
    values = engine_values(3, [(0, 1), (1, 0), (1, 2)], {})
    assert values == {0: (Outcome.LOSS, 2), 1: (Outcome.WIN, 1), 2: (Outcome.LOSS, 0)}
    values = engine_values(2, [(0, 1), (1, 0)], {})
    assert values == {0: (Outcome.DRAW, None), 1: (Outcome.DRAW, None)}


def test_loss_takes_the_longest_line_and_win_the_shortest():
    # 5 and 2 are dead ends (loss 0); 4 -> 5 and 1 -> 2 are wins at 1; 3 -> 4 is a loss at 2.
    # 0 wins by 0 -> 3 (remoteness 3); 6 has only moves to wins and loses at 1 + max = 2.
    edges = [(0, 1), (1, 2), (0, 3), (3, 4), (4, 5), (6, 1), (6, 4)]
    values = engine_values(7, edges, {})
    assert values[3] == (Outcome.LOSS, 2)
    assert values[0] == (Outcome.WIN, 3)
    assert values[6] == (Outcome.LOSS, 2)


def test_predecessor_lists_group_moves_by_successor():
    src = np.array([0, 2, 1, 2, 0], dtype=np.int32)
    dst = np.array([1, 1, 0, 0, 2], dtype=np.int32)
    graph = predecessors_of(3, src, dst)
    found, counts = graph.of(np.array([1, 0, 2]))
    assert counts.tolist() == [2, 2, 1]
    assert sorted(found[:2].tolist()) == [0, 2] and sorted(found[2:4].tolist()) == [1, 2] and found[4] == 0
    assert graph.out_degree.tolist() == [2, 1, 2]


@settings(max_examples=200, deadline=None)
@given(games_on_graphs(), st.integers(1, 5), st.integers(1, 7))
def test_predecessor_lists_are_the_same_however_the_moves_are_split(graph, part_size, sort_moves):
    """Parts of any size, in any order, sorted in ranges of any size, give every move once."""
    n, edges, _labels = graph
    by_source = {p: [b for a, b in edges if a == p] for p in range(n)}
    sources = list(range(n))[::-1]
    builder = PredecessorBuilder(n)
    for start in range(0, n, part_size):
        chunk = sources[start : start + part_size]
        counts = np.array([len(by_source[p]) for p in chunk], dtype=np.int64)
        dst = np.array([b for p in chunk for b in by_source[p]], dtype=np.int64)
        builder.add(np.array(chunk), counts, dst)
    saved, predecessors.SORT_MOVES = predecessors.SORT_MOVES, sort_moves
    try:
        built = builder.finish()
    finally:
        predecessors.SORT_MOVES = saved
    for v in range(n):
        listed, _count = built.of(np.array([v]))
        assert sorted(listed.tolist()) == sorted(a for a, b in edges if b == v)
    assert built.out_degree.tolist() == [len(by_source[p]) for p in range(n)]
