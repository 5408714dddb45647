"""The one verdict model of every reproduction (docs/reproductions/index.md, "How a row is judged").

A reproduction compares ccsim with its seed row by row. A row is one seed *quantity*:

- ``quantity``: what is compared, with its setting and unit ("Table 5, Q = 20: mean queue, cells");
- ``paper``: the seed's number as the seed prints it, a ``[low, high]`` range the seed states, or
  null for a statement without a number;
- ``quote``: the seed's own sentence or table row, verbatim (``where`` says where: "Table 5, row
  Q = 20, column 'Average queue length (cell)'");
- ``ccsim``: the mean over the seeds (a number), or for a statement the measured value it rests on;
  ``ccsim_ci``: the 95 % t-interval over the seeds ``[low, high]`` (null with one seed);
- ``tolerance``: ``{"mode", "value", "reason"}`` (below), stated per row with its reason, or null;
- ``verdict``: ``agrees``, ``differs`` or ``not_comparable`` (no tolerance can be stated: a
  reconstruction the seed leaves open, a number the seed does not print; or the runs did not
  exercise what the row measures, ``withheld``: a link that carried no traffic);
- ``counted``: whether the row is in the headline; ``kind``: ``simulated`` (a simulated
  quantity), ``statement`` (a qualitative claim, checked at the seed's own magnitude),
  ``arithmetic`` (the seed's own closed forms or max-min rates, redone without simulating) or
  ``input`` (a preset's setting): the last two are listed apart and never counted;
- ``note``: why it agrees or differs, and which reconstruction ([RECON]) it depends on.

Tolerance modes: ``rel`` (|ccsim − paper| ≤ value·|paper|), ``abs`` (|ccsim − paper| ≤ value),
``factor`` (ccsim and paper within a factor ``value`` of each other: "over 30,000 times" agrees
only between 30,000/value and 30,000·value, never at "> 1"), ``range`` (ccsim within the seed's
stated ``[low, high]``, widened by ``value`` on each side), ``at_least`` / ``at_most`` (ccsim ≥
paper·(1 − value), or ≤ paper·(1 + value): a seed's "over", "at least", "as low as"), and
``criterion`` (a statement's own test, decided by the reproduction and spelled out in ``reason``).
A verdict is read on the mean over the seeds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

VERDICTS = ("agrees", "differs", "not_comparable")
KINDS = ("simulated", "statement", "arithmetic", "input")
MODES = ("rel", "abs", "factor", "range", "at_least", "at_most", "criterion")
FIELDS = ("quantity", "paper", "quote", "ccsim", "ccsim_ci", "tolerance", "verdict", "counted", "note")
QUICK_WARNING = "Quick run: these verdicts are indicative and may differ from the full run's."


def tolerance(mode: str, value: float | None, reason: str) -> dict[str, Any]:
    """A row's tolerance. ``reason`` says why this much: the seed's printed precision, a range it
    states, the seeds' own spread, the magnitude of an order-of-magnitude claim."""
    if mode not in MODES:
        raise ValueError(f"tolerance mode {mode!r}: one of {', '.join(MODES)}")
    if mode != "criterion" and (value is None or not math.isfinite(value) or value < 0):
        raise ValueError(f"tolerance {mode}: a finite value >= 0, got {value!r}")
    if not reason.strip():
        raise ValueError("a tolerance states its reason")
    return {"mode": mode, "value": value, "reason": reason}


def admits(tol: dict[str, Any], ccsim: float, paper: float | Sequence[float]) -> bool:
    """Whether ``ccsim`` is within ``tol`` of ``paper`` (not for ``criterion``)."""
    mode, v = tol["mode"], tol["value"]
    eps = 1e-9
    if mode == "range":
        lo, hi = paper  # type: ignore[misc]
        return lo - v - eps <= ccsim <= hi + v + eps
    p = float(paper)  # type: ignore[arg-type]
    if mode == "rel":
        return abs(ccsim - p) <= v * abs(p) + eps
    if mode == "abs":
        return abs(ccsim - p) <= v + eps
    if mode == "factor":
        return ccsim > 0 and p > 0 and max(ccsim / p, p / ccsim) <= v * (1 + eps)
    if mode == "at_least":
        return ccsim >= p * (1 - v) - eps
    if mode == "at_most":
        return ccsim <= p * (1 + v) + eps
    raise ValueError(f"a {mode} tolerance is decided by its reproduction, not by admits()")


def interval(values: Iterable[float | None]) -> tuple[float | None, list[float] | None]:
    """The mean over the seeds and its 95 % t-interval (None with fewer than two seeds)."""
    from ..sweeps.stats import replication_ci

    est = replication_ci([v for v in values if v is not None])
    if est.n == 0:
        return None, None
    if not math.isfinite(est.half_width):
        return _round(est.mean), None
    return _round(est.mean), [_round(est.low), _round(est.high)]


def quantity(quantity: str, paper: float | Sequence[float] | None, quote: str, values: Iterable[float | None],
             tol: dict[str, Any] | None, *, where: str = "", note: str = "", kind: str = "simulated",
             **extra: Any) -> dict[str, Any]:
    """A simulated (or, with ``kind``, an arithmetic or input) row: ``values`` are ccsim's, one per
    seed; the verdict is ``not_comparable`` without a tolerance or a number to compare with."""
    mean, ci = interval(values)
    if tol is None or paper is None or mean is None:
        verdict = "not_comparable"
    else:
        verdict = "agrees" if admits(tol, mean, paper) else "differs"
    return _row(quantity, paper, quote, mean, ci, tol, verdict, kind, where, note, extra)


def statement(quantity: str, quote: str, holds: bool | None, ccsim: Any, tol: dict[str, Any] | None, *,
              paper: float | Sequence[float] | None = None, ccsim_ci: list[float] | None = None, where: str = "",
              note: str = "", **extra: Any) -> dict[str, Any]:
    """A qualitative claim: ``holds`` as the reproduction decided it at the seed's magnitude (None:
    it cannot be decided here), ``ccsim`` the measured value (or text) it rests on. Where the claim
    has a number (``paper``: "over 30,000 times"), ``tol`` says how close counts."""
    if tol is not None and tol["mode"] != "criterion" and paper is not None and isinstance(ccsim, (int, float)):
        computed = admits(tol, float(ccsim), paper)
        if holds is not None and holds != computed:
            raise ValueError(f"{quantity}: holds={holds} but the tolerance gives {computed}")
        holds = computed
    verdict = "not_comparable" if holds is None or tol is None else ("agrees" if holds else "differs")
    value = _round(ccsim) if isinstance(ccsim, float) else ccsim
    return _row(quantity, paper, quote, value, ccsim_ci, tol, verdict, "statement", where, note, extra)


def withheld(row: dict[str, Any], reason: str) -> dict[str, Any]:
    """``row`` with no verdict, whatever its numbers say: the runs did not exercise what it measures
    (a link that carried no traffic in the window). ``reason`` leads the note; the tolerance stays
    shown, and the row is not counted."""
    if not reason.strip():
        raise ValueError("a withheld verdict states its reason")
    extra = {k: v for k, v in row.items() if k not in (*FIELDS, "kind", "where")}
    return _row(row["quantity"], row["paper"], row["quote"], row["ccsim"], row["ccsim_ci"], row["tolerance"], "not_comparable",
                row.get("kind", "simulated"), row.get("where", ""), f"{reason} {row['note']}".strip(), extra)


def _row(quantity: str, paper: Any, quote: str, ccsim: Any, ci: Any, tol: dict[str, Any] | None, verdict: str,
         kind: str, where: str, note: str, extra: dict[str, Any]) -> dict[str, Any]:
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: one of {', '.join(KINDS)}")
    counted = kind in ("simulated", "statement") and tol is not None and verdict != "not_comparable"
    row = {"quantity": quantity, "paper": list(paper) if isinstance(paper, (list, tuple)) else paper, "quote": quote,
           "ccsim": ccsim, "ccsim_ci": ci, "tolerance": tol, "verdict": verdict, "counted": counted, "note": note,
           "kind": kind, "where": where, **extra}
    problems = check_row(row)
    if problems:
        raise ValueError(f"{quantity}: " + "; ".join(problems))
    return row


_NUMBER = re.compile(r"(?<![\w.])[-−]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


def numbers_in(text: str) -> list[float]:
    """Every number written in ``text`` ("5,062", "0.87", "1 %" → 1.0, "10^4" → 10 and 4)."""
    out = []
    for m in _NUMBER.finditer(text):
        s = m.group(0).replace("−", "-")
        # "5,062" is five thousand and sixty-two; "1,2" in a list is two numbers.
        parts = [s.replace(",", "")] if re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", s) else s.split(",")
        for p in parts:
            try:
                out.append(float(p))
            except ValueError:
                pass
    return out


def check_row(row: dict[str, Any]) -> list[str]:
    """What is wrong with a row under the contract (empty: nothing)."""
    problems = [f"missing field {f}" for f in FIELDS if f not in row]
    if problems:
        return problems
    if row["verdict"] not in VERDICTS:
        problems.append(f"verdict {row['verdict']!r}")
    if not str(row["quote"]).strip():
        problems.append("no quote")
    tol = row["tolerance"]
    if row["counted"]:
        if tol is None or not str(tol.get("reason", "")).strip():
            problems.append("counted without a tolerance and its reason")
        if row["verdict"] == "not_comparable":
            problems.append("counted but not comparable")
        if row.get("kind", "simulated") not in ("simulated", "statement"):
            problems.append(f"a {row['kind']} row is never counted")
    paper = row["paper"]
    if paper is not None:
        written = numbers_in(str(row["quote"]))
        for p in paper if isinstance(paper, list) else [paper]:
            if not any(abs(w - p) <= 1e-9 * max(1.0, abs(p)) for w in written):
                problems.append(f"the paper's {p:g} is not in the quote")
    return problems


def check_rows(rows: Iterable[dict[str, Any]]) -> None:
    """Raises ``ValueError`` listing every row that breaks the contract."""
    bad = [f"{r.get('quantity', '?')}: {'; '.join(p)}" for r in rows if (p := check_row(r))]
    if bad:
        raise ValueError("rows break the verdict contract:\n" + "\n".join(bad))


def counts(rows: Sequence[dict[str, Any]], quick: bool) -> dict[str, Any]:
    """The headline numbers (``ccsim reproduce NAME --json``'s contract keys) and its sentence."""
    sim = [r for r in rows if r["counted"] and r.get("kind") == "simulated"]
    stm = [r for r in rows if r["counted"] and r.get("kind") == "statement"]
    c = {
        "agree": sum(r["verdict"] == "agrees" for r in sim),
        "counted": len(sim),
        "statements_hold": sum(r["verdict"] == "agrees" for r in stm),
        "statements": len(stm),
        # Of the seed's quantities and statements: the rows listed apart are not the seed's results.
        "not_comparable": sum(r["verdict"] == "not_comparable" and r.get("kind") in ("simulated", "statement")
                              for r in rows),
        "quick": quick,
        "apart": sum(r.get("kind") in ("arithmetic", "input") for r in rows),
    }
    text = (f"{c['agree']} of {c['counted']} simulated quantities agree within their stated tolerance; "
            f"{c['statements_hold']} of {c['statements']} statements hold at the seed's magnitude; "
            f"{c['not_comparable']} not comparable")
    c["headline"] = (QUICK_WARNING + " " if quick else "") + text
    return c


def write_compared(out: Any, rows: list[dict[str, Any]]) -> None:
    """``compared.json``: the list of rows, checked against the contract first."""
    import json

    check_rows(rows)
    (out / "compared.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False, allow_nan=False) + "\n",
                                       encoding="utf-8")


def summary(paper: str, out: Any, rows: list[dict[str, Any]], runs: int, started: float, quick: bool,
            **extra: Any) -> dict[str, Any]:
    """What every ``reproduce()`` returns (the CLI prints it, or emits it with ``--json``)."""
    import time

    return {"paper": paper, **counts(rows, quick), "mode": "quick" if quick else "full", "runs": runs,
            "rows": len(rows), "wall_s": round(time.perf_counter() - started, 2), "out": str(out),
            "report": str(out / "index.html"), **extra}


def tolerance_text(tol: dict[str, Any] | None) -> str:
    """A tolerance as the report shows it: "± 5 % (the seed prints two digits)"."""
    if tol is None:
        return ""
    v, mode = tol["value"], tol["mode"]
    head = {"rel": lambda: f"± {100 * v:.3g} %", "abs": lambda: f"± {v:.3g}", "factor": lambda: f"within × {v:.3g}",
            "range": lambda: f"in the range ± {v:.3g}", "at_least": lambda: f"≥ paper − {100 * v:.3g} %",
            "at_most": lambda: f"≤ paper + {100 * v:.3g} %", "criterion": lambda: "criterion"}[mode]()
    return f"{head} ({tol['reason']})"


def html_rows(rows: Sequence[dict[str, Any]]):
    """The rows as an HTML table: quantity, the seed's words, paper, ccsim with its interval,
    tolerance and reason, verdict, note. Agreeing rows are green, differing ones red."""
    from ._common import fmt, html_table

    def shown(r: dict[str, Any]) -> dict[str, Any]:
        paper = r["paper"]
        ci = r["ccsim_ci"]
        ccsim = fmt(r["ccsim"]) + (f" [{fmt(ci[0])}, {fmt(ci[1])}]" if ci else "")
        return {"quantity": r["quantity"], "quote": f"“{r['quote']}”" + (f" ({r['where']})" if r.get("where") else ""),
                "paper": paper_text(paper), "ccsim": ccsim,
                "tolerance": tolerance_text(r["tolerance"]), "verdict": r["verdict"].replace("_", " "),
                "note": r["note"], "ok": {"agrees": True, "differs": False}.get(r["verdict"])}

    return html_table([shown(r) for r in rows], [("quantity", "quantity"), ("quote", "the seed says"), ("paper", "paper"),
                                                 ("ccsim", "ccsim: mean [95 % interval]"), ("tolerance", "tolerance"),
                                                 ("verdict", "verdict"), ("note", "note")])


def paper_text(paper: Any) -> Any:
    """A row's ``paper`` as a report shows it: a stated range as "low–high", else as it is."""
    from ._common import fmt

    return "–".join(fmt(p) for p in paper) if isinstance(paper, list) else paper


def reading(label: str, row: dict[str, Any]) -> dict[str, Any]:
    """Another reading of a reconstructed choice ([RECON]) for a row: ``row`` built the same way
    under that reading. A row keeps its other readings in ``readings`` (never counted)."""
    return {"reading": label, "ccsim": row["ccsim"], "ccsim_ci": row["ccsim_ci"], "verdict": row["verdict"]}


def readings_table(rows: Sequence[dict[str, Any]], counted_title: str = "counted reading: ccsim, verdict"):
    """The rows that carry other readings, side by side: the counted reading, then each other one;
    a row whose verdict changes with the reading is marked."""
    from ._common import fmt, html_table

    shown = []
    for r in rows:
        if not r.get("readings"):
            continue
        paper = r["paper"]
        cell = {"quantity": r["quantity"], "paper": paper_text(paper),
                "counted": f"{fmt(r['ccsim'])}: {r['verdict'].replace('_', ' ')}",
                "tolerance": tolerance_text(r["tolerance"]) if r["tolerance"] and r["tolerance"]["mode"] != "criterion"
                else "criterion", "ok": None}
        cell["other"] = " | ".join(f"{x['reading']}: {fmt(x['ccsim'])}, {x['verdict'].replace('_', ' ')}"
                                   for x in r["readings"])
        if any(x["verdict"] != r["verdict"] for x in r["readings"]):
            cell["ok"] = False
        shown.append(cell)
    return html_table(shown, [("quantity", "quantity"), ("paper", "paper"), ("tolerance", "tolerance"),
                              ("counted", counted_title), ("other", "other readings: ccsim, verdict")])


def sections(rows: Sequence[dict[str, Any]]) -> list[tuple[str, Any]]:
    """The report's row sections: counted quantities, statements, then (apart) what is not
    counted: rows without a stated tolerance, the seed's own arithmetic, the preset's inputs."""
    groups = [
        ("Simulated quantities", [r for r in rows if r["counted"] and r["kind"] == "simulated"]),
        ("The seed's statements", [r for r in rows if r["counted"] and r["kind"] == "statement"]),
        ("Not comparable (no tolerance can be stated)", [r for r in rows if r["verdict"] == "not_comparable"
                                                         and r["kind"] in ("simulated", "statement")]),
        ("The seed's own arithmetic, redone (not counted)", [r for r in rows if r["kind"] == "arithmetic"]),
        ("The preset's inputs (not counted)", [r for r in rows if r["kind"] == "input"]),
    ]
    return [(title, html_rows(rs)) for title, rs in groups if rs]


def _round(x: Any) -> Any:
    if isinstance(x, float):
        if not math.isfinite(x):
            return None
        return float(f"{x:.6g}")
    return x


__all__ = ["VERDICTS", "KINDS", "MODES", "FIELDS", "QUICK_WARNING", "tolerance", "admits", "interval", "quantity",
           "statement", "withheld", "check_row", "check_rows", "counts", "write_compared", "summary", "html_rows", "sections",
           "numbers_in", "tolerance_text", "reading", "readings_table"]
