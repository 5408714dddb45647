"""Where ccsim writes: the one rule for an existing output directory (`run --out`, `reproduce
--out`, `sweep --out`), the hidden staging directory a result is written to before it is moved
into place, the clean-up of staging left by a process that died, and write errors (a full disk)
turned into one line.

The rule (docs/scenarios.md, "Output directories"): ccsim never deletes a file it did not write.
A directory ccsim writes into is new, empty, or marked by an earlier ccsim output of the same
kind: the marker ``.ccsim-result`` holds ``{"kind": "run" | "reproduce" | "sweep", "files":
[...], ...}``. A run or a reproduction replaces its earlier output whole, so it refuses a
directory holding anything the marker does not list, naming it; a sweep only adds runs, and
refuses a directory that is not a sweep's."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .errors import CcsimError, UsageError

MARKER = ".ccsim-result"
KINDS = ("run", "reproduce", "sweep")
# What ccsim wrote before markers listed their files: these names are a legacy output's own;
# anything else in it is the user's. A legacy reproduction had no marker at all.
_LEGACY = {
    "run": re.compile(r"^(.*\.(parquet|png|pdf|svg)|summary\.json|scenario\.json|rates\.md)$"),
    "reproduce": re.compile(r"^(compared\.json|index\.html|figures)$"),
}
# Staging beside an output: `.NAME.partial-PID` (a result being written), `.NAME.series-PID`
# (a run's streamed series).
_STAGING = re.compile(r"^\.(?P<name>.+)\.(partial|series)-(?P<pid>\d+)$")
_SHOWN = 5  # foreign entries named in an error


class OutputError(CcsimError):
    """An output could not be written (a full disk, a read-only place): one line naming it."""


class OutputRefused(OutputError, UsageError):
    """An output directory the rule above refuses (it holds what ccsim did not write): a usage
    error on the command line (exit 2), checked before anything runs."""


class NotAnOutputDirectory(NotADirectoryError, UsageError):
    """``--out`` names a file, a link to one, or a path below one: a usage error (exit 2)."""


def marker(out: Path) -> dict[str, Any] | None:
    """The marker of a ccsim output directory, or None. A marker without ``kind`` is a run's
    (written before kinds existed); a sweep or a reproduction without one is known by its files."""
    path = out / MARKER
    if path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        if not isinstance(data, dict):
            return {"kind": "unknown"}
        data.setdefault("kind", "run")
        return data
    if (out / "manifest.json").is_file() and (out / "runs").is_dir():
        return {"kind": "sweep"}
    if (out / "compared.json").is_file() and (out / "index.html").is_file():
        return {"kind": "reproduce"}
    return None


def owned(mark: dict[str, Any], name: str) -> bool:
    """Whether ``name`` (an entry of the directory) is one ccsim wrote there."""
    if name == MARKER:
        return True
    files = mark.get("files")
    if isinstance(files, list):
        return name in files
    legacy = _LEGACY.get(mark["kind"])
    return legacy is not None and bool(legacy.match(name))


def _parent_ok(out: Path) -> None:
    """`--out a/b/c` where `a` is a file: say so (not "File exists" from mkdir)."""
    for parent in reversed(out.parents):
        if parent.exists() and not parent.is_dir():
            raise NotAnOutputDirectory(errno.ENOTDIR, "--out: a path component is a file, not a directory", str(parent))


def check(out_dir: str | os.PathLike[str], kind: str) -> Path:
    """Before anything runs: that ``kind``'s output may go to ``out_dir`` (the rule above). A
    symbolic link is followed to its directory. Creates the parent, checks it can be written, and
    returns the absolute path the output will take. Raises ``OSError`` naming the path, or
    ``OutputError`` naming what is in the way."""
    import tempfile

    assert kind in KINDS, kind
    out = Path(out_dir).absolute()
    if out.is_symlink():
        target = out.resolve()
        if target.exists() and not target.is_dir():
            raise NotAnOutputDirectory(errno.ENOTDIR, "--out is a link to a file, not a directory", str(out))
        out = target
    _parent_ok(out)
    if out.exists():
        if not out.is_dir():
            raise NotAnOutputDirectory(errno.ENOTDIR, "--out exists and is not a directory", str(out))
        entries = sorted(p.name for p in out.iterdir() if not _STAGING.match(p.name))
        if entries:
            mark = marker(out)
            if mark is None or mark["kind"] != kind:
                what = "files that ccsim did not write" if mark is None else f"a ccsim {mark['kind']} output"
                raise OutputRefused(f"--out {out} holds {what} ({_names(entries)}); a {kind} writes only into a new or "
                                  f"empty directory or its own earlier output: choose another --out")
            foreign = [e for e in entries if not owned(mark, e)]
            if foreign and kind != "sweep":
                raise OutputRefused(f"--out {out} holds files ccsim did not write ({_names(foreign)}); replacing the "
                                  f"earlier {kind} would delete them: move them away or choose another --out")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=out.parent):
        pass  # raises PermissionError naming the parent if it cannot be written
    return out


def _names(entries: list[str]) -> str:
    shown = ", ".join(entries[:_SHOWN])
    return shown + (f" and {len(entries) - _SHOWN} more" if len(entries) > _SHOWN else "")


def staging_path(out: Path, tag: str = "partial") -> Path:
    """The hidden directory (or file) beside ``out`` this process stages into; stale ones that
    dead processes left beside ``out`` are removed first."""
    remove_stale(out)
    return out.parent / f".{out.name}.{tag}-{os.getpid()}"


def remove_stale(out: Path) -> list[Path]:
    """Removes the staging that processes no longer running left beside ``out`` (after SIGKILL,
    or a power cut); returns what it removed."""
    removed = []
    try:
        siblings = list(out.parent.iterdir())
    except OSError:
        return removed
    for p in siblings:
        m = _STAGING.match(p.name)
        if m is None or m["name"] != out.name or _alive(int(m["pid"])):
            continue
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
        removed.append(p)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True


@contextmanager
def writing(out_dir: str | os.PathLike[str], kind: str, meta: dict[str, Any] | None = None) -> Iterator[Path]:
    """Writes ``kind``'s output as one step: yields a fresh staging directory beside the output;
    when the block ends, marks it (kind, the files in it, ``meta``) and moves it in place of the
    earlier output. On any error, or an interrupt, the staging is removed and the earlier output
    is left as it was. The block's own writes go through ``write_errors`` where a table library
    writes (a full disk is then one ``OutputError`` line)."""
    out = check(out_dir, kind)
    tmp = staging_path(out)
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        with write_errors(out):
            tmp.mkdir()
        yield tmp
        with write_errors(out):
            files = sorted(p.name for p in tmp.iterdir())
            (tmp / MARKER).write_text(json.dumps({"kind": kind, "files": files, **(meta or {})}) + "\n")
            if out.exists():
                # Checked again: nothing may have come in since the run began.
                check(out, kind)
                shutil.rmtree(out)
            tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


@contextmanager
def write_errors(path: Path) -> Iterator[None]:
    """Errors from writing ``path`` (the table library's, or the OS's) as one ``OutputError``
    line: "could not write PATH: no space left on device"."""
    try:
        yield
    except (CcsimError, KeyboardInterrupt):
        raise
    except Exception as e:  # polars raises its own exception types for a failed write
        raise OutputError(f"could not write {path}: {_reason(e)}") from e


def _reason(e: BaseException) -> str:
    code = getattr(e, "errno", None)
    if code is None:
        # polars and pyarrow wrap the OS error in text: "No space left on device (os error 28)".
        m = re.search(r"os error (\d+)|\[Errno (\d+)\]", str(e))
        code = int(m.group(1) or m.group(2)) if m else None
    if code is not None:
        return os.strerror(code).lower()
    first = str(e).strip().splitlines()
    return first[0] if first else type(e).__name__


__all__ = ["MARKER", "OutputError", "OutputRefused", "NotAnOutputDirectory", "check", "marker", "remove_stale", "staging_path", "write_errors", "writing"]
