"""The green game of POI 2001 ("Gra w zielone", VIII Polish Olympiad in Informatics).

Two players, A and B, move a token on a board of fields: fields ``1..a`` belong to A,
``a+1..a+b`` to B, and the owner of the token's field moves it to one of that field's
successors, always a field of the other player. The play stops when the token comes
back to a field it has visited; A wins if the cycle so closed holds a green field, B
otherwise. That is a Büchi game (A must visit green infinitely often): its winners come
from :func:`tablebase.solve.buchi.buchi_winners`.

Input, the POI format (``-p file=gra.in``): a line ``a b``, then ``a + b`` lines, the
``i``-th for field ``i``: ``z k s1 ... sk``, ``z`` 1 for a green field and 0 for another,
``k >= 1`` successors ``s1 .. sk``. A position is a field number; a move is the field
moved to. Each position stores whether its owner (the side to move) wins; ``tablebase
info green -p file=...`` prints the fields A wins from in the POI output format.
"""

from __future__ import annotations

import numpy as np

from tablebase.core.errors import ParameterError, PositionError
from tablebase.core.game import Game, Mode
from tablebase.core.parameters import Parameter
from tablebase.core.values import Outcome


class Green(Game):
    """The board of a POI input ``file``; key ``i - 1`` for field ``i``.

    :raises ParameterError: for a malformed file (counts, colours, successors out of
        range or of the same player, a field without successors).
    """

    name = "green"
    description = "POI 2001 'Gra w zielone': A wins if the cycle the play closes holds a green field"
    position_syntax = "a field number, e.g. 3; a move is the field moved to"
    parameters = (Parameter("file", "file", None, "board in the POI input format: 'a b', then 'z k s1 .. sk' per field"),)
    mode = Mode.BUCHI

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        tokens = self.params["file"].split()
        try:
            numbers = [int(token) for token in tokens]
        except ValueError:
            raise ParameterError("green board: every entry must be an integer") from None
        if len(numbers) < 2 or numbers[0] < 0 or numbers[1] < 0 or numbers[0] + numbers[1] == 0:
            raise ParameterError("green board: the first line must be 'a b', with a + b >= 1 fields")
        a, b = numbers[0], numbers[1]
        self.fields, self.a = a + b, a
        at, successors, green = 2, [], []
        for field in range(1, self.fields + 1):
            if at + 2 > len(numbers):
                raise ParameterError(f"green board: field {field} is missing (expected {self.fields} fields)")
            colour, count = numbers[at], numbers[at + 1]
            targets = numbers[at + 2 : at + 2 + count]
            at += 2 + count
            if colour not in (0, 1) or count < 1 or len(targets) != count:
                raise ParameterError(f"green board: field {field}: expected 'z k s1 .. sk' with z 0 or 1 and k >= 1")
            for target in targets:
                if not 1 <= target <= self.fields or (target <= a) == (field <= a):
                    raise ParameterError(
                        f"green board: field {field} moves to {target}, which is not a field of the other player"
                    )
            successors.append(sorted(set(targets)))
            green.append(colour == 1)
        if at != len(numbers):
            raise ParameterError("green board: more numbers than the fields describe")
        self.successors_of = successors
        self.green = np.array(green, dtype=bool)
        self.owner_is_a = np.arange(1, self.fields + 1) <= a
        self.size = self.fields

    def moves(self, position: int) -> list[tuple[int, int]]:
        """Move the token to each successor field."""
        return [(target, target) for target in self.successors_of[position - 1]]

    def terminal(self, position: int) -> Outcome | None:
        """``None``: every field has a successor."""
        return None

    def encode(self, position: int) -> int:
        """Field ``i`` has key ``i - 1``."""
        return position - 1

    def decode(self, key: int) -> int:
        """Key ``k`` is field ``k + 1``."""
        return key + 1

    def parse(self, text: str) -> int:
        """A field number. :raises PositionError: for anything else."""
        try:
            field = int(text.strip())
        except ValueError:
            raise PositionError(f"bad field {text!r}: expected a number from 1 to {self.fields}") from None
        if not 1 <= field <= self.fields:
            raise PositionError(f"bad field {text!r}: fields are 1 to {self.fields}")
        return field

    def format(self, position: int) -> str:
        """The field number."""
        return str(position)

    def owners(self, keys: np.ndarray) -> np.ndarray:
        """bool[n]: whether A moves at each key's field."""
        return self.owner_is_a[np.asarray(keys, dtype=np.int64)]

    def accepting(self, keys: np.ndarray) -> np.ndarray:
        """bool[n]: whether each key's field is green."""
        return self.green[np.asarray(keys, dtype=np.int64)]

    def summary(self, keys: np.ndarray, outcome: np.ndarray) -> list[int]:
        """The POI output: the number of fields A wins from, then those fields, ascending."""
        a_wins = (outcome == Outcome.WIN) == self.owners(keys)
        fields = (keys[a_wins] + 1).tolist()
        return [len(fields), *fields]
