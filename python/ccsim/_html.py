"""HTML pages from Jinja2 templates (`templates/`), autoescaped: the reproduction reports, the sweep
report and their tables. Values that are already HTML (a rendered table, a plotly figure) are
passed through `Markup`."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from markupsafe import Markup


@cache
def _env():
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(template: str, **context: Any) -> str:
    """The named template (`templates/<template>`) rendered with ``context``."""
    return _env().get_template(template).render(**context)


__all__ = ["render", "Markup"]
