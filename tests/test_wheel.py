"""The wheel a user installs holds every package of the source tree: an editable install
(CI's) would hide one that packaging leaves out."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

INSTALLED_AS = {"tablebase": ROOT / "tablebase", "tablebase/generators": ROOT / "generators", "tablebase/migrations": ROOT / "migrations"}
"""Each folder of the source tree and where its files go in the wheel."""


def _expected_files() -> set[str]:
    """Every module and data file of the source tree, by its path in the wheel."""
    expected = set()
    for prefix, folder in INSTALLED_AS.items():
        for path in folder.rglob("*"):
            relative = path.relative_to(folder)
            if prefix == "tablebase" and relative.parts[0] in ("generators", "migrations"):
                continue  # the links, listed under their own folders
            if path.is_file() and "__pycache__" not in relative.parts and path.suffix in (".py", ".html", ".mako"):
                expected.add(f"{prefix}/{relative.as_posix()}")
    return expected


def test_the_wheel_holds_every_package_and_data_file_of_the_source_tree(tmp_path):
    source = tmp_path / "source"  # a copy, so that the build leaves nothing in the repository
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "tablebase", "generators", "migrations"):
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy2
        kwargs = {"symlinks": True, "ignore": shutil.ignore_patterns("__pycache__")} if copy is shutil.copytree else {}
        copy(ROOT / name, source / name, **kwargs)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("tablebase-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = _expected_files()
    assert "tablebase/solve/kinds/__init__.py" in expected and "tablebase/generators/chess/game.py" in expected
    assert expected - names == set()
    assert not any(name.startswith(("generators/", "migrations/", "tests/", "benchmarks/")) for name in names)
