"""Mutation fuzzing of scenarios (issue 17): a preset with one field replaced by an arbitrary JSON
value, deleted, or joined by an unknown key is either accepted (and then builds and runs) or
refused with a `ScenarioError` whose message starts with a field path. Never a panic
(`InternalError`), another exception, or a hang. Hypothesis draws the mutations and shrinks any
failure to its smallest form."""

import copy
import os
import re

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import ccsim

from .conftest import tree_paths

# One preset per model family: ABR, TCP over UBR/GFR, TCP over IP routers, HG-RCP gateways, credit.
PRESETS = ["abr-benchmarks/two-sources", "gfr/option-acct-tag-vcq", "ficcrd/ficcrd", "hgrcp/hgrcp-1", "ut-ct/two-node-case1-ct-bdp"]
RESOLVED = {p: ccsim.resolve(p) for p in PRESETS}
# An error names its field: `path: message`, or at the top level serde's "missing field `run`".
MESSAGE = re.compile(r"^(\S.*?: \S|(missing|unknown) field `)")


PATHS = {p: [x for x in tree_paths(t) if x[0] not in ("name", "description")] for p, t in RESOLVED.items()}

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2**40, max_value=2**40), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12), st.sampled_from(["0s", "1ms", "-1ms", "1e9s", "0Mbps", "155Mbps", "1e30bps", "0cells", "10cells",
                                           "4096B", "reno", "erica", "red", "drop_tail", "", "NaN", "inf", "1x", "10 ms"]),
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                      max_leaves=6)


@st.composite
def mutations(draw):
    preset = draw(st.sampled_from(PRESETS))
    tree = copy.deepcopy(RESOLVED[preset])
    path = draw(st.sampled_from(PATHS[preset]))
    parent = tree
    for step in path[:-1]:
        parent = parent[step]
    action = draw(st.sampled_from(["replace", "replace", "delete", "unknown key"]))
    if action == "replace":
        parent[path[-1]] = draw(values)
    elif action == "delete":
        if isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent.pop(path[-1])
    elif isinstance(parent[path[-1]], dict):
        parent[path[-1]]["no_such_field"] = draw(scalars)
    return preset, path, action, tree


# `make fuzz` raises the count (CCSIM_FUZZ_EXAMPLES); the test suite's 1,000 take about 6 s.
EXAMPLES = int(os.environ.get("CCSIM_FUZZ_EXAMPLES", "1000"))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations())
def test_a_mutated_scenario_is_accepted_or_refused_by_field(m):
    preset, path, action, tree = m
    try:
        ccsim.resolve(tree)
    except ccsim.ScenarioError as e:
        event("refused")
        assert MESSAGE.match(str(e)) or str(e).startswith(("a scenario", "invalid")), (preset, path, action, str(e))
        return
    event("accepted")
    # Accepted: it builds and runs (briefly: a mutated rate may make a long run slow).
    try:
        r = ccsim.run(tree, duration="20us", measure_from="10us")
    except ccsim.ScenarioError as e:  # a run-time refusal (e.g. the series size) names its field too
        assert MESSAGE.match(str(e)), (preset, path, action, str(e))
        return
    assert r.summary()["conservation_ok"] is True, (preset, path, action)


def test_the_fuzzer_reaches_both_outcomes():
    """A sanity check of the harness itself: some mutations are accepted, some refused."""
    outcomes = set()
    for preset in PRESETS:
        tree = copy.deepcopy(RESOLVED[preset])
        tree["run"]["seed"] = 7
        ccsim.resolve(tree)
        outcomes.add("accepted")
        tree["run"]["duration"] = "-1ms"
        with pytest.raises(ccsim.ScenarioError, match=r"^run\.duration: "):
            ccsim.resolve(tree)
        outcomes.add("refused")
    assert outcomes == {"accepted", "refused"}
