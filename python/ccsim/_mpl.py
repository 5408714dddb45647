"""Figures without pyplot: every figure ccsim draws is made here, as a `matplotlib.figure.Figure`
that pyplot never hears of.

So importing ccsim selects no backend: a notebook keeps its inline backend and a desktop its
windows (the user's own `plt.plot` is untouched), a thread may draw, and nothing needs a display.
Saving needs no backend either: `Figure.savefig` picks the Agg canvas for PNG and the PDF and SVG
canvases for those formats. In Jupyter a figure returned by a cell shows as its PNG
(`Figure._repr_png_` below; IPython's own formatter for figures does the same once pyplot is
loaded), once: a pyplot figure would also be shown again by the inline backend at the cell's end.

The names mirror pyplot's (`subplots`, `close`, `rcParams`, `get_cmap`), so a module that drew
with pyplot imports this one as `plt` and keeps its drawing code."""

from __future__ import annotations

import io
from typing import Any

import matplotlib
import matplotlib.figure

rcParams = matplotlib.rcParams


class Figure(matplotlib.figure.Figure):
    """A matplotlib figure that Jupyter (any IPython display) shows as a PNG."""

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.savefig(buf, format="png", bbox_inches="tight")
        return buf.getvalue()


def figure(**options: Any) -> Figure:
    """A new figure (``figsize``, ``dpi``, … as `matplotlib.figure.Figure` takes them)."""
    return Figure(**options)


def subplots(nrows: int = 1, ncols: int = 1, *, figsize: Any = None, dpi: Any = None, **options: Any) -> tuple[Figure, Any]:
    """``(figure, axes)`` as `pyplot.subplots` returns them (``sharex``, ``sharey``, ``squeeze``,
    ``subplot_kw``, ``gridspec_kw``, ``width_ratios``, ``height_ratios`` as it takes them)."""
    fig = Figure(figsize=figsize, dpi=dpi)
    return fig, fig.subplots(nrows, ncols, **options)


def close(fig: Any = None) -> None:
    """Nothing to do: pyplot holds no reference to these figures, so they go with their last
    reference. (Kept so that code written for pyplot reads the same.)"""


def get_cmap(name: str) -> Any:
    return matplotlib.colormaps[name]


__all__ = ["Figure", "figure", "subplots", "close", "get_cmap", "rcParams"]
