"""Seed 000 (HG-RCP): explicit-rate control from an intranet gateway to its hosts over ABR.

Runs, through the sweep machinery with independent replications: the number-of-connections series
for HG-RCP and conventional TCP/IP (Figs. 7-9), the Q, W and intranet-delay sensitivities at five
connections (Tables 5-7), and the limited-buffer series at eight connections (Fig. 10, Table 8);
sets Table 4's zero-loss bound (Eq. 14) beside the seed's, and every number of Tables 5-8 beside
ccsim's mean with its spread. The seed's numbers live in ``data/hgrcp.toml``. Not yet: Fig. 6 (the
gateway queue against time needs a gateway queue series) and the seed's stopping rule (fixed run
lengths here).
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


def _plan(name: str, preset: str, reps: int, run: dict[str, str], axis: dict[str, Any] | None = None) -> dict[str, Any]:
    plan = {"name": f"hgrcp-{name}", "scenario": preset, "replications": reps, "seed": 1, "metrics": METRICS,
            "set": dict(run)}
    if axis:
        plan["axis"] = [axis]
    return plan


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
    go = lambda plan: sweep(plan, workers=workers, progress=progress)  # noqa: E731
    res: dict[str, Any] = {"reps": reps}
    for kind in ("hgrcp", "conventional"):
        res[f"n-{kind}"] = [_points(go(_plan(f"{kind}-{n}", f"hgrcp/{kind}-{n}", reps, run)), None)[0]
                            for n in data["figures"]["n"]]
        res[f"buffer-{kind}"] = [_points(go(_plan(f"{kind}-b{b}", f"hgrcp/{kind}-8-buffer-{b}", reps, run)), None)[0]
                                 for b in data["figures"]["buffers"]]
    for t in ("table5", "table6", "table7"):
        spec = data[t]
        plan = _plan(t, "hgrcp/hgrcp-5", reps, run, {"path": spec["path"], "values": spec["values"]})
        res[t] = _points(go(plan), spec["path"])
    return res


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
                     "ok": int(theory) == b["paper"], "note": f"the seed's simulated maximum: {b['paper_simulated']}"})
    for t, label in (("table5", "Q"), ("table6", "W"), ("table7", "intranet delay")):
        spec = data[t]
        for k, p in enumerate(res[t]):
            setting = f"{label} = {spec['values'][k]}"
            for q, key in (("max_queue", "gateways[GWA].max_queue_cells"), ("mean_queue", "gateways[GWA].mean_queue_cells"),
                           ("goodput_mbps", "goodput_mbps_total")):
                if q in spec:
                    row(t.replace("table", "Table "), setting, q, spec[q][k], _mean(p["runs"], key), note=spec.get("note"))
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
    h = [_mean(p["runs"], "gateways[GWA].max_queue_cells")[2] for p in res["n-hgrcp"]]
    c = [_mean(p["runs"], "gateways[GWA].max_queue_cells")[2] for p in res["n-conventional"]]
    gh = [_mean(p["runs"], "goodput_mbps_total")[0] for p in res["buffer-hgrcp"]]
    gc = [_mean(p["runs"], "goodput_mbps_total")[0] for p in res["buffer-conventional"]]
    out = [
        {"statement": "Fig. 7: with HG-RCP the gateway's maximum queue stays below the Eq. 14 bound (596 cells at T = 10 ms)",
         "ccsim": f"largest maximum over N = {ns[0]}..{ns[-1]}: {max(h):.0f} cells", "ok": max(h) < bound},
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
    (out / "compared.json").write_text(json.dumps({"numbers": rows, "statements": claims}, indent=1, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
    n_runs = res["reps"] * (2 * (len(data["figures"]["n"]) + len(data["figures"]["buffers"]))
                            + sum(len(data[t]["values"]) for t in ("table5", "table6", "table7")))
    mode = "quick" if quick else "full"
    intro = (f"{mode} run: {n_runs} runs ({res['reps']} independent seeds per setting, through the sweep machinery) in "
             f"{time.perf_counter() - started:.1f} s. ccsim's value is the mean over the seeds with the smallest and largest. "
             "The seed chose its run lengths by a stopping rule; these runs have fixed lengths (data/hgrcp.toml). "
             "docs/reproductions/hgrcp.md explains the differences.")
    cols = [("table", "table"), ("setting", "setting"), ("quantity", "quantity"), ("paper", "paper"), ("theory", "theory"),
            ("ccsim", "ccsim (mean)"), ("min", "min"), ("max", "max"), ("note", "note")]
    page = C.report_page(TITLE, intro, [("The seed's figures", C.html_table(claims, [("statement", "the seed says"), ("ccsim", "ccsim"), ("ok", "holds")])),
                                        ("The seed's tables", C.html_table(rows, cols))], figures)
    (out / "index.html").write_text(page, encoding="utf-8")
    paper_rows = [r for r in rows if r["ok"] is not None] + claims
    return C.summary(PAPER, out, mode, rows + claims, n_runs, started, paper_rows)


__all__ = ["reproduce", "load_data", "compare", "statements", "PAPER", "TITLE"]
