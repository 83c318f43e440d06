"""The compiled chess kernels give exactly what the numpy generator gives: the same
legal keys, terminal values, moves within the tablebase, captures and promotions, and
un-moves, on random keys of 3-, 4- and 5-piece layouts."""

from __future__ import annotations

import numpy as np
import pytest

from tablebase.generators.chess.game import Chess, table
from tablebase.solve.unmoves import distinct_pairs

MATERIALS = ["KQvK", "KPvK", "KBBvK", "KQvKR", "KRvKN", "KPvKN", "KPPvK", "KQRvK", "KRBvKR", "KRPvKR", "KRvKNN", "KRRRvK", "KPPvKP", "KRvKR", "KBPvKB"]


def numpy_twin(game: Chess) -> Chess:
    """The same tablebase, generating with numpy."""
    twin = Chess(material=game.material, metric="dtm")
    twin.spec = None
    return twin


def moves(src: np.ndarray, dst: np.ndarray) -> list[tuple[int, int]]:
    return sorted(zip(src.tolist(), dst.tolist()))


def pairs(src: np.ndarray, other: np.ndarray) -> set[tuple[int, int]]:
    return set(zip(*(a.tolist() for a in distinct_pairs(np.asarray(src, np.int64), np.asarray(other, np.int64)))))


@pytest.mark.parametrize("material", MATERIALS)
def test_kernels_equal_the_numpy_generator(material):
    game = table(material, "dtm")
    assert game.spec is not None
    twin = numpy_twin(game)
    rng = np.random.default_rng(13)
    keys = np.unique(rng.integers(0, game.size, size=40000, dtype=np.int64))
    legal = game.legal(keys)
    np.testing.assert_array_equal(legal, twin.legal(keys))
    keys = keys[legal]
    assert len(keys) > 1000
    terminal = game.terminal_batch(keys)
    np.testing.assert_array_equal(terminal, twin.terminal_batch(keys))
    assert set(terminal.tolist()) >= {2}
    live = keys[terminal == 2]
    assert moves(*game.successors(live)) == moves(*twin.successors(live))
    ours, theirs = game.exits(live), twin.exits(live)
    assert sorted(zip(*(a.tolist() for a in ours))) == sorted(zip(*(a.tolist() for a in theirs)))
    assert pairs(*game.predecessors(keys)) == pairs(*twin.predecessors(keys))
