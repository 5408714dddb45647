"""Seed 002 (FICCRD) on its peer-to-peer configuration: FICCRD against drop-tail routers.

Seed 002 reports figures only (goodput per flow, sender sequence numbers, bottleneck queue, drops per
flow) for FICCRD and for drop-tail routers, and does not say which edge enforcement (FIEWA or FIABC)
its runs used. This reproduction runs drop-tail (`ficcrd/droptail`) and FICCRD with each edge scheme
(`ficcrd/ficcrd`: FIEWA, `ficcrd/ficcrd-abc`: FIABC) over several seeds, and sets each of the seed's
statements beside ccsim's numbers for every scheme it is about, and beside what theory bounds (the
bottleneck's payload capacity). The statements live in ``data/ficcrd.toml``, not in code.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _common as C

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

PAPER = "ficcrd"
TITLE = "Seed 002: FICCRD against drop-tail routers"
PRESETS = ("ficcrd/droptail", "ficcrd/ficcrd", "ficcrd/ficcrd-abc")
BASELINE = "ficcrd/droptail"
#: What a statement's `preset = "ficcrd"` stands for: both edge schemes.
FICCRD_PRESETS = ("ficcrd/ficcrd", "ficcrd/ficcrd-abc")
#: How figures and the answers table name each preset.
LABELS = {"ficcrd/droptail": "drop-tail", "ficcrd/ficcrd": "FICCRD-EWA", "ficcrd/ficcrd-abc": "FICCRD-ABC"}
DATA_FILE = Path(__file__).parent / "data" / "ficcrd.toml"


@dataclass(frozen=True)
class Task:
    preset: str
    seed: int
    quick: bool


def load_data(path: Path = DATA_FILE) -> dict[str, Any]:
    with open(path, "rb") as f:
        return tomllib.load(f)


def _run(task: Task) -> dict[str, Any]:
    """One seed (in a worker): the summary, and for the first seed the traces the figures need."""
    import polars as pl

    from ..api import run

    sets = {"run.duration": "20s", "run.measure_from": "10s"} if task.quick else {}
    r = run(task.preset, seed=task.seed, set=sets)
    out: dict[str, Any] = {"task": task, "summary": r.summary()}
    out["queue"] = r.queue.filter(pl.col("port") == "R11->R12").select("time_ms", "queue_cells")
    out["seq"] = r.seq.select("time_ms", "connection", "seq_bytes")
    return out


def capacity_mbps(summary: dict[str, Any]) -> float:
    """The bottleneck's payload rate (line rate × MSS / (MSS + 40)): the connections' max-min
    goodputs add up to it."""
    return sum(c["max_goodput_mbps"] for c in summary["connections"])


def measures(s: dict[str, Any], baseline: dict[str, Any] | None = None) -> dict[str, float]:
    """The quantities the seed's statements are about, from one run's summary (and, for the
    comparisons, the drop-tail run of the same seed)."""
    conns = s["connections"]
    g = [c["goodput_mbps"] for c in conns]
    bottleneck = next(p for p in s["ports"] if p["name"] == "R11->R12")
    others = [c["goodput_mbps"] for c in conns if c["name"] != "S0"]
    s0 = next(c["goodput_mbps"] for c in conns if c["name"] == "S0")
    out = {
        "goodput_total_mbps": s["goodput_mbps_total"],
        "fairness_index": s["connections_fairness_index"],
        "s0_over_others_mean": s0 / (sum(others) / len(others)) if others else 0.0,
        "max_queue_packets": float(bottleneck["max_queue_cells"]),
        "mean_queue_packets": bottleneck["mean_queue_cells"],
        "bottleneck_drops": float(bottleneck["drops"]),
        "flows_without_drops": float(sum(1 for c in conns if c["drops"] == 0)),
        "lowest_goodput_mbps": min(g),
    }
    if baseline is not None:
        out["goodput_over_droptail"] = s["goodput_mbps_total"] / baseline["goodput_mbps_total"]
    return out


def bound(st: dict[str, Any], s: dict[str, Any], cap: float) -> float:
    """A statement's reference value: its `value`, or `of_capacity` × the payload rate, plus with
    `held_bytes` each connection's out-of-order hold released over the measurement window."""
    ref = cap * st["of_capacity"] if "of_capacity" in st else st["value"]
    if "held_bytes" in st:
        start, end = s["window_s"]
        ref += len(s["connections"]) * st["held_bytes"] * 8 / (end - start) / 1e6
    return ref


def _holds(expr: str, value: float, ref: float) -> bool:
    op, _, _ = expr.partition(" ")
    return {">": value > ref, "<": value < ref, ">=": value >= ref, "<=": value <= ref, "==": value == ref}[op]


def statement_presets(st: dict[str, Any]) -> tuple[str, ...]:
    """The presets a statement is about: its `preset` (default drop-tail); "ficcrd" means both edges."""
    p = st.get("preset", BASELINE)
    return FICCRD_PRESETS if p == "ficcrd" else (p,)


def _per_preset(value: Any, preset: str) -> Any:
    """A statement's `note` (or ns-2 answer) may be one text, or a table of texts by preset."""
    return value.get(preset) if isinstance(value, dict) else value


def compare(results: list[dict[str, Any]], data: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per statement, preset and seed: ccsim's value; what the seed says (`paper`, its
    words) and the threshold chosen to decide it, or theory's bound; ns-2's and ns-3's answers
    where measured (docs/validation/ns2.md); and whether the statement holds."""
    rows = []
    baseline = {r["task"].seed: r["summary"] for r in results if r["task"].preset == BASELINE}
    for r in results:
        s = r["summary"]
        preset = r["task"].preset
        m = measures(s, baseline.get(r["task"].seed) if preset != BASELINE else None)
        cap = capacity_mbps(s)
        for st in data["statement"]:
            if preset not in statement_presets(st):
                continue
            ref = bound(st, s, cap)
            value = m[st["quantity"]]
            rows.append({
                "scenario": preset, "seed": r["task"].seed, "quantity": st["quantity"],
                "statement": st["text"], "source": st["source"], "expect": f"{st['expect']} {C.fmt(ref)}",
                "theory": C.clean(ref) if st.get("kind") == "theory" else None,
                "paper": st["paper"] if st.get("kind") == "paper" else None,
                "threshold": C.clean(ref) if st.get("kind") == "paper" else None,
                "ns2": _per_preset(st.get("ns2"), preset), "ns3": _per_preset(st.get("ns3"), preset),
                "ccsim": C.clean(value), "difference": C.clean(value - ref), "ok": _holds(st["expect"], value, ref),
                "note": _per_preset(st.get("note"), preset),
            })
    return rows


def answers(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The seed's answer per statement and scheme: on how many seeds it holds, and ccsim's range."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        a = out.setdefault((r["statement"], r["scenario"]), {
            "statement": r["statement"], "scheme": LABELS.get(r["scenario"], r["scenario"]), "paper": r["paper"],
            "expect": r["expect"], "values": [], "held": 0, "note": r["note"]})
        a["values"].append(r["ccsim"])
        a["held"] += bool(r["ok"])
    return [{**{k: v for k, v in a.items() if k != "values"}, "seeds": len(a["values"]),
             "answer": "holds" if a["held"] == len(a["values"]) else "no" if a["held"] == 0 else "on some seeds",
             "ccsim": f"{C.fmt(min(a['values']))} - {C.fmt(max(a['values']))}"} for a in out.values()]


def _figures(results: list[dict[str, Any]], out: Path) -> list[str]:
    """The seed's Figs. 3-6 for every scheme: goodput and drops per flow (mean and range over the
    seeds), the bottleneck queue and the sender sequence numbers of the first seed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
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
            ax.axhline(fair, color="black", linestyle="--", linewidth=1, label=f"fair share {fair:.2f} Mb/s")
        ax.set_xticks(x, names)
        ax.set_ylabel(ylabel)
        ax.set_title(f"{title} (mean, min-max over {len(next(iter(by_preset.values())))} seeds)")
        ax.legend(fontsize="small")
        files.append(C.save_figure(fig, out / fname))

    fig, ax = plt.subplots(figsize=(8, 4))
    for preset, rs in by_preset.items():
        q = rs[0]["queue"]
        ax.step(q["time_ms"].to_numpy() / 1e3, q["queue_cells"].to_numpy(), where="post", linewidth=0.8,
                label=LABELS[preset])
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
            ax.plot(part["time_ms"].to_numpy() / 1e3, part["seq_bytes"].to_numpy() / 1e6, linewidth=0.8, label=name)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("sequence number (MB)")
        ax.set_title(f"{LABELS[preset]}: sender sequence numbers, seed {rs[0]['task'].seed}")
    axes[0][0].legend(fontsize="small", ncol=2)
    files.append(C.save_figure(fig, out / "seq.png"))
    return files



def write_html(out: Path, rows: list[dict[str, Any]], figures: list[str], info: dict[str, Any]) -> None:
    columns = [("scenario", "preset"), ("seed", "seed"), ("quantity", "quantity"), ("statement", "statement"), ("paper", "the seed says"),
               ("source", "source"), ("expect", "tested as"), ("ccsim", "ccsim"), ("ok", "holds"), ("ns2", "ns-2.35"),
               ("ns3", "ns-3"), ("note", "note")]
    answer_columns = [("statement", "statement"), ("scheme", "scheme"), ("paper", "the seed says"), ("expect", "tested as"),
                      ("answer", "holds"), ("seeds", "seeds"), ("held", "seeds where it holds"), ("ccsim", "ccsim (range)"),
                      ("note", "note")]
    intro = (f"{info['mode']} run: {info['runs']} runs of {', '.join(PRESETS)} in "
             f"{info['wall_s']:.1f} s. The answers table gives each of the seed's statements about FICCRD or drop-tail "
             "routers, or a bound theory gives, for every scheme it is about; the statements table has one row per seed. "
             "docs/reproductions/ficcrd.md explains the differences.")
    page = C.report_page(TITLE, intro, [("Answers", C.html_table(answers(rows), answer_columns)),
                                        ("Statements", C.html_table(rows, columns))], figures)
    (out / "index.html").write_text(page, encoding="utf-8")


def reproduce(out: str | Path | None = None, quick: bool = False, workers: int | None = None,
              progress: bool = True) -> dict[str, Any]:
    """Runs drop-tail and both FICCRD edge schemes over the data file's seeds; writes ``compared.json``, ``runs.json``,
    ``figures/*.png`` and ``index.html`` under ``out``; returns a summary dict."""
    started = time.perf_counter()
    data = load_data()
    out, workers = C.prepare(out, PAPER, workers)
    seeds = data["seeds"][:2] if quick else data["seeds"]
    tasks = [Task(preset, seed, quick) for preset in PRESETS for seed in seeds]
    pool = C.make_pool(min(workers, len(tasks)))
    try:
        results = C.run_all(_run, tasks, workers=workers, progress=progress, label="simulating", pool=pool)
    finally:
        if pool is not None:
            pool.shutdown()
    rows = compare(results, data)
    figures = _figures(results, out / "figures")
    (out / "compared.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    runs = [{"scenario": r["task"].preset, "seed": r["task"].seed, "sim_time_s": r["summary"]["sim_time_s"],
             "wall_s": C.clean(r["summary"]["wall_s"]), "events": r["summary"]["events"],
             "fingerprint": r["summary"]["fingerprint"]} for r in results]
    (out / "runs.json").write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    info = {"mode": "quick" if quick else "full", "runs": len(tasks), "wall_s": time.perf_counter() - started}
    write_html(out, rows, figures, info)
    # One count per statement and scheme (not per seed): it agrees when it holds on every seed.
    answered = [{**a, "ok": a["answer"] == "holds"} for a in answers(rows)]
    return C.summary(PAPER, out, info["mode"], rows, len(tasks), started,
                     [a for a in answered if a["paper"] is not None],
                     "of the seed's statements (per scheme) holding on every seed",
                     [("of theory's bounds holding on every seed", [a for a in answered if a["paper"] is None])])


__all__ = ["reproduce", "load_data", "measures", "compare", "answers", "PAPER", "TITLE"]
