"""Memory is linear in what is simulated (issue 17): building GFC1 with 20,000 extra sources takes a
bounded number of bytes per source, measured as the peak RSS of a fresh process (the scenario is
built, as `ccsim validate` does, and run for a few microseconds). Per-port state is sized by the
VCs that cross a port."""

import json
import subprocess
import sys

# What one source may cost at most, built and with its results in Python. Measured 2026-11-25: about
# 17 kB to build (8.4 kB of it the delay histogram) and 20 kB for the results (each source adds four
# host-link rows, a source row and port rows to the summary): 37 kB in all; 2026-11-26, with sparse
# delay histograms and the result written a row at a time: 19 kB.
BOUND_BYTES_PER_SOURCE = 64 * 1024

_PROBE = """
import json, sys
import ccsim
n = int(sys.argv[1])
r = ccsim.run("abr-benchmarks/gfc1", set={"source[0].count": n, "run.duration": "20us", "run.measure_from": "10us",
                                          "measure.acr": False, "measure.queue": False, "measure.received": False,
                                          "measure.utilization": False})
# VmHWM, not ru_maxrss: the latter also counts the memory of the process this one was forked from
# (the test runner) until its exec.
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"sources": len(r.summary()["sources"]), "maxrss_kb": hwm}))
"""


def _peak(n: int) -> dict:
    p = subprocess.run([sys.executable, "-c", _PROBE, str(n)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_memory_per_source_is_bounded():
    """Quadratic state (per-port tables for every VC in the scenario, as before issue 17) took 5.6 GB
    at 4,000 sources; bounded bytes per source over 1,000 to 20,000 rule that out. (Peak RSS counts
    only touched pages, so it can come out lower than the allocations; never higher.)"""
    small, large = _peak(1_000), _peak(20_000)
    assert large["sources"] - small["sources"] == 19_000
    per_source = (large["maxrss_kb"] - small["maxrss_kb"]) * 1024 / 19_000
    assert 0 < per_source < BOUND_BYTES_PER_SOURCE, per_source
