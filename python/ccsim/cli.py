"""The ``ccsim`` command line: presets, run, validate, schema, sweep, report, analyze."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from typer.core import TyperCommand

from ._choices import SCHEMES, TCP_VARIANTS, listed
from ._progress import ProgressBar
from .entry import fail, parse_sets, report_error, thread_count
from .errors import CcsimError, ScenarioError, UsageError

app = typer.Typer(
    add_completion=False,
    help="ccsim: discrete-event simulation of ATM ABR and TCP/IP congestion control.",
    pretty_exceptions_enable=False,
    # Plain help: typer's rich help loads a markdown renderer (~30 ms) before printing a line.
    rich_markup_mode=None,
)
analyze_app = typer.Typer(help="Closed-form analyses: numbers theory gives without simulating.", rich_markup_mode=None)
app.add_typer(analyze_app, name="analyze")


def _help_when_bare(ctx: typer.Context) -> None:
    """A command group called without a command: its help on stderr, exit 2. Click's convention
    since 8.2 (a missing command is a usage error, as argparse also treats it); done here rather
    than by `no_args_is_help`, whose exit code and output depend on the click and typer versions
    (and which ccsim's one-line error printer would squash into one line)."""
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help(), err=True)
        raise typer.Exit(2)


@app.callback(invoke_without_command=True)
def _root(
    ctx: typer.Context,
    version: bool = typer.Option(False, "--version", "-V", is_eager=True,
                                 help="Print ccsim's version and the git commit it was built from, and exit."),
) -> None:
    if version:
        from ._version import describe

        sys.stdout.write(f"ccsim {describe()}\n")
        raise typer.Exit(0)
    _help_when_bare(ctx)


@analyze_app.callback(invoke_without_command=True)
def _analyze(ctx: typer.Context) -> None:
    _help_when_bare(ctx)


class _Console:
    """rich's console, loaded at the first print: `--help`, `validate`, `schema` and the `--json`
    forms never print through it, and rich's console and tables take ~20 ms to import."""

    _console: Any = None

    def print(self, *objects: Any, **options: Any) -> None:
        if _Console._console is None:
            from rich.console import Console

            _Console._console = Console()
        _Console._console.print(*objects, **options)


out = _Console()


def escape(text: str) -> str:
    """rich's markup escape (loaded on first use, as the console)."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def Table(*headers: Any, **options: Any) -> Any:  # noqa: N802 (stands for rich's class)
    """A rich table (loaded on first use, as the console)."""
    from rich.table import Table as RichTable

    return RichTable(*headers, **options)


class _PresetsCommand(TyperCommand):
    """`presets` takes FILTER or `show NAME`: one usage line for both (a group could not take an
    optional FILTER before its `show` command)."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return ["[OPTIONS]", "[FILTER | show NAME]"]


@app.command("presets", cls=_PresetsCommand)
def presets(
    pattern: Optional[str] = typer.Argument(None, metavar="FILTER", show_default=False,
                                            help="Only the presets whose name contains FILTER, or matches it as a glob "
                                                 "(* ? [..]; `ccsim presets gfr`, `ccsim presets 'gfc*'`)."),
    name: Optional[str] = typer.Argument(None, hidden=True),
    long: bool = typer.Option(False, "--long", "-l", help="Each preset's whole description, not its first sentence."),
) -> None:
    """List the shipped presets (FILTER: only some), or show one. One line each: name, seed paper,
    purpose. `ccsim presets show NAME` prints a preset's TOML (copy it, edit it, run it with
    `ccsim run FILE`)."""
    from .presets import matching, near_names, origin, preset_description, preset_text, purpose

    if pattern == "show":
        if name is None:
            raise ScenarioError("presets show: give a preset NAME (`ccsim presets` lists them)")
        sys.stdout.write(preset_text(name))
        return
    if name is not None:
        raise ScenarioError(f"presets: unexpected argument {name!r} (one FILTER, or `ccsim presets show NAME`)")
    names = matching(pattern)
    if not names:
        close = near_names(pattern or "")
        hint = f"; did you mean {', '.join(close)}?" if close else "; `ccsim presets` lists them all"
        raise ScenarioError(f"no preset name contains or matches {pattern!r}{hint}")
    width = max(len(n) for n in names)
    columns = shutil.get_terminal_size((100, 24)).columns
    lines = []
    for n in names:
        head = f"{n:<{width}}  {origin(n):<8}  "
        text = preset_description(n)
        if long:
            import textwrap

            lines.append(f"{n}  ({origin(n)})")
            lines += textwrap.wrap(text, max(40, columns - 4), initial_indent="    ", subsequent_indent="    ")
            continue
        text = purpose(text)
        room = max(20, columns - len(head) - 1)
        lines.append(head + (text if len(text) <= room else text[:room - 1].rstrip() + "…"))
    sys.stdout.write("\n".join(lines) + "\n")


def _span(start_s: float, end_s: float) -> str:
    """A time window in ms for short runs, in s from 10 s on (not `20000-60000 ms`)."""
    if end_s >= 10:
        return f"{start_s:g}-{end_s:g} s"
    return f"{start_s * 1e3:g}-{end_s * 1e3:g} ms"


def _ms(x: Any) -> str:
    """A delay in ms for a table cell (blank where the flow delivered nothing)."""
    return "" if x is None else f"{x:.3f}"


def _num(x: Any, fmt: str) -> str:
    """A summary number, or n/a where it does not apply (null)."""
    return "n/a" if x is None else format(x, fmt)


def _print_summary(s: dict[str, Any], threads: int = 1) -> None:
    """The summary as tables. Each table's title says what it covers, the measurement window or
    the whole run, and a table never mixes the two. Only the documented keys are required; the
    engine's extra ones (run-long queue maxima, link endpoints and rates) are shown when present."""
    from .result import port_field

    hops = [f"{s['cell_hops']:,} cell-hops"] if s["cell_hops"] or not s.get("packet_hops") else []
    if s.get("packet_hops"):
        hops.append(f"{s['packet_hops']:,} packet-hops")
    out.print(
        f"[bold]{escape(str(s['scenario']))}[/bold]  seed {s['seed']}  {s['sim_time_s']:g} s simulated "
        f"in {s['wall_s']:.2f} s{f' on {threads} threads' if threads > 1 else ''}  ({s['events']:,} events, "
        f"{', '.join(hops)})"
    )
    window = s.get("window_s")
    span = f", window {_span(*window)}" if window else ", window"
    whole = f", whole run {_span(0, s['sim_time_s'])}"
    delay_cols = ("delay ms", "p99 ms", "jitter ms")

    def delays(r: dict[str, Any]) -> tuple[str, str, str]:
        return _ms(r.get("delay_mean_ms")), _ms(r.get("delay_p99_ms")), _ms(r.get("jitter_ms"))

    if s["sources"] or not s.get("connections"):
        t = Table(title="sources" + span)
        for col in ("source", "ACR Mb/s", "rate Mb/s", "max-min Mb/s", "CLR", *delay_cols):
            t.add_column(col, justify="left" if col == "source" else "right")
        for r in s["sources"]:
            t.add_row(
                escape(r["name"]),
                f"{r['acr_mbps']:.3f}",
                f"{r['rate_mbps']:.3f}",
                f"{r['maxmin_mbps']:.3f}",
                f"{r.get('window_clr', r['clr']):.4g}",
                *delays(r),
            )
        out.print(t)

    def run_max(p: dict[str, Any]) -> Any:
        return port_field(p, "max_queue_run") if port_field(p, "max_queue_run") is not None else port_field(p, "max_queue")

    busy = [p for p in s["ports"] if run_max(p) > 1 or p["drops"] > 0]
    if busy:
        t = Table(title="ports with queueing or loss" + span)
        # FICCRD ports give their mean queue apart: data packets and RD packets.
        split = any("mean_rd_queue_packets" in p for p in busy)
        for col in ("port", "unit", "mean queue", *(("data", "RD") if split else ()), "max queue"):
            t.add_column(col, justify="left" if col in ("port", "unit") else "right")
        for p in busy:
            parts = tuple(f"{p[k]:.2f}" if k in p else "" for k in ("mean_data_queue_packets", "mean_rd_queue_packets"))
            t.add_row(escape(p["name"]), p.get("unit", "cells"), f"{port_field(p, 'mean_queue'):.2f}",
                      *(parts if split else ()), str(port_field(p, "max_queue")))
        out.print(t)
        t = Table(title="the same ports" + whole)
        for col in ("port", "unit", "max queue", "drops"):
            t.add_column(col, justify="left" if col in ("port", "unit") else "right")
        for p in busy:
            t.add_row(escape(p["name"]), p.get("unit", "cells"), str(run_max(p)), f"{p['drops']:,}")
        out.print(t)
    # Network nodes own output ports (switches, routers, gateways, LANs); hosts do not.
    nodes = {p["name"].split("->")[0] for p in s["ports"]}
    trunks = [l for l in s["links"] if "from" not in l or (l["from"] in nodes and l["to"] in nodes)]
    if trunks:
        t = Table(title=("links between network nodes" if all("from" in l for l in trunks) else "links") + span)
        t.add_column("link")
        t.add_column("Mb/s", justify="right")
        t.add_column("utilisation", justify="right")
        for l in trunks:
            rate = l.get("rate_mbps")
            t.add_row(escape(l["name"]), "" if rate is None else f"{rate:g}", f"{l['utilization']:.3f}")
        out.print(t)
    conns = s.get("connections") or []
    if conns:
        t = Table(title="TCP connections" + span)
        for col in ("connection", "variant", "goodput Mb/s", "max Mb/s", *delay_cols):
            t.add_column(col, justify="left" if col in ("connection", "variant") else "right")
        for c in conns:
            t.add_row(escape(c["name"]), c.get("variant", ""), f"{c['goodput_mbps']:.3f}",
                      _num(c.get("max_goodput_mbps"), ".3f"), *delays(c))
        out.print(t)
        from .result import counts_packets

        lost = "dropped" if counts_packets(s) else "cells dropped"
        t = Table(title="TCP connections" + whole)
        for col in ("connection", "retransmits", "timeouts", lost):
            t.add_column(col, justify="left" if col == "connection" else "right")
        for c in conns:
            t.add_row(escape(c["name"]), f"{c['retransmits']:,}", f"{c['timeouts']:,}", f"{c['drops']:,}")
        out.print(t)
        out.print(
            f"window: total goodput {_num(s.get('goodput_mbps_total'), '.3f')} Mb/s, efficiency "
            f"{_num(s.get('efficiency'), '.4f')} (goodput / what the max-min shares carry), Jain fairness over "
            f"connections {_num(s.get('connections_fairness_index'), '.4f')}"
        )
    if s["sources"] or not conns:
        out.print(f"window: Jain fairness index (rate / max-min) {_num(s.get('fairness_index'), '.4f')}")


_SCHEME_HELP = f"Swap the ABR switch algorithm at every switch: {listed(SCHEMES)}."
_TCP_HELP = f"Swap the TCP variant of every connection: {listed(TCP_VARIANTS)}."


@app.command()
def run(
    scenario: str = typer.Argument(..., help="Preset name (see `ccsim presets`), scenario file (.toml/.json), or - to read standard input."),
    set_: list[str] = typer.Option([], "--set", help="Override a field: PATH=VALUE (repeatable; VALUE is JSON, a TOML inline table or array, or text)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed of every random stream."),
    scheme: Optional[str] = typer.Option(None, "--scheme", metavar="SCHEME", help=_SCHEME_HELP),
    tcp: Optional[str] = typer.Option(None, "--tcp", metavar="VARIANT", help=_TCP_HELP),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="Write Parquet tables, plots and summary.json here."),
    plot_format: list[str] = typer.Option(["png"], "--plot-format", metavar="FORMAT", help="Figure format with --out: png, pdf or svg (repeatable)."),
    plot_dpi: int = typer.Option(300, "--plot-dpi", metavar="DPI", help="Resolution of PNG figures with --out, dots per inch (50 to 1200)."),
    no_plots: bool = typer.Option(False, "--no-plots", help="With --out, write the tables and summary only."),
    as_json: bool = typer.Option(False, "--json", help="Print exactly one JSON object (the summary) on stdout."),
    trace_path: Optional[Path] = typer.Option(None, "--trace", help="Record the per-cell/packet event trace and write it "
                                              "here as Parquet (`ccsim docs trace`)."),
    trace_flow: list[str] = typer.Option([], "--trace-flow", help="With --trace: trace this flow only (repeatable; "
                                         "measure.trace.flows)."),
    trace_from: Optional[str] = typer.Option(None, "--trace-from", help="With --trace: events from this time (\"10ms\")."),
    trace_to: Optional[str] = typer.Option(None, "--trace-to", help="With --trace: events before this time."),
    parallel_report: bool = typer.Option(False, "--parallel-report", help="Count each logical process's work per "
                                         "window and print the speed-up 2 to 64 threads would give (with --json: "
                                         "the summary's parallel_report)."),
    threads: Optional[str] = typer.Option(None, "--threads", metavar="N", help="Threads to run on: auto (the default: "
                                          "the cores available, as many as the world can use) or a count; the results "
                                          "are the same for every count (run.threads)."),
) -> None:
    """Run a scenario and print its summary."""
    from .api import STREAM_ABOVE_MB
    from .api import run as run_scenario
    from .result import check_out_dir

    trace: dict[str, Any] | None = None
    if trace_path is not None:
        trace = {}
        if trace_flow:
            trace["flows"] = list(trace_flow)
        if trace_from is not None:
            trace["from"] = trace_from
        if trace_to is not None:
            trace["to"] = trace_to
        check_trace_path(trace_path)
    elif trace_flow or trace_from is not None or trace_to is not None:
        raise ScenarioError("--trace-flow, --trace-from and --trace-to choose what --trace PATH records; add --trace PATH")

    preload = None
    parts = None
    if out_dir is not None:
        from ._outdir import staging_path

        # Before the run: a bad --out fails at once. With --out, series that would take much
        # memory go to Parquet parts beside it as the run goes.
        parts = staging_path(check_out_dir(out_dir), "series")
        if not no_plots:
            from ._figures import check_formats, preload_plots

            check_formats(plot_format, plot_dpi)
            preload = preload_plots()
    progress = ProgressBar(enabled=False if as_json else None)  # None: on a terminal only
    try:
        try:
            result = run_scenario(scenario, seed=seed, scheme=scheme, tcp=tcp, set=parse_sets(set_), progress=progress,
                                  trace=trace, stream_series=parts, _stream_above_mb=STREAM_ABOVE_MB,
                                  series=out_dir is not None, parallel_report=parallel_report,
                                  threads=thread_count(threads))
        finally:
            progress.close()
        if out_dir is not None:
            result.write(out_dir, plots=not no_plots, formats=plot_format, dpi=plot_dpi)
    finally:
        if parts is not None:
            shutil.rmtree(parts, ignore_errors=True)
        if preload is not None:
            # A run that failed does not exit under an import still writing (matplotlib's first
            # import builds its font cache and says so on stderr).
            preload.join()
    if trace_path is not None:
        result.write_trace(trace_path)
    if as_json:
        sys.stdout.write(json.dumps(result.summary()) + "\n")
        return
    _print_summary(result.summary(), result.threads)
    if parallel_report:
        from ._parallel_report import print_parallel_report

        print_parallel_report(out, result.summary()["parallel_report"])
    if out_dir is not None:
        figures = "" if no_plots else f"{', '.join(f.upper() for f in plot_format)} plots, "
        out.print(f"wrote {out_dir}/ (Parquet tables, {figures}summary.json, rates.md)")
    if trace_path is not None:
        t = result.summary().get("trace", {})
        out.print(f"wrote {trace_path} ({t.get('events', 0):,} events, {t.get('bytes', 0) / 1e6:.1f} MB in memory)")


class _TraceIsADirectory(IsADirectoryError, UsageError):
    pass


class _NoTraceDirectory(FileNotFoundError, UsageError):
    pass


def check_trace_path(path: Path) -> None:
    """Before a run: `--trace PATH` names a file (not a directory) whose directory exists and
    can be written."""
    import errno
    import tempfile

    if path.is_dir():
        raise _TraceIsADirectory(errno.EISDIR, "--trace names a directory; give a file name (trace.parquet)", str(path))
    parent = path.absolute().parent
    if not parent.is_dir():
        raise _NoTraceDirectory(errno.ENOENT, "--trace: no such directory", str(parent))
    with tempfile.TemporaryFile(dir=parent):
        pass


@app.command()
def validate(
    file: str = typer.Argument(..., help="Scenario file, preset name, or - to read standard input."),
    set_: list[str] = typer.Option([], "--set", help="Override a field: PATH=VALUE (repeatable; VALUE is JSON, a TOML inline table or array, or text)."),
    scheme: Optional[str] = typer.Option(None, "--scheme", metavar="SCHEME", help=_SCHEME_HELP),
) -> None:
    """Check a scenario without running it."""
    from .cli_show import validate_line

    sys.stdout.write(validate_line(file, scheme=scheme, set=parse_sets(set_)) + "\n")


@app.command()
def reproduce(
    paper: str = typer.Argument(..., metavar="PAPER", help="Paper to reproduce: abr-benchmarks, gfr, ficcrd, hgrcp, ut-ct, or all."),
    out_dir: Optional[Path] = typer.Option(
        None, "--out", help="Output directory (default out/reproduce/PAPER; with `all`, one subdirectory per paper)."
    ),
    quick: bool = typer.Option(False, "--quick", help="Shortened runs (for tests); the numbers are not the reproduction's."),
    workers: Optional[int] = typer.Option(None, "--workers", min=1, help="Worker processes (default: up to 2 cores)."),
    as_json: bool = typer.Option(False, "--json", help="Print exactly one JSON object on stdout."),
) -> None:
    """Run a paper's experiments; write compared.json, figures and an HTML report (with `all`, every
    paper and a scorecard over them: DIR/index.html)."""
    from . import reproductions

    if paper == "all":
        root = out_dir or Path(reproductions.DEFAULT_ROOT)
        summaries, page = reproductions.reproduce_all(root, quick=quick, workers=workers, progress=not as_json)
    else:
        module = reproductions.get(paper)
        target = out_dir or Path(reproductions.default_out(paper))
        summaries, page = {paper: reproductions.reproduce_into(module, target, quick=quick, workers=workers,
                                                               progress=not as_json)}, None
    if as_json:
        doc = summaries if paper == "all" else summaries[paper]
        sys.stdout.write(json.dumps(doc, allow_nan=False) + "\n")
        return
    for s in summaries.values():
        out.print(f"[bold]{escape(s['paper'])}[/bold] ({s['mode']}, {s['runs']} runs, {s['wall_s']:.0f} s): "
                  f"{escape(s['headline'])}")
        out.print(f"  wrote {escape(s['out'])}/ (compared.json, figures/, index.html)")
    if page is not None:
        out.print(f"scorecard: {escape(str(page))}")


@app.command()
def schema() -> None:
    """Print the JSON Schema of the scenario format."""
    from . import _core

    sys.stdout.write(_core.schema() + "\n")


@app.command()
def sweep(
    plan: Path = typer.Argument(..., help="Sweep plan (.toml); see `ccsim docs sweeps`."),
    executor: str = typer.Option("local", "--executor", metavar="EXECUTOR", help="local (process pool) or dask."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address (tcp://HOST:PORT); "
                                            "without it --executor dask starts a LocalCluster."),
    workers: Optional[int] = typer.Option(None, "--workers", help="Worker processes (default: every core)."),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="Results directory (default out/sweeps/<plan name>)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object: points, replications, completed, skipped, out."),
) -> None:
    """Run a sweep plan; a re-run does only the missing runs."""
    from .sweeps import SweepInterrupted, parse_plan, run_sweep

    if executor not in ("local", "dask"):
        raise ScenarioError(f"--executor: expected local or dask, got {executor!r}")
    if scheduler and executor != "dask":
        raise ScenarioError("--scheduler needs --executor dask")
    if workers is not None and workers < 1:
        raise ScenarioError(f"--workers: must be >= 1, got {workers}")
    p = parse_plan(plan)
    target = out_dir or Path("out") / "sweeps" / p.name.replace("/", "-")
    try:
        outcome = run_sweep(p, executor=executor, workers=workers, scheduler=scheduler, out=target,
                            progress=not as_json and sys.stderr.isatty())
    except SweepInterrupted as e:
        if e.signal == "SIGINT":
            raise  # main() prints "error: interrupted" and exits 130
        fail(str(e))  # "interrupted (SIGTERM): N of M runs stored; re-run to resume"
        raise typer.Exit(e.exit_code) from None
    if as_json:
        sys.stdout.write(json.dumps(outcome.as_json()) + "\n")
        return
    out.print(
        f"{outcome.points} points × {outcome.replications} replications: {outcome.completed} run, "
        f"{outcome.skipped} already done; results in {escape(outcome.out)}/ (`ccsim report {escape(outcome.out)}`)"
    )


@app.command()
def report(
    sweep_dir: Path = typer.Argument(..., help="A directory written by `ccsim sweep`."),
    out_file: Optional[Path] = typer.Option(None, "--out", help="HTML file (default DIR/report.html)."),
) -> None:
    """Write an HTML report of a sweep: every metric against every axis, with interval bars."""
    from .sweeps.report import write_report

    path = write_report(sweep_dir, out_file)
    out.print(f"wrote {escape(str(path))} (static PNG/SVG copies in {escape(str(path.parent / 'report'))}/)")


@analyze_app.command("hgrcp")
def analyze_hgrcp(
    T: str = typer.Option(..., "--T", help="Sampling interval, a duration (\"10ms\")."),
    K: Optional[float] = typer.Option(None, "--K", help="Gain, 1/s (default 1/T, the seed's design rule)."),
    Q: float = typer.Option(100.0, "--Q", help="Reference queue, cells."),
    pcr: float = typer.Option(23_585.0, "--pcr", help="The ABR connection's PCR, cells/s."),
    lan: str = typer.Option("10Mbps", "--lan", help="LAN speed."),
    rn_bytes: int = typer.Option(28, "--rn-bytes", help="Size of an ICMP rate notification (IP packet), bytes."),
    as_json: bool = typer.Option(False, "--json", help="Print exactly one JSON object."),
) -> None:
    """HG-RCP (seed 000): zero-loss buffer bound (Eq. 14), phase margin (Eq. 8), RN overhead (Eq. 15)."""
    import math

    from .analysis.hgrcp import analyze
    from .reproductions._common import duration_ms, rate_mbps

    for flag, value in (("--K", K), ("--Q", Q), ("--pcr", pcr)):
        if value is not None and not math.isfinite(value):
            raise ScenarioError(f"{flag}: must be a finite number, got {value}")
    try:
        t_s = duration_ms(T) / 1e3
    except (ValueError, KeyError):
        raise ScenarioError(f"--T: {T!r} is not a duration (a number with s, ms, us or ns)") from None
    try:
        lan_bps = rate_mbps(lan) * 1e6
    except (ValueError, KeyError):
        raise ScenarioError(f"--lan: {lan!r} is not a rate (a number with bps, kbps, Mbps or Gbps)") from None
    try:
        a = analyze(t_s, K, Q, pcr, lan_bps, rn_bytes).as_json()
    except ValueError as e:
        raise ScenarioError(f"--{e}") from None
    if not a["stable"]:
        sys.stderr.write(f"warning: K*T = {a['K'] * a['T_s']:.3g} >= 2: the loop is unstable (no phase margin)\n")
    if as_json:
        sys.stdout.write(json.dumps(a, allow_nan=False) + "\n")
        return
    pm = "unstable" if a["phase_margin_deg"] is None else f"{a['phase_margin_deg']:.2f} deg"
    out.print(f"T = {a['T_s'] * 1e3:g} ms, K = {a['K']:g}/s, Q = {a['Q_cells']:g} cells, PCR = {a['pcr_cells_per_s']:g} cells/s")
    out.print(f"zero-loss buffer (Eq. 14): {a['q_max_cells']:.2f} cells")
    out.print(f"phase margin (Eq. 8): {pm}")
    out.print(f"RN overhead (Eq. 15): {100 * a['overhead_fraction']:.3f} % of the LAN; "
              f"{100 * a['overhead_fraction_framed']:.3f} % with Ethernet framing")


# `show` and `docs` live in their own modules (cli_show.py, docs_cmd.py); registered here.
from .cli_show import show as _show  # noqa: E402
from .docs_cmd import docs as _docs  # noqa: E402

app.command("show")(_show)
app.command("docs")(_docs)


def main(argv: list[str] | None = None) -> int:
    """Entry point: one clear line on stderr and a non-zero exit for every ccsim error
    (2 for an invalid scenario or command line, 130 for Ctrl-C, 143 for SIGTERM, 1 for anything else)."""
    try:
        rv = app(args=argv, standalone_mode=False)
        # typer turns Ctrl-C into Exit(130) and, outside standalone mode, returns the code
        if rv == 130:
            from ._signals import raised

            return report_error(raised() or KeyboardInterrupt())
        if isinstance(rv, int) and not isinstance(rv, bool) and rv != 0:
            return rv
    except (CcsimError, KeyboardInterrupt, OSError) as e:
        return report_error(e)
    except typer.Exit as e:
        return e.exit_code
    except typer.Abort:
        fail("aborted")
        return 1
    except Exception as e:
        # Usage errors (click's ClickException, vendored by newer typer): one line, like every
        # other error, without a traceback.
        if hasattr(e, "format_message") and isinstance(getattr(e, "exit_code", None), int):
            ctx = getattr(e, "ctx", None)
            where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
            fail(" ".join(e.format_message().split()) + where)
            return e.exit_code
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
