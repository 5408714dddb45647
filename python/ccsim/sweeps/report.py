"""``ccsim report DIR``: one HTML page for a sweep.

For every metric and every axis: an interactive plotly figure (plotly.js is inlined, so the page
works offline) with confidence-interval bars, and static copies drawn by matplotlib under
``DIR/report/`` (PNG at 300 dpi and SVG, plain tick labels, `_figstyle`). When a plan has several
axes, each other-axis combination is one line. Axes and metrics go by the plan's labels; a metric
without one, in words (`labels.py`). Below the figures: the table of points (mean ± half-width,
n, method of every metric).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import polars as pl

from .._extras import require
from .._html import Markup, render
from .store import NotASweepDirectory, Store, StoreError
from .labels import readable
from .summary import summarize


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "x"


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.6g}"
    return str(v)


def _series(summ: pl.DataFrame, metric: str, axis: str, axes: list[str], names: dict[str, str]):
    """[(label, xs, means, half-widths)] for one metric against one axis (`names`: the plan's
    labels of axes and metrics)."""
    d = summ.filter(pl.col("metric") == metric)
    others = [a for a in axes if a != axis]
    groups = d.group_by(others, maintain_order=True) if others else [((), d)]
    out = []
    for key, g in groups:
        g = g.sort(axis)
        key = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{_name(names, a[5:])} = {k}" for a, k in zip(others, key)) or _name(names, metric)
        hw = [0.0 if (h is None or math.isnan(h)) else h for h in g["half_width"].to_list()]
        out.append((label, g[axis].to_list(), g["mean"].to_list(), hw))
    return out


def _plotly_div(metric: str, axis: str, series, div_id: str) -> str:
    """`metric` and `axis` as the report names them (labels)."""
    go = require("plotly.graph_objects", "report", "ccsim report")

    fig = go.Figure()
    for label, xs, ys, hw in series:
        fig.add_trace(go.Scatter(x=xs, y=ys, name=label, mode="lines+markers",
                                 error_y=dict(type="data", array=hw, visible=True)))
    fig.update_layout(title=f"{metric} vs {axis}", xaxis_title=axis, yaxis_title=metric,
                      template="plotly_white", height=420, margin=dict(l=60, r=20, t=50, b=50),
                      showlegend=len(series) > 1)
    # Tick labels written out, as in the static copies: no SI suffixes ("100µ") or powers of ten.
    fig.update_xaxes(exponentformat="none", separatethousands=True)
    fig.update_yaxes(exponentformat="none", separatethousands=True)
    return fig.to_html(full_html=False, include_plotlyjs=False, div_id=div_id)


# A metric whose points differ by less than this fraction of their size is drawn on an axis this
# wide around them: rounding noise (a fairness index of 1 - 3e-8) does not fill the figure, and
# the table gives every digit.
_MIN_RELATIVE_SPAN = 1e-4


def _numbers(values) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def static_figure(metric: str, axis: str, series, title: str):
    """One metric against one axis as a matplotlib figure: ``metric`` and ``axis`` as the report
    names them, ``series`` as `_series` gives them, plain tick labels (whole numbers on an axis of
    whole numbers), the legend outside."""
    from .. import _figstyle as style

    fig, (ax,) = style.new_figure(1)
    for label, xs, ys, hw in series:
        ax.errorbar(xs, ys, yerr=hw, marker="o", capsize=3, label=label)
    ax.set_xlabel(axis)
    ax.set_ylabel(metric)
    ax.set_title(title, fontsize="medium")
    ax.grid(alpha=0.3)
    xs = [x for _, s_xs, _, _ in series for x in s_xs]
    if xs and _numbers(xs):
        (style.count_ticks if all(float(x).is_integer() for x in xs) else style.plain_ticks)(ax.xaxis)
    style.plain_ticks(ax.yaxis)
    bounds = [(y - h, y + h) for _, _, ys, hws in series for y, h in zip(ys, hws) if y is not None and math.isfinite(y)]
    if bounds:
        lo, hi = min(b[0] for b in bounds), max(b[1] for b in bounds)
        size = max(abs(lo), abs(hi))
        if size > 0 and hi - lo < _MIN_RELATIVE_SPAN * size:
            mid = (lo + hi) / 2
            ax.set_ylim(mid - _MIN_RELATIVE_SPAN * size / 2, mid + _MIN_RELATIVE_SPAN * size / 2)
    if len(series) > 1:
        style.legend(ax)
    style.fit(fig)
    return fig


def _static(fig, base: Path) -> list[str]:
    """The PNG (300 dpi) and SVG copies of a figure."""
    from .. import _figstyle as style

    names = []
    for ext in ("png", "svg"):
        style.save(fig, base.with_suffix(f".{ext}"), ext)
        names.append(base.with_suffix(f".{ext}").name)
    return names


def _name(names: dict[str, str], key: str) -> str:
    """How the report names an axis path or a metric: the plan's label, else (a metric) in words
    (`labels.readable`)."""
    label = names.get(key, key)
    return readable(key) if label == key else label


def _network(manifest: dict, plan: dict, fig_dir: Path) -> str | None:
    """The base scenario's network (`ccsim show`'s drawing) as ``report/network.png``, or None when the
    manifest keeps no scenario (a sweep stored before it did)."""
    scenario = manifest.get("scenario")
    if scenario is None:
        return None
    from ..netdraw import draw
    from ..topology import topology

    draw(topology(scenario, scheme=plan.get("scheme"))).savefig(fig_dir / "network.png", dpi=110)
    return f"{fig_dir.name}/network.png"


def write_report(sweep_dir: str | Path, out: str | Path | None = None, confidence: float = 0.95) -> Path:
    """Writes ``report.html`` (default ``DIR/report.html``) and the static figures under
    ``DIR/report/``; returns the HTML path."""
    get_plotlyjs = require("plotly.offline", "report", "ccsim report").get_plotlyjs
    store = Store(sweep_dir)
    manifest = store.manifest()
    if manifest is None:
        raise NotASweepDirectory(f"{sweep_dir}: not a sweep directory (no manifest.json)")
    frame = store.read()
    store.check_rows(frame)
    if frame.height == 0:
        raise StoreError(f"{sweep_dir}: the sweep has no completed runs yet")
    summ = summarize(frame, confidence)
    axes = [f"axis:{a}" for a in manifest.get("axes", [])]
    metrics = summ["metric"].unique(maintain_order=True).to_list()
    html_path = Path(out) if out else Path(sweep_dir) / "report.html"
    fig_dir = html_path.parent / "report"
    fig_dir.mkdir(parents=True, exist_ok=True)

    names = manifest.get("labels", {})
    figures = []
    for metric in metrics:
        for axis in axes:
            series = _series(summ, metric, axis, axes, names)
            slug = f"{_slug(metric)}--{_slug(axis[5:])}"
            m_label, a_label = _name(names, metric), _name(names, axis[5:])
            title = f"{m_label} vs {a_label}"
            figures.append({"div": Markup(_plotly_div(m_label, a_label, series, slug)), "dir": fig_dir.name,
                            "files": _static(static_figure(m_label, a_label, series, title), fig_dir / slug)})

    # table of points: one row per point, mean ± half-width per metric
    head = ["point"] + [_name(names, a[5:]) for a in axes] + [_name(names, m) for m in metrics] + ["n", "interval"]
    rows = []
    for (point,), g in summ.group_by(["point"], maintain_order=True):
        first = g.row(0, named=True)
        cells = [str(point)] + [_fmt(first[a]) for a in axes]
        for m in metrics:
            r = g.filter(pl.col("metric") == m)
            if r.height == 0:
                cells.append("")
                continue
            r = r.row(0, named=True)
            hw = r["half_width"]
            cells.append(_fmt(r["mean"]) + ("" if hw is None or math.isnan(hw) else f" ± {hw:.3g}"))
        methods = sorted(set(g["method"].to_list()))
        cells += [str(first["n"]), f"{confidence:.0%} " + "/".join(methods)]
        rows.append(cells)

    plan = manifest.get("plan", {})
    network = _network(manifest, plan, fig_dir)
    page = render("sweep_report.html.j2", network=network, title=f"Sweep: {manifest.get('name')}", plotly_js=Markup(get_plotlyjs()),
                  description=str(plan.get("description", "")), version=str(manifest.get("ccsim_version")),
                  points=len(manifest.get("points", [])), replications=manifest.get("replications"), done=frame.height,
                  total=manifest.get("runs_total", frame.height), confidence=f"{confidence:.0%}", figures=figures,
                  head=head, rows=rows, plan_json=json.dumps(plan, indent=2, default=str))
    html_path.write_text(page, encoding="utf-8")
    return html_path


__all__ = ["write_report"]
