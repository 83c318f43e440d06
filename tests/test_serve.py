"""``tablebase serve``'s JSON API and pages through Starlette's test client: the same
objects as the CLI's ``--json``, lichess's protocol checked against python-chess's own
Syzygy and Gaviota probes, and errors that are never a 500 for what a user sends."""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

import chess
import chess.gaviota
import chess.syzygy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette", reason="the serve extra is not installed")
from starlette.testclient import TestClient  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from tablebase.build.builder import build  # noqa: E402
from tablebase.core.values import CATEGORIES  # noqa: E402
from tablebase.faces.cli import app as cli  # noqa: E402
from tablebase.faces.web import app as app_module  # noqa: E402
from tablebase.faces.web.app import create_app  # noqa: E402
from tablebase.solve.registry import load_game  # noqa: E402
from tablebase.store import open_store  # noqa: E402
from tablebase.tools.stats import dtz_histogram  # noqa: E402
from tests.serving import free_port  # noqa: E402
from tests.test_chess_oracle import ORACLE, THREE_PIECE, dtz_agrees, four_piece_endings, random_board  # noqa: E402

BUILT = {
    "tictactoe": {},
    "connect4": {"width": "4", "height": "4"},
    "nim": {"heaps": "2", "max": "4"},
}


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    path = tmp_path_factory.mktemp("serve") / "tb.sqlite"
    with open_store(path) as store:
        for name, params in BUILT.items():
            build(load_game(name, params), store)
        build(load_game("chess", {"material": "all3"}), store)
    return str(path)


@pytest.fixture(scope="module")
def client(database):
    with open_store(database, create=False) as store, TestClient(create_app(store)) as client:
        yield client


def test_a_server_answers_its_warm_up_queries_as_it_starts(database, monkeypatch):
    """Starting, the app answers the warm-up positions of each stored game that it
    holds: chess's KvK and KPvK ones (all3 has no KRvKR for the last) and tic-tac-toe's
    start; Connect Four and nim, stored with other parameters than their defaults, are
    passed over."""
    answered = []
    report = app_module._report

    def recorded(tablebase, text):
        answer = report(tablebase, text)
        answered.append((tablebase.game.name, text, answer["outcome"]))
        return answer

    monkeypatch.setattr(app_module, "_report", recorded)
    with open_store(database, create=False) as store, TestClient(create_app(store)) as started:
        warmed = list(answered)
        assert started.get("/api/tictactoe", params={"position": "start"}).json()["outcome"] == warmed[-1][2] == "draw"
    kvk, promotion, capture, _rook_capture = load_game("chess", {}).warm_up_positions()
    assert [(name, text) for name, text, _outcome in warmed] == [("chess", kvk), ("chess", promotion), ("chess", capture), ("tictactoe", "start")]
    assert [outcome for _name, _text, outcome in warmed[:3]] == ["draw", "win", "draw"]


def cli_json(*args: str) -> object:
    result = CliRunner().invoke(cli, [*args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def cli_args(params: dict[str, str]) -> list[str]:
    return [item for name, value in params.items() for item in ("-p", f"{name}={value}")]


@pytest.mark.parametrize(
    ("game", "position"),
    [("tictactoe", "start"), ("tictactoe", "xx./oo./..."), ("connect4", "start"), ("connect4", "2323"), ("nim", "3,1")],
)
def test_api_answers_what_query_and_line_answer(client, database, game, position):
    params = BUILT[game]
    answer = client.get(f"/api/{game}?" + urlencode({**params, "position": position}))
    assert answer.status_code == 200
    assert answer.json() == cli_json("query", game, position, "--json", "--db", database, *cli_args(params))
    line = client.get(f"/api/{game}/line?" + urlencode({**params, "position": position}))
    assert line.json() == cli_json("line", game, position, "--json", "--db", database, *cli_args(params))


def test_api_lists_the_catalog_as_info_does(client, database):
    served = client.get("/api/tablebases").json()
    listed = cli_json("info", "--json", "--db", database)
    assert [row["description"] for row in served] == [row["description"] for row in listed]
    assert [row["positions"] for row in served] == [row["positions"] for row in listed]


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/api/nosuchgame?position=1", 400),
        ("/api/tictactoe?position=xxx/ooo/...", 400),
        ("/api/tictactoe", 400),
        ("/api/tictactoe?m=9&position=start", 404),
        ("/api/tictactoe?m=-1&position=start", 400),
        ("/api/green?file=/etc/passwd&position=1", 400),
        ("/standard?fen=not-a-fen", 400),
        ("/standard", 400),
        ("/standard?fen=8/8/8/8/8/8/1K6/kQ6_b_-_-_0_1", 400),
        ("/standard?fen=4k3/8/8/8/8/8/8/RR2K3_w_-_-_0_1", 404),
        ("/plot/tictactoe.gif", 400),
        ("/play/tictactoe?position=xyz", 400),
        ("/table/connect4?width=5", 404),
    ],
)
def test_errors_are_one_line_with_the_right_status(client, url, status):
    answer = client.get(url)
    assert answer.status_code == status
    if answer.headers["content-type"].startswith("application/json"):
        (message,) = answer.json().values()
        assert message and "\n" not in message and "Traceback" not in message
    else:
        assert 'id="error"' in answer.text


def test_answers_about_positions_carry_cache_headers_and_revalidate(client):
    """A position's answer is cacheable with an ETag hashing its body; a request naming
    that tag gets a bodiless 304; errors, the catalog and pages are ``no-cache``."""
    for url in ("/api/tictactoe?position=start", "/standard?fen=8/8/8/8/8/2k5/8/K6R_w_-_-_0_1", "/plot/tictactoe.svg"):
        answer = client.get(url)
        assert answer.status_code == 200 and answer.headers["cache-control"] == "public, max-age=86400"
        tag = answer.headers["etag"]
        again = client.get(url, headers={"If-None-Match": f'W/"other", {tag}'})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
        assert client.get(url, headers={"If-None-Match": '"other"'}).content == answer.content
    assert client.get("/api/tictactoe?position=xx./oo./...").headers["etag"] != client.get("/api/tictactoe?position=start").headers["etag"]
    for url in ("/standard?fen=bad", "/api/tablebases", "/", "/play/tictactoe", "/api/connect4?position=start"):
        answer = client.get(url)
        assert answer.headers["cache-control"] == "no-cache" and "etag" not in answer.headers, url


def test_a_batch_answers_each_fen_as_its_get_does(client):
    """``POST /standard`` and ``POST /api/GAME``: one answer per item, in order, each the
    object its ``GET`` answers or that answer's error; a bad body is one 400."""
    fens = ["8/8/8/8/8/2k5/8/K6R_b_-_-_0_1", "not-a-fen", "4k3/8/8/8/8/8/8/RR2K3 w - - 0 1", "8/8/8/8/8/2k5/8/K6R w - - 0 1"]
    answers = client.post("/standard", json=fens)
    assert answers.status_code == 200 and len(answers.json()) == len(fens)
    for fen, answer in zip(fens, answers.json()):
        assert answer == client.get("/standard?" + urlencode({"fen": fen})).json(), fen
    assert [set(answer) == {"error"} for answer in answers.json()] == [False, True, True, False]
    positions = ["start", "xx./oo./...", "xxx/ooo/..."]
    reports = client.post("/api/tictactoe", json=positions).json()
    assert reports == [client.get("/api/tictactoe?" + urlencode({"position": p})).json() for p in positions]
    for body in (b"not json", b'{"fens": []}', b'["a", 1]'):
        refused = client.post("/standard", content=body)
        assert refused.status_code == 400 and "JSON array" in refused.json()["error"]
    assert client.post("/standard", json=["x"] * 1001).json() == {"error": "a batch holds at most 1000 FENs, not 1001"}
    assert client.post("/api/nosuchgame", json=["1"]).status_code == 400


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    game=st.sampled_from(["tictactoe", "connect4", "nim", "chess", "kayles", "nosuch"]),
    position=st.text(max_size=40),
    name=st.sampled_from(["m", "width", "heaps", "material", "max", "bogus"]),
    value=st.text(max_size=12),
)
def test_random_input_never_gives_a_server_error(client, game, position, name, value):
    for path in (f"/api/{game}", f"/api/{game}/line", f"/play/{game}", f"/table/{game}"):
        answer = client.get(path + "?" + urlencode({"position": position, name: value}))
        assert answer.status_code in (200, 400, 404), (path, position, name, value, answer.text[:200])
    assert client.get("/standard?" + urlencode({"fen": position})).status_code in (200, 400, 404)


def test_chess_answers_name_the_moves_of_a_dead_draw_and_take_lichess_s_fens(client):
    """KvK has ended yet its kings move: /standard lists every legal move (as python-chess
    knows them), each a draw; lila's ``dtc`` is there (null: no table here stores it);
    /api/chess takes a FEN with underscores as /standard does."""
    fen = "8/8/8/8/8/2k5/8/K7 w - - 0 1"
    answer = client.get("/standard?" + urlencode({"fen": fen.replace(" ", "_")})).json()
    assert {move["uci"] for move in answer["moves"]} == {move.uci() for move in chess.Board(fen).legal_moves}
    assert {move["category"] for move in answer["moves"]} == {"draw"} and answer["insufficient_material"]
    assert answer["dtc"] is None and all("dtc" in move and move["dtc"] is None for move in answer["moves"])
    underscored = client.get("/api/chess?" + urlencode({"position": fen.replace(" ", "_")}))
    assert underscored.status_code == 200 and underscored.json() == client.get("/api/chess?" + urlencode({"position": fen})).json()


def test_an_outdated_tablebase_is_listed_as_outdated_and_its_page_says_so(client, monkeypatch):
    game = load_game("tictactoe", {})
    assert {row["outdated"] for row in client.get("/api/tablebases").json()} == {False}
    monkeypatch.setattr(type(game), "version", game.version + 1)
    [served] = [row for row in client.get("/api/tablebases").json() if row["game"] == "tictactoe"]
    assert served["outdated"] is True
    page = client.get("/table/tictactoe")
    assert page.status_code == 200 and 'id="outdated"' in page.text and "tablebase build tictactoe" in page.text
    assert "outdated" in client.get("/").text
    assert client.get("/api/tictactoe?position=start").status_code == 404  # never served


def test_pages_show_the_position_its_moves_and_statistics(client):
    page = client.get("/play/tictactoe?position=xx./oo./...")
    assert page.status_code == 200
    assert 'class="cell x"' in page.text and "c1" in page.text
    table = client.get("/table/tictactoe")
    assert table.status_code == 200 and 'id="histogram"' in table.text
    image = client.get("/plot/tictactoe.svg")
    assert image.status_code == 200 and image.headers["content-type"] == "image/svg+xml"
    assert client.get("/").status_code == 200


# ---- lichess's protocol against python-chess's probes of the oracle files

SYZYGY_CATEGORIES = {2: {"win"}, 1: {"cursed-win"}, 0: {"draw"}, -1: {"blessed-loss"}, -2: {"loss"}}
"""Syzygy WDL for the side to move, as the lichess category it names."""

@pytest.fixture(scope="module")
def oracle_client(tmp_path_factory):
    if not (ORACLE / "syzygy").is_dir():
        pytest.skip(f"no oracle tablebases at {ORACLE}")
    with open_store(tmp_path_factory.getbasetemp() / "chess4.sqlite") as store:
        for material in [*THREE_PIECE, *four_piece_endings()]:
            build(load_game("chess", {"material": material}), store)
        with TestClient(create_app(store)) as client:
            yield client


@pytest.fixture(scope="module")
def probes():
    if not (ORACLE / "syzygy").is_dir():
        pytest.skip(f"no oracle tablebases at {ORACLE}")
    with chess.syzygy.open_tablebase(str(ORACLE / "syzygy")) as syzygy, chess.gaviota.open_tablebase(
        str(ORACLE / "gaviota")
    ) as gaviota:
        yield syzygy, gaviota


@pytest.mark.parametrize("material", [*THREE_PIECE, *four_piece_endings()])
def test_standard_agrees_with_syzygy_and_gaviota(oracle_client, probes, material):
    syzygy, gaviota = probes
    rng = random.Random(f"serve {material}")
    for _ in range(25):
        board = random_board(material, rng)
        answer = oracle_client.get("/standard?" + urlencode({"fen": board.fen().replace(" ", "_")}))
        assert answer.status_code == 200, answer.text
        served = answer.json()
        assert served["category"] == CATEGORIES[syzygy.probe_wdl(board)], board.fen()
        assert dtz_agrees(syzygy, board, syzygy.probe_wdl(board), served["dtz"]), (board.fen(), served["dtz"])
        assert served["precise_dtz"] == served["dtz"]
        assert served["checkmate"] == board.is_checkmate() and served["stalemate"] == board.is_stalemate()
        if len(board.piece_map()) == 3:
            assert served["dtm"] == gaviota.probe_dtm(board), board.fen()
        for move in served["moves"]:
            played = chess.Move.from_uci(move["uci"])
            assert (move["san"], move["zeroing"]) == (board.san(played), board.is_zeroing(played)), move
            board.push(played)
            expected = 0 if len(board.piece_map()) == 2 else syzygy.probe_wdl(board)
            assert move["category"] == CATEGORIES[expected], (board.fen(), move)
            assert (move["checkmate"], move["stalemate"]) == (board.is_checkmate(), board.is_stalemate()), move
            board.pop()
        assert _best_for_the_mover_first(served["moves"]), board.fen()


def _best_for_the_mover_first(moves: list[dict]) -> bool:
    """Moves into a position lost for the opponent come first, then draws, then wins;
    among moves into losses, the shortest mate first."""
    order = ["loss", "blessed-loss", "draw", "cursed-win", "win"]
    ranks = [order.index(m["category"]) for m in moves]
    mates = [-m["dtm"] for m in moves if m["category"] == "loss"]
    return ranks == sorted(ranks) and mates == sorted(mates)


def test_mainline_plays_to_mate(oracle_client):
    fen = "4k3/8/8/8/8/8/8/4KQ2 w - - 0 1"
    served = oracle_client.get("/standard/mainline?" + urlencode({"fen": fen})).json()
    board = chess.Board(fen)
    for move in served["mainline"]:
        assert move["san"] == board.san(chess.Move.from_uci(move["uci"]))
        board.push_uci(move["uci"])
    assert board.is_checkmate() and served["winner"] == "w"
    assert len(served["mainline"]) == oracle_client.get("/standard?" + urlencode({"fen": fen})).json()["dtm"]


def test_chess_statistics_show_a_dtz_histogram(client, database):
    page = client.get("/table/chess?material=KQvK")
    assert page.status_code == 200 and 'id="dtz-histogram"' in page.text
    image = client.get("/plot/chess.svg?material=KQvK&histogram=dtz")
    assert image.status_code == 200 and b"DTZ (plies)" in image.content
    with open_store(database, create=False) as store:
        game = load_game("chess", {"material": "KQvK"})
        row = store.find(game.name, game.identity(), game.version)
        histogram = dtz_histogram(store, row)
        _keys, outcome, _remoteness = store.read_values(row)
    assert sum(int(c.sum()) for c in histogram.counts.values()) + histogram.unknown["draw"] == len(outcome)
    assert histogram.longest == 20  # KQvK: no zeroing move before mate, so DTZ is DTM (mated in 10: 20 plies)
    assert client.get("/plot/tictactoe.svg?histogram=dtz").status_code == 404


def test_plot_writes_the_histogram_image(database, tmp_path):
    runner = CliRunner()
    for suffix, magic in ((".png", b"\x89PNG"), (".svg", b"<?xml")):
        output = tmp_path / f"ttt{suffix}"
        result = runner.invoke(cli, ["plot", "tictactoe", "-o", str(output), "--db", database])
        assert result.exit_code == 0, result.output
        assert output.read_bytes().startswith(magic)
    refused = runner.invoke(cli, ["plot", "tictactoe", "-o", str(tmp_path / "ttt.gif"), "--db", database])
    assert refused.exit_code == 2 and "must end in .png or .svg" in refused.stderr
    assert not (tmp_path / "ttt.gif").exists()
    missing = runner.invoke(cli, ["plot", "connect4", "-o", str(tmp_path / "c4.png"), "--db", database])
    assert missing.exit_code == 1 and not (tmp_path / "c4.png").exists()


def test_a_port_in_use_is_one_error_line_and_exit_code_1(database):
    """``serve`` on a port another socket holds: one ``error:`` line and exit code 1,
    no banner and no uvicorn log (it printed its banner, then uvicorn's ``ERROR: [Errno
    98]``, and exited 3)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "tablebase", "serve", "--db", database, "--port", str(port)],
            capture_output=True, text=True, timeout=120,
        )
    assert done.returncode == 1
    assert done.stderr == f"error: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    assert done.stdout == ""


def test_workers_answer_and_stop_together(database):
    """``--workers 2``: two processes answer on the one socket, and SIGTERM to the
    server stops them both (none is left behind)."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tablebase", "serve", "--db", database, "--port", str(port), "--workers", "2"],
        stderr=subprocess.PIPE, text=True,
    )
    try:
        assert "with 2 workers" in server.stderr.readline()
        base = f"http://127.0.0.1:{port}"
        for _attempt in range(200):
            try:
                with urllib.request.urlopen(base + "/api/tictactoe?position=start", timeout=5) as answer:
                    assert json.loads(answer.read())["outcome"]
                    break
            except ConnectionError:
                time.sleep(0.1)
        else:
            pytest.fail("no answer")
        children = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout.split()
        assert len(children) >= 2
    finally:
        server.terminate()
        server.wait(timeout=30)
    deadline = time.monotonic() + 10  # the spawn start method's resource tracker exits once it reads its parent's end
    for child in children:
        while _running(child):
            assert time.monotonic() < deadline, f"process {child} of the server is left running"
            time.sleep(0.05)


def _running(pid: str) -> bool:
    """Whether a process exists and is no zombie."""
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


def test_serve_answers_over_a_real_socket(database):
    """The socket bound before uvicorn starts is the one it serves on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "tablebase", "serve", "--db", database, "--port", str(port)],
        stderr=subprocess.PIPE, text=True,
    )
    try:
        assert server.stderr.readline().startswith(f"serving {database} on http://127.0.0.1:{port}/")
        for _attempt in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tablebases", timeout=5) as answer:
                    assert answer.status == 200 and json.loads(answer.read())
                    break
            except ConnectionError:
                time.sleep(0.1)
        else:
            pytest.fail("no answer")
    finally:
        server.terminate()
        server.wait(timeout=30)
