"""The results store of a sweep: one Parquet file per (point, replication) plus a manifest.

Layout of ``OUT/``::

    manifest.json              plan, plan identity, ccsim version, points and their scenario hashes
    runs/p00003-r001.parquet   one row: point, replication, seed, axis:<path>..., metrics, hashes

Each run file is written to a temporary name in the same directory and renamed over the final
name (``os.replace`` is atomic on POSIX), so a file either exists complete or not at all. The
executor's client writes the files, not the workers: a killed worker can lose only work in
progress, and a task the scheduler runs twice still ends in one file.
"""

from __future__ import annotations

import datetime as dt
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
        self.write_manifest(manifest)

    def manifest(self) -> dict[str, Any] | None:
        try:
            return json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        manifest = {**manifest, "updated": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}
        _atomic_write_bytes(self.manifest_path, (json.dumps(manifest, indent=2, default=str) + "\n").encode())

    # --- runs -----------------------------------------------------------------------------

    def done(self) -> set[tuple[int, int]]:
        """(point, replication) of every complete run file."""
        out = set()
        if self.runs.is_dir():
            for f in self.runs.iterdir():
                m = _RUN_RE.match(f.name)
                if m:
                    out.add((int(m.group(1)), int(m.group(2))))
        return out

    def write_run(self, row: dict[str, Any], metadata: dict[str, str]) -> Path:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pylist([row])
        table = table.replace_schema_metadata({k.encode(): str(v).encode() for k, v in metadata.items()})
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        path = self.runs / self.run_name(int(row["point"]), int(row["replication"]))
        _atomic_write_bytes(path, sink.getvalue().to_pybytes())
        return path

    def read(self) -> pl.DataFrame:
        """Every run as one DataFrame, sorted by (point, replication)."""
        files = sorted(f for f in self.runs.glob("p*-r*.parquet") if _RUN_RE.match(f.name)) if self.runs.is_dir() else []
        if not files:
            return pl.DataFrame({"point": [], "replication": []}, schema={"point": pl.Int64, "replication": pl.Int64})
        frames = [pl.read_parquet(f) for f in files]
        return pl.concat(frames, how="diagonal_relaxed").sort("point", "replication")


def load(out: str | Path) -> pl.DataFrame:
    """The runs of a sweep directory as a DataFrame (``StoreError`` if it is not one)."""
    store = Store(out)
    if store.manifest() is None:
        raise StoreError(f"{out}: not a sweep directory (no manifest.json)")
    return store.read()


__all__ = ["Store", "StoreError", "load"]
