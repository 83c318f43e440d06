"""Load test of ``tablebase serve`` on loopback with wrk: lichess's ``/standard`` on random
FENs of KQvKR and KRBvKR, at 16 and 64 connections, one worker process and one per core;
then the batch endpoint (``POST /standard``, 100 FENs a request).

Prints, per run, requests per second, p50 and p99 latency and the errors (wrk's socket
errors and any status but 200). The server is a real ``tablebase serve`` process; the
load comes from wrk (C, 2 threads), which shares the machine's cores with the server.
Each run picks its requests at random among ``--fens`` FENs per ending, so the server's
block cache meets the misses a real stream of positions gives; each server's first run
(whose workers read the endings' blocks for the first time) is printed apart, then the
runs of a server that has read them. Traffic goes only to
127.0.0.1. Needs wrk (Debian: ``apt-get install wrk``).

    python benchmarks/serve_load.py --db DB [--clients 16 64] [--seconds 30] [--fens 20000]

DB must hold KQvKR and KRBvKR (``tablebase build chess -p material=KRBvKR`` and
``... material=KQvKR``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

from probe import random_boards

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.serving
from tablebase.util.cores import usable_cores  # noqa: E402
from tests.serving import served  # noqa: E402

ENDINGS = ("KQvKR", "KRBvKR")
BATCH = 100

SCRIPT = """
local items = {}
for line in io.lines(os.getenv("LOAD_ITEMS")) do items[#items + 1] = line end
local method = os.getenv("LOAD_METHOD")
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
request = function()
  local item = items[math.random(#items)]
  if method == "POST" then
    return wrk.format("POST", "/standard", {["Content-Type"] = "application/json"}, item)
  end
  return wrk.format("GET", item)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d\\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(99), e.connect + e.read + e.write + e.timeout + e.status))
end
"""


def load(base: str, script: Path, items: Path, method: str, clients: int, seconds: float) -> tuple[float, float, float, int]:
    """One wrk run: ``(requests a second, p50 ms, p99 ms, errors)``."""
    environment = {**os.environ, "LOAD_ITEMS": str(items), "LOAD_METHOD": method}
    done = subprocess.run(
        ["wrk", "-t", "2", "-c", str(clients), "-d", f"{seconds:.0f}s", "--timeout", "10s", "-s", str(script), base],
        capture_output=True, text=True, env=environment, check=True,
    )
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    requests, duration_us, p50_us, p99_us, errors = map(int, line.split()[1:])
    return requests / (duration_us / 1e6), p50_us / 1e3, p99_us / 1e3, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="a database holding KQvKR and KRBvKR")
    parser.add_argument("--clients", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--fens", type=int, default=20000, help="random FENs per ending")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("serve_load needs wrk (Debian: apt-get install wrk)")
    fens = [board.fen() for material in ENDINGS for board in random_boards(material, args.fens, seed=1)]
    with tempfile.TemporaryDirectory() as directory:
        script, urls, batches = Path(directory, "load.lua"), Path(directory, "urls"), Path(directory, "batches")
        script.write_text(SCRIPT)
        urls.write_text("".join(f"/standard?fen={quote(fen.replace(' ', '_'))}\n" for fen in fens))
        batches.write_text("".join(json.dumps(fens[i : i + BATCH]) + "\n" for i in range(0, len(fens), BATCH)))
        print(f"GET /standard, random FENs of {' and '.join(ENDINGS)} ({len(fens):,}), {args.seconds:.0f} s a run, wrk 2 threads")
        for workers in sorted({1, usable_cores()}):
            with served(args.db, workers=workers) as base:
                rate, p50, p99, errors = load(base, script, urls, "GET", args.clients[0], args.seconds)
                print(
                    f"  {workers} worker(s), {args.clients[0]:>3} connections, the server's first run (its blocks read): "
                    f"{rate:8,.0f} requests/s  p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  {errors} errors"
                )
                for clients in args.clients:
                    rate, p50, p99, errors = load(base, script, urls, "GET", clients, args.seconds)
                    print(f"  {workers} worker(s), {clients:>3} connections: {rate:8,.0f} requests/s  p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  {errors} errors")
                if workers == usable_cores():
                    rate, p50, p99, errors = load(base, script, batches, "POST", args.clients[0], args.seconds)
                    print(
                        f"  POST /standard, {BATCH} FENs a request, {workers} worker(s), {args.clients[0]} connections: "
                        f"{rate * BATCH:8,.0f} FENs/s  p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  {errors} errors"
                    )


if __name__ == "__main__":
    main()
