//! The untyped tree a scenario is read into (`serde_json::Value`), with the bounds every input
//! is held to before anything recursive touches it:
//!
//! - nesting: no value sits more than `MAX_DEPTH` steps (keys and list indices) from the top, so
//!   no override path has more than `MAX_DEPTH` components. Cloning, dropping, serialising and
//!   deserialising a tree all recurse once per level; a 60,000-deep tree overflowed the stack.
//!   The deepest field of the schema is 6 steps down (`connection[0].tcp.sessions.size.type`).
//! - numbers: NaN and ±infinity are refused where they are written. No scenario field gives them
//!   a meaning, and `serde_json::Value` cannot hold them (they became `null`, which read as
//!   "absent": `rif = inf` ran with the default RIF).
//!
//! Text is read by a visitor that counts the depth and checks each float as it goes, so a bad
//! input is refused before the tree below it is built.

use crate::error::ScenarioError;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::RefCell;
use std::fmt;

/// The most steps (keys and list indices) from the top of a scenario to any of its values: the
/// most components an override path may have, and the deepest nesting of tables and lists.
pub const MAX_DEPTH: usize = 64;

/// The message for a value deeper than `MAX_DEPTH`.
pub(crate) fn too_deep() -> String {
    format!("nested too deeply: a scenario nests tables and lists at most {MAX_DEPTH} levels deep")
}

fn not_finite(x: f64) -> String {
    let shown = if x.is_nan() {
        "nan"
    } else if x > 0.0 {
        "inf"
    } else {
        "-inf"
    };
    format!("must be a finite number, got {shown}")
}

/// Reads one value at `depth` steps below the top into a `Value`. A refusal (too deep, not
/// finite) is kept in `refused` so it can be told apart from the parser's own errors.
#[derive(Clone, Copy)]
struct Checked<'a> {
    depth: usize,
    refused: &'a RefCell<Option<String>>,
}

impl Checked<'_> {
    fn refuse<E: serde::de::Error>(&self, message: String) -> E {
        let e = E::custom(&message);
        *self.refused.borrow_mut() = Some(message);
        e
    }
    fn below(self) -> Self {
        Checked { depth: self.depth + 1, ..self }
    }
}

impl<'de> DeserializeSeed<'de> for Checked<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        // Before the parser is asked for the value: nothing below this level is read.
        if self.depth > MAX_DEPTH {
            return Err(self.refuse(too_deep()));
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Checked<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a scenario value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<Value, E> {
        match Number::from_f64(x) {
            Some(n) if x.is_finite() => Ok(Value::Number(n)),
            _ => Err(self.refuse(not_finite(x))),
        }
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element_seed(self.below())? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let v = map.next_value_seed(self.below())?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// What reading a text gave: the tree, a refusal at a path, or the parser's own error.
pub(crate) enum Read<E> {
    Refused { path: String, message: String },
    /// The parser's error, and the path it was reading.
    Invalid { path: String, error: E },
}

/// Reads the value `d` holds, `depth` steps below the top of the scenario.
pub(crate) fn read<'de, D: Deserializer<'de>>(d: D, depth: usize) -> Result<Value, Read<D::Error>> {
    let refused = RefCell::new(None);
    let mut track = serde_path_to_error::Track::new();
    let seed = Checked { depth, refused: &refused };
    let read = seed.deserialize(serde_path_to_error::Deserializer::new(d, &mut track));
    read.map_err(|e| match refused.into_inner() {
        Some(message) => Read::Refused { path: track.path().to_string(), message },
        None => Read::Invalid { path: track.path().to_string(), error: e },
    })
}

/// `inner` (serde_path_to_error's path inside a value, `.` for the value itself) under `base`.
pub(crate) fn join(base: &str, inner: &str) -> String {
    match inner {
        "." | "" => base.to_string(),
        i if base.is_empty() => i.to_string(),
        i if i.starts_with('[') => format!("{base}{i}"),
        i => format!("{base}.{i}"),
    }
}

/// Refuses a tree (or a value to be set `depth` steps down, at `base`) that nests deeper than
/// `MAX_DEPTH`, naming the first value past the limit. Walks without recursion, so it can be
/// asked of any tree a caller built.
pub fn check_depth(value: &Value, base: &str, depth: usize) -> Result<(), ScenarioError> {
    enum Frame<'a> {
        Table(serde_json::map::Iter<'a>),
        List(std::iter::Enumerate<std::slice::Iter<'a, Value>>),
    }
    fn frame(v: &Value) -> Option<Frame<'_>> {
        match v {
            Value::Object(m) if !m.is_empty() => Some(Frame::Table(m.iter())),
            Value::Array(a) if !a.is_empty() => Some(Frame::List(a.iter().enumerate())),
            _ => None,
        }
    }
    // The step each open frame was entered by, and the frame.
    let mut stack: Vec<(Option<String>, Frame<'_>)> = Vec::new();
    if let Some(f) = frame(value) {
        stack.push((None, f));
    }
    while let Some((_, top)) = stack.last_mut() {
        let next = match top {
            Frame::Table(it) => it.next().map(|(k, v)| (k.clone(), v)),
            Frame::List(it) => it.next().map(|(i, v)| (format!("[{i}]"), v)),
        };
        let Some((step, child)) = next else {
            stack.pop();
            continue;
        };
        // `child` is `depth + stack.len()` steps from the top.
        if depth + stack.len() > MAX_DEPTH {
            let mut path = base.to_string();
            for s in stack.iter().filter_map(|(s, _)| s.as_deref()).chain([step.as_str()]) {
                path = join(&path, s);
            }
            return Err(ScenarioError::new(path, too_deep()));
        }
        if let Some(f) = frame(child) {
            stack.push((Some(step), f));
        }
    }
    Ok(())
}
