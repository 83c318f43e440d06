"""Which codec for the blocks layouts' blobs: bytes, encode and decode time of each, on the
blocks of stored chess endings.

Usage: ``python benchmarks/disk_codecs.py --db DB.sqlite --material KRPvKR,KRBvKR [--every 64]``.

DB is an SQLite database whose endings are stored in the sided layout (zstd, as built).
Every ``every``-th block of each ending is read and its blobs' data decompressed; each
codec and level of :data:`TRIED` compresses that data again. Per ending and per column
(``codes``: the values, WDL and DTM; ``extra``: DTZ) it prints the bytes against zstd's
at a build's level 9 (1.000), the milliseconds to encode a block and the microseconds to
decode one (one thread).
"""

from __future__ import annotations

import argparse
import sqlite3
import time

from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tablebase.store.codecs import XZ, ZSTD

TRIED = [(ZSTD, 9), (ZSTD, 15), (ZSTD, 19), (XZ, 1), (XZ, 4), (XZ, 6), (XZ, 9)]
"""The codecs and levels compared: zstd's level 9 as builds write it, and above; xz's fast
presets (1), its first of normal search (4), its default (6) and its slowest (9)."""


def blobs(db: str, material: str, every: int) -> dict[str, list[bytes]]:
    """The data (decompressed) of the codes and extra blobs of every ``every``-th block."""
    game = load_game("chess", {"material": material})
    with open_store(db, create=False) as store:
        row = store.require(game.name, game.identity(), game.build_command(), game.version)
        if row.codec != ZSTD.name:
            raise SystemExit(f"{material} is not stored in a blocks layout with zstd")
        table = row.table_name
    with sqlite3.connect(db) as connection:
        rows = connection.execute(f"SELECT codes, extra FROM {table} WHERE block % ? = 0", (every,)).fetchall()
    return {
        "codes": [ZSTD.decompress(codes) for codes, _extra in rows],
        "extra": [ZSTD.decompress(extra) for _codes, extra in rows if extra is not None],
    }


def main() -> None:
    """Print a table per ending."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--material", default="KRPvKR,KRBvKR")
    parser.add_argument("--every", type=int, default=64, help="read one block in this many")
    args = parser.parse_args()
    for material in args.material.split(","):
        data = blobs(args.db, material, args.every)
        print(f"{material}: {len(data['codes'])} blocks")
        print(f"  {'codec':<9} {'codes: bytes':>12} {'encode ms':>9} {'decode us':>9}   {'extra: bytes':>12} {'encode ms':>9} {'decode us':>9}")
        baseline: dict[str, int] = {}
        for codec, level in TRIED:
            cells = []
            for column, parts in data.items():
                started = time.perf_counter()
                packed = [codec.compress(part, level) for part in parts]
                encode = (time.perf_counter() - started) / max(1, len(parts))
                started = time.perf_counter()
                for blob in packed:
                    codec.decompress(blob)
                decode = (time.perf_counter() - started) / max(1, len(parts))
                size = sum(map(len, packed))
                baseline.setdefault(column, size)
                cells.append(f"{size / max(1, baseline[column]):>12.3f} {encode * 1e3:>9.2f} {decode * 1e6:>9.0f}")
            print(f"  {codec.name + ' ' + str(level):<9} {'   '.join(cells)}")


if __name__ == "__main__":
    main()
