//! Scenario errors carry the field path and the rule broken: `link[3].rate: must be > 0`.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Dotted path with indices (`source[2].abr.mcr`); empty for whole-file problems.
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { path: path.into(), message: message.into() }
    }
}

/// Control characters (a key or value holding a newline) escaped: an error is one line. A value
/// the message quotes at length (an input thousands of characters long) is shortened to its ends,
/// with its length: an error stays a line one can read.
fn one_line(s: &str) -> String {
    let escaped: String = if s.chars().any(char::is_control) {
        s.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
    } else {
        s.to_string()
    };
    shorten_quoted(&escaped)
}

/// The longest quoted text an error shows whole (characters).
const MAX_QUOTED: usize = 80;

/// Each double-quoted run of `s` longer than `MAX_QUOTED` characters, shortened to its first 60
/// and last 12 with its length between them; an unclosed one alike, to the end.
fn shorten_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(1024));
    let mut rest = s;
    while let Some(open) = rest.find('"') {
        out.push_str(&rest[..=open]);
        let after = &rest[open + 1..];
        let (inner, tail) = match after.find('"') {
            Some(close) => (&after[..close], &after[close..]),
            None => (after, ""),
        };
        let n = inner.chars().count();
        if n > MAX_QUOTED {
            let head: String = inner.chars().take(60).collect();
            let end: String = inner.chars().skip(n - 12).collect();
            out.push_str(&format!("{head}… ({n} characters) …{end}"));
        } else {
            out.push_str(inner);
        }
        if tail.is_empty() {
            return out;
        }
        out.push('"');
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() || self.path == "." {
            write!(f, "{}", one_line(&self.message))
        } else {
            write!(f, "{}: {}", one_line(&self.path), one_line(&self.message))
        }
    }
}

impl std::error::Error for ScenarioError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error quoting a huge input stays one short line; short quotes and the rest are kept.
    #[test]
    fn an_error_quoting_a_huge_value_stays_short() {
        let huge = "1".repeat(5000) + "Mbps";
        let e = ScenarioError::new("background", format!("invalid type: string \"{huge}\", expected a sequence"));
        let shown = e.to_string();
        assert!(shown.len() < 200, "{shown}");
        assert!(shown.starts_with("background: invalid type: string \"111") && shown.ends_with("1Mbps\", expected a sequence"), "{shown}");
        assert!(shown.contains("(5004 characters)"), "{shown}");
        let small = ScenarioError::new("link[0].rate", "unknown unit \"Xbps\" in \"10Xbps\"");
        assert_eq!(small.to_string(), "link[0].rate: unknown unit \"Xbps\" in \"10Xbps\"");
        let unclosed = ScenarioError::new("", format!("bad \"{}", "x".repeat(200)));
        assert!(unclosed.to_string().len() < 120 && unclosed.to_string().contains("(200 characters)"));
        assert_eq!(ScenarioError::new("a", "line\nbreak").to_string(), "a: line\\nbreak");
    }
}
