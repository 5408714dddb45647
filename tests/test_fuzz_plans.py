"""Fuzzing of sweep plans (issue 35): a valid plan with one field replaced by an arbitrary value,
deleted, or joined by an unknown key, as a dict or as TOML text, and arbitrary bytes as a plan
file, end in a parsed plan or in one `CcsimError` of one line. Never another exception, a hang or
an expansion that eats the memory. Hypothesis draws the mutations and shrinks any failure."""

import copy
import os

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import ccsim
from ccsim.sweeps import parse_plan

from .conftest import tree_paths

BASE = {
    "name": "fuzz",
    "scenario": "abr-benchmarks/two-sources",
    "scheme": "erica",
    "seed": 3,
    "replications": 2,
    "metrics": ["fairness_index", "mean(sources.acr_mbps)", "series.queue[SW1->SW2]"],
    "set": {"run.duration": "20ms"},
    "axis": [
        {"path": "source[0].count", "range": {"start": 1, "stop": 5, "step": 1}},
        {"path": "defaults.link_delay", "values": [1, 2], "unit": "ms", "zip": "z"},
        {"path": "defaults.buffer", "range": {"start": 100, "stop": 200, "num": 2}, "zip": "z"},
    ],
    "stop": {"metric": "series.queue[SW1->SW2]", "precision": 0.1},
    "labels": {"source[0].count": "N"},
}


PATHS = tree_paths(BASE)

numbers = st.one_of(
    st.integers(), st.floats(), st.sampled_from([0, -1, 1, 2**63, 10**12, 10**400, 1e-300, 5e-324, 1e308, -0.0]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=12),
                    st.sampled_from(["", "ms", "z", "source[0].count", "fairness_index", "series.acr[*]"]))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                      max_leaves=8)


@st.composite
def mutated(draw):
    plan = copy.deepcopy(BASE)
    for _ in range(draw(st.integers(1, 3))):
        paths = tree_paths(plan)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = plan
        try:
            for step in path[:-1]:
                parent = parent[step]
            action = draw(st.sampled_from(["replace", "replace", "delete", "unknown key"]))
            if action == "replace":
                parent[path[-1]] = draw(values)
            elif action == "delete":
                del parent[path[-1]]
            elif isinstance(parent[path[-1]], dict):
                parent[path[-1]][draw(st.text(min_size=1, max_size=6))] = draw(scalars)
        except (KeyError, IndexError, TypeError):
            pass  # an earlier mutation removed or replaced the path
    return plan


def _toml(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(repr(v), repr(v))
    if isinstance(v, str):
        return '"' + v.encode("unicode_escape").decode().replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_toml(str(k))} = {_toml(x)}" for k, x in v.items()) + "}"
    return '"none"'  # TOML has no null


def _refused_or_parsed(src) -> None:
    try:
        plan = parse_plan(src)
    except ccsim.CcsimError as e:
        event("refused")
        assert str(e) and "\n" not in str(e), str(e)
        return
    event("parsed")
    plan.identity()
    assert len(plan.points()) * plan.replications <= 100_000


# `make fuzz` raises the count (CCSIM_FUZZ_EXAMPLES); the test suite's take a few seconds.
EXAMPLES = int(os.environ.get("CCSIM_FUZZ_EXAMPLES", "300"))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_a_mutated_plan_dict_is_parsed_or_refused_in_one_line(plan):
    _refused_or_parsed(plan)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_a_mutated_plan_as_toml_text_is_parsed_or_refused_in_one_line(plan):
    text = "\n".join(f"{_toml(str(k))} = {_toml(v)}" for k, v in plan.items()) + "\n"
    _refused_or_parsed(text)


@settings(max_examples=max(EXAMPLES // 3, 10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode),
                 st.integers(1, 5000).map(lambda n: b"a = " + b"[" * n + b"]" * n),
                 st.integers(1, 5000).map(lambda n: b"a = " + b"{b = " * n + b"1" + b"}" * n)))
def test_arbitrary_bytes_as_a_plan_file_are_parsed_or_refused_in_one_line(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("plan") / "plan.toml"
    path.write_bytes(data)
    _refused_or_parsed(path)


@pytest.mark.parametrize("n", [10, 63, 64, 65, 500, 100_000])
def test_nesting_at_and_around_the_limit(n):
    with pytest.raises(ccsim.CcsimError) as e:
        parse_plan("name = " + "[" * n + "]" * n + "\n")
    assert "\n" not in str(e.value)
    assert str(e.value).startswith("name: must be" if n < 64 else ("name: arrays or tables nested", "plan: arrays"))
