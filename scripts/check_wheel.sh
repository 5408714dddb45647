#!/usr/bin/env bash
# Installs the wheel `make wheel` built into a fresh virtual environment (no checkout, no dev
# tools: what a user gets from `pip install ccsim-….whl`) and runs the README's examples there
# verbatim: its Python blocks, and its `.venv/bin/ccsim …` lines from a directory whose `.venv` is
# that environment. Fails on the first error. Used by CI (.ci/run) after the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
wheel=$(ls -t target/wheels/ccsim-*.whl 2>/dev/null | head -1)
[ -n "$wheel" ] || { echo "check_wheel: no wheel in target/wheels (run make wheel)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/.venv"
"$work/.venv/bin/pip" install --quiet --upgrade pip
# The README's Python block converts a table to pandas: the `pandas` extra.
"$work/.venv/bin/pip" install --quiet "$(pwd)/$wheel[pandas]"
version=$("$work/.venv/bin/ccsim" --version)
echo "check_wheel: $(basename "$wheel") installed: $version, environment $(du -sh "$work/.venv" | cut -f1)"
# The wheel carries the commit `make wheel` built it from (python/ccsim/_version.py).
[[ "$version" =~ \(commit\ [0-9a-f]{12}\)$ ]] || { echo "check_wheel: --version names no commit: $version" >&2; exit 1; }
# The documentation site travels in the wheel (`make docs`): its index, a page, its search.
site=$("$work/.venv/bin/python" -c 'import ccsim.docs_cmd as d; print(d.SITE)')
for f in index.html scenarios.html search.html searchindex.js _sources/scenarios.md.txt; do
    [ -f "$site/$f" ] || { echo "check_wheel: the wheel has no docs site file $f (in $site)" >&2; exit 1; }
done
# `ccsim docs PAGE` prints the page where no browser can show it; an unknown page is a usage error.
page=$(env -u BROWSER -u DISPLAY -u WAYLAND_DISPLAY "$work/.venv/bin/ccsim" docs trace)
[ "$(head -1 <<<"$page")" = "trace: $site/trace.html" ] && grep -q "^# The event trace" <<<"$page" \
    || { echo "check_wheel: ccsim docs trace did not print the installed page" >&2; exit 1; }
set +e
"$work/.venv/bin/ccsim" docs no-such-page >/dev/null 2>&1
rc=$?
set -e
[ "$rc" = 2 ] || { echo "check_wheel: ccsim docs no-such-page exited $rc, not 2" >&2; exit 1; }
echo "check_wheel: docs site installed ($(find "$site" -name '*.html' | wc -l) pages); ccsim docs prints and refuses as it should"
python3 - "$work" README.md <<'PY'
import re, shlex, subprocess, sys
from pathlib import Path

work, readme = Path(sys.argv[1]), Path(sys.argv[2]).read_text(encoding="utf-8")
python = str(work / ".venv" / "bin" / "python")
for i, block in enumerate(re.findall(r"```python\n(.*?)```", readme, flags=re.S)):
    (work / f"readme_{i}.py").write_text(block)
    subprocess.run([python, f"readme_{i}.py"], cwd=work, check=True, env={"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin"})
    print(f"check_wheel: README Python block {i + 1} ran")
for block in re.findall(r"```sh\n(.*?)```", readme, flags=re.S):
    for line in block.splitlines():
        line = line.split("  #")[0].strip()
        if line.startswith(".venv/bin/ccsim "):
            subprocess.run(["bash", "-c", line], cwd=work, check=True, stdout=subprocess.DEVNULL)
            print(f"check_wheel: {line}")
PY
echo "check_wheel: ok"
