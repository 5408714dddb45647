"""The README's quick start runs as written (its Python block and its `.venv/bin/ccsim` lines)."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def _blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_starts_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    first = text.split("```", 2)[1]
    commands = [line.split("#")[0].strip() for line in first.splitlines()[1:] if line.strip()]
    assert commands == ["make demo", "make test"], commands


def test_python_quick_start(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for block in _blocks("python"):
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
    import matplotlib.pyplot as plt

    plt.close("all")


def _cli_lines():
    lines = []
    for block in _blocks("sh"):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith(".venv/bin/ccsim "):
                lines.append(line)
    return lines


@pytest.mark.skipif(not _cli_lines(), reason="no CLI lines in the README")
def test_cli_quick_start(tmp_path, cli, env):
    for line in _cli_lines():
        words = shlex.split(line)
        redirect = None
        if ">" in words:
            i = words.index(">")
            redirect, words = words[i + 1], words[:i]
        p = subprocess.run(cli + words[1:], capture_output=True, text=True, env=env, cwd=tmp_path)
        assert p.returncode == 0, (line, p.stderr)
        if redirect:
            (tmp_path / redirect).write_text(p.stdout)
