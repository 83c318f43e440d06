"""``--dtm-sides one``: black to move's DTM left out of the chess endings of unlike sides
and valued from its moves when read. Every read must give what the two-sided tablebases,
as the retrograde pass stored them, give."""

from __future__ import annotations

import json
import sqlite3

import chess
import numpy as np
import pytest
from typer.testing import CliRunner

import tablebase
from tablebase.core.values import TO_DERIVE, StoredKind
from tablebase.faces.cli import app
from tablebase.read.filled import probe_array, probe_both, read_parts, read_values
from tablebase.solve.registry import load_game
from tablebase.store import KeyShape, Storing, open_store
from tablebase.store.schema import ONE_SIDED, ONE_SIDED_XZ, SIDED

KPVK = ["chess", "-p", "material=KPvK"]
"""An ending with promotions into endings that leave their DTM out too (KQvK, KRvK...) and
captures into one that stores both sides (KvK, whose sides are alike)."""


def run(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def dbs(tmp_path_factory):
    """``(both, one)``: KPvK and its dependencies built with both sides' DTM and with one."""
    folder = tmp_path_factory.mktemp("one_sided")
    both, one = folder / "both.sqlite", folder / "one.sqlite"
    assert run("build", *KPVK, "--db", str(both), "--dtm-sides", "both").exit_code == 0
    result = run("build", *KPVK, "--db", str(one), "--dtm-sides", "one")
    assert result.exit_code == 0, result.output
    return both, one


def rows_by_name(store) -> dict[str, object]:
    return {row.description: row for row in store.catalog()}


def test_endings_of_unlike_sides_leave_black_to_moves_dtm_out_in_one_blob_a_block(dbs):
    both, one = dbs
    with open_store(one, create=False) as store:
        formats = {name: row.format_version for name, row in rows_by_name(store).items()}
        kpvk = rows_by_name(store)["chess material=KPvK metric=both"]
    assert formats.pop("chess material=KvK metric=both") == SIDED  # alike sides: a move may keep the side bit
    listed = {entry["description"]: entry["dtm_left_out"] for entry in json.loads(run("info", "--db", str(one), "--json").output)}
    assert listed.pop("chess material=KvK metric=both") is False and set(listed.values()) == {True}
    assert set(formats.values()) == {ONE_SIDED}
    with open_store(both, create=False) as store:
        assert {row.format_version for row in store.catalog()} == {SIDED}
        kpvk_both = rows_by_name(store)["chess material=KPvK metric=both"]

    def blob_bytes(db, row) -> tuple[int, int, int]:
        query = f"SELECT sum(length(codes) + coalesce(length(extra), 0)), sum(block % 2 = 1 AND extra IS NULL), sum(block % 2) FROM {row.table_name}"
        with sqlite3.connect(db) as connection:
            return connection.execute(query).fetchone()

    size_one, odd_without_extra, odd = blob_bytes(one, kpvk)
    size_both, odd_without_extra_both, _odd = blob_bytes(both, kpvk_both)
    assert odd_without_extra == odd > 0 and odd_without_extra_both == 0
    assert size_one < 0.8 * size_both


def test_every_read_of_the_store_gives_the_two_sided_values(dbs):
    """Whole reads, array probes over every key (unstored ones too) and point probes,
    through the read layer (:mod:`tablebase.read.filled`); the store's own point probes
    give the stored values, a left-out remoteness marked."""
    both, one = dbs
    rng = np.random.default_rng(5)
    with open_store(both, create=False) as expected, open_store(one, create=False) as got:
        wanted, held = rows_by_name(expected), rows_by_name(got)
        assert wanted.keys() == held.keys()
        for name, row in wanted.items():
            mine = held[name]
            for truth, read in zip([*expected.read_values(row), *expected.read_extra(row)], [*read_values(got, mine), *got.read_extra(mine)], strict=True):
                np.testing.assert_array_equal(read, truth)
            whole = [np.concatenate(column) for column in zip(*read_parts(got, mine, extra=True, known=True))]
            for truth, read in zip([*expected.read_values(row), *expected.read_extra(row)[1:]], whole, strict=True):
                np.testing.assert_array_equal(read, truth)
            keys = np.arange(load_game("chess", json.loads(row.params)).size, dtype=np.int64)
            for truth, read in zip(expected.probe_array(row, keys), probe_array(got, mine, keys), strict=True):
                np.testing.assert_array_equal(read, truth)
            some = rng.choice(keys, 2000).tolist()
            assert probe_both(got, mine, some) == expected.probe_both(row, some)
            stored, truth = got.probe(mine, some), expected.probe(row, some)
            marked = {key for key, (_outcome, remoteness) in stored.items() if remoteness == TO_DERIVE}
            assert stored.keys() == truth.keys() and (not mine.dtm_left_out or marked)
            assert all(stored[key] == truth[key] for key in stored.keys() - marked)
            assert all(stored[key][0] == truth[key][0] and key % 2 == 1 for key in marked)


def kpvk_boards(count: int, seed: int) -> list[chess.Board]:
    """Random legal KPvK boards, either side to move."""
    rng = np.random.default_rng(seed)
    boards: list[chess.Board] = []
    while len(boards) < count:
        white_king, black_king, pawn = rng.choice(64, 3, replace=False).tolist()
        board = chess.Board(None)
        board.set_piece_at(white_king, chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(black_king, chess.Piece(chess.KING, chess.BLACK))
        if not 8 <= pawn < 56:
            continue
        board.set_piece_at(pawn, chess.Piece(chess.PAWN, bool(rng.integers(2))))
        board.turn = bool(rng.integers(2))
        if board.is_valid():
            boards.append(board)
    return boards


def test_probes_and_ranked_moves_are_the_two_sided_ones(dbs):
    """The Python API's probes, one board and many, and ``query``'s ranked moves (a
    white-to-move position's successors all have their DTM derived)."""
    both, one = dbs
    boards = kpvk_boards(300, 11)
    with tablebase.open(both) as expected, tablebase.open(one) as got:
        for probe in ("probe_wdl", "probe_dtz", "probe_dtm"):
            assert [getattr(got, probe)(board) for board in boards] == [getattr(expected, probe)(board) for board in boards]
        np.testing.assert_array_equal(got.probe_dtm_many(boards), expected.probe_dtm_many(boards))
    for board in boards[:40]:
        answers = [run("query", "chess", board.fen(), "--db", str(db), "--json") for db in (both, one)]
        assert answers[0].exit_code == 0 and answers[1].output == answers[0].output


def test_repack_gives_both_sides_back_and_leaves_one_out_again(dbs, tmp_path):
    both, one = dbs
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(one.read_bytes())
    result = run("db", "repack", "--db", str(copy))
    assert result.exit_code == 0 and "DTM left out" not in result.output
    with open_store(copy, create=False) as store, open_store(both, create=False) as expected:
        assert {row.format_version for row in store.catalog()} == {SIDED}
        for name, row in rows_by_name(expected).items():
            np.testing.assert_array_equal(read_values(store, rows_by_name(store)[name])[2], expected.read_values(row)[2])
    for codec, version in (("zstd", ONE_SIDED), ("xz", ONE_SIDED_XZ)):
        result = run("db", "repack", "--db", str(copy), "--dtm-sides", "one", "--codec", codec)
        assert result.exit_code == 0
        assert f"repacked chess material=KPvK metric=both (sided, {codec}, black to move's DTM left out)" in result.output
        with open_store(copy, create=False) as store, open_store(both, create=False) as expected:
            assert [row.format_version for row in store.catalog()].count(version) == len(store.catalog()) - 1  # not KvK
            kpvk = rows_by_name(store)["chess material=KPvK metric=both"]
            truth = expected.read_values(rows_by_name(expected)["chess material=KPvK metric=both"])
            for read, wanted in zip(read_values(store, kpvk), truth, strict=True):
                np.testing.assert_array_equal(read, wanted)


def test_verify_passes_on_the_one_sided_tablebases(dbs):
    result = run("verify", *KPVK, "--db", str(dbs[1]))
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    "material, left_out",
    [("KRPvKR", True), ("KPPvKR", True), ("KPPPvK", True), ("KPvK", False), ("KPPvK", False), ("KQvKP", False), ("KRPvKP", False), ("KRBvKR", False)],
)
def test_by_default_five_piece_endings_where_white_alone_has_pawns_leave_a_side_out(material, left_out):
    assert load_game("chess", {"material": material}).dtm_left_out_by_default is left_out


@pytest.mark.parametrize(
    "dtm_sides, left_out_by_default, format_version",
    [("auto", True, ONE_SIDED), ("auto", False, SIDED), ("one", False, ONE_SIDED), ("both", True, SIDED)],
)
def test_a_store_leaves_a_side_out_as_its_dtm_sides_and_the_game_say(tmp_path, dtm_sides, left_out_by_default, format_version):
    with open_store(tmp_path / "tb.sqlite", storing=Storing(dtm_sides=dtm_sides)) as store:
        row = store.begin_build("chess", "{}", "an ending", StoredKind.DTZ, shape=KeyShape(True, True, True, left_out_by_default))
        assert row.format_version == format_version
        store.abandon(row)


def test_an_unknown_dtm_sides_is_one_line_and_builds_nothing(tmp_path):
    result = run("build", *KPVK, "--db", str(tmp_path / "x.sqlite"), "--dtm-sides", "three")
    assert result.exit_code != 0
    assert "unknown DTM sides 'three'" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "x.sqlite").exists()


def test_a_reader_of_outcomes_alone_gets_them_without_the_search(dbs):
    """The store's ``read_parts``: outcomes and DTZ as stored, a left-out remoteness
    marked, not valued (``test_syzygy_stats`` reads KRPvKR so)."""
    both, one = dbs
    with open_store(both, create=False) as expected, open_store(one, create=False) as got:
        row = rows_by_name(expected)["chess material=KPvK metric=both"]
        mine = rows_by_name(got)["chess material=KPvK metric=both"]
        truth = [np.concatenate(column) for column in zip(*expected.read_parts(row, extra=True))]
        read = [np.concatenate(column) for column in zip(*got.read_parts(mine, extra=True))]
    for column in (0, 1, 3):
        np.testing.assert_array_equal(read[column], truth[column])
    marked = read[2] == TO_DERIVE
    assert (truth[0][marked] % 2 == 1).all() and marked.sum() > 0.9 * (truth[0] % 2 == 1).sum()
    np.testing.assert_array_equal(read[2][~marked], truth[2][~marked])
