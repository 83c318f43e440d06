"""Chess un-moves and five-piece materials: every un-move is a move back, every move an
un-move, and the un-move pass gives the move graph's values on whole tablebases."""

from __future__ import annotations

import os

import chess
import chess.syzygy
import numpy as np
import pytest

from tablebase.build.builder import build, solve_in_memory
from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.values import RULE_PLIES
from tablebase.generators.chess.layout import Layout
from tablebase.generators.chess.material import endings
from tablebase.read.stored import stored_tables
from tablebase.solve import build_graph, solve
from tablebase.solve.budget import BYTES_PER_INDEX_KEY, BYTES_PER_POSITION, PROCESS_BYTES, check_size, estimate
from tablebase.solve.exits import exit_values
from tablebase.solve.kinds import kind_of
from tablebase.solve.registry import load_game
from tablebase.solve.unmoves import solver as unmoves_solver
from tablebase.solve.unmoves.plan import Pass
from tablebase.store import open_store
from tablebase.tools.check import check_game, sample_positions
from tablebase.util.progress import StageTimer
from tests.numpy_chess import NumpyChess
from tests.test_chess_oracle import DATABASE, ORACLE

KQRVK_SAMPLE = 100_000


@pytest.mark.parametrize("material", ["KQvK", "KPvK", "KNNvK", "KRvKR", "KPvKP", "KQRvK", "KRPvKR", "KRvKNN", "KRRRvK"])
def test_chess_unmoves_are_moves_back(material):
    game = load_game("chess", {"material": material})
    assert check_game(game, sample_positions(game, 60)) == []


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("chess") / "chess.sqlite") as opened:
        yield opened


@pytest.mark.parametrize("material", ["KQvK", "KRvK", "KPvK", "KBvK"])
def test_unmove_pass_equals_the_move_graph_on_chess(store, material, monkeypatch):
    game = load_game("chess", {"material": material, "metric": "dtm"})
    for dependency in game.dependencies():
        build(dependency, store)
    monkeypatch.setattr("tablebase.solve.kinds.wdl.GRAPH_UP_TO", 0)  # these index spaces are small
    assert kind_of(game).uses_unmoves(game)
    solved = solve_in_memory(game, batch_size=5000, store=store, workers=1)
    graph = build_graph(game, kind_of(game).shape, workers=1)
    expected = solve(graph.terminal, graph.moves, exits=exit_values(game, graph.exits, stored_tables(store))[0])
    np.testing.assert_array_equal(solved.keys, graph.keys)
    np.testing.assert_array_equal(solved.solution.outcome, expected.outcome)
    np.testing.assert_array_equal(solved.solution.remoteness, expected.remoteness)


def test_a_build_over_the_index_space_stores_the_move_graph_s_values_and_counts(store):
    """A build solved by un-moves hands its values over the index space to the store a
    range of keys at a time: what is stored, and the catalog's counts, are those of the
    move graph's positions."""
    game = load_game("chess", {"material": "KRvK", "metric": "dtm"})
    result = build(game, store, force=True, batch_size=5000)
    graph = build_graph(game, kind_of(game).shape, workers=1)
    expected = solve(graph.terminal, graph.moves, exits=exit_values(game, graph.exits, stored_tables(store))[0])
    keys, outcome, remoteness = store.read_values(result.row)
    np.testing.assert_array_equal(keys, graph.keys)
    np.testing.assert_array_equal(outcome, expected.outcome)
    np.testing.assert_array_equal(remoteness, expected.remoteness)
    row = result.row
    counts = [int(np.count_nonzero(expected.outcome == value)) for value in (1, 0, -1)]
    assert (row.positions, row.wins, row.draws, row.losses) == (len(graph.keys), *counts)
    assert row.max_remoteness == int(expected.remoteness.max()) == 32  # KRvK: mated in 16 moves at the longest


SLOW = os.environ.get("TABLEBASE_SLOW") == "1"
"""Whether to run the comparisons that take minutes (4-piece endings with pawns)."""


@pytest.mark.parametrize(
    "material",
    ["KQvK", "KRvK", "KPvK"]
    + [pytest.param(m, marks=pytest.mark.skipif(not SLOW, reason="minutes each: TABLEBASE_SLOW=1")) for m in ("KRvKP", "KPvKP")],
)
def test_dtz_by_unmoves_equals_dtz_over_the_move_graph(store, material):
    """DTZ and DTM by un-moves (one survey for all three passes without pawns; with
    pawns, DTM's pass, then passes A and B one progress level at a time, the en passant
    bit of KPvKP included) equal their values over the move graph
    (tablebase/solve/dtz.py's dtz_by_progress), position by position. The 4-piece
    endings with pawns take minutes (``TABLEBASE_SLOW=1``); the oracle tests check
    KRvKP's DTZ against Syzygy in the default run."""
    game = load_game("chess", {"material": material})
    for dependency in game.dependencies():
        build(dependency, store)
    twin = load_game("chess", {"material": material})
    twin.threaded = False  # the move graph, of the compiled move generator (the numpy one is its reference)
    assert kind_of(game).uses_unmoves(game) and not kind_of(twin).uses_unmoves(twin)
    expected = solve_in_memory(twin, store=store, workers=1)
    timer = StageTimer()
    solved = solve_in_memory(game, batch_size=5000, stages=timer, store=store, workers=1)
    assert "predecessors" not in timer.seconds
    np.testing.assert_array_equal(solved.keys, expected.keys)
    np.testing.assert_array_equal(solved.solution.outcome, expected.solution.outcome)
    np.testing.assert_array_equal(solved.solution.remoteness, expected.solution.remoteness)
    dtz = np.concatenate([extra for _keys, _outcome, _remoteness, extra in solved.batches(1 << 16)])
    np.testing.assert_array_equal(dtz, expected.extra)


@pytest.mark.parametrize(
    ("name", "material"),
    [
        ("chess", "KQvK"),
        ("chess", "KPvK"),
        pytest.param("atomic", "KRvKP", marks=pytest.mark.skipif(not SLOW, reason="80 s: TABLEBASE_SLOW=1")),
    ],
)
def test_dtz_pass_a_is_not_run_as_pass_b_stopped_at_100_plies_gives_it(store, name, material, monkeypatch):
    """DTZ's pass A is pass B stopped at 100 plies
    (:meth:`~tablebase.solve.unmoves.plan.Pass.truncates`), so it is not run; the values
    are those of running it (KQvK: one survey, passes B and DTM's; KPvK: pass B at each
    of its pawn-advancement levels; atomic KRvKP: levels whose pawn moves lead into
    cursed wins and blessed losses, which pass A counts draws and pass B 101 plies)."""
    game = load_game(name, {"material": material})
    for dependency in game.dependencies():
        build(dependency, store)
    runs = []
    real = unmoves_solver.solve_positions
    monkeypatch.setattr(unmoves_solver, "solve_positions", lambda *args: runs.append(args[-1]) or real(*args))
    skipping = solve_in_memory(game, batch_size=5000, store=store, workers=1)
    skipped = list(runs)
    runs.clear()
    monkeypatch.setattr(Pass, "truncates", lambda _self, _later: False)
    running = solve_in_memory(game, batch_size=5000, store=store, workers=1)
    assert RULE_PLIES in runs and RULE_PLIES not in skipped and len(runs) > len(skipped)
    for one, other in zip(skipping.batches(1 << 16), running.batches(1 << 16)):
        for mine, theirs in zip(one, other):
            np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize(("white", "black"), [("KQR", "K"), ("KR", "KNN"), ("KRRR", "K"), ("KRP", "KR")])
def test_five_piece_keys_round_trip_with_identical_pieces_ordered(white, black):
    layout = Layout(white, black)
    rng = np.random.default_rng(5)
    keys = rng.integers(0, layout.size, size=20000, dtype=np.int64)
    stm, ep, squares = layout.decode(keys)
    again = layout.keys_of(stm, ep, squares)
    ordered = np.ones(len(keys), dtype=bool)
    for first, end in layout.twins:
        ordered &= np.all(np.diff(squares[:, first:end], axis=1) <= 0, axis=1)
    assert np.array_equal(again[ordered], keys[ordered])
    assert not np.array_equal(again[~ordered], keys[~ordered]) or not (~ordered).any()


def test_materials_and_fens_of_up_to_six_pieces_are_accepted():
    assert load_game("chess", {"material": "krpvkr"}).material == "KRPvKR"
    game = load_game("chess", {"material": "KQRvK"})
    position = game.parse("8/8/8/8/8/5k2/8/KQR5 w - - 0 1")
    assert game.format(game.decode(game.canonical_key(position))).split()[1] == "w"
    with pytest.raises(PositionError, match="at most 6"):
        game.parse("8/8/8/8/8/5k2/8/KQRRRR2 w - - 0 1")
    assert load_game("chess", {"material": "KQRBvKR"}).size == 2 * 462 * 64**4
    with pytest.raises(ParameterError, match="at most 6 pieces"):
        load_game("chess", {"material": "KQRBvKRN"})
    collection = load_game("chess", {"material": "all5"})
    names = [member.material for member in collection.members()]
    assert names == endings(5) and "KRBvKR" in names and len([n for n in names if len(n) == 6]) == 110


def test_five_piece_legal_keys_match_python_chess():
    game = load_game("chess", {"material": "KRPvKR"})
    rng = np.random.default_rng(7)
    keys = rng.integers(0, game.size, size=3000, dtype=np.int64)
    legal = game.legal(keys)
    for key, ok in zip(keys.tolist(), legal.tolist()):
        if ok:
            board = chess.Board(game.format(game.decode(key)))
            assert board.status() & ~(chess.STATUS_TOO_MANY_CHECKERS | chess.STATUS_IMPOSSIBLE_CHECK) == 0, board.fen()
            assert game.canonical_key(game.decode(key)) == key


FIVE_PIECE = os.environ.get("TABLEBASE_FIVE_PIECE") == "1"
FIVE_SAMPLE = os.environ.get("TABLEBASE_FIVE_SAMPLE", "100000")


def wdl_differences(material: str, sample: int | None, store_path) -> tuple[int, list]:
    """Build ``material`` with metric=dtm (or reuse it from the store) and compare the
    outcome of ``sample`` random stored positions (every one for None) with Syzygy WDL:
    ``(positions compared, the first differences)``."""
    game = load_game("chess", {"material": material, "metric": "dtm"})  # the WDL check needs no DTZ
    with open_store(store_path) as store:
        build(game, store)
        keys, outcome, _remoteness = store.read_values(store.find(game.name, game.identity(), game.version))
    rng = np.random.default_rng(100)
    chosen = np.arange(len(keys)) if sample is None else rng.choice(len(keys), size=min(sample, len(keys)), replace=False)
    wrong = []
    with chess.syzygy.open_tablebase(str(ORACLE / "syzygy5")) as syzygy:
        syzygy.add_directory(str(ORACLE / "syzygy"))
        for key, ours in zip(keys[chosen].tolist(), outcome[chosen].tolist()):
            board = chess.Board(game.format(game.decode(key)))
            wdl = syzygy.probe_wdl(board)
            if ours != (wdl > 0) - (wdl < 0) and len(wrong) < 5:
                wrong.append((board.fen(), ours, wdl))
    return len(chosen), wrong


@pytest.mark.skipif(not (ORACLE / "syzygy5").is_dir(), reason=f"no Syzygy 5-piece oracle at {ORACLE}")
def test_kqrvk_matches_syzygy_wdl_on_100000_positions(tmp_path_factory):
    compared, wrong = wdl_differences("KQRvK", KQRVK_SAMPLE, DATABASE or tmp_path_factory.getbasetemp() / "chess4.sqlite")
    assert compared == KQRVK_SAMPLE
    assert wrong == []


@pytest.mark.skipif(not FIVE_PIECE, reason="5-piece builds take minutes and GiB: TABLEBASE_FIVE_PIECE=1")
@pytest.mark.skipif(not (ORACLE / "syzygy5").is_dir(), reason=f"no Syzygy 5-piece oracle at {ORACLE}")
@pytest.mark.parametrize("material", ["KRBvKR", "KRPvKR"])
def test_five_piece_dtm_build_matches_syzygy_wdl(tmp_path_factory, material):
    sample = None if FIVE_SAMPLE == "all" else int(FIVE_SAMPLE)
    compared, wrong = wdl_differences(material, sample, DATABASE or tmp_path_factory.getbasetemp() / "chess5.sqlite")
    assert compared >= min(sample or 1, 1000)
    assert wrong == []


def test_five_piece_endings_solved_by_unmoves_are_not_refused_as_too_big():
    """Every metric of a 5-piece ending is estimated at a few bytes a key (the move graph
    would need about 40 GB); a numpy-only chess game reads the move graph."""
    for material in ("KRBvKR", "KRPvKR"):
        for metric in ("both", "dtm", "dtz"):
            five = load_game("chess", {"material": material, "metric": metric})
            dtz = metric != "dtm" and "P" not in material  # with pawns the DTM pass reads no DTZ
            read = sum(dependency.size for dependency in five.dependencies()) * (2 if dtz else 1)
            assert estimate(five).memory - read - PROCESS_BYTES <= 6 * five.size, (material, metric)
    check_size(load_game("chess", {"material": "KRBvKR"}), available=4 * 2**30)
    four = NumpyChess(material="KRvKP")
    assert estimate(four).memory == four.size * BYTES_PER_POSITION + four.size * BYTES_PER_INDEX_KEY
