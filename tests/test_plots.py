"""Plots render headless (Agg) from synthetic results: ACR, queue, received, overview."""

import matplotlib
import matplotlib.pyplot as plt

from ccsim import Result, plots


def _fig(obj):
    return obj if isinstance(obj, matplotlib.figure.Figure) else obj.figure


def test_backend_is_headless():
    assert matplotlib.get_backend().lower() == "agg"


def test_acr_many_sources_share_a_colour_per_group(synthetic):
    fig = _fig(plots.plot_acr(Result(synthetic)))
    ax = fig.axes[0]
    assert len(ax.lines) == 10
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["A", "B", "C", "D"]
    assert "ms" in ax.get_xlabel() and "Mb/s" in ax.get_ylabel()
    colours = [l.get_color() for l in ax.lines]  # A1 A2 B1 B2 B3 C1 C2 C3 C4 D1
    assert colours[0] == colours[1] != colours[2] == colours[3] == colours[4] != colours[5]
    plt.close(fig)


def test_acr_few_sources_are_labelled_by_name(synthetic):
    fig = _fig(plots.plot_acr(Result(synthetic), sources=["A1", "B2"]))
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["A1", "B2"]
    plt.close(fig)


def test_queue_defaults_to_ports_that_queued(synthetic):
    fig = _fig(plots.plot_queue(Result(synthetic)))
    assert sorted(l.get_label() for l in fig.axes[0].lines) == ["SW1->SW2", "SW2->SW3"]
    assert "cells" in fig.axes[0].get_ylabel()
    plt.close(fig)
    fig = _fig(plots.plot_queue(Result(synthetic), ports=["SW2->DA1"]))
    assert len(fig.axes[0].lines) == 1
    plt.close(fig)


def test_given_axes_are_drawn_on(synthetic):
    fig, ax = plt.subplots()
    plots.plot_acr(Result(synthetic), ax=ax)
    plots.plot_queue(Result(synthetic), ax=ax)
    assert len(ax.lines) == 12
    plt.close(fig)


def test_received_and_overview(synthetic, tmp_path):
    r = Result(synthetic)
    fig = _fig(plots.plot_received(r))
    assert len(fig.axes[0].lines) == 10
    plt.close(fig)
    path = tmp_path / "overview.png"
    plots.plot_overview(r, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000
    fig = _fig(plots.plot_overview(r))
    assert len(fig.axes) == 2
    plt.close(fig)


def test_long_series_are_drawn_from_their_envelope():
    import numpy as np

    from ccsim.plots import _envelope

    x = np.arange(100_001, dtype=float)
    y = np.sin(x / 50.0) * 10 + (x == 54_321) * 100 - (x == 7) * 50
    xs, ys = _envelope(x, y, bins=1000)
    assert len(xs) == len(ys) == 4 * 1000
    assert (xs[0], ys[0], xs[-1], ys[-1]) == (x[0], y[0], x[-1], y[-1])
    assert np.all(np.diff(xs) >= 0)
    # Each slice of 100 points: its first, lowest, highest and last value.
    q = ys.reshape(-1, 4)
    starts = np.arange(0, 100_000, 100)
    ends = np.append(starts[1:], len(x))
    assert np.array_equal(q[:, 0], y[starts]) and np.array_equal(q[:, 3], y[ends - 1])
    assert np.array_equal(q[:, 1], [y[s:e].min() for s, e in zip(starts, ends)])
    assert np.array_equal(q[:, 2], [y[s:e].max() for s, e in zip(starts, ends)])
    assert ys.max() == y.max() == y[54_321] and ys.min() == y.min() == y[7]
    short = np.arange(10.0)
    assert _envelope(short, short)[0] is short
