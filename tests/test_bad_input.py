"""Bad input, fuzzed: random text at every game's parser and parameters, damaged database
files, an unwritable directory and a full disk all end in a clean one-line error."""

from __future__ import annotations

import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablebase.core.errors import ParameterError, PositionError
from tablebase.solve.registry import game_class, load_game

DATA = Path(__file__).parent / "data"
GAMES = {
    "subtraction": {},
    "nim": {},
    "tictactoe": {},
    "connect4": {"width": "4", "height": "4"},
    "kayles": {"max": "20"},
    "octal": {"max": "20"},
    "cutting": {"max": "10"},
    "piles": {},
    "kalah": {"pits": "3", "seeds": "2"},
    "teeko": {},
    "morris": {},
    "dobutsu": {},
    "cops": {"map": str(DATA / "cops_ring.txt")},
    "graph": {"file": str(DATA / "graph_example.txt")},
    "chess": {"material": "KQvK"},
}
TEXT = st.text(st.characters(codec="utf-8"), max_size=40) | st.sampled_from(
    ["", "0", "-1", "1e9", "99999999999999999999", "+", "1+", "x" * 500, "KQvK", "a,b", "2x2+"]
)


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_random_positions_parse_or_raise_a_position_error(name, text):
    game = load_game(name, GAMES[name])
    try:
        position = game.parse(text)
    except PositionError:
        return
    assert game.parse(game.format(position)) == position


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=60, deadline=None)
@given(text=TEXT)
def test_random_parameters_load_or_raise_a_parameter_error(name, text):
    for parameter in game_class(name).parameters:
        if parameter.kind == "file":
            continue
        try:
            game = load_game(name, {**GAMES[name], parameter.name: text})
        except ParameterError:
            continue
        # a value taken is shown as a user would type it, and that text means the same value
        shown = parameter.show(game.params[parameter.name])
        assert load_game(name, {**GAMES[name], parameter.name: shown}).identity() == game.identity()


def cli(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablebase", *args], capture_output=True, text=True, timeout=120, **kwargs)


def one_line_error(result: subprocess.CompletedProcess, code: int = 1) -> str:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    return lines[0]


@pytest.mark.parametrize("damage", ["truncate", "garbage header", "empty"])
def test_a_damaged_database_file_is_a_clean_error(tmp_path, damage):
    db = tmp_path / "tb.sqlite"
    assert cli("build", "tictactoe", "--db", str(db)).returncode == 0
    data = db.read_bytes()
    db.write_bytes({"truncate": data[: len(data) // 3], "garbage header": b"\x00" * 100 + data[100:], "empty": b""}[damage])
    for wal in tmp_path.glob("tb.sqlite-*"):
        wal.unlink()
    if damage == "empty":  # an empty file is a new, empty database
        assert cli("info", "--db", str(db)).returncode == 0
        return
    _every_read_is_one_line_error(db, ["tictactoe"], "start", also=(["info"], ["build", "tictactoe"]))


def _every_read_is_one_line_error(db: Path, game: list[str], position: str, also: tuple[list[str], ...] = ()) -> None:
    """Each command that reads the game's stored values (and the commands ``also``) fails
    on the damaged ``db`` with one ``error:`` line and writes no file."""
    out = str(db.parent / "out")
    for args in (
        *also,
        ["query", game[0], position, *game[1:]],
        ["verify", *game],
        ["export", *game],
        ["export", *game, "-o", f"{out}.csv"],
        ["export", *game, "--format", "parquet", "-o", f"{out}.parquet"],
        ["plot", *game, "-o", f"{out}.png"],
        ["line", game[0], position, *game[1:]],
    ):
        one_line_error(cli(*args, "--db", str(db)))
    assert not list(db.parent.glob("out*"))


def test_damaged_pages_inside_a_database_are_a_clean_error(tmp_path):
    """Pages of stored chunks overwritten, the schema intact: SQLite reports the image
    malformed only when values are read, by a raw cursor (issue 23: 65-line tracebacks
    in verify, export and plot)."""
    db = tmp_path / "tb.sqlite"
    game = ["chess", "-p", "material=KQvK"]
    assert cli("build", *game, "--db", str(db)).returncode == 0
    data = bytearray(db.read_bytes())
    data[len(data) // 3 : len(data) // 2] = b"Z" * (len(data) // 2 - len(data) // 3)
    db.write_bytes(bytes(data))
    _every_read_is_one_line_error(db, game, "8/8/8/8/8/8/1Q6/1K1k4 w - - 0 1")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["line", "tictactoe", "start", "--metric", "dtz"], "error: tictactoe has no DTZ (a chess notion): use --metric dtm"),
        (["line", "chess", "8/8/8/8/8/8/1Q6/K1k5 w - - 0 1", "--metric", "foo"], "error: bad metric 'foo': expected one of dtm, dtz"),
        (["query", "tictactoee", "start"], "did you mean 'tictactoe'?"),
        (["build", "conect4"], "did you mean 'connect4'?"),
        (["build", "subtraction", "-p", "mx=4"], "unknown parameter 'mx' (known: moves, max); did you mean 'max'?"),
        (["info", "chess", "-p", "metrc=dtm"], "did you mean 'metric'?"),
        (["build", "chess", "-p", "metric=bth"], "expected one of both, dtm, dtz; did you mean 'both'?"),
        (["line", "chess", "8/8/8/8/8/8/1Q6/K1k5 w - - 0 1", "--metric", "dzt"], "did you mean 'dtz'?"),
    ],
)
def test_hints_name_what_the_game_has_and_the_first_mistake(tmp_path, args, message):
    """A hint never names a parameter the game lacks (tic-tac-toe has no metric), a bad
    option or parameter is reported before a missing database, and a mistyped game,
    parameter or value gets a "did you mean" as commands do."""
    db = tmp_path / "tb.sqlite"
    if args[1] == "tictactoe" and "dtz" in args:
        assert cli("build", "tictactoe", "--db", str(db)).returncode == 0
    result = cli(*args, "--db", str(db) if db.exists() else str(tmp_path / "missing.sqlite"))
    assert message in one_line_error(result, code=2)


def test_a_database_in_a_missing_directory_is_named_as_such(tmp_path):
    """It said "not a usable tablebase database: unable to open database file"."""
    db = tmp_path / "nowhere" / "tb.sqlite"
    assert one_line_error(cli("build", "tictactoe", "--db", str(db))) == f"error: cannot create {db}: no directory {db.parent}"
    assert not db.parent.exists()


def _small_disk() -> None:
    """In the child: files may not grow past 400 KiB, and writing past it is an error
    (EFBIG), not a fatal signal: a full disk as SQLite sees one."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (400 * 1024, 400 * 1024))


def test_a_full_disk_fails_the_build_cleanly_and_keeps_what_was_stored(tmp_path):
    db = tmp_path / "tb.sqlite"
    assert cli("build", "subtraction", "--db", str(db)).returncode == 0
    before = cli("query", "subtraction", "17", "--db", str(db), "--json").stdout
    result = cli("build", "tictactoe", "-p", "m=4", "-p", "n=4", "-p", "k=4", "--db", str(db), preexec_fn=_small_disk)
    message = one_line_error(result)
    assert "full" in message or "large" in message
    assert cli("query", "subtraction", "17", "--db", str(db), "--json").stdout == before
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    retry = cli("build", "tictactoe", "-p", "m=4", "-p", "n=4", "-p", "k=4", "--db", str(db))
    assert retry.returncode == 0, retry.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["build", "nosuchgame", "--db", "DB"],
        ["build", "tictactoe", "-p", "m=x", "--db", "DB"],
        ["build", "tictactoe", "-p", "nosuch=1", "--db", "DB"],
        ["check", "tictactoe", "--positions", "0"],
        ["export", "tictactoe", "--format", "xml", "--db", "DB"],
        ["build", "tictactoe", "--workers", "0", "--db", "DB"],
        ["build", "tictactoe", "--layout", "columns", "--db", "DB"],
    ],
)
def test_bad_command_lines_are_usage_errors(tmp_path, args):
    result = cli(*(str(tmp_path / "tb.sqlite") if a == "DB" else a for a in args))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "No such option" not in result.stderr


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg://user:secret@127.0.0.1:1/db",  # nothing listens on port 1
        "postgresql://user:secret@nosuchhost.invalid/db",  # a host that does not resolve
        "nosuchdialect://user:secret@host/db",
        "postgresql+psycopg://user:secret@host:notaport/db",  # SQLAlchemy cannot parse it
    ],
)
def test_a_database_password_never_appears_in_a_message(url):
    for args in (["info"], ["query", "tictactoe", "start"], ["build", "tictactoe"], ["db", "current"]):
        message = one_line_error(cli(*args, "--db", url))
        assert "secret" not in message and "user:***@" in message


def test_db_current_refuses_a_newer_or_foreign_database_instead_of_advising_an_upgrade(tmp_path):
    newer = tmp_path / "newer.sqlite"
    assert cli("build", "subtraction", "--db", str(newer)).returncode == 0
    with sqlite3.connect(newer) as connection:
        connection.execute("UPDATE alembic_version SET version_num = 'ffff'")
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as connection:
        connection.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    for db, reason in ((newer, "unknown to this version of tablebase"), (foreign, "not a tablebase database")):
        for command in ("current", "upgrade"):
            message = one_line_error(cli("db", command, "--db", str(db)))
            assert reason in message and "upgrade is available" not in message
