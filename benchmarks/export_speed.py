"""``tablebase export`` of chess KQvKR (2,467,122 rows), timed on two source trees in one run.

For each of CSV with positions, Parquet with positions and CSV ``--no-positions``, runs
``python -m tablebase export chess -p material=KQvKR`` once with the old tree's code and
once with the new tree's (after an untimed warm-up of the new one, which compiles its
kernels), prints each one's seconds and rows a second end to end (the interpreter's start
included), the ratio new/old of the rates, and whether the two files are byte for byte
the same.

Usage::

    git worktree add --detach /tmp/old 5d98078
    python benchmarks/export_speed.py --old /tmp/old [--new .] [--db kqkr.sqlite]

A tree is a source checkout; its code runs with this interpreter (``python -m`` from the
tree's folder imports that tree's ``tablebase``). The database is built with the new tree
when missing (a minute or two). The old tree's CSV with positions takes about three minutes.
"""

from __future__ import annotations

import argparse
import filecmp
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = {
    "csv": ["--format", "csv"],
    "parquet": ["--format", "parquet"],
    "csv --no-positions": ["--format", "csv", "--no-positions"],
}


def export(tree: Path, db: Path, options: list[str], target: Path) -> tuple[float, int]:
    """Seconds and rows of one export with ``tree``'s code."""
    command = [sys.executable, "-m", "tablebase", "export", "chess", "-p", "material=KQvKR", "--db", str(db), *options, "-o", str(target)]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=tree, check=True, capture_output=True, text=True)
    took = time.perf_counter() - start
    rows = int(re.search(r"wrote ([\d,]+) positions", done.stderr).group(1).replace(",", ""))
    return took, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", type=Path, required=True, help="the old source tree")
    parser.add_argument("--new", type=Path, default=Path(__file__).resolve().parent.parent, help="the new source tree")
    parser.add_argument("--db", type=Path, default=None, help="a database holding KQvKR (built when missing)")
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="export-speed-") as folder:
        db = args.db or Path(folder) / "kqkr.sqlite"
        if not db.exists():
            subprocess.run([sys.executable, "-m", "tablebase", "build", "chess", "-p", "material=KQvKR", "--db", str(db)], cwd=args.new, check=True)
        for case in args.cases:
            suffix = ".parquet" if "parquet" in case else ".csv"
            old_file, new_file = Path(folder) / f"old{suffix}", Path(folder) / f"new{suffix}"
            export(args.new, db, CASES[case], new_file)  # warm-up: the new tree's kernels compiled
            old_seconds, rows = export(args.old, db, CASES[case], old_file)
            new_seconds, new_rows = export(args.new, db, CASES[case], new_file)
            same = new_rows == rows and filecmp.cmp(old_file, new_file, shallow=False)
            print(
                f"{case:<20} {rows:,} rows: old {old_seconds:7.1f} s {rows / old_seconds:>11,.0f} rows/s, "
                f"new {new_seconds:5.1f} s {rows / new_seconds:>11,.0f} rows/s, new/old {old_seconds / new_seconds:5.1f}x, "
                f"files {'identical' if same else 'DIFFER'}",
                flush=True,
            )


if __name__ == "__main__":
    main()
