"""DTZ under the 50-move rule on small move graphs, against the rule's definition: a win
must reach a zeroing move into a lost child (or mate) within 100 plies to be a win (2),
else it is a cursed win (1); a loss likewise is a loss (-2) or a blessed loss (-1).
Chess against Syzygy's own files is in tests/test_chess_oracle.py."""

from __future__ import annotations

import json

import numpy as np
from typer.testing import CliRunner

from tablebase.core.values import NOT_TERMINAL, Outcome
from tablebase.faces.cli import app as cli
from tablebase.solve import predecessors_of
from tablebase.solve.dtz import (
    UNKNOWN,
    Zeroing,
    categories,
    dtz_in_place,
    dtz_values,
    rule_levels,
    scatter_dtz_and_category,
    zeroing_exits,
)
from tablebase.solve.retrograde.exit_codes import codes_agree, fold_codes
from tablebase.solve.retrograde.solver import solve
from tablebase.solve.retrograde.state import Solution
from tablebase.solve.solved import ABSENT


def chain(length: int, end: int | None, zeroing_category: int | None = None):
    """Positions 0..length-1, each with one quiet move to the next. The last one is
    checkmated (``end`` LOSS), stalemated (DRAW), or (``end`` None) has one zeroing
    move into a child of ``zeroing_category``."""
    terminal = np.full(length, NOT_TERMINAL, dtype=np.int8)
    zeroing = Zeroing(np.zeros(0, np.int64), np.zeros(0, np.int8))
    if end is None:
        zeroing = Zeroing(np.array([length - 1]), np.array([zeroing_category], dtype=np.int8))
    else:
        terminal[-1] = end
    graph = predecessors_of(length, np.arange(length - 1), np.arange(1, length))
    return dtz_values(terminal, graph, zeroing)


def test_a_mate_within_100_plies_is_a_win_and_beyond_it_is_cursed():
    dtz, outcome = chain(151, Outcome.LOSS)
    distance = 150 - np.arange(151)  # plies to the mate
    assert dtz.tolist() == np.where(distance % 2 == 1, distance, -distance).tolist()
    assert outcome.tolist() == np.where(distance % 2 == 1, Outcome.WIN, Outcome.LOSS).tolist()
    named = categories(outcome, dtz)
    assert named[150 - 100] == -2 and named[150 - 99] == 2  # 100 plies still in time
    assert named[150 - 101] == 1 and named[150 - 102] == -1  # 101 plies: the rule draws first
    assert named[150] == -2 and dtz[150] == 0  # checkmated: a loss at DTZ 0


def test_a_zeroing_move_into_a_blessed_loss_is_a_cursed_win_counted_past_100():
    dtz, outcome = chain(4, None, zeroing_category=-1)
    assert dtz.tolist() == [-104, 103, -102, 101]
    assert categories(outcome, dtz).tolist() == [-1, 1, -1, 1]


def test_a_zeroing_move_into_a_loss_resets_the_count():
    dtz, _outcome = chain(100, None, zeroing_category=-2)
    assert dtz[-1] == 1 and dtz[-2] == -2 and dtz[0] == -100  # 100 plies: still a loss


def test_zeroing_into_draws_and_stalemate_are_draws():
    for end, category in ((Outcome.DRAW, None), (None, 0), (None, 1)):
        dtz, outcome = chain(5, end, category)
        if category == 1:  # into a child that wins: every position of the chain is decided
            assert categories(outcome, dtz).tolist() == [-1, 1, -1, 1, -1]
        else:
            assert dtz.tolist() == [0] * 5 and outcome.tolist() == [Outcome.DRAW] * 5


def test_a_strict_win_beats_a_faster_cursed_one():
    # 0 -> 1 -> ... -> 5 mated (a win in 5 for 0), and 0 -> 6 quiet, 6 zeroing into a blessed loss
    terminal = np.full(7, NOT_TERMINAL, dtype=np.int8)
    terminal[5] = Outcome.LOSS
    src, dst = [0, 1, 2, 3, 4, 0], [1, 2, 3, 4, 5, 6]
    graph = predecessors_of(7, np.array(src), np.array(dst))
    dtz, outcome = dtz_values(terminal, graph, Zeroing(np.array([6]), np.array([-1], dtype=np.int8)))
    assert dtz[0] == 5 and categories(outcome, dtz)[0] == 2
    assert dtz[6] == 101


def test_a_blessed_loss_by_a_zeroing_move_counts_101_over_quiet_moves_that_lose_sooner():
    # 0 has a quiet move into 1, won in 3 plies (1 -> 2 -> 3 -> 4 mated), and a zeroing
    # move into a cursed win for the opponent: lost past the rule, at 101 plies as the
    # Syzygy generator counts it (atomic KRvKP's blessed losses), not 100 + 4.
    terminal = np.full(5, NOT_TERMINAL, dtype=np.int8)
    terminal[4] = Outcome.LOSS
    graph = predecessors_of(5, np.array([0, 1, 2, 3]), np.array([1, 2, 3, 4]))
    dtz, outcome = dtz_values(terminal, graph, Zeroing(np.array([0]), np.array([1], dtype=np.int8)))
    assert dtz.tolist() == [-101, 3, -2, 1, 0]
    assert categories(outcome, dtz).tolist() == [-1, 2, -2, 2, -2]


def _random_dtz_graph(seed: int) -> tuple[np.ndarray, object, Zeroing]:
    """A graph of 600 positions: a chain of quiet moves through them all (levels past 100)
    with random quiet moves besides (cycles), a few checkmates, and zeroing moves into
    children of every category, cursed wins and blessed losses included."""
    rng = np.random.default_rng(seed)
    n = 600
    terminal = np.full(n, NOT_TERMINAL, dtype=np.int8)
    terminal[rng.choice(n, 4, replace=False)] = Outcome.LOSS
    src = np.concatenate([np.arange(n - 1), rng.integers(0, n, n // 3)])
    dst = np.concatenate([np.arange(1, n), rng.integers(0, n, n // 3)])
    zeroing = Zeroing(rng.choice(n, n // 10, replace=False), rng.integers(-2, 3, n // 10).astype(np.int8))
    return terminal, predecessors_of(n, src, dst), zeroing


def test_pass_a_is_pass_b_stopped_at_100_plies_whatever_the_exits():
    """Why a solve by un-moves never runs pass A: on random graphs with zeroing moves into
    cursed wins and blessed losses, pass A's wins and losses within 100 plies are exactly
    pass B's, level for level, and their exit codes agree up to 100 plies
    (:func:`~tablebase.solve.retrograde.exit_codes.codes_agree`), not up to 101."""
    decided_past_100 = 0
    for seed in range(12):
        terminal, graph, zeroing = _random_dtz_graph(seed)
        rule_exits, free_exits = zeroing_exits(zeroing)
        rule = solve(terminal, graph, exits=rule_exits)
        free = solve(terminal, graph, exits=free_exits)
        within_rule = (rule.outcome != Outcome.DRAW) & (rule.remoteness <= 100)
        within_free = (free.outcome != Outcome.DRAW) & (free.remoteness <= 100)
        assert np.array_equal(within_rule, within_free)
        assert np.array_equal(rule.outcome[within_rule], free.outcome[within_rule])
        assert np.array_equal(rule.remoteness[within_rule], free.remoteness[within_rule])
        decided_past_100 += int(((free.outcome != Outcome.DRAW) & ~within_free).sum())
        rule_codes = fold_codes(np.zeros(len(terminal), np.uint8), rule_exits)
        free_codes = fold_codes(np.zeros(len(terminal), np.uint8), free_exits)
        assert codes_agree(rule_codes, free_codes, 100)
        assert not codes_agree(rule_codes, free_codes, 101)
        assert not codes_agree(rule_codes, free_codes)
    assert decided_past_100 > 0  # cursed wins and blessed losses: the passes differ there


def _cli(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_the_metric_parameter_picks_what_a_chess_tablebase_stores(tmp_path):
    db = str(tmp_path / "chess.sqlite")
    fen = "8/8/8/4k3/8/8/2K5/1Q6 w - - 0 1"  # KQvK: no zeroing move before mate, so DTZ = DTM
    answers = {}
    for metric in ("dtm", "dtz", "both"):
        built = _cli("build", "chess", "-p", "material=KQvK", "-p", f"metric={metric}", "--db", db)
        assert built.exit_code == 0, built.output
        queried = _cli("query", "chess", fen, "-p", f"metric={metric}", "--db", db, "--json")
        assert queried.exit_code == 0, queried.output
        answers[metric] = json.loads(queried.stdout)  # a first run's compile notice goes to stderr
    assert "category" not in answers["dtm"] and answers["dtm"]["remoteness"] == 15
    assert answers["dtz"]["remoteness"] is None and "dtm" not in answers["dtz"]
    assert answers["dtz"]["category"] == answers["both"]["category"] == "win"
    assert answers["dtz"]["dtz"] == answers["both"]["dtz"] == answers["both"]["dtm"] == 15
    bad = _cli("build", "chess", "-p", "material=KQvK", "-p", "metric=dtx", "--db", db)
    assert bad.exit_code == 2 and "bad metric 'dtx'" in bad.output
    refused = _cli("line", "chess", fen, "-p", "metric=dtm", "--db", db, "--metric", "dtz")
    assert refused.exit_code == 2 and "stores no DTZ" in refused.output


def test_a_levels_dtz_and_categories_scatter_as_dtz_in_place_and_categories_give_them():
    # Pass A's and B's solutions over a level of 3 blocks of 5 keys (blocks 4, 0 and 2 of
    # an index space of 6), a few numbers no position: the one sweep into the whole
    # space against dtz_in_place and categories, then the scatter by hand.
    rng = np.random.default_rng(7)
    n, block, blocks = 15, 5, np.array([4, 0, 2], dtype=np.int64)
    outcome = rng.choice(np.array([-1, 0, 1, ABSENT], dtype=np.int8), n)
    rule = Solution(outcome, rng.integers(-1, 140, n).astype(np.int16))
    free = Solution(outcome.copy(), rng.integers(0, 300, n).astype(np.int16))
    levels = rule_levels(rule)
    dtz = np.full(6 * block, 999, dtype=np.int16)
    category = np.full(6 * block, 99, dtype=np.int8)
    scatter_dtz_and_category(levels, free, blocks, block, dtz, category)
    expected = Solution(free.outcome.copy(), free.remoteness.astype(np.int32))
    dtz_in_place(levels, expected)
    named = np.where((outcome >= -1) & (outcome <= 1), categories(outcome, expected.remoteness), UNKNOWN)
    keys = (blocks[:, None] * block + np.arange(block)).ravel()
    assert dtz[keys].tolist() == expected.remoteness.tolist()
    assert category[keys].tolist() == named.tolist()
    untouched = np.setdiff1d(np.arange(6 * block), keys)
    assert set(dtz[untouched].tolist()) == {999} and set(category[untouched].tolist()) == {99}
