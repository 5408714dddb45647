"""Series streamed to Parquet as a run goes (`stream_series`, `ccsim run --out` on long runs): the same
tables and plots as in memory, no `measure.max_series_mb` refusal, memory flat in the run's length."""

import subprocess

import polars as pl
import pytest

import ccsim
from ccsim import plots
from ccsim._streamed import SeriesWriter
from ccsim.result import SERIES_COLUMNS


@pytest.fixture
def small_parts(monkeypatch):
    # Many parts, so that slices and lines span part boundaries.
    monkeypatch.setattr(SeriesWriter, "flush_rows", 3000)


def test_streamed_series_equal_the_series_in_memory(tmp_path, small_parts):
    memory = ccsim.run("abr-benchmarks/gfc1", duration="150ms")
    streamed = ccsim.run("abr-benchmarks/gfc1", duration="150ms", stream_series=tmp_path / "parts")
    assert streamed.streamed and not memory.streamed
    assert len(list((tmp_path / "parts" / "acr").glob("part-*.parquet"))) > 5
    for name in SERIES_COLUMNS:
        assert getattr(memory, name).equals(getattr(streamed, name)), name
        assert memory.scan(name).collect().equals(streamed.scan(name).collect()), name
    assert {**memory.summary(), "wall_s": 0} == {**streamed.summary(), "wall_s": 0}
    memory.write(tmp_path / "a")
    streamed.write(tmp_path / "b")
    tables = sorted(p.name for p in (tmp_path / "a").glob("*.parquet"))
    assert tables == sorted(p.name for p in (tmp_path / "b").glob("*.parquet"))
    for name in tables:
        assert pl.read_parquet(tmp_path / "a" / name).equals(pl.read_parquet(tmp_path / "b" / name)), name
    assert sorted(p.name for p in (tmp_path / "a").glob("*.png")) == sorted(p.name for p in (tmp_path / "b").glob("*.png"))


def test_streamed_plots_draw_each_lines_envelope(tmp_path, small_parts):
    """Drawn from parts, a line keeps its extremes: every slice's lowest and highest value, so the
    drawn minimum and maximum are the series' own."""
    r = ccsim.run("abr-benchmarks/gfc1", duration="300ms", stream_series=tmp_path / "parts")
    whole = r.queue
    fig = plots.plot_queue(r, ports=["SW1->SW2"])
    line = next(l for l in fig.axes[0].lines if l.get_label() == "SW1->SW2")
    q = whole.filter(pl.col("port") == "SW1->SW2")["queue_cells"]
    assert (min(line.get_ydata()), max(line.get_ydata())) == (q.min(), q.max())
    assert len(line.get_ydata()) <= 4 * 1000


def test_a_streamed_run_is_not_refused_for_the_size_of_its_series(tmp_path):
    with pytest.raises(ccsim.ScenarioError, match=r"measure.max_series_mb = 1;.*ccsim run --out.*stream_series=DIR"):
        ccsim.run("abr-benchmarks/gfc1", duration="1s", set={"measure.max_series_mb": 1})
    r = ccsim.run("abr-benchmarks/gfc1", duration="1s", set={"measure.max_series_mb": 1}, stream_series=tmp_path / "p")
    assert r.acr.height > 0


def _peak_kb(cli, env, tmp_path, duration: str) -> int:
    """Peak resident memory of `ccsim run --out` in a child process (its own high-water mark)."""
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = tmp_path / f"out-{duration}"
    args = cli + ["run", "abr-benchmarks/gfc1", "--set", f"run.duration={duration}", "--set", "measure.max_series_mb=1",
                  "--out", str(out)]
    p = subprocess.run(["python3", "-c", code, *args], env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert (out / "acr.parquet").exists() and (out / "queue.png").exists()
    # The parts beside --out are gone.
    assert [x.name for x in tmp_path.iterdir() if x.name.startswith(".")] == []
    return int(p.stdout.strip())


def test_out_streams_large_series_and_memory_stays_flat(cli, env, tmp_path):
    """`--out` streams series larger than `measure.max_series_mb` (here 1 MB): 5x the simulated
    time (4 s -> 20 s, ~17 -> ~90 MB of series in memory otherwise) leaves the peak within 15 %."""
    short, long = _peak_kb(cli, env, tmp_path, "4s"), _peak_kb(cli, env, tmp_path, "20s")
    assert long < 1.15 * short, (short, long)
    rows = pl.scan_parquet(tmp_path / "out-20s" / "acr.parquet").select(pl.len()).collect().item()
    assert rows == 23 * 40_001  # 23 sources, a sample every 500 us from 0 to 20 s

