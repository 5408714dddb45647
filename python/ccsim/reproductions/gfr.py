"""Seed 001 (GFR design issues): minimum rate guarantees for UBR, its Experiments A and B and Table 1.

Runs Experiment A (`gfr/equal-{15,50}-{12k,24k}`: equal allocations, Selective Drop, FIFO), Experiment
B (`gfr/unequal-b1`: FIFO + WBA + F-GCRA tagging; `gfr/unequal-b2`: per-VC SCFQ, EPD, no tagging) and
the other six design options of Table 1 (`gfr/option-…`), each replicated through the sweep machinery
(independent seeds), and sets every statement of the seed beside ccsim's mean over the replications,
with the spread. The statements live in ``data/gfr.toml``, not in code.
"""

from __future__ import annotations

import json
import statistics as st
import time
from pathlib import Path
from typing import Any

from . import _common as C

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

PAPER = "gfr"
TITLE = "Seed 001: minimum rate guarantees for UBR (GFR)"
DATA_FILE = Path(__file__).parent / "data" / "gfr.toml"
EQUAL = ("gfr/equal-15-12k", "gfr/equal-15-24k", "gfr/equal-50-12k", "gfr/equal-50-24k")
FIELDS = ("clp01_mbps", "clp0_mbps", "target_mbps", "frames_tagged")
# Quick runs: 4 s simulated, measured over 1-4 s.
QUICK_SET = {"run.duration": "4s", "run.measure_from": "1s"}


def load_data(path: Path = DATA_FILE) -> dict[str, Any]:
    with open(path, "rb") as f:
        return tomllib.load(f)


def presets(data: dict[str, Any]) -> list[str]:
    """Every preset the statements and Table 1 need, in a stable order."""
    names = [p for s in data["statement"] for p in s["presets"]] + [o["preset"] for o in data["option"]]
    return list(dict.fromkeys(names))


def connection_names(preset: str) -> list[str]:
    """The connections of a preset, as the run names them (`NAME` or `NAME1..NAMEk` for a group)."""
    from ..presets import preset_text

    t = tomllib.loads(preset_text(preset))
    out = []
    for c in t.get("connection", []):
        n = c.get("count", 1)
        out += [c["name"]] if n == 1 else [f"{c['name']}{i}" for i in range(1, n + 1)]
    return out


def plan_of(preset: str, replications: int, quick: bool) -> dict[str, Any]:
    """A sweep plan: the preset, replicated, with every connection's GFR numbers as metrics."""
    metrics = ["efficiency", "gfr_guarantee_met"]
    metrics += [f"connections[{n}].{f}" for n in connection_names(preset) for f in FIELDS]
    return {"name": f"gfr-{preset.split('/')[1]}", "scenario": preset, "replications": replications, "seed": 1,
            "metrics": metrics, "set": dict(QUICK_SET) if quick else {}}


def runs_of(frame) -> list[dict[str, Any]]:
    """The sweep's rows as per-run records: efficiency, met, and per connection its numbers."""
    out = []
    for row in frame.iter_rows(named=True):
        conns: dict[str, dict[str, float]] = {}
        for key, value in row.items():
            if key.startswith("connections["):
                name, field = key[len("connections["):].split("].", 1)
                conns.setdefault(name, {})[field] = value
        out.append({"seed": row["seed"], "efficiency": row["efficiency"], "met": bool(row["gfr_guarantee_met"]),
                    "connections": conns, "wall_s": row["wall_s"], "fingerprint": row["fingerprint"]})
    return out


def group_of(name: str) -> str:
    """`G3_2` -> `G3`; connections outside a group -> `all`."""
    return name.split("_", 1)[0] if "_" in name else "all"


def group_ratios(run: dict[str, Any]) -> dict[str, float]:
    """Per MCR group, the mean of CLP0+1 goodput / target over its connections."""
    groups: dict[str, list[float]] = {}
    for name, c in run["connections"].items():
        groups.setdefault(group_of(name), []).append(c["clp01_mbps"] / c["target_mbps"])
    return {g: st.mean(v) for g, v in sorted(groups.items())}


def measures(run: dict[str, Any]) -> dict[str, float]:
    """The quantities the statements are about, for one run."""
    g = [c["clp01_mbps"] for c in run["connections"].values()]
    mean = st.mean(g)
    ratios = group_ratios(run)
    out = {
        "efficiency": run["efficiency"],
        "mean_goodput_mbps": mean,
        "max_deviation_from_mean": max(abs(x - mean) / mean for x in g),
        "relative_std": st.pstdev(g) / mean,
        "max_group_deviation": max(abs(r - 1.0) for r in ratios.values()),
        "met": float(run["met"]),
    }
    for k, r in ratios.items():
        out[f"group{k[1:]}_ratio" if k.startswith("G") else "all_ratio"] = r
    return out


def verdict(runs: list[dict[str, Any]]) -> bool:
    """Table 1's question for ccsim: is every VC's CLP0+1 goodput, averaged over the replications, at
    least 0.9 × its target? (The per-run flag `gfr_guarantee_met` asks the same of one run.)"""
    names = runs[0]["connections"].keys()
    return all(st.mean(r["connections"][n]["clp01_mbps"] / r["connections"][n]["target_mbps"] for r in runs) >= 0.9
               for n in names)


def _holds(expect: str, value: float, ref: float, tolerance: float | None) -> bool:
    if expect == "~":
        return abs(value - ref) <= (tolerance or 0.0) * (abs(ref) if ref > 1 else 1.0) + 1e-12
    return {">": value > ref, "<": value < ref}[expect]


def compare(results: dict[str, list[dict[str, Any]]], data: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Statement rows (one per statement and preset: the paper's word or number, ccsim's threshold
    where the seed gives none, ccsim's mean over replications with min and max, whether it holds)
    and Table 1 rows (the seed's verdict beside ccsim's)."""
    rows = []
    for s in data["statement"]:
        for preset in s["presets"]:
            runs = results[preset]
            if s["quantity"] == "std_grows_with_buffer":
                if not preset.endswith("-24k"):
                    continue
                small = [measures(r)["relative_std"] for r in results[preset.replace("-24k", "-12k")]]
                large = [measures(r)["relative_std"] for r in runs]
                holds = st.mean(large) > st.mean(small)
                rows.append({"scenario": preset, "quantity": s["quantity"], "statement": s["text"], "figure": s["figure"],
                             "paper": "yes", "threshold": None, "ccsim": C.clean(st.mean(large) - st.mean(small)),
                             "min": None, "max": None, "ok": holds, "note": s.get("note")})
                continue
            values = [measures(r)[s["quantity"]] for r in runs]
            mean = st.mean(values)
            ref = s["paper"] if "paper" in s else s["threshold"]
            rows.append({"scenario": preset, "quantity": s["quantity"], "statement": s["text"], "figure": s["figure"],
                         "paper": s.get("paper"), "threshold": s.get("threshold"),
                         "expect": f"{s['expect']} {C.fmt(ref)}" + (f" ± {s['tolerance']}" if "tolerance" in s else ""),
                         "ccsim": C.clean(mean), "min": C.clean(min(values)), "max": C.clean(max(values)),
                         "ok": _holds(s["expect"], mean, ref, s.get("tolerance")), "note": s.get("note")})
    table = []
    for o in data["option"]:
        runs = results[o["preset"]]
        v = verdict(runs)
        table.append({"scenario": o["preset"], "paper": o["paper"], "ccsim_verdict": "Yes" if v else "No",
                      "met_on_seeds": f"{sum(r['met'] for r in runs)}/{len(runs)}",
                      "ok": (o["paper"] == "Yes") == v, "note": o.get("note")})
    return rows, table


def _figures(results: dict[str, list[dict[str, Any]]], out: Path) -> list[str]:
    """Fig. 5 (per-source throughput / expected, mean and spread, per configuration, with
    efficiency), Figs. 6 and 7 (achieved / target per MCR group for B1 and B2)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    files = []
    fig, ax = plt.subplots(figsize=(7, 4))
    top, bottom, labels = 1.2, 0.8, []
    for k, preset in enumerate(EQUAL):
        x = [c["clp01_mbps"] / c["target_mbps"] for r in results[preset] for c in r["connections"].values()]
        eff = st.mean(r["efficiency"] for r in results[preset])
        top, bottom = max(top, float(np.max(x))), min(bottom, float(np.min(x)))
        labels.append(f"{preset.split('/')[1]}\nefficiency {eff:.3f}")
        ax.errorbar([k], [np.mean(x)], yerr=[[np.mean(x) - np.min(x)], [np.max(x) - np.mean(x)]], fmt="o", capsize=6,
                    color="tab:blue", label="min-max over sources and seeds" if k == 0 else None)
        ax.errorbar([k + 0.1], [np.mean(x)], yerr=[np.std(x)], fmt="none", capsize=4, color="tab:orange",
                    label="± one standard deviation" if k == 0 else None)
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.axhspan(0.8, 1.2, color="grey", alpha=0.12, label="seed: all within 20 % of the mean")
    ax.set_xticks(range(len(EQUAL)), labels, fontsize=8)
    ax.set_ylim(max(0.0, bottom - 0.1), top + 0.45)
    ax.set_ylabel("throughput / expected (8.39 or 2.52 Mb/s)")
    ax.set_title("Fig. 5: equal allocations, Selective Drop, FIFO", fontsize=10)
    ax.legend(fontsize="small", loc="upper left", ncol=2)
    files.append(C.save_figure(fig, out / "fig5-equal.png"))

    for preset, fig_name, title in [("gfr/unequal-b1", "fig6-b1.png", "Fig. 6: FIFO + WBA + tagging (B1)"),
                                    ("gfr/unequal-b2", "fig7-b2.png", "Fig. 7: per-VC SCFQ, no tagging (B2)")]:
        runs = results[preset]
        groups = sorted(group_ratios(runs[0]))
        fig, ax = plt.subplots(figsize=(6, 4))
        for k, g in enumerate(groups):
            vals = [c["clp01_mbps"] / c["target_mbps"] for r in runs for n, c in r["connections"].items() if group_of(n) == g]
            ax.errorbar([k + 1], [np.mean(vals)], yerr=[[np.mean(vals) - np.min(vals)], [np.max(vals) - np.mean(vals)]],
                        fmt="o", capsize=6, color="tab:blue")
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--", label="target")
        ax.axhspan(0.9, 1.1, color="grey", alpha=0.12, label="within 10 %")
        ax.set_xticks(range(1, len(groups) + 1), [f"group {g[1:]}" for g in groups])
        ax.set_ylabel("CLP0+1 throughput / target")
        ax.set_title(f"{title}\n{len(runs)} seeds; bars: min-max over VCs and seeds", fontsize=10)
        ax.legend(fontsize="small")
        files.append(C.save_figure(fig, out / fig_name))
    return files



def write_html(out: Path, rows: list[dict[str, Any]], table: list[dict[str, Any]], figures: list[str], info: dict[str, Any]) -> None:
    columns = [("scenario", "preset"), ("statement", "the seed says"), ("figure", "where"), ("paper", "paper"),
               ("threshold", "ccsim's threshold"), ("expect", "expected"), ("ccsim", "ccsim (mean)"), ("min", "min"),
               ("max", "max"), ("ok", "holds"), ("note", "note")]
    tcols = [("scenario", "preset"), ("paper", "seed: GFR?"), ("ccsim_verdict", "ccsim: GFR?"),
             ("met_on_seeds", "met on seeds"), ("ok", "agree"), ("note", "seed's note")]
    intro = (f"{info['mode']} run: {info['runs']} runs ({info['replications']} independent seeds per preset, through the "
             f"sweep machinery) in {info['wall_s']:.1f} s. ccsim's value is the mean over the seeds, with the smallest and "
             "largest. A GFR guarantee is met when every VC's CLP0+1 goodput is at least 0.9 × its target (its MCR plus an "
             "MCR-weighted share of the unreserved capacity); Table 1's verdict uses each VC's mean over the seeds. "
             "docs/reproductions/gfr.md explains the differences.")
    sections = [("Table 1: design options", C.html_table(table, tcols)), ("Statements", C.html_table(rows, columns))]
    page = C.report_page(TITLE, intro, sections, figures)
    (out / "index.html").write_text(page, encoding="utf-8")


def reproduce(out: str | Path | None = None, quick: bool = False, workers: int | None = None,
              progress: bool = True) -> dict[str, Any]:
    """Runs every preset the statements need, replicated; writes ``compared.json``, ``runs.json``,
    ``figures/*.png`` and ``index.html`` under ``out``; returns a summary dict."""
    from ..sweeps import sweep

    started = time.perf_counter()
    data = load_data()
    out, workers = C.prepare(out, PAPER, workers)
    reps = data["quick_replications"] if quick else data["replications"]
    results = {}
    for preset in presets(data):
        frame = sweep(plan_of(preset, reps, quick), workers=workers, progress=progress)
        results[preset] = runs_of(frame)
    rows, table = compare(results, data)
    figures = _figures(results, out / "figures")
    compared = {"statements": rows, "table1": table}
    (out / "compared.json").write_text(json.dumps(compared, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    runs = [{"scenario": p, "seed": r["seed"], "efficiency": C.clean(r["efficiency"]), "gfr_guarantee_met": r["met"],
             "wall_s": C.clean(r["wall_s"]), "fingerprint": r["fingerprint"]} for p, rs in results.items() for r in rs]
    (out / "runs.json").write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    n_runs = sum(len(rs) for rs in results.values())
    info = {"mode": "quick" if quick else "full", "runs": n_runs, "replications": reps, "wall_s": time.perf_counter() - started}
    write_html(out, rows, table, figures, info)
    paper_rows = [r for r in rows if r["paper"] is not None] + table
    return C.summary(PAPER, out, info["mode"], rows + table, n_runs, started, paper_rows,
                     "of the seed's numbers (means over the seeds) and Table 1 verdicts within tolerance")


__all__ = ["reproduce", "load_data", "measures", "compare", "verdict", "PAPER", "TITLE"]
