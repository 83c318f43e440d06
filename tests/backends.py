"""The databases the store tests run against: SQLite always, PostgreSQL when
``$TABLEBASE_TEST_POSTGRES`` names a server (``.ci/postgres.sh`` starts one), each test
in a fresh database of its own."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

POSTGRES = os.environ.get("TABLEBASE_TEST_POSTGRES")


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path) -> Iterator[str]:
    """A fresh, empty database: an SQLite file, or a new PostgreSQL database (dropped after)."""
    if request.param == "sqlite":
        yield str(tmp_path / "tb.sqlite")
        return
    if not POSTGRES:
        pytest.skip("no PostgreSQL server: set $TABLEBASE_TEST_POSTGRES (see .ci/postgres.sh)")
    with postgres_database() as url:
        yield url


@contextlib.contextmanager
def postgres_database(server: str | None = POSTGRES) -> Iterator[str]:
    """The URL of a new database on the PostgreSQL ``server`` (a URL; default
    ``$TABLEBASE_TEST_POSTGRES``), dropped after."""
    assert server
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    name = f"tb_{uuid.uuid4().hex[:12]}"
    with admin.connect() as connection:
        connection.exec_driver_sql(f"CREATE DATABASE {name}")
    try:
        yield sa.engine.make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f"DROP DATABASE {name} WITH (FORCE)")
        admin.dispose()
