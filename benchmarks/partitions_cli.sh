#!/usr/bin/env bash
# One tablebase through the commands a user runs: `tablebase build --force` locally, then
# `tablebase build --cluster tcp://127.0.0.1:8788 --partitions P` on a scheduler and P
# worker processes of one thread each started here (`dask scheduler`, `dask worker`),
# each on its own copy of DB (which holds the tablebase's dependencies). Prints the wall
# seconds and peaks of both, each worker's peak, and how many positions the two
# databases store alike (benchmarks/partitions.py's comparison, every position).
#
#     benchmarks/partitions_cli.sh DB 4 chess -p material=KRBvKR
set -euo pipefail
db="$1"; partitions="$2"; shift 2
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'pkill -f "dask worker tcp://127.0.0.1:8788" || true; pkill -f "dask scheduler --host 127.0.0.1 --port 8788" || true; rm -rf "$work"' EXIT
cp "$db" "$work/local.sqlite"; cp "$db" "$work/cluster.sqlite"
/usr/bin/time -f "local: %e s wall, peak %M KiB" tablebase build "$@" --db "$work/local.sqlite" --force > /dev/null
dask scheduler --host 127.0.0.1 --port 8788 --no-dashboard > "$work/scheduler.log" 2>&1 &
sleep 3
for _ in $(seq "$partitions"); do
    dask worker tcp://127.0.0.1:8788 --nthreads 1 --memory-limit 0 --no-dashboard --no-nanny > /dev/null 2>&1 &
done
sleep 8
/usr/bin/time -f "cluster, $partitions partitions: %e s wall, driver peak %M KiB" \
    tablebase build "$@" --db "$work/cluster.sqlite" --force --cluster tcp://127.0.0.1:8788 --partitions "$partitions" > /dev/null
HERE="$here" python - "$work" "$@" <<'PY'
import resource, sys
sys.path.insert(0, __import__("os").environ["HERE"])
from distributed import Client
from partitions import same_values
work, game, *rest = sys.argv[1:]
params = dict(item.split("=", 1) for item in rest if item != "-p")
with Client("tcp://127.0.0.1:8788") as client:
    peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
print("each worker's peak:", ", ".join(f"{mib:,.0f} MiB" for mib in sorted(peaks.values())))
print(f"every one of {same_values(game, params, f'{work}/local.sqlite', f'{work}/cluster.sqlite'):,} positions as the local build stores it")
PY
