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
from typing import Any

import polars as pl

from ..errors import CcsimError

_RUN_RE = re.compile(r"^p(\d+)-r(\d+)\.parquet$")


class StoreError(CcsimError):
    """The output directory holds a different sweep, or cannot be used."""


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
        for tmp in self.runs.glob(".*.tmp"):
            tmp.unlink(missing_ok=True)
        if old is not None:
            manifest = {**manifest, "created": old.get("created", manifest.get("created"))}
            self.checksums = dict(old.get("checksums") or {})
        self.write_manifest(manifest)

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
        raise StoreError(f"{out}: not a sweep directory (no manifest.json)")
    return store.read()


__all__ = ["Store", "StoreError", "load"]
