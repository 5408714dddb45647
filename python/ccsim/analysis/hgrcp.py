"""HG-RCP's control analysis (seed 000 §3; docs/models/hgrcp.md).

The gateway samples its ABR-SAP queue q every T and asks the hosts for an aggregate rate
R = ACR + K (Q - q). With the available ABR rate C as a disturbance the loop is
q(n+1) = q(n) + T R(n) - T C, open-loop transfer K T / (z - 1).

- Eq. 8, stability: phase margin PM = atan(sqrt(4 - (KT)^2) / (KT)) = arccos(KT / 2), positive
  iff KT < 2; KT = 1 (the design rule K = 1/T) gives 60 degrees.
- Eq. 13, buffer variance for an AR(1) available rate B(n+1) = a B(n) + (1 - a) beta W(n): the
  printed form (as the seed prints it) and the corrected one (the variance of Eq. 12's transfer
  function, which `buffer_variance_of_transfer_function` computes numerically); they differ.
- Eq. 14, zero-loss buffer: q_max = (PCR + K Q) / K + B T / (8 * 48) cells, independent of the
  number of sources (the gateway says ER = 0 once q >= (PCR + K Q)/K, and an unknown source may
  add one interval T at LAN speed B before it hears it).
- Eq. 15, signalling overhead: one RN of `rn_bytes` per T on a LAN of B b/s; with Ethernet
  framing a 28-byte packet takes a minimum frame plus preamble and gap, 84 byte-times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

ETHERNET_MIN_FRAME_BYTE_TIMES = 84
"""A minimum Ethernet frame with preamble, start delimiter and inter-frame gap, byte-times."""
ETHERNET_OVERHEAD_BYTES = 38
"""Preamble + SFD 8, header 14, FCS 4, gap 12: byte-times added to an IP packet of 46..1500 bytes."""


def phase_margin_deg(K: float, T: float) -> float | None:
    """Eq. 8: the loop's phase margin in degrees; None when KT >= 2 (unstable) or KT <= 0."""
    kt = K * T
    if not (0 < kt < 2):
        return None
    return math.degrees(math.atan(math.sqrt(4 - kt * kt) / kt))


def q_max_cells(T: float, K: float, Q: float, pcr: float, lan_bps: float = 10e6) -> float:
    """Eq. 14: the largest queue (cells) the gateway can see, for any number of sources."""
    return (pcr + K * Q) / K + lan_bps * T / (8 * 48)


def overhead_fraction(T: float, rn_bytes: int = 28, lan_bps: float = 10e6, framed: bool = False) -> float:
    """Eq. 15: the share of the LAN one RN per interval takes; with `framed`, on the wire as an
    Ethernet frame (at least 84 byte-times; 38 byte-times of overhead above 46 bytes)."""
    byte_times = max(ETHERNET_MIN_FRAME_BYTE_TIMES, rn_bytes + ETHERNET_OVERHEAD_BYTES) if framed else rn_bytes
    return byte_times * 8 / T / lan_bps


def buffer_variance_printed(K: float, T: float, a: float, beta: float) -> float:
    """Eq. 13 as the seed prints it (its extraction is damaged; it has a pole at KT = 1 - a)."""
    kt = K * T
    num = (1 - a) * beta**2 * T**2 * ((a * a - a + 2) * kt - 2 * (a - 1) ** 2)
    den = (1 + a) * (1 - a + a * kt) * (a - 1 + kt) * (2 - kt)
    return num / den if den != 0 else math.inf


def buffer_variance_corrected(K: float, T: float, a: float, beta: float) -> float:
    """The variance of Eq. 12's transfer function, in closed form (residues):
    2 (1 - a)^2 beta^2 T^2 / ((1 + a)(2 - KT)(1 - a + a KT))."""
    kt = K * T
    return 2 * (1 - a) ** 2 * beta**2 * T**2 / ((1 + a) * (2 - kt) * (1 - a + a * kt))


def buffer_variance_of_transfer_function(K: float, T: float, a: float, beta: float, terms: int = 200_000) -> float:
    """The same variance summed numerically: the squared impulse response of Eq. 12,
    H(z) = (1 - a) beta T (1 - z) / (z (z - a)(z - (1 - KT))), over `terms` samples."""
    b, c = 1 - K * T, (1 - a) * beta * T
    y1 = y2 = 0.0
    total = 0.0
    # y[n] = (a + b) y[n-1] - a b y[n-2] + c (x[n-3] - x[n-2]) for a unit impulse x[0] = 1.
    for n in range(terms):
        x = (c if n == 3 else 0.0) - (c if n == 2 else 0.0)
        y = (a + b) * y1 - a * b * y2 + x
        total += y * y
        y2, y1 = y1, y
    return total


@dataclass(frozen=True)
class Analysis:
    T: float
    K: float
    Q: float
    pcr: float
    lan_bps: float
    rn_bytes: int

    def as_json(self) -> dict:
        return {
            "T_s": self.T, "K": self.K, "Q_cells": self.Q, "pcr_cells_per_s": self.pcr, "lan_bps": self.lan_bps,
            "rn_bytes": self.rn_bytes,
            "q_max_cells": q_max_cells(self.T, self.K, self.Q, self.pcr, self.lan_bps),
            "phase_margin_deg": phase_margin_deg(self.K, self.T),
            "stable": 0 < self.K * self.T < 2,
            "overhead_fraction": overhead_fraction(self.T, self.rn_bytes, self.lan_bps),
            "overhead_fraction_framed": overhead_fraction(self.T, self.rn_bytes, self.lan_bps, framed=True),
        }


def analyze(T: float, K: float | None = None, Q: float = 100.0, pcr: float = 23_585.0, lan_bps: float = 10e6,
            rn_bytes: int = 28) -> Analysis:
    """Every closed form for one setting; K defaults to the design rule 1/T."""
    if not (T > 0):
        raise ValueError(f"T: must be > 0, got {T}")
    if Q < 0:
        raise ValueError(f"Q: must be >= 0, got {Q}")
    if K is not None and not (K > 0):
        raise ValueError(f"K: must be > 0, got {K}")
    if not (pcr > 0) or not (lan_bps > 0) or rn_bytes <= 0:
        raise ValueError("pcr, lan speed and RN size must be > 0")
    return Analysis(T=T, K=1 / T if K is None else K, Q=Q, pcr=pcr, lan_bps=lan_bps, rn_bytes=rn_bytes)


__all__ = ["analyze", "Analysis", "phase_margin_deg", "q_max_cells", "overhead_fraction", "buffer_variance_printed",
           "buffer_variance_corrected", "buffer_variance_of_transfer_function"]
