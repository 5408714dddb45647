//! Malformed scenarios are refused with an error that names the field and the rule.

use ccsim_scenario::{load, Adjustments, Format, Run, ScenarioError};
use serde_json::{json, Value};

fn base() -> Value {
    json!({
        "name": "test/two",
        "run": {"duration": "20ms", "seed": 1},
        "defaults": {"link_rate": "155.52Mbps", "link_delay": "5us", "buffer": "1000cells",
                     "abr": {"pcr": "155Mbps", "icr": "25Mbps", "mcr": "0Mbps", "rif": 1.0}},
        "switch": [{"name": "SW1"}, {"name": "SW2"}],
        "link": [{"name": "L1", "between": ["SW1", "SW2"]}],
        "source": [{"name": "S1", "route": ["SW1", "SW2"]}, {"name": "S2", "route": ["SW1", "SW2"]}]
    })
}

fn err_of(v: Value) -> ScenarioError {
    load(&v.to_string(), Format::Json, &Adjustments::default()).expect_err("must be refused")
}

fn with(path: &str, value: Value) -> ScenarioError {
    let mut v = base();
    ccsim_scenario::set_path(&mut v, path, value).unwrap();
    err_of(v)
}

#[test]
fn the_base_scenario_is_valid() {
    load(&base().to_string(), Format::Json, &Adjustments::default()).unwrap();
}

#[test]
fn unknown_key() {
    let e = with("link[0].speed", json!("1Mbps"));
    assert_eq!(e.path, "link[0].speed");
    assert!(e.message.contains("unknown field `speed`"), "{e}");
}

#[test]
fn zero_rate() {
    let e = with("link[0].rate", json!("0Mbps"));
    assert_eq!(e.to_string(), "link[0].rate: must be > 0");
}

#[test]
fn negative_rate() {
    let e = with("defaults.link_rate", json!("-5Mbps"));
    assert_eq!(e.path, "defaults.link_rate");
    assert!(e.message.contains("negative"), "{e}");
}

#[test]
fn unknown_unit() {
    let e = with("link[0].delay", json!("5 fortnights"));
    assert_eq!(e.path, "link[0].delay");
    assert!(e.message.contains("unknown time unit 'fortnights'"), "{e}");
}

#[test]
fn missing_unit() {
    let e = with("run.duration", json!(5));
    assert_eq!(e.path, "run.duration");
    assert!(e.message.contains("no unit"), "{e}");
}

#[test]
fn route_over_a_missing_link() {
    let mut v = base();
    v["switch"].as_array_mut().unwrap().push(json!({"name": "SW3"}));
    v["source"][1]["route"] = json!(["SW1", "SW3"]);
    let e = err_of(v);
    assert_eq!(e.to_string(), "source[1].route[1]: no link between 'SW1' and 'SW3'");
}

#[test]
fn route_to_an_unknown_switch() {
    let e = with("source[0].route[1]", json!("SW9"));
    assert_eq!(e.to_string(), "source[0].route[1]: unknown switch 'SW9'");
}

#[test]
fn duplicate_names() {
    let e = with("source[1].name", json!("S1"));
    assert_eq!(e.path, "source[1].name");
    assert!(e.message.contains("duplicate name 'S1'"), "{e}");
    let e = with("switch[1].name", json!("SW1"));
    assert_eq!(e.path, "switch[1].name");
}

#[test]
fn empty_route() {
    let e = with("source[0].route", json!([]));
    assert_eq!(e.to_string(), "source[0].route: must name at least one switch");
}

#[test]
fn zero_duration() {
    let e = with("run.duration", json!("0s"));
    assert_eq!(e.to_string(), "run.duration: must be > 0");
}

#[test]
fn mcr_above_pcr() {
    let e = with("source[1].abr", json!({"mcr": "200Mbps"}));
    assert_eq!(e.path, "source[1].abr.mcr");
    assert!(e.message.contains("must not exceed pcr"), "{e}");
}

#[test]
fn buffer_of_zero() {
    let e = with("defaults.buffer", json!("0cells"));
    assert_eq!(e.to_string(), "defaults.buffer: must be at least 1 cell");
    let e = with("switch[0].buffer", json!(0));
    assert_eq!(e.to_string(), "switch[0].buffer: must be at least 1 cell");
}

#[test]
fn wrong_type() {
    let e = with("source[0].count", json!("three"));
    assert_eq!(e.path, "source[0].count");
    assert!(e.message.contains("invalid type"), "{e}");
}

#[test]
fn unknown_algorithm() {
    let e = with("defaults.algorithm", json!({"type": "magic"}));
    assert_eq!(e.path, "defaults.algorithm.type");
    assert!(e.message.contains("unknown variant `magic`"), "{e}");
}

/// An unknown value of an enumerated field inside a tagged table names the field, not only the
/// table (serde reports it at the table: the table is read from a buffered copy).
#[test]
fn unknown_value_of_an_algorithm_option_names_the_option() {
    let e = with("defaults.algorithm", json!({"type": "ut", "r_a": "sum"}));
    assert_eq!(e.to_string(), "defaults.algorithm.r_a: unknown variant `sum`, expected `arrivals` or `ccr`");
    let e = with("defaults.algorithm", json!({"type": "erica", "load_averaging": "mean"}));
    assert_eq!(e.path, "defaults.algorithm.load_averaging");
    assert!(e.message.starts_with("unknown variant `mean`"), "{e}");
    for r_a in ["arrivals", "ccr"] {
        let mut v = base();
        ccsim_scenario::set_path(&mut v, "defaults.algorithm", json!({"type": "ut", "r_a": r_a})).unwrap();
        load(&v.to_string(), Format::Json, &Adjustments::default()).unwrap();
    }
}

#[test]
fn bad_algorithm_parameter() {
    let e = with("defaults.algorithm", json!({"type": "erica", "target_utilization": 1.5}));
    assert_eq!(e.to_string(), "defaults.algorithm.target_utilization: must be in (0, 1]");
}

#[test]
fn unknown_scheme_swap_and_bad_override_paths() {
    let adj = Adjustments { scheme: Some("fancy".into()), ..Default::default() };
    let e = load(&base().to_string(), Format::Json, &adj).unwrap_err();
    assert_eq!(e.path, "scheme");
    let adj = Adjustments { overrides: vec![("source[7].name".into(), json!("x"))], ..Default::default() };
    let e = load(&base().to_string(), Format::Json, &adj).unwrap_err();
    assert_eq!(e.path, "source[7]");
}

#[test]
fn invalid_toml_is_reported_not_panicked() {
    let e = load("name = \"x\"\nthis is = = not toml", Format::Toml, &Adjustments::default()).unwrap_err();
    assert!(e.message.starts_with("invalid TOML"), "{e}");
    assert!(e.message.contains("(line 2, column"), "{e}");
    let e = load("[1, 2]", Format::Json, &Adjustments::default()).unwrap_err();
    assert!(e.message.contains("top level"), "{e}");
}

#[test]
fn scheme_swap_uses_the_scenarios_settings() {
    let mut v = base();
    v["schemes"] = json!({"efci": {"q_hi": 300, "q_lo": 100}});
    let adj = Adjustments { scheme: Some("efci".into()), ..Default::default() };
    let s = load(&v.to_string(), Format::Json, &adj).unwrap();
    let alg = serde_json::to_value(&s.defaults.algorithm).unwrap();
    assert_eq!(alg, json!({"type": "efci", "mode": "efci", "q_hi": 300, "q_lo": 100}));
}

proptest::proptest! {
    /// Whatever text arrives, loading returns Ok or a ScenarioError: it never panics.
    #[test]
    fn loading_never_panics(text in "\\PC{0,200}") {
        let _ = load(&text, Format::Toml, &Adjustments::default());
        let _ = load(&text, Format::Json, &Adjustments::default());
    }

    /// Whatever overrides arrive (deep paths, deep nesting, non-finite numbers, bad JSON), as
    /// JSON text (the Python binding's form) or as values, loading returns Ok or a
    /// ScenarioError: it never panics and never overflows the stack.
    #[test]
    fn overrides_never_panic(
        parts in proptest::collection::vec(
            proptest::prop_oneof![
                "[a-z]{1,3}", "[a-z]{0,2}\\[[0-9]{1,2}\\]", "\\PC{0,4}",
                proptest::strategy::Just("run".to_string()), proptest::strategy::Just("source[0]".to_string()),
                proptest::strategy::Just("defaults".to_string()), proptest::strategy::Just("abr".to_string()),
            ],
            1..6,
        ),
        repeat in 0usize..300,
        nest in 0usize..300,
        open in proptest::sample::select(vec!["[", "{\"k\": ", "{\"a\": [", "[1, "]),
        leaf in proptest::prop_oneof![
            proptest::strategy::Strategy::prop_map(
                proptest::sample::select(vec!["1", "0.5", "NaN", "Infinity", "-Infinity", "nan", "inf", "1e999", "\"10ms\"", "null", "{}"]),
                String::from,
            ),
            "\\PC{0,10}",
        ],
        closed in proptest::bool::ANY,
    ) {
        use proptest::prop_assert;
        let mut path = parts.join(".");
        let last = parts.last().cloned().unwrap_or_default();
        for _ in 0..repeat {
            path.push('.');
            path.push_str(&last);
        }
        let closes: String = open.chars().rev().filter_map(|c| match c { '[' => Some(']'), '{' => Some('}'), _ => None }).collect();
        let value = format!("{}{leaf}{}", open.repeat(nest), if closed { closes.repeat(nest) } else { String::new() });
        let parsed = ccsim_scenario::parse_override(&path, &value);
        if repeat >= ccsim_scenario::MAX_DEPTH && !last.is_empty() && last.chars().all(|c| c.is_ascii_lowercase()) {
            prop_assert!(parsed.is_err(), "{path}");
        }
        if let Ok(v) = parsed {
            let adj = Adjustments { overrides: vec![(path.clone(), v)], ..Default::default() };
            let _ = load(&base().to_string(), Format::Json, &adj);
        }
        // The same nesting as a value built in Rust, and as scenario text in JSON and TOML.
        let mut v = json!(1);
        for _ in 0..nest {
            v = if open == "[" { json!([v]) } else { json!({"k": v}) };
        }
        let adj = Adjustments { overrides: vec![(path.clone(), v)], ..Default::default() };
        let _ = load(&base().to_string(), Format::Json, &adj);
        let _ = load(&format!("{{\"run\": {value}}}"), Format::Json, &Adjustments::default());
        let toml_open = if open == "[" { "[" } else { "{ k = " };
        let toml_close = if open == "[" { "]" } else { "}" };
        let text = format!("run = {}{leaf}{}", toml_open.repeat(nest), toml_close.repeat(nest));
        let _ = load(&text, Format::Toml, &Adjustments::default());
        let text = format!("[{}]\nx = {leaf}", vec![last.as_str(); repeat.max(1)].join("."));
        let _ = load(&text, Format::Toml, &Adjustments::default());
    }
}

/// The base scenario plus two routers joined by a link and a connection over them.
fn with_routers() -> Value {
    let mut v = base();
    v["router"] = json!([{"name": "R1"}, {"name": "R2"}]);
    v["link"].as_array_mut().unwrap().push(json!({"name": "L2", "between": ["R1", "R2"]}));
    v["connection"] = json!([{"name": "T", "route": ["R1", "R2"]}]);
    v
}

#[test]
fn routers_are_valid_and_a_link_never_joins_a_switch_to_a_router() {
    load(&with_routers().to_string(), Format::Json, &Adjustments::default()).unwrap();
    let mut v = with_routers();
    v["link"][1]["between"] = json!(["SW2", "R1"]);
    let e = err_of(v);
    assert_eq!(e.path, "link[1].between");
    assert!(e.message.contains("joins switch 'SW2' to router 'R1'"), "{e}");
}

#[test]
fn abr_transport_over_routers_and_sources_over_routers_are_refused() {
    let mut v = with_routers();
    v["connection"][0]["transport"] = json!("abr");
    let e = err_of(v);
    assert_eq!(e.path, "connection[0].transport");
    assert!(e.message.contains("use transport = ip"), "{e}");
    let mut v = with_routers();
    v["source"][0]["route"] = json!(["R1", "R2"]);
    let e = err_of(v);
    assert_eq!(e.path, "source[0].route[0]");
    assert_eq!(e.message, "'R1' is a router; this route must cross switches only");
    // Background traffic is ATM too.
    let mut v = with_routers();
    v["background"] = json!([{"name": "V", "route": ["R1", "R2"], "peak": "1Mbps", "mean_on": "1ms", "mean_off": "1ms"}]);
    let e = err_of(v);
    assert_eq!(e.to_string(), "background[0].route[0]: 'R1' is a router; this route must cross switches only");
}

#[test]
fn router_buffer_and_red_thresholds_are_checked() {
    let mut v = with_routers();
    v["router"][0]["buffer"] = json!("0packets");
    assert_eq!(err_of(v).to_string(), "router[0].buffer: must be at least 1 packet");
    let mut v = with_routers();
    v["router"][1]["queue"] = json!({"type": "red", "min_th": 20, "max_th": 10});
    assert_eq!(err_of(v).to_string(), "router[1].queue.max_th: must be greater than min_th (20)");
    let mut v = with_routers();
    v["defaults"]["queue"] = json!({"type": "red", "w_q": 0});
    assert_eq!(err_of(v).to_string(), "defaults.queue.w_q: must be in (0, 1]");
    let mut v = with_routers();
    v["router"][0]["buffer"] = json!("10cells");
    let e = err_of(v);
    assert_eq!(e.path, "router[0].buffer");
    assert!(e.message.contains("use packets"), "{e}");
}

#[test]
fn ficcrd_control_and_fiewa_edge_fields_are_checked() {
    let cases = [
        (1, "control", json!({"type": "ficcrd", "alpha": 0.9}), "router[1].control.alpha: must be >= 1"),
        (1, "control", json!({"type": "ficcrd", "bur": 1.0}), "router[1].control.bur: must be in (0, 1)"),
        (1, "control", json!({"type": "ficcrd", "bur": 0}), "router[1].control.bur: must be in (0, 1)"),
        (0, "control", json!({"type": "ficcrd", "beta": 0}), "router[0].control.beta: must be in (0, 1]"),
        (0, "control", json!({"type": "ficcrd", "beta": 1.5}), "router[0].control.beta: must be in (0, 1]"),
        (0, "edge", json!({"type": "fiewa", "n_rd": 0}), "router[0].edge.n_rd: must be >= 1"),
        (0, "edge", json!({"type": "fiewa", "k_e": "0s"}), "router[0].edge.k_e: must be > 0"),
        (0, "edge", json!({"type": "fiewa", "rd_size": "0B"}), "router[0].edge.rd_size: must be between 1 and 65535 bytes"),
        (0, "edge", json!({"type": "fiabc", "rd_interval": "0s"}), "router[0].edge.rd_interval: must be > 0 (a time longer than the run sends no RD on its own)"),
        (0, "edge", json!({"type": "fiabc", "rtt": "rd"}), "router[0].edge.rtt: only FIEWA (type = \"fiewa\") has a window round trip"),
        (0, "edge", json!({"type": "fiabc", "window_rounding": "up"}), "router[0].edge.window_rounding: only FIEWA (type = \"fiewa\") writes a window"),
    ];
    for (i, field, value, want) in cases {
        let mut v = with_routers();
        v["router"][i][field] = value;
        assert_eq!(err_of(v).to_string(), want);
    }
    // The defaults are valid, and unknown keys are refused.
    let mut v = with_routers();
    v["router"][0]["edge"] = json!({"type": "fiewa"});
    v["router"][1]["control"] = json!({"type": "ficcrd"});
    load(&v.to_string(), Format::Json, &Adjustments::default()).unwrap();
    v["router"][0]["edge"] = json!({"type": "fiewa", "rtt": "rd", "window_rounding": "up"});
    load(&v.to_string(), Format::Json, &Adjustments::default()).unwrap();
    v["router"][0]["edge"] = json!({"type": "fiewa", "rtt": "edge"});
    assert!(err_of(v).to_string().starts_with("router[0].edge"), "an unknown round trip is refused");
    let mut v = with_routers();
    v["router"][1]["control"] = json!({"type": "ficcrd", "queue": "packets"});
    v["router"][0]["edge"] = json!({"type": "fiabc", "rd_interval": "250ms"});
    load(&v.to_string(), Format::Json, &Adjustments::default()).unwrap();
    v["router"][1]["control"] = json!({"type": "ficcrd", "queue": "cells"});
    assert!(err_of(v).to_string().starts_with("router[1].control"), "an unknown queue reading is refused");
    let mut v = with_routers();
    v["router"][1]["control"] = json!({"type": "ficcrd", "gamma": 1});
    let e = err_of(v);
    assert!(e.path.starts_with("router[1].control"), "{e}");
    assert!(e.message.contains("unknown field `gamma`"), "{e}");
}

/// RED's switches are booleans with ns-2.35's defaults; a wrong type names the field, although
/// serde reads the tagged `queue` table without paths.
#[test]
fn red_switches_default_to_ns2_and_wrong_types_name_the_field() {
    let mut v = with_routers();
    v["defaults"]["queue"] = json!({"type": "red"});
    let s = load(&v.to_string(), Format::Json, &Adjustments::default()).unwrap();
    match s.defaults.queue {
        ccsim_scenario::ip::QueueSpec::Red { wait, spare_first, overflow_resets_count, gentle, .. } => {
            assert_eq!((wait, spare_first, overflow_resets_count, gentle), (true, true, true, false));
        }
        other => panic!("{other:?}"),
    }
    for field in ["wait", "spare_first", "overflow_resets_count", "gentle"] {
        let mut v = with_routers();
        v["router"][0]["queue"] = json!({"type": "red", "min_th": 3, field: "yes"});
        assert_eq!(err_of(v).to_string(), format!("router[0].queue.{field}: invalid type: string \"yes\", expected true or false"));
    }
    // Values of other tagged tables are found the same way.
    let mut v = with_routers();
    v["router"][1]["control"] = json!({"type": "ficcrd", "bur": "half"});
    assert_eq!(err_of(v).path, "router[1].control.bur");
}

#[test]
fn names_durations_and_series_have_stated_limits() {
    // A name longer than the limit is refused at its path, with the limit.
    let long = "x".repeat(ccsim_scenario::MAX_NAME_CHARS + 1);
    let e = with("switch[0].name", json!(long)).to_string();
    assert!(e.starts_with("switch[0].name: is 201 characters long; names are at most 200"), "{e}");
    // A mistyped count fails at once, before any member is named or built.
    let e = with("source[0].count", json!(100_000_000u32)).to_string();
    assert_eq!(e, "source[0].count: 100000000 members would make 100000000 sources and connections in all; a scenario holds at most 1000000");
    // A duration beyond the clock's range says the range.
    let e = with("run.duration", json!("1e8s")).to_string();
    assert!(e.contains("too long (at most 9.223e6 s)"), "{e}");
    // Series that would not fit the memory allowed are refused before the run, with the ways out.
    let mut v = base();
    ccsim_scenario::set_path(&mut v, "measure.interval", json!("1us")).unwrap();
    ccsim_scenario::set_path(&mut v, "run.duration", json!("100s")).unwrap();
    let e = match Run::from_text(&v.to_string(), Format::Json, &Adjustments::default()) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a run of 10^8 samples per series must be refused"),
    };
    assert!(e.starts_with("measure: the time series would take ~") && e.contains("measure.max_series_mb = 1024"), "{e}");
    ccsim_scenario::set_path(&mut v, "measure.max_series_mb", json!(1_000_000_000)).unwrap();
    ccsim_scenario::set_path(&mut v, "measure.queue", json!(false)).unwrap();
    assert!(Run::from_text(&v.to_string(), Format::Json, &Adjustments::default()).is_ok(), "raising the limit lets it run");
}

#[test]
fn options_that_would_change_nothing_are_refused_or_noticed() {
    let load_with = |v: &Value, adj: Adjustments| load(&v.to_string(), Format::Json, &adj).map(|_| ()).map_err(|e| e.to_string());
    // `schemes.<name>` settings act only through `--scheme <name>`.
    let sets = vec![("schemes.erica.max_min_fix".to_string(), json!(false))];
    let e = load_with(&base(), Adjustments { overrides: sets.clone(), ..Default::default() }).unwrap_err();
    assert!(e.starts_with("schemes.erica.max_min_fix: the schemes tables apply only with --scheme erica"), "{e}");
    assert!(e.contains("set defaults.algorithm.max_min_fix instead"), "{e}");
    // ... and with it they are read: applied before the swap.
    let mut v = base();
    v["schemes"] = json!({"erica": {"max_min_fix": true}});
    let adj = Adjustments { overrides: sets, scheme: Some("erica".into()), ..Default::default() };
    let s = load(&v.to_string(), Format::Json, &adj).unwrap();
    let alg = serde_json::to_value(&s.defaults.algorithm).unwrap();
    assert_eq!(alg["max_min_fix"], false, "{alg}");
    // --tcp without a TCP connection, --scheme without a switch: loaded with a notice each.
    let s = load(&base().to_string(), Format::Json, &Adjustments { tcp: Some("reno".into()), ..Default::default() }).unwrap();
    assert_eq!(s.notices, ["--tcp reno changes nothing: the scenario has no TCP connection"]);
    let mut routers_only = with_routers();
    let o = routers_only.as_object_mut().unwrap();
    o.remove("switch");
    o.remove("source");
    o["link"] = json!([{"name": "L2", "between": ["R1", "R2"]}]);
    let s = load(&routers_only.to_string(), Format::Json, &Adjustments::default()).unwrap();
    assert!(s.notices.is_empty());
    let adj = Adjustments { scheme: Some("erica".into()), ..Default::default() };
    let s = load(&routers_only.to_string(), Format::Json, &adj).unwrap();
    assert_eq!(s.notices, ["--scheme erica changes nothing: the scenario has no ATM switch"]);
    // An unknown name is still an error.
    let e = load_with(&routers_only, Adjustments { scheme: Some("nope".into()), ..Default::default() }).unwrap_err();
    assert!(e.starts_with("scheme: unknown ABR switch scheme 'nope'"), "{e}");
}

#[test]
fn shortening_a_run_below_measure_from_scales_it_with_a_notice() {
    let mut v = base();
    v["run"] = json!({"duration": "200ms", "measure_from": "50ms"});
    let shorten = |d: &str, extra: Vec<(String, Value)>| {
        let mut overrides = vec![("duration".to_string(), json!(d))];
        overrides.extend(extra);
        load(&v.to_string(), Format::Json, &Adjustments { overrides, ..Default::default() })
    };
    // Past measure_from: scaled in proportion (50/200 of 20 ms), with a notice.
    let s = shorten("20ms", vec![]).unwrap();
    assert_eq!(s.run.measure_from.unwrap().0, ccsim_engine::SimDuration::from_millis(5));
    assert_eq!(s.notices.len(), 1, "{:?}", s.notices);
    assert!(s.notices[0].starts_with("run.measure_from 50ms is past the end of the shortened run (20ms): scaled with it to 5ms"), "{}", s.notices[0]);
    // Still before it: unchanged, silently.
    let s = shorten("100ms", vec![]).unwrap();
    assert_eq!(s.run.measure_from.unwrap().0, ccsim_engine::SimDuration::from_millis(50));
    assert!(s.notices.is_empty());
    // Set together: the user's value, checked as before.
    let e = shorten("20ms", vec![("run.measure_from".into(), json!("30ms"))]).unwrap_err().to_string();
    assert!(e.starts_with("run.measure_from: must be before the end of the run"), "{e}");
}

/// Mean ON or OFF periods below a cell time at the peak are refused with the field's path
/// (issue #35: the old source sent a cell per ON period however short, a flood at 1 ns); one
/// cell time is accepted.
#[test]
fn background_periods_below_a_cell_time_are_refused() {
    // 23,235 cells/s: a cell time of 43.038519 µs.
    let bg = |on: &str, off: &str| json!([{"name": "V", "route": ["SW1", "SW2"], "peak": "23235cells/s", "mean_on": on, "mean_off": off}]);
    let mut v = base();
    v["background"] = bg("43us", "1ms");
    let e = err_of(v).to_string();
    assert!(e.starts_with("background[0].mean_on: 43us is shorter than one cell time at its peak 9.85164Mbps (43.038519us)"), "{e}");
    let mut v = base();
    v["background"] = bg("1ms", "1ns");
    assert!(err_of(v).to_string().starts_with("background[0].mean_off: 1ns is shorter than one cell time"));
    let mut v = base();
    v["background"] = bg("43.038519us", "43.038519us");
    load(&v.to_string(), Format::Json, &Adjustments::default()).unwrap();
}

#[test]
fn a_background_peak_above_its_access_link_is_refused() {
    // (A source may start after the run ends: shortened runs of a preset leave late arrivals out.)
    let mut v = base();
    v["background"] = json!([{"name": "V", "route": ["SW1", "SW2"], "peak": "200Mbps", "mean_on": "1ms", "mean_off": "1ms"}]);
    let e = err_of(v).to_string();
    assert!(e.starts_with("background[0].peak: 200Mbps is above its access link's 155.52Mbps"), "{e}");
}

#[test]
fn messages_name_the_field_in_user_terms() {
    // A required field inside a tagged table: the field, not its table.
    let e = with("defaults.tcp.clock", json!({"type": "quantized", "tick": 100})).to_string();
    assert!(e.starts_with("defaults.tcp.clock.tick: 100 has no unit"), "{e}");
    // A setting of `schemes.NAME`, copied by --scheme: reported where it was written, and in
    // words rather than Rust's type names.
    let mut v = base();
    v["schemes"] = json!({"efci": {"q_hi": -1}});
    let adj = Adjustments { scheme: Some("efci".into()), ..Default::default() };
    let e = load(&v.to_string(), Format::Json, &adj).unwrap_err().to_string();
    assert_eq!(e, "schemes.efci.q_hi: invalid value: integer `-1`, expected a whole number from 0 to 4294967295");
    let e = with("defaults.abr.rif", json!("x")).to_string();
    assert!(e.ends_with("expected a number"), "{e}");
    // A count beyond the largest says so, not that it is fractional.
    let e = with("defaults.buffer", json!("4294967296cells")).to_string();
    assert_eq!(e, "defaults.buffer: '4294967296cells' is more than the largest count, 4294967295 cells");
}

#[test]
fn an_error_is_one_line_whatever_the_keys_hold() {
    let mut v = base();
    v["run"]["\n"] = json!(1);
    let e = err_of(v).to_string();
    assert_eq!(e, "run.\\n: unknown field `\\n`, expected one of `duration`, `seed`, `replication`, `measure_from`, `threads`");
    assert!(!e.contains('\n'));
}
