//! From text to a validated scenario: parse (TOML or JSON) → apply the scheme swap and
//! `--set` overrides on the untyped tree → deserialize with field paths → validate.

use crate::error::ScenarioError;
use crate::types::{AlgorithmSpec, Scenario};
use crate::units::Duration;
use ccsim_engine::SimDuration;
use crate::tree::{self, too_deep, Read, MAX_DEPTH};
use crate::validate::validate;
use serde_json::Value;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

impl std::str::FromStr for Format {
    type Err = ScenarioError;
    fn from_str(s: &str) -> Result<Self, ScenarioError> {
        match s {
            "toml" => Ok(Format::Toml),
            "json" => Ok(Format::Json),
            _ => Err(ScenarioError::new("", format!("unknown scenario format '{s}' (toml or json)"))),
        }
    }
}

/// Everything that may change a scenario on its way in.
#[derive(Clone, Debug, Default)]
pub struct Adjustments {
    /// `(path, JSON value)` pairs, applied in order after the scheme swap.
    pub overrides: Vec<(String, Value)>,
    /// Swap the ABR algorithm at every switch (`--scheme`).
    pub scheme: Option<String>,
    /// Swap the TCP variant of every connection (`--tcp`).
    pub tcp: Option<String>,
    pub seed: Option<u64>,
}

/// The untyped tree of a scenario's text, refused with the path of the first value nested
/// deeper than `MAX_DEPTH` or not a finite number (`tree.rs`).
pub fn parse_tree(text: &str, format: Format) -> Result<Value, ScenarioError> {
    match format {
        Format::Json => read_json(text, "", 0).map_err(|e| match e {
            JsonError::Refused(e) => e,
            JsonError::Invalid(e) => ScenarioError::new("", format!("invalid JSON: {e}")),
        }),
        Format::Toml => {
            let at = |e: &toml::de::Error| {
                e.span().map(|span| {
                    let before = &text[..span.start.min(text.len())];
                    let line = before.matches('\n').count() + 1;
                    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                    format!(" (line {line}, column {col})")
                })
            };
            let invalid = |e: toml::de::Error| {
                // The parser's own bound (80 levels of inline tables and arrays, or of the keys of
                // one dotted key or header) is ours, said in our words.
                let message = if e.message().contains("recursion") { too_deep() } else { e.message().to_string() };
                ScenarioError::new("", format!("invalid TOML: {message}{}", at(&e).unwrap_or_default()))
            };
            let de = toml::Deserializer::parse(text).map_err(invalid)?;
            tree::read(de, 0).map_err(|e| match e {
                Read::Refused { path, message } => ScenarioError::new(path, message),
                Read::Invalid { error, .. } => invalid(error),
            })
        }
    }
}

enum JsonError {
    /// Refused with a path: too deep, or not a finite number (`NaN`, `Infinity`).
    Refused(ScenarioError),
    Invalid(serde_json::Error),
}

/// JSON text of the value `depth` steps down at `base`. serde_json refuses `NaN` and
/// `Infinity` as bad syntax ("expected value"); those are said as what they are, with the path.
fn read_json(text: &str, base: &str, depth: usize) -> Result<Value, JsonError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = match tree::read(&mut de, depth) {
        Ok(v) => v,
        Err(Read::Refused { path, message }) => return Err(JsonError::Refused(ScenarioError::new(tree::join(base, &path), message))),
        Err(Read::Invalid { path, error }) => {
            return Err(match non_finite_literal(text, &error) {
                Some(lit) => JsonError::Refused(ScenarioError::new(
                    tree::join(base, &path),
                    format!("must be a finite number, got {lit}"),
                )),
                None => JsonError::Invalid(error),
            })
        }
    };
    de.end().map_err(JsonError::Invalid)?;
    Ok(value)
}

/// The word where serde_json stopped, if it is a non-finite number as JavaScript or Python
/// write it (`NaN`, `Infinity`, `-Infinity`; `nan`, `inf`).
fn non_finite_literal<'t>(text: &'t str, e: &serde_json::Error) -> Option<&'t str> {
    let line_start = text.split_inclusive('\n').take(e.line().saturating_sub(1)).map(str::len).sum::<usize>();
    let at = (line_start + e.column().saturating_sub(1)).min(text.len());
    let b = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphabetic() || c == b'-' || c == b'+';
    let (mut s, mut t) = (at, at);
    while s > 0 && word(b[s - 1]) {
        s -= 1;
    }
    while t < b.len() && b[t].is_ascii_alphabetic() {
        t += 1;
    }
    let lit = text.get(s..t)?;
    let bare = lit.trim_start_matches(['-', '+']);
    ["nan", "inf", "infinity"].iter().any(|w| bare.eq_ignore_ascii_case(w)).then_some(lit)
}

/// An override's value given as JSON text (the Python binding's form), bounded as a scenario's
/// text is: nested at most `MAX_DEPTH` steps below the top counting the path's own components,
/// finite numbers only. Errors name the path (`run.seed: ...`, `link[0].x[3]: ...`).
pub fn parse_override(path: &str, json: &str) -> Result<Value, ScenarioError> {
    let depth = parse_path(path)?.len();
    read_json(json, path, depth).map_err(|e| match e {
        JsonError::Refused(e) => e,
        JsonError::Invalid(e) => ScenarioError::new(path, format!("override value is not JSON: {e}")),
    })
}

/// Parses, adjusts and validates a scenario; what the adjustments did not do as asked, and what
/// a valid setting does that may surprise (a Policy_Limit below N2), is in the scenario's `notices`.
pub fn load(text: &str, format: Format, adj: &Adjustments) -> Result<Scenario, ScenarioError> {
    let mut tree = parse_tree(text, format)?;
    let swapped = adj.scheme.as_ref().and_then(|n| Some((n.clone(), tree.get("schemes")?.get(n)?.as_object()?.clone())));
    let notices = adjust(&mut tree, adj)?;
    let mut scenario = from_tree(tree).map_err(|e| from_scheme_table(e, swapped))?;
    scenario.notices = notices;
    scenario.notices.extend(crate::credit::notices(&scenario));
    Ok(scenario)
}

/// `--scheme NAME` copies `schemes.NAME` into every algorithm table: an error in one of those
/// fields is reported where the user wrote it (`schemes.efci.q_hi`), not where it was copied.
fn from_scheme_table(e: ScenarioError, swapped: Option<(String, serde_json::Map<String, Value>)>) -> ScenarioError {
    let Some((name, table)) = swapped else { return e };
    let field = e.path.strip_prefix("defaults.algorithm.").or_else(|| {
        let rest = e.path.strip_prefix("switch[")?;
        rest.split_once("].algorithm.").map(|(_, f)| f)
    });
    match field {
        Some(f) if table.contains_key(f.split(['.', '[']).next().unwrap_or(f)) => {
            ScenarioError::new(format!("schemes.{name}.{f}"), e.message)
        }
        _ => e,
    }
}

pub fn from_tree(tree: Value) -> Result<Scenario, ScenarioError> {
    if !tree.is_object() {
        return Err(ScenarioError::new("", "a scenario must be a table/object at the top level"));
    }
    tree::check_depth(&tree, "", 0)?;
    let scenario = deserialize(&tree).map_err(|(path, message)| {
        let path = match field_in_tagged_table(&tree, &path, &message) {
            Some(field) => format!("{path}.{field}"),
            None => path,
        };
        ScenarioError::new(path, message)
    })?;
    validate(&scenario)?;
    Ok(scenario)
}

/// The scenario, or the path and message of serde's error.
fn deserialize(tree: &Value) -> Result<Scenario, (String, String)> {
    serde_path_to_error::deserialize(tree).map_err(|e| (e.path().to_string(), clean_serde_message(&e.inner().to_string())))
}

/// serde reads an internally tagged table (`type = "..."`: algorithms, queues, clocks, controls)
/// from a buffered copy, so a bad value in one of its fields comes back with the table's path
/// only. This finds the field: the one whose removal makes that error go away; or, for a
/// required field (whose removal only says it is missing), the one whose value the message quotes
/// (`100 has no unit` for `tick = 100`). Unknown and missing fields already name themselves and
/// are left alone; so does an unknown `type` (its path ends at the tag), but an unknown value of
/// an enumerated field (`r_a = "sum"`) comes back with the table's path like any other bad value.
/// `None` if no single field explains it.
fn field_in_tagged_table(tree: &Value, path: &str, message: &str) -> Option<String> {
    if ["unknown field", "missing field"].iter().any(|m| message.starts_with(m)) {
        return None;
    }
    let steps = parse_path(path).ok()?;
    let table = steps.iter().try_fold(tree, |v, step| match step {
        Step::Key(k) => v.get(k),
        Step::Index(i) => v.get(i),
    })?;
    let table = table.as_object().filter(|t| t.contains_key("type"))?;
    let mut required = Vec::new();
    for (key, value) in table.iter().filter(|(k, _)| *k != "type") {
        let mut t = tree.clone();
        let mut at = &mut t;
        for step in &steps {
            at = match step {
                Step::Key(k) => at.get_mut(k)?,
                Step::Index(i) => at.get_mut(i)?,
            };
        }
        at.as_object_mut()?.remove(key);
        match deserialize(&t) {
            Ok(_) => return Some(key.clone()),
            Err((_, m)) if m == format!("missing field `{key}`") => required.push((key, value)),
            Err((p, m)) if p != path || m != message => return Some(key.clone()),
            Err(_) => {}
        }
    }
    let quoted = |v: &Value| match v {
        Value::String(s) => message.contains(s.as_str()),
        other => message.contains(&other.to_string()),
    };
    let mut named = required.into_iter().filter(|(_, v)| quoted(v));
    match (named.next(), named.next()) {
        (Some((key, _)), None) => Some(key.clone()),
        _ => None,
    }
}

/// serde's messages end with "at line 1 column 2" for JSON (paths already say where) and name
/// Rust types (`expected u32`): those become what a user writes.
fn clean_serde_message(m: &str) -> String {
    let m = match m.find(" at line ") {
        Some(i) => &m[..i],
        None => m,
    };
    const TYPES: [(&str, &str); 10] = [
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        ("expected u32", "expected a whole number from 0 to 4294967295"),
        ("expected u64", "expected a whole number >= 0"),
        ("expected usize", "expected a whole number >= 0"),
        ("expected i32", "expected a whole number"),
        ("expected i64", "expected a whole number"),
        ("expected f32", "expected a number"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
    ];
    let mut out = m.to_string();
    for (rust, user) in TYPES {
        if let Some(i) = out.find(rust) {
            // Whole words only: `expected u32` but not `expected u320`.
            if !out[i + rust.len()..].starts_with(|c: char| c.is_ascii_alphanumeric()) {
                out.replace_range(i..i + rust.len(), user);
            }
        }
    }
    out
}

/// Applies the adjustments to the untyped tree. Returns notices (one line each) for what was
/// asked but changes nothing or was changed to keep the scenario valid: `--scheme` without an
/// ATM switch, `--tcp` without a TCP connection, and `run.measure_from` scaled with a shortened
/// run.
pub fn adjust(tree: &mut Value, adj: &Adjustments) -> Result<Vec<String>, ScenarioError> {
    let mut notices = Vec::new();
    // Values are cloned below: a caller's tree too deep to clone is refused first.
    for (path, value) in &adj.overrides {
        tree::check_depth(value, path, parse_path(path)?.len())?;
    }
    // Settings of a scheme's table (`schemes.<name>...`) go in before the swap that reads them;
    // without the swap they would change nothing, which is refused rather than ignored.
    let (scheme_sets, sets): (Vec<_>, Vec<_>) = adj.overrides.iter().partition(|(p, _)| p.starts_with("schemes."));
    for (path, value) in scheme_sets {
        let name = path["schemes.".len()..].split(['.', '[']).next().unwrap_or("");
        if adj.scheme.as_deref() != Some(name) {
            let active = tree.pointer("/defaults/algorithm/type").and_then(|v| v.as_str()).unwrap_or("erica").to_string();
            let field = path.splitn(3, '.').nth(2).unwrap_or("...");
            return Err(ScenarioError::new(
                path.as_str(),
                format!(
                    "the schemes tables apply only with --scheme {name}; this run uses defaults.algorithm \
                     (type = \"{active}\"): set defaults.algorithm.{field} instead, or add --scheme {name}"
                ),
            ));
        }
        set_path(tree, path, value.clone())?;
    }
    if let Some(scheme) = &adj.scheme {
        if swap_scheme(tree, scheme)? == Swapped::Nothing {
            notices.push(format!("--scheme {scheme} changes nothing: the scenario has no ATM switch"));
        }
    }
    if let Some(variant) = &adj.tcp {
        if swap_tcp(tree, variant)? == Swapped::Nothing {
            notices.push(format!("--tcp {variant} changes nothing: the scenario has no TCP connection"));
        }
    }
    let old_duration = tree.pointer("/run/duration").cloned();
    let mut measure_from_set = false;
    for (path, value) in sets {
        let path = match path.as_str() {
            "duration" => "run.duration",
            "seed" => "run.seed",
            "measure_from" => "run.measure_from",
            p => p,
        };
        measure_from_set |= path == "run.measure_from" || path == "run";
        set_path(tree, path, value.clone())?;
    }
    if !measure_from_set {
        notices.extend(scale_measure_from(tree, old_duration));
    }
    if let Some(seed) = adj.seed {
        set_path(tree, "run.seed", Value::from(seed))?;
    }
    Ok(notices)
}

/// A run shortened below its `measure_from` (which was not set along with it) keeps its
/// measurement window in proportion: `measure_from` scales by new / old duration. Values that do
/// not parse are left for validation to report.
fn scale_measure_from(tree: &mut Value, old_duration: Option<Value>) -> Option<String> {
    let parse = |v: Option<&Value>| v?.as_str()?.parse::<Duration>().ok().map(|d| d.0.as_ps());
    let old = parse(old_duration.as_ref())?;
    let new = parse(tree.pointer("/run/duration"))?;
    let from = parse(tree.pointer("/run/measure_from"))?;
    if from < new || from >= old || new >= old {
        return None;
    }
    let scaled = Duration(SimDuration::from_ps((from as u128 * new as u128 / old as u128) as u64));
    let (was, run) = (Duration(SimDuration::from_ps(from)), Duration(SimDuration::from_ps(new)));
    set_path(tree, "run.measure_from", Value::from(scaled.to_string())).ok()?;
    Some(format!(
        "run.measure_from {was} is past the end of the shortened run ({run}): scaled with it to {scaled} \
         (set run.measure_from to choose)"
    ))
}

/// Whether a swap found anything to change.
#[derive(PartialEq, Eq)]
enum Swapped {
    Something,
    Nothing,
}

/// Sets the algorithm of `defaults` and of every switch to `{type = scheme}` merged with the
/// scenario's `schemes.<scheme>` settings. An `abr` table inside those settings is merged into
/// `defaults.abr`: some schemes need other source parameters (binary schemes need RIF < 1).
fn swap_scheme(tree: &mut Value, scheme: &str) -> Result<Swapped, ScenarioError> {
    if !AlgorithmSpec::NAMES.contains(&scheme) {
        return Err(ScenarioError::new(
            "scheme",
            format!("unknown ABR switch scheme '{scheme}' (one of {})", AlgorithmSpec::NAMES.join(", ")),
        ));
    }
    if tree.get("switch").and_then(|s| s.as_array()).map_or(true, |a| a.is_empty()) {
        return Ok(Swapped::Nothing);
    }
    let mut alg = tree
        .get("schemes")
        .and_then(|s| s.get(scheme))
        .cloned()
        .unwrap_or_else(|| Value::Object(Default::default()));
    let Some(obj) = alg.as_object_mut() else {
        return Err(ScenarioError::new(format!("schemes.{scheme}"), "must be a table of settings"));
    };
    let abr = obj.remove("abr");
    obj.insert("type".into(), Value::from(scheme));
    set_path(tree, "defaults.algorithm", alg.clone())?;
    if let Some(switches) = tree.get_mut("switch").and_then(|s| s.as_array_mut()) {
        for sw in switches {
            if let Some(o) = sw.as_object_mut() {
                if o.contains_key("algorithm") {
                    o.insert("algorithm".into(), alg.clone());
                }
            }
        }
    }
    if let Some(abr) = abr {
        let Some(fields) = abr.as_object() else {
            return Err(ScenarioError::new(format!("schemes.{scheme}.abr"), "must be a table of source parameters"));
        };
        for (k, v) in fields {
            set_path(tree, &format!("defaults.abr.{k}"), v.clone())?;
        }
    }
    Ok(Swapped::Something)
}

/// Sets the TCP variant of `defaults.tcp` and of every connection.
fn swap_tcp(tree: &mut Value, variant: &str) -> Result<Swapped, ScenarioError> {
    if !crate::transport::TCP_VARIANTS.contains(&variant) {
        return Err(ScenarioError::new(
            "tcp",
            format!("unknown TCP variant '{variant}' (one of {})", crate::transport::TCP_VARIANTS.join(", ")),
        ));
    }
    let n = tree.get("connection").and_then(|c| c.as_array()).map_or(0, |a| a.len());
    if n == 0 {
        return Ok(Swapped::Nothing);
    }
    set_path(tree, "defaults.tcp.variant", Value::from(variant))?;
    for i in 0..n {
        set_path(tree, &format!("connection[{i}].tcp.variant"), Value::from(variant))?;
    }
    Ok(Swapped::Something)
}

enum Step {
    Key(String),
    Index(usize),
}

/// The steps of `a.b[2].c`; at most `MAX_DEPTH` of them (a longer path is refused, named up to
/// the step past the limit, before anything is built from it).
fn parse_path(path: &str) -> Result<Vec<Step>, ScenarioError> {
    let bad = |why: &str| ScenarioError::new(path, format!("bad override path: {why}"));
    let mut steps = Vec::new();
    let mut start = 0;
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if key.is_empty() && steps.is_empty() {
            return Err(bad("empty field name"));
        }
        let mut end = start + key.len();
        let push = |steps: &mut Vec<Step>, step: Step, end: usize| {
            steps.push(step);
            if steps.len() > MAX_DEPTH {
                let more = if end < path.len() { "..." } else { "" };
                return Err(ScenarioError::new(
                    format!("{}{more}", &path[..end]),
                    format!(
                        "bad override path: more than {MAX_DEPTH} components (keys and indices); a scenario nests \
                         tables and lists at most {MAX_DEPTH} levels deep"
                    ),
                ));
            }
            Ok(())
        };
        if !key.is_empty() {
            push(&mut steps, Step::Key(key.to_string()), end)?;
        }
        while !rest.is_empty() {
            let close = rest.find(']').ok_or_else(|| bad("missing ']'"))?;
            let idx = rest[1..close].parse::<usize>().map_err(|_| bad("index must be a whole number"))?;
            end += close + 1;
            push(&mut steps, Step::Index(idx), end)?;
            rest = &rest[close + 1..];
            if !rest.is_empty() && !rest.starts_with('[') {
                return Err(bad("unexpected text after ']'"));
            }
        }
        start += part.len() + 1;
    }
    if steps.is_empty() {
        return Err(bad("empty"));
    }
    Ok(steps)
}

/// Sets `a.b[2].c = value`, creating missing tables on the way (never missing list entries).
pub fn set_path(tree: &mut Value, path: &str, value: Value) -> Result<(), ScenarioError> {
    let steps = parse_path(path)?;
    let mut cur = tree;
    let mut walked = String::new();
    for (i, step) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        match step {
            Step::Key(k) => {
                if cur.is_null() {
                    *cur = Value::Object(Default::default());
                }
                let obj = cur
                    .as_object_mut()
                    .ok_or_else(|| ScenarioError::new(walked.clone(), format!("is not a table, cannot set '{k}'")))?;
                if !walked.is_empty() {
                    walked.push('.');
                }
                walked.push_str(k);
                if last {
                    obj.insert(k.clone(), value);
                    return Ok(());
                }
                cur = obj.entry(k.clone()).or_insert(Value::Null);
            }
            Step::Index(n) => {
                let arr = cur
                    .as_array_mut()
                    .ok_or_else(|| ScenarioError::new(walked.clone(), "is not a list, cannot index it"))?;
                let len = arr.len();
                walked.push_str(&format!("[{n}]"));
                let slot = arr
                    .get_mut(*n)
                    .ok_or_else(|| ScenarioError::new(walked.clone(), format!("index out of range ({len} entries)")))?;
                if last {
                    *slot = value;
                    return Ok(());
                }
                cur = slot;
            }
        }
    }
    unreachable!("the last step returns")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn set_path_creates_tables_and_indexes_lists() {
        let mut t = json!({"source": [{"name": "a"}, {"name": "b"}]});
        set_path(&mut t, "source[1].abr.icr", json!("5Mbps")).unwrap();
        set_path(&mut t, "run.duration", json!("1s")).unwrap();
        assert_eq!(t["source"][1]["abr"]["icr"], "5Mbps");
        assert_eq!(t["run"]["duration"], "1s");
        let e = set_path(&mut t, "source[5].name", json!("x")).unwrap_err();
        assert_eq!(e.path, "source[5]");
        assert!(e.message.contains("out of range"));
        assert!(set_path(&mut t, "source[x].name", json!(1)).is_err());
    }
}
