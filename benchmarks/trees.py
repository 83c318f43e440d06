"""Builds, probes, queries and serving, timed on two source trees in one run, turn about.

A refactor must leave the speed of every public path where it was. This benchmark times
the same public paths (the CLI, ``tablebase.open``, ``tablebase serve``) with two
interpreters, each with one tree of tablebase installed, in turns (old, new, old, new,
...), and prints each figure's median for both and the ratio new/old of the medians:

- ``build``: ``tablebase build chess -p material=KQvKR`` into a fresh database (KvK, KQvK
  and KRvK built too), and ``tablebase build connect4 -p width=4 -p height=4`` (the move
  graph path), seconds end to end;
- ``query -``: 2,000 KQvKR FENs answered by ``tablebase query chess -``, seconds;
- ``probe_wdl``: microseconds a warm probe of the same 2,000 boards (the best of three
  rounds), through ``tablebase.open(db).probe_wdl``;
- ``serve``: requests a second of ``GET /standard?fen=`` over one keep-alive connection,
  2,000 FENs, against ``tablebase serve`` with one worker.

Usage::

    python benchmarks/trees.py --old OLD_TREE/.venv/bin/python --new .venv/bin/python [--rounds 5]

Each interpreter compiles its tree's kernels once, in a warm-up round that is not counted.
Traffic goes only to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import chess

FENS = 2000
PROBE = """
import sys, time, chess, tablebase
fens = open(sys.argv[2]).read().split("\\n")
boards = [chess.Board(fen) for fen in fens if fen]
with tablebase.open(sys.argv[1]) as tb:
    best = None
    for _ in range(3):
        start = time.perf_counter()
        for board in boards:
            tb.probe_wdl(board)
        took = (time.perf_counter() - start) / len(boards)
        best = took if best is None else min(best, took)
print(best * 1e6)
"""


def random_fens(count: int, seed: int = 0) -> list[str]:
    """Legal KQvKR positions, either side to move, not in check for the side not to move."""
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        board = chess.Board(None)
        squares = rng.sample(range(64), 4)
        for square, symbol in zip(squares, "KQkr"):
            board.set_piece_at(square, chess.Piece.from_symbol(symbol))
        board.turn = rng.random() < 0.5
        if board.is_valid():
            found.append(board.fen())
    return found


def _timed(command: list[str], stdin: str | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(command, input=stdin, text=True, check=True, capture_output=True)
    return time.perf_counter() - start


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _served_rate(python: str, db: Path, fens: list[str]) -> float:
    """Requests a second of one keep-alive client against ``tablebase serve``."""
    port = _free_port()
    server = subprocess.Popen(
        [python, "-m", "tablebase", "serve", "--db", str(db), "--port", str(port), "--workers", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                connection.request("GET", "/standard?fen=" + quote(fens[0]))
                connection.getresponse().read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        start = time.perf_counter()
        for fen in fens:
            connection.request("GET", "/standard?fen=" + quote(fen))
            answer = connection.getresponse()
            answer.read()
            assert answer.status == 200, answer.status
        rate = len(fens) / (time.perf_counter() - start)
        connection.close()
        return rate
    finally:
        server.terminate()
        server.wait(30)


def one_round(python: str, folder: Path, fens_file: Path, fens: list[str]) -> dict[str, float]:
    """Every figure of one interpreter, once."""
    db = folder / f"round-{time.monotonic_ns()}.sqlite"
    figures = {
        "build KQvKR (s)": _timed([python, "-m", "tablebase", "build", "chess", "-p", "material=KQvKR", "--db", str(db)]),
        "build connect4 4x4 (s)": _timed(
            [python, "-m", "tablebase", "build", "connect4", "-p", "width=4", "-p", "height=4", "--db", str(db)]
        ),
        "query - 2,000 FENs (s)": _timed([python, "-m", "tablebase", "query", "chess", "-", "--db", str(db), "--workers", "1"], "\n".join(fens) + "\n"),
    }
    probe = subprocess.run([python, "-c", PROBE, str(db), str(fens_file)], text=True, check=True, capture_output=True)
    figures["probe_wdl warm (us)"] = float(probe.stdout.split()[-1])
    figures["serve GET /standard (1/s)"] = _served_rate(python, db, fens)
    for leftover in folder.glob(db.name + "*"):
        leftover.unlink()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the interpreter of the old tree")
    parser.add_argument("--new", default=sys.executable, help="the interpreter of the new tree")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    args.old, args.new = os.path.abspath(args.old), os.path.abspath(args.new)
    fens = random_fens(FENS)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        os.chdir(folder)  # `python -m tablebase` and `-c` import from the working directory first: not a tree's
        fens_file = folder / "fens.txt"
        fens_file.write_text("\n".join(fens) + "\n")
        runs: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
        for number in range(args.rounds + 1):  # the first round warms each tree's compiled code
            for tree in ("old", "new"):
                figures = one_round(getattr(args, tree), folder, fens_file, fens)
                if number:
                    runs[tree].append(figures)
                print(json.dumps({"round": number, "tree": tree, **{k: round(v, 3) for k, v in figures.items()}}), flush=True)
    print(f"\n| figure | old (median of {args.rounds}) | new | new / old |\n|---|---:|---:|---:|")
    for figure in runs["old"][0]:
        old = statistics.median(run[figure] for run in runs["old"])
        new = statistics.median(run[figure] for run in runs["new"])
        print(f"| {figure} | {old:.3f} | {new:.3f} | {new / old:.3f} |")


if __name__ == "__main__":
    main()
