"""tablebase: persistent endgame tablebases for pluggable two-player games."""

__version__ = "0.1.0"
