"""Worker processes: results in order, errors and dead workers reported in the caller."""

from __future__ import annotations

import os

import numpy as np
import pytest

from tablebase.errors import GameError
from tablebase.game import load_game
from tablebase.solve.workers import Workers


def double(_game, keys):
    return keys * 2


def fail_on_seven(_game, keys):
    if 7 in keys:
        raise GameError("seven is not allowed")
    return keys


def die(_game, keys):
    os._exit(3)


GAME = load_game("subtraction", {})
BATCHES = [np.arange(start, start + 3) for start in range(0, 30, 3)]


def test_results_come_back_in_order_with_one_or_two_workers():
    for count in (1, 2):
        with Workers(GAME, count) as workers:
            assert [r.tolist() for r in workers.map(double, BATCHES)] == [(b * 2).tolist() for b in BATCHES]


def test_an_error_in_a_worker_is_raised_in_the_caller():
    with Workers(GAME, 2) as workers, pytest.raises(GameError, match="seven"):
        list(workers.map(fail_on_seven, BATCHES))


def test_a_dead_worker_is_a_clean_error_not_a_hang():
    with Workers(GAME, 2) as workers, pytest.raises(GameError, match="worker process died"):
        list(workers.map(die, BATCHES))
