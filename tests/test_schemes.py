"""Every ABR switch scheme the schema offers can be swapped in from Python (nothing in the Python
layer lists schemes: a new one needs no change here)."""

import pytest

import ccsim


def _schemes():
    spec = ccsim.schema()["$defs"]["AlgorithmSpec"]
    return [variant["properties"]["type"]["const"] for variant in spec["oneOf"]]


def test_the_schema_lists_the_seed_schemes():
    assert {"erica", "efci"} <= set(_schemes())


@pytest.mark.parametrize("scheme", _schemes())
def test_scheme_swap_runs_and_conserves_cells(small, scheme):
    r = ccsim.run(small, scheme=scheme)
    s = r.summary()
    assert ccsim.resolve(small, scheme=scheme)["defaults"]["algorithm"]["type"] == scheme
    assert s["conservation_ok"] is True
    assert all(src["cells_received"] > 0 for src in s["sources"]), s["sources"]
