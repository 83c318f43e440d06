"""The store library: opening and migrating databases, building, writing and probing."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from typer.testing import CliRunner

import tablebase.migrations as migrations
from tablebase.build.builder import build, solve_in_memory
from tablebase.core.errors import StoreError
from tablebase.faces.cli import app
from tablebase.solve.registry import load_game
from tablebase.store import Store, Storing, engine, layouts, migration, open_store
from tablebase.store.block_codec import block_parts
from tablebase.store.layouts import layout_of
from tablebase.store.packed import decode_codes, split_codes
from tablebase.store.rows_layout import PROBE_BATCH
from tablebase.store.schema import TablebaseRow

MIGRATIONS = Path(migrations.__file__).parent


def head_revision() -> str:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return ScriptDirectory.from_config(config).get_current_head()


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as connection:
        return {r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}


def owned(row) -> set[str]:
    """The tables of one tablebase: its values, and its Grundy values for an impartial game
    (a column of the values table in the blocks layout)."""
    separate = row.value_kind in ("grundy", "score") and not row.table_name.startswith("blocks_")
    return {row.table_name} | ({f"extra_{row.id}"} if separate else set())


def revisions(path: Path) -> list[str]:
    with sqlite3.connect(path) as connection:
        return [r[0] for r in connection.execute("SELECT version_num FROM alembic_version")]


def stored_rows(path: Path, row: TablebaseRow) -> list[tuple]:
    """Every stored ``(key, outcome, remoteness or None)`` of a tablebase, read past the store."""
    table = row.table_name
    with sqlite3.connect(path) as connection:
        if table.startswith("positions_"):
            return connection.execute(f"SELECT key, outcome, remoteness FROM {table} ORDER BY key").fetchall()
        if table.startswith("blocks_"):
            blocks = connection.execute(f"SELECT block, present, codes FROM {table} ORDER BY block").fetchall()
            layout = layout_of(row)
            parts = [(keys, *split_codes(codes)) for keys, codes in block_parts(blocks, layout.blocking, layout.form(row))]
        else:
            chunks = connection.execute(f"SELECT first_key, key_deltas, codes FROM {table} ORDER BY first_key").fetchall()
            parts = [(keys, *split_codes(codes)) for keys, codes in (decode_codes(*chunk) for chunk in chunks)]
    rows = []
    for part in parts:
        keys, outcome, remoteness = (a.tolist() for a in part)
        rows += [(k, o, r if r >= 0 else None) for k, o, r in zip(keys, outcome, remoteness)]
    return rows


@pytest.fixture(params=["sided", "blocks", "packed", "rows"])
def layout(request) -> str:
    """Each storage layout in turn."""
    return request.param


@pytest.fixture(autouse=True)
def no_default_database(tmp_path, monkeypatch):
    """Point ``$TABLEBASE_DB`` and the working directory away from the repository."""
    monkeypatch.setenv("TABLEBASE_DB", str(tmp_path / "from-env.sqlite"))
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "tb.sqlite"


@pytest.fixture
def subtraction():
    return load_game("subtraction", {"max": "20"})


# --------------------------------------------------------------------------- opening


def test_opening_creates_the_catalog_and_stamps_the_head(db):
    with open_store(db) as store:
        assert isinstance(store, Store)
        assert store.catalog() == []
    assert tables(db) == {"alembic_version", "tablebases"}
    assert revisions(db) == [head_revision()]


def test_a_database_at_the_head_opens_without_loading_alembic(db):
    """The head named in code is Alembic's; opening a database already at it in a fresh
    process imports no Alembic (a tenth of a second of every query's start)."""
    assert migration.HEAD == head_revision()
    open_store(db).close()
    shown = "import sys; from tablebase.store import open_store; open_store(sys.argv[1], create=False).close(); print('alembic' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", shown, str(db)], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_reopening_is_idempotent(db, subtraction):
    with open_store(db) as store:
        build(subtraction, store)
    before = tables(db)
    for _ in range(2):
        with open_store(db) as store:
            [row] = store.catalog()
            assert row.status == "complete" and row.positions == 21
    assert tables(db) == before
    assert revisions(db) == [head_revision()]


def test_open_without_create_refuses_a_missing_file(db):
    with pytest.raises(StoreError, match="no tablebase database"):
        open_store(db, create=False)
    assert not db.exists()


def test_database_with_a_newer_revision_is_refused(db):
    open_store(db).close()
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE alembic_version SET version_num = 'abcdef123456'")
    with pytest.raises(StoreError, match="newer"):
        open_store(db)
    assert revisions(db) == ["abcdef123456"]
    assert tables(db) == {"alembic_version", "tablebases"}


def _foreign_database(path: Path) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)")
        connection.execute("INSERT INTO invoices VALUES (1, 9.5)")
    connection.close()


def test_database_with_unrelated_tables_is_refused_and_its_tables_kept(db):
    _foreign_database(db)
    with pytest.raises(StoreError, match="other tables"):
        open_store(db)
    assert tables(db) == {"invoices"}
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT * FROM invoices").fetchall() == [(1, 9.5)]


def test_refused_database_keeps_its_journal_mode(db):
    _foreign_database(db)
    content = db.read_bytes()
    with pytest.raises(StoreError):
        open_store(db)
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert db.read_bytes() == content


def page_size(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        return connection.execute("PRAGMA page_size").fetchone()[0]


def test_a_new_database_has_small_pages_and_an_old_one_keeps_its_own(db, tmp_path, subtraction, monkeypatch):
    with open_store(db) as store:
        build(subtraction, store)
        [row] = store.catalog()
    assert page_size(db) == engine.PAGE_SIZE == 1024
    old = tmp_path / "old.sqlite"
    with monkeypatch.context() as patched:
        patched.setattr(engine, "PAGE_SIZE", 4096)  # as every database was made before
        with open_store(old) as store:
            build(subtraction, store)
    with open_store(old) as store:
        [old_row] = store.catalog()
        assert store.probe(old_row, [5, 20]) == {5: (1, 3), 20: (-1, 10)}
        build(load_game("subtraction", {"max": "30"}), store)
    assert page_size(old) == 4096
    assert stored_rows(old, old_row) == stored_rows(db, row) and len(stored_rows(db, row)) == 21


def test_sqlalchemy_url_is_accepted(db, subtraction):
    with open_store(f"sqlite:///{db}") as store:
        build(subtraction, store)
    with open_store(db) as store:
        assert store.find(subtraction.name, subtraction.identity()) is not None


def test_location_falls_back_to_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLEBASE_DB", str(tmp_path / "env.sqlite"))
    assert engine.resolve_location(None) == str(tmp_path / "env.sqlite")
    assert engine.resolve_location("given.sqlite") == "given.sqlite"
    monkeypatch.delenv("TABLEBASE_DB")
    assert engine.resolve_location(None) == "tablebase.sqlite"


# --------------------------------------------------------------------------- builds


def test_build_stores_every_position_and_reuses_it(db, subtraction):
    with open_store(db) as store:
        first = build(subtraction, store)
        assert not first.reused
        row = first.row
        assert (row.status, row.positions, row.wins, row.draws, row.losses) == ("complete", 21, 15, 0, 6)
        assert row.max_remoteness == 10
        assert store.probe(row, [0, 4, 5, 20]) == {0: (-1, 0), 4: (-1, 2), 5: (1, 3), 20: (-1, 10)}
        second = build(subtraction, store)
        assert second.reused and second.row.id == row.id
        assert len(store.catalog()) == 1


def _interrupted_build(store: Store, game) -> None:
    """begin_build and one partial batch, then 'killed': complete is never called."""
    row = store.begin_build(game.name, game.identity(), game.describe())
    keys = np.arange(5, dtype=np.int64)
    store.write(row, keys, np.ones(5, dtype=np.int8), np.ones(5, dtype=np.int32))


def test_interrupted_build_is_never_served_and_the_next_build_completes_it(db, subtraction):
    with open_store(db) as store:
        _interrupted_build(store, subtraction)
        assert store.find(subtraction.name, subtraction.identity()) is None
        [row] = store.catalog()
        assert row.status == "building" and row.positions is None

    result = CliRunner().invoke(app, ["query", "subtraction", "3", "-p", "max=20", "--db", str(db)])
    assert result.exit_code == 1
    assert "not built" in result.stderr and "tablebase build subtraction" in result.stderr

    with open_store(db) as store:
        result = build(subtraction, store)
        assert not result.reused
        [row] = store.catalog()
        assert row.status == "complete" and row.positions == 21
        # the partial rows (all "win") were not kept: heap 4 is lost
        assert store.probe(row, [4])[4] == (-1, 2)
        assert len(store.probe(row, range(100))) == 21
        assert tables(db) == {"alembic_version", "tablebases", *owned(row)}


def test_rebuild_serves_the_old_tablebase_until_it_completes(db, subtraction):
    other = load_game("subtraction", {"max": "8"})
    with open_store(db) as store:
        old = build(subtraction, store).row
        kept = build(other, store).row
        new = store.begin_build(subtraction.name, subtraction.identity(), subtraction.describe())
        assert store.find(subtraction.name, subtraction.identity()).id == old.id
        statuses = [(r.id, r.status) for r in store.catalog()]
        assert statuses == [(old.id, "complete"), (kept.id, "complete"), (new.id, "building")]
        solved = solve_in_memory(subtraction)
        store.write(new, solved.keys, solved.solution.outcome, solved.solution.remoteness)
        store.complete(new, solved.solution.outcome, solved.solution.remoteness, 0.0)
        assert store.find(subtraction.name, subtraction.identity()).id == new.id
        assert [(r.id, r.status) for r in store.catalog()] == [(kept.id, "complete"), (new.id, "complete")]
    assert tables(db) == {"alembic_version", "tablebases", *owned(kept), *owned(new)}
    assert len(stored_rows(db, new)) == 21
    assert len(stored_rows(db, kept)) == 9


def test_killed_rebuild_leaves_the_old_tablebase_served(db, subtraction):
    with open_store(db) as store:
        old = build(subtraction, store).row
        _interrupted_build(store, subtraction)
        assert store.find(subtraction.name, subtraction.identity()).id == old.id
        assert build(subtraction, store).reused


def test_completing_a_build_dropped_by_another_build_is_refused(db, subtraction):
    with open_store(db) as store:
        first = store.begin_build(subtraction.name, subtraction.identity(), subtraction.describe())
        store.begin_build(subtraction.name, subtraction.identity(), subtraction.describe())
        with pytest.raises(StoreError, match="taken over by another build"):
            store.complete(first, np.zeros(1, dtype=np.int8), np.zeros(1, dtype=np.int32), 0.0)


def test_rebuild_never_reuses_the_id_of_the_table_it_replaces(db, subtraction):
    # A reader still holding the old id must not land in the half-written new table.
    with open_store(db) as store:
        old = build(subtraction, store).row
        new = build(subtraction, store, force=True).row
    assert new.id != old.id
    assert tables(db) == {"alembic_version", "tablebases", *owned(new)}


def test_failure_inside_begin_build_keeps_the_old_tablebase(db, subtraction, monkeypatch, layout):
    with open_store(db, storing=Storing(layout=layout)) as store:
        old = build(subtraction, store).row
    rows_before = stored_rows(db, old)

    real_values_table = layouts.values_table

    class CreateFails:
        """The real table for drop(); create() fails, after the old table was dropped."""

        def __init__(self, row) -> None:
            self.table = real_values_table(row)

        def drop(self, *args, **kwargs):
            return self.table.drop(*args, **kwargs)

        def create(self, *args, **kwargs):
            raise RuntimeError("disk full, say")

    monkeypatch.setattr(layouts, "values_table", CreateFails)
    with open_store(db, storing=Storing(layout=layout)) as store:
        with pytest.raises(RuntimeError, match="disk full"):
            store.begin_build(subtraction.name, subtraction.identity(), subtraction.describe())
    monkeypatch.undo()

    with open_store(db) as store:
        found = store.find(subtraction.name, subtraction.identity())
        assert found is not None and found.id == old.id
        assert [r.id for r in store.catalog()] == [old.id]
    assert stored_rows(db, old) == rows_before


# --------------------------------------------------------------------------- write and probe


def _row(store: Store, name: str = "test"):
    return store.begin_build(name, "{}", name)


def test_write_stores_null_for_negative_remoteness_and_probe_returns_present_keys(db, layout):
    with open_store(db, storing=Storing(layout=layout)) as store:
        row = _row(store)
        keys = np.array([5, 1, 9, 2**62], dtype=np.int64)
        outcome = np.array([0, 1, -1, 0], dtype=np.int8)
        remoteness = np.array([-1, 3, 0, 7], dtype=np.int32)
        store.write(row, keys, outcome, remoteness)
        store.complete(row, outcome, remoteness, 0.0)  # the blocks layout writes its last block now
        assert store.probe(row, [1, 5, 7, 9, 100, 2**62, 5]) == {
            1: (1, 3),
            5: (0, None),
            9: (-1, 0),
            2**62: (0, 7),
        }
        assert store.probe(row, []) == {}
        assert store.probe(row, [3, 4]) == {}
    assert stored_rows(db, row) == [(1, 1, 3), (5, 0, None), (9, -1, 0), (2**62, 0, 7)]


def test_write_in_tiny_batches_gives_the_same_rows(db, layout):
    rng = np.random.default_rng(7)
    keys = rng.choice(10_000, size=1_234, replace=False).astype(np.int64)
    outcome = rng.integers(-1, 2, size=len(keys)).astype(np.int8)
    remoteness = rng.integers(-1, 30, size=len(keys)).astype(np.int32)
    advanced: list[int] = []
    with open_store(db, storing=Storing(layout=layout)) as store:
        whole, batched = _row(store, "whole"), _row(store, "batched")
        store.write(whole, keys, outcome, remoteness)
        store.write(batched, keys, outcome, remoteness, advance=advanced.append, batch_size=100)
        for row in (whole, batched):
            store.complete(row, outcome, remoteness, 0.0)
        # probing more keys than one probe batch holds
        probed = store.probe(batched, keys.tolist())
    assert stored_rows(db, whole) == stored_rows(db, batched)
    assert len(stored_rows(db, whole)) == len(keys)
    assert advanced == [100] * 12 + [34]
    assert len(probed) == len(keys) > PROBE_BATCH
    i = int(np.flatnonzero(remoteness < 0)[0])
    assert probed[int(keys[i])] == (int(outcome[i]), None)


def test_complete_records_counts(db):
    with open_store(db) as store:
        row = _row(store)
        outcome = np.array([1, 1, 0, -1, -1, -1], dtype=np.int8)
        remoteness = np.array([1, 3, -1, 0, 2, 4], dtype=np.int32)
        store.write(row, np.arange(6, dtype=np.int64), outcome, remoteness)
        done = store.complete(row, outcome, remoteness, 1.5)
        assert (done.wins, done.draws, done.losses, done.positions) == (2, 1, 3, 6)
        assert (done.max_remoteness, done.build_seconds, done.status) == (4, 1.5, "complete")
        assert store.find("test", "{}").id == row.id


# --------------------------------------------------------------------------- transactional DDL


FAILING_MIGRATION = '''"""A migration that fails halfway.

Revision ID: 0099
Revises: {down}
"""
import sqlalchemy as sa
from alembic import op

revision = "0099"
down_revision = "{down}"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table("half_made", sa.Column("id", sa.Integer, primary_key=True))
    op.execute("INSERT INTO half_made (id) VALUES (1)")
    raise RuntimeError("migration failed halfway")


def downgrade():
    op.drop_table("half_made")
'''


def use_failing_migrations(tmp_path: Path, monkeypatch) -> None:
    """Point Alembic at a copy of migrations/ with one more revision that fails halfway."""
    copy = tmp_path / "migrations_copy"
    shutil.copytree(MIGRATIONS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "versions" / "0099_fails.py").write_text(FAILING_MIGRATION.format(down=head_revision()))

    def config() -> Config:
        cfg = Config()
        cfg.set_main_option("script_location", str(copy))
        return cfg

    monkeypatch.setattr(migration, "_alembic_config", config)
    monkeypatch.setattr(migration, "HEAD", "0099")


def test_failed_migration_of_an_existing_database_rolls_back(db, subtraction, tmp_path, monkeypatch):
    with open_store(db) as store:
        build(subtraction, store)
    before = tables(db)
    use_failing_migrations(tmp_path, monkeypatch)
    with pytest.raises(RuntimeError, match="failed halfway"):
        open_store(db)
    assert "half_made" not in tables(db)
    assert tables(db) == before
    assert revisions(db) == [head_revision()]


def test_failed_migration_of_a_new_database_leaves_nothing(db, tmp_path, monkeypatch):
    use_failing_migrations(tmp_path, monkeypatch)
    with pytest.raises(RuntimeError, match="failed halfway"):
        open_store(db)
    # the catalog of revision 0001 was made in the same transaction and is gone too
    assert tables(db) == set()


def test_ddl_in_a_store_transaction_rolls_back(db):
    with open_store(db) as store:
        with pytest.raises(RuntimeError):
            with store.engine.begin() as connection:
                connection.exec_driver_sql("CREATE TABLE scratch (x INTEGER)")
                raise RuntimeError("abort")
        assert "scratch" not in sa.inspect(store.engine).get_table_names()


def at_first_revision(db: Path) -> None:
    """Make ``db`` a database at Alembic revision 0001, the first."""
    made = engine._sqlite_engine(str(db))
    config = migration._alembic_config()
    with made.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
    made.dispose()


def test_upgrading_from_the_first_revision_keeps_every_stored_tablebase(db, subtraction):
    """A database made at revision 0001, with a tablebase in it, upgraded to head."""
    at_first_revision(db)
    with sqlite3.connect(db) as connection:
        connection.execute(
            "INSERT INTO tablebases (id, game, params, description, status, format_version, positions, "
            "created_at) VALUES (1, ?, ?, 'old', 'complete', 1, 3, '2026-11-01 00:00:00')",
            (subtraction.name, subtraction.identity()),
        )
        connection.execute("CREATE TABLE positions_1 (key INTEGER PRIMARY KEY, outcome SMALLINT, remoteness INTEGER)")
        connection.executemany("INSERT INTO positions_1 VALUES (?, ?, ?)", [(0, -1, 0), (1, 1, 1), (4, -1, 2)])
    with open_store(db) as store:
        row = store.find(subtraction.name, subtraction.identity())
        assert (row.id, row.value_kind, row.positions) == (1, "wdl", 3)
        assert store.probe(row, [0, 1, 4]) == {0: (-1, 0), 1: (1, 1), 4: (-1, 2)}
    assert revisions(db) == [head_revision()]


def test_db_current_and_upgrade_commands(db):
    at_first_revision(db)
    runner = CliRunner()
    current = runner.invoke(app, ["db", "current", "--db", str(db)])
    assert current.exit_code == 0 and "revision 0001" in current.stdout and "upgrade is available" in current.stdout
    upgraded = runner.invoke(app, ["db", "upgrade", "--db", str(db)])
    assert upgraded.exit_code == 0 and f"0001 -> {head_revision()}" in upgraded.stdout
    assert revisions(db) == [head_revision()]
    again = runner.invoke(app, ["db", "current", "--db", str(db)])
    assert "up to date" in again.stdout
    missing = runner.invoke(app, ["db", "current", "--db", str(db.parent / "missing.sqlite")])
    assert missing.exit_code == 1 and "no tablebase database" in missing.stderr


def test_an_array_probe_agrees_with_point_probes_in_every_layout(db, layout):
    """``probe_array``: the values of stored keys, 0 and -1 for the others, and the extra
    values (Grundy values here) beside them, whatever the layout."""
    game = load_game("kayles", {"max": "20"})
    with open_store(db, storing=Storing(layout=layout)) as store:
        row = build(game, store).row
        keys = list(range(-3, 30))
        found, outcome, remoteness, extra = store.probe_array(row, np.array(keys[::-1]))
        points, grundy = store.probe(row, keys), store.probe_extra(row, keys)
    assert found[::-1].tolist() == [key in points for key in keys] and sum(found) == 21
    assert outcome[::-1].tolist() == [points.get(key, (0, None))[0] for key in keys]
    assert remoteness[::-1].tolist() == [-1 if points.get(key, (0, None))[1] is None else points[key][1] for key in keys]
    assert extra[::-1].tolist() == [grundy.get(key) or 0 for key in keys] and max(extra) > 0
