"""The repository's layout as it installs: no generic top-level packages, and every
document the code cites is in the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="tomllib comes with Python 3.11")

ROOT = Path(__file__).resolve().parent.parent


def test_everything_installs_inside_the_tablebase_namespace():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["setuptools"]["packages"]["find"]["include"] == ["tablebase*"]  # discovery, no list
    for target in config["project"]["entry-points"]["tablebase.games"].values():
        assert target.startswith("tablebase.generators."), target
    for folder in ("generators", "migrations"):
        link = ROOT / "tablebase" / folder
        assert link.is_symlink() and link.resolve() == (ROOT / folder).resolve() and (ROOT / folder / "__init__.py").is_file()


def test_the_root_holds_only_what_the_layout_names():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    top = {name.split("/")[0] for name in tracked}
    named = {"pyproject.toml", "tablebase", "generators", "migrations", "tests", "README.md", "benchmarks", "docs"}
    assert {name for name in top if not name.startswith(".")} <= named


def test_cited_documents_exist():
    cited = set()
    for path in [*ROOT.glob("tablebase/**/*.py"), *ROOT.glob("generators/**/*.py"), *ROOT.glob("tests/*.py")]:
        text = path.read_text(encoding="utf-8")
        assert "DESIGN.md" not in text or path.name == "test_layout.py", f"{path} cites DESIGN.md, which is not in the repository"
        cited.update(re.findall(r"docs/[\w./-]+\.md", text))
        cited.update(re.findall(r"tests/test_\w+\.py", text))
    assert "docs/design.md" in cited and "tests/test_chess_oracle.py" in cited
    for document in cited:
        assert (ROOT / document).is_file(), f"{document} is cited but missing"
