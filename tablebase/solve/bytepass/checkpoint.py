"""Where the one-byte DTZ pass keeps its state between plies on disk, so that a build
killed in the middle of a 6-piece ending goes on from its last checkpoint, not from the
start (:class:`Checkpoint`).

A checkpoint is a folder of its own per tablebase (named by the game, its parameters,
its version and its index size) under :func:`checkpoints_folder`:

- ``state.json``: the next ply, the window's base and levels, and the files below; it is
  replaced last, in one rename, so a checkpoint is whole or the previous one stands;
- ``codes-P.u8``: uint8[size] the codes at the start of ply ``P``;
- ``flags-P.npz``: the chunks' flags (wins, losses, candidates, cursed, blessed);
- ``snapshot-I.u8``: uint8[size] the codes of each earlier window, written at its
  slide and read back through :func:`numpy.memmap` when the values are stored.

The files of a checkpoint replaced by the next are deleted after the rename. The folder
goes when the values are written to the store (:meth:`Checkpoint.clear`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tablebase.core.game import Game
from tablebase.util.hugepages import huge_zeros

CHECKPOINT_SECONDS = 600.0
"""The least seconds between two checkpoints (one is written after the survey too)."""

WRITE_CHUNK = 1 << 26
"""Bytes of codes written or read at a time."""

FLAG_NAMES = ("wins", "losses", "candidates", "cursed", "blessed")


def checkpoints_folder() -> Path | None:
    """``$TABLEBASE_CHECKPOINTS``, or ``$XDG_CACHE_HOME/tablebase/checkpoints`` (default
    ``~/.cache/tablebase/checkpoints``); ``None`` where the variable is ``off``."""
    chosen = os.environ.get("TABLEBASE_CHECKPOINTS")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "tablebase" / "checkpoints"


@dataclass
class Resumed:
    """What a checkpoint holds: the pass goes on at ``ply`` with these codes (uint8[size]),
    flags (uint64[chunks] each, named as :data:`FLAG_NAMES`), window base and snapshots
    (``(uint8[size] codes read from disk, base)``, oldest first)."""

    ply: int
    base: int
    codes: np.ndarray
    flags: dict[str, np.ndarray]
    snapshots: list[tuple[np.ndarray, int]]


class Checkpoint:
    """The checkpoint folder of one tablebase's one-byte pass.

    :param game: the game solved; its name, parameters, version and index size name
        the folder.
    :param levels: the window's levels (part of the name: a pass of other levels does
        not resume it).
    :param root: the folder of all checkpoints (:func:`checkpoints_folder`).
    """

    def __init__(self, game: Game, levels: int, root: Path) -> None:
        identity = f"{game.name}|{game.identity()}|{game.version}|{game.size}|{levels}"
        self.folder = root / hashlib.sha256(identity.encode()).hexdigest()[:24]
        self.identity = identity

    def load(self, size: int) -> Resumed | None:
        """The state of the last checkpoint, or ``None`` if there is none (or it is not
        whole: a file missing or of the wrong size).

        :param size: keys of the index space."""
        try:
            state = json.loads((self.folder / "state.json").read_text())
            if state["identity"] != self.identity:
                return None
            codes = huge_zeros(size, np.uint8)
            with open(self.folder / state["codes"], "rb") as file:
                for start in range(0, size, WRITE_CHUNK):
                    if file.readinto(memoryview(codes[start : start + WRITE_CHUNK])) != min(WRITE_CHUNK, size - start):
                        return None
            with np.load(self.folder / state["flags"]) as stored:
                flags = {name: stored[name].copy() for name in FLAG_NAMES}
            snapshots = [
                (np.memmap(self.folder / _snapshot_name(i), np.uint8, "r", shape=(size,)), at) for i, at in enumerate(state["snapshots"])
            ]
        except (OSError, ValueError, KeyError):
            return None
        return Resumed(state["ply"], state["base"], codes, flags, snapshots)

    def save(self, ply: int, base: int, codes: np.ndarray, flags: dict[str, np.ndarray], snapshots: list[int]) -> None:
        """Write a checkpoint from which the pass goes on at ``ply`` (see :meth:`load`),
        then delete the files of the one before.

        :param snapshots: the base of each :meth:`snapshot`, oldest first.
        :raises OSError: if the disk is full (the previous checkpoint stands)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        codes_name, flags_name = f"codes-{ply}.u8", f"flags-{ply}.npz"
        _write(self.folder / codes_name, codes)
        with open(self.folder / flags_name, "wb") as file:
            np.savez(file, **flags)
            file.flush()
            os.fsync(file.fileno())
        state = {
            "identity": self.identity,
            "ply": ply,
            "base": base,
            "codes": codes_name,
            "flags": flags_name,
            "snapshots": snapshots,
        }
        (self.folder / "state.json.new").write_text(json.dumps(state))
        os.replace(self.folder / "state.json.new", self.folder / "state.json")
        kept = {codes_name, flags_name, "state.json", *(_snapshot_name(i) for i in range(len(snapshots)))}
        for path in self.folder.iterdir():
            if path.name not in kept:
                path.unlink(missing_ok=True)

    def snapshot(self, index: int, codes: np.ndarray) -> np.ndarray:
        """Write the codes of a window that slides away as snapshot ``index`` and return
        them (uint8[size]) as read back from disk.

        :raises OSError: if the disk is full."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / _snapshot_name(index)
        _write(path, codes)
        return np.memmap(path, np.uint8, "r", shape=codes.shape)

    def clear(self) -> None:
        """Delete the checkpoint (its values are stored)."""
        shutil.rmtree(self.folder, ignore_errors=True)


def _snapshot_name(index: int) -> str:
    return f"snapshot-{index}.u8"


def _write(path: Path, codes: np.ndarray) -> None:
    """Write ``codes`` to ``path`` a chunk at a time and flush it to disk."""
    with open(path, "wb") as file:
        for start in range(0, len(codes), WRITE_CHUNK):
            file.write(memoryview(codes[start : start + WRITE_CHUNK]))
        file.flush()
        os.fsync(file.fileno())
