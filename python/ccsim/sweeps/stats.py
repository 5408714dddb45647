"""Output analysis: warm-up deletion (MSER-5), confidence intervals by batch means within a run
and by independent replications across runs, and the sequential stopping rule of seed 000.

The procedure is the one docs/sweeps.md describes (sequential batch means after Law & Kelton;
Pawlikowski 1990; White's MSER, 1997). Everything here is plain numpy so it can be tested on
synthetic series of known variance; ``run_to_precision`` wires the stopping rule to real runs.

Every estimate is an ``Estimate``: the mean, the half-width, the confidence level and the method
that produced the interval, so a summary always says which interval it used.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

# --- Student t quantile (no scipy: regularised incomplete beta by Lentz's continued fraction) --


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-14:
            break
    return h


def _betai(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    x = df / (df + t * t)
    tail = 0.5 * _betai(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


@functools.lru_cache(maxsize=4096)
def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t (bisection on ``t_cdf``; exact to ~1e-10)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    if df <= 0:
        raise ValueError("df must be > 0")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


# --- estimates ------------------------------------------------------------------------------


@dataclass
class Estimate:
    """A point estimate with the interval that goes with it.

    ``method`` is ``"replications"`` (t-interval over independent runs), ``"batch-means"``
    (t-interval over batch means of one run) or ``"none"`` (a single value: no interval).
    ``half_width`` is NaN when no interval could be formed.
    """

    mean: float
    half_width: float
    confidence: float
    method: str
    n: int
    details: dict = field(default_factory=dict)

    @property
    def relative(self) -> float:
        """Half-width over |mean| (NaN when the mean is 0 or there is no interval)."""
        if not math.isfinite(self.half_width) or self.mean == 0:
            return float("nan")
        return self.half_width / abs(self.mean)

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def as_dict(self) -> dict:
        d = asdict(self)
        d["relative"] = self.relative
        return d

    def __str__(self) -> str:
        if not math.isfinite(self.half_width):
            return f"{self.mean:.6g} (n={self.n}, no interval)"
        return f"{self.mean:.6g} ± {self.half_width:.3g} ({self.confidence:.0%} {self.method}, n={self.n})"


def replication_ci(values: Iterable[float], confidence: float = 0.95) -> Estimate:
    """t-interval over independent replication values (NaNs are ignored)."""
    x = np.asarray([v for v in values if v is not None], dtype=float)
    x = x[np.isfinite(x)]
    n = int(x.size)
    if n == 0:
        return Estimate(float("nan"), float("nan"), confidence, "none", 0)
    mean = float(x.mean())
    if n == 1:
        return Estimate(mean, float("nan"), confidence, "none", 1)
    s = float(x.std(ddof=1))
    h = t_quantile(0.5 + confidence / 2.0, n - 1) * s / math.sqrt(n)
    return Estimate(mean, h, confidence, "replications", n)


def lag1(x: np.ndarray) -> float:
    """Lag-1 autocorrelation (0 for a constant series)."""
    x = np.asarray(x, dtype=float)
    if x.size < 3:
        return 0.0
    d = x - x.mean()
    den = float(np.dot(d, d))
    return 0.0 if den == 0.0 else float(np.dot(d[:-1], d[1:]) / den)


def batch_means_ci(y: Sequence[float], batches: int = 20, confidence: float = 0.95) -> Estimate:
    """Non-overlapping batch means: ``batches`` equal batches (the remainder at the start is
    dropped, as it is the oldest data), t-interval over their means. ``details`` carries the
    batch size, the number of batches and the lag-1 autocorrelation of the batch means."""
    y = np.asarray(y, dtype=float)
    k = min(batches, y.size)
    if k < 2:
        mean = float(y.mean()) if y.size else float("nan")
        return Estimate(mean, float("nan"), confidence, "none", int(y.size))
    b = y.size // k
    means = y[y.size - k * b :].reshape(k, b).mean(axis=1)
    s = float(means.std(ddof=1))
    h = t_quantile(0.5 + confidence / 2.0, k - 1) * s / math.sqrt(k)
    return Estimate(
        float(means.mean()), h, confidence, "batch-means", int(k * b),
        {"batch_size": int(b), "batches": int(k), "r1": lag1(means)},
    )


def mser5(y: Sequence[float], max_fraction: float = 0.5) -> int:
    """MSER-5 truncation point: the number of leading observations to delete (a multiple of 5).

    Observations are averaged in blocks of 5 (z_1..z_m); d* minimises
    ``sum_{i>d} (z_i - zbar_d)^2 / (m-d)^2`` over 0 <= d <= m * max_fraction."""
    y = np.asarray(y, dtype=float)
    m = y.size // 5
    if m < 2:
        return 0
    z = y[: 5 * m].reshape(m, 5).mean(axis=1)
    best_d, best = 0, math.inf
    # suffix sums give every candidate in O(m)
    rev = z[::-1]
    csum = np.cumsum(rev)[::-1]
    csq = np.cumsum(rev * rev)[::-1]
    for d in range(0, int(m * max_fraction) + 1):
        n = m - d
        if n < 2:
            break
        mean = csum[d] / n
        sse = csq[d] - n * mean * mean
        v = max(sse, 0.0) / (n * n)
        if v < best:
            best, best_d = v, d
    return 5 * best_d


# --- sequential stopping rule (§4.3) ---------------------------------------------------------


@dataclass
class StopRule:
    """Stop when the ``confidence`` interval of the metric is within ±``precision`` (relative).

    ``t_min`` and ``t_max`` are in the units of the source's clock (simulated seconds for real
    runs, observation counts times ``dt`` for synthetic sources)."""

    precision: float = 0.05
    confidence: float = 0.95
    t_min: float = 0.0
    t_max: float = math.inf
    k_min: int = 20
    k_max: int = 40
    r1_max: float = 0.1
    warmup: str | float = "mser5"  # "mser5", or a fixed number of observations to delete

    def __post_init__(self):
        if not 0 < self.precision < 1:
            raise ValueError(f"precision: must be in (0, 1), got {self.precision!r}")
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence: must be in (0, 1), got {self.confidence!r}")
        if self.k_max < 2 * self.k_min - 1:
            raise ValueError("k_max must be at least 2 * k_min - 1 (batches are merged in pairs)")


@dataclass
class StopReport:
    """What the stopping rule did: the estimate, whether the precision was reached and why it
    stopped (``"precision reached"`` or ``"time limit reached first"``)."""

    estimate: Estimate
    reached: bool
    reason: str
    time: float
    warmup_obs: int
    checkpoints: int

    @property
    def achieved_precision(self) -> float:
        return self.estimate.relative

    def as_dict(self) -> dict:
        return {
            **self.estimate.as_dict(),
            "reached": self.reached,
            "reason": self.reason,
            "time": self.time,
            "warmup_obs": self.warmup_obs,
            "checkpoints": self.checkpoints,
            "achieved_precision": self.achieved_precision,
        }


def sequential_batch_means(y: Sequence[float], rule: StopRule) -> tuple[Estimate, bool]:
    """Applies §4.3 to the observations after warm-up: batch size doubles (pairs merged) each
    time 40 batches are reached, so 20..40 batches remain. Returns the estimate and whether
    the precision criterion holds (k >= k_min, r1 <= r1_max, H/|Ybar| <= precision)."""
    y = np.asarray(y, dtype=float)
    if y.size < rule.k_min:
        return Estimate(float(y.mean()) if y.size else float("nan"), float("nan"), rule.confidence, "none", int(y.size)), False
    b = 1
    while y.size // b >= rule.k_max:
        b *= 2
    k = y.size // b
    means = y[: k * b].reshape(k, b).mean(axis=1)
    r1 = lag1(means)
    s = float(means.std(ddof=1))
    h = t_quantile(0.5 + rule.confidence / 2.0, k - 1) * s / math.sqrt(k)
    est = Estimate(float(means.mean()), h, rule.confidence, "batch-means", int(k * b),
                   {"batch_size": int(b), "batches": int(k), "r1": r1})
    ok = k >= rule.k_min and r1 <= rule.r1_max and est.mean != 0 and h / abs(est.mean) <= rule.precision
    return est, ok


def run_until_precise(next_chunk: Callable[[], tuple[Sequence[float], float] | None], rule: StopRule) -> StopReport:
    """The stopping rule over a chunked metric source.

    ``next_chunk()`` returns ``(observations, clock)`` — the new observations of the metric and
    the source's clock after them — or ``None`` when the source can give no more. Between
    chunks the rule deletes the warm-up (MSER-5 on the first pilot tenth, then fixed), forms the
    batch-means interval and stops once it is within ±precision and the clock is past ``t_min``
    after warm-up; it stops anyway at ``t_max`` and reports the precision achieved."""
    ys: list[float] = []
    warm: int | None = None if rule.warmup == "mser5" else int(rule.warmup)
    clock, checkpoints = 0.0, 0
    est = Estimate(float("nan"), float("nan"), rule.confidence, "none", 0)
    while True:
        chunk = next_chunk()
        if chunk is None:
            reason = "source exhausted before the precision was reached"
            break
        obs, clock = chunk
        ys.extend(float(v) for v in obs)
        if warm is None and len(ys) >= 10 * 5 * 2:
            # MSER-5 on the pilot segment (the data so far), then the warm-up stays fixed
            warm = mser5(ys)
        if warm is None:
            continue
        checkpoints += 1
        est, ok = sequential_batch_means(ys[warm:], rule)
        dt = clock / max(1, len(ys))
        if ok and clock - warm * dt >= rule.t_min:
            return StopReport(est, True, "precision reached", clock, warm, checkpoints)
        if clock >= rule.t_max:
            reason = "time limit reached first"
            break
    if warm is not None and len(ys) > warm:
        est, _ = sequential_batch_means(ys[warm:], rule)
    return StopReport(est, False, reason, clock, warm or 0, checkpoints)


__all__ = [
    "Estimate", "StopRule", "StopReport", "replication_ci", "batch_means_ci", "mser5", "lag1",
    "sequential_batch_means", "run_until_precise", "t_quantile", "t_cdf",
]
