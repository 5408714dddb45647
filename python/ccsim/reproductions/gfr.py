"""Seed 001 (GFR design issues): minimum rate guarantees for UBR, its Experiments A and B and Table 1.

Runs Experiment A (`gfr/equal-{15,50}-{12k,24k}`: equal allocations, Selective Drop, FIFO), Experiment
B (`gfr/unequal-b1`: FIFO + WBA + F-GCRA tagging; `gfr/unequal-b2`: per-VC SCFQ, EPD, no tagging) and
the other six design options of Table 1 (`gfr/option-…`; rows 3 and 7 drop tagged frames first), each
replicated through the sweep machinery (independent seeds), and judges every row under the one verdict
model (verdicts.py): the seed's quantities, its statements (checked at its own magnitude), Table 1, and
apart from them the seed's own arithmetic and the presets' inputs. B's buffer is unstated: every B and
Table 1 row is counted at 12,000 cells and shows the 24,000-cell twin (`…-24k`) as another reading;
rows 3 and 7 also show a second level for tagged frames. Quick-mode verdicts measured to flip against
the full run are withheld in a quick run. The rows' quotes, numbers and tolerances live in
``data/gfr.toml``, not in code.
"""

from __future__ import annotations

import json
import statistics as st
import time
from pathlib import Path
from typing import Any

from . import _common as C
from . import verdicts as V

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
    """Every preset the rows need, in a stable order."""
    names = [p for k in ("quantity", "statement") for s in data[k] for p in s["presets"]]
    names += [p for t in data["trend"] for pair in t["pairs"] for p in pair] + [o["preset"] for o in data["option"]]
    return list(dict.fromkeys(names))


def twin(preset: str, data: dict[str, Any]) -> str:
    """The preset's 24,000-cell twin (`gfr/unequal-b2` -> `gfr/unequal-b2-24k`)."""
    return preset + data["buffer_24k"]["suffix"]


def twins(data: dict[str, Any]) -> list[str]:
    """The twins of every preset a row with `other_reading` rests on, in the rows' order."""
    rows = [r for k in ("quantity", "statement") for r in data[k]] + data["option"]
    return list(dict.fromkeys(twin(p, data) for r in rows if r.get("other_reading")
                              for p in r.get("presets", [r.get("preset")])))


def clp1_key(preset: str, data: dict[str, Any]) -> str:
    """The results key of `preset` run at the second level for tagged frames."""
    return f"{preset}@clp1={data['clp1_reading']['threshold']}"


def reading_runs(row: dict[str, Any], results: dict[str, list[dict[str, Any]]],
                 data: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """A row's other readings, as (label, runs): its configuration with 24,000 cells, and (Table 1's
    rows 3 and 7) with the second level for tagged frames."""
    preset = row.get("preset") or row["presets"][0]
    out = []
    if row.get("other_reading") and twin(preset, data) in results:
        out.append((data["buffer_24k"]["label"], results[twin(preset, data)]))
    if clp1_key(preset, data) in results:
        out.append((data["clp1_reading"]["label"], results[clp1_key(preset, data)]))
    return out


def connection_names(preset: str) -> list[str]:
    """The connections of a preset, as the run names them (`NAME` or `NAME1..NAMEk` for a group)."""
    from ..presets import preset_text

    t = tomllib.loads(preset_text(preset))
    out = []
    for c in t.get("connection", []):
        n = c.get("count", 1)
        out += [c["name"]] if n == 1 else [f"{c['name']}{i}" for i in range(1, n + 1)]
    return out


def plan_of(preset: str, replications: int, quick: bool, clp1: str | None = None) -> dict[str, Any]:
    """A sweep plan: the preset (with another threshold for tagged frames if given), replicated,
    with every connection's GFR numbers as metrics."""
    metrics = ["efficiency", "gfr_guarantee_met"]
    metrics += [f"connections[{n}].{f}" for n in connection_names(preset) for f in FIELDS]
    settings = dict(QUICK_SET) if quick else {}
    if clp1:
        settings["defaults.buffer_policy.clp1_threshold"] = clp1
    return {"name": f"gfr-{preset.split('/')[1]}" + (f"-clp1-{clp1}" if clp1 else ""), "scenario": preset,
            "replications": replications, "seed": 1, "metrics": metrics, "set": settings}


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


def _tol(spec: dict[str, Any]) -> dict[str, Any]:
    return V.tolerance(spec["mode"], spec.get("value"), spec["reason"])


def per_seed(runs: list[dict[str, Any]], measure: str, scale: float = 1.0) -> dict[int, float]:
    """One preset's measure, by seed."""
    return {r["seed"]: scale * measures(r)[measure] for r in runs}


def _mean_ci(values: list[float]) -> str:
    mean, ci = V.interval(values)
    return C.fmt(mean) + (f" [{C.fmt(ci[0])}, {C.fmt(ci[1])}]" if ci else "")


def _worst(s: dict[str, Any], by: dict[str, dict[int, float]]) -> str:
    """The preset farthest on the wrong side of the statement's bound."""
    means = {p: st.mean(v.values()) for p, v in by.items()}
    pick = max if s["tolerance"]["mode"] == "at_most" else min
    return pick(means, key=lambda p: means[p])


def quantity_rows(results: dict[str, list[dict[str, Any]]], data: dict[str, Any]) -> list[dict[str, Any]]:
    """The seed's simulated numbers: each seed's value (its mean over the presets where one seed
    number covers several) against the seed's number, with its printed precision."""
    rows = []
    for q in data["quantity"]:
        by = {p: per_seed(results[p], q["measure"], q.get("scale", 1.0)) for p in q["presets"]}
        seeds = sorted(set.intersection(*(set(v) for v in by.values())))
        values = [st.mean(by[p][s] for p in q["presets"]) for s in seeds]
        note = q.get("note", "")
        if len(q["presets"]) > 1:
            note += " Per configuration: " + "; ".join(f"{p.split('/')[1]} {_mean_ci(list(v.values()))}"
                                                         for p, v in by.items()) + "."
        others = [_as_reading(label, *V.interval(list(per_seed(runs, q["measure"], q.get("scale", 1.0)).values())),
                              admits=(_tol(q["tolerance"]), q["paper"])) for label, runs in reading_runs(q, results, data)]
        note += "".join(_reading_text(o) for o in others)
        rows.append(V.quantity(q["quantity"], q["paper"], q["quote"], values, _tol(q["tolerance"]), where=q["where"],
                               note=note.strip(), scenarios=q["presets"], **({"readings": others} if others else {})))
    return rows


def _as_reading(label: str, ccsim: Any, ci: Any, verdict: str | None = None,
                admits: tuple[dict[str, Any], Any] | None = None) -> dict[str, Any]:
    """Another reading of a row (verdicts.reading's shape): its value and the verdict it gives,
    given or judged by the row's tolerance (``admits``: the tolerance and the seed's number)."""
    if admits is not None:
        verdict = "agrees" if V.admits(admits[0], ccsim, admits[1]) else "differs"
    return {"reading": label, "ccsim": ccsim, "ccsim_ci": ci, "verdict": verdict}


def _reading_text(o: dict[str, Any]) -> str:
    ci = o["ccsim_ci"]
    value = o["ccsim"] if isinstance(o["ccsim"], str) else C.fmt(o["ccsim"])
    value += f" [{C.fmt(ci[0])}, {C.fmt(ci[1])}]" if ci else ""
    return f" With {o['reading'].replace(' [RECON', ' instead [RECON')}: {value}, {o['verdict']}."


def statement_rows(results: dict[str, list[dict[str, Any]]], data: dict[str, Any]) -> list[dict[str, Any]]:
    """The seed's bounded statements ("within 20%", "almost 100%", "over 90%"), each checked at the
    seed's number on the preset farthest on the wrong side of it."""
    rows = []
    for s in data["statement"]:
        by = {p: per_seed(results[p], s["measure"], s.get("scale", 1.0)) for p in s["presets"]}
        worst = _worst(s, by)
        mean, ci = V.interval(list(by[worst].values()))
        note = s.get("note", "")
        if len(by) > 1:
            note += " Per configuration: " + "; ".join(f"{p.split('/')[1]} {_mean_ci(list(v.values()))}"
                                                         for p, v in by.items()) + "."
        others = [_as_reading(label, *V.interval(list(per_seed(runs, s["measure"], s.get("scale", 1.0)).values())),
                              admits=(_tol(s["tolerance"]), s["paper"])) for label, runs in reading_runs(s, results, data)]
        note += "".join(_reading_text(o) for o in others)
        rows.append(V.statement(s["quantity"], s["quote"], None, mean, _tol(s["tolerance"]), paper=s["paper"], ccsim_ci=ci,
                                where=s["where"], note=note.strip(), scenarios=s["presets"], worst=worst,
                                **({"readings": others} if others else {})))
    return rows


def trend_rows(results: dict[str, list[dict[str, Any]]], data: dict[str, Any]) -> list[dict[str, Any]]:
    """A trend across configurations holds only when the change exceeds the seeds' spread: the 95 %
    interval of the per-seed difference lies entirely on the claimed side of 0 (for every pair)."""
    rows = []
    for t in data["trend"]:
        parts, holds, first = [], True, None
        for a, b in t["pairs"]:
            x, y = per_seed(results[a], t["measure"]), per_seed(results[b], t["measure"])
            diffs = [y[s] - x[s] for s in sorted(set(x) & set(y))]
            mean, ci = V.interval(diffs)
            side = ci is not None and (ci[0] > 0 if t["sign"] > 0 else ci[1] < 0)
            holds = holds and side
            first = first or (mean, ci)
            parts.append(f"{b.split('/')[-1]} − {a.split('/')[-1]}: {_mean_ci(diffs)}")
        value = first[0] if len(t["pairs"]) == 1 else "; ".join(parts)
        note = "Difference of the relative standard deviation, mean [95 % interval over the seeds]: " + "; ".join(parts) + "."
        if not holds:
            note += " The interval reaches the other side of 0: the change is inside the seeds' spread."
        rows.append(V.statement(t["quantity"], t["quote"], holds, value, V.tolerance("criterion", None, t["reason"]),
                                ccsim_ci=first[1] if len(t["pairs"]) == 1 else None, where=t["where"], note=note,
                                scenarios=[p for pair in t["pairs"] for p in pair]))
    return rows


def verdict(runs: list[dict[str, Any]]) -> bool:
    """Table 1's question for ccsim: is every VC's CLP0+1 goodput, averaged over the replications, at
    least 0.9 × its target? (The per-run flag `gfr_guarantee_met` asks the same of one run.)"""
    return lowest_ratio(runs) >= 0.9


def lowest_ratio(runs: list[dict[str, Any]]) -> float:
    """The smallest over the VCs of the mean over the seeds of CLP0+1 goodput / target."""
    names = runs[0]["connections"].keys()
    return min(st.mean(r["connections"][n]["clp01_mbps"] / r["connections"][n]["target_mbps"] for r in runs)
               for n in names)


def _outcome(runs: list[dict[str, Any]]) -> str:
    return (f"{'Yes' if verdict(runs) else 'No'} (lowest VC: {lowest_ratio(runs):.3f} of its target; "
            f"met on {sum(r['met'] for r in runs)} of {len(runs)} seeds)")


def table1_rows(results: dict[str, list[dict[str, Any]]], data: dict[str, Any]) -> list[dict[str, Any]]:
    """Table 1's GFR column, row by row, as statements: ccsim's Yes or No against the seed's."""
    crit = V.tolerance("criterion", None, data["table1"]["reason"])
    rows = []
    for k, o in enumerate(data["option"], 1):
        runs = results[o["preset"]]
        quantity = f"Table 1, row {k} ({o['preset'].split('/')[1]}): GFR guarantee for the CLP0+1 stream?"
        where = f"Table 1, row {k}, column 'GFR'"
        if "not_comparable" in o:
            rows.append(V.statement(quantity, o["quote"], None, _outcome(runs), None, where=where,
                                    note=o["not_comparable"], scenarios=[o["preset"]], seed_says=o["paper"]))
            continue
        others = [_as_reading(label, _outcome(alt), None, "agrees" if verdict(alt) == (o["paper"] == "Yes") else "differs")
                  for label, alt in reading_runs(o, results, data)]
        holds = verdict(runs) == (o["paper"] == "Yes")
        note = f"The seed says {o['paper']}. " + o.get("note", "") + "".join(_reading_text(x) for x in others)
        rows.append(V.statement(quantity, o["quote"], holds, _outcome(runs), crit, where=where, note=note.strip(),
                                scenarios=[o["preset"]], seed_says=o["paper"], **({"readings": others} if others else {})))
    return rows


def arithmetic_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The seed's own arithmetic (payload capacity, per-source maxima), redone; never counted."""
    ratio = 1024 / 1219
    payload = 149.76 * ratio  # SONET payload of 155.52 Mb/s, 1024 of every 1219 bytes at the ATM layer
    value = {"ratio_percent": 100 * ratio, "payload_mbps": payload, "per_source_15": payload / 15,
             "per_source_50": payload / 50}
    return [V.quantity(a["quantity"], a["paper"], a["quote"], [value[a["value"]]], _tol(a["tolerance"]), where=a["where"],
                       note=a.get("note", ""), kind="arithmetic") for a in data["arithmetic"]]


def input_rows(data: dict[str, Any], quick: bool) -> list[dict[str, Any]]:
    """The presets' settings the seed states (as a run resolves them, quick settings included) and
    its five MCRs read as TCP-level rates; never counted."""
    from ..api import resolve

    settings = dict(QUICK_SET) if quick else {}
    resolved: dict[str, dict[str, Any]] = {}

    def get(preset: str) -> dict[str, Any]:
        if preset not in resolved:
            resolved[preset] = resolve(preset, set=settings)
        return resolved[preset]

    def value(preset: str, what: str) -> float:
        r = get(preset)
        d = r["defaults"]
        return {"buffer_cells": lambda: C.to_unit(d["buffer"], "cells"),
                "link_delay_ms": lambda: C.duration_ms(d["link_delay"]),
                "mss_bytes": lambda: C.to_unit(d["tcp"]["mss"], None),
                "window_bytes": lambda: C.to_unit(d["tcp"]["window"], None),
                "duration_s": lambda: C.duration_ms(r["run"]["duration"]) / 1e3}[what]()

    setting = V.tolerance("rel", 0.0, "a setting: the preset takes the seed's value as it is")
    rows = [V.quantity(i["quantity"], i["paper"], i["quote"], [value(i["preset"], i["value"])], setting, where=i["where"],
                       note=i.get("note", ""), kind="input") for i in data["input"]]
    conns = get("gfr/unequal-b1")["connection"]
    quote = ("For example, 15 sources are divided into groups of 3, with MCRs of approximately 2.6 Mbps, 5.3 Mbps, "
             "8 Mbps, 10.7 Mbps, 13.5 Mbps.")
    for m in data["mcr"]:
        c = conns[m["group"] - 1]
        mbps = C.rate_mbps(c["gfr"]["mcr"]) * 1024 / 1219
        digits = "the unit" if m["tolerance"] == 0.5 else "a tenth"
        rows.append(V.quantity(f"Experiment B: group {m['group']}'s MCR as a TCP-level rate, Mb/s", m["paper"], quote, [mbps],
                               V.tolerance("abs", m["tolerance"], f"'approximately', printed to {digits}"),
                               where="§6.2", kind="input",
                               note=("[RECON] The seed's five MCRs are not one ratio within their printed digits "
                                     "(13.5 / 5 = 2.7, not 2.6): the presets take 1:2:3:4:5 of their sum (120.3 Mb/s over "
                                     "15 VCs, 2.673 Mb/s a unit), read as TCP-level rates and carried by cells at "
                                     f"× 1219/1024 ({C.rate_mbps(c['gfr']['mcr']):.4f} Mb/s of cells); groups 1 and 5 "
                                     "then fall outside the seed's printed digits. Targets are the same under either reading.")))
    return rows


def quick_gate(row: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """In a quick run, ``row`` with no verdict where its quick verdict was measured to differ from the
    full run's (``[quick]`` in data/gfr.toml; docs/reproductions/gfr.md): 4 s on two seeds cannot
    decide it, and a verdict that flips silently would mislead. A reading whose quick verdict flipped
    loses its verdict the same way; the row says which, with both runs' values."""
    q = data["quick"]
    flips = [f for f in q["flips"] if row["quantity"].startswith(f["row"])]
    if not flips:
        return row
    what = "; ".join(f"{f['which']}: quick {f['quick']}, full {f['full']}" for f in flips)
    reason = (f"Not decided in a quick run: in {q['measured']} the quick verdict differed from the full run's ({what}). "
              "Run it in full.")
    readings = [dict(x, verdict="not_comparable") if any(f["which"] != "counted" and x["reading"].startswith(f["which"])
                                                         for f in flips) else x for x in row.get("readings", [])]
    row = {**row, **({"readings": readings} if readings else {})}
    if any(f["which"] == "counted" for f in flips):
        return V.withheld(row, reason)
    return {**row, "note": f"{reason} {row['note']}".strip()}


def compare(results: dict[str, list[dict[str, Any]]], data: dict[str, Any], quick: bool = False) -> list[dict[str, Any]]:
    """Every row of the report, in the seed's order: its quantities, statements and trends, Table 1,
    then (never counted) its own arithmetic and the presets' inputs. In a quick run, the rows whose
    quick verdict was measured to flip are withheld (``quick_gate``)."""
    rows = (quantity_rows(results, data) + statement_rows(results, data) + trend_rows(results, data)
            + table1_rows(results, data))
    if quick:
        rows = [quick_gate(r, data) for r in rows]
    return rows + arithmetic_rows(data) + input_rows(data, quick)


def depends_on(rows: list[dict[str, Any]], label: str) -> list[str]:
    """The rows whose verdict changes under the reading ``label`` (the 24,000-cell buffer, or the
    second level for tagged frames)."""
    return [r["quantity"] for r in rows for x in r.get("readings", [])
            if x["reading"] == label and x["verdict"] != r["verdict"] and "not_comparable" not in (x["verdict"], r["verdict"])]


def _figures(results: dict[str, list[dict[str, Any]]], out: Path) -> list[str]:
    """Fig. 5 (per-source throughput / expected, mean and spread, per configuration, with
    efficiency), Figs. 6 and 7 (achieved / target per MCR group for B1 and B2)."""
    from .. import _mpl as plt  # figures without pyplot: no backend switch (_mpl.py)
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
        # The counted 12,000-cell preset, and its 24,000-cell twin where it ran (B's buffer is unstated).
        shown = [(preset, 0.0, "tab:blue", "12,000 cells"), (preset + "-24k", 0.2, "tab:orange", "24,000 cells")]
        for name, dx, color, label in [x for x in shown if x[0] in results]:
            for k, g in enumerate(groups):
                vals = [c["clp01_mbps"] / c["target_mbps"] for r in results[name] for n, c in r["connections"].items()
                        if group_of(n) == g]
                ax.errorbar([k + 1 + dx], [np.mean(vals)], yerr=[[np.mean(vals) - np.min(vals)], [np.max(vals) - np.mean(vals)]],
                            fmt="o", capsize=6, color=color, label=label if k == 0 else None)
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--", label="target")
        ax.axhspan(0.9, 1.1, color="grey", alpha=0.12, label="within 10 %")
        ax.set_xticks(range(1, len(groups) + 1), [f"group {g[1:]}" for g in groups])
        ax.set_ylabel("CLP0+1 throughput / target")
        ax.set_title(f"{title}\n{len(runs)} seeds; bars: min-max over VCs and seeds", fontsize=10)
        ax.legend(fontsize="small")
        files.append(C.save_figure(fig, out / fig_name))
    return files


def _listed(names: list[str]) -> str:
    return "; ".join(names) if names else "none"


def write_html(out: Path, rows: list[dict[str, Any]], figures: list[str], info: dict[str, Any], data: dict[str, Any]) -> None:
    c = V.counts(rows, info["quick"])
    withheld = [r["quantity"] for r in rows if r["note"].startswith("Not decided in a quick run")]
    quick = (f"{V.QUICK_WARNING} Verdicts (a row's, or one of its readings') measured to differ from the full run's are "
             f"withheld here, in: {_listed(withheld)}. " if info["quick"] else "")
    here = " in this quick run" if info["quick"] else ""
    intro = (quick
             + f"{c['headline'].removeprefix(V.QUICK_WARNING + ' ')}. {info['runs']} runs ({info['replications']} "
             f"independent seeds per preset, through the sweep machinery) in {info['wall_s']:.1f} s. ccsim's value is the "
             "mean over the seeds with its 95 % interval. A GFR guarantee is met when every VC's CLP0+1 goodput, averaged "
             "over the seeds, is at least 0.9 × its target (its MCR plus an MCR-weighted share of the unreserved capacity). "
             "Experiment B's buffer is not stated by the seed: every Experiment B and Table 1 row is counted at 12,000 cells "
             f"[RECON] and shows the seed's other size, 24,000 cells, as another reading. Verdicts that depend on the buffer{here}: "
             f"{_listed(depends_on(rows, data['buffer_24k']['label']))}. Table 1's rows 3 and 7 drop tagged frames from "
             f"0.5 × buffer [RECON] and show a second level; verdicts that depend on it{here}: "
             f"{_listed(depends_on(rows, data['clp1_reading']['label']))}. `ccsim docs reproductions/gfr` explains every "
             "difference.")
    readings = [("Other readings of reconstructed choices [RECON]", V.readings_table(rows))] if any(
        r.get("readings") for r in rows) else []
    page = C.report_page(TITLE, intro, V.sections(rows) + readings, figures)
    (out / "index.html").write_text(page, encoding="utf-8")


def details(results: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Per preset (and B2's other buffer), every measure's mean and 95 % interval over the seeds."""
    out = {}
    for preset, runs in results.items():
        names = measures(runs[0]).keys()
        out[preset] = {}
        for m in names:
            mean, ci = V.interval([measures(r)[m] for r in runs])
            out[preset][m] = {"mean": mean, "ci": ci}
        out[preset]["met_on_seeds"] = f"{sum(r['met'] for r in runs)}/{len(runs)}"
    return out


def reproduce(out: str | Path | None = None, quick: bool = False, workers: int | None = None,
              progress: bool = True) -> dict[str, Any]:
    """Runs every preset the rows need, replicated; writes ``compared.json`` (the rows),
    ``details.json`` (every measure per preset), ``runs.json``, ``figures/*.png`` and ``index.html``
    under ``out``; returns the summary (verdicts.summary)."""
    from ..sweeps import sweep

    started = time.perf_counter()
    data = load_data()
    out, workers = C.prepare(out, PAPER, workers)
    reps = data["quick_replications"] if quick else data["replications"]
    results = {}
    for preset in presets(data) + twins(data):
        frame = sweep(plan_of(preset, reps, quick), workers=workers, progress=progress)
        results[preset] = runs_of(frame)
    clp1 = data["clp1_reading"]
    for preset in clp1["presets"]:
        frame = sweep(plan_of(preset, reps, quick, clp1["threshold"]), workers=workers, progress=progress)
        results[clp1_key(preset, data)] = runs_of(frame)
    rows = compare(results, data, quick)
    figures = _figures(results, out / "figures")
    V.write_compared(out, rows)
    (out / "details.json").write_text(json.dumps(details(results), indent=1, allow_nan=False) + "\n", encoding="utf-8")
    runs = [{"scenario": p, "seed": r["seed"], "efficiency": C.clean(r["efficiency"]), "gfr_guarantee_met": r["met"],
             "wall_s": C.clean(r["wall_s"]), "fingerprint": r["fingerprint"]} for p, rs in results.items() for r in rs]
    (out / "runs.json").write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    n_runs = sum(len(rs) for rs in results.values())
    write_html(out, rows, figures, {"quick": quick, "runs": n_runs, "replications": reps,
                                    "wall_s": time.perf_counter() - started}, data)
    return V.summary(PAPER, out, rows, n_runs, started, quick,
                     depends_on_buffer=depends_on(rows, data["buffer_24k"]["label"]),
                     depends_on_clp1_threshold=depends_on(rows, data["clp1_reading"]["label"]))


__all__ = ["reproduce", "load_data", "measures", "compare", "verdict", "lowest_ratio", "twins", "depends_on", "quick_gate",
           "PAPER", "TITLE"]
