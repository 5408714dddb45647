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
