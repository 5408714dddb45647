"""Statistics: t quantiles, MSER-5 warm-up deletion, batch means, replications, and the stopping
rule on synthetic metrics of known variance (docs/sweeps.md, "Statistics")."""

import math

import numpy as np
import pytest

from ccsim.sweeps.stats import (StopRule, batch_means_ci, mser5, replication_ci, run_until_precise,
                                sequential_batch_means, t_quantile)


def test_t_quantiles_match_tables():
    # Student t 97.5% points (any statistics table)
    for df, q in [(1, 12.7062), (4, 2.7764), (9, 2.2622), (19, 2.0930), (39, 2.0227), (1000, 1.9623)]:
        assert t_quantile(0.975, df) == pytest.approx(q, abs=1e-4)
    assert t_quantile(0.025, 4) == pytest.approx(-2.7764, abs=1e-4)


def test_replication_interval_known_values():
    e = replication_ci([1.0, 2.0, 3.0, 4.0, 5.0])
    # mean 3, s = sqrt(2.5), H = t(0.975, 4) * s / sqrt(5)
    assert e.mean == 3.0 and e.n == 5 and e.method == "replications"
    assert e.half_width == pytest.approx(2.7764451 * math.sqrt(2.5) / math.sqrt(5), rel=1e-6)
    one = replication_ci([4.2])
    assert one.method == "none" and math.isnan(one.half_width)
    same = replication_ci([7.0] * 5)  # a deterministic model: zero width, said so
    assert same.half_width == 0.0 and same.method == "replications"


def test_mser5_finds_a_linear_ramp():
    # acceptance check 2: a ramp of length L, then stationary noise -> truncation in [0.8 L, 1.5 L]
    rng = np.random.default_rng(3)
    for L in (100, 250, 500):
        y = np.concatenate([np.linspace(0.0, 10.0, L), 10.0 + rng.normal(0, 1, 4000)])
        assert 0.8 * L <= mser5(y) <= 1.5 * L, (L, mser5(y))
    assert mser5(rng.normal(5, 1, 1000)) <= 100  # no transient: little deleted


def test_batch_means_widens_for_correlated_data():
    # AR(1) with phi = 0.9 and unit innovations: the long-run variance is 1/(1-phi)^2 = 100, so the
    # standard deviation of the mean of n observations is sqrt(100/n)
    rng = np.random.default_rng(5)
    n, phi = 40_000, 0.9
    e = rng.normal(0, 1, n)
    y = np.empty(n)
    y[0] = 0.0
    for i in range(1, n):
        y[i] = phi * y[i - 1] + e[i]
    naive = 1.96 * y.std() / math.sqrt(n)
    bm = batch_means_ci(y, batches=20)
    true_sd_of_mean = math.sqrt(1.0 / (1 - phi) ** 2 / n)
    assert bm.method == "batch-means" and bm.details["batches"] == 20
    assert bm.half_width > 2 * naive
    assert 0.5 < bm.half_width / (2.093 * true_sd_of_mean) < 2.0


def _iid_source(rng, mean, sd, chunk, dt=0.01):
    state = {"t": 0.0}

    def next_chunk():
        state["t"] += chunk * dt
        return rng.normal(mean, sd, chunk), state["t"]

    return next_chunk


def test_stopping_rule_stops_at_the_requested_precision():
    rng = np.random.default_rng(11)
    mean, sd = 10.0, 2.0
    rep = run_until_precise(_iid_source(rng, mean, sd, 50), StopRule(precision=0.01, confidence=0.95))
    assert rep.reached and rep.reason == "precision reached"
    assert rep.achieved_precision <= 0.01
    assert rep.estimate.low <= mean <= rep.estimate.high
    # about (1.96 * sd / (0.01 * mean))^2 = 1537 observations are needed; batch means need a few more
    assert 1000 <= rep.estimate.n <= 6000, rep.estimate.n
    assert rep.estimate.details["batches"] >= 20 and rep.estimate.method == "batch-means"


def test_stopping_rule_other_levels_are_configurable():
    rng = np.random.default_rng(12)
    loose = run_until_precise(_iid_source(rng, 10.0, 2.0, 50), StopRule(precision=0.05, confidence=0.90))
    tight = run_until_precise(_iid_source(rng, 10.0, 2.0, 50), StopRule(precision=0.005, confidence=0.99))
    assert loose.reached and tight.reached
    assert loose.estimate.confidence == 0.90 and tight.estimate.confidence == 0.99
    assert tight.estimate.n > 10 * loose.estimate.n
    assert tight.achieved_precision <= 0.005


def test_stopping_rule_reports_honestly_when_time_runs_out():
    rng = np.random.default_rng(13)
    # 1% of a mean of 10 with sd 20 needs ~150 000 observations; the limit allows 2000 (t = 20)
    rep = run_until_precise(_iid_source(rng, 10.0, 20.0, 100, dt=0.01), StopRule(precision=0.01, t_max=20.0))
    assert not rep.reached and rep.reason == "time limit reached first"
    assert rep.time == pytest.approx(20.0)
    assert rep.achieved_precision > 0.01  # what was achieved, not what was asked
    assert math.isfinite(rep.estimate.half_width) and rep.estimate.n > 0


def test_stopping_rule_coverage():
    # acceptance check 1 in spirit: the stopped intervals cover the true mean ~95% of the time
    rng = np.random.default_rng(17)
    covered = 0
    for _ in range(100):
        rep = run_until_precise(_iid_source(rng, 1.0, 0.5, 40), StopRule(precision=0.02))
        assert rep.reached
        covered += rep.estimate.low <= 1.0 <= rep.estimate.high
    assert covered >= 85, covered


def test_sequential_batches_stay_between_20_and_40():
    y = np.arange(1000, dtype=float) % 7
    for n in (20, 39, 40, 79, 80, 1000):
        est, _ = sequential_batch_means(y[:n], StopRule())
        assert 20 <= est.details["batches"] < 40
