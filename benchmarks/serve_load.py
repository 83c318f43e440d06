"""Load test of ``tablebase serve`` on loopback: 16 concurrent clients for 30 s against
lichess's ``/standard`` (chess KQvK and KRvK positions) and ``/api/tictactoe``.

Prints requests per second, p50 and p99 latency per endpoint, and the number of errors
(any status but 200). The server is a real ``tablebase serve`` process (one uvicorn
worker); the clients are threads of this process with keep-alive connections. Traffic
goes only to 127.0.0.1, and the run stops by itself after ``--seconds``.

    python benchmarks/serve_load.py [--clients 16] [--seconds 30]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import chess
import httpx2 as httpx
import numpy as np

from tablebase.build import build
from tablebase.game import load_game
from tablebase.store import open_store

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.serving
from tests.serving import served  # noqa: E402


def chess_fens(count: int, rng: random.Random) -> list[str]:
    """Random legal KQvK and KRvK positions."""
    fens = []
    while len(fens) < count:
        board = chess.Board(None)
        squares = rng.sample(range(64), 3)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        board.set_piece_at(squares[2], chess.Piece(rng.choice([chess.QUEEN, chess.ROOK]), chess.WHITE))
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        if board.is_valid():
            fens.append(board.fen())
    return fens


def tictactoe_positions(count: int, rng: random.Random) -> list[str]:
    """Positions of random legal play, 0 to 6 plies from the start."""
    game = load_game("tictactoe")
    found = []
    while len(found) < count:
        position = game.start_positions()[0]
        for _ in range(rng.randrange(7)):
            if game.terminal(position) is not None:
                break
            position = rng.choice(game.moves(position))[1]
        found.append(game.format(position))
    return found


def client(base: str, urls: list[str], stop: float, latencies: dict[str, list[float]], errors: list[str]) -> None:
    rng = random.Random(threading.get_ident())
    with httpx.Client(base_url=base, timeout=30) as session:
        while time.perf_counter() < stop:
            url = rng.choice(urls)
            started = time.perf_counter()
            answer = session.get(url)
            latencies[url.split("?")[0]].append(time.perf_counter() - started)
            if answer.status_code != 200:
                errors.append(f"{answer.status_code} {url}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as directory:
        database = Path(directory) / "tb.sqlite"
        with open_store(database) as store:
            build(load_game("tictactoe"), store)
            build(load_game("chess", {"material": "KRvK"}), store)
            build(load_game("chess", {"material": "KQvK"}), store)
        with served(database) as base:
            urls = [f"/standard?{urlencode({'fen': fen.replace(' ', '_')})}" for fen in chess_fens(200, rng)]
            urls += [f"/api/tictactoe?{urlencode({'position': text})}" for text in tictactoe_positions(200, rng)]
            latencies: dict[str, list[float]] = {"/standard": [], "/api/tictactoe": []}
            errors: list[str] = []
            stop = time.perf_counter() + args.seconds
            threads = [
                threading.Thread(target=client, args=(base, urls, stop, latencies, errors)) for _ in range(args.clients)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    total = sum(len(times) for times in latencies.values())
    print(f"{args.clients} clients, {args.seconds:.0f} s: {total / args.seconds:.0f} requests/s, {len(errors)} errors")
    for endpoint, times in latencies.items():
        ms = np.array(times) * 1000
        print(f"  {endpoint:<16} {len(times):>6} requests  p50 {np.percentile(ms, 50):6.1f} ms  p99 {np.percentile(ms, 99):6.1f} ms")
    if errors:
        print("  first errors:", errors[:3])
        raise SystemExit(1)


if __name__ == "__main__":
    main()
