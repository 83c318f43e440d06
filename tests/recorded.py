"""A stage factory for tests of progress bars."""

from __future__ import annotations

import contextlib


class Recorded:
    """A stage factory that records, per stage, its total and the positions advanced."""

    def __init__(self) -> None:
        self.stages: list[list] = []

    @contextlib.contextmanager
    def __call__(self, name, total):
        entry = [name, total, 0]
        self.stages.append(entry)

        def advance(count):
            entry[2] += count

        yield advance
