"""Builds too big for the machine are refused before they start, and running out of
memory anyway is a clean error."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner, Result

import tablebase.build.builder
from tablebase.core.errors import TooBigError
from tablebase.faces.cli import app
from tablebase.build import timing
from tablebase.build.plan import PlannedTable
from tablebase.solve import budget
from tablebase.solve.budget import available_memory, estimate
from tablebase.solve.registry import load_game
from tablebase.generators.chess.material import decided_share, parse_material
from tests.test_chess_oracle import ORACLE

runner = CliRunner()


def run(*args: object) -> Result:
    return runner.invoke(app, [str(a) for a in args])


def one_error_line(result: Result, code: int) -> str:
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ") and "Traceback" not in result.output
    return line


@pytest.fixture
def db(tmp_path) -> str:
    return str(tmp_path / "tb.sqlite")


@pytest.mark.parametrize(
    ("args", "positions"),
    [
        (["connect4"], "35,364,319,997,741"),
        (["connect4", "-p", "width=10", "-p", "height=5"], None),
        (["cutting", "-p", "max=100000"], "10,000,200,001"),
        (["subtraction", "-p", "max=1000000000000"], "1,000,000,000,001"),
        (["subtraction", "-p", "max=1000000000000", "--workers", "1"], "1,000,000,000,001"),
    ],
)
def test_a_build_too_big_for_memory_is_refused_before_it_starts(db, args, positions):
    line = one_error_line(run("build", *args, "--db", db), 1)
    assert "too big for this machine" in line and "--force-size" in line
    if positions:
        assert f"about {positions} positions" in line
    shown = re.search(r"but ([\d.]+) GiB is available", line)
    assert shown and abs(float(shown.group(1)) - available_memory() / 2**30) < 1  # it moves a little meanwhile
    listed = json.loads(run("info", "--db", db, "--json").stdout or "[]")
    assert listed == []  # nothing was begun


def test_keys_of_2_to_the_63_or_more_are_a_usage_error(db):
    line = one_error_line(run("build", "subtraction", "-p", "max=100000000000000000000", "--db", db), 2)
    assert "keys must be below 2**63" in line


def test_force_size_tries_a_build_that_the_estimate_refuses(db, monkeypatch):
    monkeypatch.setattr(budget, "available_memory", lambda: 1000)
    line = one_error_line(run("build", "subtraction", "-p", "max=100", "--db", db), 1)
    assert "about 101 positions" in line and "of memory, but 1000 B is available" in line
    built = run("build", "subtraction", "-p", "max=100", "--db", db, "--force-size")
    assert built.exit_code == 0, built.output


def test_running_out_of_memory_is_a_clean_error_that_stores_nothing(db, monkeypatch):
    def exhausted(*_args, **_kwargs):
        raise MemoryError

    monkeypatch.setattr(tablebase.build.builder, "solve_by_mode", exhausted)
    line = one_error_line(run("build", "subtraction", "-p", "max=100", "--db", db), 1)
    assert line.startswith("error: out of memory building subtraction moves=1,2,3 max=100")
    assert not Path(db).exists()  # the new database it made holds nothing, so it is gone


def test_the_estimates_are_near_the_stored_counts():
    # Counts stored by real builds (benchmarks/RESULTS.md; tests): the estimate is an
    # upper bound of about the right size, never a hundredth or a hundred times off.
    for name, params, stored in [
        ("connect4", {"width": "5", "height": "4"}, 1_974_174),
        ("connect4", {"width": "6", "height": "4"}, 47_455_869),
        ("tictactoe", {"m": "4", "n": "4", "k": "4"}, 1_217_977),
        ("subtraction", {"max": "100"}, 101),
    ]:
        found = estimate(load_game(name, params))
        assert stored * 0.9 <= found.positions <= stored * 3, (name, params, found)


def test_a_games_measured_bytes_per_position_replace_the_default():
    """Dobutsu shogi's build peaked at 5.1 GiB (benchmarks/RESULTS.md); the default 120
    bytes a position would have refused it on a machine of 24 GiB."""
    game = load_game("dobutsu", {})
    found = estimate(game)
    assert found.positions == 246_803_167
    assert 4.5 * 2**30 < found.memory < 6 * 2**30
    assert found.positions * budget.BYTES_PER_POSITION > 24 * 2**30


def test_a_partition_is_checked_for_its_share_of_the_build():
    """A partitioned build checks each worker's share: KRBvKR's whole build wants more
    than 1.5 GiB, a quarter of it fits; a quarter does not fit 600 MiB."""
    game = load_game("chess", {"material": "KRBvKR", "metric": "dtm"})
    whole, share = estimate(game), budget.partition_estimate(game, 4)
    assert share.memory < 1.5 * 2**30 < whole.memory and share.positions == -(-whole.positions // 4)
    with pytest.raises(TooBigError):
        budget.check_size(game, available=int(1.5 * 2**30))
    budget.check_size(game, available=int(1.5 * 2**30), partitions=4)
    with pytest.raises(TooBigError, match=r"\(one of 4 partitions\) is too big"):
        budget.check_size(game, available=600 * 2**20, partitions=4)


def test_a_dry_run_with_partitions_gives_each_worker_s_memory(db):
    result = run("build", "chess", "-p", "material=KRBvKR", "-p", "metric=dtm", "--dry-run", "--db", db,
                 "--cluster", "tcp://127.0.0.1:1", "--partitions", "4")
    assert result.exit_code == 0, result.output
    last, total = result.stdout.splitlines()[-3:-1]
    share = re.search(r"each of 4 workers about ([\d.]+ MiB)", last)
    assert "KRBvKR" in last and share, result.stdout
    assert total.startswith(f"in all: peak about {share[1]}"), result.stdout  # the largest process is a worker


def test_the_time_estimate_takes_this_machine_s_pace_from_the_builds_recorded_here():
    """Twice the reference seconds recorded for KQvKR, and as many again as the prior's
    seconds: KRvKR is estimated at twice its reference seconds; a build too small to tell
    (KQvK) and one not complete are left out."""
    chess = {m: load_game("chess", {"material": m}) for m in ("KQvKR", "KQvK", "KRvKR")}
    reference = {m: timing.reference_seconds(game) for m, game in chess.items()}
    assert reference["KQvK"] < timing.PACE_FROM_SECONDS < reference["KQvKR"]

    def row(material: str, seconds: float, status: str = "complete") -> SimpleNamespace:
        return SimpleNamespace(game="chess", params=chess[material].identity(), status=status, build_seconds=seconds)

    recorded = reference["KQvKR"] + timing.PACE_PRIOR_SECONDS  # twice this, with the prior's at the reference pace
    rows = [row("KQvK", 50.0), row("KQvKR", timing.TABLE_SECONDS + 2 * recorded - timing.PACE_PRIOR_SECONDS)]
    rows.append(row("KRvKR", 99.0, "building"))
    store = SimpleNamespace(catalog=lambda name: rows if name == "chess" else [])
    assert timing.recorded_pace(store, "chess") == timing.Pace(pytest.approx(2.0), 1)
    planned = timing.plan_time([PlannedTable(chess["KRvKR"], None, False)], store)
    assert planned.tables == [pytest.approx(timing.TABLE_SECONDS + 2 * reference["KRvKR"])]
    assert planned.total == pytest.approx(timing.STARTUP_SECONDS + planned.tables[0])
    assert "chess at the pace of 1 earlier chess build here (2x the reference" in planned.assumes
    fresh = timing.plan_time([PlannedTable(chess["KRvKR"], None, False)], SimpleNamespace(catalog=lambda name: []))
    assert "reference machine's pace" in fresh.assumes and "15 s to 3 min more" in fresh.assumes


def test_a_dry_run_estimates_a_build_done_here_before_at_the_pace_it_took(db):
    """Rebuilding Connect Four 5x4 is estimated at the pace recorded for it (its recorded
    seconds against its reference seconds, with the prior's), and the command at that and
    the start-up; the estimate says so, and the real rebuild's time is near it (within a
    factor of two, on a machine others share)."""
    game = ["connect4", "-p", "width=5", "-p", "height=4"]
    assert run("build", *game, "--db", db).exit_code == 0
    (row,) = json.loads(run("info", "--json", "--db", db).stdout)
    reference = timing.reference_seconds(load_game("connect4", {"width": "5", "height": "4"}))
    prior = timing.PACE_PRIOR_SECONDS
    pace = (row["build_seconds"] - timing.TABLE_SECONDS + prior) / (reference + prior)
    shown = run("build", *game, "--force", "--dry-run", "--db", db).stdout.splitlines()
    assert shown[1].endswith(f", {timing.duration(timing.TABLE_SECONDS + pace * reference)})"), shown
    estimated = float(re.fullmatch(r"in all: peak about .*, about ([\d.]+) s", shown[2])[1])
    assert estimated == pytest.approx(timing.STARTUP_SECONDS + timing.TABLE_SECONDS + pace * reference, abs=0.06)
    assert shown[3].startswith(f"assuming: {timing.STARTUP_SECONDS:g} s to start, connect4 at the pace of 1 earlier connect4 build here")
    started = time.perf_counter()
    assert run("build", *game, "--force", "--db", db).exit_code == 0
    assert estimated - timing.STARTUP_SECONDS < 2 * (time.perf_counter() - started)


def _decided_share_in_stats(text: str) -> float:
    """The share of won and lost positions (cursed ones included) in a Syzygy generator's
    statistics file, both sides to move."""
    counts = {kind: 0 for kind in ("decided", "draws")}
    for number, kind in re.findall(r"^(\d+) positions are (cursed wins|cursed losses|wins|losses|draws)\.$", text, re.M):
        counts["draws" if kind == "draws" else "decided"] += int(number)
    return counts["decided"] / (counts["decided"] + counts["draws"])


STATS = ORACLE / "syzygy5" / "stats"


@pytest.mark.skipif(not STATS.is_dir(), reason=f"no Syzygy statistics at {STATS}")
def test_chess_s_rule_of_material_comes_near_the_syzygy_generator_s_share_of_decided_positions():
    """The rule by which the time estimate weighs an ending's work (its share of won and
    lost positions) is within 0.3 of the share the Syzygy generator counted, for every
    ending of its statistics (the rule's 0.3 and 0.9; KRBvKR 0.22, KQvKR 0.96)."""
    for path in sorted(STATS.glob("*.txt")):
        guessed = decided_share(*parse_material(path.stem))
        truth = _decided_share_in_stats(path.read_text())
        assert abs(guessed - truth) <= 0.3, (path.stem, guessed, truth)


def test_a_drawn_chess_ending_is_estimated_shorter_than_a_decided_one_of_as_many_keys():
    """KRvKR (30% decided) below KQvKR (96%), KNNvK (none) below both; at 5 pieces
    KRBvKR (22%) below KQRvKR (89%); like pieces one key a position (KRRvKR, 81%
    decided over half the keys, below KQRvKR); a queen's un-moves more (KQRvK above
    KRBvK, both decided)."""
    seconds = {
        m: timing.reference_seconds(load_game("chess", {"material": m}))
        for m in ("KQvKR", "KRvKR", "KNNvK", "KRBvKR", "KQRvKR", "KRRvKR", "KQRvK", "KRBvK")
    }
    assert seconds["KNNvK"] < seconds["KRvKR"] < 0.7 * seconds["KQvKR"]
    assert seconds["KRBvKR"] < 0.7 * seconds["KQRvKR"]
    assert seconds["KRRvKR"] < 0.7 * seconds["KQRvKR"]
    assert seconds["KQRvK"] > 1.1 * seconds["KRBvK"]
