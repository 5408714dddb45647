"""Seed 000's zero-loss bound (Eq. 14) against simulation: in every run the gateway's maximum queue
stays below (PCR + K Q)/K + B T/384, whatever the number of connections, the period T, Q or the
background traffic's draw; and HG-RCP's maximum is flat in N while conventional TCP/IP's grows.

The bound holds because the hosts' pacers decide when a packet starts on the shared LAN medium
(docs/models/hgrcp.md): a rate cut holds every packet not yet on the wire."""

import pytest

import ccsim
from ccsim.analysis.hgrcp import q_max_cells

PCR = 23_585.0


def max_queue(preset: str, seed: int, **sets) -> float:
    over = {"run.duration": "20s", "run.measure_from": "0s", **sets}
    return ccsim.run(preset, seed=seed, set=over).summary()["gateways"][0]["max_queue_cells"]


@pytest.mark.parametrize("n", [2, 5, 20])
@pytest.mark.parametrize("t_ms,q", [(10, 100), (10, 20), (50, 100), (100, 100)])
def test_the_gateway_queue_stays_below_eq14(n, t_ms, q):
    t = t_ms / 1e3
    bound = q_max_cells(t, 1 / t, q, PCR)
    for seed in (1, 2):
        m = max_queue(f"hgrcp/hgrcp-{n}", seed, **{"gateway[0].control.T": f"{t_ms}ms",
                                                    "gateway[0].control.K": 1 / t, "gateway[0].control.Q": q})
        assert 0 < m < bound, f"N = {n}, T = {t_ms} ms, Q = {q}, seed {seed}: {m} cells, bound {bound:.0f}"


def test_hgrcp_is_flat_in_n_while_conventional_grows():
    hg = {n: max(max_queue(f"hgrcp/hgrcp-{n}", s) for s in (1, 2)) for n in (1, 5, 20)}
    conv = {n: max(max_queue(f"hgrcp/conventional-{n}", s) for s in (1, 2)) for n in (1, 5, 20)}
    assert conv[1] < conv[5] < conv[20], conv
    # twenty times the connections: conventional grows more than tenfold, HG-RCP less than twofold
    assert conv[20] > 10 * conv[1] and hg[20] < 2 * hg[1], (hg, conv)
    assert all(hg[n] * 10 < conv[n] for n in (5, 20)), (hg, conv)
