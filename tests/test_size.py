"""Builds too big for the machine are refused before they start, and running out of
memory anyway is a clean error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import tablebase.build.builder
from tablebase.core.errors import TooBigError
from tablebase.faces.cli import app
from tablebase.solve import budget
from tablebase.solve.budget import available_memory, estimate
from tablebase.solve.registry import load_game

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
    last, total = result.stdout.splitlines()[-2:]
    share = re.search(r"each of 4 workers about ([\d.]+ MiB)", last)
    assert "KRBvKR" in last and share, result.stdout
    assert total.startswith(f"in all: peak about {share[1]}"), result.stdout  # the largest process is a worker
