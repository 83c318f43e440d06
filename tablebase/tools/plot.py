"""Histograms of remoteness drawn with matplotlib, for ``tablebase plot`` and the web page.

matplotlib is an optional dependency (the ``serve`` extra); it is imported only when a
figure is drawn, with its non-interactive Agg backend.
"""

from __future__ import annotations

import io
from pathlib import Path

from tablebase.core.errors import UsageError
from tablebase.core.game import Game
from tablebase.store import Store
from tablebase.tools.stats import Histogram, remoteness_histogram

FORMATS = ("png", "svg")
"""The image formats :func:`histogram_image` writes."""

COLOURS = {"win": "#2e7d32", "draw": "#757575", "loss": "#c62828"}
"""One colour per outcome, the same as on the web page."""


def image_format(path: str | Path) -> str:
    """The format named by a file's suffix.

    :raises UsageError: for a suffix other than ``.png`` or ``.svg``.
    """
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise UsageError(f"cannot draw {str(path)!r}: the file must end in .png or .svg")
    return suffix


def histogram_image(
    histogram: Histogram, title: str, image_format: str = "png", distance: str = "remoteness (plies)"
) -> bytes:
    """A bar chart of positions per distance (remoteness, or DTZ), one series per
    outcome, stacked; the same histogram gives the same bytes (no date, fixed SVG ids).

    :param image_format: ``"png"`` or ``"svg"``.
    :param distance: the label of the horizontal axis.
    :returns: the image file's bytes.
    :raises UsageError: if matplotlib is not installed or the format is unknown.
    """
    if image_format not in FORMATS:
        raise UsageError(f"unknown image format {image_format!r}: expected png or svg")
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.figure import Figure
    except ImportError:
        raise UsageError('plots need matplotlib: pip install "tablebase[serve]"') from None
    figure = Figure(figsize=(8, 3.6), layout="constrained")
    axes = figure.subplots()
    bottom = None
    for label, counts in histogram.counts.items():
        if not counts.any():
            continue
        plies = range(len(counts))
        axes.bar(plies, counts, bottom=bottom, width=1.0, color=COLOURS[label], label=label)
        bottom = counts if bottom is None else bottom + counts
    axes.set_xlabel(distance)
    axes.set_ylabel("positions")
    axes.set_title(title)
    if bottom is not None:
        axes.legend()
    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "tablebase"}):  # the same histogram, the same bytes
        figure.savefig(buffer, format=image_format, metadata={"Date": None} if image_format == "svg" else None)
    return buffer.getvalue()


def tablebase_histogram(game: Game, store: Store, image_format: str = "png") -> bytes:
    """The histogram image of a game's stored tablebase, titled with its description.

    :raises NotBuiltError: if the tablebase is not complete in the store.
    :raises UsageError: if matplotlib is missing or the format is unknown.
    """
    row = store.require(game.name, game.identity(), game.build_command(), game.version)
    return histogram_image(remoteness_histogram(store, row), row.description, image_format)
