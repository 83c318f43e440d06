"""``tablebase db repack``: tablebases stored again in another layout hold the same
values, the old copies go, and a repack that fails loses nothing; ``build --codec``
writes another codec from the start."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tablebase.core.errors import StoreError
from tablebase.faces.cli import app
from tablebase.store import Store, engine, open_store, writing
from tablebase.store.schema import BLOCKS_XZ, SIDED, SIDED_DRAWS_STORED, SIDED_XZ

CHESS = ["chess", "-p", "material=KQvK"]


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def table_names(db) -> set[str]:
    with sqlite3.connect(db) as connection:
        return {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def everything(db) -> dict[str, list[np.ndarray]]:
    """Every complete tablebase's values and extra values, by description."""
    with open_store(db, create=False) as store:
        return {
            row.description: [*store.read_values(row), *(store.read_extra(row) if row.value_kind != "wdl" else ())]
            for row in store.catalog()
        }


def assert_holds(db, wanted: dict[str, list[np.ndarray]]) -> None:
    """``db`` holds what ``wanted`` (:func:`everything` of another moment or database)
    says: the same tablebases, every value alike."""
    held = everything(db)
    assert held.keys() == wanted.keys()
    for name, arrays in wanted.items():
        for got, expected in zip(held[name], arrays, strict=True):
            np.testing.assert_array_equal(got, expected)


@pytest.fixture
def packed_db(tmp_path):
    db = tmp_path / "tb.sqlite"
    for game in (CHESS, ["tictactoe"], ["kayles", "-p", "max=12"]):
        assert run("build", *game, "--layout", "packed", "--db", str(db)).exit_code == 0
    return db


def test_repack_stores_the_same_values_in_blocks_and_drops_the_old_tables(packed_db):
    """``auto``: chess sided (its keys alternate sides to move), Kayles in blocks; then
    ``blocks`` for all, chess's sided blocks read back into plain ones."""
    before, size = everything(packed_db), packed_db.stat().st_size
    done = run("db", "repack", "--db", str(packed_db))
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines() == [
        "repacked chess material=KvK metric=both (sided, zstd)",
        "repacked chess material=KQvK metric=both (sided, zstd)",
        "kept tictactoe m=3 n=3 k=3 symmetry=on (packed)",  # keys that are no index space
        "repacked kayles max=12 (blocks, zstd)",
    ]
    assert_holds(packed_db, before)
    with open_store(packed_db, create=False) as store:
        kept = {row.table_name for row in store.catalog()}
    assert {name for name in table_names(packed_db) if name.startswith(("chunks_", "extra_", "blocks_"))} == kept
    assert packed_db.stat().st_size < size
    assert run("verify", *CHESS, "--db", str(packed_db)).exit_code == 0
    again = run("db", "repack", "--db", str(packed_db), "--layout", "blocks")
    assert again.stdout.count("kept ") == 1 and "repacked tictactoe" in again.stdout
    assert "repacked chess material=KQvK metric=both (blocks, zstd)" in again.stdout
    assert_holds(packed_db, before)
    assert run("query", "tictactoe", "start", "--db", str(packed_db)).exit_code == 0


def test_a_failed_repack_keeps_every_tablebase_served(packed_db, monkeypatch):
    before = everything(packed_db)
    writes = []

    def failing(self, row, *args, **kwargs):
        writes.append(row.id)
        raise StoreError("disk full")

    monkeypatch.setattr(Store, "write", failing)
    failed = run("db", "repack", "--db", str(packed_db))
    assert failed.exit_code == 1 and failed.stderr == "error: disk full\n" and writes
    monkeypatch.undo()
    after = everything(packed_db)
    assert after.keys() == before.keys()
    with open_store(packed_db, create=False) as store:
        assert {row.status for row in store.catalog()} == {"complete"}
        assert {row.format_version for row in store.catalog()} == {2}
    assert run("db", "repack", "--db", str(packed_db)).stdout.count("repacked ") == 3


def test_a_tablebase_of_a_game_not_installed_is_left_as_it_is(packed_db):
    with sqlite3.connect(packed_db) as connection:
        connection.execute("UPDATE tablebases SET game = 'gone' WHERE game = 'kayles'")
    done = run("db", "repack", "--db", str(packed_db))
    assert done.exit_code == 0
    assert "left kayles max=12 as it is: unknown game 'gone'" in done.stdout
    assert done.stdout.count("repacked ") == 2


def test_a_repack_at_a_compression_level_writes_the_blocks_again_smaller(packed_db):
    """``--level``: the tablebases already in their blocks layout are written again at
    that zstd level, the same values in fewer bytes; a level zstd has not is refused."""
    assert run("db", "repack", "--db", str(packed_db)).exit_code == 0
    before = everything(packed_db)
    with open_store(packed_db, create=False) as store:
        sizes = {row.description: table_bytes(packed_db, row.table_name) for row in store.catalog() if row.layout != "packed"}
    done = run("db", "repack", "--db", str(packed_db), "--level", "19")
    assert done.exit_code == 0, done.output
    assert "repacked chess material=KQvK metric=both (sided, zstd)" in done.stdout
    assert "kept tictactoe m=3 n=3 k=3 symmetry=on (packed)" in done.stdout  # no blocks: no level
    assert_holds(packed_db, before)
    with open_store(packed_db, create=False) as store:
        after = {row.description: table_bytes(packed_db, row.table_name) for row in store.catalog() if row.layout != "packed"}
    assert after["chess material=KQvK metric=both"] < sizes["chess material=KQvK metric=both"]
    refused = run("db", "repack", "--db", str(packed_db), "--level", "23")
    assert refused.exit_code == 2 and refused.stderr == "error: zstd's compression level must be 1 to 22, not 23\n"


def test_a_repack_of_chosen_tablebases_leaves_the_others_as_they_are(tmp_path):
    """``db repack chess -p material=KQvK --codec xz``: KQvK alone is stored again (its
    dependency KvK and KRvK are not), every value the same; a choice that names nothing
    stored, or parameters without a game, is refused in one line, nothing changed."""
    db = tmp_path / "tb.sqlite"
    for material in ("KQvK", "KRvK"):
        assert run("build", "chess", "-p", f"material={material}", "--db", str(db)).exit_code == 0
    before = everything(db)
    with open_store(db, create=False) as store:
        formats = {row.description: row.format_version for row in store.catalog()}
    done = run("db", "repack", *CHESS, "--codec", "xz", "--db", str(db))
    assert done.exit_code == 0, done.output
    assert done.stdout == "repacked chess material=KQvK metric=both (sided, xz)\n"
    with open_store(db, create=False) as store:
        after = {row.description: row.format_version for row in store.catalog()}
    assert after == {**formats, "chess material=KQvK metric=both": SIDED_XZ} and set(formats.values()) == {SIDED}
    assert_holds(db, before)
    for args, error in (
        (["kayles"], "error: no tablebase of kayles is stored\n"),
        (["-p", "material=KQvK"], "error: parameters (-p) need a GAME\n"),
    ):
        refused = run("db", "repack", *args, "--db", str(db))
        assert (refused.exit_code, refused.stderr) == (2, error)
    with open_store(db, create=False) as store:
        assert {row.description: row.format_version for row in store.catalog()} == after


def test_a_repack_with_xz_keeps_every_value_in_fewer_bytes_and_zstd_brings_it_back(tmp_path):
    """``--codec xz``: KPvK (DTZ and draws) and Kayles (blocks, Grundy values) are stored
    again in the xz formats, every value the same, the chess blobs smaller; they are
    queried (the same answer) and verified there; ``db repack`` alone writes zstd again, and a level
    xz has not is refused."""
    db = tmp_path / "tb.sqlite"
    kpk = ["chess", "-p", "material=KPvK"]
    for game in (kpk, ["kayles", "-p", "max=12"]):
        assert run("build", *game, "--db", str(db)).exit_code == 0
    before = everything(db)
    query = ["query", *kpk, "8/8/8/4k3/8/8/2KP4/8 w - - 0 1", "--db", str(db), "--json"]
    answer = run(*query).stdout
    with open_store(db, create=False) as store:
        zstd_bytes = {row.description: table_bytes(db, row.table_name) for row in store.catalog()}
    done = run("db", "repack", "--db", str(db), "--codec", "xz")
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert "repacked chess material=KPvK metric=both (sided, xz)" in lines and lines[-1] == "repacked kayles max=12 (blocks, xz)"
    assert all(line.startswith("repacked chess") and line.endswith("(sided, xz)") for line in lines[:-1])  # KPvK's too
    with open_store(db, create=False) as store:
        rows = {row.description: row for row in store.catalog()}
        assert {row.format_version for row in rows.values()} == {SIDED_XZ, BLOCKS_XZ}
        assert store.read_values(rows["chess material=KPvK metric=both"])[0].size == before["chess material=KPvK metric=both"][0].size
    assert table_bytes(db, rows["chess material=KPvK metric=both"].table_name) < zstd_bytes["chess material=KPvK metric=both"]
    assert_holds(db, before)
    assert run("verify", *kpk, "--db", str(db)).exit_code == 0
    assert '"dtz": 11, "dtm": 43' in answer and run(*query).stdout == answer  # every move ranked as before
    refused = run("db", "repack", "--db", str(db), "--codec", "xz", "--level", "12")
    assert refused.exit_code == 2 and refused.stderr == "error: xz's compression level must be 0 to 9, not 12\n"
    back = run("db", "repack", "--db", str(db))
    assert back.stdout.count("(sided, zstd)") == len(lines) - 1 and "(blocks, zstd)" in back.stdout, back.output
    assert_holds(db, before)


def test_a_build_with_xz_stores_what_a_zstd_build_and_its_repack_store(tmp_path):
    """``build --codec xz --level 4`` writes KPvK and its dependencies in the xz format, the
    same values as a zstd build; ``db repack --codec xz`` of that build takes them to the
    same blobs. A codec or level that does not exist is refused before a file is made."""
    kpk = ["chess", "-p", "material=KPvK"]
    zstd, xz = tmp_path / "zstd.sqlite", tmp_path / "xz.sqlite"
    assert run("build", *kpk, "--db", str(zstd)).exit_code == 0
    built = run("build", *kpk, "--db", str(xz), "--codec", "xz", "--level", "4")
    assert built.exit_code == 0, built.output
    with open_store(xz, create=False) as store:
        assert {row.format_version for row in store.catalog()} == {SIDED_XZ}
        xz_blobs = {row.description: table_bytes(xz, row.table_name) for row in store.catalog()}
    assert_holds(xz, everything(zstd))
    assert run("db", "repack", "--db", str(zstd), "--codec", "xz", "--level", "4").exit_code == 0
    with open_store(zstd, create=False) as store:
        assert {row.description: table_bytes(zstd, row.table_name) for row in store.catalog()} == xz_blobs
    for bad, said in ((["--codec", "lz4"], "unknown codec 'lz4'"), (["--level", "23"], "level must be 1 to 22, not 23")):
        refused = run("build", *kpk, "--db", str(tmp_path / "none.sqlite"), *bad)
        assert refused.exit_code == 2 and said in refused.stderr and not (tmp_path / "none.sqlite").exists()


def sqlite_settings(db) -> tuple[int, str]:
    with sqlite3.connect(db) as connection:
        return connection.execute("PRAGMA page_size").fetchone()[0], connection.execute("PRAGMA journal_mode").fetchone()[0]


def test_a_repack_gives_a_database_of_4_kib_pages_small_ones_unless_another_process_reads_it(tmp_path, monkeypatch):
    """A database made before pages of :data:`~tablebase.store.engine.PAGE_SIZE` gets
    them from a repack's ``VACUUM``, fewer bytes for the same values, and stays in WAL
    mode, even where no tablebase is stored again; while another connection reads it,
    the repack still completes, the pages as they were."""
    db = tmp_path / "tb.sqlite"
    with monkeypatch.context() as patched:
        patched.setattr(engine, "PAGE_SIZE", 4096)
        assert run("build", *CHESS, "--db", str(db)).exit_code == 0
        assert run("build", "kayles", "-p", "max=12", "--db", str(db)).exit_code == 0
    before, size = everything(db), db.stat().st_size
    assert sqlite_settings(db) == (4096, "wal")
    reader = sqlite3.connect(db)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM tablebases").fetchone()  # a read transaction holds the file
    try:
        assert run("db", "repack", "--db", str(db), "--level", "3").exit_code == 0
    finally:
        reader.close()
    assert sqlite_settings(db) == (4096, "wal")
    done = run("db", "repack", "--db", str(db))  # nothing to store again: the pages alone change
    assert done.exit_code == 0, done.output
    assert sqlite_settings(db) == (engine.PAGE_SIZE, "wal") and db.stat().st_size < size
    assert_holds(db, before)


def table_bytes(db, name: str) -> int:
    """The bytes of a blocks table's blobs (its pages would round them to SQLite's page
    size and place them as overflow pages fall)."""
    with sqlite3.connect(db) as connection:
        query = f"SELECT SUM(LENGTH(present) + LENGTH(codes) + COALESCE(LENGTH(extra), 0)) FROM {name}"
        return connection.execute(query).fetchone()[0]


def test_a_sided_tablebase_of_format_4_is_read_and_repacked_without_its_draws_dtz(tmp_path, monkeypatch):
    """A KPvK tablebase in the sided layout's format 4 (every DTZ stored, as built before
    format 5) answers as it did; ``db repack`` writes it in format 5, a draw's DTZ left
    out, in fewer bytes, every value and DTZ the same (KPvK has draws in plenty)."""
    db = tmp_path / "tb.sqlite"
    kpk = ["chess", "-p", "material=KPvK"]
    monkeypatch.setattr(writing, "format_version", lambda *_choice: SIDED_DRAWS_STORED)
    assert run("build", *kpk, "--db", str(db)).exit_code == 0
    monkeypatch.undo()
    fresh = tmp_path / "fresh.sqlite"
    assert run("build", *kpk, "--db", str(fresh)).exit_code == 0
    old, new = everything(db), everything(fresh)
    for name, arrays in new.items():
        assert np.any((arrays[1] == 0) & (arrays[4] == 0) & arrays[5])  # draws, their DTZ 0 and known
        for got, wanted in zip(old[name], arrays, strict=True):
            np.testing.assert_array_equal(got, wanted)
    with open_store(db, create=False) as store:
        formats = {row.description: (row.format_version, row.layout, table_bytes(db, row.table_name)) for row in store.catalog()}
    assert {version for version, _layout, _bytes in formats.values()} == {SIDED_DRAWS_STORED}
    assert {layout for _version, layout, _bytes in formats.values()} == {"sided"}
    assert run("query", *kpk, "8/8/8/4k3/8/8/2KP4/8 w - - 0 1", "--db", str(db)).exit_code == 0
    done = run("db", "repack", "--db", str(db))
    assert done.exit_code == 0 and "repacked chess material=KPvK metric=both (sided, zstd)" in done.stdout, done.output
    assert_holds(db, new)
    with open_store(db, create=False) as store:
        rows = store.catalog()
    assert {row.format_version for row in rows} == {SIDED}
    built = rows[-1]  # KPvK, the last built (KvK, its dependency, first)
    assert table_bytes(db, built.table_name) < formats[built.description][2]


@given(st.lists(st.integers(1, 9), max_size=30), st.integers(1, 20))
def test_a_repack_gathers_the_parts_it_reads_into_batches_of_a_write(lengths, size):
    """Parts read a span at a time are written in batches of at least ``size`` positions
    (the last of what is left), each column joined in order, nothing lost or repeated."""
    keys = np.arange(sum(lengths))
    bounds = np.cumsum([0, *lengths])
    parts = [(keys[begin:end], -keys[begin:end]) for begin, end in zip(bounds[:-1], bounds[1:])]
    batches = list(writing._gathered(iter(parts), size))
    assert all(len(batch[0]) >= size for batch in batches[:-1])
    assert all(len(batch[0]) < size + 9 for batch in batches)
    joined = [np.concatenate([batch[column] for batch in batches]) if batches else keys[:0] for column in (0, 1)]
    np.testing.assert_array_equal(joined[0], keys)
    np.testing.assert_array_equal(joined[1], -keys)
