"""A synthetic result dict in the shape `_core.Simulation.finish()` returns, so Result, plots
and the CLI summary printer are tested without running the engine (and with more sources than
a small run has, to exercise grouping)."""

import math


def synthetic_result() -> dict:
    t = [i * 1e-4 for i in range(200)]
    sources = ["A1", "A2", "B1", "B2", "B3", "C1", "C2", "C3", "C4", "D1"]
    acr = {"time_s": [], "source": [], "acr_mbps": []}
    received = {"time_s": [], "source": [], "cells": []}
    for k, name in enumerate(sources):
        for i, ti in enumerate(t):
            acr["time_s"].append(ti); acr["source"].append(name)
            acr["acr_mbps"].append(15.0 + 10.0 * math.exp(-ti * 100) * (k + 1))
            received["time_s"].append(ti); received["source"].append(name)
            received["cells"].append(float(i * 3 * (k + 1)))
    ports = ["SW1->SW2", "SW2->SW3", "SW2->DA1"]
    queue = {"time_s": [], "port": [], "queue_cells": []}
    utilization = {"time_s": [], "link": [], "utilization": []}
    for k, name in enumerate(ports):
        for i, ti in enumerate(t):
            queue["time_s"].append(ti); queue["port"].append(name)
            queue["queue_cells"].append(float((i % 20) * (2 - k)) if k < 2 else 0.0)
            utilization["time_s"].append(ti); utilization["link"].append(name)
            utilization["utilization"].append(0.9)
    return {
        "scenario": "synthetic/ten", "seed": 7, "sim_time_s": 0.02, "events": 12345, "cell_hops": 67890,
        "fingerprint": "00ff00ff00ff00ff", "scenario_hash": "abc123", "window_s": [0.01, 0.02],
        "fairness_index": 0.987, "conservation_ok": True,
        "sources": [
            {"name": n, "destination": "D" + n, "acr_mbps": 15.0, "final_acr_mbps": 15.0, "rate_mbps": 14.5,
             "maxmin_mbps": 14.75 if n != "D1" else 0.0, "cells_sent": 1000 + k, "cells_received": 990 + k,
             "cells_dropped": 0, "clr": 0.0, "window_clr": 0.0, "delay_mean_ms": 0.03 + 0.001 * k,
             "delay_p99_ms": 0.04 + 0.001 * k, "jitter_ms": 0.0001}
            for k, n in enumerate(sources)
        ],
        "ports": [
            {"name": p, "link": p, "mean_queue_cells": 3.5 * (2 - k), "max_queue_cells": 19 * (2 - k),
             "max_queue_cells_run": 19 * (2 - k), "drops": 0}
            for k, p in enumerate(ports)
        ],
        "links": [
            {"name": f"{p} ({p.split('->')[0]}->{p.split('->')[1]})", "link": p, "from": p.split("->")[0],
             "to": p.split("->")[1], "rate_mbps": 155.52, "utilization": 0.9}
            for p in ports
        ],
        "series": {"acr": acr, "queue": queue, "received": received, "utilization": utilization},
        "vcs": {"name": sources, "data_sent": [1000 + k for k in range(len(sources))],
                "data_delivered": [990 + k for k in range(len(sources))], "clr": [0.0] * len(sources)},
        "wall_s": 0.5,
    }


