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

/// Control characters (a key or value holding a newline) escaped: an error is one line.
fn one_line(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(char::is_control) {
        s.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect::<String>().into()
    } else {
        s.into()
    }
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
