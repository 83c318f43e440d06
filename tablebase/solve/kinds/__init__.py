"""Value kinds: what a tablebase stores for each position, and how it is solved, verified
and read back, one :class:`ValueKind` a module.

A game declares its kind by name in ``mode`` (:class:`~tablebase.core.game.Mode` names the
built-in ones; chess picks one from its ``metric``):

========== ========================= ================================================
kind       module                    stored beside win/draw/loss
========== ========================= ================================================
wdl        :mod:`.wdl`               remoteness in plies (chess: DTM)
impartial  :mod:`.grundy`            remoteness and the Grundy value (nimber)
sums       :mod:`.sums`              the Grundy value of single components
scored     :mod:`.score`             the negamax score
buchi      :mod:`.buchi`             nothing: who wins the Büchi condition
dtz        :mod:`.dtz`               DTZ under the 50-move rule (Syzygy's categories)
dtz+dtm    :mod:`.dtz`               DTZ and DTM
========== ========================= ================================================

Adding a kind is one module defining a :class:`ValueKind` subclass and calling
:func:`register` on an instance; a game then names it in ``mode``.
"""

from tablebase.solve.kinds import buchi, dtz, grundy, score, sums, wdl  # noqa: F401  the built-in kinds register themselves
from tablebase.solve.kinds.base import (
    THREADED_BATCH_SIZE,
    Finding,
    StoredValues,
    ValueKind,
    check_class,
    kind_named,
    kind_of,
    register,
    solve_game,
    threaded_batch_size,
)

__all__ = ["Finding", "StoredValues", "ValueKind", "register", "kind_named", "kind_of", "check_class", "THREADED_BATCH_SIZE", "threaded_batch_size", "solve_game"]
