"""Probe speed from Python: per board (cold and warm), many boards at once, arrays of keys,
and ranked moves, beside python-chess probing the Syzygy files on the same boards.

Usage: ``python benchmarks/probe.py --db DB [--material KQvKR,KRBvKR] [--syzygy DIR]``.

The endings must be built in DB. For each ending: 2,000 random legal boards (either side
holding either half of the material); ``probe_wdl`` on a freshly opened database (after one
probe of KvK, which opens the database and makes the process's first query, and one
batch probe of it, which loads its compiled code): of the
first board (cold: the ending's catalog row and a block are read), of every board, and
of every board again (warm); the same boards
through ``probe_wdl_many``; 10^6 random keys of the index space through ``probe_keys``;
every move of 200 of the boards ranked twice (``Tablebase.moves``, what ``query`` prints; the first time reads their successors' blocks); and
``chess.syzygy``'s ``probe_wdl`` on the same boards where ``--syzygy`` names the folder of
the Syzygy files (default ``../shared/oracle/syzygy`` and ``syzygy5`` beside it).
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import chess
import chess.syzygy
import numpy as np

import tablebase

BOARDS = 2000
KEYS = 1_000_000
RANKED = 200
ORACLE = Path(__file__).resolve().parents[2] / "shared" / "oracle"


def random_boards(material: str, count: int, seed: int = 0) -> list[chess.Board]:
    """Random valid boards of a material, either side holding either half of it."""
    rng = random.Random(seed)
    sides = material.split("v")
    found: list[chess.Board] = []
    while len(found) < count:
        board = chess.Board(None)
        white, black = sides if rng.random() < 0.5 else sides[::-1]
        for symbol, square in zip([*white, *black.lower()], rng.sample(range(64), len(white) + len(black))):
            board.set_piece_at(square, chess.Piece.from_symbol(symbol))
        board.turn = rng.random() < 0.5
        if board.is_valid():
            found.append(board)
    return found


def per_item(seconds: float, count: int) -> str:
    return f"{seconds / count * 1e6:8.1f} us"


def main() -> None:
    """Print one block of lines per ending."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--material", default="KQvKR,KRBvKR")
    parser.add_argument("--syzygy", default=f"{ORACLE / 'syzygy'}:{ORACLE / 'syzygy5'}")
    args = parser.parse_args()
    folders = [folder for folder in args.syzygy.split(":") if Path(folder).is_dir()]
    syzygy = chess.syzygy.open_tablebase(folders[0]) if folders else None
    for folder in folders[1:]:
        syzygy.add_directory(folder)  # type: ignore[union-attr]
    for material in args.material.split(","):
        boards = random_boards(material, BOARDS)
        started = time.perf_counter()
        with tablebase.open(args.db) as tb:
            kvk = chess.Board("8/8/8/8/8/2k5/8/K7 w - - 0 1")
            tb.probe_wdl(kvk)  # KvK: the process's first probe
            tb.probe_wdl_many([kvk])  # and first batch probe (its compiled code loaded)
            opened = time.perf_counter() - started
            started = time.perf_counter()
            first = tb.probe_wdl(boards[0])
            cold = time.perf_counter() - started
            started = time.perf_counter()
            ours = [tb.probe_wdl(board) for board in boards]
            touch = time.perf_counter() - started
            started = time.perf_counter()
            again = [tb.probe_wdl(board) for board in boards]
            warm = time.perf_counter() - started
            assert again == ours
            started = time.perf_counter()
            many = tb.probe_wdl_many(boards)
            at_once = time.perf_counter() - started
            assert many.tolist() == ours and ours[0] == first
            size = tb.tablebase("chess", material=material).game.size
            keys = np.random.default_rng(0).integers(0, size, size=KEYS)
            started = time.perf_counter()
            tb.probe_keys("chess", keys, material=material)
            keyed = time.perf_counter() - started
            query = tb.tablebase("chess")
            positions = [query.parse(board.fen()) for board in boards[:RANKED]]
            query.moves(query.parse(boards[-1].fen()))  # the compiled move generator loaded from its cache
            started = time.perf_counter()
            for position in positions:
                query.moves(position)
            ranked = time.perf_counter() - started
            started = time.perf_counter()
            for position in positions:
                query.moves(position)
            ranked_again = time.perf_counter() - started
        print(f"{material}: {BOARDS:,} boards")
        print(f"  open, a first probe and batch (KvK)      {opened * 1e3:8.2f} ms")
        print(f"  probe_wdl cold (the ending's first)      {cold * 1e3:8.2f} ms")
        print(f"  probe_wdl, each board's first probe      {per_item(touch, BOARDS)} a board")
        print(f"  probe_wdl warm (the same boards again)   {per_item(warm, BOARDS)} a board")
        print(f"  probe_wdl_many                           {per_item(at_once, BOARDS)} a board")
        print(f"  probe_keys, 10^6 random keys             {KEYS / keyed:10,.0f} keys a second")
        print(f"  moves ranked (query), first time         {RANKED / ranked:10,.0f} positions a second")
        print(f"  moves ranked (query), again              {RANKED / ranked_again:10,.0f} positions a second")
        if syzygy is not None:
            theirs = [syzygy.probe_wdl(board) for board in boards]
            started = time.perf_counter()  # the second pass, as ours
            theirs = [syzygy.probe_wdl(board) for board in boards]
            peer = time.perf_counter() - started
            agree = sum(a == b for a, b in zip(ours, theirs))
            print(f"  python-chess on Syzygy, probe_wdl warm   {per_item(peer, BOARDS)} a board ({agree:,} of {BOARDS:,} agree)")


if __name__ == "__main__":
    main()
