"""Seed 004: Uniform Tracking (rate-based ABR) against Controlled Transfer (hop-by-hop credits)
carrying TCP under the bulk-data session model.

Runs every preset of ``ut-ct/`` with independent replications (the bursts are Pareto 1.2, of
infinite variance: one long run would not converge): the 2-node cases 1-6 with UT and with CT
sized by Table III, by the bandwidth-delay rule and to avoid TCP timeouts (a bisection on
Policy_Limit, run here), and the max-min cases 1-3 with UT and CT's BDP sizing. Sets Table III and
the case-6 retransmission counts beside the seed's, and answers the seed's figures (3a-8) as
statements with ccsim's numbers. The seed's numbers live in ``data/ut-ct.toml``.
"""

from __future__ import annotations

import json
import math
import statistics as stat
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from . import _common as C

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

PAPER = "ut-ct"
TITLE = "Seed 004: UT against CT under realistic traffic"
DATA_FILE = Path(__file__).parent / "data" / "ut-ct.toml"
CASES = [1, 2, 3, 4, 5, 6]
MAXMIN = [1, 2, 3]
KINDS = ["ut", "ct-table3", "ct-bdp", "ct-timeout"]
# The sensitivity checks: their overrides (None: the data file's bits reading of the burst minimum).
SENSITIVITY = {"bits": {"connection[0].sessions.burst.min": None}, "block": {"defaults.adapter_full": "block"}}
# Cells per TCP segment behind the adapter (1496 + 40 + 8 + 8 bytes in 48-byte payloads).
SEGMENT_CELLS, MSS = 33, 1496


def load_data(path: Path = DATA_FILE) -> dict[str, Any]:
    with open(path, "rb") as f:
        return tomllib.load(f)


def water_fill(demands: list[float], capacity: float) -> list[float]:
    """Max-min fair shares of one link among flows that want at most their demand."""
    share = [0.0] * len(demands)
    left, todo = capacity, sorted(range(len(demands)), key=lambda i: demands[i])
    while todo:
        fair = left / len(todo)
        i = todo[0]
        if demands[i] <= fair:
            share[i] = demands[i]
            left -= demands[i]
            todo.pop(0)
        else:
            for j in todo:
                share[j] = fair
            break
    return share


def jain(xs: list[float]) -> float:
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if xs and any(xs) else math.nan


def measure(s: dict[str, Any], window_s: float, pdu: int) -> dict[str, Any]:
    """The seed's metrics from one run's summary."""
    links = {l["name"]: l for l in s["links"]}
    ports = {p["name"]: p for p in s["ports"]}
    conns = s["connections"]
    cells = sum(c.get("ctd_cells") or 0 for c in conns)
    out: dict[str, Any] = {
        "ctd_mean_ms": sum((c.get("ctd_mean_ms") or 0) * (c.get("ctd_cells") or 0) for c in conns) / cells if cells else math.nan,
        "timeout_retransmits": sum(c["timeout_retransmits"] for c in conns),
        "timeout_retransmits_max": max(c["timeout_retransmits"] for c in conns),
        "ack_time_p999_ms": max((c.get("ack_time_p999_ms") or 0) for c in conns),
        "buffer_memory_cells": s["buffer_memory_cells"],
        "buffer_allocated_cells": s.get("buffer_allocated_cells"),
        "goodput_mbps": s["goodput_mbps_total"],
        "offered_mbps": sum(c.get("app_bytes_window", 0) for c in conns) * 8 / window_s / 1e6,
        "drops": sum(c["drops"] for c in conns),
        # A CT receiver never holds more than Policy_Limit cells of a connection (checked in every run).
        "credit_overflows": sum(p.get("credit_overflows", 0) for p in s["ports"]),
    }
    if "SW1-SW2 (SW1->SW2)" in links:
        line = links["SW1-SW2 (SW1->SW2)"]["rate_mbps"] * 1e6
        # Eq. 6 verbatim: the packet's share of its cells, ignoring the AAL5 trailer as the seed does.
        out["goodput_eq6"] = s["goodput_mbps_total"] * 1e6 / (line * pdu / (53 * math.ceil(pdu / 48)))
        out["utilization"] = links["SW1-SW2 (SW1->SW2)"]["utilization"]
        out["mean_queue"] = ports["SW1->SW2"]["mean_queue_cells"]
        out["max_queue"] = ports["SW1->SW2"]["max_queue_cells"]
        # Fairness (Eq. 5): throughput over the fair share of the bottleneck, the shares max-min
        # fair with each source's demand (what its application wrote in the window) as its cap.
        capacity = line / 424 * MSS * 8 / SEGMENT_CELLS
        active = [c for c in conns if c.get("app_bytes_window", 0) > 0]
        fair = water_fill([c["app_bytes_window"] * 8 / window_s for c in active], capacity)
        out["fairness"] = jain([c["goodput_mbps"] * 1e6 / f for c, f in zip(active, fair) if f > 0])
    else:
        for k in (1, 2, 3):
            name = next(n for n in links if n.startswith(f"L{k} (SW{k}->"))
            out[f"utilization_L{k}"] = links[name]["utilization"]
    return out


def _one(args: tuple[str, int, dict[str, Any], float, int]) -> dict[str, Any]:
    import ccsim

    preset, seed, sets, window_s, pdu = args
    s = ccsim.run(f"ut-ct/{preset}", seed=seed, set=sets, series=False).summary()
    return measure(s, window_s, pdu)


def _stats(runs: list[dict[str, Any]], key: str) -> tuple[float, float, float]:
    xs = [r[key] for r in runs if r.get(key) is not None and not (isinstance(r[key], float) and math.isnan(r[key]))]
    return (stat.mean(xs), min(xs), max(xs)) if xs else (math.nan, math.nan, math.nan)


class Runner:
    def __init__(self, data: dict[str, Any], quick: bool, workers: int, progress: bool, reps: int | None = None):
        self.reps = reps or (data["quick_replications"] if quick else data["replications"])
        dur, start = (data["quick_duration"], data["quick_measure_from"]) if quick else (data["duration"], data["measure_from"])
        self.sets = {"run.duration": dur, "run.measure_from": start}
        self.window_s = _seconds(dur) - _seconds(start)
        self.pdu = data["pdu_bytes"]
        self.pool = ProcessPoolExecutor(workers)
        self.progress = progress
        self.count = 0

    def run(self, jobs: list[tuple[str, dict[str, Any]]]) -> list[list[dict[str, Any]]]:
        """Each (preset, extra settings) with every replication; per job its runs."""
        args = [(p, seed, {**self.sets, **extra}, self.window_s, self.pdu) for p, extra in jobs for seed in range(1, self.reps + 1)]
        results = list(self.pool.map(_one, args))
        self.count += len(args)
        if self.progress:
            print(f"  {self.count} runs done", file=sys.stderr)
        return [results[i * self.reps:(i + 1) * self.reps] for i in range(len(jobs))]


def _seconds(text: str) -> float:
    from ..sweeps.metrics import _seconds as sec

    return sec(text)


def timeout_search(r: Runner, cases: list[int], data: dict[str, Any]) -> dict[int, tuple[int, list[dict[str, Any]]]]:
    """Per case, the largest Policy_Limit (one value on every hop) whose run keeps every connection's
    99.9th percentile packet-to-ACK time below the limit, by bisection between N2 and the BDP
    sizing's allocation per connection (seed 1); the cases' probes run side by side. Returns each
    case's limit and its probes."""
    bdp = dict(zip(cases, (runs[0] for runs in r.run([(f"two-node-case{c}-ct-bdp", {}) for c in cases]))))
    sources = {c: 10 if c % 2 else 100 for c in cases}
    bounds = {c: [32, max(32, int(bdp[c]["buffer_allocated_cells"] / sources[c]))] for c in cases}
    probes: dict[int, list[dict[str, Any]]] = {c: [] for c in cases}
    for _ in range(data["search_steps"]):
        todo = [c for c in cases if bounds[c][1] - bounds[c][0] > 1]
        if not todo:
            break
        mids = {c: (bounds[c][0] + bounds[c][1]) // 2 for c in todo}
        args = [(f"two-node-case{c}-ct-timeout", 1, {**r.sets, "credit.sizing": "fixed", "credit.policy_limit": mids[c]},
                 r.window_s, r.pdu) for c in todo]
        for c, m in zip(todo, r.pool.map(_one, args)):
            probes[c].append({"policy_limit": mids[c], "ack_time_p999_ms": m["ack_time_p999_ms"]})
            bounds[c][0 if m["ack_time_p999_ms"] < data["ack_time_limit_ms"] else 1] = mids[c]
    return {c: (bounds[c][0], probes[c]) for c in cases}


def run_all(data: dict[str, Any], quick: bool, workers: int, progress: bool) -> dict[str, Any]:
    r = Runner(data, quick, workers, progress)
    res: dict[str, Any] = {"reps": r.reps, "limits": {}, "probes": {}}
    jobs = [(f"two-node-case{c}-{k}", {}) for c in CASES for k in ("ut", "ct-table3", "ct-bdp")]
    jobs += [(f"maxmin-case{c}-{k}", {}) for c in MAXMIN for k in ("ut", "ct-bdp")]
    for (preset, _), runs in zip(jobs, r.run(jobs)):
        res[preset] = runs
    for c, (limit, probes) in timeout_search(r, [c for c in CASES if c % 2 == 0], data).items():
        res["limits"][c], res["probes"][c] = limit, probes
    jobs = [(f"two-node-case{c}-ct-timeout", {"credit.sizing": "fixed", "credit.policy_limit": res["limits"][c]} if c in res["limits"] else {})
            for c in CASES]
    for (preset, _), runs in zip(jobs, r.run(jobs)):
        res[preset] = runs
    # Sensitivity checks with fewer replications: the burst minimum read as bits (a light load), and
    # adapters that hold PDUs back instead of dropping them.
    extra = Runner(data, quick, workers, progress, reps=1 if quick else data["sensitivity_replications"])
    for tag, sets in SENSITIVITY.items():
        over = {k: data["bits_reading_min"] if v is None else v for k, v in sets.items()}
        jobs = [(f"two-node-case{c}-{k}", over) for c in CASES for k in ("ut", "ct-bdp")]
        for (preset, _), runs in zip(jobs, extra.run(jobs)):
            res[f"{tag}:{preset}"] = runs
    extra.pool.shutdown()
    res["n_runs"] = r.count + extra.count + sum(len(p) for p in res["probes"].values())
    r.pool.shutdown()
    return res


def compare(res: dict[str, Any], data: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []

    def row(table: str, setting: str, quantity: str, paper: Any, runs: list[dict[str, Any]], key: str, note: str | None = None):
        mean, lo, hi = _stats(runs, key)
        rows.append({"table": table, "setting": setting, "quantity": quantity, "paper": paper, "ccsim": C.clean(mean),
                     "min": C.clean(lo), "max": C.clean(hi), "ok": None, "note": note})

    t3 = data["table3"]
    for k, c in enumerate(t3["cases"]):
        runs = res[f"two-node-case{c}-ut"]
        row("Table III", f"case {c}, UT", "mean queue at switch 1 (cells)", t3["mean"][k], runs, "mean_queue")
        row("Table III", f"case {c}, UT", "maximum queue at switch 1 (cells)", t3["max"][k], runs, "max_queue")
    c6 = data["case6"]
    row("Case 6 (text)", "CT, BDP buffers", "packet retransmissions due to timeouts, all sources", c6["timeout_retransmits_total"],
        res["two-node-case6-ct-bdp"], "timeout_retransmits")
    row("Case 6 (text)", "CT, BDP buffers", "the most any one source retransmitted", c6["timeout_retransmits_one_source"],
        res["two-node-case6-ct-bdp"], "timeout_retransmits_max")
    for c in CASES:
        for k in KINDS:
            runs = res[f"two-node-case{c}-{k}"]
            for key, q in (("goodput_eq6", "goodput (Eq. 6)"), ("fairness", "fairness (Eq. 5)"), ("utilization", "utilization, switch 1"),
                           ("mean_queue", "mean queue, switch 1 (cells)"), ("ctd_mean_ms", "mean CTD (ms)"),
                           ("buffer_memory_cells", "buffer memory used (cells)"), ("timeout_retransmits", "timeout retransmissions")):
                row(f"Figs. 3-6, case {c}", k, q, None, runs, key)
    for c in MAXMIN:
        for k in ("ut", "ct-bdp"):
            runs = res[f"maxmin-case{c}-{k}"]
            for key in ("utilization_L1", "utilization_L2", "utilization_L3", "ctd_mean_ms"):
                row(f"Figs. 7-8, max-min case {c}", k, key, None, runs, key)
    return rows


def statements(res: dict[str, Any], data: dict[str, Any]) -> list[dict[str, Any]]:
    m = lambda preset, key: _stats(res[preset], key)[0]  # noqa: E731
    ut_mean = [m(f"two-node-case{c}-ut", "mean_queue") for c in CASES]
    ut_max = [m(f"two-node-case{c}-ut", "max_queue") for c in CASES]
    t3_util = {c: m(f"two-node-case{c}-ct-table3", "utilization") for c in CASES}
    ut_util = {c: m(f"two-node-case{c}-ut", "utilization") for c in CASES}
    gp = {c: (m(f"two-node-case{c}-ut", "goodput_eq6"), m(f"two-node-case{c}-ct-bdp", "goodput_eq6")) for c in CASES}
    fair = {c: (m(f"two-node-case{c}-ut", "fairness"), m(f"two-node-case{c}-ct-bdp", "fairness")) for c in CASES}
    qratio = {c: m(f"two-node-case{c}-ct-bdp", "mean_queue") / max(m(f"two-node-case{c}-ut", "mean_queue"), 1e-9) for c in CASES}
    mem = {c: (m(f"two-node-case{c}-ct-bdp", "buffer_memory_cells"), m(f"two-node-case{c}-ut", "buffer_memory_cells")) for c in CASES}
    ctd = {c: (m(f"two-node-case{c}-ut", "ctd_mean_ms"), m(f"two-node-case{c}-ct-bdp", "ctd_mean_ms"),
               m(f"two-node-case{c}-ct-timeout", "ctd_mean_ms")) for c in CASES}
    prop = {c: [1, 1, 25, 25, 50, 50][c - 1] / 2 for c in CASES}
    mm = {c: [(m(f"maxmin-case{c}-ut", f"utilization_L{k}"), m(f"maxmin-case{c}-ct-bdp", f"utilization_L{k}")) for k in (1, 2, 3)] for c in MAXMIN}
    mm_ctd = {c: (m(f"maxmin-case{c}-ut", "ctd_mean_ms"), m(f"maxmin-case{c}-ct-bdp", "ctd_mean_ms")) for c in MAXMIN}
    f = lambda x: f"{x:.3g}"  # noqa: E731
    return [
        {"statement": "Table III: UT keeps the mean queue at switch 1 below 5 cells and its maximum at most 750 cells",
         "ccsim": f"mean {', '.join(map(f, ut_mean))}; max {', '.join(map(f, ut_max))} (cases 1-6)",
         "ok": max(ut_mean) < 5 and max(ut_max) <= 750},
        {"statement": "CT with Table III's buffers: utilisation as low as 1 % for the long-delay cases (UT's beside it)",
         "ccsim": ", ".join(f"case {c}: {t3_util[c]:.2%} (UT {ut_util[c]:.2%})" for c in (3, 4, 5, 6)),
         "ok": min(t3_util[c] for c in (3, 4, 5, 6)) < min(ut_util[c] for c in (3, 4, 5, 6)) / 2},
        {"statement": "Figs. 3a/3b: with BDP buffers, CT's goodput and fairness differ little from UT's",
         "ccsim": "; ".join(f"case {c}: goodput {gp[c][0]:.3f}/{gp[c][1]:.3f}, fairness {fair[c][0]:.2f}/{fair[c][1]:.2f}" for c in CASES) + " (UT/CT)",
         "ok": all(abs(gp[c][0] - gp[c][1]) <= 0.1 * max(gp[c]) for c in CASES)},
        {"statement": "Fig. 4: CT's queues hold far more than UT's (over 30 000 times in cases 2, 4, 6)",
         "ccsim": "mean queue CT/UT: " + ", ".join(f"case {c}: {qratio[c]:.3g}x" for c in CASES)
         + "; buffer memory CT/UT: " + ", ".join(f"{mem[c][0] / max(mem[c][1], 1):.3g}x" for c in CASES),
         "ok": all(qratio[c] > 1 for c in CASES)},
        {"statement": "Fig. 5: UT's mean CTD is close to the propagation delay; CT's is much larger",
         "ccsim": "; ".join(f"case {c}: UT {ctd[c][0]:.3g}, CT {ctd[c][1]:.3g} ms (one-way propagation {prop[c]:g} ms)" for c in CASES),
         "ok": all(ctd[c][1] > ctd[c][0] for c in CASES) and all(ctd[c][0] < 2 * prop[c] + 1 for c in CASES)},
        {"statement": "Fig. 6: with buffers sized to avoid timeouts, CT's mean CTD is still much larger than UT's",
         "ccsim": "; ".join(f"case {c}: UT {ctd[c][0]:.3g}, CT {ctd[c][2]:.3g} ms (Policy_Limit {res['limits'][c]})" for c in (2, 4, 6)),
         "ok": all(ctd[c][2] > ctd[c][0] for c in (2, 4, 6))},
        {"statement": "Fig. 7: in the max-min configuration UT uses the links better everywhere except case 1, switch 1",
         "ccsim": "; ".join(f"case {c}: " + ", ".join(f"L{k + 1} {u:.2f}/{v:.2f}" for k, (u, v) in enumerate(mm[c])) for c in MAXMIN) + " (UT/CT)",
         "ok": all(u >= v for c in MAXMIN for k, (u, v) in enumerate(mm[c]) if (c, k) != (1, 0))},
        {"statement": "Fig. 8: in the max-min configuration UT's mean CTD is far lower than CT's",
         "ccsim": "; ".join(f"case {c}: UT {u:.3g}, CT {v:.3g} ms" for c, (u, v) in mm_ctd.items()),
         "ok": all(u < v for u, v in mm_ctd.values())},
    ]


def sensitivity(res: dict[str, Any]) -> list[dict[str, Any]]:
    """The seed's queue, delay and timeout findings again under each other reading (not counted)."""
    out = []
    for tag, label in (("bits", "the burst minimum in bits"), ("block", "blocking adapters")):
        m = lambda preset, key: _stats(res[f"{tag}:{preset}"], key)[0]  # noqa: E731
        pair = lambda key: {c: (m(f"two-node-case{c}-ut", key), m(f"two-node-case{c}-ct-bdp", key)) for c in CASES}  # noqa: E731
        q, d, u, t = pair("mean_queue"), pair("ctd_mean_ms"), pair("utilization"), pair("timeout_retransmits")
        out += [
            {"statement": f"Fig. 4 with {label}: CT's mean queue far above UT's",
             "ccsim": ", ".join(f"case {c}: {q[c][1]:.3g} vs {q[c][0]:.3g} cells ({q[c][1] / max(q[c][0], 1e-9):.3g}x)" for c in CASES),
             "ok": all(q[c][1] > q[c][0] for c in CASES)},
            {"statement": f"Fig. 5 with {label}: CT's mean CTD far above UT's",
             "ccsim": ", ".join(f"case {c}: {d[c][1]:.3g} vs {d[c][0]:.3g} ms" for c in CASES),
             "ok": all(d[c][1] > d[c][0] for c in CASES)},
            {"statement": f"Timeouts with {label}: CT retransmits after timeouts at least as often as UT",
             "ccsim": ", ".join(f"case {c}: CT {t[c][1]:.4g}, UT {t[c][0]:.4g}" for c in CASES),
             "ok": all(t[c][1] >= t[c][0] for c in CASES)},
            {"statement": f"utilisation of switch 1's output with {label} (UT's target: 0.9)",
             "ccsim": ", ".join(f"case {c}: UT {u[c][0]:.2f}, CT {u[c][1]:.2f}" for c in CASES), "ok": None},
        ]
    return out


def _figures(res: dict[str, Any], out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files = []
    m = lambda preset, key: _stats(res[preset], key)  # noqa: E731
    panels = [("goodput_eq6", "goodput (Eq. 6)", "fig3a-goodput.png", ("ut", "ct-bdp"), False),
              ("fairness", "fairness index (Eq. 5)", "fig3b-fairness.png", ("ut", "ct-bdp"), False),
              ("mean_queue", "mean queue at switch 1 (cells)", "fig4-queue.png", ("ut", "ct-bdp"), True),
              ("ctd_mean_ms", "mean cell transfer delay (ms)", "fig5-ctd.png", ("ut", "ct-bdp"), True),
              ("ctd_mean_ms", "mean cell transfer delay (ms)", "fig6-ctd-timeout.png", ("ut", "ct-timeout"), True),
              ("utilization", "utilisation of switch 1's output", "ct-table3-utilization.png", ("ut", "ct-table3"), False)]
    for key, label, fname, kinds, log in panels:
        fig, ax = plt.subplots(figsize=(6, 4))
        w = 0.38
        for j, kind in enumerate(kinds):
            st = [m(f"two-node-case{c}-{kind}", key) for c in CASES]
            xs = [c + (j - 0.5) * w for c in CASES]
            ax.bar(xs, [s[0] for s in st], w, yerr=[[s[0] - s[1] for s in st], [s[2] - s[0] for s in st]], capsize=2,
                   label=kind.upper() if kind == "ut" else kind.replace("ct-", "CT, "))
        if log:
            ax.set_yscale("log")
        ax.set_xlabel("case (Table I)")
        ax.set_ylabel(label)
        ax.set_xticks(CASES)
        ax.legend(fontsize="small")
        ax.set_title(f"{label}, mean over seeds with range", fontsize=10)
        files.append(C.save_figure(fig, out / fname))
    for key, label, fname in (("utilization", "link utilisation", "fig7-maxmin-utilization.png"),
                              ("ctd_mean_ms", "mean cell transfer delay (ms)", "fig8-maxmin-ctd.png")):
        fig, ax = plt.subplots(figsize=(6, 4))
        if key == "utilization":
            labels = [f"c{c} L{k}" for c in MAXMIN for k in (1, 2, 3)]
            for j, kind in enumerate(("ut", "ct-bdp")):
                vals = [m(f"maxmin-case{c}-{kind}", f"utilization_L{k}")[0] for c in MAXMIN for k in (1, 2, 3)]
                ax.bar([i + (j - 0.5) * 0.38 for i in range(len(labels))], vals, 0.38, label=kind.upper() if kind == "ut" else "CT, BDP")
            ax.set_xticks(range(len(labels)), labels, fontsize=7)
        else:
            for j, kind in enumerate(("ut", "ct-bdp")):
                ax.bar([c + (j - 0.5) * 0.38 for c in MAXMIN], [m(f"maxmin-case{c}-{kind}", key)[0] for c in MAXMIN], 0.38,
                       label=kind.upper() if kind == "ut" else "CT, BDP")
            ax.set_xticks(MAXMIN)
            ax.set_yscale("log")
        ax.set_ylabel(label)
        ax.legend(fontsize="small")
        ax.set_title(f"max-min configuration: {label}", fontsize=10)
        files.append(C.save_figure(fig, out / fname))
    return files


def reproduce(out: str | Path | None = None, quick: bool = False, workers: int | None = None,
              progress: bool = True) -> dict[str, Any]:
    started = time.perf_counter()
    data = load_data()
    out, workers = C.prepare(out, PAPER, workers)
    res = run_all(data, quick, workers, progress)
    rows = compare(res, data)
    claims = statements(res, data)
    checks = sensitivity(res)
    figures = _figures(res, out / "figures")
    overflows = sum(r.get("credit_overflows", 0) for v in res.values() if isinstance(v, list) for r in v)
    (out / "compared.json").write_text(json.dumps({"numbers": rows, "statements": claims, "sensitivity": checks,
                                                   "credit_overflows": overflows, "timeout_sizing": {
        "policy_limit": res["limits"], "probes": res["probes"]}}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    mode = "quick" if quick else "full"
    intro = (f"{mode} run: {res['n_runs']} runs ({res['reps']} independent seeds per setting) in "
             f"{time.perf_counter() - started:.1f} s; ccsim's value is the mean over the seeds with the smallest and "
             "largest. docs/reproductions/ut-ct.md explains the reconstruction and the differences.")
    cols = [("table", "table"), ("setting", "setting"), ("quantity", "quantity"), ("paper", "paper"), ("ccsim", "ccsim (mean)"),
            ("min", "min"), ("max", "max"), ("note", "note")]
    page = C.report_page(TITLE, intro, [("The seed's findings", C.html_table(claims, [("statement", "the seed says"), ("ccsim", "ccsim"), ("ok", "holds")])),
                                        ("Other readings: the burst minimum in bits, blocking adapters (not counted)",
                                         C.html_table(checks, [("statement", "statement"), ("ccsim", "ccsim"), ("ok", "holds")])),
                                        ("Numbers", C.html_table(rows, cols))], figures)
    (out / "index.html").write_text(page, encoding="utf-8")
    return C.summary(PAPER, out, mode, rows + claims, res["n_runs"], started, claims, "of the seed's findings holding")


__all__ = ["reproduce", "load_data", "compare", "statements", "measure", "water_fill", "PAPER", "TITLE"]
