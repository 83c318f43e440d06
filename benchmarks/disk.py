"""Bytes per position on disk and probe times of stored tablebases, before and after a repack.

Usage: ``python benchmarks/disk.py --db SOURCE.sqlite [--layout sided] [--codec xz] [--level 15] [--only KRBvKR,...]``,
or ``python benchmarks/disk.py --db DB --as-is`` for the bytes of a database as it is (each
tablebase's layout and codec, and chess's endings of up to 4 pieces together, all4).

SOURCE is a database of built tablebases (left untouched): it is copied, and the copy is
repacked into the layout (``tablebase db repack``, by ``--codec``, zstd by default, at its ``--level`` where given). For every complete tablebase, each
line gives its positions, and before and after the repack the bytes its tables take
(SQLite's ``dbstat`` pages) per position and the time of point probes of random stored
keys: the first one after opening (cold) and the mean of the next 2,000 (warm, one key
at a time, its value and its DTZ, as ``probe_wdl`` of a chess board reads them). A last line sums them all, and the file sizes compare.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from pathlib import Path

import numpy as np

from tablebase.store import Store, Storing, TablebaseRow, open_store
from tablebase.tools.repack import repack

PROBES = 2000


def table_bytes(path: Path) -> dict[str, int]:
    """Bytes of each table of an SQLite file, its pages counted by ``dbstat``."""
    with sqlite3.connect(path) as connection:
        return dict(connection.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall())


def bytes_of(row: TablebaseRow, sizes: dict[str, int]) -> int:
    """Bytes of a tablebase's tables (its values, and its extra values beside them)."""
    return sizes.get(row.table_name, 0) + sizes.get(f"extra_{row.id}", 0)


def probe_times(path: Path, row: TablebaseRow, keys: list[int]) -> tuple[float, float]:
    """Seconds of the first probe after opening, and the mean of the others, one key each;
    a probe reads the value and, where the tablebase has them, the DTZ (or Grundy value,
    score), as ``probe_wdl`` of a chess board does."""
    extra = row.value_kind != "wdl"
    with open_store(path, create=False) as store:

        def probe(key: int) -> None:
            store.probe(row, [key])
            if extra:
                store.probe_extra(row, [key])

        started = time.perf_counter()
        probe(keys[0])
        cold = time.perf_counter() - started
        started = time.perf_counter()
        for key in keys[1:]:
            probe(key)
        warm = (time.perf_counter() - started) / max(1, len(keys) - 1)
    return cold, warm


def sample_keys(store: Store, row: TablebaseRow, rng: np.random.Generator) -> list[int]:
    """:data:`PROBES` random stored keys of a tablebase."""
    keys = store.read_values(row)[0]
    return keys[rng.integers(0, len(keys), size=PROBES)].tolist()


def report_as_is(path: Path) -> None:
    """Print each complete tablebase's bytes a position with its layout and codec, then
    chess's endings of up to 4 pieces together (all4) and every tablebase together."""
    sizes = table_bytes(path)
    with open_store(path, create=False) as store:
        rows = [row for row in store.catalog() if row.status == "complete"]
    print(f"{'tablebase':<40} {'positions':>13} {'B/pos':>7}  stored")
    groups: dict[str, list[int]] = {}
    for row in rows:
        size = bytes_of(row, sizes)
        print(f"{row.description:<40} {row.positions:>13,} {size / row.positions:>7.3f}  {row.layout}{', ' + row.codec if row.codec else ''}")
        material = json.loads(row.params).get("material", "") if row.game == "chess" else ""
        for group in ["all of them"] + (["all4 (chess, up to 4 pieces)"] if material and len(material) - 1 <= 4 else []):
            total = groups.setdefault(group, [0, 0])
            total[0], total[1] = total[0] + row.positions, total[1] + size
    for group, (positions, size) in groups.items():
        print(f"{group:<40} {positions:>13,} {size / positions:>7.3f}")
    print(f"file {path.stat().st_size / 2**20:.1f} MiB")


def main() -> None:
    """Print one line per tablebase, then the totals."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="an SQLite database of built tablebases (not changed)")
    parser.add_argument("--layout", default="auto", help="the layout to repack into (default: auto)")
    parser.add_argument("--codec", default="zstd", help="what compresses the blocks layouts: zstd (default) or xz")
    parser.add_argument("--level", type=int, help="the codec's level (default: its own, zstd's a build's)")
    parser.add_argument("--only", help="comma-separated materials or descriptions' words to report (default: all)")
    parser.add_argument("--as-is", action="store_true", help="report the database's bytes as they are, repacking nothing")
    args = parser.parse_args()
    if args.as_is:
        report_as_is(Path(args.db))
        return
    wanted = args.only.split(",") if args.only else None
    with tempfile.TemporaryDirectory(dir=Path(args.db).resolve().parent) as folder:
        copy = Path(folder) / "copy.sqlite"
        with sqlite3.connect(args.db) as source, sqlite3.connect(copy) as target:
            source.backup(target)  # whole, the WAL's pages included
        before_sizes, before_file = table_bytes(copy), copy.stat().st_size
        rng = np.random.default_rng(0)
        with open_store(copy, create=False) as store:
            rows = [
                row
                for row in store.catalog()
                if row.status == "complete" and (wanted is None or any(f"={w} " in f"{row.description} " for w in wanted))
            ]
            samples = {row.id: sample_keys(store, row, rng) for row in rows}
        before = {row.id: probe_times(copy, row, samples[row.id]) for row in rows}
        started = time.perf_counter()
        with open_store(copy, create=False, storing=Storing(layout=args.layout, level=args.level, codec=args.codec)) as store:
            replaced = {done.old.id: done.new for done in repack(store) if done.new not in (None, done.old)}
        seconds = time.perf_counter() - started
        after_sizes, after_file = table_bytes(copy), copy.stat().st_size
        level = args.level if args.level is not None else "default"
        print(f"repacked {len(replaced)} tablebases into {args.layout} ({args.codec}, level {level}) in {seconds:.1f} s")
        print(f"{'tablebase':<40} {'positions':>13} {'B/pos before':>12} {'after':>7} {'cold ms':>15} {'warm us':>15}")
        totals = [0, 0, 0]
        for row in rows:
            new = replaced.get(row.id, row)
            old_bytes, new_bytes = bytes_of(row, before_sizes), bytes_of(new, after_sizes)
            after = probe_times(copy, new, samples[row.id])
            totals = [totals[0] + row.positions, totals[1] + old_bytes, totals[2] + new_bytes]
            print(
                f"{row.description:<40} {row.positions:>13,} {old_bytes / row.positions:>12.3f} {new_bytes / row.positions:>7.3f}"
                f" {before[row.id][0] * 1e3:>7.2f}>{after[0] * 1e3:<7.2f} {before[row.id][1] * 1e6:>7.1f}>{after[1] * 1e6:<7.1f}"
            )
        print(
            f"{'all of them':<40} {totals[0]:>13,} {totals[1] / totals[0]:>12.3f} {totals[2] / totals[0]:>7.3f}"
            f"   file {before_file / 2**20:.1f} MiB > {after_file / 2**20:.1f} MiB"
        )


if __name__ == "__main__":
    main()
