"""The results store of a sweep: one Parquet file per (point, replication) plus a manifest.

Layout of ``OUT/``::

    manifest.json              plan, plan identity, ccsim version, points and their scenario hashes
    runs/p00003-r001.parquet   one row: point, replication, seed, axis:<path>..., metrics, hashes

Each run file is written to a temporary name in the same directory and renamed over the final
name (``os.replace`` is atomic on POSIX), so a file either exists complete or not at all. The
executor's client writes the files, not the workers: a killed worker can lose only work in
progress, and a task the scheduler runs twice still ends in one file.

A file can still be damaged afterwards (a disk error, a partial copy of the directory): the manifest
keeps the SHA-256 of every run file under ``checksums``, and ``verify()`` checks each file (checksum
when recorded, a readable Parquet footer, one row) so that a resumed sweep redoes damaged runs;
``read()`` refuses a damaged file with one line naming it.

A stored result is only as good as the scenario and engine that made it, so the manifest also keeps
what a resume compares with the plan as it is now (``check_resume``): the ccsim version, each
point's ``scenario_digest`` (a hash of its resolved scenario, seed and names aside), the base
scenario's text as read, and ``engine_probe``, the fingerprint of a short run of point 0. Each run row
carries its point's ``scenario_digest`` too, and ``check_rows`` refuses a dataset whose rows disagree
with each other or with the manifest (``ccsim report``, ``load``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import os
import re
import tempfile
from pathlib import Path
from collections.abc import Mapping
from typing import Any

import polars as pl

from ..errors import CcsimError, UsageError

_RUN_RE = re.compile(r"^p(\d+)-r(\d+)\.parquet$")


class StoreError(CcsimError):
    """The output directory holds a different sweep, or cannot be used."""


class NotASweepDirectory(StoreError, UsageError):
    """A directory given as a sweep's (`ccsim report DIR`, `load`) is not one: a usage error (exit 2)."""


def scenario_digest(resolved: Mapping[str, Any]) -> str:
    """The identity of a point's scenario: a hash of the resolved scenario (every default filled
    in) without its ``name`` and ``description``, which change no result. Unlike the engine's
    ``scenario_hash`` it does not depend on the run's seed, so every replication of a point shares it."""
    d = {k: v for k, v in resolved.items() if k not in ("name", "description")}
    return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _short(v: Any) -> str:
    text = json.dumps(v, sort_keys=True, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _differences(old: Any, new: Any, where: str = "") -> list[tuple[str, Any, Any]]:
    """The paths where two JSON trees differ (a field present in one only counts as null in the other)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in list(old) + [k for k in new if k not in old]:
            out += _differences(old.get(k), new.get(k), f"{where}.{k}" if where else str(k))
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [d for i, (a, b) in enumerate(zip(old, new)) for d in _differences(a, b, f"{where}[{i}]")]
    return [] if old == new else [(where or "the scenario", old, new)]


def _what_changed(old: dict[str, Any], new: dict[str, Any]) -> str:
    """Names what differs between two manifests' base scenarios: the file, preset or table, and
    its first changed field."""
    source = (new.get("plan") or {}).get("scenario")
    what = (f"the scenario file {source!r}" if new.get("scenario_kind") == "file" else
            f"the preset {source!r}" if new.get("scenario_kind") == "preset" else "the plan's scenario table")
    if "scenario" not in old:
        return f"{what} changed?"
    diffs = _differences(old["scenario"], new.get("scenario"))
    if not diffs:
        return f"{what} is as it was: the scenario resolves differently (a default changed?)"
    path, a, b = diffs[0]
    more = f" and {len(diffs) - 1} more field{'s' if len(diffs) > 2 else ''}" if len(diffs) > 1 else ""
    return f"{what} changed: {path} {_short(a)} then, {_short(b)} now{more}"


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)  # mkstemp creates 0600; results are meant to be shared
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class Store:
    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.runs = self.root / "runs"
        self.checksums: dict[str, str] = {}  # run file name -> SHA-256, kept in the manifest

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    @staticmethod
    def run_name(point: int, replication: int) -> str:
        return f"p{point:05d}-r{replication:03d}.parquet"

    # --- setup ----------------------------------------------------------------------------

    def open(self, manifest: dict[str, Any]) -> None:
        """Creates the store, or checks that an existing one holds the same plan (same
        identity); removes temporary files a killed writer left behind."""
        self.runs.mkdir(parents=True, exist_ok=True)
        old = self.manifest()
        if old is not None and old.get("plan_identity") != manifest["plan_identity"]:
            raise StoreError(
                f"{self.root} holds results of another plan ({old.get('name')!r}, identity "
                f"{old.get('plan_identity')}); use another --out or remove it"
            )
        if old is not None:
            self.check_resume(old, manifest)
        for tmp in self.runs.glob(".*.tmp"):
            tmp.unlink(missing_ok=True)
        if old is not None:
            manifest = {**manifest, "created": old.get("created", manifest.get("created"))}
            self.checksums = dict(old.get("checksums") or {})
        self.write_manifest(manifest)

    def check_resume(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        """Refuses to add runs to stored ones made by another ccsim version, an engine that runs
        differently, or a different scenario at any point that has runs: one line naming the change."""
        stored = {p for p, _ in self.done()}
        if not stored:
            return
        fix = "use another --out or remove it"
        if old.get("ccsim_version") != new.get("ccsim_version"):
            raise StoreError(f"{self.root} holds results of ccsim {old.get('ccsim_version')}, this is ccsim "
                             f"{new.get('ccsim_version')} (results could differ); {fix}")
        old_points = {pt.get("index"): pt for pt in old.get("points") or []}
        if any("scenario_digest" not in old_points.get(p, {}) for p in stored):
            raise StoreError(f"{self.root} holds runs stored before ccsim recorded each point's scenario, so "
                             f"they cannot be checked against the plan's scenario now; {fix}")
        changed = [(pt, old_points[pt["index"]]["scenario_digest"]) for pt in new.get("points") or []
                   if pt["index"] in stored and old_points[pt["index"]]["scenario_digest"] != pt.get("scenario_digest")]
        if changed:
            pt, digest = changed[0]
            params = ", ".join(f"{k}={v!r}" for k, v in pt.get("params", {}).items())
            raise StoreError(
                f"{self.root} holds results of a different scenario at {len(changed)} of its {len(stored)} points "
                f"with runs (point {pt['index']}{' (' + params + ')' if params else ''}: scenario digest {digest} "
                f"stored, {pt.get('scenario_digest')} now; {_what_changed(old, new)}); {fix}")
        # the probe runs point 0: with its scenario unchanged, a different fingerprint is the engine's doing
        then, now = old.get("engine_probe"), new.get("engine_probe")
        point0 = next((pt for pt in new.get("points") or [] if pt.get("index") == 0), {})
        same = old_points.get(0, {}).get("scenario_digest") == point0.get("scenario_digest")
        if same and then and now and then.get("duration") == now.get("duration") and then["fingerprint"] != now["fingerprint"]:
            a, b = old.get("ccsim_commit"), new.get("ccsim_commit")
            commits = f", commit {a} then, {b} now" if a and b and a != b else ""
            raise StoreError(
                f"{self.root} holds results of an engine that runs differently (a {now['duration']} run of point 0 "
                f"has fingerprint {then['fingerprint']} there, {now['fingerprint']} now{commits}); {fix}")

    def check_rows(self, frame: pl.DataFrame) -> None:
        """Refuses a dataset whose runs of one point were made on different scenarios, or whose
        rows disagree with the manifest's scenario digest or recorded scenario hash of their run."""
        manifest = self.manifest() or {}
        points = {pt.get("index"): pt for pt in manifest.get("points") or []}
        fix = "re-run the sweep into a new --out"
        cols = [c for c in ("scenario_digest", "scenario_hash") if c in frame.columns]
        digests: dict[int, dict[str, str]] = {}
        for row in frame.select("point", "replication", *cols).iter_rows(named=True):
            p, r = row["point"], row["replication"]
            name = f"runs/{self.run_name(p, r)}"
            digest = row.get("scenario_digest")
            if digest is not None:
                digests.setdefault(p, {}).setdefault(digest, name)
                if len(digests[p]) > 1:
                    (a, fa), (b, fb) = list(digests[p].items())[:2]
                    raise StoreError(f"{self.root}: point {p} mixes results of different scenarios ({fa}: scenario "
                                     f"digest {a}, {fb}: {b}); {fix}")
                want = points.get(p, {}).get("scenario_digest")
                if want is not None and want != digest:
                    raise StoreError(f"{self.root}: {name} was run on scenario digest {digest}, the manifest's point {p} "
                                     f"on {want}; {fix}")
            recorded = (points.get(p, {}).get("scenario_hashes") or {}).get(str(r))
            if recorded is not None and row.get("scenario_hash") is not None and recorded != row["scenario_hash"]:
                raise StoreError(f"{self.root}: {name} has scenario_hash {row['scenario_hash']}, the manifest recorded "
                                 f"{recorded} for it; {fix}")

    def manifest(self) -> dict[str, Any] | None:
        try:
            return json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except json.JSONDecodeError as e:
            raise StoreError(f"{self.manifest_path}: damaged ({e}); remove the directory or use another --out") \
                from None

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        manifest = {**manifest, "updated": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                    "checksums": dict(sorted(self.checksums.items()))}
        _atomic_write_bytes(self.manifest_path, (json.dumps(manifest, indent=2, default=str) + "\n").encode())

    # --- runs -----------------------------------------------------------------------------

    def _files(self) -> list[Path]:
        return sorted(f for f in self.runs.iterdir() if _RUN_RE.match(f.name)) if self.runs.is_dir() else []

    @staticmethod
    def _key(f: Path) -> tuple[int, int]:
        m = _RUN_RE.match(f.name)
        assert m is not None
        return int(m.group(1)), int(m.group(2))

    def done(self) -> set[tuple[int, int]]:
        """(point, replication) of every run file present (not checked: see ``verify``)."""
        return {self._key(f) for f in self._files()}

    def damage(self, f: Path) -> str | None:
        """What is wrong with a run file, or None: its Parquet footer cannot be read, it does not
        hold exactly one row, or its checksum differs from the manifest's. A sound file without a
        recorded checksum gets one."""
        data = f.read_bytes()
        if not data:
            return "an empty file"
        try:
            rows = pl.read_parquet(io.BytesIO(data)).height
        except Exception as e:  # polars raises ComputeError, OSError or others for a damaged file
            return f"not a readable Parquet file ({str(e).splitlines()[0] if str(e) else type(e).__name__})"
        if rows != 1:
            return f"{rows} rows instead of 1"
        digest = hashlib.sha256(data).hexdigest()
        if self.checksums.setdefault(f.name, digest) != digest:
            return "its checksum differs from the one in the manifest"
        return None

    def verify(self) -> tuple[set[tuple[int, int]], dict[str, str]]:
        """The sound runs as (point, replication), and the damaged files' names with what is wrong."""
        sound: set[tuple[int, int]] = set()
        damaged: dict[str, str] = {}
        for f in self._files():
            problem = self.damage(f)
            if problem is None:
                sound.add(self._key(f))
            else:
                damaged[f.name] = problem
        return sound, damaged

    def discard(self, name: str) -> None:
        """Removes a (damaged) run file so that it is run again."""
        (self.runs / name).unlink(missing_ok=True)
        self.checksums.pop(name, None)

    def write_run(self, row: dict[str, Any], metadata: dict[str, str]) -> Path:
        sink = io.BytesIO()
        pl.from_dicts([row], infer_schema_length=None).write_parquet(
            sink, metadata={k: str(v) for k, v in metadata.items()})
        path = self.runs / self.run_name(int(row["point"]), int(row["replication"]))
        data = sink.getvalue()
        _atomic_write_bytes(path, data)
        self.checksums[path.name] = hashlib.sha256(data).hexdigest()
        return path

    def read(self) -> pl.DataFrame:
        """Every run as one DataFrame, sorted by (point, replication)."""
        files = self._files()
        if not files:
            return pl.DataFrame({"point": [], "replication": []}, schema={"point": pl.Int64, "replication": pl.Int64})
        frames, damaged = [], []
        for f in files:
            try:
                frames.append(pl.read_parquet(f))
            except Exception:  # polars raises ComputeError, OSError or others for a damaged file
                damaged.append(f"runs/{f.name}")
        if damaged:
            more = f" and {len(damaged) - 3} more" if len(damaged) > 3 else ""
            raise StoreError(f"{self.root}: damaged run file {', '.join(damaged[:3])}{more}; run the same "
                             "`ccsim sweep` again to redo damaged runs")
        return pl.concat(frames, how="diagonal_relaxed").sort("point", "replication")


def load(out: str | Path) -> pl.DataFrame:
    """The runs of a sweep directory as a DataFrame (``StoreError`` if it is not one)."""
    store = Store(out)
    if store.manifest() is None:
        raise NotASweepDirectory(f"{out}: not a sweep directory (no manifest.json)")
    frame = store.read()
    store.check_rows(frame)
    return frame


__all__ = ["Store", "StoreError", "load", "scenario_digest"]
