//! No input crashes the process: paths and nesting are bounded (`MAX_DEPTH`) before anything
//! recursive touches them, and non-finite numbers are refused where they are written (issue #35,
//! items 2 and 3).

use ccsim_scenario::{check_depth, load, parse_override, parse_tree, set_path, Adjustments, Format, ScenarioError, MAX_DEPTH};
use serde_json::{json, Value};

const TEXT: &str = r#"name = "x"
run = { duration = "5ms" }
switch = [{ name = "SW1" }]
link = [{ name = "L1", between = ["SW1", "SW1"] }]
source = [{ name = "S1", route = ["SW1"] }]
"#;

/// `f` on a thread with the main thread's usual stack (8 MiB): the size on which the deep
/// inputs below overflowed (the process died with SIGSEGV, nothing printed).
fn on_main_sized_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(8 << 20).spawn(f).unwrap().join().unwrap()
}

fn deep_path(prefix: &str, n: usize) -> String {
    let mut p = prefix.to_string();
    for i in 0..n {
        if !p.is_empty() {
            p.push('.');
        }
        p.push(if i + 1 == n { 'b' } else { 'a' });
    }
    p
}

/// Loads `TEXT` with one override. The value is never dropped: a deep one would overflow the
/// stack (dropping recurses once per level), here in the test rather than in the code tested.
fn with_override(path: String, value: Value) -> Result<ccsim_scenario::Scenario, ScenarioError> {
    let adj = Adjustments { overrides: vec![(path, value)], ..Default::default() };
    let loaded = load(TEXT, Format::Toml, &adj);
    std::mem::forget(adj);
    loaded
}

/// `{"a": {"a": ... 1}}`, the 1 `n` steps down, built without recursion.
fn deep_value(n: usize) -> Value {
    let mut v = json!(1);
    for _ in 0..n {
        let mut m = serde_json::Map::new();
        m.insert("a".into(), v);
        v = Value::Object(m);
    }
    v
}

const TOO_DEEP: &str = "nested too deeply: a scenario nests tables and lists at most 64 levels deep";
const TOO_LONG: &str = "bad override path: more than 64 components (keys and indices); a scenario nests tables and \
                        lists at most 64 levels deep";

#[test]
fn an_override_path_of_60000_components_is_refused_not_a_crash() {
    // The issue's `--set a.a.a....b=1`: the tree built from it overflowed the stack when dropped.
    let e = on_main_sized_stack(|| with_override(deep_path("", 60_000), json!(1)).unwrap_err());
    assert_eq!(e.message, TOO_LONG);
    assert_eq!(e.path, format!("{}...", vec!["a"; 65].join(".")));
    // Under an algorithm table (internally tagged): serde buffered the whole tree, recursing.
    let e = on_main_sized_stack(|| with_override(deep_path("defaults.algorithm", 60_000), json!(1)).unwrap_err());
    assert_eq!(e.message, TOO_LONG);
    assert!(e.path.starts_with("defaults.algorithm.a.a.") && e.path.ends_with("..."), "{e}");
    // Indices count as components, in one part of the path as well.
    let e = with_override(format!("source{}", "[0]".repeat(100)), json!(1)).unwrap_err();
    assert_eq!(e.message, TOO_LONG);
    assert_eq!(e.path, format!("source{}...", "[0]".repeat(64)));
    // set_path, public, is bounded the same way.
    let mut t = json!({});
    assert_eq!(set_path(&mut t, &deep_path("", 65), json!(1)).unwrap_err().message, TOO_LONG);
    set_path(&mut t, &deep_path("", 64), json!(1)).unwrap();
}

#[test]
fn an_override_value_nested_too_deeply_is_refused_before_it_is_copied() {
    let e = on_main_sized_stack(|| with_override("run.x".into(), deep_value(100_000)).unwrap_err());
    assert_eq!(e.message, TOO_DEEP);
    // Named at the first value past the limit: the path's 2 components and 63 levels of `a`.
    assert_eq!(e.path, format!("run.x{}", ".a".repeat(63)));
    // The path's components count: 62 levels under a 2-component path is at the limit.
    let e = with_override("run.x".into(), deep_value(62)).unwrap_err();
    assert!(e.message.contains("unknown field `x`"), "{e}");
}

#[test]
fn check_depth_names_the_first_value_past_the_limit() {
    check_depth(&deep_value(MAX_DEPTH), "", 0).unwrap();
    let e = check_depth(&deep_value(MAX_DEPTH + 1), "", 0).unwrap_err();
    assert_eq!(e.to_string(), format!("{}: {TOO_DEEP}", vec!["a"; 65].join(".")));
    let e = check_depth(&json!({"x": [[[1]]]}), "p", MAX_DEPTH - 3).unwrap_err();
    assert_eq!(e.path, "p.x[0][0][0]");
}

#[test]
fn deep_json_text_is_refused_with_the_path() {
    // Past serde_json's own limit (128) and below it, the same error.
    for n in [70, 100_000] {
        let text = format!("{}1{}", "{\"a\": ".repeat(n), "}".repeat(n));
        let e = on_main_sized_stack(move || parse_tree(&text, Format::Json).unwrap_err());
        assert_eq!(e.to_string(), format!("{}: {TOO_DEEP}", vec!["a"; 65].join(".")));
    }
    let text = format!("{{\"link\": {}{}}}", "[".repeat(100_000), "]".repeat(100_000));
    let e = on_main_sized_stack(move || parse_tree(&text, Format::Json).unwrap_err());
    assert_eq!(e.path, format!("link{}", "[0]".repeat(64)));
    assert_eq!(e.message, TOO_DEEP);
    // At the limit: read (and then refused by the schema).
    assert!(parse_tree(&json!({"run": deep_value(63)}).to_string(), Format::Json).is_ok());
    let e = parse_tree(&json!({"run": deep_value(64)}).to_string(), Format::Json).unwrap_err();
    assert_eq!(e.path, format!("run{}", ".a".repeat(64)));
}

#[test]
fn deep_toml_text_is_refused_not_a_crash() {
    let n = 100_000;
    let cases = [
        format!("a = {}{}", "[".repeat(n), "]".repeat(n)),
        format!("a = {}1{}", "{b = ".repeat(n), "}".repeat(n)),
        format!("{} = 1", vec!["a"; n].join(".")),
        format!("[{}]\nb = 1", vec!["a"; n].join(".")),
        format!("[[{}]]\nb = 1", vec!["a"; n].join(".")),
    ];
    for text in cases {
        let e = on_main_sized_stack(move || load(&text, Format::Toml, &Adjustments::default()).unwrap_err());
        // The parser's own bound (80), in our words.
        assert!(e.message.starts_with(&format!("invalid TOML: {TOO_DEEP}")), "{e}");
    }
    // Within the parser's bound but past ours: a header, a dotted key and an inline array.
    let text = format!("[{}]\n{} = {}1{}", vec!["h"; 30].join("."), vec!["k"; 30].join("."), "[".repeat(30), "]".repeat(30));
    let e = parse_tree(&text, Format::Toml).unwrap_err();
    assert_eq!(e.message, TOO_DEEP);
    assert_eq!(e.path, format!("{}.{}{}", vec!["h"; 30].join("."), vec!["k"; 30].join("."), "[0]".repeat(5)));
}

#[test]
fn non_finite_numbers_in_toml_are_refused_with_the_path() {
    let cases = [
        ("defaults = { abr = { rif = inf } }", "defaults.abr.rif: must be a finite number, got inf"),
        ("defaults = { abr = { rif = -inf } }", "defaults.abr.rif: must be a finite number, got -inf"),
        ("[defaults.abr]\nrdf = +inf", "defaults.abr.rdf: must be a finite number, got inf"),
        ("[defaults.abr]\nrdf = nan", "defaults.abr.rdf: must be a finite number, got nan"),
        ("[defaults.abr]\nrdf = -nan", "defaults.abr.rdf: must be a finite number, got nan"),
    ];
    for (extra, want) in cases {
        let e = load(&format!("{TEXT}{extra}\n"), Format::Toml, &Adjustments::default()).unwrap_err();
        assert_eq!(e.to_string(), want);
    }
    // On a link (it ran lossless), in a list, in a required field.
    let text = TEXT.replace("between = [\"SW1\", \"SW1\"]", "between = [\"SW1\", \"SW1\"], loss = nan");
    assert_eq!(load(&text, Format::Toml, &Adjustments::default()).unwrap_err().to_string(), "link[0].loss: must be a finite number, got nan");
    let e = parse_tree("x = [1.0, 2.0, inf]", Format::Toml).unwrap_err();
    assert_eq!(e.to_string(), "x[2]: must be a finite number, got inf");
    // Finite floats are as they were.
    let t = parse_tree("x = 1.5e300\ny = -0.0", Format::Toml).unwrap();
    assert_eq!(t, json!({"x": 1.5e300, "y": -0.0}));
}

#[test]
fn non_finite_numbers_in_json_are_refused_with_the_path() {
    for lit in ["NaN", "Infinity", "-Infinity", "nan", "inf", "-inf"] {
        let text = format!("{{\"defaults\": {{\"abr\": {{\"rif\": {lit}}}}}}}");
        let e = parse_tree(&text, Format::Json).unwrap_err();
        assert_eq!(e.to_string(), format!("defaults.abr.rif: must be a finite number, got {lit}"));
    }
    let e = parse_tree("{\"x\": [1, 2,\n  NaN]}", Format::Json).unwrap_err();
    assert_eq!(e.to_string(), "x[2]: must be a finite number, got NaN");
    // Other bad JSON is as it was.
    let e = parse_tree("{\"x\": nope}", Format::Json).unwrap_err();
    assert!(e.message.starts_with("invalid JSON: expected"), "{e}");
    assert_eq!(e.path, "");
    // A number too large for a float is serde_json's error.
    let e = parse_tree("{\"x\": 1e999}", Format::Json).unwrap_err();
    assert!(e.message.starts_with("invalid JSON: number out of range"), "{e}");
}

#[test]
fn override_values_as_json_text_are_bounded_as_scenarios_are() {
    // The Python binding's form (json.dumps writes NaN and Infinity unless told not to).
    let e = parse_override("defaults.abr.rif", "NaN").unwrap_err();
    assert_eq!(e.to_string(), "defaults.abr.rif: must be a finite number, got NaN");
    let e = parse_override("measure.trace.flows", "[\"A\", -Infinity]").unwrap_err();
    assert_eq!(e.to_string(), "measure.trace.flows[1]: must be a finite number, got -Infinity");
    let e = parse_override("run", "{\"x\": {\"y\": Infinity}}").unwrap_err();
    assert_eq!(e.to_string(), "run.x.y: must be a finite number, got Infinity");
    // Nesting counts the path's components.
    let e = on_main_sized_stack(|| parse_override("run.x", &format!("{}{}", "[".repeat(100_000), "]".repeat(100_000))).unwrap_err());
    assert_eq!(e.to_string(), format!("run.x{}: {TOO_DEEP}", "[0]".repeat(63)));
    assert!(parse_override("run.x", &format!("{}{}", "[".repeat(62), "]".repeat(62))).is_ok());
    let e = parse_override(&deep_path("", 60_000), "1").unwrap_err();
    assert_eq!(e.message, TOO_LONG);
    // Values as they were otherwise.
    assert_eq!(parse_override("run.duration", "\"10ms\"").unwrap(), json!("10ms"));
    assert_eq!(parse_override("x", "{\"a\": [1, 2.5, null, true]}").unwrap(), json!({"a": [1, 2.5, null, true]}));
    let e = parse_override("x", "1 2").unwrap_err();
    assert!(e.to_string().starts_with("x: override value is not JSON: trailing characters"), "{e}");
}

#[test]
fn no_field_of_the_schema_is_near_the_limit() {
    // The deepest path the schema allows is far below MAX_DEPTH (the schema is not recursive).
    let schema: Value = serde_json::from_str(&ccsim_scenario::json_schema()).unwrap();
    let defs = schema.get("$defs").cloned().unwrap_or(json!({}));
    fn deepest(s: &Value, defs: &Value, seen: &mut Vec<String>) -> usize {
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            let name = r.rsplit('/').next().unwrap().to_string();
            assert!(!seen.contains(&name), "the schema is recursive at {name}");
            seen.push(name.clone());
            let d = deepest(&defs[&name], defs, seen);
            seen.pop();
            return d;
        }
        let mut d = 0;
        if let Some(props) = s.get("properties").and_then(Value::as_object) {
            d = d.max(1 + props.values().map(|p| deepest(p, defs, seen)).max().unwrap_or(0));
        }
        if let Some(items) = s.get("items") {
            d = d.max(1 + deepest(items, defs, seen));
        }
        if let Some(extra) = s.get("additionalProperties").filter(|a| a.is_object()) {
            d = d.max(1 + deepest(extra, defs, seen));
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            for alt in s.get(key).and_then(Value::as_array).into_iter().flatten() {
                d = d.max(deepest(alt, defs, seen));
            }
        }
        d
    }
    let d = deepest(&schema, &defs, &mut Vec::new());
    eprintln!("deepest field of the schema: {d} steps");
    assert!(d <= 8, "{d}");
}


