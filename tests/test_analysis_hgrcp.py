"""HG-RCP's closed forms (seed 000 §3) and `ccsim analyze hgrcp`: the seed's own numbers, and the
corrected buffer variance against the transfer function it comes from."""

import json
import math
import subprocess

import pytest

from ccsim.analysis import hgrcp as h


def test_eq14_gives_table4_theoretical_column():
    # Table 4: 5062 and 2581 cells for T = 100 and 50 ms (PCR 23 585 cells/s, Q = 100, 10 Mb/s LAN).
    assert h.q_max_cells(0.100, 10, 100, 23_585) == pytest.approx(5062.67, abs=0.005)
    assert h.q_max_cells(0.050, 20, 100, 23_585) == pytest.approx(2581.33, abs=0.005)
    assert h.q_max_cells(0.010, 100, 100, 23_585) == pytest.approx(596.27, abs=0.005)


def test_eq8_gives_60_degrees_at_the_design_rule_and_none_when_unstable():
    for T in (0.01, 0.05, 0.1):
        assert h.phase_margin_deg(1 / T, T) == pytest.approx(60.0, abs=1e-9)
    assert h.phase_margin_deg(1.999 / 0.01, 0.01) > 0
    assert h.phase_margin_deg(2.0 / 0.01, 0.01) is None
    # arccos(KT / 2) is the same margin.
    assert h.phase_margin_deg(50, 0.01) == pytest.approx(math.degrees(math.acos(0.25)))


def test_eq15_gives_0_224_percent_for_a_28_byte_rn_every_10_ms():
    assert h.overhead_fraction(0.010, 28) == pytest.approx(0.00224)
    # On the wire a 28-byte packet is a minimum Ethernet frame: 84 byte-times.
    assert h.overhead_fraction(0.010, 28, framed=True) == pytest.approx(0.00672)
    assert h.overhead_fraction(0.010, 1500, framed=True) == pytest.approx(1538 * 8 / 0.01 / 10e6)


@pytest.mark.parametrize("a", [0.3, 0.5, 0.9])
@pytest.mark.parametrize("kt", [0.25, 1.0, 1.75])
def test_the_corrected_variance_is_the_transfer_function_s(a, kt):
    T = 0.01
    closed = h.buffer_variance_corrected(kt / T, T, a, 2.0)
    summed = h.buffer_variance_of_transfer_function(kt / T, T, a, 2.0, terms=20_000)
    assert closed == pytest.approx(summed, rel=1e-9)


def test_the_printed_variance_differs_and_has_a_spurious_pole():
    T, a = 0.01, 0.9
    assert h.buffer_variance_printed(1.0 / T, T, a, 1.0) != pytest.approx(h.buffer_variance_corrected(1.0 / T, T, a, 1.0))
    assert math.isinf(h.buffer_variance_printed((1 - a) / T, T, a, 1.0))


def test_cli_prints_the_contract_keys(cli, env):
    p = subprocess.run(cli + ["analyze", "hgrcp", "--T", "100ms", "--json"], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert {"q_max_cells", "phase_margin_deg", "overhead_fraction", "overhead_fraction_framed"} <= set(doc)
    assert doc["K"] == pytest.approx(10.0) and doc["q_max_cells"] == pytest.approx(5062.67, abs=0.005)
    p = subprocess.run(cli + ["analyze", "hgrcp", "--T", "10ms", "--K", "10", "--Q", "50", "--pcr", "20000", "--json"],
                       capture_output=True, text=True, env=env)
    assert json.loads(p.stdout)["q_max_cells"] == pytest.approx((20000 + 500) / 10 + 10e6 * 0.01 / 384)


def test_cli_errors_and_warnings(cli, env):
    p = subprocess.run(cli + ["analyze", "hgrcp", "--T", "0ms"], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and p.stderr.strip() == "error: --T: must be > 0, got 0.0"
    p = subprocess.run(cli + ["analyze", "hgrcp", "--T", "5fortnights"], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and "--T: '5fortnights' is not a duration" in p.stderr
    p = subprocess.run(cli + ["analyze", "hgrcp", "--T", "10ms", "--K", "250", "--json"], capture_output=True, text=True, env=env)
    assert p.returncode == 0 and p.stderr.startswith("warning: K*T = 2.5 >= 2")
    assert json.loads(p.stdout)["phase_margin_deg"] is None
