"""Five-piece DTZ against Syzygy's own files: KRBvKR, built with DTM and DTZ (by un-moves,
without a move graph: it has no pawn), has Syzygy's category and DTZ, cursed wins
included, as python-chess probes them in ``$TABLEBASE_ORACLE/syzygy5``.

Building KRBvKR takes minutes, so these tests run on demand::

    TABLEBASE_FIVE_PIECE=1 pytest tests/test_chess_five_dtz.py

``$TABLEBASE_FIVE_SAMPLE`` positions are compared (default 20000; ``all`` compares every
stored one), and ``$TABLEBASE_ORACLE_DB`` keeps the tablebases for a later run.
"""

from __future__ import annotations

import json
import os

import chess
import chess.syzygy
import numpy as np
import pytest
from typer.testing import CliRunner

from tablebase.build import build
from tablebase.cli import app as cli
from tablebase.game import load_game
from tablebase.solve.dtz import categories
from tablebase.store import open_store
from tests.test_chess_oracle import DATABASE, ORACLE, dtz_agrees

SAMPLE = os.environ.get("TABLEBASE_FIVE_SAMPLE", "20000")

pytestmark = [
    pytest.mark.skipif(not (ORACLE / "syzygy5").is_dir(), reason=f"no Syzygy 5-piece oracle at {ORACLE}"),
    pytest.mark.skipif(os.environ.get("TABLEBASE_FIVE_PIECE") != "1", reason="builds KRBvKR: set TABLEBASE_FIVE_PIECE=1"),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The store holding KRBvKR (DTM and DTZ), its game, and its stored keys and categories."""
    game = load_game("chess", {"material": "KRBvKR"})
    path = DATABASE or str(tmp_path_factory.getbasetemp() / "chess5.sqlite")
    with open_store(path) as store:
        build(game, store)
        row = store.find(game.name, game.identity(), game.version)
        keys, outcome, _remoteness = store.read_values(row)
        _extra_keys, dtz, _known = store.read_extra(row)
        yield path, game, keys, categories(outcome, dtz), dtz


@pytest.fixture(scope="module")
def syzygy():
    with chess.syzygy.open_tablebase(str(ORACLE / "syzygy5")) as tables:
        tables.add_directory(str(ORACLE / "syzygy"))
        yield tables


def test_krbvkr_category_and_dtz_match_syzygy(built, syzygy):
    _path, game, keys, category, dtz = built
    chosen = np.arange(len(keys))
    if SAMPLE != "all":
        chosen = np.random.default_rng(5).choice(len(keys), size=min(int(SAMPLE), len(keys)), replace=False)
    wrong = []
    for i in chosen.tolist():
        board = chess.Board(game.format(game.decode(int(keys[i]))))
        if not dtz_agrees(syzygy, board, int(category[i]), int(dtz[i])):
            wrong.append((board.fen(), int(category[i]), int(dtz[i])))
    assert wrong[:5] == [], f"{len(wrong)} of {len(chosen)} positions differ"


def test_query_reports_a_cursed_win_with_its_dtz(built, syzygy):
    """KRBvKR has cursed wins: query --json names them as lichess does, with Syzygy's DTZ."""
    path, game, keys, category, _dtz = built
    cursed = np.flatnonzero(category == 1)
    assert len(cursed) > 0
    fen = game.format(game.decode(int(keys[cursed[len(cursed) // 2]])))
    result = CliRunner().invoke(cli, ["query", "chess", fen, "--db", path, "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    board = chess.Board(fen)
    assert answer["category"] == "cursed-win" and syzygy.probe_wdl(board) == 1, fen
    assert answer["dtz"] > 100 and dtz_agrees(syzygy, board, 1, answer["dtz"]), (fen, answer["dtz"])
