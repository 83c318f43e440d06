"""The un-move pass against the move-graph pass: equal values, position by position.

The move-graph engine is itself tested against the brute-force reference solver
(tests/test_solver.py); here every game that has both paths must give the same outcome
and remoteness on every position through both.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase.build.builder import build, solve_in_memory
from tablebase.core.batches import LevelSplit
from tablebase.core.game import provides_unmoves
from tablebase.core.values import NOT_TERMINAL, Outcome
from tablebase.generators.graph import Graph
from tablebase.generators.tictactoe import TicTacToe
from tablebase.solve import build_graph, predecessors_of, solve
from tablebase.solve.kinds import kind_of
from tablebase.solve.kinds.wdl import GRAPH_UP_TO
from tablebase.solve.registry import load_game
from tablebase.solve.retrograde.exit_codes import Exits
from tablebase.solve.retrograde.solver import solve_positions
from tablebase.solve.retrograde.state import NO_REMOTENESS, PositionState
from tablebase.solve.unmoves.index import LevelIndex, PositionIndex
from tablebase.solve.unmoves.pairs import distinct_pairs
from tablebase.solve.unmoves.plan import Pass, UnmovePlan
from tablebase.solve.unmoves.solver import solve_by_unmoves
from tablebase.solve.unmoves.source import UnmoveSource
from tablebase.solve.unmoves.survey import survey
from tablebase.solve.workers import Workers
from tablebase.store import open_store
from tablebase.tools.check import check_game, sample_positions
from tablebase.util.progress import StageTimer, silent
from tests.numpy_chess import NumpyChess
from tests.test_solver import games_with_exits


def graph_values(game):
    """Keys, outcome and remoteness through the move graph (today's engine)."""
    graph = build_graph(game, kind_of(game).shape, workers=1)
    solution = solve(graph.terminal, graph.moves)
    return graph.keys, solution.outcome, solution.remoteness


def assert_same_values(game, batch_size=97):
    """The un-move pass (small batches, so levels split into parts) against the graph."""
    assert provides_unmoves(game)
    solved, = solve_by_unmoves(game, UnmovePlan(None), batch_size, silent, workers=1)
    keys, outcome, remoteness = graph_values(game)
    np.testing.assert_array_equal(solved.keys, keys)
    np.testing.assert_array_equal(solved.solution.outcome, outcome)
    np.testing.assert_array_equal(solved.solution.remoteness, remoteness)


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("tictactoe", {}),
        ("tictactoe", {"m": "3", "n": "4", "k": "3"}),
        ("tictactoe", {"m": "4", "n": "3", "k": "2", "symmetry": "off"}),
        ("connect4", {"width": "4", "height": "4"}),
        ("connect4", {"width": "5", "height": "3", "k": "3", "symmetry": "off"}),
        ("connect4", {"width": "3", "height": "5", "k": "3"}),
    ],
    ids=str,
)
def test_unmove_pass_equals_the_move_graph_on_board_games(name, params):
    assert_same_values(load_game(name, params))


@st.composite
def graph_files(draw):
    """Random graph files: cycles, self-loops, labelled terminals and isolated vertices."""
    n = draw(st.integers(1, 20))
    node = st.integers(0, n - 1)
    edges = draw(st.lists(st.tuples(node, node), max_size=3 * n))
    sources = {a for a, _b in edges}
    labels = draw(st.dictionaries(node, st.sampled_from(["win", "loss", "draw"]), max_size=n // 2))
    lines = [f"v{p}" for p in range(n)] + [f"v{a} v{b}" for a, b in edges]
    lines += [f"v{p} = {label}" for p, label in labels.items() if p not in sources]
    return "\n".join(lines)


def graph_game(text):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "graph.txt"
        path.write_text(text)
        return Graph(file=str(path))


@settings(max_examples=150, deadline=None)
@given(graph_files())
def test_unmove_pass_equals_the_move_graph_on_random_graphs(text):
    assert_same_values(graph_game(text), batch_size=3)


def unmove_source(n, edges, pool_of):
    """A graph game built from ``edges`` and its :class:`UnmoveSource` over the workers
    ``pool_of(game)`` gives."""
    lines = [f"v{p}" for p in range(n)] + [f"v{a} v{b}" for a, b in edges]
    game = graph_game("\n".join(lines))
    moving = np.zeros(n, dtype=np.int64)
    part = survey(game, np.arange(n, dtype=np.int64))
    moving[part.keys] = part.moves
    return UnmoveSource(PositionIndex(n), moving.astype(np.uint8), pool_of(game), batch_size=2)


def terminal_of(n, labels):
    terminal = np.full(n, NOT_TERMINAL, dtype=np.int8)
    for position, outcome in labels.items():
        terminal[position] = outcome
    return terminal


def unmove_solution(n, edges, labels, exits):
    """:func:`solve` over un-moves of a graph game built from ``edges``, with exits."""
    with contextlib.ExitStack() as stack:
        source = unmove_source(n, edges, lambda game: stack.enter_context(Workers(game, 1)))
        return solve(terminal_of(n, labels), source, exits=exits_of(exits))


def exits_of(exits):
    listed = [(p, o, -1 if r is None else r) for p, values in exits.items() for o, r in values]
    return Exits(
        np.array([e[0] for e in listed], dtype=np.int64),
        np.array([e[1] for e in listed], dtype=np.int8),
        np.array([e[2] for e in listed], dtype=np.int32),
    )


@settings(max_examples=300, deadline=None)
@given(games_with_exits())
def test_unmove_pass_takes_exits_at_their_own_remoteness(graph):
    n, edges, labels, exits = graph
    edges = [(a, b) for a, b in edges if a not in labels]  # the graph game's terminals have no moves
    expected = solve(
        terminal_of(n, labels),
        predecessors_of(n, np.array([a for a, _b in edges], dtype=np.int32), np.array([b for _a, b in edges], dtype=np.int32)),
        exits=exits_of(exits),
    )
    found = unmove_solution(n, edges, labels, exits)
    np.testing.assert_array_equal(found.outcome, expected.outcome)
    np.testing.assert_array_equal(found.remoteness, expected.remoteness)


@settings(max_examples=200, deadline=None)
@given(games_with_exits(), st.integers(0, 6))
def test_a_pass_stopped_at_a_level_is_the_whole_pass_truncated(graph, until):
    """What :meth:`Pass.truncates` claims, and :func:`solve_by_unmoves` relies on to skip
    DTZ's pass A: stopped at ``until``, a pass without the draw peel gives the whole
    pass's values, but a position won or lost beyond ``until`` is a draw without
    remoteness."""
    n, edges, labels, exits = graph
    edges = [(a, b) for a, b in edges if a not in labels]
    assert Pass(draws=False, until=until).truncates(Pass(draws=False))
    solutions = []
    with contextlib.ExitStack() as stack:
        source = unmove_source(n, edges, lambda game: stack.enter_context(Workers(game, 1)))
        for stop in (until, None):
            state = PositionState(n)
            state.outcome[:] = terminal_of(n, labels)
            state.count_moves(slice(None), source.out_degree)
            state.fold(exits_of(exits))
            solved = solve_positions(state, source, draws=False, until=stop)
            solutions.append((solved.outcome.copy(), solved.remoteness.copy()))
    (outcome, remoteness), (expected_outcome, expected_remoteness) = solutions
    beyond = (expected_outcome != Outcome.DRAW) & (expected_remoteness > until)
    expected_outcome[beyond], expected_remoteness[beyond] = Outcome.DRAW, NO_REMOTENESS
    np.testing.assert_array_equal(outcome, expected_outcome)
    np.testing.assert_array_equal(remoteness, expected_remoteness)


@settings(max_examples=300, deadline=None)
@given(games_with_exits(), st.randoms(use_true_random=False))
def test_exit_codes_fold_the_same_in_any_order_and_any_number_of_calls(graph, random):
    """A survey folds each batch's exits as they come (tests/test_solver.py checks the
    codes of all the exits at once against the reference solver)."""
    n, _edges, _labels, exits = graph
    every = exits_of(exits)
    order = list(range(len(every.src)))
    random.shuffle(order)
    piecemeal, at_once = PositionState(n), PositionState(n)
    for chunk in np.array_split(np.array(order, dtype=np.int64), random.randint(1, 4)):
        piecemeal.fold(Exits(every.src[chunk], every.outcome[chunk], every.remoteness[chunk]))
    at_once.fold(every)
    np.testing.assert_array_equal(piecemeal.remoteness, at_once.remoteness)


class ForgetsAnUnmove(TicTacToe):
    """Never un-makes a stone on the centre cell."""

    def predecessors(self, keys):
        src, pred = super().predecessors(keys)
        centre = np.int64(1) << 4
        parents = keys[src]
        lifted = (parents ^ pred) & ((centre) | (centre << 9))
        keep = lifted == 0
        return src[keep], pred[keep]


class InventsAnUnmove(TicTacToe):
    """Lists each position as a predecessor of itself."""

    def predecessors(self, keys):
        src, pred = super().predecessors(keys)
        return np.concatenate([src, np.arange(len(keys))]), np.concatenate([pred, keys])


@pytest.mark.parametrize(
    ("game", "finding"),
    [(ForgetsAnUnmove(symmetry=False), "is not an un-move of it"), (InventsAnUnmove(), "which has no move back")],
    ids=["forgets", "invents"],
)
def test_self_check_catches_wrong_unmoves(game, finding):
    problems = check_game(game, sample_positions(game, 200))
    assert any(finding in problem for problem in problems), problems


def test_a_game_without_unmoves_keeps_the_move_graph():
    game = load_game("nim", {"heaps": "2", "max": "3"})
    assert not provides_unmoves(game)
    with pytest.raises(NotImplementedError):
        game.predecessors(np.zeros(1, dtype=np.int64))
    assert Outcome.WIN in solve_in_memory(game, workers=1).solution.outcome.tolist()


def test_distinct_pairs_with_keys_too_large_to_pack():
    rng = np.random.default_rng(3)
    for high in (50, 2**62):
        src = rng.integers(0, 40, size=3000, dtype=np.int64)
        keys = rng.integers(0, 8, size=3000, dtype=np.int64) * (high // 8)
        found = list(zip(*distinct_pairs(src, keys)))
        assert found == sorted(set(zip(src.tolist(), keys.tolist())))


@pytest.mark.parametrize("runs", [40, 3])  # short runs hashed, long ones sorted
def test_distinct_pairs_of_ascending_sources_keep_the_first_of_each_key(runs):
    rng = np.random.default_rng(4)
    src = np.sort(rng.integers(0, runs, size=3000, dtype=np.int64))
    keys = rng.integers(0, 30, size=3000, dtype=np.int64)
    kept_src, kept = distinct_pairs(src, keys)
    assert sorted(zip(kept_src.tolist(), kept.tolist())) == sorted(set(zip(src.tolist(), keys.tolist())))
    assert np.all(np.diff(kept_src) >= 0)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.lists(st.integers(0, 3), min_size=1, max_size=12), st.integers(0, 3), st.data())
def test_a_level_index_finds_the_keys_of_its_level_and_only_those(block, levels, level, data):
    levels = np.array(levels, dtype=np.int64)
    size = block * len(levels)
    index = LevelIndex(size, LevelSplit(block, levels, level))
    keys = np.array(data.draw(st.lists(st.integers(-3, size + 3), max_size=60)), dtype=np.int64)
    src = np.arange(len(keys), dtype=np.int64) * 7
    ours = [key for key in keys.tolist() if 0 <= key < size and levels[key // block] == level]
    kept_src, nodes = index.found(src, keys)
    assert index.keys(nodes).tolist() == ours  # numbered, in order, the others left out
    assert kept_src.tolist() == [7 * i for i, key in enumerate(keys.tolist()) if key in ours]
    assert nodes.tolist() == index.find(keys)[0][index.find(keys)[1]].tolist()
    assert sorted(index.keys(np.arange(index.n)).tolist()) == [k for k in range(size) if levels[k // block] == level]


def _uses_unmoves(game) -> bool:
    return kind_of(game).uses_unmoves(game)


def test_forward_search_games_and_large_index_spaces_are_solved_without_a_graph(monkeypatch, tmp_path):
    chess = NumpyChess(material="KPvKP", metric="dtm")
    assert _uses_unmoves(load_game("connect4", {"width": "4", "height": "4"}))
    assert not _uses_unmoves(chess) and chess.size <= GRAPH_UP_TO
    compiled = load_game("chess", {"material": "KRvK", "metric": "dtm"})
    assert compiled.threaded and _uses_unmoves(compiled) and compiled.size <= GRAPH_UP_TO
    assert _uses_unmoves(load_game("chess", {"material": "KRPvKR", "metric": "dtm"}))
    assert _uses_unmoves(load_game("chess", {"material": "KRBvKR"}))  # DTZ too: no pawn
    assert _uses_unmoves(load_game("chess", {"material": "KRPvKR"}))  # DTZ by pawn levels, by un-moves too
    monkeypatch.setattr("tablebase.solve.kinds.wdl.GRAPH_UP_TO", 0)
    chess = NumpyChess(material="KPvK", metric="dtm")  # numpy un-moves: a large index space decides
    timer = StageTimer()
    with open_store(tmp_path / "chess.sqlite") as store:
        build(chess, store, stages=timer, workers=1)
    assert "solve" in timer.seconds and "predecessors" not in timer.seconds
