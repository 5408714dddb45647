"""Fuzzing what a user types rather than what a scenario file holds (issue 35): `--set PATH=VALUE`
items, as the command line parses them, and standard input's bytes. Each case ends in a resolved
scenario or one `ScenarioError`; never another exception, a crash of the process (a stack
overflow in the resolver was one) or a hang. The scenario files themselves are fuzzed in
tests/test_fuzz_scenarios.py, sweep plans in tests/test_fuzz_plans.py."""

import os

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import ccsim
from ccsim.entry import parse_sets

PRESET = "abr-benchmarks/two-sources"
RESOLVED = ccsim.resolve(PRESET)
KEYS = sorted({"run", "duration", "seed", "measure_from", "defaults", "abr", "icr", "pcr", "rif", "link", "rate", "loss",
               "source", "switch", "algorithm", "type", "target_utilization", "measure", "interval", "name", "route",
               "schemes", "erica", "buffer", "background", "mean_on", "a"})

# Path components: known keys, odd text, indices (some far out of range), and deep repetitions.
component = st.one_of(st.sampled_from(KEYS), st.text(max_size=4),
                      st.builds(lambda k, i: f"{k}[{i}]", st.sampled_from(KEYS), st.integers(-1, 2**70)))
paths = st.one_of(
    st.lists(component, min_size=1, max_size=6).map(".".join),
    st.builds(lambda k, n: ".".join([k] * n), st.sampled_from(KEYS), st.integers(50, 60_000)),
    st.builds(lambda n: "source" + "[0]" * n, st.integers(2, 20_000)),
    st.text(max_size=20),
)


def _nest(opening: str, closing: str, inner: str, n: int) -> str:
    return opening * n + inner + closing * n


# Values as typed: JSON, TOML inline tables and arrays, plain text, non-finite spellings, and
# nesting far past any scenario's depth.
values = st.one_of(
    st.sampled_from(["1", "-1", "0.5", "1e400", "-1e400", "NaN", "Infinity", "-Infinity", "nan", "inf", "+inf", "true",
                     '"10ms"', "10ms", "155Mbps", "1e30bps", "[1, 2]", "{type = \"red\"}", '{"type": "erica"}', "[",
                     "{", "'x'", "1979-05-27", "{a = nan}", "[inf]", '{"a": NaN}', "1" * 5_000 + "Mbps"]),
    st.text(max_size=30),
    st.builds(_nest, st.just("["), st.just("]"), st.just("1"), st.integers(1, 20_000)),
    st.builds(_nest, st.just("{a="), st.just("}"), st.just("1"), st.integers(1, 3_000)),
    st.builds(_nest, st.just('{"a":'), st.just("}"), st.just("1"), st.integers(1, 20_000)),
)

# `make fuzz` raises the count (CCSIM_FUZZ_EXAMPLES).
EXAMPLES = int(os.environ.get("CCSIM_FUZZ_EXAMPLES", "300"))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(paths, values), min_size=1, max_size=3))
def test_a_set_item_resolves_or_is_refused_in_one_line(items):
    try:
        ccsim.resolve(PRESET, set=parse_sets([f"{p}={v}" for p, v in items]))
    except ccsim.ScenarioError as e:
        event("refused")
        assert "\n" not in str(e).strip() and len(str(e)) < 2_000, str(e)[:500]
        return
    event("accepted")


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode),
                 values.map(lambda v: f"name = {v}\n".encode()), values.map(str.encode)))
def test_standard_input_resolves_or_is_refused_in_one_line(data):
    import io
    import sys
    from types import SimpleNamespace

    stdin = sys.stdin
    sys.stdin = SimpleNamespace(buffer=io.BytesIO(data))  # what `ccsim run -` reads
    try:
        ccsim.resolve("-")
    except ccsim.ScenarioError as e:
        assert "\n" not in str(e).strip(), str(e)[:500]
    finally:
        sys.stdin = stdin
