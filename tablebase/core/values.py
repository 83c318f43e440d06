"""Outcomes and every named value code: the ground floor of what a tablebase holds.

One module for the numbers that the store, the solver, the compiled loops and the
readers share, so that none of them imports another to name a value:

- :class:`Outcome` (win, draw, loss for the side to move) and its plain integers
  :data:`WIN`, :data:`DRAW`, :data:`LOSS`, which outcome arrays and numba kernels hold;
  :data:`NOT_TERMINAL`, the batch API's mark of a position that is not terminal;
- :class:`StoredKind`, a tablebase row's ``value_kind``, which says which extra column
  its positions have;
- :data:`TO_DERIVE`, the remoteness a reader gives a DTM its tablebase leaves out;
- the one packing of a remoteness and a tag of three into a number
  (:func:`pack_code`), which the store's value codes (:func:`value_code`) and the
  retrograde pass's exit codes (:mod:`tablebase.solve.retrograde.exit_codes`) share;
- Syzygy's categories under the 50-move rule (:data:`CATEGORIES`, :data:`RULE_PLIES`).
"""

from __future__ import annotations

import enum


class Outcome(enum.IntEnum):
    """Game-theoretic value for the side to move. Negating it gives the opponent's view."""

    LOSS = -1
    DRAW = 0
    WIN = 1

    @property
    def label(self) -> str:
        """``"win"``, ``"draw"`` or ``"loss"``, as printed by the CLI and in JSON."""
        return LABELS[self]

    @classmethod
    def from_label(cls, text: str) -> Outcome:
        """Inverse of :attr:`label`. :raises ValueError: for any other text."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown outcome {text!r}: expected win, draw or loss") from None


NOT_TERMINAL = 2
"""Value of :meth:`Game.terminal_batch` for a position that is not terminal."""

WIN, DRAW, LOSS = int(Outcome.WIN), int(Outcome.DRAW), int(Outcome.LOSS)
"""The outcomes as plain integers, as outcome arrays and compiled loops hold them."""


SUCCESSOR_OTHER, SUCCESSOR_WON, SUCCESSOR_LOST = 0, 1, 2
"""What a successor's code says of a move in :meth:`Game.move_verdicts`: neither won nor
lost for its side to move at the level looked for, won (the move cannot save a
candidate loss) or lost (the move wins). A position's verdict is :data:`SUCCESSOR_LOST`
where a move leads to such a successor, :data:`SUCCESSOR_WON` where every move does,
else :data:`SUCCESSOR_OTHER`."""


LABELS = {outcome: outcome.name.lower() for outcome in Outcome}
""":attr:`Outcome.label` of each outcome, by the outcome or its plain integer (an enum's
``name`` is slow to read)."""


def signed_distance(outcome: Outcome, remoteness: int | None) -> int | None:
    """A distance signed for the side to move, as lichess and Gaviota give DTM: the
    remoteness in plies, positive for a win, negative for a loss; 0 for a draw; ``None``
    for a win or loss without a remoteness."""
    if outcome == Outcome.DRAW:
        return 0
    if remoteness is None:
        return None
    return remoteness if outcome == Outcome.WIN else -remoteness


OUTCOMES = {int(outcome): outcome for outcome in Outcome}
""":class:`Outcome` by stored number (a lookup costs much less than ``Outcome(number)``,
benchmarks/RESULTS.md)."""


class StoredKind(enum.StrEnum):
    """What a tablebase stores beside each position's outcome and remoteness: its
    catalog row's ``value_kind``, which says which extra column its positions have.
    Shared by the store and the solver's kinds (a kind's ``stored``) without either
    importing the other."""

    WDL = "wdl"
    """Outcomes and remoteness only."""
    GRUNDY = "grundy"
    """Each position's Grundy value too."""
    SCORE = "score"
    """Each position's negamax score too."""
    DTZ = "dtz"
    """Each position's DTZ under the 50-move rule too (signed plies, python-chess's
    convention; see :mod:`tablebase.solve.dtz`)."""


TO_DERIVE = -3
"""The remoteness a reader of stored values gives a position whose DTM its tablebase
does not store but a reader values from the position's moves (the sided layout's
one-sided formats, ``--dtm-sides``; :mod:`tablebase.read.derived`)."""


RULE_PLIES = 100
"""Plies without a zeroing move after which the 50-move rule draws."""

CATEGORIES = {2: "win", 1: "cursed-win", 0: "draw", -1: "blessed-loss", -2: "loss"}
"""Syzygy's WDL categories for the side to move, named as lichess names them."""


def position_category(outcome: int, dtz: int) -> int:
    """Syzygy's category (-2..2) of one position from its outcome without the rule and
    its signed DTZ (plies, python-chess's convention): a decisive outcome doubled unless
    its DTZ is past :data:`RULE_PLIES`."""
    return int(outcome) * (1 if abs(dtz) > RULE_PLIES else 2)


CODE_TAGS = 3
"""What a code packs beside a remoteness: one of three tags (an outcome, or the kind of
a move into another tablebase)."""


def pack_code(tag, remoteness):  # type: ignore[no-untyped-def]
    """A remoteness in plies (-1 for none) and a tag in 0..2 packed into one number,
    ``3 * (remoteness + 1) + tag``: ints or int arrays alike (compiled code inlines it).
    Codes of a larger remoteness are larger, so a code's width follows the farthest
    remoteness it holds."""
    return CODE_TAGS * (remoteness + 1) + tag


def code_tag(code):  # type: ignore[no-untyped-def]
    """The tag of a :func:`pack_code` code (ints or int arrays)."""
    return code % CODE_TAGS


def code_remoteness(code):  # type: ignore[no-untyped-def]
    """The remoteness of a :func:`pack_code` code, -1 for none (ints or int arrays)."""
    return code // CODE_TAGS - 1


def value_code(outcome, remoteness):  # type: ignore[no-untyped-def]
    """The value code the store keeps of an outcome (:data:`LOSS` .. :data:`WIN`) and a
    remoteness in plies (-1 for none): :func:`pack_code` of the outcome's rank."""
    return pack_code(outcome - LOSS, remoteness)


def value_outcome(code):  # type: ignore[no-untyped-def]
    """The outcome of a :func:`value_code` code (ints or int arrays)."""
    return code_tag(code) + LOSS

