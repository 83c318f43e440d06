"""One tablebase built locally against built by the partitioned pass on a cluster
(``build --cluster --partitions P``): seconds, bytes exchanged between partitions, each
worker's peak memory and the driver's, and every stored value compared with the local
build's.

    python benchmarks/partitions.py --db DB chess -p material=KRBvKR --partitions 2,4
    python benchmarks/partitions.py --db DB chess -p material=KRBvKR -p metric=dtm --partitions 4

``DB`` holds the tablebase's dependencies (a first ``tablebase build`` stores them); it is
copied for each run, which rebuilds the tablebase alone. Each build runs in a child
process of its own: the local one as ``tablebase build --force``, each partitioned one
driving a fresh ``LocalCluster`` of P worker processes of one thread. A peak is a
process's ``ru_maxrss``, which a worker started by fork inherits from its driver at the
start (a few hundred MiB, below every peak here).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from tablebase.build.builder import build
from tablebase.build.cluster import connect, solve_by_partitions
from tablebase.solve.registry import load_game
from tablebase.store import open_store
from tablebase.store.schema import EXTRA_KINDS

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.backends
from tests.backends import postgres_database  # noqa: E402


def _peak_mib(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def local(name: str, params: dict[str, str], database: Path) -> tuple[float, float]:
    """Seconds and peak MiB of ``tablebase build --force`` in a child process."""
    command = [sys.executable, "-m", "tablebase", "build", name, *[f"-p{k}={v}" for k, v in params.items()]]
    started = time.perf_counter()
    subprocess.run([*command, "--db", str(database), "--force"], check=True, capture_output=True)
    return time.perf_counter() - started, _peak_mib(resource.RUSAGE_CHILDREN)


def partitioned(name: str, params: dict[str, str], database: str, partitions: int) -> dict[str, float]:
    """Seconds, traffic and peaks of one build with ``partitions`` partitions."""
    from distributed import LocalCluster

    game, found = load_game(name, params), {}

    def solver(table, stages):  # type: ignore[no-untyped-def]
        solved, found["traffic"] = solve_by_partitions(client, table, str(database), partitions, stages)
        return solved

    stage_seconds: dict[str, float] = {}

    @contextlib.contextmanager
    def timed(name: str, _total: int | None) -> Iterator[Callable[[int], None]]:
        started = time.perf_counter()
        try:
            yield lambda _count: None
        finally:
            stage_seconds[name] = stage_seconds.get(name, 0.0) + time.perf_counter() - started

    with LocalCluster(n_workers=partitions, threads_per_worker=1, dashboard_address=None, memory_limit=0) as cluster:
        with connect(cluster.scheduler_address) as client:
            baseline = client.run(_loaded_mib)
            started = time.perf_counter()
            with open_store(database) as store:
                build(game, store, force=True, solver=solver, stages=timed)
            seconds = time.perf_counter() - started
            workers = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return {
        "seconds": seconds,
        "writing": stage_seconds["write"],
        "traffic": found["traffic"].total,
        "rounds": len(found["traffic"].rounds),
        "workers": sorted(workers.values()),
        "baseline": max(baseline.values()),
        "driver": _peak_mib(),
        "keys": int(game.size or game.estimate_positions() or 0),
    }


def _loaded_mib() -> float:
    """A worker's resident MiB once it has imported what a partition needs (its
    baseline, beside which the partition's share grows)."""
    importlib.import_module("tablebase.build.actors")
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 2**20


MACHINE_GIB = 64
"""The memory of the machines a projection counts (issue 26: machines of 64 GB)."""

LINK_BYTES_PER_SECOND = 1.25e9
"""The driver's link in a projection: 10 Gbit/s (every update passes through it)."""


def projection(measured: dict[str, float], partitions: int, keys: int, more: float = 0.0) -> list[str]:
    """Lines projecting a build of ``keys`` keys (or positions) from one measured
    partitioned build, on N machines of :data:`MACHINE_GIB` GiB with one partition each
    (one core), with the basis of each figure: a worker's bytes a key beyond its
    baseline, the CPU seconds a key (both cores of this machine busy: the workers share
    them) and the bytes exchanged a key, each as measured; the dependencies a worker
    reads are in its measured bytes a key, not scaled to a larger ending's. ``more``:
    bytes a key the projected build holds beyond the measured one's (keys past 2**32,
    held as int64 instead of uint32: 4)."""
    share = measured["keys"] / partitions
    per_key = (max(measured["workers"]) - measured["baseline"]) * 2**20 / share + more
    cpu_per_key = measured["seconds"] * min(partitions, 2) / measured["keys"]
    traffic_per_key = measured["traffic"] / measured["keys"]
    lines = [
        f"projection for {keys:,} keys, from this run with {partitions} partitions: "
        f"{per_key:.1f} bytes a key a worker beyond its {measured['baseline']:,.0f} MiB baseline ({more:g} of them added), "
        f"{cpu_per_key * 1e6:.2f} CPU us a key, {traffic_per_key:.1f} bytes exchanged a key "
        f"(more with more partitions: fewer moves stay inside one), through a {LINK_BYTES_PER_SECOND * 8 / 1e9:.0f} Gbit/s link",
    ]
    for machines in (1, 2, 4, 8, 16, 32):
        memory = measured["baseline"] * 2**20 + per_key * keys / machines
        seconds = cpu_per_key * keys / machines + traffic_per_key * keys / LINK_BYTES_PER_SECOND
        fits = "fits" if memory <= MACHINE_GIB * 2**30 else "does not fit"
        lines.append(f"  {machines:>2} machines: {memory / 2**30:,.1f} GiB each ({fits} in {MACHINE_GIB}), about {seconds / 3600:,.1f} h")
    return lines


def same_values(name: str, params: dict[str, str], one: Path | str, other: Path | str) -> int:
    """How many positions the tablebase stores in both databases, with the same values
    (outcome, remoteness, and DTZ or any other extra value), read in key order a
    stored part at a time (the parts of one need not end where the other's do);
    :raises AssertionError: at the first that differs."""
    game, compared = load_game(name, params), 0
    with open_store(one) as first, open_store(other) as second:
        rows = [store.find(game.name, game.identity(), game.version) for store in (first, second)]
        streams = [store.read_parts(row, extra=row.value_kind in EXTRA_KINDS) for store, row in zip((first, second), rows)]
        held: list[tuple[np.ndarray, ...]] = [(), ()]
        while True:
            for side, stream in enumerate(streams):
                if not held[side] or not len(held[side][0]):
                    held[side] = next(stream, ())
            if not held[0] or not held[1]:
                assert not held[0] and not held[1], "one stores more positions than the other"
                return compared
            n = min(len(held[0][0]), len(held[1][0]))
            for column, (a, b) in enumerate(zip(held[0], held[1])):
                assert np.array_equal(a[:n], b[:n]), f"column {column} differs from key {int(held[0][0][0])}"
            held = [tuple(column[n:] for column in part) for part in held]
            compared += n


@contextlib.contextmanager
def _target(args: argparse.Namespace, params: dict[str, str], copy: Path) -> Iterator[str]:
    """Where a partitioned build goes: a copy of ``--db``, or with ``--postgres`` a new
    database on that server, the tablebase's dependencies built into it first (not
    timed), dropped after."""
    if not args.postgres:
        copy.unlink(missing_ok=True)
        shutil.copy(args.db, copy)
        yield str(copy)
        return
    with postgres_database(args.postgres) as url:
        with open_store(url) as store:
            for dependency in load_game(args.game, params).dependencies():
                build(dependency, store)
        yield url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("-p", "--param", action="append", default=[])
    parser.add_argument("--db", required=True, help="a database holding the tablebase's dependencies")
    parser.add_argument("--partitions", default="2,4")
    parser.add_argument("--project", type=int, help="also project a build of this many keys (positions) from each partitioned run")
    parser.add_argument("--project-more", type=float, default=0.0, help="bytes a key the projected build holds beyond the measured one's")
    parser.add_argument("--postgres", help="write the partitioned builds into a new database on this PostgreSQL server (a URL), where each worker writes its own key range")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    params = dict(item.split("=", 1) for item in args.param)
    if args.one:
        print(json.dumps(partitioned(args.game, params, args.db, args.one)))
        return
    with tempfile.TemporaryDirectory() as directory:
        copy, built_here = Path(directory) / "copy.sqlite", Path(directory) / "local.sqlite"
        shutil.copy(args.db, built_here)
        seconds, peak = local(args.game, params, built_here)
        print(f"{args.game} {params}")
        print("| build | seconds | of them writing | exchanged | rounds | each worker's peak | driver's peak |")
        print("|---|---:|---:|---:|---:|---|---:|")
        print(f"| local | {seconds:.1f} s | | | | {peak:,.0f} MiB (the build process) | |")
        for partitions in map(int, args.partitions.split(",")):
            with _target(args, params, copy) as target:
                child = [sys.executable, __file__, args.game, *[f"-p{k}={v}" for k, v in params.items()]]
                output = subprocess.run([*child, "--db", target, "--one", str(partitions)], check=True, capture_output=True, text=True)
                r = json.loads(output.stdout.splitlines()[-1])
                peaks = ", ".join(f"{mib:,.0f}" for mib in r["workers"])
                print(
                    f"| {partitions} partitions{' into PostgreSQL' if args.postgres else ''} | {r['seconds']:.1f} s "
                    f"({r['seconds'] / seconds:.2f}x) | {r['writing']:.1f} s | {r['traffic'] / 2**20:,.0f} MiB | {r['rounds']} | "
                    f"{peaks} MiB ({max(r['workers']) / peak:.0%} of local) | {r['driver']:,.0f} MiB |"
                )
                print(f"  {partitions} partitions: every one of {same_values(args.game, params, built_here, target):,} positions as the local build stores it")
            if args.project:
                print("\n".join(projection(r, partitions, args.project, args.project_more)))


if __name__ == "__main__":
    main()
