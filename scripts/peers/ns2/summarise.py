#!/usr/bin/env python3
"""Summarise ns-2 runs of droptail.tcl.

  summarise.py table RUN.json ...          markdown tables, one per run
  summarise.py group RUN.json ... [--label FMT]   flows x runs matrices + per-run summary
  summarise.py redtable REDSTATS.json ...          one row per output of the red command
  summarise.py trace TRACE [--from 50] [--to 200] [--json RUN.json]
        parse an ns-2 trace-all file: per-flow goodput (in-order at the sink),
        drops per queue, retransmissions (sender re-sends), max queue occupancy
        per link; with --json, compare with droptail.tcl's own counters
  summarise.py red BTRACE [--qlim 200] [--maxthresh 15] [--from 50] [--to 200] [--json RUN.json]
        RED bottleneck (BTRACE from droptail.tcl aqm=red btrace=F avetrace=F, same F):
        classify each R11->R12 drop as forced (waiting queue >= qlim at arrival) or
        early/unforced, the RED average queue at each drop, and the mean of ave_
        (time-average and per-arrival average) over the window.

Node ids in the traces: S0..S9 = 0..9, R10..R13 = 10..13, D0..D9 = 14..23.
"""
import argparse
import bisect
import json
import statistics
import sys
from collections import defaultdict

N = 10
PAYLOAD = 4096


def name(n):
    n = int(n)
    if n < 10:
        return f"S{n}"
    if n < 14:
        return f"R{n}"
    return f"D{n - 14}"


def jain(x):
    s = sum(x)
    q = sum(v * v for v in x)
    return s * s / (len(x) * q) if q else 0.0


def median(x):
    return statistics.median(x)


# ------------------------------------------------------------------ tables
def cmd_table(args):
    runs = [json.load(open(f)) for f in args.files]
    for r in runs:
        hdr = (f"seed {r['seed']}, {r['variant']}, aqm {r['aqm']}, limits {r['qlim_bottleneck']}/{r['qlim_other']}, "
               f"starts {r['starts']}")
        print(f"\n#### {hdr}\n")
        red = r["aqm"] == "red"
        cols = ["flow", "goodput Mb/s", "drops", "timeouts", "rexmit pkts"]
        if red:
            cols[3:3] = ["early drops"]
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
        for f in r["flows"]:
            row = [f["flow"], f"{f['goodput_mbps']:.3f}", str(f["drops_window"])]
            if red:
                row.append(str(f["early_drops_window"]))
            row += [str(f["timeouts_window"]), str(f["rexmit_pkts_window"])]
            print("| " + " | ".join(row) + " |")
        tot_d = sum(f["drops_window"] for f in r["flows"])
        tot_t = sum(f["timeouts_window"] for f in r["flows"])
        tot_x = sum(f["rexmit_pkts_window"] for f in r["flows"])
        row = ["total", f"{r['total_goodput_mbps']:.3f}", str(tot_d)]
        if red:
            row.append(str(sum(f["early_drops_window"] for f in r["flows"])))
        row += [str(tot_t), str(tot_x)]
        print("| " + " | ".join(row) + " |")
        print(f"\nJain {r['jain']:.4f}; total {r['total_goodput_mbps']:.3f} Mb/s; "
              f"S0/median {r['s0_over_median']:.3f}; mean waiting queue R11->R12 "
              f"{r['bottleneck_mean_waiting_pkts']:.1f} pkts")
        other = defaultdict(int)
        for f in r["flows"]:
            for q, n in f["drops_by_queue_window"].items():
                other[q] += n
        print(f"drops by queue (window): {dict(other)}")


# ------------------------------------------------------------------ trace
def parse_trace(path, t0, t1):
    occ = defaultdict(int)          # (from,to) -> waiting packets
    maxocc = defaultdict(int)
    pending = {}
    drops_w = defaultdict(lambda: defaultdict(int))   # flow -> queue -> n
    drops_t = defaultdict(lambda: defaultdict(int))
    maxsent = [-1] * N
    rexmit_w = [0] * N
    rexmit_t = [0] * N
    sent_t = [0] * N
    # sink in-order delivery
    nexp = [0] * N
    ooo = [set() for _ in range(N)]
    inorder_w = [0] * N
    sizes = defaultdict(int)
    with open(path) as fh:
        for line in fh:
            p = line.split()
            ev = p[0]
            t = float(p[1])
            a = int(p[2]); b = int(p[3])
            typ = p[4]
            fid = int(p[7])
            seq = int(p[10])
            key = (a, b)
            inwin = t0 <= t < t1
            # a packet traced '+' whose next event on this link is its own 'd' (dropped
            # on arrival) or its own '-' (sent straight to an idle link) never waited
            pu = pending.pop(key, None)
            if pu is not None and not (ev in ("d", "-") and p[11] == pu):
                if occ[key] > maxocc[key]:
                    maxocc[key] = occ[key]
            if ev == "+":
                occ[key] += 1
                pending[key] = p[11]
                if typ == "tcp" and a < 10 and b == 10:
                    sizes[int(p[5])] += 1
                    sent_t[fid] += 1
                    if seq <= maxsent[fid]:
                        rexmit_t[fid] += 1
                        if inwin:
                            rexmit_w[fid] += 1
                    else:
                        maxsent[fid] = seq
            elif ev == "-":
                occ[key] -= 1
            elif ev == "d":
                occ[key] -= 1
                q = f"{name(a)}-{name(b)}"
                drops_t[fid][q] += 1
                if inwin:
                    drops_w[fid][q] += 1
            elif ev == "r":
                if typ == "tcp" and a == 13 and b >= 14:
                    i = b - 14
                    if seq == nexp[i]:
                        n = 1
                        nexp[i] += 1
                        while nexp[i] in ooo[i]:
                            ooo[i].discard(nexp[i])
                            nexp[i] += 1
                            n += 1
                        if inwin:
                            inorder_w[i] += n
                    elif seq > nexp[i]:
                        ooo[i].add(seq)
    gp = [inorder_w[i] * PAYLOAD * 8 / (t1 - t0) / 1e6 for i in range(N)]
    return {
        "window": [t0, t1],
        "goodput_mbps": gp,
        "total_goodput_mbps": sum(gp),
        "jain": jain(gp),
        "s0_over_median": gp[0] / median(gp) if median(gp) else 0,
        "inorder_pkts_window": inorder_w,
        "drops_window": {f"S{i}": dict(drops_w[i]) for i in range(N)},
        "drops_total": {f"S{i}": dict(drops_t[i]) for i in range(N)},
        "rexmit_window": rexmit_w,
        "rexmit_total": rexmit_t,
        "data_pkts_sent_total": sent_t,
        "data_pkt_sizes_at_sender": dict(sizes),
        # largest number of packets waiting (not counting the one in transmission)
        "max_waiting_by_link": {f"{name(a)}-{name(b)}": v for (a, b), v in sorted(maxocc.items()) if v > 0},
    }


def cmd_trace(args):
    res = parse_trace(args.trace, args.t0, args.t1)
    out = {"trace": args.trace, **res}
    if args.json:
        r = json.load(open(args.json))
        cmp = []
        for i, f in enumerate(r["flows"]):
            cmp.append({
                "flow": f["flow"],
                "goodput_tcl": f["goodput_mbps"], "goodput_trace": res["goodput_mbps"][i],
                "drops_tcl": f["drops_window"], "drops_trace": sum(res["drops_window"][f"S{i}"].values()),
                "rexmit_tcl": f["rexmit_pkts_window"], "rexmit_trace": res["rexmit_window"][i],
                "rexmit_total_tcl": f["rexmit_pkts_total"], "rexmit_total_trace": res["rexmit_total"][i],
                "sent_total_tcl": f["data_pkts_sent_total"], "sent_total_trace": res["data_pkts_sent_total"][i],
            })
        out["compare_with_tcl"] = cmp
    print(json.dumps(out, indent=1))


# ------------------------------------------------------------------ red
def cmd_red(args):
    """One file holding the R11->R12 link's + - d r lines and the RED queue's
    "a <t> <ave>" lines in event order (droptail.tcl btrace=F avetrace=F).
    Per arrival ('+' on 11->12): the 'a' line that follows it (if any, before the
    next '+') is the average computed for that arrival; a 'd' of the same uid that
    follows it is the drop decision for that arrival.  Drop classification:
    forced iff the waiting queue seen by the arrival >= qlim (RED's hard limit test
    `qlen >= qlim`), otherwise early (unforced)."""
    t0, t1 = args.t0, args.t1
    ave = 0.0                 # current RED average
    last_t = None             # time of the last ave change (the arrival's time)
    integ = 0.0
    arr_w = 0
    arr_sum = 0.0
    occ = 0
    maxocc = 0
    pend = None
    qlen_at_arrival = {}
    ave_at_arrival = {}
    cur_uid = None
    cur_t = 0.0
    forced_w = early_w = forced_t = early_t = 0
    early_ge_max_w = early_ge_max_t = 0
    ave_early = []
    per_flow = defaultdict(lambda: {"forced": 0, "early": 0, "early_ave_ge_max": 0})
    ave_tl = []               # (time, ave) after each arrival, for the time-average

    def close_arrival():
        nonlocal arr_w, arr_sum
        if cur_uid is None:
            return
        ave_at_arrival[cur_uid] = ave
        ave_tl.append((cur_t, ave))
        if t0 <= cur_t < t1:
            arr_w += 1
            arr_sum += ave

    with open(args.trace) as fh:
        for line in fh:
            p = line.split()
            ev = p[0]
            if ev == "a":
                ave = float(p[2])
                continue
            if (p[2], p[3]) != ("11", "12"):
                continue
            t = float(p[1])
            uid = p[11]
            if pend is not None and not (ev in ("d", "-") and uid == pend):
                maxocc = max(maxocc, occ)
            pend = None
            if ev == "+":
                close_arrival()
                cur_uid, cur_t = uid, t
                qlen_at_arrival[uid] = occ
                occ += 1
                pend = uid
            elif ev == "-":
                occ -= 1
                qlen_at_arrival.pop(uid, None)
            elif ev == "d":
                if uid == cur_uid:
                    close_arrival()
                    cur_uid = None
                occ -= 1
                q = qlen_at_arrival.pop(uid)
                a = ave_at_arrival.get(uid, ave)
                forced = q >= args.qlim
                inwin = t0 <= t < t1
                fid = int(p[7])
                if forced:
                    forced_t += 1
                    if inwin:
                        forced_w += 1
                        per_flow[fid]["forced"] += 1
                else:
                    early_t += 1
                    if a >= args.maxthresh:
                        early_ge_max_t += 1
                    if inwin:
                        early_w += 1
                        per_flow[fid]["early"] += 1
                        ave_early.append(a)
                        if a >= args.maxthresh:
                            early_ge_max_w += 1
                            per_flow[fid]["early_ave_ge_max"] += 1
    close_arrival()
    # time-average of ave over [t0,t1): piecewise constant between arrivals
    cur = 0.0
    last = t0
    for t, v in ave_tl:
        if t < t0:
            cur = v
            continue
        if t >= t1:
            break
        integ += cur * (t - last)
        last, cur = t, v
    integ += cur * (t1 - last)
    out = {
        "trace": args.trace, "window": [t0, t1], "qlim": args.qlim, "maxthresh": args.maxthresh,
        "ave_time_mean": integ / (t1 - t0),
        "ave_arrival_mean": arr_sum / arr_w if arr_w else None,
        "arrivals_in_window": arr_w,
        "early_drops_window": early_w, "forced_drops_window": forced_w,
        "early_drops_total": early_t, "forced_drops_total": forced_t,
        "early_drops_with_ave_ge_maxthresh_window": early_ge_max_w,
        "early_drops_with_ave_ge_maxthresh_total": early_ge_max_t,
        "ave_at_early_drop_mean_window": (sum(ave_early) / len(ave_early)) if ave_early else None,
        "max_waiting": maxocc,
        "per_flow_window": {f"S{k}": per_flow[k] for k in range(N)},
    }
    if args.json:
        r = json.load(open(args.json))
        out["tcl_early_drops_window"] = sum(f["early_drops_window"] for f in r["flows"])
        out["tcl_drops_R11R12_window"] = sum(f["drops_by_queue_window"].get("R11-R12", 0) for f in r["flows"])
        out["tcl_early_drops_total"] = sum(f["early_drops_total"] for f in r["flows"])
        out["tcl_drops_R11R12_total"] = sum(f["drops_by_queue_total"].get("R11-R12", 0) for f in r["flows"])
    print(json.dumps(out, indent=1))



# ------------------------------------------------------------------ group
def cmd_group(args):
    """Flows x runs matrices (window 50-200 s) for goodput, drops, timeouts,
    retransmitted packets (and early drops for RED), plus a per-run summary."""
    runs = [json.load(open(f)) for f in args.files]
    labels = [args.label.format(**r) if args.label else str(r["seed"]) for r in runs]
    red = any(r["aqm"] == "red" for r in runs)
    metrics = [("goodput_mbps", "goodput (Mb/s)", "{:.3f}"), ("drops_window", "drops (all queues)", "{}"),
               ("timeouts_window", "timeouts (nrexmit_)", "{}"), ("rexmit_pkts_window", "retransmitted pkts (nrexmitpack_)", "{}")]
    if red:
        metrics.insert(2, ("early_drops_window", "early (unforced) drops at R11->R12", "{}"))
    for key, title, fmt in metrics:
        print(f"\n{title}, 50-200 s\n")
        print("| flow | " + " | ".join(labels) + " | mean |")
        print("|---|" + "---|" * (len(runs) + 1))
        for i in range(N):
            vals = [r["flows"][i][key] for r in runs]
            print(f"| S{i} | " + " | ".join(fmt.format(v) for v in vals) + f" | {sum(vals)/len(vals):.3f} |")
        tots = [sum(r["flows"][i][key] for i in range(N)) for r in runs]
        print("| total | " + " | ".join(fmt.format(v) for v in tots) + f" | {sum(tots)/len(tots):.3f} |")
    print("\nper run\n")
    cols = ["run", "total goodput Mb/s", "Jain", "S0/median", "median Mb/s", "drops", "timeouts",
            "rexmit pkts", "mean waiting pkts R11->R12", "queues with drops"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    agg = defaultdict(list)
    for lab, r in zip(labels, runs):
        qs = sorted({q for f in r["flows"] for q in f["drops_by_queue_total"]})
        d = sum(f["drops_window"] for f in r["flows"])
        t = sum(f["timeouts_window"] for f in r["flows"])
        x = sum(f["rexmit_pkts_window"] for f in r["flows"])
        row = [lab, f"{r['total_goodput_mbps']:.3f}", f"{r['jain']:.4f}", f"{r['s0_over_median']:.3f}",
               f"{r['median_goodput_mbps']:.3f}", str(d), str(t), str(x),
               f"{r['bottleneck_mean_waiting_pkts']:.1f}", ",".join(qs)]
        for k, v in (("g", r["total_goodput_mbps"]), ("j", r["jain"]), ("s", r["s0_over_median"]),
                     ("m", r["median_goodput_mbps"]), ("d", d), ("t", t), ("x", x),
                     ("q", r["bottleneck_mean_waiting_pkts"])):
            agg[k].append(v)
        print("| " + " | ".join(row) + " |")
    mean = lambda k: sum(agg[k]) / len(agg[k])
    print(f"| mean | {mean('g'):.3f} | {mean('j'):.4f} | {mean('s'):.3f} | {mean('m'):.3f} | {mean('d'):.1f} | "
          f"{mean('t'):.1f} | {mean('x'):.1f} | {mean('q'):.1f} | |")
    if all("rto_base_hist" in r for r in runs):
        print("\nbase RTO (no backoff) seen by 10 ms samples of all flows, 50-200 s (fraction of samples)\n")
        keys = sorted({k for r in runs for k in r["rto_base_hist"]}, key=float)
        print("| run | " + " | ".join(f"{k} s" for k in keys) + " | backoff>1 |")
        print("|---|" + "---|" * (len(keys) + 1))
        for lab, r in zip(labels, runs):
            bo = sum(v for k, v in r["backoff_hist"].items() if int(k) > 1)
            print(f"| {lab} | " + " | ".join(f"{r['rto_base_hist'].get(k, 0):.3f}" for k in keys) + f" | {bo:.3f} |")


# ------------------------------------------------------------------ redtable
def cmd_redtable(args):
    """One row per redstats JSON (output of the red command)."""
    print("| run | early drops 50-200 s | forced drops 50-200 s | early / forced 0-200 s | early drops with ave_ >= maxthresh (50-200 / 0-200) | mean ave_ at early drops | time-mean ave_ 50-200 s | arrival-mean ave_ | arrivals 50-200 s | max waiting | flowmon epdrops / pdrops 50-200 s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for f in args.files:
        d = json.load(open(f))
        print(f"| {f.split('/')[-1].split('.')[0]} | {d['early_drops_window']} | {d['forced_drops_window']} | "
              f"{d['early_drops_total']} / {d['forced_drops_total']} | "
              f"{d['early_drops_with_ave_ge_maxthresh_window']} / {d['early_drops_with_ave_ge_maxthresh_total']} | "
              f"{d['ave_at_early_drop_mean_window']:.3f} | {d['ave_time_mean']:.3f} | {d['ave_arrival_mean']:.3f} | "
              f"{d['arrivals_in_window']} | {d['max_waiting']} | {d['tcl_early_drops_window']} / {d['tcl_drops_R11R12_window']} |")


def main():
    ap = argparse.ArgumentParser()
    sp = ap.add_subparsers(dest="cmd", required=True)
    a = sp.add_parser("table"); a.add_argument("files", nargs="+"); a.set_defaults(fn=cmd_table)
    a = sp.add_parser("group"); a.add_argument("files", nargs="+"); a.add_argument("--label")
    a.set_defaults(fn=cmd_group)
    a = sp.add_parser("redtable"); a.add_argument("files", nargs="+"); a.set_defaults(fn=cmd_redtable)
    a = sp.add_parser("trace"); a.add_argument("trace")
    a.add_argument("--from", dest="t0", type=float, default=50.0)
    a.add_argument("--to", dest="t1", type=float, default=200.0)
    a.add_argument("--json"); a.set_defaults(fn=cmd_trace)
    a = sp.add_parser("red"); a.add_argument("trace")
    a.add_argument("--qlim", type=int, default=200)
    a.add_argument("--maxthresh", type=float, default=15.0)
    a.add_argument("--from", dest="t0", type=float, default=50.0)
    a.add_argument("--to", dest="t1", type=float, default=200.0)
    a.add_argument("--json"); a.set_defaults(fn=cmd_red)
    args = ap.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
