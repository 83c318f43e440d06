"""The plan of a build: which tablebases it makes and which it reuses, in build order.

A game's tablebase needs those of its :meth:`~tablebase.core.game.Game.dependencies` first
(chess: the smaller endings that captures and promotions lead into), and a collection
(chess ``all3``) stands for its :meth:`~tablebase.core.game.Game.members`, each with its own
dependencies. ``tablebase build`` prints the plan before it starts, and ``build
--dry-run`` prints it only.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablebase.core.game import Game
from tablebase.store import Store, TablebaseRow


@dataclass(frozen=True)
class PlannedTable:
    """One tablebase of a plan.

    :ivar game: the game, with the parameters of this tablebase.
    :ivar row: the catalog row of its complete tablebase, as the plan found it stored;
        None when none is.
    :ivar rebuild: whether it is built even so (``--force`` rebuilds what was asked for,
        never a dependency).
    """

    game: Game
    row: TablebaseRow | None
    rebuild: bool

    @property
    def stored(self) -> bool:
        """Whether a complete tablebase of it is stored."""
        return self.row is not None

    @property
    def reused(self) -> bool:
        """Whether the build keeps the stored tablebase."""
        return self.stored and not self.rebuild

    @property
    def action(self) -> str:
        """``reuse``, ``build`` or ``rebuild``, as the plan is printed."""
        return "reuse" if self.reused else "rebuild" if self.stored else "build"


def build_plan(game: Game, store: Store, force: bool = False) -> list[PlannedTable]:
    """Every tablebase a build of ``game`` needs, each after its dependencies: the
    game's members (itself, unless it is a collection) and, depth first, their
    dependencies. Each is looked up in the catalog once, here: the build that carries
    the plan out (:func:`~tablebase.build.builder.carry_out`) reuses the rows it found.

    :param force: plan to rebuild the members even where they are stored.
    :raises StoreError: if the database fails.
    """
    members = game.members()
    forced = {(member.name, member.identity()) for member in members} if force else set()
    planned: dict[tuple[str, str], PlannedTable] = {}

    def visit(target: Game) -> None:
        identity = (target.name, target.identity())
        if identity in planned:
            return
        for dependency in target.dependencies():
            visit(dependency)
        planned[identity] = PlannedTable(target, store.find(target.name, target.identity(), target.version), identity in forced)

    for member in members:
        visit(member)
    return list(planned.values())
