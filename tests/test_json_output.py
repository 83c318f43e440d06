"""Every command's ``--json`` against its schema in :mod:`json_schemas`, on games of
every solver mode, and README's JSON section naming exactly the schemas' fields."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from tablebase.faces.cli import app
from tests.json_schemas import SCHEMAS

DATA = Path(__file__).parent / "data"
README = Path(__file__).parent.parent / "README.md"
GREEN = DATA / "green_poi.txt"

# (build parameters, positions to query): one game per solver mode and kind of position
GAMES = {
    "tictactoe": ([], ["start", "xx./oo./..."]),
    "nim": (["-p", "heaps=1", "-p", "max=9"], ["5", "3+5+6", "0+0"]),
    "kayles": (["-p", "max=12"], ["5+7", "0"]),
    "piles": (["-p", "a=3,1,4", "-p", "b=1,5,9"], ["start", "0,0"]),
    "kalah": (["-p", "pits=3", "-p", "seeds=2"], ["start", "4,0,0/0,0,0"]),
    "morris": (["-p", "men=3"], ["start", "xx..ooo./........ 0 0 x"]),
    "dobutsu": (["-p", "start=l../.../.../.L. Cc"], ["start", ".l./.C./.../..L c"]),
    "chess": (["-p", "material=KQvK"], ["8/8/8/8/8/2k5/8/K2Q4 b - - 0 1", "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1"]),
}


def json_of(*args: object, code: int = 0, lines: bool = False) -> list:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == code, result.output
    documents = [json.loads(text) for text in result.stdout.splitlines()]
    return documents if lines else (documents[0] if len(documents) == 1 else pytest.fail(result.stdout))


def valid(command: str, document: object) -> None:
    jsonschema.validate(document, SCHEMAS[command])


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("json") / "tb.sqlite"
    for game, (params, _positions) in GAMES.items():
        for document in json_of("build", game, *params, "--db", path, "--json", lines=True):
            valid("build", document)
    return path


@pytest.mark.parametrize("game", GAMES)
def test_query_line_and_batch_json_follow_their_schemas(db, game):
    params, positions = GAMES[game]
    for position in positions:
        valid("query", json_of("query", game, position, *params, "--db", db, "--json"))
        valid("line", json_of("line", game, position, *params, "--db", db, "--json", "--max-plies", 5))
    result = CliRunner().invoke(app, ["query", game, "-", *params, "--db", str(db)], input="\n".join([*positions, "?!"]))
    assert result.exit_code == 2
    documents = [json.loads(text) for text in result.stdout.splitlines()]
    assert len(documents) == len(positions) + 1 and "error" in documents[-1]
    for document in documents:
        valid("query -", document)


def test_info_verify_check_and_build_json_follow_their_schemas(db, tmp_path):
    rows = json_of("info", "--db", db, "--json")
    assert len(rows) == len(GAMES) + 1  # chess KQvK and KvK
    valid("info", rows)
    for game, (params, _positions) in GAMES.items():
        report = json_of("verify", game, *params, "--db", db, "--json")
        valid("verify", report)
        assert report["mismatches"] == 0 and report["shown"] == [] and report["checked"] > 0
        valid("check", json_of("check", game, *params, "--positions", 20, "--json"))
    [again] = json_of("build", "nim", *GAMES["nim"][0], "--db", db, "--json", lines=True)
    assert again["reused"] is True


def test_summary_values_are_numbers(tmp_path):
    green = tmp_path / "gra.in"
    green.write_text("2 2\n1 1 3\n0 1 4\n0 1 1\n1 1 2\n")
    db = tmp_path / "tb.sqlite"
    json_of("build", "green", "-p", f"file={green}", "--db", db, "--json", lines=True)
    [row] = json_of("info", "green", "-p", f"file={green}", "--db", db, "--json")
    valid("info", [row])
    assert row["summary"] and all(isinstance(number, int) for number in row["summary"])
    assert row["summary"][0] == len(row["summary"]) - 1  # the count, then the fields


def test_one_name_for_the_chess_mate_count_whoever_wins(db):
    """``mate_in`` counts the winning side's moves to mate, for a win and for a loss."""
    lost = json_of("query", "chess", "8/8/8/8/8/2k5/8/K2Q4 b - - 0 1", "--db", db, "--json")
    assert (lost["outcome"], lost["remoteness"], lost["mate_in"]) == ("loss", 12, 6)
    for move in lost["moves"]:
        assert move["outcome"] == "win" and move["mate_in"] == (move["remoteness"] + 1) // 2
    assert not any("mated_in" in m for m in [lost, *lost["moves"]])


def test_a_nim_sum_has_the_fields_of_a_kayles_sum(db):
    nim = json_of("query", "nim", "3+5+6", *GAMES["nim"][0], "--db", db, "--json")
    kayles = json_of("query", "kayles", "5+7", *GAMES["kayles"][0], "--db", db, "--json")
    assert set(nim) == set(kayles) == {"position", "outcome", "remoteness", "grundy", "moves", "best"}
    assert {frozenset(m) for m in nim["moves"]} == {frozenset(m) for m in kayles["moves"]}


def _fields(schema: object) -> set[str]:
    """Every property name anywhere in a schema."""
    if isinstance(schema, dict):
        names = set(schema.get("properties", {})) if isinstance(schema.get("properties"), dict) else set()
        return names | {name for value in schema.values() for name in _fields(value)}
    if isinstance(schema, list):
        return {name for value in schema for name in _fields(value)}
    return set()


def test_readme_documents_exactly_the_schemas_fields():
    section = README.read_text(encoding="utf-8").split("## JSON output", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"`([a-z_]+)`", section))
    assert _fields(list(SCHEMAS.values())) <= documented
    commands = {"query", "line", "info", "build", "verify", "check"}
    assert {name.split()[0] for name in SCHEMAS} == commands
