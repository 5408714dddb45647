"""Writes the 24,000-cell twins of seed 001's Experiment B and Table 1 presets
(python/ccsim/presets/gfr/{unequal-b1,unequal-b2,option-…}-24k.toml) from the hand-written
12,000-cell presets: the seed states Experiment A's two buffer sizes but not B's (issue #38), so
every B and Table 1 configuration runs at both. A twin differs from its preset only in its name,
its buffer, every threshold given in cells (scaled with the buffer, so each keeps its fraction of
it) and the sentence of its description that says the buffer. `tests/test_reproduce_gfr.py` checks
the files are what this script writes.

    python scripts/make_gfr_24k_presets.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

DIR = Path(__file__).resolve().parents[1] / "python" / "ccsim" / "presets" / "gfr"
SOURCES = ("unequal-b1", "unequal-b2", "option-noacct-notag-fifo", "option-acct-notag-fifo", "option-noacct-tag-fifo",
           "option-acct-tag-fifo", "option-noacct-notag-vcq", "option-acct-notag-vcq", "option-noacct-tag-vcq",
           "option-acct-tag-vcq")
FROM, TO = 12000, 24000
BUFFER_SENTENCE = (f"{FROM}-cell buffer [RECON: not stated]",
                   f"{TO}-cell buffer [RECON: not stated; the seed's other size, Experiment A's larger buffer]")


def twin(name: str, text: str) -> str:
    """The 24,000-cell twin of preset `gfr/name` (its text)."""
    def swap(old: str, new: str, s: str) -> str:
        if s.count(old) != 1:
            raise ValueError(f"gfr/{name}: expected {old!r} once")
        return s.replace(old, new)

    text = swap(f'name = "gfr/{name}"', f'name = "gfr/{name}-24k"', text)
    text = swap(f'buffer = "{FROM}cells"', f'buffer = "{TO}cells"', text)
    text = swap(*BUFFER_SENTENCE, text)
    # Thresholds in cells on the buffer policy's line keep their fraction of the buffer.
    policy = re.search(r"^buffer_policy = .*$", text, flags=re.M)
    if policy:
        line = re.sub(r'"(\d+)cells"', lambda m: f'"{int(m.group(1)) * TO // FROM}cells"', policy.group(0))
        text = text[:policy.start()] + line + text[policy.end():]
    return text


def presets() -> dict[str, str]:
    return {f"{n}-24k.toml": twin(n, (DIR / f"{n}.toml").read_text(encoding="utf-8")) for n in SOURCES}


def main() -> int:
    for name, text in presets().items():
        (DIR / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(SOURCES)} presets to {DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
