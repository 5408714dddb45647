"""`ccsim docs [PAGE]`: the documentation that travels with the package. A wheel holds the docs/
pages built into a static HTML site (Sphinx with MyST, `scripts/build_docs.sh`, under
``ccsim/_docs_site/``; its search works from ``file://``), and each page's Markdown
(``_docs_site/_sources/PAGE.md.txt``). A checkout without a built site reads ``docs/`` itself.

The command opens the page in a web browser where one can show it (a terminal with a graphical
display, or ``$BROWSER``), and otherwise prints the page's path and its Markdown. An unknown page
is a usage error (exit 2) naming the nearest pages."""

from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path
from typing import Optional

import typer

_PACKAGE = Path(__file__).resolve().parent
SITE = _PACKAGE / "_docs_site"
#: docs/ of a checkout (an editable install), used when no site is built.
CHECKOUT_DOCS = _PACKAGE.parent.parent / "docs"


def pages() -> dict[str, Path]:
    """Every page by name (its path under docs/ without `.md`: `scenarios`, `models/tcp`) and
    where its Markdown is."""
    sources = SITE / "_sources"
    if sources.is_dir():
        return {p.relative_to(sources).as_posix()[: -len(".md.txt")]: p for p in sorted(sources.rglob("*.md.txt"))}
    if CHECKOUT_DOCS.is_dir():
        return {p.relative_to(CHECKOUT_DOCS).as_posix()[: -len(".md")]: p for p in sorted(CHECKOUT_DOCS.rglob("*.md"))}
    return {}


def html_path(page: str) -> Path | None:
    """The built HTML of ``page``, if the site is installed."""
    p = SITE / f"{page}.html"
    return p if p.is_file() else None


def find(page: str | None) -> str:
    """The page a user's name means: `trace`, `docs/trace.md`, `trace.html` and, where only one
    page has that file name, `tcp` for `models/tcp`. ``typer.BadParameter`` (exit 2) naming the
    nearest pages otherwise."""
    known = pages()
    if not known:
        raise typer.BadParameter("this installation has no documentation (neither a built site nor docs/)")
    if page is None:
        return "index" if "index" in known else next(iter(known))
    name = page.strip().removeprefix("./").removeprefix("docs/")
    for suffix in (".md", ".html"):
        name = name.removesuffix(suffix)
    if name in known:
        return name
    same = [k for k in known if k.rsplit("/", 1)[-1] == name]
    if len(same) == 1:
        return same[0]
    near = same or difflib.get_close_matches(name, list(known), n=4, cutoff=0.5) or difflib.get_close_matches(
        name, [k.rsplit("/", 1)[-1] for k in known], n=4, cutoff=0.5)
    near = [n if n in known else next(k for k in known if k.rsplit("/", 1)[-1] == n) for n in near]
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise typer.BadParameter(f"no page {page!r}{hint} (`ccsim docs --list` lists them)", param_hint="PAGE")


def browser_available() -> bool:
    """Whether a page opened now would be seen: ``$BROWSER`` is set, or a graphical session is
    (a console browser started inside a pipe or a test would block or be lost)."""
    if os.environ.get("BROWSER"):
        return True
    if not sys.stdout.isatty():
        return False
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def docs(
    page: Optional[str] = typer.Argument(None, help="A page: scenarios, trace, sweeps, models/tcp, reproductions/gfr, ... "
                                         "(default: the index)."),
    print_: bool = typer.Option(False, "--print", help="Print the page's path and its Markdown instead of opening a browser."),
    list_: bool = typer.Option(False, "--list", help="List the pages."),
) -> None:
    """Open the documentation installed with ccsim (or print a page where no browser can show it)."""
    if list_:
        for name in pages():
            sys.stdout.write(name + "\n")
        return
    name = find(page)
    html = html_path(name)
    if html is not None and not print_ and browser_available():
        import webbrowser

        if webbrowser.open(html.as_uri()):
            sys.stdout.write(f"opened {html}\n")
            return
    source = pages()[name]
    where = html if html is not None else source
    sys.stdout.write(f"{name}: {where}\n\n")
    sys.stdout.write(source.read_text(encoding="utf-8"))


__all__ = ["docs", "pages", "find", "html_path", "SITE"]
