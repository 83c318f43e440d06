"""The house's structure, read from the code's own imports (docs/design.md, "Packages"):
no import cycle, no import from a lower floor to a higher one, no module over 700 lines,
and a store that knows no games. Imports inside functions count like any other."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SOURCES = {"tablebase": ROOT / "tablebase", "tablebase.generators": ROOT / "generators", "tablebase.migrations": ROOT / "migrations"}
"""Where each installed package's modules live in the source tree (tablebase/generators
and tablebase/migrations are links to the folders at the top of the repository)."""

FLOORS = [
    ("tablebase.core", "tablebase.util"),
    ("tablebase.store", "tablebase.migrations", "tablebase.solve", "tablebase.generators"),
    ("tablebase.read",),
    ("tablebase.build", "tablebase.tools"),
    ("tablebase.faces",),
]
"""The packages from the ground floor up. A module imports its own package's modules and
those of lower floors; never a higher floor's, nor another package's on its own floor
(the store and its migrations excepted: each names the other's schema)."""

NEIGHBOURS = {("tablebase.store", "tablebase.migrations"), ("tablebase.migrations", "tablebase.store")}

MOST_LINES = 700

STORE_NEVER_IMPORTS = ("tablebase.core.game", "tablebase.solve", "tablebase.generators", "tablebase.read")


def _modules() -> dict[str, Path]:
    found = {}
    for package, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            if package == "tablebase" and path.relative_to(folder).parts[0] in ("generators", "migrations"):
                continue  # the links: read once, under their own names
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module of ours that an imported name lives in (its longest known prefix)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str) -> set[str]:
    """The modules of ours that ``module`` imports anywhere in its text."""
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(filter(None, (_resolve(alias.name) for alias in node.names)))
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1] + [node.module or ""]) if node.level else node.module
            for alias in node.names:
                target = _resolve(f"{base}.{alias.name}")
                found.add(target if target and target != module else _resolve(base))
    found.discard(None)
    found.discard(module)
    return found  # type: ignore[return-value]


GRAPH = {module: _imports(module) for module in MODULES}


def _floor(module: str) -> tuple[int, str] | None:
    """The floor and package of a module, ``None`` for the top (``tablebase`` itself)."""
    for level, packages in enumerate(FLOORS):
        for package in packages:
            if module == package or module.startswith(package + "."):
                return level, package
    return None


def test_every_module_of_the_source_tree_is_read():
    assert "tablebase.core.game" in MODULES and "tablebase.generators.chess" in MODULES
    assert "tablebase.migrations.env" in MODULES
    assert all(_floor(module) or module in ("tablebase", "tablebase.__main__") for module in MODULES), [
        module for module in MODULES if not _floor(module) and module not in ("tablebase", "tablebase.__main__")
    ]


def test_the_imports_have_no_cycle():
    state: dict[str, int] = {}  # 1 on the path, 2 done
    cycles = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(GRAPH[module]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target) :] + [target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])
    assert cycles == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _floor(m)))
def test_no_import_runs_up_a_floor_or_across_to_a_neighbour(module):
    level, package = _floor(module)  # type: ignore[misc]
    wrong = []
    for target in GRAPH[module]:
        where = _floor(target)
        if where is None or where[0] > level or (where[0] == level and where[1] != package and (package, where[1]) not in NEIGHBOURS):
            wrong.append(target)
    assert wrong == []


def test_the_store_knows_no_games():
    reached = {
        (module, target)
        for module in MODULES
        if module.startswith("tablebase.store")
        for target in GRAPH[module]
        if target.startswith(STORE_NEVER_IMPORTS)
    }
    assert reached == set()


def test_no_module_is_over_the_most_lines():
    long = {module: n for module, path in MODULES.items() if (n := len(path.read_text(encoding="utf-8").splitlines())) > MOST_LINES}
    assert long == {}
