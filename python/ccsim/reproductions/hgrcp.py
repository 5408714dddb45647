"""Seed 000 (HG-RCP): explicit-rate control from an intranet gateway to its hosts over ABR.

Runs, through the sweep machinery with independent replications and (full mode) the seed's
stopping rule on the aggregate goodput: the number-of-connections series for HG-RCP and
conventional TCP/IP (Figs. 7-9), Table 4's periods T against their zero-loss bounds (Eq. 14), the
Q, W and intranet-delay sensitivities at five connections (Tables 5-7) and the limited-buffer
series at eight connections (Fig. 10, Table 8); and one run per scheme for Fig. 6 (the gateway
queue against time). Sets every number the seed prints beside ccsim's mean with its spread; the
seed's numbers live in ``data/hgrcp.toml``.
"""

from __future__ import annotations

import json
import statistics as stat
import time
from pathlib import Path
from typing import Any

from . import _common as C

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

PAPER = "hgrcp"
TITLE = "Seed 000: HG-RCP, explicit-rate control from an intranet gateway"
DATA_FILE = Path(__file__).parent / "data" / "hgrcp.toml"
METRICS = ["goodput_mbps_total", "fairness_index", "gateways[GWA].max_queue_cells", "gateways[GWA].mean_queue_cells",
           "gateways[GWA].mean_queue_delay_ms", "gateways[GWA].drops", "gateways[GWA].rn_sent"]
PCR, Q, LAN_BPS = 23_585.0, 100.0, 10e6


def load_data(path: Path = DATA_FILE) -> dict[str, Any]:
    with open(path, "rb") as f:
        return tomllib.load(f)


def _plan(name: str, preset: str, reps: int, run: dict[str, str], stop: dict[str, Any] | None,
          axis: dict[str, Any] | None = None) -> dict[str, Any]:
    plan = {"name": f"hgrcp-{name}", "scenario": preset, "replications": reps, "seed": 1, "metrics": METRICS,
            "set": dict(run)}
    if stop:
        plan["stop"] = stop
    if axis:
        plan["axis"] = [axis]
    return plan


def _stop_rule(data: dict[str, Any], quick: bool) -> dict[str, Any] | None:
    """The seed's stopping rule on the aggregate goodput (full runs only)."""
    if quick:
        return None
    return {"metric": data["stop_metric"], "precision": data["precision"], "confidence": data["confidence"],
            "start": data["duration"], "max_duration": data["max_duration"], "warmup": data["measure_from"]}


def _points(frame, axis_path: str | None) -> list[dict[str, Any]]:
    """Per point (in axis order): the axis value and every metric's runs."""
    out: dict[Any, dict[str, Any]] = {}
    for row in frame.sort("point").iter_rows(named=True):
        key = row.get(f"axis:{axis_path}") if axis_path else 0
        p = out.setdefault(row["point"], {"value": key, "runs": []})
        p["runs"].append(row)
    return list(out.values())


def _mean(runs: list[dict[str, Any]], metric: str) -> tuple[float, float, float]:
    xs = [r[metric] for r in runs]
    return stat.mean(xs), min(xs), max(xs)


def run_all(data: dict[str, Any], quick: bool, workers: int, progress: bool) -> dict[str, Any]:
    from ..sweeps import sweep

    reps = data["quick_replications"] if quick else data["replications"]
    run = {"run.duration": data["quick_duration" if quick else "duration"],
           "run.measure_from": data["quick_measure_from" if quick else "measure_from"]}
    stop = _stop_rule(data, quick)
    go = lambda plan: sweep(plan, workers=workers, progress=progress)  # noqa: E731
    res: dict[str, Any] = {"reps": reps}
    for kind in ("hgrcp", "conventional"):
        res[f"n-{kind}"] = [_points(go(_plan(f"{kind}-{n}", f"hgrcp/{kind}-{n}", reps, run, stop)), None)[0]
                            for n in data["figures"]["n"]]
        res[f"buffer-{kind}"] = [_points(go(_plan(f"{kind}-b{b}", f"hgrcp/{kind}-8-buffer-{b}", reps, run, stop)), None)[0]
                                 for b in data["figures"]["buffers"]]
    for t in ("table5", "table6", "table7"):
        spec = data[t]
        plan = _plan(t, "hgrcp/hgrcp-5", reps, run, stop, {"path": spec["path"], "values": spec["values"]})
        res[t] = _points(go(plan), spec["path"])
    res["fig6"] = _fig6_runs(data)
    mc = data["mcr_check"]
    plan = _plan("mcr", f"hgrcp/hgrcp-{mc['connections']}", reps, run, stop)
    plan["axis"] = [{"path": "defaults.abr.mcr", "values": [f"{m}cells/s" for m in mc["mcr"]], "zip": "mcr"},
                    {"path": "background[0].peak", "values": [f"{PCR - m:g}cells/s" for m in mc["mcr"]], "zip": "mcr"}]
    res["mcr"] = _points(go(plan), "defaults.abr.mcr")
    t4 = data["table4"]
    plan = _plan("table4", f"hgrcp/hgrcp-{t4['connections']}", reps, run, stop)
    plan["axis"] = [{"path": "gateway[0].control.T", "values": [f"{t}ms" for t in t4["T_ms"]], "zip": "T"},
                    {"path": "gateway[0].control.K", "values": [1e3 / t for t in t4["T_ms"]], "zip": "T"}]
    res["table4"] = _points(go(plan), "gateway[0].control.T")
    return res


def _fig6_runs(data: dict[str, Any]) -> dict[str, Any]:
    """Fig. 6: the gateway queue against time over the first seconds, five connections, both schemes
    (one run each, the queue sampled every millisecond)."""
    from ..api import run

    spec = data["fig6"]
    out = {}
    for kind in ("conventional", "hgrcp"):
        r = run(f"hgrcp/{kind}-{spec['connections']}", set={"run.duration": spec["duration"], "run.measure_from": "0s",
                                                           "measure.interval": spec["interval"]})
        q = r.gateway_queue.filter(r.gateway_queue["gateway"] == "GWA")
        out[kind] = {"time_s": q["time_s"].to_list(), "queue_cells": q["queue_cells"].to_list(),
                     "max_queue_cells": r.summary()["gateways"][0]["max_queue_cells"]}
    return out


def _stopping(res: dict[str, Any]) -> tuple[int, int, float]:
    """Runs that applied the stopping rule, how many reached the precision, the largest achieved."""
    runs = [r for v in res.values() if isinstance(v, list) for p in v for r in p["runs"] if "stop:reached" in r]
    reached = sum(bool(r["stop:reached"]) for r in runs)
    worst = max((r["stop:achieved_precision"] for r in runs), default=float("nan"))
    return len(runs), reached, worst


def compare(res: dict[str, Any], data: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per number the seed prints: the paper's, ccsim's mean over the replications with its
    range, and (Table 4) theory's."""
    from ..analysis.hgrcp import q_max_cells

    rows: list[dict[str, Any]] = []

    def row(table: str, setting: str, quantity: str, paper: Any, ccsim: tuple[float, float, float] | None,
            theory: float | None = None, note: str | None = None) -> None:
        mean, lo, hi = ccsim if ccsim else (None, None, None)
        rows.append({"table": table, "setting": setting, "quantity": quantity, "paper": paper,
                     "theory": C.clean(theory) if theory is not None else None, "ccsim": C.clean(mean),
                     "min": C.clean(lo), "max": C.clean(hi), "ok": None, "note": note})

    for b in data["bound"]:
        t = b["T_ms"] / 1e3
        theory = q_max_cells(t, 1 / t, Q, PCR, LAN_BPS)
        rows.append({"table": "Table 4", "setting": f"T = {b['T_ms']} ms, K = 1/T", "quantity": "zero-loss bound (Eq. 14), cells",
                     "paper": b["paper"], "theory": C.clean(theory), "ccsim": None, "min": None, "max": None,
                     "ok": int(theory) == b["paper"], "note": None})
    printed = {b["T_ms"]: b["paper_simulated"] for b in data["bound"]}
    n = data["table4"]["connections"]
    for t_ms, p in zip(data["table4"]["T_ms"], res["table4"]):
        t = t_ms / 1e3
        row("Table 4", f"T = {t_ms} ms, K = 1/T, {n} connections", "max_queue", printed.get(t_ms),
            _mean(p["runs"], "gateways[GWA].max_queue_cells"), theory=q_max_cells(t, 1 / t, Q, PCR, LAN_BPS),
            note=f"{n} connections [RECON]; theory: the Eq. 14 bound" + ("" if t_ms in printed else "; the seed prints no simulation"))
    for t, label in (("table5", "Q"), ("table6", "W"), ("table7", "intranet delay")):
        spec = data[t]
        for k, p in enumerate(res[t]):
            setting = f"{label} = {spec['values'][k]}"
            for q, key in (("max_queue", "gateways[GWA].max_queue_cells"), ("mean_queue", "gateways[GWA].mean_queue_cells"),
                           ("goodput_mbps", "goodput_mbps_total")):
                if q in spec:
                    row(t.replace("table", "Table "), setting, q, spec[q][k], _mean(p["runs"], key), note=spec.get("note"))
    mc = data["mcr_check"]
    for m, p in zip(mc["mcr"], res["mcr"]):
        for q, key in (("max_queue", "gateways[GWA].max_queue_cells"), ("goodput_mbps", "goodput_mbps_total")):
            row("Table 2 (MCR)", f"MCR = {m} cells/s, {mc['connections']} connections", q, None, _mean(p["runs"], key),
                note="the seed's Table 2 says 350, its text 235 (1 % of PCR); the seed prints no run with either alone")
    spec = data["table8"]
    for kind in ("conventional", "hgrcp"):
        for k, b in enumerate(spec["buffers"]):
            p = res[f"buffer-{kind}"][data["figures"]["buffers"].index(b)]
            row("Table 8", f"{kind}, buffer {b} cells", "Jain index", spec[kind][k], _mean(p["runs"], "fairness_index"))
    return rows


def statements(res: dict[str, Any], data: dict[str, Any]) -> list[dict[str, Any]]:
    """The seed's figures as statements, answered for ccsim."""
    from ..analysis.hgrcp import q_max_cells

    bound = q_max_cells(0.010, 100.0, Q, PCR, LAN_BPS)
    ns = data["figures"]["n"]
    # every HG-RCP run against the bound of its own T and Q
    runs = [(r, 0.010, Q) for key in ("n-hgrcp", "buffer-hgrcp", "table6", "table7") for p in res[key] for r in p["runs"]]
    runs += [(r, 0.010, float(q)) for q, p in zip(data["table5"]["values"], res["table5"]) for r in p["runs"]]
    runs += [(r, t_ms / 1e3, Q) for t_ms, p in zip(data["table4"]["T_ms"], res["table4"]) for r in p["runs"]]
    margins = [(r["gateways[GWA].max_queue_cells"] / q_max_cells(t, 1 / t, q, PCR, LAN_BPS), t, q) for r, t, q in runs]
    closest = max(margins)
    over = [m for m in margins if m[0] >= 1]
    h = [_mean(p["runs"], "gateways[GWA].max_queue_cells")[2] for p in res["n-hgrcp"]]
    c = [_mean(p["runs"], "gateways[GWA].max_queue_cells")[2] for p in res["n-conventional"]]
    gh = [_mean(p["runs"], "goodput_mbps_total")[0] for p in res["buffer-hgrcp"]]
    gc = [_mean(p["runs"], "goodput_mbps_total")[0] for p in res["buffer-conventional"]]
    out = [
        {"statement": "Fig. 7: with HG-RCP the gateway's maximum queue stays below the Eq. 14 bound (596 cells at T = 10 ms)",
         "ccsim": f"largest maximum over N = {ns[0]}..{ns[-1]}: {max(h):.0f} cells", "ok": max(h) < bound},
        {"statement": "Table 4: in every simulated run the maximum queue stays below the Eq. 14 bound of its T and Q",
         "ccsim": (f"{len(runs)} HG-RCP runs: at most {closest[0]:.0%} of the bound (T = {closest[1] * 1e3:g} ms, Q = {closest[2]:g})"
                   + (f"; {len(over)} over it" if over else "")),
         "ok": not over},
        {"statement": "Fig. 7: the conventional maximum queue grows with the number of connections",
         "ccsim": f"{c[0]:.0f} cells at N = {ns[0]}, {c[-1]:.0f} at N = {ns[-1]}", "ok": c[-1] > c[0]},
        {"statement": "Figs. 6-7: HG-RCP's maximum queue is far below the conventional one",
         "ccsim": f"at N = 5: {h[ns.index(5)]:.0f} against {c[ns.index(5)]:.0f} cells", "ok": h[ns.index(5)] * 3 < c[ns.index(5)]},
        {"statement": "Fig. 10: HG-RCP reaches a higher aggregate goodput at every buffer size",
         "ccsim": ", ".join(f"{b}: {x:.2f}/{y:.2f}" for b, x, y in zip(data["figures"]["buffers"], gh, gc)) + " Mb/s (HG-RCP/conventional)",
         "ok": all(x > y for x, y in zip(gh, gc))},
    ]
    return out


def _figures(res: dict[str, Any], data: dict[str, Any], out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..analysis.hgrcp import q_max_cells

    files = []
    fig, ax = plt.subplots(figsize=(6, 4))
    for kind, style in (("conventional", "-"), ("hgrcp", "-")):
        s = res["fig6"][kind]
        ax.plot(s["time_s"], s["queue_cells"], style, linewidth=0.8,
                label=("HG-RCP" if kind == "hgrcp" else "conventional TCP/IP") + f" (max {s['max_queue_cells']:.0f})")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("gateway queue (cells)")
    ax.set_title(f"Fig. 6: gateway queue, {data['fig6']['connections']} connections", fontsize=10)
    ax.legend(fontsize="small", loc="upper left")
    files.append(C.save_figure(fig, out / "fig6-queue.png"))
    ns = data["figures"]["n"]
    for key, ylabel, fname, title in [("gateways[GWA].max_queue_cells", "maximum queue (cells)", "fig7-max-queue.png", "Fig. 7"),
                                      ("gateways[GWA].mean_queue_cells", "mean queue (cells)", "fig8-mean-queue.png", "Fig. 8"),
                                      ("gateways[GWA].mean_queue_delay_ms", "mean queueing delay (ms)", "fig9-delay.png", "Fig. 9")]:
        fig, ax = plt.subplots(figsize=(6, 4))
        for kind, style in (("conventional", "s--"), ("hgrcp", "o-")):
            m = [_mean(p["runs"], key) for p in res[f"n-{kind}"]]
            ax.errorbar(ns, [x[0] for x in m], yerr=[[x[0] - x[1] for x in m], [x[2] - x[0] for x in m]], fmt=style,
                        capsize=3, label="HG-RCP" if kind == "hgrcp" else "conventional TCP/IP")
        if fname.startswith("fig7"):
            ax.axhline(q_max_cells(0.010, 100.0, Q, PCR, LAN_BPS), color="black", linestyle=":", label="Eq. 14 bound (T = 10 ms)")
            ax.set_yscale("log")
        ax.set_xlabel("connections")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{title}: {ylabel} against connections", fontsize=10)
        ax.legend(fontsize="small", loc="upper left")
        files.append(C.save_figure(fig, out / fname))
    bs = data["figures"]["buffers"]
    fig, ax = plt.subplots(figsize=(6, 4))
    for kind, style in (("conventional", "s--"), ("hgrcp", "o-")):
        m = [_mean(p["runs"], "goodput_mbps_total") for p in res[f"buffer-{kind}"]]
        ax.errorbar(bs, [x[0] for x in m], yerr=[[x[0] - x[1] for x in m], [x[2] - x[0] for x in m]], fmt=style, capsize=3,
                    label="HG-RCP" if kind == "hgrcp" else "conventional TCP/IP")
    ax.set_ylim(0, 7)
    ax.set_xlabel("gateway buffer (cells)")
    ax.set_ylabel("aggregate goodput (Mb/s)")
    ax.set_title("Fig. 10: goodput against buffer, 8 connections", fontsize=10)
    ax.legend(fontsize="small", loc="lower right")
    files.append(C.save_figure(fig, out / "fig10-goodput.png"))
    return files


def reproduce(out: str | Path | None = None, quick: bool = False, workers: int | None = None,
              progress: bool = True) -> dict[str, Any]:
    started = time.perf_counter()
    data = load_data()
    out, workers = C.prepare(out, PAPER, workers)
    res = run_all(data, quick, workers, progress)
    rows = compare(res, data)
    claims = statements(res, data)
    figures = _figures(res, data, out / "figures")
    stopped, reached, worst = _stopping(res)
    (out / "compared.json").write_text(json.dumps({"numbers": rows, "statements": claims,
                                                   "stopping_rule": {"runs": stopped, "reached": reached, "worst_precision": worst},
                                                   "fig6": res["fig6"]}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    n_runs = res["reps"] * (2 * (len(data["figures"]["n"]) + len(data["figures"]["buffers"])) + len(data["table4"]["T_ms"])
                            + len(data["mcr_check"]["mcr"])
                            + sum(len(data[t]["values"]) for t in ("table5", "table6", "table7"))) + 2
    mode = "quick" if quick else "full"
    stopped, reached, worst = _stopping(res)
    lengths = (f"Run lengths by the seed's stopping rule ({data['precision']:.0%} relative precision at "
               f"{data['confidence']:.0%} confidence on the aggregate goodput, up to {data['max_duration']}): "
               f"{reached} of {stopped} runs reached it, the others stopped at the limit with at worst {worst:.1%}."
               if stopped else f"Quick mode: fixed {data['quick_duration']} runs, no stopping rule.")
    intro = (f"{mode} run: {n_runs} runs ({res['reps']} independent seeds per setting, through the sweep machinery) in "
             f"{time.perf_counter() - started:.1f} s. ccsim's value is the mean over the seeds with the smallest and largest. "
             f"{lengths} docs/reproductions/hgrcp.md explains the differences.")
    cols = [("table", "table"), ("setting", "setting"), ("quantity", "quantity"), ("paper", "paper"), ("theory", "theory"),
            ("ccsim", "ccsim (mean)"), ("min", "min"), ("max", "max"), ("note", "note")]
    page = C.report_page(TITLE, intro, [("The seed's figures", C.html_table(claims, [("statement", "the seed says"), ("ccsim", "ccsim"), ("ok", "holds")])),
                                        ("The seed's tables", C.html_table(rows, cols))], figures)
    (out / "index.html").write_text(page, encoding="utf-8")
    paper_rows = [r for r in rows if r["ok"] is not None] + claims
    return C.summary(PAPER, out, mode, rows + claims, n_runs, started, paper_rows,
                     "of Table 4's bounds and the seed's figure statements holding (means over the seeds)")


__all__ = ["reproduce", "load_data", "compare", "statements", "PAPER", "TITLE"]
