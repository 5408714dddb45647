"""Plans that would exhaust memory or the stack, or that are not text (issue 35): refused in one
line naming the field, exit 2, no traceback, before anything is expanded or run."""

import time
import tracemalloc

import pytest

from ccsim.cli import main
from ccsim.sweeps import PlanError, parse_plan
from ccsim.sweeps.plan import DEFAULT_RUN_LIMIT, MAX_DEPTH

HEAD = """
name = "limits"
scenario = "abr-benchmarks/two-sources"
metrics = ["fairness_index"]
"""


def _refused(capsys, tmp_path, body: bytes | str, *needles: str) -> str:
    plan = tmp_path / "plan.toml"
    plan.write_bytes(body if isinstance(body, bytes) else body.encode())
    out = tmp_path / "out"
    assert main(["sweep", str(plan), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.splitlines()) == 1 and "Traceback" not in err, err
    for n in needles:
        assert n in err, err
    assert not out.exists()
    return err


def _fast_and_small(src) -> PlanError:
    """Refused in well under a second, allocating well under a megabyte."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(PlanError) as e:
            parse_plan(src)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert time.perf_counter() - started < 0.5
    assert peak < 1_000_000, peak
    return e.value


@pytest.mark.parametrize("axis, where", [
    ("range = { start = 0, stop = 1, num = 1000000000000 }", "axis[0].range: 1,000,000,000,000 values"),
    ("range = { start = 0, stop = 10000000, step = 1 }", "axis[0].range: 10,000,001 values"),
    ("range = { start = 0, stop = 1, step = 1e-300 }", "axis[0].range: more than 10^15 values"),
])
def test_an_axis_over_the_cap_is_refused_before_it_is_expanded(axis, where):
    e = _fast_and_small(HEAD + f'[[axis]]\npath = "source[0].count"\n{axis}\n')
    assert str(e).startswith(where + f", more than the plan's limit of {DEFAULT_RUN_LIMIT:,} runs; ")
    assert str(e).endswith("raise it with `run_limit = N` at the top of the plan")


def test_a_product_of_axes_or_replications_over_the_cap_is_refused():
    three = "".join(f'[[axis]]\npath = "x{i}"\nrange = {{ start = 1, stop = 100000, step = 1 }}\n' for i in range(3))
    e = _fast_and_small(HEAD + three)
    assert str(e) == ("plan: 1,000,000,000,000,000 points × 1 replication = 1,000,000,000,000,000 runs, more than the "
                      "limit of 100,000; if that many are meant, raise it with `run_limit = N` at the top of the plan")
    e = _fast_and_small(HEAD + three + '[[axis]]\npath = "y"\nvalues = [1, 2]\n')
    assert str(e).startswith("plan: more than 10^15 points × 1 replication = more than 10^15 runs, more than")
    e = _fast_and_small(HEAD.replace('name = "limits"', 'name = "limits"\nreplications = 1000000000'))
    assert str(e).startswith("plan: 1 points × 1,000,000,000 replications = 1,000,000,000 runs, more than the limit")
    # zipped axes count once
    zipped = "".join(f'[[axis]]\npath = "x{i}"\nzip = "z"\nrange = {{ start = 1, stop = 60000, step = 1 }}\n'
                     for i in range(2))
    assert len(parse_plan(HEAD + zipped).axes[0].values) == 60000
    e = _fast_and_small(HEAD + zipped + '[[axis]]\npath = "y"\nvalues = [1, 2]\n')
    assert str(e).startswith("plan: 120,000 points × 1 replication = 120,000 runs")


def test_run_limit_raises_the_cap_and_does_not_change_the_identity():
    axis = '[[axis]]\npath = "source[0].count"\nrange = { start = 1, stop = 150000, step = 1 }\n'
    with pytest.raises(PlanError, match="150,000 values"):
        parse_plan(HEAD + axis)
    p = parse_plan(HEAD.replace('name = "limits"', 'name = "limits"\nrun_limit = 150000') + axis)
    assert len(p.points()) == 150_000
    q = parse_plan(HEAD.replace('name = "limits"', 'name = "limits"\nrun_limit = 200000') + axis)
    assert p.identity() == q.identity()
    with pytest.raises(PlanError, match=r"^run_limit: must be greater than or equal to 1, got 0$"):
        parse_plan(HEAD.replace('name = "limits"', 'name = "limits"\nrun_limit = 0'))


def test_over_the_cap_through_the_cli(capsys, tmp_path):
    _refused(capsys, tmp_path, HEAD + '[[axis]]\npath = "source[0].count"\nrange = { start = 0, stop = 1, num = 1000000000000 }\n',
             "axis[0].range: 1,000,000,000,000 values", "run_limit = N")


@pytest.mark.parametrize("step, msg", [
    ("5e-324", "axis[0].range.step: 5e-324 is too small for the range from 0 to 1: more values than can be counted"),
    ("nan", "axis[0].range.step: must be a finite number, got nan"),
    ("inf", "axis[0].range.step: must be a finite number, got inf"),
    ("-inf", "axis[0].range.step: must be a finite number, got -inf"),
])
def test_a_tiny_or_non_finite_step(capsys, tmp_path, step, msg):
    err = _refused(capsys, tmp_path, HEAD + f'[[axis]]\npath = "source[0].count"\nrange = {{ start = 0, stop = 1, step = {step} }}\n')
    assert err == f"error: {msg}\n"


@pytest.mark.parametrize("text, msg", [
    ('[[axis]]\npath = "a"\nrange = { start = nan, stop = 1, step = 1 }\n', "axis[0].range.start: must be a finite number, got nan"),
    ('[[axis]]\npath = "a"\nrange = { start = 0, stop = inf, num = 3 }\n', "axis[0].range.stop: must be a finite number, got inf"),
    ('[[axis]]\npath = "a"\nvalues = [1, 2, nan]\n', "axis[0].values[2]: must be a finite number, got nan"),
    ('[set]\n"run.duration" = inf\n', "set.run.duration: must be a finite number, got inf"),
    ('[stop]\nmetric = "series.queue[SW1->SW2]"\nprecision = nan\n', "stop.precision: must be a finite number, got nan"),
])
def test_non_finite_numbers_anywhere_name_their_field(text, msg):
    with pytest.raises(PlanError) as e:
        parse_plan(HEAD + text)
    assert str(e.value) == msg


def test_a_binary_or_non_utf8_plan_file(capsys, tmp_path):
    err = _refused(capsys, tmp_path, b"\xff\xfe\x00b\x00i\x00n", "plan file", "not a UTF-8 text file (invalid start byte at byte 0)")
    assert "\n" not in err[:-1]
    _refused(capsys, tmp_path, bytes(range(256)), "not a UTF-8 text file")
    _refused(capsys, tmp_path, b"\x00\x01\x02 binary but UTF-8\x7f", "plan: not valid TOML")


def test_a_deeply_nested_plan_file(capsys, tmp_path):
    deep = 100_000
    err = _refused(capsys, tmp_path, "name = " + "[" * deep + "]" * deep + "\n")
    assert err == f"error: plan: arrays or tables nested too deeply to read (at most {MAX_DEPTH} levels)\n"
    # deep enough to be read, too deep to be a plan
    err = _refused(capsys, tmp_path, HEAD + '[set]\n"x" = ' + "[" * 200 + "]" * 200 + "\n")
    assert err == f"error: set: arrays or tables nested more than {MAX_DEPTH} levels deep\n"
    tables = HEAD + "[set.x" + "".join(f".t{i}" for i in range(100)) + "]\nv = 1\n"
    _refused(capsys, tmp_path, tables, f"set: arrays or tables nested more than {MAX_DEPTH} levels deep")


def test_a_deep_or_cyclic_dict_plan():
    d: dict = {"name": "x"}
    d["scenario"] = d
    with pytest.raises(PlanError, match=r"^scenario: arrays or tables nested more than \d+ levels deep$"):
        parse_plan(d)
    deep: list = []
    for _ in range(10_000):
        deep = [deep]
    with pytest.raises(PlanError, match=r"^set: arrays or tables nested"):
        parse_plan({"scenario": "abr-benchmarks/two-sources", "metrics": ["fairness_index"], "set": {"x": deep}})
