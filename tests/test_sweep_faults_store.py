"""Damaged run files: a resumed sweep checks every stored run (Parquet footer, one row, the checksum
the manifest keeps) and redoes the damaged ones with one line each; `ccsim report` on a damaged store
is one line naming the file, not a polars traceback."""

import json
import subprocess

import polars as pl

from ccsim.sweeps import Store, run_sweep

PLAN = """
name = "damaged"
scenario = "abr-benchmarks/two-sources"
metrics = ["fairness_index", "sources[S1].acr_mbps"]

[set]
"run.duration" = "20ms"
"run.measure_from" = "10ms"

[[axis]]
path = "defaults.buffer"
values = [100, 200, 300, 400]
"""


def _same(a, b):
    return a.drop("wall_s").equals(b.drop("wall_s"))


def test_damaged_runs_are_redone_and_report_names_them(tmp_path, cli, env):
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    out = tmp_path / "s"
    first = run_sweep(plan, workers=1, out=out)
    runs = out / "runs"
    truncated, flipped = runs / "p00001-r000.parquet", runs / "p00002-r000.parquet"
    truncated.write_bytes(truncated.read_bytes()[:300])
    data = bytearray(flipped.read_bytes())
    at = data.rindex(b"damaged")  # the plan's name in the footer's metadata: the file still reads, its checksum differs
    data[at] = ord("D")
    flipped.write_bytes(bytes(data))

    report = subprocess.run(cli + ["report", str(out)], env=env, capture_output=True, text=True, timeout=120)
    assert report.returncode == 1
    assert report.stderr.startswith(f"error: {out}: damaged run file runs/p00001-r000.parquet")
    assert len(report.stderr.splitlines()) == 1, report.stderr

    again = subprocess.run(cli + ["sweep", str(plan), "--workers", "1", "--out", str(out), "--json"], env=env,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["completed"] == 2 and json.loads(again.stdout)["skipped"] == 2
    lines = again.stderr.splitlines()
    assert len(lines) == 2, lines
    # The Parquet reader's own reason, in brackets, is the library's wording.
    assert lines[0].startswith(f"warning: {truncated}: not a readable Parquet file (") and lines[0].endswith("); running it again")
    assert lines[1] == f"warning: {flipped}: its checksum differs from the one in the manifest; running it again"
    assert _same(Store(out).read(), first.frame)
    report = subprocess.run(cli + ["report", str(out)], env=env, capture_output=True, text=True, timeout=120)
    assert report.returncode == 0, report.stderr
    checksums = json.loads((out / "manifest.json").read_text())["checksums"]
    assert sorted(checksums) == [f"p{i:05d}-r000.parquet" for i in range(4)]


def test_a_store_without_checksums_is_checked_by_footer_and_rows(tmp_path):
    out = tmp_path / "s"
    run_sweep(PLAN, workers=1, out=out)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest.pop("checksums", None)  # as an older ccsim wrote it
    (out / "manifest.json").write_text(json.dumps(manifest))
    runs = out / "runs"
    (runs / "p00000-r000.parquet").write_bytes(b"")
    pl.DataFrame({"point": [3, 3], "replication": [0, 0]}).write_parquet(runs / "p00003-r000.parquet")

    notices = []
    again = run_sweep(PLAN, workers=1, out=out, notice=notices.append)
    assert (again.completed, again.skipped) == (2, 2)
    assert notices == [
        f"warning: {runs / 'p00000-r000.parquet'}: an empty file; running it again",
        f"warning: {runs / 'p00003-r000.parquet'}: 2 rows instead of 1; running it again",
    ]
    # the sound files got checksums
    assert len(json.loads((out / "manifest.json").read_text())["checksums"]) == 4
