"""Preset discovery from the installed package: names, descriptions, text, close matches."""

import json

import pytest

import ccsim
from ccsim import _core
from ccsim.presets import list_presets, preset_names, preset_path, preset_text


def test_names_are_sorted_paper_slash_scenario():
    names = preset_names()
    assert names == sorted(names) and "abr-benchmarks/gfc1" in names
    assert all(n.count("/") == 1 for n in names)
    assert [n for n, _ in list_presets()] == names


def test_descriptions_are_the_toml_description_on_one_line():
    for name, desc in list_presets():
        assert desc and "\n" not in desc, name


def test_text_and_path_agree():
    path = preset_path("abr-benchmarks/gfc1")
    assert path.is_file() and path.suffix == ".toml"
    assert path.read_text(encoding="utf-8") == preset_text("abr-benchmarks/gfc1")


@pytest.mark.parametrize("bad", ["abr-benchmarks/gfc", "gfc1", "abr-benchmarks/gfc1/x", "", "../abr-benchmarks/gfc1"])
def test_unknown_names_are_scenario_errors(bad):
    with pytest.raises(ccsim.ScenarioError, match="unknown preset"):
        preset_text(bad)


def test_close_matches_are_suggested():
    with pytest.raises(ccsim.ScenarioError, match="did you mean abr-benchmarks/two-sources"):
        preset_path("abr-benchmarks/two-source")


@pytest.mark.parametrize("name", preset_names())
def test_every_preset_validates_and_is_named_after_its_file(name):
    resolved = json.loads(_core.resolve(preset_text(name), "toml"))
    assert resolved["name"] == name
