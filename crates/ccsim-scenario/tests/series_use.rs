//! A run that records no series (`SeriesUse::Discarded`, what `ccsim run --json` asks for) is the
//! same run: every number of its result but the series equal the run that keeps them, its
//! fingerprint and event count included, and the series limit does not refuse it.

mod common;

use ccsim_scenario::{Adjustments, Format, Run, SeriesUse};
use serde_json::Value;

fn adjust(overrides: &[(&str, &str)]) -> Adjustments {
    Adjustments {
        overrides: overrides
            .iter()
            .map(|(p, v)| (p.to_string(), serde_json::from_str(v).unwrap()))
            .collect(),
        ..Default::default()
    }
}

fn finish(preset: &str, overrides: &[(&str, &str)], series: SeriesUse) -> Value {
    let text = common::preset(preset);
    let mut r = Run::open(&text, Format::Toml, &adjust(overrides), series)
        .unwrap_or_else(|e| panic!("{preset}: {e}"));
    r.run_to_end();
    r.finish().unwrap()
}

#[test]
fn discarding_the_series_changes_nothing_else() {
    for preset in [
        "abr-benchmarks/gfc1",
        "ficcrd/droptail",
        "gfr/n-source-15-epd",
        "ut-ct/two-node-case1-ct-bdp",
    ] {
        let short = [("run.duration", "\"60ms\"")];
        let mut kept = finish(preset, &short, SeriesUse::InMemory);
        let mut discarded = finish(preset, &short, SeriesUse::Discarded);
        let rows = |v: &Value| -> usize {
            v["series"]
                .as_object()
                .unwrap()
                .values()
                .map(|s| s["time_s"].as_array().map_or(0, |a| a.len()))
                .sum()
        };
        assert!(rows(&kept) > 0, "{preset}: the kept run recorded series");
        assert_eq!(
            rows(&discarded),
            0,
            "{preset}: the discarded run recorded rows"
        );
        kept.as_object_mut().unwrap().remove("series");
        discarded.as_object_mut().unwrap().remove("series");
        assert_eq!(kept, discarded, "{preset}: the results differ");
        // A `measure` section that asks for no series: its samples record nothing and skip
        // settling the world, which changes nothing either.
        let off: Vec<_> = ["acr", "queue", "received", "utilization", "tcp"].iter().map(|m| (format!("measure.{m}"), "false")).collect();
        let mut none: Vec<(&str, &str)> = off.iter().map(|(p, v)| (p.as_str(), *v)).collect();
        none.extend(short);
        if preset.starts_with("ficcrd/") {
            // A FICCRD router's MAPR and DPF are recorded whatever `measure` asks.
            continue;
        }
        let mut asked_none = finish(preset, &none, SeriesUse::InMemory);
        assert_eq!(rows(&asked_none), 0, "{preset}: rows recorded with every series off");
        for v in [&mut kept, &mut asked_none] {
            // The overrides make another scenario.
            v.as_object_mut().unwrap().remove("scenario_hash");
        }
        asked_none.as_object_mut().unwrap().remove("series");
        assert_eq!(kept, asked_none, "{preset}: the results differ with every series off");
    }
}

#[test]
fn the_series_limit_refuses_only_series_kept_in_memory() {
    let tiny = [("measure.max_series_mb", "1"), ("run.duration", "\"1s\"")];
    let text = common::preset("abr-benchmarks/gfc1");
    let e = Run::open(&text, Format::Toml, &adjust(&tiny), SeriesUse::InMemory)
        .err()
        .expect("refused");
    assert!(e.to_string().contains("max_series_mb"), "{e}");
    assert!(Run::open(&text, Format::Toml, &adjust(&tiny), SeriesUse::Discarded).is_ok());
    assert!(Run::open(&text, Format::Toml, &adjust(&tiny), SeriesUse::Streamed).is_ok());
}

/// The printed summary (`Detail::Summary`) is the result without `series` and `vcs`, and the
/// result without series is the full one with `series` empty. The last result (`into_json`, which
/// frees the cells in flight once counted) is the same text, and nothing can be counted after it.
#[test]
fn each_detail_is_the_full_result_less_its_parts() {
    use ccsim_scenario::results::Detail;
    let text = common::preset("abr-benchmarks/two-sources");
    let mut r = Run::open(&text, Format::Toml, &adjust(&[("run.duration", "\"20ms\"")]), SeriesUse::InMemory).unwrap();
    r.run_to_end();
    let parse = |d| serde_json::from_str::<Value>(&r.finish_json(d).unwrap()).unwrap();
    let mut full = parse(Detail::Full);
    let mut no_series = parse(Detail::NoSeries);
    let summary = parse(Detail::Summary);
    assert!(!full["series"].as_object().unwrap().is_empty() && full["vcs"].is_object());
    assert_eq!(no_series["series"], serde_json::json!({}));
    let o = full.as_object_mut().unwrap();
    o.remove("series");
    no_series.as_object_mut().unwrap().remove("series");
    assert_eq!(full, no_series);
    full.as_object_mut().unwrap().remove("vcs");
    assert_eq!(full, summary);
    let text = r.finish_json(Detail::Full).unwrap();
    let in_flight = &parse(Detail::Full)["vcs"]["fwd_in_flight"];
    assert!(in_flight.as_array().unwrap().iter().any(|n| n.as_u64() > Some(0)), "cells in flight at the end: {in_flight}");
    let mut called = false;
    assert_eq!(r.into_json(Detail::Full, || called = true).unwrap(), text);
    assert!(called);
    let again = r.finish_json(Detail::Summary).unwrap_err().to_string();
    assert!(again.contains("already taken"), "{again}");
}
