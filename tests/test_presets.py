"""Preset discovery from the installed package: names, descriptions, text, close matches."""

import json
import re

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


def test_every_preset_has_its_seed_paper_and_a_one_sentence_purpose():
    from ccsim.presets import FAMILIES, PAPERS, origin, purpose, seed_of

    for name, desc in list_presets():
        family = name.split("/")[0]
        if family in FAMILIES:  # no seed paper: the family is the origin
            assert origin(name) == family and family not in PAPERS, name
        else:
            assert f"seed {seed_of(name)}:" in PAPERS[family] and origin(name) == f"seed {seed_of(name)}", name
        p = purpose(desc)
        assert p and not p.lower().startswith("seed ") and "docs/" not in p, (name, p)
        assert set(re.findall(r"\w+", p.lower())) <= set(re.findall(r"\w+", desc.lower())), (name, p)  # its words
    assert purpose("Seed 003 Table 1 no. 5 (LAN): three-switch parking lot. A crosses SW1->SW2") == \
        "Table 1 no. 5 (LAN): three-switch parking lot."
    assert purpose("Seed 002 (FICCRD), the first try (docs/a.md; x is y; docs/b.md). Identical to z") == \
        "The first try (x is y)."
    assert purpose("Seed 000 §4 (Figs. 6-9; docs/models/hgrcp.md): 5 sources. The rest") == "§4 (Figs. 6-9): 5 sources."


def test_filters_and_near_names():
    from ccsim.presets import matching, near_names

    assert matching(None) == preset_names() and matching("") == preset_names()
    names = preset_names()
    assert matching("FICCRD/") == [n for n in names if n.startswith("ficcrd/")] != []
    assert matching("ABR-BENCHMARKS/GFC") == ["abr-benchmarks/gfc1", "abr-benchmarks/gfc1-short-access",
                                             "abr-benchmarks/gfc2", "abr-benchmarks/gfc3"]
    assert matching("*/gfc[12]") == ["abr-benchmarks/gfc1", "abr-benchmarks/gfc2"] == matching("gfc[12]")
    assert matching("abr-*/one-*") == ["abr-benchmarks/one-at-a-time", "abr-benchmarks/one-source"]
    assert matching("no-such") == []
    assert near_names("gfc1")[0] == "abr-benchmarks/gfc1"  # a scenario part alone
    assert near_names("abr-benchmarks/parkinglot-3")[0] == "abr-benchmarks/parking-lot-3"
    assert near_names("zzzz") == []


def test_the_scale_presets_are_what_their_generator_writes():
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("gen", root / "scripts" / "make_scale_presets.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for name, make in gen.PRESETS.items():
        assert preset_text(name) == make(), f"{name}: run scripts/make_scale_presets.py"
