"""`ccsim docs [PAGE]`: the documentation installed with ccsim (here, a checkout's docs/ or its
built site): a page printed where no browser can show it, near names for an unknown page (exit 2),
and every `ccsim docs PAGE` that help texts, errors and the schema cite names a page."""

import os
import re
import subprocess

import ccsim
from ccsim import _core, docs_cmd


def no_browser_env(env):
    e = {k: v for k, v in env.items() if k not in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY")}
    return e


def test_a_page_is_printed_where_no_browser_can_show_it(cli, env):
    for args in (["docs", "trace"], ["docs", "docs/trace.md", "--print"]):
        p = subprocess.run(cli + args, capture_output=True, text=True, env=no_browser_env(env))
        assert p.returncode == 0, p.stderr
        first, _, rest = p.stdout.partition("\n")
        assert first.startswith("trace: ") and os.path.isfile(first.removeprefix("trace: "))
        assert rest.lstrip().startswith("# "), rest[:200]  # the page's Markdown, from its title
        assert docs_cmd.pages()["trace"].read_text(encoding="utf-8") in p.stdout


def test_a_unique_file_name_finds_its_page():
    assert docs_cmd.find("tcp") == "models/tcp"
    assert docs_cmd.find("models/tcp.md") == "models/tcp"
    assert docs_cmd.find(None) == "index"


def test_an_unknown_page_names_the_near_ones_and_exits_2(cli, env):
    p = subprocess.run(cli + ["docs", "senarios"], capture_output=True, text=True, env=no_browser_env(env))
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("error:") and "did you mean scenarios" in p.stderr
    # Two pages of that file name: both suggested, none chosen.
    p = subprocess.run(cli + ["docs", "gfr"], capture_output=True, text=True, env=no_browser_env(env))
    assert p.returncode == 2 and "models/ubr/gfr" in p.stderr and "reproductions/gfr" in p.stderr


def test_every_cited_page_exists(cli, env):
    """Help texts, errors and the schema cite `ccsim docs PAGE`: each PAGE is a page."""
    pages = docs_cmd.pages()
    cited = set(re.findall(r"ccsim docs ([\w/-]+)", _core.schema()))
    for args in (["run", "--help"], ["sweep", "--help"]):
        cited |= set(re.findall(r"ccsim docs ([\w/-]+)", subprocess.run(cli + args, capture_output=True, text=True,
                                                                         env=env).stdout))
    assert cited, "nothing cites a page: the test would prove nothing"
    assert "docs/" not in _core.schema().replace("ccsim docs", "")
    assert sorted(c for c in cited if c not in pages) == []
