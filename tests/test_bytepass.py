"""The one-byte DTZ pass (:mod:`tablebase.solve.bytepass`) against the pass with
counters, whole tables: every position's outcome and DTZ equal, with the window of codes
at its full size and at four levels (sliding every ply past the third, each slide a
snapshot the values are read back through); and a build by it equal to the Syzygy
generator's statistics, as the six-piece builds go (the pass is chosen by size, so the
test lowers the size).

A 6-piece ending against the generator's statistics is on demand, since KNNNNvK builds
in about ten minutes (1.2 GiB), KRRvKRB in about an hour (8 GiB) and KRBvKRN in about an
hour (16 GiB)::

    TABLEBASE_SIX_PIECE=1 pytest tests/test_bytepass.py -k six_piece        # KNNNNvK
    TABLEBASE_SIX_PIECE=KNNNNvK,KRRvKRB,KRBvKRN pytest tests/test_bytepass.py -k six_piece

``tests/data/syzygy6/M.txt`` is what ``rtbgen -s M`` printed (syzygy1/tb, built under
/tmp, 2026-11-29).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import tests.test_syzygy_stats as syzygy_stats
from tablebase.build.builder import build
from tablebase.core.game import Game
from tablebase.core.batches import BatchSurvey
from tablebase.core.values import NOT_TERMINAL, SUCCESSOR_LOST, SUCCESSOR_OTHER, SUCCESSOR_WON, Outcome
from tablebase.generators.chess.statistics import differing
from tablebase.read.stored import stored_tables
from tablebase.solve.budget import BYTE_PASS_BYTES, PROCESS_BYTES, estimate
from tablebase.solve.bytepass.checkpoint import Checkpoint
from tablebase.solve.bytepass.solver import solve_dtz_in_bytes
from tablebase.solve.kinds import kind_of
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tablebase.util.progress import silent
from tests.test_syzygy_stats import STATS, stored_counts, syzygy_counts

SIX_PIECE_STATS = Path(__file__).parent / "data" / "syzygy6"
_SIX_PIECE = os.environ.get("TABLEBASE_SIX_PIECE", "")
SIX_PIECE_ENDINGS = ["KNNNNvK"] if _SIX_PIECE == "1" else [name for name in _SIX_PIECE.split(",") if name]
"""The 6-piece endings to build and compare (``$TABLEBASE_SIX_PIECE``: ``1`` for
KNNNNvK, or their names), each with its statistics in :data:`SIX_PIECE_STATS`."""


@pytest.fixture(autouse=True)
def checkpoints(tmp_path, monkeypatch) -> Path:
    """Each test's checkpoints in a folder of its own."""
    folder = tmp_path / "checkpoints"
    monkeypatch.setenv("TABLEBASE_CHECKPOINTS", str(folder))
    return folder


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("bytepass") / "dtz.sqlite") as store:
        yield store


def _stored(store, game) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(keys, outcome, dtz)`` of every stored position of ``game``."""
    row = store.require(game.name, game.identity(), game.build_command(), game.version)
    parts = list(store.read_parts(row, extra=True))
    return tuple(np.concatenate([part[i] for part in parts]) for i in (0, 1, 3))  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("material", "levels", "sweep_ratio"),
    [("KQvKR", 123, 9), ("KBNvK", 4, 1e12), ("KRvKR", 4, 0), ("KBBvK", 123, 1e12), ("KRvKN", 123, 9), ("KQvKQ", 4, 1e12)],
)
def test_the_one_byte_pass_equals_the_pass_with_counters(store, monkeypatch, material, levels, sweep_ratio):
    """Whether step 3 checks every undecided position (a ratio of 1e12: at every ply
    with a new win), only the candidates of step 2 (0), or chooses (9), the values are
    the same."""
    monkeypatch.setattr("tablebase.solve.bytepass.solver.SWEEP_RATIO", sweep_ratio)
    game = load_game("chess", {"material": material, "metric": "dtz"})
    assert not kind_of(game).uses_byte_pass(game)  # built below by the pass with counters
    build(game, store)
    keys, outcome, dtz = _stored(store, game)
    solved = solve_dtz_in_bytes(game, 1 << 16, silent, stored_tables(store), threads=2, levels=levels)
    ours = [np.concatenate(column) for column in zip(*solved.batches(1 << 20))]
    assert np.array_equal(ours[0], keys)
    assert np.array_equal(ours[1], outcome)
    assert np.array_equal(ours[3], dtz)
    assert solved.positions == len(keys)
    assert solved.tally().positions == len(keys)
    assert (len(solved.snapshots) > 0) == (levels == 4)


class Killed(BaseException):
    """Stands for the signal that kills a build."""


@pytest.mark.parametrize("levels", [4, 123])
def test_a_pass_killed_goes_on_from_its_last_checkpoint(store, checkpoints, monkeypatch, levels):
    """Killed in its thirteenth ply (checkpoints after every ply; four levels slide the
    window past ply 3), the pass run again does not survey again, goes on from ply 13 and
    ends with the values of the pass with counters; writing them deletes the checkpoint.
    (Candidate losses are checked on odd plies, the kill's place.)"""
    monkeypatch.setattr("tablebase.solve.bytepass.checkpoint.CHECKPOINT_SECONDS", 0.0)
    game = load_game("chess", {"material": "KRvKN", "metric": "dtz"})
    build(game, store)
    keys, outcome, dtz = _stored(store, game)
    saved = []
    save = Checkpoint.save
    monkeypatch.setattr(Checkpoint, "save", lambda self, ply, *rest: saved.append(ply) or save(self, ply, *rest))

    def killed_in_ply_13(keys, codes, won):
        if saved[-1] == 13:
            raise Killed
        return type(game).move_verdicts(game, keys, codes, won)

    monkeypatch.setattr(game, "move_verdicts", killed_in_ply_13)
    with pytest.raises(Killed):
        solve_dtz_in_bytes(game, 1 << 16, silent, stored_tables(store), threads=2, levels=levels)
    state = json.loads(next(checkpoints.glob("*/state.json")).read_text())
    assert state["ply"] == 13 and (len(state["snapshots"]) > 0) == (levels == 4)
    monkeypatch.setattr(game, "survey_batch", None)  # surveyed again: an error
    monkeypatch.setattr(game, "move_verdicts", type(game).move_verdicts.__get__(game))
    solved = solve_dtz_in_bytes(game, 1 << 16, silent, stored_tables(store), threads=2, levels=levels)
    ours = [np.concatenate(column) for column in zip(*solved.batches(1 << 20))]
    assert np.array_equal(ours[0], keys) and np.array_equal(ours[1], outcome) and np.array_equal(ours[3], dtz)
    with open_store(checkpoints.parent / "written.sqlite") as other:
        row = other.begin_build(game.name, game.identity(), game.describe(), kind_of(game).stored, version=game.version)
        solved.write(other, row, kind_of(game).known, 1 << 20, lambda n: None)
    assert list(checkpoints.iterdir()) == []


class _LastToMoveLoses(Game):
    """A heap of ``size - 1`` counters at most; a move takes one or two, and the side
    left without a move wins (as antichess's side without a move): a terminal win, the
    empty heap, for the one-byte pass to start from at ply 0. No move zeroes."""

    name = "last_to_move_loses"

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def survey_batch(self, keys, split=None, distinct=True):
        empty = np.zeros(0, np.int64)
        terminal = np.where(keys == 0, Outcome.WIN, NOT_TERMINAL).astype(np.int8)
        return BatchSurvey(np.ones(len(keys), np.bool_), terminal, np.minimum(keys, 2), (empty, empty), (empty, empty, empty))

    def successors(self, keys):
        src = np.repeat(np.arange(len(keys)), np.minimum(keys, 2))
        taken = 1 + np.arange(len(src)) - np.searchsorted(src, src)  # one, then two
        return src, keys[src] - taken

    def predecessors(self, keys):
        src = np.repeat(np.arange(len(keys)), 2)
        pred = keys[src] + np.tile([1, 2], len(keys))
        return src[pred < self.size], pred[pred < self.size]


def _last_to_move_loses_dtz(size: int) -> np.ndarray:
    """int64[size]: each heap's signed DTZ (plies to the end: no move zeroes) by the
    rule itself, heap by heap from the empty one."""
    dtz = np.zeros(size, np.int64)
    for heap in range(1, size):
        after = dtz[max(0, heap - 2) : heap]  # 0: the empty heap, won for its side to move
        losses = after[after < 0]
        if len(losses):
            dtz[heap] = 1 - losses.max()
        else:
            dtz[heap] = -(1 + after.max())
    return dtz


@pytest.mark.parametrize("sweep_ratio", [0, 1e12])
def test_a_terminal_win_starts_the_pass_at_ply_0(monkeypatch, sweep_ratio):
    """A game whose side without a move wins: its DTZ by the pass equals the rule's,
    whether ply 0 follows the terminal win's predecessors or sweeps."""
    monkeypatch.setattr("tablebase.solve.bytepass.solver.SWEEP_RATIO", sweep_ratio)
    game = _LastToMoveLoses(40)
    solved = solve_dtz_in_bytes(game, 16, silent, None, threads=2)
    keys, outcome, _remoteness, dtz = (np.concatenate(column) for column in zip(*solved.batches(1 << 20)))
    expected = _last_to_move_loses_dtz(40)
    assert np.array_equal(keys, np.arange(40)) and np.array_equal(dtz, expected)
    assert np.array_equal(outcome, np.where(expected < 0, Outcome.LOSS, Outcome.WIN))


@pytest.mark.parametrize(("game_name", "material"), [("chess", "KQvKR"), ("antichess", "RNvB"), ("antichess", "RNvP")])
@pytest.mark.parametrize("seeking", [False, True])
def test_the_compiled_check_of_candidate_losses_equals_the_protocol_s_default(game_name, material, seeking):
    """The compiled kernels' verdicts, which stop at the first move that settles a
    position, equal the default's from every successor: the check of candidate losses
    (no lost code) and the sweep's check of losses and wins (one code lost). Antichess
    RNvP checks the side with a pawn from its move list and the other one move at a time."""
    game = load_game(game_name, {"material": material, "metric": "dtz"})
    keys = np.arange(0, game.size, 7, dtype=np.int64)
    keys = keys[game.legal(keys)]
    keys = keys[game.terminal_batch(keys) == NOT_TERMINAL]
    codes = np.random.default_rng(53).integers(0, 5, game.size).astype(np.uint8)
    classes = np.array([SUCCESSOR_OTHER, SUCCESSOR_WON, SUCCESSOR_WON, SUCCESSOR_WON] + [SUCCESSOR_OTHER] * 252, np.int8)
    if seeking:
        classes[4] = SUCCESSOR_LOST
    compiled = game.move_verdicts(keys, codes, classes)
    default = Game.move_verdicts(game, keys, codes, classes)
    assert np.array_equal(compiled, default)
    assert set(np.unique(compiled).tolist()) == ({0, 1, 2} if seeking else {0, 1})


@pytest.mark.skipif(not STATS.is_dir(), reason=f"no Syzygy statistics at {STATS}")
def test_a_build_by_the_one_byte_pass_equals_the_syzygy_generator_s_statistics(tmp_path, monkeypatch):
    monkeypatch.setattr("tablebase.solve.kinds.dtz.BYTE_PASS_KEYS", 1 << 20)
    game = load_game("chess", {"material": "KQvKR", "metric": "dtz"})
    assert kind_of(game).uses_byte_pass(game)
    with open_store(tmp_path / "bytes.sqlite") as store:
        build(game, store)
        ours = stored_counts(store, game)
    theirs = syzygy_counts("KQvKR")
    assert differing(ours, theirs) == {}


def test_six_pieces_default_to_dtz_and_take_the_one_byte_pass_and_its_memory():
    game = load_game("chess", {"material": "KRBvKRN"})
    assert game.metric == "dtz" and load_game("chess", {"material": "KRBvKR"}).metric == "both"
    collection = load_game("chess", {"material": "all3"})
    assert collection.table_of(collection.parse("7k/8/8/8/8/2NN4/2NN4/4K3 w - - 0 1")).metric == "dtz"
    named = load_game("chess", {"material": "all3", "metric": "both"})
    assert named.table_of(named.parse("7k/8/8/8/8/2NN4/2NN4/4K3 w - - 0 1")).metric == "both"
    assert game.size == 2 * 462 * 64**4
    assert kind_of(game).uses_byte_pass(game)
    memory = estimate(game).memory
    assert game.size + PROCESS_BYTES + BYTE_PASS_BYTES[1] < memory < 1.2 * game.size
    both = load_game("chess", {"material": "KRBvKR", "metric": "dtz"})
    assert not kind_of(both).uses_byte_pass(both)


@pytest.mark.skipif(not SIX_PIECE_ENDINGS, reason="a 6-piece build takes ten minutes or more: TABLEBASE_SIX_PIECE=1")
@pytest.mark.parametrize("material", SIX_PIECE_ENDINGS or ["KNNNNvK"])
def test_a_six_piece_ending_equals_the_syzygy_generator_s_statistics(material, tmp_path_factory, monkeypatch):
    monkeypatch.setattr(syzygy_stats, "STATS", SIX_PIECE_STATS)
    syzygy_stats._check(material, syzygy_stats.DATABASE or tmp_path_factory.getbasetemp() / "six.sqlite")
