"""Kalah(m, n): the mancala game of m pits a side and n seeds a pit, a scored game.

The rules are those of G. Irving, J. Donkers and J. Uiterwijk, "Solving Kalah", ICGA
Journal 23(3), 2000, as the game is played commercially:

- Each player owns the ``m`` pits of their side and the store at its right. A move takes
  every seed of one of the mover's non-empty pits and sows them one by one
  counter-clockwise into the following pits and the mover's own store, never the
  opponent's store; a sowing of ``2m + 1`` seeds or more goes round and also fills the
  pit it started from.
- The last seed in the mover's own store: the mover moves again (a *turn* is a chain of
  such sowings; this module's move is a whole turn).
- The last seed in an empty pit of the mover's side: that seed and the seeds of the
  opposite pit go to the mover's store. With ``empty_capture`` on (the variant Irving et
  al. solved, and Rawlings's Kalah(6,6)) this holds even when the opposite pit is empty;
  off, only when it holds seeds (the rule of most commercial boards).
- When one side has no seeds left after a sowing, the game ends and each player puts the
  seeds left on their side into their store; the most seeds in store wins.

Stores do not change the rest of the game, so a position is the seeds of the pits with
the side to move first (as the board is seen by that side), and the tablebase stores the
best margin the side to move can still secure, in seeds: the start position's score is
the first player's final margin under perfect play. A move's reward is what the turn puts
into the mover's store; a position with one side empty is terminal and scores the seeds
on the mover's side minus those on the other.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.game import Game, Mode
from tablebase.core.parameters import Parameter, at_least, not_one_of
from tablebase.core.values import NOT_TERMINAL, Outcome
from tablebase.generators.compositions import Boards, fewer_boards_than, rank, table_bytes, unrank

POSITIONS = ("all", "reachable")
"""What a Kalah tablebase holds: every board of up to ``2mn`` seeds (the default, an
index space solved in one sweep by its keys), or the boards forward search reaches from
the start."""

RANK_TABLE_BYTES = 1 << 28
"""The most memory the tables that rank a Kalah's boards may take (Kalah(6,6): 176 MiB):
a game past it could never be built here."""

Pits = tuple[int, ...]
"""The seeds of the ``2m`` pits: the side to move's ``m`` in sowing order (pit 1 farthest
from its store), then the opponent's ``m`` in their sowing order."""

Turn = tuple[int, ...]
"""The pits (1 to ``m``, in sowing order) a turn sows from, one per sowing."""


@njit(cache=True, nogil=True)
def _sow(board: np.ndarray, pit: int, m: int, empty_capture: bool) -> tuple[int, bool]:
    """Sow pit ``pit`` of the side to move in place on int64[2m] ``board``: the seeds it
    puts into the mover's store, and whether the last landed there (a turn goes on)."""
    seeds = board[pit]
    board[pit] = 0
    ring = 2 * m + 1  # the mover's pits, its store (at m), the opponent's pits
    spot, stored = pit, 0
    while seeds:
        spot = (spot + 1) % ring
        if spot == m:
            stored += 1
        else:
            board[spot if spot < m else spot - 1] += 1
        seeds -= 1
    if spot == m:
        return stored, True
    if spot < m and board[spot] == 1:
        opposite = 2 * m - 1 - spot
        if empty_capture or board[opposite] > 0:
            stored += 1 + board[opposite]
            board[spot] = 0
            board[opposite] = 0
    return stored, False


@njit(cache=True, nogil=True)
def _side_empty(board: np.ndarray, m: int) -> bool:
    return board[:m].sum() == 0 or board[m:].sum() == 0


COUNT, FILL, BEST = 0, 1, 2
"""What :func:`_turns` does with each turn: count it; write it out; score it."""


@njit(cache=True, nogil=True)
def _turns(keys: np.ndarray, m: int, weights: np.ndarray, below: np.ndarray, first: np.ndarray, starts: np.ndarray,
           classes: np.ndarray, empty_capture: bool, action: int,
           src: np.ndarray, dst: np.ndarray, reward: np.ndarray, score: np.ndarray, best: np.ndarray,
           ended: np.ndarray) -> int:
    """Every turn from each of int64[n] ``keys`` (none from a terminal one), by depth-first
    search over chains of sowings. With ``action`` :data:`FILL`, each is written to
    ``src``, ``dst`` (the successor's key, sides swapped) and ``reward``; with
    :data:`BEST`, ``best[i]`` gets the most any turn of ``keys[i]`` earns less the
    successor's ``score`` (int[size], by key), or the terminal score, and ``ended[i]``
    whether it is terminal (bool[n]). Returns how many
    turns there are. The keys are :class:`~tablebase.generators.compositions.Boards`'
    (``weights`` to ``classes`` its tables)."""
    depth_limit = below.shape[1] + 1  # each sowing that goes on puts a seed in store
    boards = np.zeros((depth_limit, 2 * m), dtype=np.int64)
    child = np.zeros(2 * m, dtype=np.int64)
    gained = np.zeros(depth_limit, dtype=np.int64)
    next_pit = np.zeros(depth_limit, dtype=np.int64)
    count = 0
    for index in range(len(keys)):
        unrank(keys[index], boards[0], weights, below, starts, classes)
        if _side_empty(boards[0], m):
            if action == BEST:
                best[index] = boards[0, :m].sum() - boards[0, m:].sum()
                ended[index] = True
            continue
        if action == BEST:
            best[index], ended[index] = -(1 << 62), False
        depth, gained[0], next_pit[0] = 0, 0, 0
        while depth >= 0:
            pit = next_pit[depth]
            if pit == m:
                depth -= 1
                continue
            next_pit[depth] = pit + 1
            if boards[depth, pit] == 0:
                continue
            board = boards[depth + 1]
            board[:] = boards[depth]
            stored, again = _sow(board, pit, m, empty_capture)
            total = gained[depth] + stored
            if again and not _side_empty(board, m):
                depth += 1
                gained[depth], next_pit[depth] = total, 0
                continue
            if action != COUNT:
                for cell in range(2 * m):
                    child[cell] = board[(cell + m) % (2 * m)]
                key = rank(child, weights, below, first)
                if action == FILL:
                    src[count], dst[count], reward[count] = index, key, total
                else:
                    best[index] = max(best[index], total - score[key])
            count += 1
    return count


@njit(cache=True, nogil=True)
def _side_seeds(keys: np.ndarray, m: int, weights: np.ndarray, below: np.ndarray, starts: np.ndarray,
                classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int64[n] each: the seeds on the side to move's pits and on the other side's."""
    board = np.zeros(2 * m, dtype=np.int64)
    mine, theirs = np.zeros(len(keys), dtype=np.int64), np.zeros(len(keys), dtype=np.int64)
    for index in range(len(keys)):
        unrank(keys[index], board, weights, below, starts, classes)
        mine[index], theirs[index] = board[:m].sum(), board[m:].sum()
    return mine, theirs


class Kalah(Game):
    """Kalah(m, n) (see the module docstring).

    A key is the board's rank among every board of up to ``2mn`` seeds
    (:class:`~tablebase.generators.compositions.Boards`, a pit's weight its place in its
    side's sowing order): by seeds on the board, then by potential downwards, so every
    turn leads to a lower key. With ``positions=all`` (the default) the tablebase holds
    every board, an index space of C(2mn + 2m, 2m) keys solved in one sweep in key order
    (:meth:`key_order_levels`), as Irving et al. built their endgame databases by seeds
    on the board; with ``positions=reachable`` it holds the boards forward search finds
    from the start, solved over their move graph (faster for Kalah(4,4), but in several
    times the memory, and Kalah(6,2) does not fit; benchmarks/RESULTS.md). There is no
    symmetry to fold.

    :raises ParameterError: when the keys would pass 2**63, or the tables that rank the
        boards :data:`RANK_TABLE_BYTES`.
    """

    name = "kalah"
    version = 2
    description = "Kalah(m, n): mancala with m pits a side and n seeds a pit; the score is the margin in seeds"
    position_syntax = (
        "the seeds of each pit, the side to move's m pits then the opponent's, each in its "
        "sowing order, e.g. 4,4,4,4/4,4,4,4, or start; a move is the pits a turn sows "
        "from, 1 to m from the mover's left, e.g. 4 or 4,1"
    )
    parameters = (
        Parameter("pits", "int", 4, "pits a side (m)", at_least(1)),
        Parameter("seeds", "int", 4, "seeds a pit at the start (n)", at_least(1)),
        Parameter("empty_capture", "bool", True, "the last seed in an empty own pit captures even with the opposite pit empty"),
        Parameter("positions", "str", "all", "every board (an index space), or the boards reachable from the start",
                  lambda value: None if value in POSITIONS else not_one_of("positions", value, POSITIONS)),
    )
    mode = Mode.SCORED

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        self.m, self.n = int(self.params["pits"]), int(self.params["seeds"])
        self.empty_capture = bool(self.params["empty_capture"])
        self.total = 2 * self.m * self.n
        if not fewer_boards_than(2**63, 2 * self.m, self.total):
            raise ParameterError(f"Kalah({self.m},{self.n}): its boards pass the 2**63 keys a tablebase can number")
        weights = tuple(range(self.m)) * 2
        tables = table_bytes(weights, self.total)
        if tables > RANK_TABLE_BYTES:
            raise ParameterError(f"Kalah({self.m},{self.n}): ranking its boards takes "
                                 f"{tables >> 20:,} MiB of tables, more than {RANK_TABLE_BYTES >> 20}")
        self.boards = Boards(weights, self.total)
        boards = self.boards
        self._tables = (boards.weights, boards.below, boards.first, boards.starts, boards.classes)
        if self.params["positions"] == "all":
            self.size = self.boards.size

    def key_order_levels(self) -> np.ndarray | None:
        """With ``positions=all``, the bounds of the (seeds, potential) classes of the
        keys (:meth:`~tablebase.generators.compositions.Boards.level_bounds`): a turn
        that keeps every seed on the board is one sowing along the mover's side, which
        raises the potential; any other turn lowers the seeds on the board."""
        return self.boards.level_bounds() if self.size is not None else None

    # ---- per position

    def start_positions(self) -> list[Pits]:
        """``n`` seeds in every pit."""
        return [(self.n,) * (2 * self.m)]

    def _turns_of(self, pits: Pits) -> list[tuple[Turn, Pits, int]]:
        """Every turn from ``pits``: ``(turn, successor, seeds it stores)``."""
        if self.terminal(pits) is not None:
            return []
        found: list[tuple[Turn, Pits, int]] = []

        def chain(board: np.ndarray, turn: Turn, gained: int) -> None:
            for pit in range(self.m):
                if board[pit]:
                    after = board.copy()
                    stored, again = _sow(after, pit, self.m, self.empty_capture)
                    if again and not _side_empty(after, self.m):
                        chain(after, turn + (pit + 1,), gained + stored)
                    else:
                        child = tuple(after[self.m:].tolist() + after[: self.m].tolist())
                        found.append((turn + (pit + 1,), child, gained + stored))

        chain(np.array(pits, dtype=np.int64), (), 0)
        return found

    def moves(self, position: Pits) -> list[tuple[Turn, Pits]]:
        """Every turn, chains of sowings in pit order (depth first)."""
        return [(turn, child) for turn, child, _ in self._turns_of(position)]

    def reward(self, position: Pits, move: Turn) -> int:
        """The seeds the turn puts into the mover's store. :raises ValueError: for a
        turn that is not one of the position's."""
        for turn, _, gained in self._turns_of(position):
            if turn == move:
                return gained
        raise ValueError(f"{move!r} is not a turn of {self.format(position)}")

    def terminal(self, position: Pits) -> Outcome | None:
        """With one side empty, the sign of :meth:`score`; else ``None``."""
        if sum(position[: self.m]) and sum(position[self.m :]):
            return None
        return Outcome(int(np.sign(self.score(position))))

    def score(self, position: Pits) -> int:
        """Seeds on the mover's side minus those on the other (each side keeps its own
        when the game ends)."""
        return sum(position[: self.m]) - sum(position[self.m :])

    def score_details(self, position: Pits, score: int) -> dict[str, int]:
        """``{"mover_seeds": s}``: the seeds the side to move stores from here with best play."""
        return {"mover_seeds": (sum(position) + score) // 2}

    def encode(self, position: Pits) -> int:
        """The board's rank (see the class docstring)."""
        return self.boards.key(position)

    def decode(self, key: int) -> Pits:
        """Inverse of :meth:`encode`."""
        return self.boards.board(key)

    def parse(self, text: str) -> Pits:
        """Read ``a,b,.../c,d,...``. :raises PositionError: for bad syntax, a side of the
        wrong length, or more seeds than the game has."""
        sides = text.replace(" ", "").split("/")
        try:
            pits = tuple(int(seeds) for side in sides for seeds in side.split(","))
        except ValueError:
            raise PositionError(f"bad position {text!r}: expected seeds per pit as 4,4,4,4/4,4,4,4") from None
        if len(sides) != 2 or any(len(side.split(",")) != self.m for side in sides):
            raise PositionError(f"bad position {text!r}: expected two sides of {self.m} pits, joined by /")
        if min(pits) < 0 or sum(pits) > self.total:
            raise PositionError(f"bad position {text!r}: pits hold 0 or more seeds, {self.total} in all at most")
        return pits

    def format(self, position: Pits) -> str:
        """The side to move's pits, ``/``, the opponent's, e.g. ``4,4,4,4/4,4,4,4``."""
        return f"{','.join(map(str, position[: self.m]))}/{','.join(map(str, position[self.m :]))}"

    def board_drawing(self) -> tuple[str, dict[str, Any]]:
        """The pits drawn as a mancala board on the web pages."""
        return "pits", {}

    def format_move(self, move: Turn) -> str:
        """The pits sown from, e.g. ``4,1``."""
        return ",".join(map(str, move))

    # ---- batch

    def _batch(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        empty = np.zeros(0, dtype=np.int64)
        none = np.zeros(0, dtype=np.bool_)
        count = _turns(keys, self.m, *self._tables, self.empty_capture, COUNT, empty, empty, empty, empty, empty, none)
        src, dst, reward = (np.empty(count, dtype=np.int64) for _ in range(3))
        _turns(keys, self.m, *self._tables, self.empty_capture, FILL, src, dst, reward, empty, empty, none)
        return src, dst, reward

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every turn of each key, compiled: ``(src_index, dst_key)``, int64[m] each,
        sources ascending, each source's turns in the order of :meth:`moves`."""
        src, dst, _ = self._batch(keys)
        return src, dst

    def move_rewards(self, keys: np.ndarray) -> np.ndarray:
        """int64[m]: the seeds each turn of :meth:`successors` stores."""
        return self._batch(keys)[2]

    def best_scores(self, keys: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(best, ended)``: int64[n] each key's best turn, its seeds stored less the
        successor's ``score`` (int[size], by key), or its terminal score, and bool[n]
        which are terminal; compiled, releasing the GIL."""
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        best, ended, empty = np.empty(len(keys), dtype=np.int64), np.empty(len(keys), dtype=np.bool_), np.zeros(0, np.int64)
        _turns(keys, self.m, *self._tables, self.empty_capture, BEST, empty, empty, empty, score, best, ended)
        return best, ended

    def _sides(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        weights, below, _, starts, classes = self._tables
        return _side_seeds(np.ascontiguousarray(keys, dtype=np.int64), self.m, weights, below, starts, classes)

    def terminal_scores(self, keys: np.ndarray) -> np.ndarray:
        """int64[n]: :meth:`score` of each key."""
        mine, theirs = self._sides(np.asarray(keys, dtype=np.int64))
        return (mine - theirs).astype(np.int64)

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        """int8[n]: the sign of the score where a side is empty, else :data:`NOT_TERMINAL`."""
        mine, theirs = self._sides(np.asarray(keys, dtype=np.int64))
        values = np.full(len(keys), NOT_TERMINAL, dtype=np.int8)
        over = (mine == 0) | (theirs == 0)
        values[over] = np.sign(mine - theirs)[over]
        return values
