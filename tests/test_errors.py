"""Malformed scenarios: each gives ScenarioError naming the field, and the CLI exits non-zero
with the same message and no traceback."""

import copy
import json
import subprocess

import pytest

import ccsim

from .conftest import SMALL


def _set(d, path, value):
    keys = path.replace("]", "").replace("[", ".").split(".")
    for k in keys[:-1]:
        d = d[int(k)] if k.isdigit() else d.setdefault(k, {})
    last = keys[-1]
    if last.isdigit():
        d[int(last)] = value
    else:
        d[last] = value


def _mutated(path, value):
    d = copy.deepcopy(SMALL)
    _set(d, path, value)
    return d


def _missing_link():
    d = copy.deepcopy(SMALL)
    d["switch"].append({"name": "SW3"})
    d["source"][1]["route"] = ["SW1", "SW3"]
    return d


CASES = [
    ("unknown key", _mutated("link[0].speed", "1Mbps"), "link[0].speed", "unknown field"),
    ("zero rate", _mutated("link[0].rate", "0Mbps"), "link[0].rate", "must be > 0"),
    ("negative rate", _mutated("defaults.link_rate", "-5Mbps"), "defaults.link_rate", "negative"),
    ("unknown unit", _mutated("link[0].delay", "5 fortnights"), "link[0].delay", "unknown time unit"),
    ("certain loss", _mutated("link[0].loss", 1.0), "link[0].loss", "must be a probability in [0, 1)"),
    ("negative loss", _mutated("link[0].loss", -0.1), "link[0].loss", "must be a probability in [0, 1)"),
    ("route over a missing link", _missing_link(), "source[1].route[1]", "no link between 'SW1' and 'SW3'"),
    ("duplicate names", _mutated("source[1].name", "S1"), "source[1].name", "duplicate name 'S1'"),
    ("empty route", _mutated("source[0].route", []), "source[0].route", "must name at least one switch"),
    ("zero duration", _mutated("run.duration", "0s"), "run.duration", "must be > 0"),
    ("MCR above PCR", _mutated("source[1].abr", {"mcr": "200Mbps"}), "source[1].abr.mcr", "must not exceed pcr"),
    ("buffer of zero", _mutated("defaults.buffer", "0cells"), "defaults.buffer", "at least 1 cell"),
    ("wrong type", _mutated("source[0].count", "three"), "source[0].count", "invalid type"),
    ("unknown algorithm", _mutated("defaults.algorithm", {"type": "magic"}), "defaults.algorithm.type", "unknown variant"),
]


@pytest.mark.parametrize("label,scenario,field,rule", CASES, ids=[c[0] for c in CASES])
def test_api_names_the_field(label, scenario, field, rule):
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.run(scenario)
    msg = str(e.value)
    assert msg.startswith(field + ":"), msg
    assert rule in msg, msg
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("label,scenario,field,rule", CASES, ids=[c[0] for c in CASES])
def test_cli_exits_non_zero_with_the_message(label, scenario, field, rule, tmp_path, cli, env):
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(scenario))
    for cmd in (["run", str(f), "--json"], ["validate", str(f)]):
        p = subprocess.run(cli + cmd, capture_output=True, text=True, env=env)
        assert p.returncode == 2, (cmd, p.stdout, p.stderr)
        assert p.stdout == ""
        assert p.stderr.startswith("error: " + field + ":"), p.stderr
        assert rule in p.stderr
        assert "Traceback" not in p.stderr


def test_bad_override_and_bad_scheme(small):
    with pytest.raises(ccsim.ScenarioError, match=r"^source\[9\]: index out of range"):
        ccsim.run(small, set={"source[9].name": "x"})
    with pytest.raises(ccsim.ScenarioError, match=r"^scheme: unknown ABR switch scheme 'fancy'"):
        ccsim.run(small, scheme="fancy")


def test_invalid_toml_file(tmp_path, cli, env):
    f = tmp_path / "broken.toml"
    f.write_text("name = \n[[[")
    with pytest.raises(ccsim.ScenarioError, match="invalid TOML"):
        ccsim.run(f)
    p = subprocess.run(cli + ["run", str(f)], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and "invalid TOML" in p.stderr and "Traceback" not in p.stderr
