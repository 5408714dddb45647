"""Optional dependencies: a feature whose extra is not installed fails with one error naming it."""

import sys

import pytest

import ccsim
from ccsim._extras import require


@pytest.mark.parametrize("module, extra, call", [
    ("pandas", "pandas", lambda r, tmp: r.to_pandas("acr")),
    ("plotly.offline", "report", lambda r, tmp: __import__("ccsim.sweeps.report", fromlist=["x"]).write_report(tmp)),
    ("dask.distributed", "dask", lambda r, tmp: __import__("ccsim.sweeps.dask_cluster", fromlist=["x"]).DaskExecutor()),
])
def test_a_missing_extra_is_named(monkeypatch, tmp_path, module, extra, call):
    r = ccsim.run("abr-benchmarks/two-sources", duration="5ms")
    monkeypatch.setitem(sys.modules, module, None)  # `import module` now raises ImportError
    with pytest.raises(ccsim.CcsimError, match=rf"needs {module.split('.')[0]}, an optional dependency: pip install 'ccsim\[{extra}\]'"):
        call(r, tmp_path)


def test_require_returns_the_module():
    assert require("json", "none", "json").dumps([1]) == "[1]"
