"""How every figure ccsim draws looks: the size and resolution it is saved at, the time axis in the
unit that fits the run, plain tick labels (integers on axes that count), legends outside the data,
and the layout that makes room for them.

Figures are saved at `DPI` (300) as PNG, or as PDF or SVG; a panel is `PANEL_SIZE` inches, so a
PNG panel is 2100 × 1140 pixels and fits a page's text width at 300 dpi with its fonts at their
own size. Legends sit to the right of the axes, never over the data; `fit` then shrinks the axes
so that the legend and every label stay inside the figure, measuring them (the legend's text,
the tick labels) rather than the drawn lines (a layout engine measures every artist, ~50 ms a
figure on long runs)."""

from __future__ import annotations

from typing import Any

#: Resolution of PNG figures (dots per inch): `plots.write_plots`, `Result.write`, `--plot-dpi`.
DPI = 300
#: Size of one panel (inches): a page's text width.
PANEL_SIZE = (7.0, 3.8)
# Space kept free around each panel's decorations, inches.
_PAD = 0.08
# A panel's axes are at least this much of its width (a legend wider than the rest is cut).
_MIN_AXES_FRACTION = 0.45


def check_dpi(dpi: Any) -> int:
    """``dpi`` as an int, or ``ScenarioError`` naming it (a resolution from 50 to 1200 dpi)."""
    from .errors import ScenarioError

    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or dpi != int(dpi) or not 50 <= dpi <= 1200:
        raise ScenarioError(f"plot dpi: {dpi!r} (use a whole number of dots per inch from 50 to 1200; default {DPI})")
    return int(dpi)


def time_unit(span_s: float) -> tuple[str, float]:
    """The unit a time axis spanning ``span_s`` seconds reads best in, and the factor from
    milliseconds to it: seconds from 2 s up (a minute reads 0-60 s, not 0-60,000 ms),
    milliseconds from 2 ms up (500 ms, 50 ms), microseconds below."""
    if span_s >= 2.0:
        return "s", 1e-3
    if span_s >= 2e-3:
        return "ms", 1.0
    return "µs", 1e3


def plain_ticks(axis) -> None:
    """Tick labels written out (``0.99995``), never as an offset or a power of ten
    (``1e-5+9.999e-1``)."""
    from matplotlib.ticker import ScalarFormatter

    fmt = ScalarFormatter(useOffset=False)
    fmt.set_scientific(False)
    axis.set_major_formatter(fmt)


def count_ticks(axis) -> None:
    """Ticks at whole numbers only, written with thousands separators (``12,000``): for axes
    that count cells, packets or drops."""
    from matplotlib.ticker import MaxNLocator, StrMethodFormatter

    axis.set_major_locator(MaxNLocator(nbins="auto", steps=[1, 2, 2.5, 5, 10], integer=True, min_n_ticks=1))
    axis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))


def legend(ax, handles=None, labels=None, **options: Any):
    """The axes' legend to the right of them, its top level with theirs: outside the data, so it
    never hides a line (`fit` makes room for it in ccsim's own figures). Two columns past 16
    entries."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return None
    kw = dict(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, frameon=False,
              ncol=2 if len(handles) > 16 else 1)
    kw.update(options)
    return ax.legend(handles, labels, **kw)


def new_figure(ncols: int = 1):
    """A figure of ``ncols`` panels side by side (`PANEL_SIZE` each) and its axes."""
    from . import _mpl

    w, h = PANEL_SIZE
    fig, axes = _mpl.subplots(1, ncols, figsize=(w * ncols, h), squeeze=False)
    return fig, list(axes[0])


def fit(fig, axes=None) -> None:
    """Places each of ``axes`` (default: the figure's), one per equal column of the figure, so
    that its tick labels, axis labels, title and legend fit in its column: the axes take what
    the decorations leave. Measured twice, since the ticks follow the axes' size."""
    axes = list(fig.axes if axes is None else axes)
    if not axes:
        return
    renderer = fig._get_renderer()
    dpi = fig.dpi
    fw, fh = fig.get_size_inches() * dpi
    pad = _PAD * dpi
    col = fw / len(axes)
    for _ in range(2):
        for i, ax in enumerate(axes):
            pos = ax.get_window_extent(renderer)
            # The axis labels, title and legend only: the drawn lines lie inside the axes, and
            # measuring them (a step path of thousands of points each) costs ~0.2 s a figure.
            legend = ax.get_legend()
            tight = ax.get_tightbbox(renderer, bbox_extra_artists=[legend] if legend else [])
            left = pos.x0 - tight.x0
            right = tight.x1 - pos.x1
            bottom = pos.y0 - tight.y0
            top = tight.y1 - pos.y1
            x0 = i * col + left + pad
            width = max(col - left - right - 2 * pad, _MIN_AXES_FRACTION * col)
            y0 = bottom + pad
            height = max(fh - bottom - top - 2 * pad, 0.3 * fh)
            ax.set_position([x0 / fw, y0 / fh, width / fw, height / fh])


#: zlib level of the PNGs ccsim writes: 1 encodes a plot several times faster than PIL's default
#: (6), for files ~10 % larger (docs/benchmarks.md, "Writing results").
PNG_COMPRESSION = 1


def save(fig, path, fmt: str, dpi: int = DPI) -> None:
    """Writes ``fig`` in ``fmt`` (png at ``dpi``, compressed at `PNG_COMPRESSION`; pdf and svg are
    vector, their embedded images, if any, at ``dpi``)."""
    options = {"pil_kwargs": {"compress_level": PNG_COMPRESSION}} if fmt == "png" else {}
    fig.savefig(path, format=fmt, dpi=dpi, **options)


def save_formats(fig, out, name: str, formats, dpi: int = DPI) -> list:
    """``fig`` as ``out/name.<fmt>`` for each of ``formats`` (`save`); the paths written."""
    from pathlib import Path

    paths = [Path(out) / f"{name}.{fmt}" for fmt in formats]
    for path, fmt in zip(paths, formats):
        save(fig, path, fmt, dpi)
    return paths


__all__ = ["DPI", "PANEL_SIZE", "check_dpi", "time_unit", "plain_ticks", "count_ticks", "legend", "new_figure", "fit", "save",
           "save_formats", "PNG_COMPRESSION"]
