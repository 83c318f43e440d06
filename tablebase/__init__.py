"""tablebase: persistent endgame tablebases for pluggable two-player games.

``tablebase.open(db)`` opens a database for probing from Python (see
:mod:`tablebase.faces.api`); it is imported on first use, so ``import tablebase.core.game`` stays light.
"""

from typing import Any

from tablebase.util import compile_cache

compile_cache.choose()  # before numba is imported by any module of the package

__version__ = "0.1.0"

__all__ = ["Tablebases", "__version__", "open"]


def __getattr__(name: str) -> Any:
    if name in ("open", "Tablebases"):
        from tablebase.faces import api

        return getattr(api, name)
    raise AttributeError(f"module 'tablebase' has no attribute {name!r}")
