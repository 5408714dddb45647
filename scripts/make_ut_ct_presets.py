"""Writes seed 004's presets (python/ccsim/presets/ut-ct/): the 2-node cases 1-6 with UT and with CT
sized three ways, and the max-min cases 1-3 with UT and with CT's BDP sizing. One source of truth
for thirty files; `tests/test_ut_ct.py` checks the files are what this script writes.

    python scripts/make_ut_ct_presets.py

The choices the seed leaves open are named in each description and in docs/models/credit.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "python" / "ccsim" / "presets" / "ut-ct"

# Seed 004 Table I: sources, link, RTT (ms). DS3 as PLCP-mapped cells, OC-3 as its SONET payload.
CASES = {1: (10, "DS3", 1), 2: (100, "OC3", 1), 3: (10, "DS3", 25), 4: (100, "OC3", 25), 5: (10, "DS3", 50), 6: (100, "OC3", 50)}
LINE_MBPS = {"DS3": 44.736, "OC3": 155.52}
# Table III: UT's maximum queue at switch 1, which the first CT runs used as Policy_Limit.
TABLE3_MAX = {1: 156, 2: 24, 3: 259, 4: 31, 5: 750, 6: 82}
N2 = 32
# [SEED] "the PDU size was fixed to 1536 bytes" (Section VI), and Eq. 6 counts ceil(1536/48) = 32 cells
# per packet: the 1,536 bytes are the whole AAL5 CPCS-PDU, the TCP/IP headers and the 8-byte AAL5
# trailer inside, so a full-size segment fills 32 cells exactly, with no padding. [RECON] no LLC/SNAP
# header: the seed's stack puts TCP straight on the adapter's SAR (one VC per source: RFC 2684's VC
# multiplexing). The MSS is what is left: 1536 - 40 - 8 = 1488 bytes (docs/reproductions/ut-ct.md).
PDU_BYTES, HEADER_BYTES, TRAILER_BYTES = 1536, 40, 8
MSS = PDU_BYTES - HEADER_BYTES - TRAILER_BYTES
assert PDU_BYTES % 48 == 0
# Table II: max-min configuration, link rates of L1, L2, L3.
MAXMIN = {1: ("DS3", "DS3", "DS3"), 2: ("DS3", "DS3", "25Mbps"), 3: ("25Mbps", "DS3", "DS3")}

COMMON = """\
[run]
duration = "150s"
measure_from = "10s"

[measure]
interval = "100ms"
"""


def rate_lines(link: str) -> str:
    if link == "DS3":
        return 'link_rate = "96000cells/s"\n'
    return 'link_rate = "155.52Mbps"\nsonet_payload = true\n'


def tcp_line(window: int) -> str:
    return (f'tcp = {{ variant = "tahoe", mss = "{MSS}B", llc_snap = false, window = "{window}B", '
            'clock = { type = "bsd_ticks", tick = "500ms" } }\n')


def ut_lines(frtt_ms: float) -> str:
    return ('algorithm = { type = "ut", target_utilization = 0.9, interval = "10ms" }\n'
            f'abr = {{ mcr = "20kbps", icr = "100cells/s", rif = 1.0, rdf = 0.000030517578125, nrm = 32, mrm = 2, '
            f'tbe = 16000000, cdf = 0.0625, trm = "100ms", adtf = "500ms", frtt = "{frtt_ms:g}ms" }}\n')


def credit_table(kind: str, case: int) -> str:
    # Seed 004: "our work only focuses on flow control per VP": the connections between the same
    # switches form one VP and share each hop's allocation (docs/models/credit.md).
    head = f'\n[credit]\nscope = "vp"\nn2 = {N2}\nt_bsc = "1s"\n'
    if kind == "ct-table3":
        return head + f'policy_limit = {TABLE3_MAX[case]}\n'
    # ct-bdp, and ct-timeout: the BDP allocation, which `ccsim reproduce ut-ct` reduces for cases
    # 2, 4, 6 by bisection until the packet-to-ACK time stays below 0.5 s (the seed gives no numbers).
    return head + 'sizing = "bdp"\n'


DESCRIBE = {
    "ut": "UT (Table IV: target 0.9, t_c 10 ms, MCR 20 kb/s, ICR 100 cells/s, TM 4.0 defaults otherwise, FRTT = the round trip) over TCP over ABR",
    "ct-table3": "CT per VP (all sources share the switch 1 -> switch 2 hop's one allocation) with Table III's UT maxima as Policy_Limit, verbatim (cases 2 and 4: 24 and 31 cells, below N2 = 32, so a receiver never sends a BSU of its own and each VP's credit comes back only through the BSC, Policy_Limit cells per T_BSC on every hop)",
    "ct-bdp": "CT per VP with the bandwidth-delay Policy_Limit per hop (access cell rate x time to the first BSU)",
    "ct-timeout": "CT per VP sized to avoid TCP timeouts: the BDP allocation here, reduced by `ccsim reproduce ut-ct` for cases 2, 4, 6 until the 99.9th percentile of packet-to-ACK time is below 0.5 s; cases 1, 3, 5 keep the BDP allocation, as in the seed",
}

RECON = ("Reconstructed: DS3 as 96 000 cells/s (PLCP), OC-3 as its SONET payload; one access link per source at "
         f"the case's rate; delays D1 = D3 = RTT/8, D2 = RTT/4; TCP Tahoe with {MSS}-byte segments in {PDU_BYTES}-byte AAL5 "
         f"PDUs (40 header bytes and the 8-byte trailer inside, no LLC/SNAP: {PDU_BYTES // 48} cells, as Eq. 6 counts), "
         "BSD 500 ms ticks and the window RTT x line rate / 8; a 1130-cell adapter dropping whole PDUs; sessions "
         "per source with the burst minimum read as 2e6 bytes (docs/reproductions/ut-ct.md: the bits reading leaves "
         "UT far from its 90 % target); switch buffers large enough never to drop.")
# The seed's "alpha = 2 x 10^6": the Pareto minimum, read as bytes (docs/models/sessions.md).
SESSIONS = 'sessions = { burst = { min = "2000000B" } }\n'



def two_node(case: int, kind: str) -> str:
    n, link, rtt = CASES[case]
    window = round(rtt * 1e-3 * LINE_MBPS[link] * 1e6 / 8)
    d1, d2 = rtt / 8, rtt / 4
    abr = kind == "ut"
    desc = (f"Seed 004 Table I case {case} (docs/models/credit.md): {n} bulk-data session sources over {link}, RTT {rtt} ms, "
            f"switch 1 -> switch 2. {DESCRIBE[kind]}. {RECON}")
    text = f'name = "ut-ct/two-node-case{case}-{kind}"\ndescription = """{desc}"""\n\n' + COMMON
    text += "\n[defaults]\n" + rate_lines(link) + f'link_delay = "{d2:g}ms"\nbuffer = "10000000cells"\nhost_buffer = "1130cells"\n'
    text += tcp_line(window) + (ut_lines(rtt) if abr else "")
    text += '\n[[switch]]\nname = "SW1"\n\n[[switch]]\nname = "SW2"\n\n[[link]]\nbetween = ["SW1", "SW2"]\n'
    text += (f'\n[[connection]]\nname = "S"\ncount = {n}\nroute = ["SW1", "SW2"]\n'
             + ('transport = "abr"\n' if abr else "")
             + f'access = {{ delay = "{d1:g}ms" }}\negress = {{ delay = "{d1:g}ms" }}\n' + SESSIONS)
    if not abr:
        text += credit_table(kind, case)
    return text


def maxmin(case: int, kind: str) -> str:
    """Four switches in a chain (L1, L2, L3), 5 ms each, 100 us access links [SEED]. Which sources
    cross which links is in the seed's missing figure; [RECON] the classic layout: S0-S2 cross all
    three links, S3-S5 only L1, S6-S8 only L2, S9-S11 only L3."""
    l1, l2, l3 = MAXMIN[case]
    abr = kind == "ut"
    rates = {"DS3": "96000cells/s", "25Mbps": "25Mbps"}
    desc = (f"Seed 004 Table II case {case} (docs/models/credit.md): the max-min configuration, links L1 = {l1}, "
            f"L2 = {l2}, L3 = {l3} between four switches (5 ms each), access and egress links 100 us at DS3. "
            f"Reconstructed (the seed's Fig. 2 is missing): S0-S2 cross L1-L3, S3-S5 only L1, S6-S8 only L2, S9-S11 "
            f"only L3. {DESCRIBE[kind]}. {RECON}")
    rtt = 2 * (15 + 0.2)  # the long path's round trip, ms
    window = round(rtt * 1e-3 * LINE_MBPS["DS3"] * 1e6 / 8)
    text = f'name = "ut-ct/maxmin-case{case}-{kind}"\ndescription = """{desc}"""\n\n' + COMMON
    text += '\n[defaults]\nlink_rate = "96000cells/s"\nlink_delay = "100us"\nbuffer = "10000000cells"\nhost_buffer = "1130cells"\n'
    text += tcp_line(window) + (ut_lines(rtt) if abr else "")
    for k in range(1, 5):
        text += f'\n[[switch]]\nname = "SW{k}"\n'
    for k, r in enumerate((l1, l2, l3), start=1):
        text += f'\n[[link]]\nname = "L{k}"\nbetween = ["SW{k}", "SW{k + 1}"]\nrate = "{rates[r]}"\ndelay = "5ms"\n'
    routes = [["SW1", "SW2", "SW3", "SW4"], ["SW1", "SW2"], ["SW2", "SW3"], ["SW3", "SW4"]]
    for i in range(12):
        route = ", ".join(f'"{sw}"' for sw in routes[i // 3])
        text += (f'\n[[connection]]\nname = "S{i}"\ndestination = "R{i}"\nroute = [{route}]\n'
                 + ('transport = "abr"\n' if abr else "") + SESSIONS)
    if not abr:
        text += credit_table("ct-bdp", 1)
    return text


def presets() -> dict[str, str]:
    out = {}
    for case in CASES:
        for kind in ("ut", "ct-table3", "ct-bdp", "ct-timeout"):
            out[f"two-node-case{case}-{kind}.toml"] = two_node(case, kind)
    for case in MAXMIN:
        for kind in ("ut", "ct-bdp"):
            out[f"maxmin-case{case}-{kind}.toml"] = maxmin(case, kind)
    return out


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in presets().items():
        (OUT / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(presets())} presets to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
