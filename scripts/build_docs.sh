#!/usr/bin/env bash
# Builds docs/ into the static HTML site the wheel ships (python/ccsim/_docs_site/, opened by
# `ccsim docs`): Sphinx with MyST-Parser reading the Markdown pages, offline, warnings as errors (a
# page left out of docs/index.md's tables of contents fails the build). Reproducible: the same
# sources give the same bytes (dates come from SOURCE_DATE_EPOCH, the last commit's time). Needs
# sphinx and myst-parser in PY (the `docs` extra; build and development only, never at run time).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
out=python/ccsim/_docs_site
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
rm -rf "$out" target/docs-doctrees
"$PY" -m sphinx -b html -q -W --keep-going -d target/docs-doctrees docs "$out"
# Sphinx's build cache marker, not a page.
rm -f "$out/.buildinfo"
echo "docs: $(find "$out" -name '*.html' | wc -l) pages in $out ($(du -sh "$out" | cut -f1))"
