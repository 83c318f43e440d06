"""The ``tablebase`` command through typer's CliRunner: output shapes, reuse, stdin, errors.

Every test passes ``--db`` explicitly; ``$TABLEBASE_DB`` and the working directory point at
throw-away paths that must stay untouched.
"""

from __future__ import annotations

import json
import re
import select
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner, Result

from tablebase.core.values import Outcome
from tablebase.faces.cli import app
from tablebase.solve.registry import game_class, game_entry_points, load_game
from tablebase.store import open_store
from tests.reference import solve_game
from tests.terminal import on_terminal

DATA = Path(__file__).parent / "data"
GRAPH = DATA / "graph_example.txt"
BUILT_IN = (
    "subtraction", "nim", "tictactoe", "connect4", "kayles", "dawson", "octal", "cutting", "piles", "kalah", "teeko", "morris", "dobutsu", "green", "cops",
    "graph", "chess",
)

runner = CliRunner()


def run(*args: object, input: str | None = None) -> Result:
    return runner.invoke(app, [str(a) for a in args], input=input)


def ok(*args: object, input: str | None = None) -> Result:
    """Run and require success, showing the output if it fails."""
    result = run(*args, input=input)
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def assert_error(result: Result, code: int) -> str:
    """The exit code, and exactly one non-empty ``error:`` line on stderr, no traceback."""
    assert result.exit_code == code, (result.output, result.exception)
    # CliRunner swallows crashes as exit code 1; only a deliberate exit is a SystemExit.
    assert isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error:") and lines[0][len("error:") :].strip()
    assert "Traceback" not in result.output
    return lines[0]


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """An empty working directory and a ``$TABLEBASE_DB`` that no test may create."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    env_db = tmp_path / "from-env.sqlite"
    monkeypatch.setenv("TABLEBASE_DB", str(env_db))
    yield
    assert not env_db.exists(), "a command ignored --db and used $TABLEBASE_DB"
    assert list(cwd.iterdir()) == [], "a command wrote into the working directory"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A database with tictactoe (defaults) and subtraction max=200; tests only read it."""
    db = tmp_path_factory.mktemp("built") / "tb.sqlite"
    for args in (["tictactoe"], ["subtraction", "-p", "max=200"]):
        result = run("build", *args, "--db", db)
        assert result.exit_code == 0, result.output
    return db


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "tb.sqlite"


def info_json(db: Path, *args: object) -> list[dict]:
    return json.loads(ok("info", *args, "--db", db, "--json").stdout)


# --------------------------------------------------------------------------- games


def test_results_go_to_stdout_and_errors_to_stderr(built):
    answer = run("query", "tictactoe", "start", "--db", built, "--json")
    assert answer.exit_code == 0 and answer.stderr == "" and json.loads(answer.stdout)["position"] == ".../.../..."
    failure = run("query", "tictactoe", "zzz", "--db", built, "--json")
    assert failure.stdout == ""
    assert_error(failure, 2)


def test_games_lists_every_builtin_game_with_its_position_syntax():
    out = ok("games").stdout
    lines = out.splitlines()
    assert set(BUILT_IN) <= set(game_entry_points())
    for name in BUILT_IN:
        header = next(i for i, line in enumerate(lines) if line.startswith(f"{name}: "))
        syntax = game_class(name).position_syntax
        assert syntax
        assert lines[header + 1] == f"  position: {syntax}"
    assert "  -p map=..." in out and "  -p file=..." in out and "  -p symmetry=..." in out


# --------------------------------------------------------------------------- build and query


def test_tictactoe_start_query_json(built):
    result = ok("query", "tictactoe", "start", "--db", built, "--json")
    assert len(result.stdout.splitlines()) == 1
    report = json.loads(result.stdout)
    assert set(report) == {"position", "outcome", "remoteness", "moves", "best"}
    assert report["position"] == ".../.../..."
    assert (report["outcome"], report["remoteness"]) == ("draw", 9)
    assert len(report["moves"]) == 9
    for move in report["moves"]:
        assert set(move) == {"move", "position", "outcome", "remoteness"}
        assert (move["outcome"], move["remoteness"]) == ("draw", 8)
    assert sorted(report["best"]) == sorted(m["move"] for m in report["moves"])
    assert {m["move"] for m in report["moves"]} == {f"{c}{r}" for c in "abc" for r in "123"}


def test_tictactoe_text_query_marks_best_moves(built):
    out = ok("query", "tictactoe", "x../.../..o", "--db", built).stdout.splitlines()
    assert out[0] == "x../.../..o: win in 5"
    moves = out[1:]
    assert len(moves) == 7
    best = [line for line in moves if line.lstrip().startswith("*")]
    assert sorted(line.split()[1] for line in best) == ["a3", "c1"]
    assert all("loss in 4" in line for line in best)  # the value where the move leads
    assert moves[: len(best)] == best  # ranked best first
    assert not any("loss" in line for line in moves if line not in best)
    # the JSON agrees on which moves are best
    report = json.loads(ok("query", "tictactoe", "x../.../..o", "--db", built, "--json").stdout)
    assert sorted(report["best"]) == ["a3", "c1"]
    assert [line.split()[-1] for line in moves] == [m["position"] for m in report["moves"]]


@pytest.mark.parametrize("position", ["xx./oo./...", "x../.../..o", "start"])
def test_query_and_line_text_show_each_move_as_the_json_does(built, position):
    """One convention: a move's value is the value of the position it leads to, for the
    side to move there, in the JSON, in ``query``'s text and in ``line``'s text."""
    report = json.loads(ok("query", "tictactoe", position, "--db", built, "--json").stdout)
    said = {m["move"]: f"{m['outcome']} in {m['remoteness']}" for m in report["moves"]}
    for text in ok("query", "tictactoe", position, "--db", built).stdout.splitlines()[1:]:
        move, value, _arrow = re.split(r"\s{2,}", text.strip().lstrip("*").strip(), maxsplit=2)
        assert value == said[move], text
    played = json.loads(ok("line", "tictactoe", position, "--db", built, "--json").stdout)["line"]
    lines = ok("line", "tictactoe", position, "--db", built).stdout.splitlines()[1:]
    assert len(lines) == len(played)
    for text, step in zip(lines, played):
        _ply, move, value, _arrow = re.split(r"\s{2,}", text.strip(), maxsplit=3)
        assert (move, value) == (step["move"], f"{step['outcome']} in {step['remoteness']}")


def test_subtraction_query_json(built):
    report = json.loads(ok("query", "subtraction", "100", "-p", "max=200", "--db", built, "--json").stdout)
    assert (report["position"], report["outcome"], report["remoteness"]) == ("100", "loss", 50)
    assert len(report["moves"]) == 3
    assert {m["position"] for m in report["moves"]} == {"97", "98", "99"}
    assert all((m["outcome"], m["remoteness"]) == ("win", 49) for m in report["moves"])
    assert sorted(report["best"]) == ["-1", "-2", "-3"]


def test_second_build_reuses_and_force_rebuilds(db):
    first = ok("build", "tictactoe", "--db", db)
    assert "built" in first.stdout and "reused" not in first.stdout
    second = ok("build", "tictactoe", "--db", db)
    assert "reused" in second.stdout
    assert len(info_json(db)) == 1
    forced = ok("build", "tictactoe", "--db", db, "--force")
    assert "built" in forced.stdout and "reused" not in forced.stdout
    rows = info_json(db)
    assert len(rows) == 1 and rows[0]["status"] == "complete" and rows[0]["positions"] == 765


def test_default_parameters_spelled_out_are_the_same_tablebase(db):
    ok("build", "subtraction", "--db", db)
    again = ok("build", "subtraction", "-p", "max=100", "-p", "moves=1,2,3", "--db", db)
    assert "reused" in again.stdout
    assert len(info_json(db)) == 1


def test_a_set_parameter_in_another_order_is_the_same_tablebase(db):
    ok("build", "subtraction", "-p", "moves=3,1,2", "-p", "max=20", "--db", db)
    again = ok("build", "subtraction", "-p", "moves=1,2,3,3", "-p", "max=20", "--db", db)
    assert "reused" in again.stdout
    assert len(info_json(db)) == 1
    assert "moves=1,2,3" in ok("info", "--db", db).stdout


def test_database_from_environment_variable(tmp_path, monkeypatch):
    env_db = tmp_path / "env.sqlite"
    monkeypatch.setenv("TABLEBASE_DB", str(env_db))
    ok("build", "subtraction", "-p", "max=8")
    assert env_db.exists()
    report = json.loads(ok("query", "subtraction", "8", "-p", "max=8", "--json").stdout)
    assert (report["outcome"], report["remoteness"]) == ("loss", 4)


def test_default_database_in_working_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("TABLEBASE_DB")
    monkeypatch.chdir(tmp_path)
    ok("build", "subtraction", "-p", "max=8")
    assert (tmp_path / "tablebase.sqlite").exists()


# --------------------------------------------------------------------------- stdin


def test_query_reads_positions_from_stdin(built):
    result = run("query", "tictactoe", "-", "--db", built, input="start\n\nx........\n")
    assert result.exit_code == 0, result.output
    objects = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["position"] for o in objects] == [".../.../...", "x../.../..."]
    assert objects[0]["outcome"] == "draw" and len(objects[0]["moves"]) == 9
    assert (objects[1]["outcome"], objects[1]["remoteness"]) == ("draw", 8)
    assert len(objects[1]["moves"]) == 8


def test_stdin_answers_are_the_same_in_order_from_any_number_of_workers(built):
    lines = ["start", "x........", "not a board", "xo.......", "x...o....", "xx./oo./...", "start"] * 5
    answers = {}
    for workers in (1, 2, 3):
        result = run("query", "tictactoe", "-", "--db", built, "--workers", workers, input="\n".join(lines) + "\n")
        assert result.exit_code == 2, result.output
        answers[workers] = result.stdout
    assert answers[1] == answers[2] == answers[3]
    assert [json.loads(line).get("position") for line in answers[2].splitlines()][:2] == [".../.../...", "x../.../..."]


def test_stdin_lines_are_answered_one_at_a_time_by_workers(built):
    """A caller that writes a line and waits for its answer gets it (no read-ahead)."""
    command = [sys.executable, "-m", "tablebase", "query", "tictactoe", "-", "--db", str(built), "--workers", "2"]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as process:
        assert process.stdin is not None and process.stdout is not None
        for text, expected in (("start", ".../.../..."), ("x........", "x../.../..."), ("start", ".../.../...")):
            process.stdin.write(text + "\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], 60)
            if not ready:
                process.kill()
                pytest.fail(f"no answer to {text!r} within 60 s: the lines are read ahead")
            assert json.loads(process.stdout.readline())["position"] == expected
        process.stdin.close()
        assert process.wait(timeout=60) == 0


@pytest.mark.parametrize("lines", ["", "start\n"])
def test_a_stream_that_ends_at_once_ends_its_workers_at_once(built, lines):
    """With no line, or one, the workers (forked, then told to stop before they have set
    their signal handlers) end with the command; a SIGTERM so early left one waiting on
    its pipe 8 times in 10, and the command joined it forever."""
    command = [sys.executable, "-m", "tablebase", "query", "tictactoe", "-", "--db", str(built), "--workers", "2"]
    for _ in range(5):
        done = subprocess.run(command, input=lines, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0 and len(done.stdout.splitlines()) == len(lines.split()), done.stderr


def test_stdin_bad_line_gives_error_object_and_exit_2_at_the_end(built):
    result = run("query", "tictactoe", "-", "--db", built, input="start\nnot a board\nxx./oo./...\n")
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)
    objects = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(objects) == 3
    assert objects[0]["outcome"] == "draw"
    assert objects[1]["position"] == "not a board" and objects[1]["error"]
    assert "outcome" not in objects[1]
    assert (objects[2]["outcome"], objects[2]["remoteness"]) == ("win", 1)
    assert "Traceback" not in result.output


# --------------------------------------------------------------------------- line


def _line_positions(stdout: str) -> list[str]:
    """Positions after ``->`` in the text output of ``tablebase line``."""
    return [line.split("->")[1].split()[0] for line in stdout.splitlines()[1:]]


def test_tictactoe_line_ends_in_a_terminal_position(built):
    game = load_game("tictactoe", {})
    for start in ("start", "x../.o./..."):
        out = ok("line", "tictactoe", start, "--db", built).stdout
        positions = _line_positions(out)
        assert positions
        assert game.terminal(game.parse(positions[-1])) is not None
        assert all(game.terminal(game.parse(p)) is None for p in positions[:-1])


def test_line_json_shape(built):
    result = json.loads(ok("line", "tictactoe", "start", "--db", built, "--json").stdout)
    assert set(result) == {"position", "outcome", "remoteness", "line", "ended"}
    assert result["ended"] is True
    assert (result["position"], result["outcome"], result["remoteness"]) == (".../.../...", "draw", 9)
    assert len(result["line"]) == 9
    for ply, step in enumerate(result["line"], 1):
        assert set(step) == {"move", "position", "outcome", "remoteness"}
        assert (step["outcome"], step["remoteness"]) == ("draw", 9 - ply)
    assert result["line"][-1]["position"].count(".") == 0


def test_subtraction_line_from_a_lost_heap_takes_remoteness_plies(built):
    result = json.loads(ok("line", "subtraction", "100", "-p", "max=200", "--db", built, "--json").stdout)
    assert (result["outcome"], result["remoteness"]) == ("loss", 50)
    line = result["line"]
    assert len(line) == 50
    assert [step["remoteness"] for step in line] == list(range(49, -1, -1))
    assert [step["outcome"] for step in line] == ["win", "loss"] * 25
    assert line[-1]["position"] == "0"


def test_line_max_plies_cuts_the_line(built):
    result = json.loads(
        ok("line", "subtraction", "100", "-p", "max=200", "--max-plies", "3", "--db", built, "--json").stdout
    )
    assert len(result["line"]) == 3


# --------------------------------------------------------------------------- info


def test_info_json_counts(built):
    rows = {row["game"]: row for row in info_json(built)}
    assert set(rows) == {"tictactoe", "subtraction"}
    ttt, sub = rows["tictactoe"], rows["subtraction"]
    assert ttt["status"] == sub["status"] == "complete"
    assert ttt["positions"] == 765 and ttt["max_remoteness"] == 9
    assert ttt["wins"] + ttt["draws"] + ttt["losses"] == 765
    assert ttt["params"] == {"m": 3, "n": 3, "k": 3, "symmetry": True}
    # heaps 0..200, moves 1..3: the multiples of 4 are lost, the longest loss is 200 at 100
    assert (sub["positions"], sub["wins"], sub["draws"], sub["losses"]) == (201, 150, 0, 51)
    assert sub["max_remoteness"] == 100
    assert sub["params"] == {"max": 200, "moves": [1, 2, 3]}


def test_info_text(built):
    out = ok("info", "--db", built).stdout
    assert "tictactoe m=3 n=3 k=3 symmetry=on [complete]" in out
    assert "subtraction moves=1,2,3 max=200 [complete]" in out
    assert "201 positions (150 wins, 0 draws, 51 losses), max remoteness 100" in out


def test_info_filters_by_game_and_parameters(built):
    assert [r["game"] for r in info_json(built, "tictactoe")] == ["tictactoe"]
    assert [r["params"]["max"] for r in info_json(built, "subtraction", "-p", "max=200")] == [200]
    assert info_json(built, "subtraction", "-p", "max=50") == []
    assert info_json(built, "nim") == []
    out = ok("info", "subtraction", "-p", "max=50", "--db", built).stdout
    assert out.strip() == "no stored subtraction tablebase matches max=50 (1 other stored: tablebase info subtraction)"
    assert ok("info", "nim", "--db", built).stdout.strip() == "no nim tablebases stored"


def test_info_parameters_filter_on_the_ones_given(built):
    """-p names some parameters; the others may have any value, default or not."""
    assert [r["params"]["max"] for r in info_json(built, "subtraction", "-p", "moves=1,2,3")] == [200]
    assert info_json(built, "subtraction", "-p", "moves=1,2") == []
    assert [r["game"] for r in info_json(built, "tictactoe", "-p", "m=3", "-p", "symmetry=on")] == ["tictactoe"]
    out = ok("info", "subtraction", "-p", "moves=1,2,3", "--db", built).stdout
    assert out.startswith("subtraction moves=1,2,3 max=200 [complete]")
    assert_error(run("info", "subtraction", "-p", "nosuch=1", "--db", built), 2)


def test_info_parameters_without_game_is_a_usage_error(built):
    assert_error(run("info", "-p", "max=3", "--db", built), 2)


# --------------------------------------------------------------------------- cops and graph


def _check_against_reference(game_name: str, params: dict[str, str], report: dict) -> None:
    """The reported value of a position and of each move's successor equal the reference solver's."""
    game = load_game(game_name, params)
    reference = solve_game(game)

    def expected(text: str) -> tuple[str, int | None]:
        outcome, remoteness = reference[game.canonical_key(game.parse(text))]
        return Outcome(outcome).label, remoteness

    assert expected(report["position"]) == (report["outcome"], report["remoteness"])
    for move in report["moves"]:
        assert expected(move["position"]) == (move["outcome"], move["remoteness"])


@pytest.mark.parametrize(
    "map_name, start, outcome",
    [
        ("cops_caught.txt", "police=3,2 thief=3,4 move=police", "win"),
        ("cops_open.txt", "police=5,1 thief=3,4 move=police", "loss"),
        ("cops_ring.txt", "police=1,1 thief=4,4 move=police", "win"),
        ("cops_walled.txt", "police=1,1 thief=5,6 move=police", "draw"),
    ],
)
def test_cops_build_and_query_start(db, map_name, start, outcome):
    path = DATA / map_name
    assert "built" in ok("build", "cops", "-p", f"map={path}", "--db", db).stdout
    report = json.loads(ok("query", "cops", "start", "-p", f"map={path}", "--db", db, "--json").stdout)
    assert report["position"] == start
    assert report["outcome"] == outcome
    assert report["moves"] and report["best"]
    _check_against_reference("cops", {"map": str(path)}, report)


def test_cops_map_is_identified_by_content_not_path(db, tmp_path):
    ok("build", "cops", "-p", f"map={DATA / 'cops_ring.txt'}", "--db", db)
    copy = tmp_path / "copy.txt"
    shutil.copy(DATA / "cops_ring.txt", copy)
    assert "reused" in ok("build", "cops", "-p", f"map={copy}", "--db", db).stdout


def test_graph_build_and_query(db):
    param = f"file={GRAPH}"
    ok("build", "graph", "-p", param, "--db", db)
    report = json.loads(ok("query", "graph", "start", "-p", param, "--db", db, "--json").stdout)
    # a -> b only; b can move to the dead end f (lost there), so b wins in 1 and a loses in 2
    assert report == {
        "position": "a",
        "outcome": "loss",
        "remoteness": 2,
        "moves": [{"move": "b", "position": "b", "outcome": "win", "remoteness": 1}],
        "best": ["b"],
    }
    values = {}
    for vertex in "abcdefg":
        r = json.loads(ok("query", "graph", vertex, "-p", param, "--db", db, "--json").stdout)
        values[vertex] = (r["outcome"], r["remoteness"])
    assert values == {
        "a": ("loss", 2),
        "b": ("win", 1),
        "c": ("win", 3),
        "d": ("draw", None),  # the self-loop: d can always move on
        "e": ("draw", 0),
        "f": ("loss", 0),
        "g": ("loss", 0),
    }


def test_graph_without_start_line_has_no_start(db, tmp_path):
    graph = tmp_path / "g.txt"
    graph.write_text("a b\n")
    ok("build", "graph", "-p", f"file={graph}", "--db", db)
    assert_error(run("query", "graph", "start", "-p", f"file={graph}", "--db", db), 2)
    report = json.loads(ok("query", "graph", "a", "-p", f"file={graph}", "--db", db, "--json").stdout)
    assert (report["outcome"], report["remoteness"]) == ("win", 1)


def test_info_max_remoteness_of_a_tablebase_of_cycling_draws_is_null(db, tmp_path):
    graph = tmp_path / "cycle.txt"
    graph.write_text("start a\na b\nb a\n")
    ok("build", "graph", "-p", f"file={graph}", "--db", db)
    [row] = info_json(db)
    assert (row["draws"], row["positions"]) == (2, 2)
    assert row["max_remoteness"] is None


def test_summaries_say_only_what_is_stored_in_plain_words(db, tmp_path):
    """No "max remoteness" where none is stored (sums, cycles only); "1 loss", not "1 losses"."""
    built = ok("build", "kayles", "-p", "max=10", "--db", db).stdout
    assert "11 positions (10 wins, 0 draws, 1 loss) in " in built and "remoteness" not in built
    assert "max_remoteness" in info_json(db)[0] and info_json(db)[0]["max_remoteness"] is None
    graph = tmp_path / "cycle.txt"
    graph.write_text("start a\na b\nb a\n")
    ok("build", "graph", "-p", f"file={graph}", "--db", db)
    shown = ok("info", "--db", db).stdout
    assert "None" not in shown and "max remoteness 0" not in shown
    assert "2 positions (0 wins, 2 draws, 0 losses), built in" in shown


def test_columns_stay_aligned_with_long_moves(db, tmp_path):
    graph = tmp_path / "long.txt"
    graph.write_text("start a\na b\na a_vertex_with_a_very_long_name\nb c\n")
    ok("build", "graph", "-p", f"file={graph}", "--db", db)
    for command in ("query", "line"):
        lines = ok(command, "graph", "a", "-p", f"file={graph}", "--db", db).stdout.splitlines()[1:]
        assert len(lines) == 2 if command == "query" else len(lines) >= 1
        assert len({text.index("->") for text in lines}) == 1, lines
    lines = ok("query", "graph", "a", "-p", f"file={graph}", "--db", db).stdout.splitlines()[1:]
    assert len({text.index(" loss") if " loss" in text else text.index(" win") for text in lines}) == 1, lines


def test_a_line_cut_short_says_so(built):
    cut = ok("line", "tictactoe", "start", "--max-plies", "3", "--db", built).stdout.splitlines()
    assert len(cut) == 1 + 3 + 1 and cut[-1].startswith("(cut after 3 plies")
    assert json.loads(ok("line", "tictactoe", "start", "--max-plies", "3", "--db", built, "--json").stdout)["ended"] is False
    whole = ok("line", "tictactoe", "start", "--db", built).stdout.splitlines()
    assert len(whole) == 1 + 9 and not any("cut" in text for text in whole)


def test_progress_bars_show_positions_on_a_terminal_that_reports_no_size(tmp_path):
    """A fresh pseudo-terminal reports 0 columns and 0 rows: bars must still be drawn,
    and every stage counts positions (the index stage counted batches)."""
    code, text = on_terminal([sys.executable, "-m", "tablebase", "build", "tictactoe", "--db", str(tmp_path / "tb.sqlite")])
    assert code == 0
    for stage in ("discover", "solve", "write"):
        assert f"\r{stage}" in text, stage
    assert re.search(r"\rsolve +:.*/765 ", text), text
    totals = re.findall(r"\r(\w+) *:[^\r]*/([0-9.]+) ", text)
    assert totals and all(total == "765" for _stage, total in totals), totals  # positions, never batches


def test_a_plan_of_several_builds_shows_an_overall_bar_above_each_stage(tmp_path):
    """A build that makes more than one tablebase draws one bar over the plan (builds
    done of all, positions, time left) beside each stage's bar; chess KRvK builds KvK
    first."""
    database = str(tmp_path / "tb.sqlite")
    code, text = on_terminal([sys.executable, "-m", "tablebase", "build", "chess", "-p", "material=KRvK", "--db", database])
    assert code == 0
    assert "plan 0/2" in text and "plan 1/2" in text and "plan 2/2" in text, text
    assert "\rsolve" in text
    code, text = on_terminal([sys.executable, "-m", "tablebase", "build", "chess", "-p", "material=KQvK", "--db", database])
    assert code == 0 and "plan 0/1" not in text  # one build: no overall bar


# --------------------------------------------------------------------------- errors


USAGE_ERRORS = {
    "unknown game": ["query", "no-such-game", "start"],
    "unknown game (build)": ["build", "no-such-game"],
    "unknown game (info)": ["info", "no-such-game"],
    "unknown parameter": ["query", "tictactoe", "start", "-p", "foo=1"],
    "non-integer parameter": ["query", "tictactoe", "start", "-p", "m=abc"],
    "parameter out of range": ["query", "tictactoe", "start", "-p", "k=9"],
    "bad bool parameter": ["build", "tictactoe", "-p", "symmetry=maybe"],
    "parameter without =": ["query", "tictactoe", "start", "-p", "foo"],
    "parameter without name": ["build", "tictactoe", "-p", "=3"],
    "parameter given twice": ["build", "tictactoe", "-p", "m=3", "-p", "m=4"],
    "map that is a directory": ["build", "cops", "-p", f"map={DATA}"],
    "unparsable board": ["query", "tictactoe", "zzz"],
    "board of wrong size": ["query", "tictactoe", "x.o/..."],
    "too many x": ["query", "tictactoe", "xxx/xxx/..."],
    "o moved first": ["query", "tictactoe", "oo......."],
    "side to move has a line": ["query", "tictactoe", "xxx/ooo/x.o"],
    "unparsable board (line)": ["line", "tictactoe", "zzz"],
    "unparsable heap": ["query", "subtraction", "abc", "-p", "max=200"],
    "heap out of range": ["query", "subtraction", "201", "-p", "max=200"],
    "missing map parameter": ["build", "cops"],
    "missing map file": ["build", "cops", "-p", "map=/no/such/map.txt"],
    "missing map file (query)": ["query", "cops", "start", "-p", "map=/no/such/map.txt"],
}

RUNTIME_ERRORS = {
    "unknown URL scheme": ["info", "--db", "nosuchdialect://x"],
    "URL without a driver": ["info", "--db", "postgresql+nosuchdriver://u@localhost/x"],
}


@pytest.mark.parametrize("args", RUNTIME_ERRORS.values(), ids=RUNTIME_ERRORS.keys())
def test_bad_database_urls_exit_1(args):
    assert_error(run(*args), 1)


@pytest.mark.parametrize("args", USAGE_ERRORS.values(), ids=USAGE_ERRORS.keys())
def test_usage_errors_exit_2(built, args):
    assert_error(run(*args, "--db", built), 2)


COMMAND_LINE_ERRORS = {
    "workers 0": ["build", "tictactoe", "--workers", "0"],
    "max-plies 0": ["line", "tictactoe", "start", "--max-plies", "0"],
    "missing argument": ["query", "tictactoe"],
    "position starting with -": ["query", "subtraction", "-5"],
    "unknown option": ["info", "--nosuch"],
    "unknown command": ["nosuch"],
    "not a number": ["verify", "tictactoe", "--show", "many"],
}


@pytest.mark.parametrize("args", COMMAND_LINE_ERRORS.values(), ids=COMMAND_LINE_ERRORS.keys())
def test_command_line_errors_are_one_line_and_exit_2(built, args):
    message = assert_error(run(*args, "--db", built), 2)
    assert "--help" in message


def test_a_position_starting_with_a_dash_goes_after_double_dash(built):
    assert "'--'" in assert_error(run("query", "subtraction", "-5", "--db", built), 2)
    assert_error(run("query", "subtraction", "--db", built, "-p", "max=200", "--", "-5"), 2)  # a bad heap, now


def _commands(group=None, path=()):
    """Every command of the CLI as the words that call it, e.g. ``("db", "current")``."""
    from typer.main import get_command

    group = group or get_command(app)
    for name, sub in group.commands.items():
        if hasattr(sub, "commands"):
            yield from _commands(sub, (*path, name))
        else:
            yield (*path, name), sub


READ_NO_DATABASE = {("games",), ("check",)}
"""The commands that read no database, and so take no ``--db``."""


def test_every_command_with_a_database_takes_db_and_shows_its_default(monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")  # help on one line per option
    commands = dict(_commands())
    assert READ_NO_DATABASE | {("build",), ("query",), ("db", "current")} <= set(commands)
    for words, sub in commands.items():
        takes_db = any("--db" in param.opts for param in sub.params)
        assert takes_db != (words in READ_NO_DATABASE), words
        if takes_db:
            shown = ok(*words, "--help").stdout
            assert "--db" in shown and "$TABLEBASE_DB or tablebase.sqlite" in shown, words


def test_games_and_check_refuse_a_db_they_would_not_read(db):
    for words in (["games"], ["check", "subtraction", "-p", "max=20", "--positions", "10"]):
        ok(*words)
        refused = CliRunner().invoke(app, [*words, "--db", str(db)])
        assert refused.exit_code == 2 and "No such option: --db" in refused.output, refused.output
    assert not db.exists()


def test_help_names_values_plainly_and_version_is_printed(monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    for words, _sub in _commands():
        shown = ok(*words, "--help").stdout
        for typer_noise in ("<bool>", "<list[str]>", "<str>", "<int>", "{GAME}", "[[GAME]]"):
            assert typer_noise not in shown, (words, typer_noise)
    assert " info [OPTIONS] [GAME] " in ok("info", "--help").stdout
    assert " query [OPTIONS] GAME POSITION " in ok("query", "--help").stdout
    from tablebase import __version__

    assert ok("--version").stdout == f"tablebase {__version__}\n"


def test_bad_map_file_content_is_a_usage_error(db, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("2 2\n..\n")
    assert_error(run("build", "cops", "-p", f"map={bad}", "--db", db), 2)


# A position that parses as legal but is not in the tablebase cannot be written for the
# built-in games: tictactoe's parser rejects exactly the unreachable boards (checked by
# brute force over all 3**9 boards), and the other games enumerate their whole index
# space. The error path is tested below with a tablebase stored without one of its keys.


def test_position_missing_from_tablebase_exits_1(db):
    game = load_game("subtraction", {"max": "10"})
    with open_store(db) as store:
        row = store.begin_build(game.name, game.identity(), game.describe())
        keys = np.array([k for k in range(11) if k != 7], dtype=np.int64)
        outcome = np.where(keys % 4 == 0, -1, 1).astype(np.int8)
        remoteness = np.zeros(len(keys), dtype=np.int32)
        store.write(row, keys, outcome, remoteness)
        store.complete(row, outcome, remoteness, 0.0)
    message = assert_error(run("query", "subtraction", "7", "-p", "max=10", "--db", db), 1)
    assert "not in the tablebase" in message
    # a successor missing is the same error
    assert_error(run("query", "subtraction", "8", "-p", "max=10", "--db", db), 1)
    ok("query", "subtraction", "4", "-p", "max=10", "--db", db)
    # on stdin: the worst error decides the exit code, after every line is printed
    result = run("query", "subtraction", "-", "-p", "max=10", "--db", db, input="7\n4\n")
    assert result.exit_code == 1
    assert [("error" in json.loads(line)) for line in result.stdout.splitlines()] == [True, False]
    result = run("query", "subtraction", "-", "-p", "max=10", "--db", db, input="7\nx\n")
    assert result.exit_code == 2


def test_query_of_a_game_not_built_names_the_build_command(built):
    message = assert_error(run("query", "nim", "1,2,3", "--db", built), 1)
    assert "tablebase build nim" in message
    message = assert_error(run("query", "subtraction", "5", "--db", built), 1)  # max=100 is not built
    assert "tablebase build subtraction" in message and "max=100" in message
    message = assert_error(run("line", "tictactoe", "start", "-p", "k=2", "--db", built), 1)
    assert "tablebase build tictactoe" in message and "k=2" in message


def test_query_of_a_cops_map_not_built_names_the_build_command(db):
    ok("build", "tictactoe", "--db", db)
    message = assert_error(run("query", "cops", "start", "-p", f"map={DATA / 'cops_ring.txt'}", "--db", db), 1)
    assert "tablebase build cops -p map=" in message


@pytest.mark.parametrize("command", [["query", "tictactoe", "start"], ["line", "tictactoe", "start"], ["info"]])
def test_database_that_does_not_exist_exits_1_and_is_not_created(db, command):
    message = assert_error(run(*command, "--db", db), 1)
    assert "tablebase build" in message
    assert not db.exists()


@pytest.mark.parametrize("command", [["query", "tictactoe", "start"], ["build", "tictactoe"], ["info"]])
def test_text_file_as_database_exits_1_and_is_left_unchanged(tmp_path, command):
    text = tmp_path / "notes.txt"
    content = b"these are my notes, not a database\n" * 20
    text.write_bytes(content)
    assert_error(run(*command, "--db", text), 1)
    assert text.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cwd", "notes.txt"]


@pytest.mark.parametrize("command", [["query", "tictactoe", "start"], ["build", "tictactoe"], ["info"]])
def test_directory_as_database_exits_1(tmp_path, command):
    folder = tmp_path / "folder"
    folder.mkdir()
    assert_error(run(*command, "--db", folder), 1)
    assert list(folder.iterdir()) == []


def test_database_from_a_newer_version_exits_1(db):
    ok("build", "subtraction", "-p", "max=8", "--db", db)
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE alembic_version SET version_num = 'ffffffffffff'")
    message = assert_error(run("query", "subtraction", "8", "-p", "max=8", "--db", db), 1)
    assert "newer" in message
    assert_error(run("build", "subtraction", "-p", "max=8", "--db", db), 1)


def test_database_of_another_application_exits_1(db):
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE customers (name TEXT)")
    assert_error(run("build", "tictactoe", "--db", db), 1)
    assert_error(run("query", "tictactoe", "start", "--db", db), 1)
    with sqlite3.connect(db) as connection:
        tables = [r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    assert tables == ["customers"]
