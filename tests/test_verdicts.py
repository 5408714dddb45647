"""The one verdict model of the reproductions (ccsim/reproductions/verdicts.py): tolerances, rows
that cannot break the contract, and headlines that count exactly what they say."""

import pytest

from ccsim.reproductions import verdicts as V

QUOTE = "20 407 129.64 6.4092"


def test_tolerance_modes():
    rel = V.tolerance("rel", 0.05, "the seed prints 3 digits")
    assert V.admits(rel, 104.9, 100) and not V.admits(rel, 105.2, 100)
    ab = V.tolerance("abs", 0.01, "two decimals")
    assert V.admits(ab, 0.875, 0.87) and not V.admits(ab, 0.885, 0.87)
    # An order-of-magnitude claim agrees within its factor, never at "> 1".
    fac = V.tolerance("factor", 10, "over 30,000 times: the same order of magnitude")
    assert V.admits(fac, 5_000, 30_000) and not V.admits(fac, 2.0, 30_000) and not V.admits(fac, 0, 30_000)
    rng = V.tolerance("range", 0.0, "the seed states the range")
    assert V.admits(rng, 6.41, [6.40, 6.43]) and not V.admits(rng, 6.45, [6.40, 6.43])
    low = V.tolerance("at_most", 0.0, "as low as 1 %")
    assert V.admits(low, 1.0, 1) and not V.admits(low, 14.5, 1)
    assert V.admits(V.tolerance("at_least", 0.1, "over"), 27_000, 30_000)
    for bad in [("rel", None, "x"), ("abs", float("nan"), "x"), ("rel", 0.1, " "), ("approx", 1, "x")]:
        with pytest.raises(ValueError):
            V.tolerance(*bad)


def test_a_quantity_row_carries_the_contract_fields_and_its_interval():
    r = V.quantity("Table 5, Q = 20: mean queue, cells", 129.64, QUOTE, [120.0, 130.0, 140.0],
                   V.tolerance("rel", 0.1, "x"), where="Table 5")
    assert set(V.FIELDS) <= set(r) and r["kind"] == "simulated"
    assert r["ccsim"] == 130.0 and r["ccsim_ci"][0] < 130 < r["ccsim_ci"][1]
    assert r["verdict"] == "agrees" and r["counted"] is True
    one = V.quantity("q", 129.64, QUOTE, [200.0], V.tolerance("rel", 0.1, "x"))
    assert one["ccsim_ci"] is None and one["verdict"] == "differs" and one["counted"]


def test_a_row_without_a_tolerance_is_never_counted():
    r = V.quantity("q", 129.64, QUOTE, [129.64], None, note="[RECON] the seed leaves it open")
    assert r["verdict"] == "not_comparable" and r["counted"] is False
    bad = dict(r, counted=True)
    assert "counted without a tolerance and its reason" in V.check_row(bad)
    with pytest.raises(ValueError, match="counted without a tolerance"):
        V.check_rows([bad])


def test_a_withheld_row_has_no_verdict_whatever_its_numbers():
    """A row whose runs did not exercise what it measures (a link that carried nothing) is not
    comparable and not counted; its tolerance, extra fields and note stay, behind the reason."""
    r = V.quantity("q", 129.64, QUOTE, [129.0, 130.0], V.tolerance("rel", 0.1, "x"), note="n", configurations=["a"])
    w = V.withheld(r, "Not comparable: link L2 carried nothing.")
    assert r["verdict"] == "agrees" and w["verdict"] == "not_comparable" and not w["counted"]
    assert w["tolerance"] == r["tolerance"] and w["configurations"] == ["a"] and w["kind"] == "simulated"
    assert w["note"] == "Not comparable: link L2 carried nothing. n"
    assert V.counts([r], False)["agree"] == 1 and V.counts([w], False) | {"headline": ""} == {
        "agree": 0, "counted": 0, "statements_hold": 0, "statements": 0, "not_comparable": 1, "quick": False, "apart": 0,
        "headline": ""}
    with pytest.raises(ValueError):
        V.withheld(r, " ")


def test_the_papers_number_must_be_in_its_quote():
    with pytest.raises(ValueError, match="the paper's 129.6 is not in the quote"):
        V.quantity("q", 129.6, QUOTE, [1.0], V.tolerance("rel", 0.1, "x"))
    assert V.check_row(V.quantity("q", 5062, "Table 4 … 5,062 cells", [5000.0], None)) == []
    # A range midpoint is not the seed's number: a range row names both ends.
    with pytest.raises(ValueError, match="6.415 is not in the quote"):
        V.quantity("q", 6.415, "6.40-6.43 Mbps", [6.41], V.tolerance("rel", 0.01, "x"))
    assert V.quantity("q", [6.40, 6.43], "between 6.40 and 6.43 Mbps", [6.41],
                      V.tolerance("range", 0, "stated"))["verdict"] == "agrees"


def test_arithmetic_and_inputs_are_listed_apart_and_never_counted():
    a = V.quantity("Eq. 14 bound, cells", 5062, "5062", [5062.3], V.tolerance("abs", 1, "rounding"), kind="arithmetic")
    i = V.quantity("S2's rate, Mb/s", 20, "fixed rate of 20 Mbps", [20.0], V.tolerance("rel", 0, "set"), kind="input")
    assert not a["counted"] and not i["counted"]
    with pytest.raises(ValueError, match="never counted"):
        V.check_rows([dict(a, counted=True)])
    n = V.quantity("a setting the seed does not give", 5, "5 connections", [5.0], None, kind="input")
    c = V.counts([a, i, n], quick=False)
    assert (c["agree"], c["counted"], c["apart"], c["not_comparable"]) == (0, 0, 3, 0)


def test_statements_are_decided_at_the_seeds_magnitude():
    fac = V.tolerance("factor", 10, "over 30,000 times: within a factor of 10")
    s = V.statement("Fig. 4: UT needs far more memory than CT", "over 30,000 times more", None, 2.0, fac, paper=30000)
    assert s["verdict"] == "differs" and s["counted"], "a ratio of 2 does not hold 'over 30,000 times'"
    with pytest.raises(ValueError, match="holds=True but the tolerance gives False"):
        V.statement("x", "over 30,000 times more", True, 2.0, fac, paper=30000)
    crit = V.tolerance("criterion", None, "the queue at N = 20 exceeds N = 1 by more than the seeds' spread")
    assert V.statement("grows", "grows with the number of connections", True, "439 → 893", crit)["verdict"] == "agrees"
    assert V.statement("open", "grows", None, "", crit)["verdict"] == "not_comparable"


def test_the_headline_counts_exactly_what_it_says():
    tol = V.tolerance("rel", 0.1, "x")
    crit = V.tolerance("criterion", None, "c")
    rows = [V.quantity("a", 129.64, QUOTE, [129.0], tol), V.quantity("b", 407, QUOTE, [600.0], tol),
            V.quantity("c", 407, QUOTE, [400.0], None), V.statement("s", "grows", True, "x", crit),
            V.statement("t", "grows", False, "x", crit)]
    c = V.counts(rows, quick=False)
    assert {k: c[k] for k in ("agree", "counted", "statements_hold", "statements", "not_comparable")} == \
        {"agree": 1, "counted": 2, "statements_hold": 1, "statements": 2, "not_comparable": 1}
    assert c["headline"] == ("1 of 2 simulated quantities agree within their stated tolerance; "
                             "1 of 2 statements hold at the seed's magnitude; 1 not comparable")
    assert V.counts(rows, quick=True)["headline"].startswith(V.QUICK_WARNING)


def test_numbers_in_reads_the_seeds_spellings():
    assert V.numbers_in("5,062 cells and 0.87, 1 % and −3") == [5062.0, 0.87, 1.0, -3.0]
    assert 129.64 in V.numbers_in(QUOTE)
