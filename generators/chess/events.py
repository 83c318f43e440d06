"""The ways a move leaves a chess ending (captures and promotions): their numbers as the
compiled kernels give them, the ending and slots each leads into, and the canonical keys
there of a batch's captures and promotions."""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from tablebase.generators.chess.keys import exit_keys_kernel
from tablebase.generators.chess.layout import Layout
from tablebase.generators.chess.material import INSUFFICIENT, normal_form
from tablebase.generators.chess.spec import Spec
from tablebase.util.grouping import grouped

PROMOTIONS = "QRBN"


class KernelExits(NamedTuple):
    """The captures and promotions of a batch, as
    :func:`~tablebase.generators.chess.moves.generate_kernel` gives them: int64[e]
    ``row`` of each, its ``event`` (the number of its kind, :attr:`ExitEvents._events`'s
    order) and int64[e, slots] the ``squares`` after it."""

    row: np.ndarray
    event: np.ndarray
    squares: np.ndarray


class ExitDestination(NamedTuple):
    """Where one way of leaving the tablebase leads: the ``table`` it is among
    :meth:`tablebase.generators.chess.game.Chess.dependencies`, the child's slots as this layout's (``order``
    int64[c]), whether its colours are reversed (``swapped``), and its layout as the
    kernels read it (``spec``)."""

    table: int
    order: np.ndarray
    swapped: bool
    spec: Spec


class ExitEvents:
    """The captures and promotions of :class:`~tablebase.generators.chess.game.Chess`,
    which reads ``layout``, ``material`` and ``dependencies()`` of the game and keeps
    ``_children`` (None until made)."""

    @functools.cached_property
    def _events(self) -> dict[tuple[int, int, str], tuple[str, np.ndarray, bool]]:
        """The ways to leave the tablebase, by ``(moving slot, captured slot or -1,
        promotion piece letter or "")``, each with what :meth:`_child` gives. A pawn
        never takes a pawn while promoting (no pawn stands on the last rank). Made at
        first use: a probe of an ending needs its layout alone (KRPvKR's 15 children's
        layouts took a good part of its first probe's instance, benchmarks/RESULTS.md)."""
        layout = self.layout
        if layout is None or self.material in INSUFFICIENT:
            return {}
        events = {}
        for slot, piece in enumerate(layout.types):
            for captured in [-1] + layout.slots(1 - int(layout.colours[slot]))[1:]:
                options = [""] if captured >= 0 else []
                if piece == "P" and (captured < 0 or layout.types[captured] != "P"):
                    options += list(PROMOTIONS)
                for promotion in options:
                    events[(slot, captured, promotion)] = self._child(slot, captured, promotion)
        return events

    @functools.cached_property
    def _event_numbers(self) -> np.ndarray:
        """int64[slots, slots + 1, 5]: the number of each of :attr:`_events` (its
        place in them) by moving slot, captured slot + 1 (0 for none) and promotion (0
        for none, 1 to 4 for Q R B N); -1 for none."""
        count = self.layout.count if self.layout is not None else 0
        numbers = np.full((count, count + 1, 1 + len(PROMOTIONS)), -1, dtype=np.int64)
        for number, (slot, captured, promotion) in enumerate(self._events):
            numbers[slot, captured + 1, 1 + PROMOTIONS.index(promotion) if promotion else 0] = number
        return numbers

    def _child(self, slot: int, captured: int, promotion: str) -> tuple[str, np.ndarray, bool]:
        """The tablebase a move leads into: its material name, its slots as this
        layout's slots (int64[child slots]), and whether its colours are reversed."""
        layout = self.layout
        pieces = [(int(colour), letter) for colour, letter in zip(layout.colours, layout.types)]
        pieces[slot] = (pieces[slot][0], promotion or pieces[slot][1])
        survivors = [j for j in range(layout.count) if j != captured]
        white, black = ("".join(pieces[j][1] for j in survivors if pieces[j][0] == colour) for colour in (0, 1))
        first, second, swapped = normal_form(white, black)
        child = Layout(first, second)
        order = []
        for colour, letter in zip(child.colours, child.types):
            order.append(next(j for j in survivors if j not in order and pieces[j] == (colour ^ swapped, letter)))
        return f"{first}v{second}", np.array(order, dtype=np.int64), swapped

    def _compiled_exits(self, exits: KernelExits, stm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`exits` of the compiled kernels' captures and promotions (rows
        ascending), each kind's child keys computed in one compiled call."""
        children = self._children_of_events()
        tables = np.array([child.table for child in children], dtype=np.int64)[exits.event]
        dst = np.empty(len(exits.row), dtype=np.int64)
        by_event, starts = grouped(exits.event, len(children))
        movers = stm[exits.row]
        for event, (start, end) in enumerate(zip(starts[:-1].tolist(), starts[1:].tolist())):
            if end > start:
                child = children[event]
                exit_keys_kernel(exits.squares, movers, by_event[start:end], child.order, int(child.swapped), child.spec, dst)
        return exits.row, tables, dst

    def _children_of_events(self) -> list[ExitDestination]:
        """Where each of :attr:`_events` leads (made once; the list is made whole
        before it is kept, as the worker threads may ask at once)."""
        if self._children is None:
            dependencies = {dependency.material: (i, dependency) for i, dependency in enumerate(self.dependencies())}
            children = []
            for name, order, swapped in self._events.values():
                index, dependency = dependencies[name]
                children.append(ExitDestination(index, order, swapped, dependency.spec))
            self._children = children
        return self._children
