"""A token game on an explicit directed graph, read from a text file.

The players take turns moving one token along an edge. A vertex with no edge out is a
``loss`` (at remoteness 0) for the side to move, unless the file labels it otherwise.

File format, one statement per line:

- ``# ...`` a comment, to the end of the line; blank lines are ignored;
- ``u v`` or ``u -> v``: an edge from ``u`` to ``v`` (self-loops and cycles are allowed;
  a repeated edge counts once);
- ``u``: a vertex, with no edge needed (an isolated vertex);
- ``u = win``, ``u = loss`` or ``u = draw``: ``u`` is terminal, with that outcome for the
  side to move; a labelled vertex must have no edge out, and is labelled once;
- ``start u``: the start position (optional, at most once; ``u`` must appear in another
  statement). To write an edge out of a vertex named ``start``, use ``start -> u``.

A vertex name is a token of letters, digits, ``_`` and ``-`` (``12`` is just a name).

With ``-p scores=on`` the game is scored instead: a play that ends at a vertex without an
edge out scores the integer naming it, for the side to move there, and each position
stores the best margin its side to move can secure; endless play scores 0.
Vertices are numbered in order of first appearance (start lines aside); that number is
the position's key. A position is written as its vertex name, a move as its destination's
name.

Example::

    # a 2-cycle with an exit to a dead end
    start a
    a -> b
    b a
    b c        # c has no edge out: a loss for the side to move there
    d = draw
"""

from __future__ import annotations

import re

import numpy as np

from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.game import Game, Mode
from tablebase.core.parameters import Parameter
from tablebase.core.values import NOT_TERMINAL, Outcome

Vertex = int
"""A vertex's index: its order of first appearance in the file, from 0."""

_NAME = r"[A-Za-z0-9_-]+"
_START = re.compile(rf"start\s+({_NAME})")
_LABEL = re.compile(rf"({_NAME})\s*=\s*(\S+)")
_EDGE = re.compile(rf"({_NAME})\s*->\s*({_NAME})|({_NAME})\s+({_NAME})")
_VERTEX = re.compile(_NAME)


class Graph(Game):
    """The token game on the graph of a ``file`` parameter (see the module docstring).

    Attributes after construction: ``names`` (vertex names by key), ``offsets``
    (int64[size + 1]) and ``targets`` (int64[edges]), the out-edges in CSR form in file
    order, and ``outcomes`` (int8[size]): the terminal value of each vertex, or
    ``NOT_TERMINAL``.

    ``in_offsets`` (int64[size + 1]) and ``in_sources`` (int64[edges]): the same edges
    grouped by the vertex they enter, for the un-moves.

    :raises ParameterError: for a line that is not a statement, a bad label, a labelled
        vertex with an edge out, a repeated label or start line, an unknown start vertex
        or an empty graph; the message names the line.
    """

    name = "graph"
    description = "move a token along the edges of a directed graph read from a file"
    position_syntax = "a vertex name, e.g. a; a move is the destination vertex's name"
    parameters = (
        Parameter("file", "file", None, "graph file: lines 'u v', 'u', 'u = loss', 'start u'"),
        Parameter("scores", "bool", False, "score a play by the number naming the vertex where it ends"),
    )
    modes = (Mode.WDL, Mode.SCORED)  # scores=on makes an instance scored

    def __init__(self, **params) -> None:
        super().__init__(**params)
        self.names: list[str] = []
        self.index: dict[str, Vertex] = {}
        edges: dict[Vertex, dict[Vertex, None]] = {}  # ordered sets of destinations
        first_edge: dict[Vertex, int] = {}
        labels: dict[Vertex, tuple[Outcome, int]] = {}
        start: tuple[str, int] | None = None
        for number, raw in enumerate(self.params["file"].splitlines(), start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if match := _START.fullmatch(line):
                if start is not None:
                    raise ParameterError(f"graph line {number}: second start line (first at line {start[1]})")
                start = (match.group(1), number)
            elif match := _LABEL.fullmatch(line):
                vertex = self._vertex(match.group(1))
                try:
                    outcome = Outcome.from_label(match.group(2))
                except ValueError as error:
                    raise ParameterError(f"graph line {number}: {error}") from None
                if vertex in labels:
                    raise ParameterError(
                        f"graph line {number}: vertex {match.group(1)!r} is labelled twice "
                        f"(first at line {labels[vertex][1]})"
                    )
                labels[vertex] = (outcome, number)
            elif match := _EDGE.fullmatch(line):
                source, target = (group for group in match.groups() if group is not None)
                vertex = self._vertex(source)
                edges.setdefault(vertex, {})[self._vertex(target)] = None
                first_edge.setdefault(vertex, number)
            elif _VERTEX.fullmatch(line):
                self._vertex(line)
            else:
                raise ParameterError(
                    f"graph line {number}: cannot read {line!r}: expected 'u v', 'u -> v', 'u', "
                    "'u = win|loss|draw' or 'start u' (names: letters, digits, _ and -)"
                )
        for vertex, (outcome, number) in labels.items():
            if vertex in edges:
                raise ParameterError(
                    f"graph line {number}: vertex {self.names[vertex]!r} is labelled "
                    f"{outcome.label} but has an edge out (line {first_edge[vertex]})"
                )
        if not self.names:
            raise ParameterError("graph file has no vertices")
        if start is not None and start[0] not in self.index:
            raise ParameterError(f"graph line {start[1]}: start vertex {start[0]!r} is not in the graph")
        self.start = None if start is None else self.index[start[0]]
        self.size = len(self.names)
        degrees = [len(edges.get(vertex, ())) for vertex in range(self.size)]
        self.offsets = np.concatenate(([0], np.cumsum(degrees))).astype(np.int64)
        self.targets = np.array(
            [target for vertex in range(self.size) for target in edges.get(vertex, ())], dtype=np.int64
        )
        sources = np.repeat(np.arange(self.size, dtype=np.int64), degrees)
        self.in_offsets = np.concatenate(([0], np.cumsum(np.bincount(self.targets, minlength=self.size)))).astype(np.int64)
        self.in_sources = sources[np.argsort(self.targets, kind="stable")]
        self.outcomes = np.full(self.size, NOT_TERMINAL, dtype=np.int8)
        self.outcomes[np.array(degrees) == 0] = Outcome.LOSS
        for vertex, (outcome, _number) in labels.items():
            self.outcomes[vertex] = outcome
        self.mode = Mode.SCORED if self.params["scores"] else Mode.WDL
        self.sink_scores = self._sink_scores(labels) if self.params["scores"] else np.zeros(self.size, dtype=np.int64)

    def _sink_scores(self, labels: dict[Vertex, tuple[Outcome, int]]) -> np.ndarray:
        """int64[size]: with ``scores=on``, each vertex without an edge out scores the
        integer naming it, for the side to move there (0 elsewhere).

        :raises ParameterError: for a label, or a sink not named by an integer.
        """
        if labels:
            number = min(line for _outcome, line in labels.values())
            raise ParameterError(f"graph line {number}: with scores=on a vertex scores its name; labels are not allowed")
        scores = np.zeros(self.size, dtype=np.int64)
        for vertex in np.flatnonzero(np.diff(self.offsets) == 0).tolist():
            try:
                scores[vertex] = int(self.names[vertex])
            except ValueError:
                raise ParameterError(
                    f"vertex {self.names[vertex]!r} has no edge out, so with scores=on it must be named by an integer"
                ) from None
        return scores

    def score(self, position: Vertex) -> int:
        """With ``scores=on``: the number naming a vertex without an edge out."""
        return int(self.sink_scores[position])

    def terminal_scores(self, keys: np.ndarray) -> np.ndarray:
        """int64[n]: :meth:`score` of each key."""
        return self.sink_scores[np.asarray(keys, dtype=np.int64)]

    def _vertex(self, name: str) -> Vertex:
        """The index of a vertex name, numbering it if new."""
        if name not in self.index:
            self.index[name] = len(self.names)
            self.names.append(name)
        return self.index[name]

    # ---- enumeration

    def start_positions(self) -> list[Vertex]:
        """The vertex of the ``start`` line. :raises NotImplementedError: if there is none."""
        if self.start is None:
            raise NotImplementedError("this graph file has no 'start u' line, so it has no start position")
        return [self.start]

    # ---- per position

    def moves(self, position: Vertex) -> list[tuple[Vertex, Vertex]]:
        """One move per out-edge, in file order; the move is the destination vertex."""
        targets = self.targets[self.offsets[position] : self.offsets[position + 1]].tolist()
        return [(target, target) for target in targets]

    def terminal(self, position: Vertex) -> Outcome | None:
        """The vertex's label; ``loss`` for an unlabelled vertex with no edge out."""
        value = int(self.outcomes[position])
        return None if value == NOT_TERMINAL else Outcome(value)

    def encode(self, position: Vertex) -> int:
        """The key is the vertex index itself."""
        return int(position)

    def decode(self, key: int) -> Vertex:
        """The vertex index is the key itself."""
        return int(key)

    def parse(self, text: str) -> Vertex:
        """A vertex name, spaces around it allowed. :raises PositionError: for an unknown name."""
        name = text.strip()
        if name not in self.index:
            raise PositionError(f"unknown vertex {name!r}: not in the graph file")
        return self.index[name]

    def format(self, position: Vertex) -> str:
        """The vertex's name as written in the file."""
        return self.names[position]

    def format_move(self, move: Vertex) -> str:
        """The destination vertex's name."""
        return self.names[move]

    # ---- batch

    def successors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every out-edge of int64[n] keys, in file order; ``src_index`` ascending."""
        return _gather(self.offsets, self.targets, keys)

    def predecessors(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Un-moves: every in-edge of int64[n] keys, ``(src_index, pred_key)``."""
        return _gather(self.in_offsets, self.in_sources, keys)

    def terminal_batch(self, keys: np.ndarray) -> np.ndarray:
        """int8[n]: :meth:`terminal` of int64[n] keys, ``NOT_TERMINAL`` where ``None``."""
        return self.outcomes[np.asarray(keys, dtype=np.int64)]


def _gather(offsets: np.ndarray, ends: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The edges of int64[n] keys in a compressed adjacency (the edges of ``v`` end at
    ``ends[offsets[v]:offsets[v + 1]]``): ``(src_index, end_key)``, ``src_index``
    ascending."""
    keys = np.asarray(keys, dtype=np.int64)
    starts = offsets[keys]
    counts = offsets[keys + 1] - starts
    src = np.repeat(np.arange(len(keys), dtype=np.int64), counts)
    first = np.cumsum(counts) - counts
    within = np.arange(len(src), dtype=np.int64) - np.repeat(first, counts)
    return src, ends[np.repeat(starts, counts) + within]
