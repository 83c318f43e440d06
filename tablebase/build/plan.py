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
from tablebase.store import Store


@dataclass(frozen=True)
class PlannedTable:
    """One tablebase of a plan.

    :ivar game: the game, with the parameters of this tablebase.
    :ivar stored: whether a complete tablebase of it is stored.
    :ivar rebuild: whether it is built even so (``--force`` rebuilds what was asked for,
        never a dependency).
    """

    game: Game
    stored: bool
    rebuild: bool

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
    dependencies.

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
        stored = store.find(target.name, target.identity(), target.version) is not None
        planned[identity] = PlannedTable(target, stored, identity in forced)

    for member in members:
        visit(member)
    return list(planned.values())
