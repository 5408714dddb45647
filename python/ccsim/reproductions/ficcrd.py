"""Seed 002 (FICCRD) on its peer-to-peer configuration: FICCRD against drop-tail routers.

Seed 002 prints no simulated number: its results are Figs. 3-6 and the sentences of its §3.2 about
them. This reproduction runs drop-tail (`ficcrd/droptail`) and FICCRD with each edge scheme the seed
names (`ficcrd/ficcrd`: FIABC, `ficcrd/ficcrd-fiewa`: FIEWA) over several seeds, at the bottleneck
rate the seed's topology text states (10 Mb/s) and at the one its goodput normalisation implies
(1.5 Mb/s: the presets ``ficcrd/*-1.5mbps``), FICCRD with its control reading the data queue (the
seed's "data queue length") and every packet (RD packets included; [RECON] ``readings`` in
``data/ficcrd.toml``), and judges each of the seed's statements under the one verdict model
(verdicts.py): a statement row per claim, decided by the criterion its row spells out, on the stated
readings. A claim about FICCRD is decided on both edge schemes; the seed does not say which its runs
used, so where the two disagree the row is not comparable and shows both. The seed's settings are
listed apart as inputs, its 0.15 Mb/s fair share as its own arithmetic. The statements, their quotes
and the criteria's parameters live in ``data/ficcrd.toml``; the sensitivity to the RD settings
(``n_rd``, ``rd_interval``) is ``ficcrd_sensitivity.py``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _common as C
from . import ficcrd_sensitivity as S
from . import verdicts as V

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

PAPER = "ficcrd"
TITLE = "Seed 002: FICCRD against drop-tail routers"
PRESETS = ("ficcrd/droptail", "ficcrd/ficcrd-fiewa", "ficcrd/ficcrd")
BASELINE = "ficcrd/droptail"
#: What a statement's `about = "ficcrd"` is decided on: both edge schemes.
FICCRD_PRESETS = ("ficcrd/ficcrd-fiewa", "ficcrd/ficcrd")
#: How figures, notes and tables name each preset.
LABELS = {"ficcrd/droptail": "drop-tail", "ficcrd/ficcrd-fiewa": "FIEWA", "ficcrd/ficcrd": "FIABC"}
#: The core routers whose control reads the queue (`router[i].control.queue`).
CONTROLLED = ("router[1]", "router[2]")
BOTTLENECK = "R11->R12"
DATA_FILE = Path(__file__).parent / "data" / "ficcrd.toml"
# Quick runs: 20 s simulated, measured over 10-20 s.
QUICK_SET = {"run.duration": "20s", "run.measure_from": "10s"}


@dataclass(frozen=True)
class Task:
    preset: str
    seed: int
    quick: bool
    #: The bottleneck rate this run uses (``readings.primary`` or ``readings.other``).
    reading: str
    link: str
    #: The burstiness bins, s ([criteria] burst_bin_s).
    bin_s: float
    #: Which packets FICCRD's control counts (``readings.queue`` or ``readings.queue_other``);
    #: "" for drop-tail.
    queue: str = ""


def scheme(preset: str, queue: str, data: dict[str, Any]) -> str:
    """A run's key among the compared schemes: the preset, marked when its control reads the
    queue the other way ([RECON] queue)."""
    return f"{preset} queue={queue}" if queue and queue != data["readings"]["queue"] else preset


def label(key: str) -> str:
    """How notes, tables and figures name a scheme key."""
    preset, _, queue = key.partition(" queue=")
    return LABELS[preset] + (f" (Q = all {queue})" if queue else "")


def load_data(path: Path = DATA_FILE) -> dict[str, Any]:
    with open(path, "rb") as f:
        return tomllib.load(f)


def _run(task: Task) -> dict[str, Any]:
    """One run (in a worker): its summary, inputs, the measures that need traces, and for the
    figures the bottleneck queue and the sender sequence numbers."""
    import polars as pl

    from ..api import run

    sets: dict[str, Any] = dict(QUICK_SET) if task.quick else {}
    sets[task.link] = task.reading
    if task.queue:
        sets.update({f"{r}.control.queue": task.queue for r in CONTROLLED})
    r = run(task.preset, seed=task.seed, set=sets)
    s = r.summary()
    queue = r.queue.filter(pl.col("port") == BOTTLENECK).select("time_s", "queue_cells")
    if task.queue:
        data_q = r.data_queue.filter(pl.col("port") == BOTTLENECK).select("time_s", "data_queue_packets")
        queue = queue.join(data_q, on="time_s", how="left")
    seq = r.seq.select("time_s", "connection", "seq_bytes")
    return {"task": task, "summary": s, "inputs": input_values(json.loads(r.resolved_json)), "queue": queue, "seq": seq,
            "traced": trace_measures(s, queue, seq, task.bin_s)}


def input_values(scenario: dict[str, Any]) -> dict[str, float]:
    """The seed's settings as ccsim runs them, read from the resolved scenario."""
    routers = {r["name"]: r for r in scenario["router"]}
    links = {lk["name"]: lk for lk in scenario["link"]}
    d = scenario["defaults"]
    s0 = next(c for c in scenario["connection"] if c["name"] == "S0")
    core = routers["R11"].get("control", {})

    def rate(link: str) -> float:
        return C.rate_mbps(links[link].get("rate", d["link_rate"]))

    return {
        "connections": float(sum(c.get("count", 1) for c in scenario["connection"])),
        "bottleneck_buffer": C.to_unit(routers["R11"].get("buffer", d["router_buffer"]), None),
        "bottleneck_delay_ms": C.duration_ms(links["R11-R12"].get("delay", d["link_delay"])),
        "bottleneck_rate_mbps": rate("R11-R12"),
        "s0_access_delay_ms": C.duration_ms(s0["access"].get("delay", d["link_delay"])),
        "link_delay_ms": C.duration_ms(d["link_delay"]),
        "r10_r11_rate_mbps": rate("R10-R11"),
        "mss_kb": C.to_unit(d["tcp"]["mss"], None) / 1024,
        "duration_s": C.duration_ms(scenario["run"]["duration"]) / 1e3,
        "measure_from_s": C.duration_ms(scenario["run"]["measure_from"]) / 1e3,
        "tcp_tick_s": C.duration_ms(d["tcp"]["clock"]["tick"]) / 1e3,
        "bur": core.get("bur", math.nan), "alpha": core.get("alpha", math.nan), "beta": core.get("beta", math.nan),
    }


def trace_measures(s: dict[str, Any], queue: Any, seq: Any, bin_s: float) -> dict[str, float]:
    """What the summary does not give, from the traces over the measurement window: separate
    episodes of the 50 ms-sampled bottleneck queue at its full buffer, the queue's 5th and 95th
    percentiles (those of the data queue too, where FICCRD tells data from RD packets), and the
    burstiness of the senders (each flow's coefficient of variation of the bytes it sends per
    ``bin_s``, new data only, mean over the flows)."""
    import numpy as np
    import polars as pl

    start, end = s["window_s"]
    port = next(p for p in s["ports"] if p["name"] == BOTTLENECK)
    window = queue.filter(pl.col("time_s") >= start)
    q = window["queue_cells"].to_numpy()
    full = q >= port["buffer_packets"]
    episodes = int(full[0]) + int(np.sum(full[1:] & ~full[:-1])) if len(q) else 0
    p5, p95 = (np.percentile(q, [5, 95]) if len(q) else (math.nan, math.nan))
    dq = window["data_queue_packets"].to_numpy() if "data_queue_packets" in window.columns else q
    d5, d95 = (np.percentile(dq, [5, 95]) if len(dq) else (math.nan, math.nan))
    edges = np.arange(start, end + 1e-9, bin_s)
    cvs = []
    for c in s["connections"]:
        part = seq.filter((pl.col("connection") == c["name"]) & (pl.col("time_s") >= start - bin_s))
        t = part["time_s"].to_numpy()
        sent = np.diff(np.interp(edges, t, np.maximum.accumulate(part["seq_bytes"].to_numpy()))) if len(t) else []
        mean = float(np.mean(sent)) if len(sent) else 0.0
        cvs.append(float(np.std(sent)) / mean if mean > 0 else math.inf)
    return {"full_buffer_episodes": float(episodes), "queue_p5": float(p5), "queue_p95": float(p95),
            "data_queue_p5": float(d5), "data_queue_p95": float(d95), "burstiness": float(np.mean(cvs))}


def capacity_mbps(summary: dict[str, Any]) -> float:
    """The bottleneck's payload rate (line rate × MSS / (MSS + 40)): the connections' max-min
    goodputs add up to it."""
    return sum(c["max_goodput_mbps"] for c in summary["connections"])


def measures(s: dict[str, Any], traced: dict[str, float] | None = None,
             baseline: dict[str, float] | None = None) -> dict[str, float]:
    """The quantities the seed's statements are about, from one run's summary (and its trace
    measures; for the comparisons, the same seed's drop-tail measures at the same reading)."""
    conns = s["connections"]
    g = [c["goodput_mbps"] for c in conns]
    bottleneck = next(p for p in s["ports"] if p["name"] == BOTTLENECK)
    others = [c["goodput_mbps"] for c in conns if c["name"] != "S0"]
    s0 = next(c["goodput_mbps"] for c in conns if c["name"] == "S0")
    out = {
        "goodput_total_mbps": s["goodput_mbps_total"],
        "capacity_mbps": capacity_mbps(s),
        "goodput_shortfall": 1 - s["goodput_mbps_total"] / capacity_mbps(s),
        "fairness_index": s["connections_fairness_index"],
        "s0_over_others": s0 / (sum(others) / len(others)) if others else 0.0,
        "queue_mean": bottleneck["mean_queue_packets"],
        # FICCRD ports tell data from RD packets; drop-tail's queue holds data only.
        "data_queue_mean": bottleneck.get("mean_data_queue_packets", bottleneck["mean_queue_packets"]),
        "rd_queue_mean": bottleneck.get("mean_rd_queue_packets", 0.0),
        "queue_max": float(bottleneck["max_queue_packets"]),
        "bottleneck_drops": float(bottleneck["drops"]),
        "flows_with_drops": float(sum(1 for c in conns if c["drops"] > 0)),
        "fast_retransmits": float(sum(c["fast_retransmits"] for c in conns)),
        "timeouts": float(sum(c["timeouts"] for c in conns)),
        "lowest_goodput_mbps": min(g),
        "fair_share_mbps": bottleneck_rate(s) / len(conns),
        **(traced or {}),
    }
    if baseline is not None:
        out["goodput_over_droptail"] = out["goodput_total_mbps"] / baseline["goodput_total_mbps"]
        if "burstiness" in out and baseline.get("burstiness"):
            out["burst_over_droptail"] = out["burstiness"] / baseline["burstiness"]
    return out


def bottleneck_rate(s: dict[str, Any]) -> float:
    return next(lk["rate_mbps"] for lk in s["links"] if lk["name"].endswith(f"({BOTTLENECK})"))


# The statements' tests: (the values on each seed, the data file's criteria) -> holds. The
# criterion each one applies is spelled out beside its statement in data/ficcrd.toml.
def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


TESTS: dict[str, Callable[[dict[str, list[float]], dict[str, Any]], bool]] = {
    "every_seed_positive": lambda v, c: all(x >= 1 for x in v["value"]),
    "every_seed_zero": lambda v, c: all(x == 0 for x in v["value"]),
    "every_seed_repeatedly": lambda v, c: all(x >= c["repeatedly"] for x in v["value"]),
    "every_seed_all_flows": lambda v, c: all(x == n for x, n in zip(v["value"], v["flows"])),
    "greatly": lambda v, c: _mean(v["value"]) >= c["greatly"],
    "unfair": lambda v, c: abs(_mean(v["value"]) - 1) > c["fair_band"],
    "fair": lambda v, c: abs(_mean(v["value"]) - 1) <= c["fair_band"],
    "above_one": lambda v, c: _mean(v["value"]) > 1,
    "below_one": lambda v, c: _mean(v["value"]) < 1,
    "at_target": lambda v, c: (abs(_mean(v["value"]) - v["q0"][0]) <= c["target_band"] * v["q0"][0]
                               and _mean(v["p5"]) >= (1 - c["narrow_band"]) * v["q0"][0]
                               and _mean(v["p95"]) <= (1 + c["narrow_band"]) * v["q0"][0]),
}


def q0_packets(s: dict[str, Any], bur: float) -> float:
    """Q0 = BUR × BufferSize at the bottleneck (Table 1's initialisation)."""
    return bur * next(p for p in s["ports"] if p["name"] == BOTTLENECK)["buffer_packets"]


def decide(st: dict[str, Any], ms: list[dict[str, float]], criteria: dict[str, Any]) -> tuple[bool, list[float], dict[str, list[float]]]:
    """Whether a statement holds over the seeds' measures ``ms`` (one dict per seed), the values
    it rests on, and what else its test reads (a statement's ``percentiles`` names the measures
    of its 5th and 95th percentiles)."""
    p5, p95 = st.get("percentiles", ["queue_p5", "queue_p95"])
    v = {"value": [m[st["measure"]] for m in ms], "flows": [m["flows"] for m in ms],
         "p5": [m.get(p5, math.nan) for m in ms], "p95": [m.get(p95, math.nan) for m in ms],
         "q0": [m.get("q0", math.nan) for m in ms]}
    return TESTS[st["test"]](v, criteria), v["value"], v


def measured(results: list[dict[str, Any]], data: dict[str, Any]) -> dict[tuple[str, str], list[dict[str, float]]]:
    """Every run's measures, by (bottleneck reading, scheme key), in seed order; FICCRD's compared
    with the same seed's drop-tail run at the same bottleneck reading."""
    bur = next(i for i in data["input"] if i["value"] == "bur")["paper"]
    base = {(r["task"].reading, r["task"].seed): measures(r["summary"], r["traced"])
            for r in results if r["task"].preset == BASELINE}
    out: dict[tuple[str, str], list[dict[str, float]]] = {}
    for r in sorted(results, key=lambda r: r["task"].seed):
        t = r["task"]
        m = measures(r["summary"], r["traced"], None if t.preset == BASELINE else base.get((t.reading, t.seed)))
        m["flows"] = float(len(r["summary"]["connections"]))
        m["q0"] = q0_packets(r["summary"], bur)
        out.setdefault((t.reading, scheme(t.preset, t.queue, data)), []).append(m)
    return out


#: How a note names a measure it shows.
SHOWN = {"queue_max": "max queue in the window (packets)", "timeouts": "timeouts",
         "goodput_total_mbps": "total goodput (Mb/s)", "capacity_mbps": "payload rate (Mb/s)",
         "fairness_index": "Jain's index", "lowest_goodput_mbps": "lowest flow's goodput (Mb/s)",
         "queue_p5": "5th percentile (packets)", "queue_p95": "95th percentile (packets)", "burstiness": "burstiness",
         "data_queue_p5": "data queue's 5th percentile", "data_queue_p95": "95th percentile",
         "queue_mean": "mean queue with RD packets", "rd_queue_mean": "of which RD packets"}


def _value(values: list[float]) -> str:
    mean, ci = V.interval(values)
    return C.fmt(mean) + (f" [{C.fmt(ci[0])}, {C.fmt(ci[1])}]" if ci else "")


def _shown(st: dict[str, Any], ms: list[dict[str, float]]) -> str:
    return ", ".join(f"{SHOWN[k]} {_value([m[k] for m in ms])}" for k in st.get("show", []))


def _verdicts(st: dict[str, Any], by: dict[tuple[str, str], list[dict[str, float]]], reading: str,
              criteria: dict[str, Any], queue: str = "") -> dict[str, tuple[bool, list[float]]]:
    """The verdict on each scheme a statement is about: drop-tail, or both FICCRD edges with the
    control reading the queue as ``queue`` ("": the primary reading)."""
    presets = (BASELINE,) if st["about"] == "droptail" else tuple(p + (f" queue={queue}" if queue else "") for p in FICCRD_PRESETS)
    out = {}
    for p in presets:
        ms = by.get((reading, p))
        if ms:
            holds, values, _ = decide(st, ms, criteria)
            out[p] = (holds, values)
    return out


def _rate(reading: str) -> str:
    return f"{C.rate_mbps(reading):g} Mb/s"


def _said(p: str, holds: bool, values: list[float]) -> str:
    return f"{label(p)} {'holds' if holds else 'fails'} ({_value(values)})"


def statement_row(st: dict[str, Any], by: dict[tuple[str, str], list[dict[str, float]]], data: dict[str, Any]) -> dict[str, Any]:
    """One of the seed's statements as a row: decided at the bottleneck rate the seed states; a
    claim about FICCRD on both edge schemes, not comparable where they disagree (the seed leaves
    the edge open), with the control reading the data queue; the other queue reading's and the
    other bottleneck reading's verdicts in the note."""
    readings, criteria = data["readings"], data["criteria"]
    primary = _verdicts(st, by, readings["primary"], criteria)
    other = _verdicts(st, by, readings["other"], criteria)
    other_queue = {} if st["about"] == "droptail" else _verdicts(st, by, readings["primary"], criteria, readings["queue_other"])
    tol = V.tolerance("criterion", None, st["criterion"])
    notes = []
    if st["about"] == "droptail":
        holds, values = primary[BASELINE]
        ccsim, ci = V.interval(values)
        shown = _shown(st, by[(readings["primary"], BASELINE)])
        if shown:
            notes.append(f"ccsim: {shown}.")
    else:
        answers = {p: h for p, (h, _) in primary.items()}
        holds = next(iter(answers.values())) if len(set(answers.values())) == 1 else None
        ccsim, ci = "; ".join(f"{label(p)} {_value(v)}" for p, (_, v) in primary.items()), None
        notes.append(" ".join(f"{_said(p, h, v)}." for p, (h, v) in primary.items())
                     + (" The seed does not say which edge its runs used ([RECON] edge): not comparable."
                        if holds is None else " Both edges agree."))
        for p in primary:
            shown = _shown(st, by[(readings["primary"], p)])
            if shown:
                notes.append(f"{label(p)}: {shown}.")
    if other_queue:
        notes.append("With the control counting every packet in the buffer, RD packets included ([RECON] queue = "
                     f"{readings['queue_other']}): " + "; ".join(_said(p, h, v) for p, (h, v) in other_queue.items()) + ".")
    if other:
        notes.append(f"At {_rate(readings['other'])} (the bottleneck the seed's 0.15 Mb/s fair share implies, [RECON] "
                     f"bottleneck): " + "; ".join(_said(p, h, v) for p, (h, v) in other.items()) + ".")
    if st["test"] in ("fair", "unfair"):
        notes.append("The band decides only where it is crossed: S0 is off the others' mean by "
                     + ", ".join(f"{abs(_mean(v) - 1):.0%} ({label(p)})" for p, (_, v) in primary.items()) + ".")
    if st.get("note"):
        notes.append(st["note"])
    return V.statement(st["quantity"], st["quote"], holds, ccsim, tol, ccsim_ci=ci, where=st["where"],
                       note=" ".join(notes), id=st["id"], about=st["about"])


def compare(results: list[dict[str, Any]], data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every row of ``compared.json``: the seed's statements (counted where decided), its one piece
    of arithmetic and its settings (listed apart)."""
    by = measured(results, data)
    primary = data["readings"]["primary"]
    rows = [statement_row(st, by, data) for st in data["statement"]]
    runs = [r for r in results if r["task"].reading == primary]
    shares = [m["fair_share_mbps"] for m in by.get((primary, BASELINE), [])]
    rows.append(V.quantity(
        "the bottleneck fair share goodput is normalised by, Mb/s (bottleneck rate / 10 flows)", 0.15,
        "The goodput shown in this figure has been normalized by the bottleneck fair share. (i.e., by 0.15 Mbits/s)",
        shares[:1], V.tolerance("abs", 0.005, "the seed prints two decimals"), kind="arithmetic", where="§3.2, Goodput",
        note=("[RECON] bottleneck: 0.15 Mb/s for 10 flows implies a 1.5 Mb/s bottleneck, while §3.1 gives 10 Mb/s "
              "(1 Mb/s each). The counted rows run the 10 Mb/s the topology text states; every statement's note gives "
              "its verdict at 1.5 Mb/s too. ccsim's max-min goodput per flow is 10 Mb/s x 4096/4136 / 10 = 0.990 Mb/s "
              "(the dashed line in goodput.png).")))
    source = next((r for r in runs if r["task"].preset == "ficcrd/ficcrd" and r["task"].queue == data["readings"]["queue"]),
                  runs[0] if runs else None)
    for i in data["input"]:
        value = source["inputs"][i["value"]] if source else None
        rows.append(V.quantity(i["quantity"], i["paper"], i["quote"], [value], V.tolerance(
            "rel", 0.0, "a setting: ccsim runs the seed's value as stated"), kind="input", where=i["where"],
            note=i.get("note", "")))
    return rows


def readings_table(data: dict[str, Any], by: dict[tuple[str, str], list[dict[str, float]]]) -> list[dict[str, Any]]:
    """Every statement under every reading (bottleneck rate x queue reading x the schemes it is
    about): whether its test holds, and the value it rests on. Not counted: the rows above are."""
    out = []
    for st in data["statement"]:
        row: dict[str, Any] = {"statement": st["quantity"]}
        for reading in (data["readings"]["primary"], data["readings"]["other"]):
            for queue in ("", data["readings"]["queue_other"]):
                if queue and st["about"] == "droptail":
                    continue
                for p, (h, v) in _verdicts(st, by, reading, data["criteria"], queue).items():
                    row[f"{reading} {p}"] = f"{'holds' if h else 'fails'}: {_value(v)}"
        out.append(row)
    return out


def _figures(results: list[dict[str, Any]], out: Path) -> list[str]:
    """The seed's Figs. 3-6 for every scheme: goodput and drops per flow (mean and range over the
    seeds), the bottleneck queue and the sender sequence numbers of the first seed."""
    from .. import _mpl as plt  # figures without pyplot: no backend switch (_mpl.py)
    import numpy as np

    by_preset = {p: [r for r in results if r["task"].preset == p] for p in PRESETS}
    by_preset = {p: rs for p, rs in by_preset.items() if rs}
    first = next(iter(by_preset.values()))[0]
    names = [c["name"] for c in first["summary"]["connections"]]
    fair = first["summary"]["connections"][0]["max_goodput_mbps"]
    x = np.arange(len(names))
    width = 0.8 / len(by_preset)
    files = []

    for field, ylabel, title, fname in [("goodput_mbps", "goodput (Mb/s)", "goodput per flow", "goodput.png"),
                                        ("drops", "packets dropped", "drops per flow", "drops.png")]:
        fig, ax = plt.subplots(figsize=(8, 4))
        for k, (preset, rs) in enumerate(by_preset.items()):
            v = np.array([[c[field] for c in r["summary"]["connections"]] for r in rs], dtype=float)
            ax.bar(x + (k - (len(by_preset) - 1) / 2) * width, v.mean(0), width,
                   yerr=[v.mean(0) - v.min(0), v.max(0) - v.mean(0)], capsize=2, label=LABELS[preset])
        if field == "goodput_mbps":
            ax.axhline(fair, color="black", linestyle="--", linewidth=1, label=f"max-min share {fair:.2f} Mb/s")
        ax.set_xticks(x, names)
        ax.set_ylabel(ylabel)
        ax.set_title(f"{title} (mean, min-max over {len(next(iter(by_preset.values())))} seeds)")
        ax.legend(fontsize="small")
        files.append(C.save_figure(fig, out / fname))

    fig, ax = plt.subplots(figsize=(8, 4))
    for preset, rs in by_preset.items():
        q = rs[0]["queue"]
        ax.step(q["time_s"].to_numpy(), q["queue_cells"].to_numpy(), where="post", linewidth=0.8,
                label=LABELS[preset] + (", all packets" if "data_queue_packets" in q.columns else ""))
        if "data_queue_packets" in q.columns:
            ax.step(q["time_s"].to_numpy(), q["data_queue_packets"].to_numpy(), where="post", linewidth=0.8,
                    linestyle=":", label=f"{LABELS[preset]}, data packets")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    ax.set_title(f"bottleneck queue R11->R12, seed {first['task'].seed}")
    ax.legend(fontsize="small")
    files.append(C.save_figure(fig, out / "queue.png"))

    fig, axes = plt.subplots(1, len(by_preset), figsize=(6 * len(by_preset), 4), squeeze=False)
    for ax, (preset, rs) in zip(axes[0], by_preset.items()):
        seq = rs[0]["seq"]
        for name in names:
            part = seq.filter(seq["connection"] == name)
            ax.plot(part["time_s"].to_numpy(), part["seq_bytes"].to_numpy() / 1e6, linewidth=0.8, label=name)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("sequence number (MB)")
        ax.set_title(f"{LABELS[preset]}: sender sequence numbers, seed {rs[0]['task'].seed}")
    axes[0][0].legend(fontsize="small", ncol=2)
    files.append(C.save_figure(fig, out / "seq.png"))
    return files





def write_html(out: Path, rows: list[dict[str, Any]], table: list[dict[str, Any]], figures: list[str],
               info: dict[str, Any], data: dict[str, Any], sensitivity: list[dict[str, Any]] | None = None) -> None:
    sensitivity_section = [(S.TITLE, C.html_table(sensitivity, S.COLUMNS))] if sensitivity else []
    readings = (data["readings"]["primary"], data["readings"]["other"])
    keys = list(PRESETS) + [f"{p} queue={data['readings']['queue_other']}" for p in FICCRD_PRESETS]
    columns = [("statement", "statement")] + [
        (f"{r} {k}", f"{label(k)}, bottleneck {_rate(r)}") for r in readings for k in keys]
    c = V.counts(rows, info["quick"])
    intro = ((V.QUICK_WARNING + "\n" if info["quick"] else "")
             + f"{c['headline'].removeprefix(V.QUICK_WARNING + ' ')}. {info['mode'].capitalize()} run: {info['runs']} runs "
             f"({', '.join(PRESETS)}; seeds {', '.join(map(str, info['seeds']))}; bottleneck at {_rate(readings[0])} as the seed's "
             f"topology states, and at {_rate(readings[1])} as its 0.15 Mb/s fair share implies; FICCRD's control reading "
             f"the data queue and, apart, every packet) in {info['wall_s']:.1f} s. Seed 002 "
             "prints no simulated number: every counted row is one of its statements, decided by the criterion its "
             "tolerance spells out at the stated 10 Mb/s with the control reading the data queue as the seed's text has it; "
             "a claim about FICCRD is decided with both edge schemes the seed "
             "names (FIABC: ficcrd/ficcrd, FIEWA: ficcrd/ficcrd-fiewa) and is not comparable where they disagree. "
             "`ccsim docs reproductions/ficcrd` explains every difference.")
    sections = V.sections(rows) + [("Every statement under every reading (not counted: the rows above are)",
                                     C.html_table(table, columns))] + sensitivity_section
    (out / "index.html").write_text(C.report_page(TITLE, intro, sections, figures), encoding="utf-8")


def reproduce(out: str | Path | None = None, quick: bool = False, workers: int | None = None,
              progress: bool = True) -> dict[str, Any]:
    """Runs drop-tail and both FICCRD edge schemes over the data file's seeds at both bottleneck
    readings; writes ``compared.json`` (the rows), ``details.json`` (every run's measures and the
    readings table), ``runs.json``, ``figures/*.png`` and ``index.html`` under ``out``; returns the
    summary (verdicts.summary)."""
    started = time.perf_counter()
    data = load_data()
    out, workers = C.prepare(out, PAPER, workers)
    seeds = data["seeds"][:2] if quick else data["seeds"]
    link = data["readings"]["link"]
    readings = (data["readings"]["primary"], data["readings"]["other"])
    queues = (data["readings"]["queue"], data["readings"]["queue_other"])
    tasks = [Task(preset, seed, quick, reading, link, data["criteria"]["burst_bin_s"], queue)
             for reading in readings for preset in PRESETS for queue in (queues if preset != BASELINE else ("",))
             for seed in seeds]
    side = S.tasks(data, quick)
    pool = C.make_pool(min(workers, len(tasks) + len(side)))
    try:
        results = C.run_all(_run, tasks, workers=workers, progress=progress, label="simulating", pool=pool)
        sensitivity = C.run_all(S.run, side, workers=workers, progress=progress, label="sensitivity", pool=pool)
    finally:
        if pool is not None:
            pool.shutdown()
    rows = compare(results, data)
    V.write_compared(out, rows)
    by = measured(results, data)
    table = readings_table(data, by)
    details = {"readings": data["readings"], "criteria": data["criteria"], "seeds": seeds, "sensitivity": sensitivity,
               "measures": {f"{reading} {preset}": [{k: C.clean(v) for k, v in m.items()} for m in ms]
                            for (reading, preset), ms in by.items()},
               "readings_table": table}
    (out / "details.json").write_text(json.dumps(details, indent=1, ensure_ascii=False, allow_nan=False) + "\n",
                                      encoding="utf-8")
    primary = [r for r in results if r["task"].reading == data["readings"]["primary"]
               and r["task"].queue in ("", data["readings"]["queue"])]
    figures = _figures(primary, out / "figures")
    runs = [{"scenario": r["task"].preset, "bottleneck": r["task"].reading, "queue": r["task"].queue, "seed": r["task"].seed,
             "sim_time_s": r["summary"]["sim_time_s"], "wall_s": C.clean(r["summary"]["wall_s"]),
             "events": r["summary"]["events"], "fingerprint": r["summary"]["fingerprint"]} for r in results]
    (out / "runs.json").write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    info = {"mode": "quick" if quick else "full", "quick": quick, "runs": len(tasks) + len(side), "seeds": seeds,
            "wall_s": time.perf_counter() - started}
    write_html(out, rows, table, figures, info, data, sensitivity)
    return V.summary(PAPER, out, rows, len(tasks) + len(side), started, quick)


__all__ = ["reproduce", "load_data", "measures", "trace_measures", "input_values", "decide", "compare", "readings_table",
           "TESTS", "PAPER", "TITLE"]
