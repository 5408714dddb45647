#!/usr/bin/env python3
"""ccsim against ns-2.35 on the `ficcrd/droptail` topology (docs/validation/ns2.md): per flow and in
total, seeds 1-5, from ns-2 runs written by `scripts/peers/ns2/run_all.sh` and ccsim runs made here.

    python scripts/peers/compare_droptail.py [NS2_RUNS_DIR]      (default /tmp/ns2-runs/runs)

Pairs: ccsim Reno / NewReno / Reno with overhead 3.3 ms against ns-2's `a_reno`, `a_newreno` and
`x_reno_ovh` runs. Goodput, Jain's index and S0 over the median flow are over 50-200 s in both;
drops, timeouts and retransmitted packets over the whole run (ccsim's counters are whole-run).
"""
import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import ccsim

SEEDS = [1, 2, 3, 4, 5]
PAIRS = [("Reno", {}, "a_reno_s{}.json"),
         ("NewReno", {"defaults.tcp.variant": "newreno"}, "a_newreno_s{}.json"),
         ("Reno, overhead 3.3 ms", {"defaults.tcp.overhead": "3.3ms"}, "x_reno_ovh_s{}.json")]


def ccsim_run(args):
    seed, overrides = args
    d = ccsim.run("ficcrd/droptail", seed=seed, set=overrides).data
    q = next(p for p in d["ports"] if p["name"] == "R11->R12")
    return {"goodput": [c["goodput_mbps"] for c in d["connections"]],
            "drops": sum(c["drops"] for c in d["connections"]),
            "timeouts": sum(c["timeouts"] for c in d["connections"]),
            "rexmits": sum(c["retransmits"] for c in d["connections"]),
            # ccsim counts the packet being sent; ns-2's waiting queue does not.
            "queue_waiting": q["mean_queue_cells"] - 1.0}


def ns2_run(path):
    d = json.loads(Path(path).read_text())
    f = d["flows"]
    return {"goodput": [x["goodput_mbps"] for x in f],
            "drops": sum(x["drops_total"] for x in f),
            "timeouts": sum(x["timeouts_total"] for x in f),
            "rexmits": sum(x["rexmit_pkts_total"] for x in f),
            "queue_waiting": d["bottleneck_mean_waiting_pkts"]}


def totals(r):
    g = r["goodput"]
    return {"total": sum(g), "jain": sum(g) ** 2 / (len(g) * sum(x * x for x in g)),
            "s0_med": g[0] / statistics.median(g), **{k: r[k] for k in ("drops", "timeouts", "rexmits", "queue_waiting")}}


def span(vals, fmt):
    return f"{fmt.format(min(vals))}-{fmt.format(max(vals))}"


def main():
    ns2_dir = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/ns2-runs/runs")
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


if __name__ == "__main__":
    main()
