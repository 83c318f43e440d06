"""Run every benchmark case and print one table (Markdown), for ``benchmarks/RESULTS.md``.

Usage: ``python benchmarks/suite.py [--quick] [--workers N] [--only CASE ...]``. Each case builds one
tablebase, storage included, in a fresh process of its own (its dependencies are built
first and not timed), and reports its positions, seconds end to end, positions per
second, the seconds of each stage, peak memory (this process, and the largest
move-generating worker) with bytes per position at that peak, and bytes per position on
disk. Then two comparisons, each measured in one run:

- the reference solver of ``tests/reference.py`` (per-position Python, a plain queue
  pass) against our build of the same graph, Connect Four 4x4;
- move generation in one process against one worker per core, chess KQvKR.

``--quick`` leaves out the cases that take minutes (Connect Four 6x4, Dobutsu shogi).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.reference

from tablebase.build.builder import build, solve_in_memory  # noqa: E402
from tablebase.solve.registry import load_game  # noqa: E402
from tablebase.store import open_store  # noqa: E402
from tablebase.util.progress import StageTimer  # noqa: E402

CASES = {
    "tic-tac-toe 3x3": ("tictactoe", {}),
    "tic-tac-toe 4x4 k=4": ("tictactoe", {"m": "4", "n": "4", "k": "4"}),
    "Connect Four 4x4": ("connect4", {"width": "4", "height": "4"}),
    "Connect Four 5x4": ("connect4", {"width": "5", "height": "4"}),
    "Connect Four 4x5": ("connect4", {"width": "4", "height": "5"}),
    "Connect Four 6x4": ("connect4", {"width": "6", "height": "4"}),
    "chess KQvKR": ("chess", {"material": "KQvKR"}),
    "Kalah(4,3)": ("kalah", {"pits": "4", "seeds": "3"}),
    "Kalah(4,4)": ("kalah", {"pits": "4", "seeds": "4"}),
    "Dobutsu shogi": ("dobutsu", {}),
}
SLOW = {"Connect Four 6x4", "Dobutsu shogi"}


def _peaks() -> tuple[float, float]:
    """Peak resident memory in MiB of this process and of its largest worker."""
    return tuple(resource.getrusage(who).ru_maxrss / 1024 for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))


def run_case(name: str, workers: int | None) -> dict:
    """Build one case into a fresh database; its figures as a dict."""
    game_name, params = CASES[name]
    game = load_game(game_name, params)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.sqlite"
        with open_store(path) as store:
            for dependency in game.dependencies():
                build(dependency, store, workers=workers)
            timer = StageTimer()
            started = time.perf_counter()
            row = build(game, store, stages=timer, workers=workers).row
            seconds = time.perf_counter() - started
        disk = sum(p.stat().st_size for p in Path(folder).iterdir())
    peak, worker = _peaks()
    return {
        "case": name,
        "positions": row.positions,
        "seconds": seconds,
        "stages": timer.seconds,
        "peak_mib": peak,
        "worker_mib": worker,
        "disk_bytes": disk,
    }


def compare_reference() -> dict:
    """Seconds of the reference solver and of ours on Connect Four 4x4 (no storage)."""
    from tests.reference import solve_game as reference_solve

    game = load_game("connect4", {"width": "4", "height": "4"})
    started = time.perf_counter()
    ours = solve_in_memory(game)
    our_seconds = time.perf_counter() - started
    started = time.perf_counter()
    theirs = reference_solve(game)
    reference_seconds = time.perf_counter() - started
    assert len(theirs) == len(ours.keys)
    return {"positions": len(ours.keys), "ours": our_seconds, "reference": reference_seconds}


def compare_workers() -> dict:
    """Seconds of the expand stage of chess KQvKR with 1 worker and with one per core."""
    from tablebase.util.cores import usable_cores

    game = load_game("chess", {"material": "KQvKR"})
    figures = {}
    with tempfile.TemporaryDirectory() as folder, open_store(Path(folder) / "bench.sqlite") as store:
        for dependency in game.dependencies():
            build(dependency, store)
        for count in (1, usable_cores()):
            timer = StageTimer()
            solve_in_memory(game, stages=timer, store=store, workers=count)
            figures[count] = timer.seconds["expand"]
    return figures


def _child(arguments: list[str]) -> dict:
    output = subprocess.run([sys.executable, __file__, *arguments], check=True, capture_output=True, text=True)
    return json.loads(output.stdout.splitlines()[-1])


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="leave out the cases that take minutes")
    parser.add_argument("--workers", type=int, help="move-generating processes (default one per core)")
    parser.add_argument("--only", nargs="+", choices=sorted(CASES), help="these cases alone, no comparisons")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--compare", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.workers)))
        return
    if args.compare:
        print(json.dumps(compare_reference() if args.compare == "reference" else compare_workers()))
        return

    workers = ["--workers", str(args.workers)] if args.workers else []
    print("| case | positions | end to end | positions/s | stages (s) | peak memory | bytes/position at peak | on disk |")
    print("|---|---:|---:|---:|---|---:|---:|---:|")
    for name in args.only or CASES:
        if args.quick and name in SLOW:
            continue
        r = _child(["--case", name, *workers])
        stages = ", ".join(f"{stage} {seconds:.2f}" for stage, seconds in r["stages"].items())
        print(
            f"| {name} | {r['positions']:,} | {r['seconds']:.2f} s | {r['positions'] / r['seconds']:,.0f} | {stages} "
            f"| {r['peak_mib']:,.0f} MiB (+ worker {r['worker_mib']:,.0f} MiB) "
            f"| {r['peak_mib'] * 2**20 / r['positions']:,.0f} | {r['disk_bytes'] / r['positions']:.2f} B |"
        )
    if args.only:
        return
    reference = _child(["--compare", "reference"])
    print(
        f"\nReference solver (tests/reference.py) against ours, Connect Four 4x4, {reference['positions']:,} "
        f"positions, no storage: {reference['reference']:.2f} s against {reference['ours']:.2f} s, "
        f"ratio {reference['reference'] / reference['ours']:.0f}x."
    )
    speeds = _child(["--compare", "workers"])
    (one, single), (many, parallel) = sorted((int(k), v) for k, v in speeds.items())
    print(
        f"Move generation (expand stage), chess KQvKR: {single:.2f} s with {one} process, "
        f"{parallel:.2f} s with {many} workers, speed-up {single / parallel:.2f}x."
    )


if __name__ == "__main__":
    main()
