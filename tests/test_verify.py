"""``tablebase verify``: every built-in game passes, and planted corruptions are found."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tablebase.faces.cli import app
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tablebase.store.block_codec import block_parts, encode_block
from tablebase.store.layouts import layout_of
from tablebase.store.packed import decode_codes, encode_codes, extra_codes, extra_values

DATA = Path(__file__).parent / "data"

GAMES = [
    ("subtraction", ["-p", "max=60"]),
    ("nim", ["-p", "heaps=3", "-p", "max=5"]),
    ("tictactoe", []),
    ("connect4", ["-p", "width=4", "-p", "height=4"]),
    ("kayles", ["-p", "max=40"]),
    ("dawson", ["-p", "max=40"]),
    ("cutting", ["-p", "max=10"]),
    ("piles", ["-p", "a=3,1,4,1", "-p", "b=5,9,2"]),
    ("kalah", ["-p", "pits=3", "-p", "seeds=3"]),
    ("morris", ["-p", "men=3"]),
    ("dobutsu", ["-p", "start=l../.../.../.L. Cc"]),
    ("cops", ["-p", f"map={DATA / 'cops_ring.txt'}"]),
    ("graph", ["-p", f"file={DATA / 'graph_example.txt'}"]),
    ("chess", ["-p", "material=KPvK"]),
]


def run(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize(("name", "params"), GAMES, ids=[g for g, _p in GAMES])
def test_every_built_in_game_verifies(tmp_path, name, params):
    db = str(tmp_path / "tb.sqlite")
    assert run("build", name, *params, "--db", db).exit_code == 0
    result = run("verify", name, *params, "--db", db)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ok: ")


def test_the_green_game_verifies(tmp_path):
    board = tmp_path / "gra.in"
    board.write_text("2 2\n1 1 3\n0 2 3 4\n0 1 1\n0 1 2\n")
    db = str(tmp_path / "tb.sqlite")
    assert run("build", "green", "-p", f"file={board}", "--db", db).exit_code == 0
    assert run("verify", "green", "-p", f"file={board}", "--db", db).exit_code == 0


def corrupt_code(db: str, row, change, extra: bool = False) -> None:
    """Rewrite the first chunk or block of a tablebase's values (or of its extra values)
    with ``change`` applied to the codes of its stored positions, in either layout."""
    if row.table_name.startswith("blocks_"):
        _corrupt_block(db, row, change, extra)
        return
    table = f"extra_{row.id}" if extra else row.table_name
    with sqlite3.connect(db) as connection:
        first_key, deltas, codes = connection.execute(
            f"SELECT first_key, key_deltas, codes FROM {table} ORDER BY first_key LIMIT 1"
        ).fetchone()
        keys, values = decode_codes(first_key, deltas, codes)
        values = change(values.astype(np.int64).copy())
        _first, new_deltas, new_codes = encode_codes(keys, values)
        connection.execute(f"UPDATE {table} SET codes = ? WHERE first_key = ?", (new_codes, first_key))


def _corrupt_block(db: str, row, change, extra: bool) -> None:
    table, layout = row.table_name, layout_of(row)
    blocking, form = layout.blocking, layout.form(row)
    with sqlite3.connect(db) as connection:
        stored = connection.execute(f"SELECT block, present, codes, extra FROM {table} ORDER BY block LIMIT 1").fetchone()
        keys, codes, *beside = next(block_parts([stored if stored[3] is not None else stored[:3]], blocking, form))
        if extra:
            beside = [change(beside[0].copy())]
        else:
            codes = change(codes.copy())
        _present, new_codes, new_extra = encode_block(blocking.place(keys)[1], codes, beside[0] if beside else None, form=form)
        connection.execute(f"UPDATE {table} SET codes = ?, extra = ? WHERE block = ?", (new_codes, new_extra, stored[0]))


def test_a_planted_remoteness_error_is_found_in_the_packed_layout(tmp_path):
    db = str(tmp_path / "tb.sqlite")
    assert run("build", "tictactoe", "--db", db).exit_code == 0
    with open_store(db) as store:
        row = store.catalog()[0]

    def shift_one(values):  # position 5 of the chunk: its remoteness one ply more
        values[5] += 3
        return values

    corrupt_code(db, row, shift_one)
    result = run("verify", "tictactoe", "--db", db)
    assert result.exit_code == 1
    assert "1 of 765 stored values" in result.stderr
    assert result.stdout.count("mismatch:") >= 1


def test_a_planted_outcome_error_is_found_in_the_rows_layout(tmp_path):
    db = str(tmp_path / "tb.sqlite")
    assert run("build", "subtraction", "-p", "max=30", "--db", db, "--layout", "rows").exit_code == 0
    with sqlite3.connect(db) as connection:
        table = connection.execute("SELECT name FROM sqlite_master WHERE name LIKE 'positions_%'").fetchone()[0]
        connection.execute(f"UPDATE {table} SET outcome = 1, remoteness = 1 WHERE key = 8")  # 8 is lost
    result = run("verify", "subtraction", "-p", "max=30", "--db", db)
    assert result.exit_code == 1
    assert "mismatch: 8 " in result.stdout


def test_a_planted_grundy_error_is_found(tmp_path):
    db = str(tmp_path / "tb.sqlite")
    assert run("build", "kayles", "-p", "max=20", "--db", db).exit_code == 0
    with open_store(db) as store:
        row = store.catalog()[0]
    corrupt_code(db, row, lambda values: np.where(np.arange(len(values)) == 7, values + 2, values), extra=True)
    result = run("verify", "kayles", "-p", "max=20", "--db", db)
    assert result.exit_code == 1 and "grundy" in result.stdout


def test_verify_of_a_tablebase_not_built_is_a_clean_error(tmp_path):
    db = str(tmp_path / "tb.sqlite")
    assert run("build", "tictactoe", "--db", db).exit_code == 0
    result = run("verify", "tictactoe", "-p", "m=4", "--db", db)
    assert result.exit_code == 1 and "not built" in result.stderr


@pytest.mark.parametrize(("change", "shown"), [("remoteness + 2", "stored draw in"), ("NULL", "stored draw,")])
def test_a_planted_draw_remoteness_error_is_found(tmp_path, change, shown):
    """A draw's remoteness (which query and line rank drawing moves by) is re-derived
    too: one more than its nearest drawing move's, or none where that can cycle."""
    db = str(tmp_path / "tb.sqlite")
    assert run("build", "tictactoe", "--db", db, "--layout", "rows").exit_code == 0
    with sqlite3.connect(db) as connection:
        table = connection.execute("SELECT name FROM sqlite_master WHERE name LIKE 'positions_%'").fetchone()[0]
        key = connection.execute(f"SELECT key FROM {table} WHERE outcome = 0 AND remoteness > 0 LIMIT 1").fetchone()[0]
        connection.execute(f"UPDATE {table} SET remoteness = {change} WHERE key = ?", (key,))
    result = run("verify", "tictactoe", "--db", db)
    assert result.exit_code == 1, result.output
    assert "1 of 765 stored values" in result.stderr
    assert shown in result.stdout and "its moves give draw in" in result.stdout


@pytest.mark.parametrize("metric", ["dtm", "dtz", "both"])
def test_chess_verifies_with_every_metric(tmp_path, metric):
    db = str(tmp_path / "tb.sqlite")
    params = ["-p", "material=KRvK", "-p", f"metric={metric}"]
    assert run("build", "chess", *params, "--db", db).exit_code == 0
    result = run("verify", "chess", *params, "--db", db)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(("plies", "shown"), [(2, "stored win, dtz"), (101, "stored cursed-win, dtz")])
def test_a_planted_dtz_error_is_found(tmp_path, plies, shown):
    """DTZ is re-derived from the moves: a win's DTZ is one more than its fastest move
    into a loss (or 1 for a zeroing move), and a stored DTZ past 100 makes a cursed win
    that its moves do not give."""
    db = str(tmp_path / "tb.sqlite")
    assert run("build", "chess", "-p", "material=KPvK", "--db", db).exit_code == 0
    game = load_game("chess", {"material": "KPvK"})
    with open_store(db) as store:
        row = store.find(game.name, game.identity(), game.version)

    def lengthen_a_win(codes):
        values, known = extra_values(codes)
        first_win = np.flatnonzero(values > 0)[0]
        values[first_win] += plies
        return extra_codes(values, known)

    corrupt_code(db, row, lengthen_a_win, extra=True)
    result = run("verify", "chess", "-p", "material=KPvK", "--db", db)
    assert result.exit_code == 1, result.output
    # the planted win, and a loss whose longest way to lose went through it, if there is one
    assert re.search(r"\b[12] of 165,676 stored values", result.stderr), result.stderr
    assert shown in result.stdout and "its moves give win, dtz" in result.stdout


def test_chess_verifies_over_key_ranges_without_a_move_graph(tmp_path, monkeypatch):
    """A chess ending is verified a range of keys at a time over its stored values read
    as its build reads them (no move graph: verify took 6 to 9 times a build's memory),
    and a position the tablebase lacks is a clean error."""
    db = str(tmp_path / "tb.sqlite")
    assert run("build", "chess", "-p", "material=KRvK", "--db", db).exit_code == 0
    monkeypatch.setattr("tablebase.tools.verify.build_graph", lambda *_args, **_kwargs: pytest.fail("a move graph was built"))
    monkeypatch.setattr("tablebase.tools.verify._range_keys", lambda _size: 1000)  # many ranges, the last one short
    result = run("verify", "chess", "-p", "material=KRvK", "--db", db)
    assert result.exit_code == 0, result.output
    assert "ok: 50,015 stored values" in result.stdout
