"""``tablebase export``: CSV and Parquet agree with the stored values, bad requests fail cleanly."""

from __future__ import annotations

import csv
import io
import re
import shlex
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from tablebase.faces.cli import app
from tablebase.read.query import Tablebase
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tablebase.tools.export import export
from tests.terminal import on_terminal


def run(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module", params=["sided", "blocks", "packed", "rows"])
def built(tmp_path_factory, request):
    db = str(tmp_path_factory.mktemp(request.param) / "tb.sqlite")
    result = run("build", "tictactoe", "--db", db, "--layout", request.param)
    assert result.exit_code == 0, result.output
    return db


def expected_rows(db: str) -> list[tuple[str, str, str]]:
    """(position, outcome, remoteness) of every stored position, probed one by one."""
    game = load_game("tictactoe", {})
    with open_store(db) as store:
        tablebase = Tablebase(game, store)
        keys = store.read_values(store.find(game.name, game.identity(), game.version))[0].tolist()
        values = [tablebase.probe(game.decode(key)) for key in keys]
    return [
        (game.format(game.decode(k)), v.outcome.label, "" if v.remoteness is None else str(v.remoteness))
        for k, v in zip(keys, values)
    ]


def test_csv_export_lists_every_position_with_its_value(built):
    result = run("export", "tictactoe", "--db", built)
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["key", "position", "outcome", "remoteness"]
    assert [tuple(r[1:]) for r in rows[1:]] == expected_rows(built)
    assert len(rows) - 1 == 765
    keys = [int(r[0]) for r in rows[1:]]
    assert keys == sorted(keys)
    text = io.StringIO(newline="")  # byte for byte what the standard library writes of the rows
    csv.writer(text).writerows([rows[0], *[(key, *row) for key, row in zip(keys, expected_rows(built))]])
    assert result.stdout_bytes == text.getvalue().encode()


def test_parquet_export_reads_back_with_pyarrow(built, tmp_path):
    target = tmp_path / "ttt.parquet"
    result = run("export", "tictactoe", "--db", built, "--format", "parquet", "-o", str(target))
    assert result.exit_code == 0, result.output
    table = pq.read_table(target).to_pylist()
    got = [(r["position"], r["outcome"], "" if r["remoteness"] is None else str(r["remoteness"])) for r in table]
    assert got == expected_rows(built)
    assert list(tmp_path.iterdir()) == [target]


def test_export_without_positions_keeps_keys_and_values(built, tmp_path):
    target = tmp_path / "ttt.csv"
    assert run("export", "tictactoe", "--db", built, "--no-positions", "-o", str(target)).exit_code == 0
    rows = list(csv.reader(target.open()))
    assert rows[0] == ["key", "outcome", "remoteness"]
    assert target.stat().st_mode & 0o044 == 0o044  # readable by others, as an ordinary new file
    assert [tuple(r[1:]) for r in rows[1:]] == [(o, r) for _p, o, r in expected_rows(built)]


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--format", "xml"], 2, "unknown export format"),
        (["--format", "parquet"], 2, "needs a file"),
        (["-p", "m=4"], 1, "not built"),
    ],
)
def test_bad_exports_are_one_line_errors(built, args, code, message):
    result = run("export", "tictactoe", "--db", built, *args)
    assert result.exit_code == code
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_an_unwritable_target_leaves_nothing_behind(built, tmp_path):
    missing = tmp_path / "no such folder" / "out.csv"
    result = run("export", "tictactoe", "--db", built, "-o", str(missing))
    assert result.exit_code == 1 and "cannot write" in result.stderr
    assert not missing.parent.exists()


def test_a_failed_export_keeps_the_previous_file(built, tmp_path, monkeypatch):
    target = tmp_path / "out.csv"
    target.write_text("previous export\n")

    def broken_format(self, position):
        raise RuntimeError("formatting failed")

    monkeypatch.setattr(type(load_game("tictactoe", {})), "format", broken_format)
    result = CliRunner().invoke(app, ["export", "tictactoe", "--db", built, "-o", str(target)], catch_exceptions=False)
    assert result.exit_code == 1  # a game's own exception: one line naming the game
    assert result.stderr == "error: game 'tictactoe' failed in broken_format: RuntimeError: formatting failed\n"
    assert target.read_text() == "previous export\n"
    assert list(tmp_path.iterdir()) == [target]


def test_an_unknown_storage_layout_is_a_usage_error(tmp_path):
    result = run("build", "tictactoe", "--db", str(tmp_path / "tb.sqlite"), "--layout", "columns")
    assert result.exit_code == 2 and "unknown storage layout" in result.stderr


def test_export_of_a_kayles_tablebase_has_its_grundy_values(tmp_path):
    db = str(tmp_path / "tb.sqlite")
    assert run("build", "kayles", "-p", "max=12", "--db", db).exit_code == 0
    rows = list(csv.reader(io.StringIO(run("export", "kayles", "-p", "max=12", "--db", db).stdout)))
    assert rows[0] == ["key", "position", "outcome", "remoteness", "grundy"]
    assert [int(r[4]) for r in rows[1:]] == [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4]  # OEIS A002186
    target = tmp_path / "k.parquet"
    assert run("export", "kayles", "-p", "max=12", "--db", db, "--format", "parquet", "-o", str(target)).exit_code == 0
    assert pq.read_table(target).column("grundy").to_pylist() == [int(r[4]) for r in rows[1:]]


class _FirstWrite(io.BytesIO):
    """A binary file that notes how many positions had been formatted when its first
    bytes after the header came."""

    def __init__(self, formatted: list[int]) -> None:
        super().__init__()
        self.formatted, self.at_first_rows = formatted, None

    def write(self, data) -> int:
        if self.at_first_rows is None and self.getvalue().count(b"\n") >= 1:
            self.at_first_rows = self.formatted[0]
        return super().write(data)


def test_a_csv_export_streams_its_first_rows_before_formatting_the_rest(tmp_path, monkeypatch):
    """The first rows are written after a thousand positions are formatted, not after
    2**20 (``export | head`` showed its first row after 47 s on KQvKR), and the
    tablebase is read a stored chunk at a time."""
    db = str(tmp_path / "tb.sqlite")
    assert run("build", "subtraction", "-p", "max=5000", "--db", db).exit_code == 0
    game = load_game("subtraction", {"max": "5000"})
    formatted = [0]
    plain = type(game).format

    def counting(self, position):
        formatted[0] += 1
        return plain(self, position)

    monkeypatch.setattr(type(game), "format", counting)
    out = _FirstWrite(formatted)
    with open_store(db) as store:
        assert export(game, store, out, "csv") == 5001
    assert out.at_first_rows is not None and out.at_first_rows <= 1024
    assert out.getvalue().count(b"\n") == 5002
    said = run("export", "subtraction", "-p", "max=5000", "--db", db, "-o", str(tmp_path / "s.csv")).output
    assert said.startswith("wrote 5,001 positions of subtraction")  # as info writes counts


def test_a_reader_that_closes_the_pipe_ends_the_export_quietly(tmp_path):
    """``export | head -n 2``: the export ends at once with exit code 0 and nothing on
    stderr (it exited 1 when the reader went away)."""
    db = str(tmp_path / "tb.sqlite")
    assert run("build", "subtraction", "-p", "max=20000", "--db", db).exit_code == 0  # 300 KB of CSV, past a pipe's buffer
    command = f"{sys.executable} -m tablebase export subtraction -p max=20000 --db {db} | head -n 2; exit ${{PIPESTATUS[0]}}"
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    assert done.stdout == "key,position,outcome,remoteness,grundy\n0,0,loss,0,0\n"
    assert done.returncode == 0 and done.stderr == ""


def test_progress_is_drawn_on_a_terminal_with_the_rows_to_write(tmp_path):
    """On a terminal the export draws a bar counting rows of the stored positions (765),
    to a file or to stdout sent elsewhere (it drew no total); with stderr not a terminal,
    only the closing line."""
    db = str(tmp_path / "tb.sqlite")
    assert run("build", "tictactoe", "--db", db).exit_code == 0
    command = [sys.executable, "-m", "tablebase", "export", "tictactoe", "--db", db]
    code, text = on_terminal([*command, "-o", str(tmp_path / "t.csv")])
    assert code == 0 and re.search(r"\rexport +:.*/765 ", text), text
    code, text = on_terminal(["bash", "-c", f"{shlex.join(command)} > {tmp_path / 'u.csv'}"])
    assert code == 0 and re.search(r"\rexport +:.*/765 ", text), text
    done = subprocess.run([*command, "-o", str(tmp_path / "v.csv")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr.startswith("wrote 765 positions of tictactoe") and done.stderr.count("\n") == 1
