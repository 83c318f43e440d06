"""The partitioned retrograde pass equals the single-process one, position by position:
on random graphs with exits (hypothesis) and on built-in games, for P = 1, 2, 4, 7."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase.core.values import NOT_TERMINAL
from tablebase.read.stored import stored_tables
from tablebase.solve import build_graph, solve
from tablebase.solve.exits import exit_values
from tablebase.solve.kinds import kind_of
from tablebase.solve.partitioned.in_process import solve_partitioned
from tablebase.solve.partitioned.owners import partition_bounds
from tablebase.solve.partitioned.rounds import Traffic, discover, solve_passes
from tablebase.solve.partitioned.surveyed import RangePartition, partitions_unsupported
from tablebase.solve.predecessors import predecessors_of
from tablebase.solve.registry import load_game
from tablebase.solve.retrograde.exit_codes import Exits
from tablebase.solve.solved import ABSENT
from tests.dask_cluster import dask_cluster
from tests.recorded import Recorded
from tests.test_solver import games_with_exits

PARTITIONS = (1, 2, 4, 7)


def arrays(n, edges, labels, exits):
    terminal = np.full(n, NOT_TERMINAL, dtype=np.int8)
    for position, outcome in labels.items():
        terminal[position] = outcome
    src = np.array([e[0] for e in edges], dtype=np.int32)
    dst = np.array([e[1] for e in edges], dtype=np.int32)
    listed = [(p, o, -1 if r is None else r) for p, values in exits.items() for o, r in values]
    exit_moves = Exits(
        np.array([e[0] for e in listed], dtype=np.int64),
        np.array([e[1] for e in listed], dtype=np.int8),
        np.array([e[2] for e in listed], dtype=np.int32),
    )
    return terminal, predecessors_of(n, src, dst), exit_moves


def assert_same(terminal, graph, exits, partitions):
    expected = solve(terminal, graph, exits=exits)
    found, traffic = solve_partitioned(terminal, graph, partitions, exits)
    np.testing.assert_array_equal(found.outcome, expected.outcome)
    np.testing.assert_array_equal(found.remoteness, expected.remoteness)
    return traffic


@settings(max_examples=150, deadline=None)
@given(games_with_exits(), st.sampled_from(PARTITIONS))
def test_random_graphs_with_exits(game, partitions):
    n, edges, labels, exits = game
    traffic = assert_same(*arrays(n, edges, labels, exits), partitions)
    assert partitions > 1 or traffic.total == 0


@pytest.mark.parametrize("partitions", PARTITIONS)
@pytest.mark.parametrize(
    ("name", "params"),
    [("tictactoe", {}), ("connect4", {"width": "4", "height": "4"}), ("subtraction", {"max": "60"}), ("nim", {})],
)
def test_built_in_games(name, params, partitions):
    graph = build_graph(game := load_game(name, params), kind_of(game).shape, workers=1)
    traffic = assert_same(graph.terminal, graph.moves, None, partitions)
    assert (traffic.total > 0) == (partitions > 1)
    assert traffic.levels <= len(traffic.rounds)


@pytest.mark.parametrize("partitions", (2, 4))
def test_frontiers_walked_back_in_small_rounds(monkeypatch, partitions):
    """Frontiers walked back a few positions a round (many rounds a level and a peel
    step): the same values. Tic-tac-toe: draws of every kind, cycles none; Connect Four
    4x4: a drawn start."""
    from tablebase.solve.partitioned import partition

    monkeypatch.setattr(partition, "FRONTIER_CHUNK", 7)
    for name, params in (("tictactoe", {}), ("connect4", {"width": "4", "height": "4"})):
        graph = build_graph(game := load_game(name, params), kind_of(game).shape, workers=1)
        traffic = assert_same(graph.terminal, graph.moves, None, partitions)
        assert len(traffic.rounds) > 3 * 9  # more rounds than two a level


@pytest.mark.parametrize("partitions", PARTITIONS)
def test_chess_with_exits_into_smaller_endings(tmp_path, partitions):
    from tablebase.build.builder import build
    from tablebase.store import open_store

    game = load_game("chess", {"material": "KRvK"})
    with open_store(tmp_path / "tb.sqlite") as store:
        for dependency in game.dependencies():
            build(dependency, store)
        graph = build_graph(game, kind_of(game).shape, workers=1)
        exits, _grundy = exit_values(game, graph.exits, stored_tables(store))
    assert_same(graph.terminal, graph.moves, exits, partitions)


def solve_ranges(tmp_path, game, partitions, align=1):
    """``game`` built locally, then solved by ``partitions`` :class:`RangePartition` in
    this process, their bounds multiples of ``align``: the partitions, the stored
    ``(keys, outcome, remoteness)`` and DTZ (or ``None``), the traffic and the stages."""
    from tablebase.build.builder import build
    from tablebase.store import open_store

    with open_store(tmp_path / "tb.sqlite") as store:
        build(game, store)
        row = store.find(game.name, game.identity(), game.version)
        stored = store.read_values(row)
        dtz = store.read_extra(row)[1] if kind_of(game).stored == "dtz" else None
        bounds = partition_bounds(int(game.size), partitions, align)
        parts = [RangePartition(game, bounds, p, stored_tables(store), batch_size=1 << 12) for p in range(partitions)]
    traffic, bars = Traffic(), Recorded()
    solve_passes(lambda method, arguments: [getattr(part, method)(*a) for part, a in zip(parts, arguments)], partitions, traffic, bars, game.size)
    return parts, stored, dtz, traffic, bars


@pytest.mark.parametrize("partitions", PARTITIONS)
def test_partitions_that_find_their_own_state_store_the_local_values(tmp_path, partitions):
    """Each partition surveys its own key range and un-moves its own positions (KRvK:
    exits into KvK, illegal keys, wins, draws and losses), and the pass gives the stored
    values of a local build."""
    game = load_game("chess", {"material": "KRvK", "metric": "dtm"})
    parts, (keys, outcome, remoteness), _dtz, traffic, bars = solve_ranges(tmp_path, game, partitions)
    assert bars.stages == [["solve", game.size, game.size]]  # the solve bar's total: every key once
    found = [np.concatenate(column) for column in zip(*(part.values() for part in parts))]
    assert np.array_equal(found[0][keys], outcome) and np.array_equal(found[1][keys], remoteness)
    assert np.count_nonzero(found[0] != ABSENT) == len(keys)
    assert (traffic.total > 0) == (partitions > 1)


@pytest.mark.parametrize("partitions", (1, 3, 4))
@pytest.mark.parametrize("metric", ("both", "dtz"))
@pytest.mark.parametrize("pass_a", ("answered", "run"))
def test_partitions_run_the_dtz_and_dtm_passes_to_the_local_values(tmp_path, monkeypatch, partitions, metric, pass_a):
    """Chess's default ``metric=both`` (DTZ's passes A and B, then DTM's) and ``dtz``
    alone over KRvK's key ranges, in whole blocks of the blocks layout
    (81,920 keys: with 4 partitions, two of them empty): the outcome, DTM and DTZ of
    every position as a local build stores them. Pass A runs once no partition's exits
    let pass B answer it (here by decree: no ending of four pieces has a cursed win to
    make its exits differ)."""
    from tablebase.solve.partitioned import rounds
    from tablebase.store.blocks import BLOCK_KEYS

    if pass_a == "run":
        monkeypatch.setattr(rounds, "answered_passes", lambda passes, _same: [False] * len(passes))
    game = load_game("chess", {"material": "KRvK", "metric": metric})
    parts, (keys, outcome, remoteness), dtz, traffic, bars = solve_ranges(tmp_path, game, partitions, BLOCK_KEYS)
    found = [np.concatenate(column) for column in zip(*(part.values() for part in parts))]
    assert np.array_equal(found[0][keys], outcome) and np.array_equal(found[1][keys], remoteness)
    assert np.array_equal(found[2][keys], dtz) and np.count_nonzero(found[0] != ABSENT) == len(keys)
    runs = (3 if metric == "both" else 2) - (pass_a == "answered")
    assert bars.stages == [["solve", game.size, game.size]] * runs
    assert sum((part.tally() for part in parts[1:]), parts[0].tally()).positions == len(keys)
    assert all(part.scratch is None for part in parts)  # the survey set aside is dropped


@pytest.mark.parametrize("partitions", (1, 2, 3))
@pytest.mark.parametrize(("name", "params"), [("tictactoe", {}), ("connect4", {"width": "4", "height": "4"}), ("dobutsu", {"start": "l../.e./.../.L. C"})])
def test_partitions_that_search_their_own_keys_store_the_local_values(tmp_path, name, params, partitions, monkeypatch):
    """Forward search split by the keys' hash (successors sent to their owners), then the
    pass: every key found once, and the stored values of a local build, position by
    position (tic-tac-toe: draws with remoteness; Connect Four 4x4: a drawn start; a
    Dobutsu shogi ending: cycles)."""
    from tablebase.build.builder import build
    from tablebase.solve.partitioned import discovered, partition
    from tablebase.store import open_store

    monkeypatch.setattr(partition, "FRONTIER_CHUNK", 500)  # several rounds a level
    monkeypatch.setattr(discovered, "FRONTIER_CHUNK", 500)  # and of the search
    game = load_game(name, params)
    with open_store(tmp_path / "tb.sqlite") as store:
        build(game, store)
        keys, outcome, remoteness = store.read_values(store.find(game.name, game.identity(), game.version))
    parts = [discovered.DiscoveredPartition(game, partitions, p, None, batch_size=1 << 10) for p in range(partitions)]

    def exchange(method, arguments):
        return [getattr(part, method)(*a) for part, a in zip(parts, arguments)]

    searched, traffic, bars = Traffic(), Traffic(), Recorded()
    assert discover(exchange, partitions, searched) == len(keys)
    solve_passes(exchange, partitions, traffic, bars, len(keys))
    assert bars.stages == [["solve", len(keys), len(keys)]]
    found = [np.concatenate(column) for column in zip(*(part.stored(0, part.size()) for part in parts))]
    order = np.argsort(found[0])
    assert np.array_equal(found[0][order], keys)
    assert np.array_equal(found[1][order], outcome) and np.array_equal(found[2][order].astype(np.int64), remoteness)
    assert (searched.total > 0) == (partitions > 1)
    sizes = [part.size() for part in parts]
    assert max(sizes) < 1.5 * len(keys) / partitions  # the hash shares the keys out evenly


def test_partitions_refuse_what_they_cannot_solve():
    for metric in ("dtm", "dtz", "both"):
        assert partitions_unsupported(load_game("chess", {"material": "KQvKR", "metric": metric})) is None
    assert "metric=dtm" in partitions_unsupported(load_game("chess", {"material": "KRPvKR"}))
    assert partitions_unsupported(load_game("chess", {"material": "KRPvKR", "metric": "dtm"})) is None
    assert partitions_unsupported(load_game("connect4", {"width": "4", "height": "4"})) is None
    nim = load_game("nim", {})
    assert kind_of(nim).unmove_plan(nim, None) is None  # its Grundy values need the move graph
    assert "no un-moves" in partitions_unsupported(load_game("morris", {}))


def test_bounds_cover_every_position_once():
    for n in (0, 1, 10, 1001, 90_000):
        for partitions in PARTITIONS:
            for align in (1, 64, 65_536):
                bounds = partition_bounds(n, partitions, align)
                assert bounds[0] == 0 and bounds[-1] == n and np.all(np.diff(bounds) >= 0) and len(bounds) == partitions + 1
                assert np.all(bounds[:-1] % align == 0)  # no block of ``align`` keys split
    with pytest.raises(ValueError):
        partition_bounds(10, 0)


# ---- on a real Dask cluster: a scheduler and two worker processes on loopback


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with dask_cluster(tmp_path_factory.mktemp("dask")) as (client, _workers):
        yield client


@pytest.mark.parametrize("partitions", (2, 4))
def test_partitions_on_a_dask_cluster(cluster, partitions):
    from tablebase.build.cluster import solve_on_cluster

    graph = build_graph(game := load_game("connect4", {"width": "4", "height": "4"}), kind_of(game).shape, workers=1)
    expected = solve(graph.terminal, graph.moves)
    found, traffic = solve_on_cluster(cluster, graph.terminal, graph.moves, partitions)
    np.testing.assert_array_equal(found.outcome, expected.outcome)
    np.testing.assert_array_equal(found.remoteness, expected.remoteness)
    _local, local_traffic = solve_partitioned(graph.terminal, graph.moves, partitions)
    assert traffic.rounds == local_traffic.rounds
    assert len(cluster.nthreads()) == 2
