"""Five-piece endings against Syzygy's own files: each 5-piece ending of
``$TABLEBASE_ORACLE/syzygy5`` (KRBvKR, KQQvKQ, KBBvKN, KRPvKR), built with the default
metric (DTM and DTZ, by un-moves without a move graph), has Syzygy's WDL, category and
DTZ (cursed wins included, DTZ within the files' rounding) on random stored positions, as
python-chess probes them.

Building them takes minutes and GiB, so these tests run on demand::

    TABLEBASE_FIVE_PIECE=1 pytest tests/test_chess_five_dtz.py

``$TABLEBASE_FIVE_SAMPLE`` positions are compared per ending (default 100000; ``all``
compares every stored one), and ``$TABLEBASE_ORACLE_DB`` keeps the tablebases for a
later run (KRPvKR needs its four 5-piece promotion endings too).
"""

from __future__ import annotations

import json
import os

import chess
import chess.syzygy
import numpy as np
import pytest
from typer.testing import CliRunner

from tablebase.build.builder import build
from tablebase.faces.cli import app as cli
from tablebase.solve.dtz import categories
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tests.test_chess_oracle import DATABASE, ORACLE, dtz_agrees

SAMPLE = os.environ.get("TABLEBASE_FIVE_SAMPLE", "100000")
ENDINGS = ["KRBvKR", "KQQvKQ", "KBBvKN", "KRPvKR"]

pytestmark = [
    pytest.mark.skipif(not (ORACLE / "syzygy5").is_dir(), reason=f"no Syzygy 5-piece oracle at {ORACLE}"),
    pytest.mark.skipif(os.environ.get("TABLEBASE_FIVE_PIECE") != "1", reason="builds 5-piece endings: set TABLEBASE_FIVE_PIECE=1"),
]


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    """Where the endings are built (kept for a later run with ``$TABLEBASE_ORACLE_DB``)."""
    return DATABASE or str(tmp_path_factory.getbasetemp() / "chess5.sqlite")


def built(database: str, material: str, sample: str = SAMPLE):
    """``(game, keys, categories, dtz)`` of ``sample`` random positions (or ``all``) of
    ``material`` built (or reused) in ``database``: their keys, categories (-2..2) and
    DTZ (plies), read a stored chunk at a time (KRPvKR whole would take 12 GiB)."""
    game = load_game("chess", {"material": material})
    with open_store(database) as store:
        build(game, store)
        row = store.find(game.name, game.identity(), game.version)
        count = row.positions if sample == "all" else min(int(sample), row.positions)
        chosen = np.sort(np.random.default_rng(5).choice(row.positions, size=count, replace=False))
        kept, seen = [], 0
        for keys, outcome, _remoteness, dtz in store.read_parts(row, extra=True):
            here = chosen[(chosen >= seen) & (chosen < seen + len(keys))] - seen
            kept.append((keys[here], categories(outcome[here], dtz[here]), dtz[here]))
            seen += len(keys)
    keys, category, dtz = (np.concatenate(column) for column in zip(*kept))
    return game, keys, category, dtz


@pytest.fixture(scope="module")
def syzygy():
    with chess.syzygy.open_tablebase(str(ORACLE / "syzygy5")) as tables:
        tables.add_directory(str(ORACLE / "syzygy"))
        yield tables


@pytest.mark.parametrize("material", ENDINGS)
def test_category_and_dtz_match_syzygy(database, syzygy, material):
    """``$TABLEBASE_FIVE_SAMPLE`` positions agree with the Syzygy files. python-chess
    probes a position with a promotion through the table it leads to, which the oracle
    lacks for KRPvKR (KQRvKR...): such positions are drawn over and not counted, one
    sampled in every eight or so; the whole-table statistics cover them."""
    wanted = None if SAMPLE == "all" else int(SAMPLE)
    game, keys, category, dtz = built(database, material, SAMPLE if wanted is None else str(wanted + wanted // 2))
    wrong, checked = [], 0
    for i in np.random.default_rng(6).permutation(len(keys)).tolist():  # not in key order
        if checked == wanted:
            break
        board = chess.Board(game.format(game.decode(int(keys[i]))))
        try:
            agrees = dtz_agrees(syzygy, board, int(category[i]), int(dtz[i]))
        except chess.syzygy.MissingTableError:
            continue
        checked += 1
        if not agrees:
            wrong.append((board.fen(), int(category[i]), int(dtz[i])))
    assert checked >= (wanted or len(keys) * 7 // 8)
    assert wrong[:5] == [], f"{len(wrong)} of {checked} positions differ"


def test_query_reports_a_cursed_win_with_its_dtz(database, syzygy):
    """KRBvKR has cursed wins: query --json names them as lichess does, with Syzygy's DTZ."""
    game, keys, category, _dtz = built(database, "KRBvKR", "1000000")
    cursed = np.flatnonzero(category == 1)
    assert len(cursed) > 0
    fen = game.format(game.decode(int(keys[cursed[len(cursed) // 2]])))
    result = CliRunner().invoke(cli, ["query", "chess", fen, "--db", database, "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    board = chess.Board(fen)
    assert answer["category"] == "cursed-win" and syzygy.probe_wdl(board) == 1, fen
    assert answer["dtz"] > 100 and dtz_agrees(syzygy, board, 1, answer["dtz"]), (fen, answer["dtz"])
