"""ccsim's version, and the git commit of the checkout it runs from (for `ccsim --version` and every
result's metadata). The commit is read from the checkout's `.git` files, without running git;
an installed wheel has none."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ._core import __version__


@cache
def commit() -> str | None:
    """The checkout's HEAD commit (12 hex digits), or None outside a git checkout."""
    root = Path(__file__).resolve().parents[2]
    git = root / ".git"
    try:
        if git.is_file():  # a worktree: "gitdir: PATH"
            git = (root / git.read_text().split(":", 1)[1].strip()).resolve()
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head[:12]
        ref = head[5:]
        for base in (git, _common_dir(git)):
            if (base / ref).is_file():
                return (base / ref).read_text().strip()[:12]
            packed = base / "packed-refs"
            if packed.is_file():
                for line in packed.read_text().splitlines():
                    if line.endswith(" " + ref):
                        return line.split(" ", 1)[0][:12]
    except (OSError, IndexError):
        return None
    return None


def _common_dir(git: Path) -> Path:
    """A worktree's shared git directory (where branches live)."""
    common = git / "commondir"
    return (git / common.read_text().strip()).resolve() if common.is_file() else git


def describe() -> str:
    """`X.Y.Z`, with `(commit abcdef123456)` when running from a checkout."""
    c = commit()
    return f"{__version__} (commit {c})" if c else __version__


__all__ = ["__version__", "commit", "describe"]
