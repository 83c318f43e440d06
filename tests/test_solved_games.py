"""Full builds of the famous solved games against their published results: minutes and
gigabytes each, so only with ``TABLEBASE_FULL_GAMES=1`` (README, "Famous solved games").

- Connect Four 5x5 and 5x6 (J. Tromp, "John's Connect Four Playground",
  tromp.github.io/c4/c4.html): 69,763,700 and 1,044,334,437 positions, each a draw; the
  board fills on ply 25 and 30 under perfect play (C. Steininger's solver,
  github.com/ChristopheSteininger/c4, "Last Move"). 5x6 is built with mirror images
  folded (17 minutes, 10 GiB); its positions before folding are twice those stored less
  those that are their own mirror image.
- Kalah(4,4) and Kalah(6,2): first-player wins by 2 and by 10 (G. Irving, J. Donkers,
  J. Uiterwijk, "Solving Kalah", ICGA Journal 23(3), 2000, Table 9; (6,2) as
  alanzavala1/mancala-rl's scripts/verify_solution.py transcribes the table), each
  built, by default, over every board: Kalah(6,2)'s C(36, 12) = 1,251,677,700.
- Five and Six Men's Morris (B. Liou, "Morris tablebases v1", github.com/brianhliou/
  game-solver, 2025; no flying): 17,844,721 and 42,372,745 positions reachable, each a
  draw (Six Men's Morris a draw also by D. De Clercq).
- Dobutsu shogi (T. Tanaka, "An Analysis of a Board Game "Doubutsu Shogi"", IPSJ SIG
  Technical Report GI-22, 2009, §3.1, §3.2, §4.1, as brianhliou/dobutsu-shogi's
  research/findings.md transcribes them): 246,803,167 positions reachable, of which
  99,485,568 are not terminal (56,474,473 wins, 2,682,700 draws, 40,328,395 losses for
  the side to move); the second player wins in 78 plies, capturing the chick at once
  loses in 76, and the longest win takes 173. Tanaka counts the lion's capture as a
  ply, so each remoteness here is one less.
- Teeko (G. L. Steele Jr., 1998-1999): standard Teeko is a draw; advanced Teeko is a
  first-player win, and a draw when the first drop may not take the centre; the win
  takes 13 plies (E. W. Weisstein, "Teeko", MathWorld: "first-player win (13 turns)").
"""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from tablebase.faces.cli import app
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tablebase.tools.stats import remoteness_histogram

pytestmark = pytest.mark.skipif(
    os.environ.get("TABLEBASE_FULL_GAMES") != "1", reason="full builds of minutes each: set TABLEBASE_FULL_GAMES=1"
)


def solved(tmp_path, game: str, *params: str, force_size: bool = False) -> tuple[dict, dict]:
    """Build ``game`` with ``params`` (``name=value`` each) into a fresh database: its
    ``info`` row and the ``query`` report of its start position. ``force_size`` builds
    past the size guard (whose estimate of Connect Four overshoots its positions)."""
    args = [arg for param in params for arg in ("-p", param)] + ["--db", str(tmp_path / "tb.sqlite")]
    result = CliRunner().invoke(app, ["build", game, *args, *(["--force-size"] if force_size else [])])
    assert result.exit_code == 0, result.output
    info = json.loads(CliRunner().invoke(app, ["info", game, *args, "--json"]).stdout)[0]
    return info, json.loads(CliRunner().invoke(app, ["query", game, "start", *args, "--json"]).stdout)


def test_connect_four_5x5(tmp_path):
    info, start = solved(tmp_path, "connect4", "width=5", "height=5", "symmetry=off")
    assert info["positions"] == 69_763_700
    assert (start["outcome"], start["remoteness"]) == ("draw", 25)


def test_connect_four_5x6(tmp_path):
    info, start = solved(tmp_path, "connect4", "width=5", "height=6", force_size=True)
    game = load_game("connect4", {"width": "5", "height": "6"})
    with open_store(tmp_path / "tb.sqlite") as store:
        row = store.find(game.name, game.identity(), game.version)
        own_mirror = sum(int((game.mirror_keys(part[0]) == part[0]).sum()) for part in store.read_parts(row))
    assert 2 * info["positions"] - own_mirror == 1_044_334_437
    assert (start["outcome"], start["remoteness"]) == ("draw", 30)


def test_kalah_4_4(tmp_path):
    _info, start = solved(tmp_path, "kalah", "pits=4", "seeds=4")
    assert start["score"] == 2


def test_kalah_6_2(tmp_path):
    info, start = solved(tmp_path, "kalah", "pits=6", "seeds=2")
    assert info["positions"] == 1_251_677_700
    assert start["score"] == 10


@pytest.mark.parametrize(
    ("params", "outcome"),
    [
        (("variant=standard",), ("draw", None)),
        (("variant=advanced",), ("win", 13)),
        (("variant=advanced", "centre_opening=off"), ("draw", None)),
    ],
)
def test_teeko(tmp_path, params, outcome):
    _info, start = solved(tmp_path, "teeko", *params)
    assert (start["outcome"], start.get("remoteness")) == outcome


@pytest.mark.parametrize(("men", "positions"), [("5", 17_844_721), ("6", 42_372_745)])
def test_morris(tmp_path, men, positions):
    info, start = solved(tmp_path, "morris", f"men={men}", "symmetry=off")
    assert info["positions"] == positions
    assert start["outcome"] == "draw"


def test_dobutsu_shogi(tmp_path):
    info, start = solved(tmp_path, "dobutsu")
    assert info["positions"] == 246_803_167
    assert (info["wins"], info["draws"], info["losses"]) == (196_773_087, 2_682_700, 47_347_380)
    assert (start["outcome"], start["remoteness"]) == ("loss", 78 - 1)
    assert {m["move"]: m["remoteness"] for m in start["moves"]}["b2xb3"] == 76 - 2  # the child's, a ply nearer
    game = load_game("dobutsu", {})
    with open_store(tmp_path / "tb.sqlite") as store:
        histogram = remoteness_histogram(store, store.find(game.name, game.identity(), game.version))
    assert histogram.unknown["draw"] == 2_682_700
    assert [int(histogram.counts[o][1:].sum()) for o in ("win", "loss")] == [56_474_473, 40_328_395]
    assert histogram.longest == 173 - 1
