"""ccsim's version, and the git commit it runs from (for `ccsim --version` and every result's
metadata). From a checkout (an editable install) the commit is read from its `.git` files, without
running git; an installed wheel has no checkout, and carries the commit `make wheel` built it
from in the package file `_build_commit` (written for the build, then removed from the checkout)."""

from __future__ import annotations

import os

from ._core import __version__

# `os.path`, not `pathlib`: this runs on `ccsim run --json`'s path, which loads neither `pathlib`
# nor the `re` it imports (docs/benchmarks.md).
_join, _isfile = os.path.join, os.path.isfile
_UNKNOWN = object()
_commit: object = _UNKNOWN


def commit() -> str | None:
    """The checkout's HEAD commit, else the one the wheel was built from (12 hex digits), or None
    (read once)."""
    global _commit
    if _commit is _UNKNOWN:
        _commit = _read_commit() or _built_commit()
    return _commit  # type: ignore[return-value]


#: The file `make wheel` writes into the package: the commit the wheel is built from.
BUILD_COMMIT_FILE = "_build_commit"


def _built_commit() -> str | None:
    """The commit recorded in the package at build time (12 hex digits), or None."""
    try:
        text = _read(_join(os.path.dirname(os.path.realpath(__file__)), BUILD_COMMIT_FILE)).strip().lower()
    except (OSError, UnicodeDecodeError):
        return None
    return text[:12] if len(text) >= 12 and all(c in "0123456789abcdef" for c in text[:40]) else None


def _read_commit() -> str | None:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    git = _join(root, ".git")
    try:
        if _isfile(git):  # a worktree: "gitdir: PATH"
            git = os.path.realpath(_join(root, _read(git).split(":", 1)[1].strip()))
        head = _read(_join(git, "HEAD")).strip()
        if not head.startswith("ref: "):
            return head[:12]
        ref = head[5:]
        for base in (git, _common_dir(git)):
            if _isfile(_join(base, ref)):
                return _read(_join(base, ref)).strip()[:12]
            packed = _join(base, "packed-refs")
            if _isfile(packed):
                for line in _read(packed).splitlines():
                    if line.endswith(" " + ref):
                        return line.split(" ", 1)[0][:12]
    except (OSError, IndexError):
        return None
    return None


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _common_dir(git: str) -> str:
    """A worktree's shared git directory (where branches live)."""
    common = _join(git, "commondir")
    return os.path.realpath(_join(git, _read(common).strip())) if _isfile(common) else git


def describe() -> str:
    """`X.Y.Z`, with `(commit abcdef123456)` when the commit is known (a checkout, or a wheel built
    by `make wheel`)."""
    c = commit()
    return f"{__version__} (commit {c})" if c else __version__


__all__ = ["__version__", "commit", "describe"]
