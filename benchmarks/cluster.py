"""Local against cluster builds: end-to-end seconds and the bytes exchanged with the
cluster's workers (tablebase.build.cluster.build_on_cluster).

    python benchmarks/cluster.py                      # KQvKR and Connect Four 5x4, 2 workers
    python benchmarks/cluster.py --workers 4
    python benchmarks/cluster.py --cluster tcp://host:8786 chess -p material=KQvKR

Without ``--cluster`` it starts a Dask cluster on this machine (``LocalCluster``: one
process of one thread per worker). Each build, local or on the cluster, starts from an
empty database, dependencies included. The bytes are the payload of the move-generating
tasks of the tablebase itself: keys sent, arrays of moves received (the pickled tasks and
Dask's own messages add a little).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from tablebase.build.builder import build
from tablebase.build.cluster import build_on_cluster, cluster_workers, connect
from tablebase.solve.registry import load_game
from tablebase.store import open_store

GAMES = [("chess", {"material": "KQvKR"}), ("connect4", {"width": "5", "height": "4"})]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?")
    parser.add_argument("-p", "--param", action="append", default=[])
    parser.add_argument("--workers", type=int, default=2, help="workers of the cluster started here")
    parser.add_argument("--cluster", help="a running scheduler instead of one started here")
    args = parser.parse_args()
    games = [(args.game, dict(item.split("=", 1) for item in args.param))] if args.game else GAMES
    if args.cluster:
        with connect(args.cluster) as client:
            compare(client, games)
        return
    from distributed import LocalCluster

    with LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=None) as cluster:
        with connect(cluster.scheduler_address) as client:
            compare(client, games)


def compare(client, games: list[tuple[str, dict[str, str]]]) -> None:  # type: ignore[no-untyped-def]
    threads = sum(client.nthreads().values())
    print(f"cluster: {len(client.nthreads())} workers, {threads} threads")
    print("| tablebase | positions | local | cluster | keys sent | moves received | bytes/position |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, params in games:
        game = load_game(name, params)
        with tempfile.TemporaryDirectory() as directory:
            started = time.perf_counter()
            with open_store(Path(directory) / "local.sqlite") as store:
                result = build(game, store)
            local = time.perf_counter() - started
            remote = cluster_workers(client)
            started = time.perf_counter()
            build_on_cluster(client, game, str(Path(directory) / "cluster.sqlite"), workers=remote)
            on_cluster = time.perf_counter() - started
        n = result.row.positions
        print(
            f"| {game.describe()} | {n:,} | {local:.1f} s | {on_cluster:.1f} s | {remote.sent / 2**20:,.1f} MiB "
            f"| {remote.received / 2**20:,.1f} MiB | {(remote.sent + remote.received) / n:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
