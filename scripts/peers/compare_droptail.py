#!/usr/bin/env python3
"""ccsim against ns-2.35 on the `ficcrd/droptail` topology (docs/validation/ns2.md): per flow and in
total, seeds 1-5, from ns-2 runs written by `scripts/peers/ns2/run_all.sh` and ccsim runs made here.

    python scripts/peers/compare_droptail.py [NS2_RUNS_DIR] [--aqm droptail|red]
                                                            (default /tmp/ns2-runs/runs, droptail)

--aqm droptail: pairs ccsim Reno / NewReno / Reno with overhead 3.3 ms against ns-2's `a_reno`,
`a_newreno` and `x_reno_ovh` runs. Goodput, Jain's index and S0 over the median flow are over
50-200 s in both; drops, timeouts and retransmitted packets over the whole run.

--aqm red: RED at R11->R12 with ns-2's parameters (RED below) against ns-2's `c_red` runs (and
`x_red_sd0`, Limited Transmit off). Everything is over 50-200 s: ccsim's whole-run counters minus
those of the same run stopped at 50 s (the first 50 s are identical). ccsim does not report RED's
average queue; it is estimated by running RED's average over the arrivals read from a 0.1 ms queue
series (on ns-2's traces the same estimate reads 0.04-0.06 packets high).
"""
import argparse
import json
import statistics
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

import ccsim

PRESET = "ficcrd/droptail"
SEEDS = [1, 2, 3, 4, 5]
BOTTLENECK = "R11->R12"
PAIRS = [("Reno", {}, "a_reno_s{}.json"),
         ("NewReno", {"defaults.tcp.variant": "newreno"}, "a_newreno_s{}.json"),
         ("Reno, overhead 3.3 ms", {"defaults.tcp.overhead": "3.3ms"}, "x_reno_ovh_s{}.json")]

# ns-2's Queue/RED at R11->R12 (scripts/peers/ns2/droptail.tcl aqm=red): thresh_ 5, maxthresh_ 15,
# q_weight_ 0.002, linterm_ 10, gentle_ false, wait_ true, mean_pktsize_ 4136, queue in packets,
# limit_ 200, and ns-2.35's `old` rule and forced drops resetting the count (ns1_compat_ false).
RED = {"type": "red", "min_th": 5, "max_th": 15, "w_q": 0.002, "max_p": 0.1, "gentle": False,
       "mean_packet_size": "4136B", "wait": True, "spare_first": True, "overflow_resets_count": True}
# router[1] is R11: RED runs on both its ports; R11->R10 carries only ACKs and never holds more than one.
RED_SET = {"router[1].queue": RED}
RED_CCSIM = [("preset TCP, RTO floor 0.3 s", {}),
             ("rto_min 0.6 s", {"defaults.tcp.rto_min": "600ms"}),
             ("rto_min 0.9 s", {"defaults.tcp.rto_min": "900ms"})]
RED_NS2 = [("Limited Transmit on (default)", "c_red_s{}.json"),
           ("singledup_ 0 (Limited Transmit off)", "x_red_sd0_s{}.json")]
FINE_QUEUE = {"measure.interval": "0.1ms", "measure.tcp": False, "measure.utilization": False,
              "measure.max_series_mb": 4000}


def port(d, name=BOTTLENECK):
    return next(p for p in d["ports"] if p["name"] == name)


def waiting(d, name=BOTTLENECK):
    """Mean packets waiting: ccsim's queue counts the packet being sent, ns-2's does not."""
    a, b = name.split("->")
    util = next(x["utilization"] for x in d["links"] if (x["from"], x["to"]) == (a, b))
    return port(d, name)["mean_queue_cells"] - util


def ccsim_run(args):
    seed, overrides = args
    d = ccsim.run(PRESET, seed=seed, set=overrides).data
    return {"goodput": [c["goodput_mbps"] for c in d["connections"]],
            "drops": sum(c["drops"] for c in d["connections"]),
            "timeouts": sum(c["timeouts"] for c in d["connections"]),
            "rexmits": sum(c["retransmits"] for c in d["connections"]),
            "queue_waiting": waiting(d)}


def ns2_run(path):
    d = json.loads(Path(path).read_text())
    f = d["flows"]
    return {"goodput": [x["goodput_mbps"] for x in f],
            "drops": sum(x["drops_total"] for x in f),
            "timeouts": sum(x["timeouts_total"] for x in f),
            "rexmits": sum(x["rexmit_pkts_total"] for x in f),
            "queue_waiting": d["bottleneck_mean_waiting_pkts"]}


def red_average(t, q, w_q, t0, t1):
    """Time-mean over [t0, t1) of RED's average queue, run over the arrivals seen in a queue series
    `q` (packets, the one being sent included) sampled at times `t`: a rise between two samples is
    that many arrivals, each seeing the earlier sample less the packet on the wire. Misses the
    arrivals RED dropped and those in a sample interval with a departure."""
    d = np.diff(q)
    i = np.nonzero(d > 0)[0]
    n = d[i].astype(int)
    seen = np.repeat(np.maximum(q[i] - 1, 0), n)
    at = np.repeat(t[i + 1], n)
    avg = np.empty(len(seen))
    a = 0.0
    for k, s in enumerate(seen):
        a += w_q * (s - a)
        avg[k] = a
    m = (at >= t0) & (at < t1)
    edges = np.concatenate([[t0], at[m], [t1]])
    vals = np.concatenate([[avg[np.searchsorted(at, t0) - 1]], avg[m]])
    return float(np.sum(vals * np.diff(edges)) / (t1 - t0))


def ccsim_red_run(args):
    """ccsim with RED at R11->R12, every figure over the window (50-200 s)."""
    seed, overrides = args
    over = {**RED_SET, **overrides}
    r = ccsim.run(PRESET, seed=seed, set={**over, **FINE_QUEUE})
    d = r.data
    t0, t1 = d["window_s"]
    s = d["series"]["queue"]
    m = np.asarray(s["port"]) == BOTTLENECK
    avg = red_average(np.asarray(s["time_s"])[m], np.asarray(s["queue_cells"])[m], RED["w_q"], t0, t1)
    del s, m
    # The same run stopped where the window opens: its totals are the counters at t0.
    e = ccsim.run(PRESET, seed=seed, set={**over, "run.duration": f"{t0}s", "run.measure_from": "0s",
                                          "measure.interval": "0s"}).data
    P, P0 = port(d), port(e)
    conn = lambda x, k: sum(c[k] for c in x["connections"])
    return {"goodput": [c["goodput_mbps"] for c in d["connections"]],
            "early": P["early_drops"] - P0["early_drops"],
            "forced": (P["drops"] - P["early_drops"]) - (P0["drops"] - P0["early_drops"]),
            "timeouts": conn(d, "timeouts") - conn(e, "timeouts"),
            "rexmits": conn(d, "retransmits") - conn(e, "retransmits"),
            "red_avg": avg,
            "queue_waiting": waiting(d),
            "other_port_drops": sum(p["drops"] for p in d["ports"] if p["name"] != BOTTLENECK)}


def ns2_red_run(path):
    """An ns-2 RED run over its window; RED's time-mean average from `summarise.py red`, if run."""
    path = Path(path)
    d = json.loads(path.read_text())
    f = d["flows"]
    stats = path.with_name(path.name.replace(".json", ".redstats.json"))
    early = sum(x["early_drops_window"] for x in f)
    return {"goodput": [x["goodput_mbps"] for x in f],
            "early": early,
            "forced": sum(x["drops_by_queue_window"].get("R11-R12", 0) for x in f) - early,
            "timeouts": sum(x["timeouts_window"] for x in f),
            "rexmits": sum(x["rexmit_pkts_window"] for x in f),
            "red_avg": json.loads(stats.read_text())["ave_time_mean"] if stats.exists() else None,
            "queue_waiting": d["bottleneck_mean_waiting_pkts"],
            "other_port_drops": sum(x["drops_window"] for x in f) - sum(x["drops_by_queue_window"].get("R11-R12", 0) for x in f)}


def totals(r, keys=("drops", "timeouts", "rexmits", "queue_waiting")):
    g = r["goodput"]
    return {"total": sum(g), "jain": sum(g) ** 2 / (len(g) * sum(x * x for x in g)),
            "s0_med": g[0] / statistics.median(g), **{k: r[k] for k in keys}}


def span(vals, fmt):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    lo, hi = fmt.format(min(vals)), fmt.format(max(vals))
    return lo if lo == hi else f"{lo}-{hi}"


def droptail(ns2_dir):
    jobs = [(s, o) for _, o, _ in PAIRS for s in SEEDS]
    with ProcessPoolExecutor(2) as ex:
        runs = list(ex.map(ccsim_run, jobs))
    print("| TCP | simulator | total goodput (Mb/s) | Jain | S0 / median | drops | timeouts | retransmitted | mean waiting queue |")
    print("|---|---|---|---|---|---|---|---|---|")
    flows = {}
    for k, (label, _, pattern) in enumerate(PAIRS):
        mine = runs[k * len(SEEDS):(k + 1) * len(SEEDS)]
        theirs = [ns2_run(ns2_dir / pattern.format(s)) for s in SEEDS]
        for sim, rs in (("ccsim", mine), ("ns-2.35", theirs)):
            t = [totals(r) for r in rs]
            col = lambda key, fmt: span([x[key] for x in t], fmt)
            print(f"| {label} | {sim} | {col('total', '{:.2f}')} | {col('jain', '{:.3f}')} | {col('s0_med', '{:.2f}')} | "
                  f"{col('drops', '{:.0f}')} | {col('timeouts', '{:.0f}')} | {col('rexmits', '{:.0f}')} | {col('queue_waiting', '{:.0f}')} |")
            flows[(label, sim)] = [statistics.mean(r["goodput"][i] for r in rs) for i in range(10)]
    print()
    print("Mean goodput per flow over seeds 1-5 (Mb/s, 50-200 s):")
    print()
    print("| TCP | simulator | " + " | ".join(f"S{i}" for i in range(10)) + " |")
    print("|---|---|" + "---|" * 10)
    for (label, sim), g in flows.items():
        print(f"| {label} | {sim} | " + " | ".join(f"{x:.2f}" for x in g) + " |")


RED_KEYS = ("early", "forced", "timeouts", "rexmits", "red_avg", "queue_waiting")
RED_COLS = [("total", "{:.3f}"), ("jain", "{:.4f}"), ("s0_med", "{:.2f}"), ("early", "{:.0f}"), ("forced", "{:.0f}"),
            ("timeouts", "{:.0f}"), ("rexmits", "{:.0f}"), ("red_avg", "{:.2f}"), ("queue_waiting", "{:.2f}")]
RED_HEAD = ("total goodput (Mb/s) | Jain | S0 / median | early drops | forced drops | timeouts | retransmitted | "
            "mean RED average | mean waiting queue |")


def red(ns2_dir):
    jobs = [(s, o) for _, o in RED_CCSIM for s in SEEDS]
    with ProcessPoolExecutor(2) as ex:
        runs = list(ex.map(ccsim_red_run, jobs))
    mine = {label: runs[k * len(SEEDS):(k + 1) * len(SEEDS)] for k, (label, _) in enumerate(RED_CCSIM)}
    theirs = {label: [ns2_red_run(ns2_dir / p.format(s)) for s in SEEDS]
              for label, p in RED_NS2 if all((ns2_dir / p.format(s)).exists() for s in SEEDS)}
    fmt = lambda v, f: "-" if v is None else f.format(v)
    a, b = RED_CCSIM[0][0], RED_NS2[0][0]
    print(f"Per seed, 50-200 s (ccsim: {a}; ns-2.35: {b}; ccsim's RED average estimated, see the script):")
    print()
    print("| seed | simulator | " + RED_HEAD)
    print("|---|---|" + "---|" * len(RED_COLS))
    for i, s in enumerate(SEEDS):
        for sim, r in (("ccsim", mine[a][i]), ("ns-2.35", theirs[b][i])):
            t = totals(r, RED_KEYS)
            print(f"| {s} | {sim} | " + " | ".join(fmt(t[k], f) for k, f in RED_COLS) + " |")
    print()
    print("Goodput per flow, seed 1 (Mb/s, 50-200 s):")
    print()
    print("| simulator | " + " | ".join(f"S{i}" for i in range(10)) + " |")
    print("|---|" + "---|" * 10)
    for sim, r in (("ccsim", mine[a][0]), ("ns-2.35", theirs[b][0])):
        print(f"| {sim} | " + " | ".join(f"{x:.3f}" for x in r["goodput"]) + " |")
    print()
    print("Ranges over seeds 1-5, 50-200 s:")
    print()
    print("| simulator | TCP | " + RED_HEAD)
    print("|---|---|" + "---|" * len(RED_COLS))
    rows = [("ccsim", k, v) for k, v in mine.items()] + [("ns-2.35", k, v) for k, v in theirs.items()]
    for sim, label, rs in rows:
        t = [totals(r, RED_KEYS) for r in rs]
        print(f"| {sim} | {label} | " + " | ".join(span([x[k] for x in t], f) for k, f in RED_COLS) + " |")
    other = [r["other_port_drops"] for _, _, rs in rows for r in rs]
    print()
    print(f"Drops at any other port, all runs: {sum(other)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ns2_dir", nargs="?", default="/tmp/ns2-runs/runs", type=Path)
    ap.add_argument("--aqm", choices=("droptail", "red"), default="droptail")
    args = ap.parse_args()
    (red if args.aqm == "red" else droptail)(args.ns2_dir)


if __name__ == "__main__":
    main()
