//! Unit-bearing values: `"155.52Mbps"`, `"5ms"`, `"1000cells"`.
//!
//! A bare number is refused for rates and durations (is `5` seconds or milliseconds?), so a
//! scenario always says what it means. Values serialise back to the same notation, which is
//! what the resolved scenario (and its hash) is made of.

use ccsim_engine::SimDuration;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// Splits `"12.5 ms"` into (12.5, "ms"): the longest prefix that is a number, then the unit.
/// The longest text read as a number with a unit.
pub const MAX_QUANTITY_LEN: usize = 64;

fn split_number(s: &str) -> Result<(f64, &str), String> {
    let s = s.trim();
    // Every prefix is tried below: bound the work (no number with a unit is this long).
    if s.len() > MAX_QUANTITY_LEN {
        return Err(format!("'{}…' is too long for a number with a unit (at most {MAX_QUANTITY_LEN} characters)",
                           &s[..s.char_indices().nth(20).map_or(s.len(), |(i, _)| i)]));
    }
    let mut cut = None;
    for (i, _) in s.char_indices().skip(1).chain(std::iter::once((s.len(), ' '))) {
        if s[..i].parse::<f64>().is_ok() {
            cut = Some(i);
        }
    }
    let Some(i) = cut else {
        return Err(format!("'{s}' does not start with a number"));
    };
    let v: f64 = s[..i].parse().expect("checked above");
    if !v.is_finite() {
        return Err(format!("'{s}' is not a finite number"));
    }
    Ok((v, s[i..].trim()))
}

// --- rates --------------------------------------------------------------------------------

/// A rate in bits per second.
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd)]
pub struct Rate(pub f64);

impl Rate {
    pub fn bps(self) -> f64 {
        self.0
    }
    pub fn mbps(self) -> f64 {
        self.0 / 1e6
    }
    /// Cells per second (424-bit cells).
    pub fn cells_per_s(self) -> f64 {
        self.0 / ccsim_model::CELL_BITS as f64
    }
    pub fn from_mbps(m: f64) -> Rate {
        Rate(m * 1e6)
    }
}

/// The largest rate accepted, 10 Tb/s.
pub const MAX_RATE_BPS: f64 = 1e13;

pub const RATE_UNITS: &str = "bps, kbps, Mbps, Gbps, cells/s";

impl std::str::FromStr for Rate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (v, unit) = split_number(s)?;
        let scale = match unit {
            "bps" | "b/s" => 1.0,
            "kbps" | "kb/s" | "Kbps" => 1e3,
            "Mbps" | "Mb/s" => 1e6,
            "Gbps" | "Gb/s" => 1e9,
            "cells/s" | "cps" => ccsim_model::CELL_BITS as f64,
            "" => return Err(format!("'{s}' has no unit (use one of {RATE_UNITS})")),
            u => return Err(format!("unknown rate unit '{u}' in '{s}' (use one of {RATE_UNITS})")),
        };
        if v < 0.0 {
            return Err(format!("'{s}' is negative; a rate must be >= 0"));
        }
        // Far beyond any link the seeds use, and small enough for exact integer arithmetic.
        if v * scale > MAX_RATE_BPS {
            return Err(format!("'{s}' is too large (at most 10000Gbps)"));
        }
        Ok(Rate(v * scale))
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Mbps", self.0 / 1e6)
    }
}

// --- durations ------------------------------------------------------------------------------

/// A span of simulated time.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(pub SimDuration);

pub const DURATION_UNITS: &str = "s, ms, us, ns, ps";

impl std::str::FromStr for Duration {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (v, unit) = split_number(s)?;
        let ps_per_unit = match unit {
            "s" => 1e12,
            "ms" => 1e9,
            "us" | "µs" => 1e6,
            "ns" => 1e3,
            "ps" => 1.0,
            "" => return Err(format!("'{s}' has no unit (use one of {DURATION_UNITS})")),
            u => return Err(format!("unknown time unit '{u}' in '{s}' (use one of {DURATION_UNITS})")),
        };
        if v < 0.0 {
            return Err(format!("'{s}' is negative; a duration must be >= 0"));
        }
        let ps = (v * ps_per_unit).round();
        if ps > u64::MAX as f64 / 2.0 {
            // Times are picoseconds in 64 bits; half the range keeps sums of durations safe.
            return Err(format!("'{s}' is too long (at most {:.3e} s)", u64::MAX as f64 / 2.0 / 1e12));
        }
        Ok(Duration(SimDuration::from_ps(ps as u64)))
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

// --- cell counts ----------------------------------------------------------------------------

/// A number of cells (buffer sizes).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cells(pub u32);

/// A whole count in one of `units` (or bare); `what` names the unit in errors.
fn parse_count(s: &str, units: &[&str], what: &str) -> Result<u32, String> {
    let (v, unit) = split_number(s)?;
    if !unit.is_empty() && !units.contains(&unit) {
        return Err(format!("unknown unit '{unit}' in '{s}' (use {what})"));
    }
    if v < 0.0 || v.fract() != 0.0 {
        return Err(format!("'{s}' is not a whole number of {what}"));
    }
    if v > u32::MAX as f64 {
        return Err(format!("'{s}' is more than the largest count, {} {what}", u32::MAX));
    }
    Ok(v as u32)
}

impl std::str::FromStr for Cells {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        parse_count(s, &["cells", "cell"], "cells").map(Cells)
    }
}

impl fmt::Display for Cells {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}cells", self.0)
    }
}

// --- packet counts -------------------------------------------------------------------------

/// A number of IP packets (router buffer sizes).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Packets(pub u32);

impl std::str::FromStr for Packets {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        parse_count(s, &["packets", "packet", "pkts"], "packets").map(Packets)
    }
}

impl fmt::Display for Packets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}packets", self.0)
    }
}

// --- byte counts ---------------------------------------------------------------------------

/// A number of bytes (TCP windows, segment sizes).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes(pub u64);

impl std::str::FromStr for Bytes {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (v, unit) = split_number(s)?;
        let scale = match unit {
            "B" | "" => 1.0,
            "kB" | "KB" => 1e3,
            "KiB" => 1024.0,
            "MB" => 1e6,
            "MiB" => 1024.0 * 1024.0,
            u => return Err(format!("unknown size unit '{u}' in '{s}' (use B, KB, KiB, MB, MiB)")),
        };
        let b = v * scale;
        if b < 0.0 || b.fract() != 0.0 || b > 1e15 {
            return Err(format!("'{s}' is not a whole number of bytes (at most 1e15)"));
        }
        Ok(Bytes(b as u64))
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}

// --- serde and schema glue ----------------------------------------------------------------

macro_rules! string_unit {
    ($t:ty, $name:literal, $pattern:literal, $desc:literal, $allow_int:literal) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> de::Visitor<'de> for V {
                    type Value = $t;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($desc)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$t, E> {
                        s.parse().map_err(E::custom)
                    }
                    fn visit_u64<E: de::Error>(self, n: u64) -> Result<$t, E> {
                        if $allow_int {
                            n.to_string().parse().map_err(E::custom)
                        } else {
                            Err(E::custom(format!("{n} has no unit; write it as a string such as {}", $desc)))
                        }
                    }
                    fn visit_i64<E: de::Error>(self, n: i64) -> Result<$t, E> {
                        if $allow_int && n >= 0 {
                            self.visit_u64(n as u64)
                        } else {
                            Err(E::custom(format!("{n} has no unit; write it as a string such as {}", $desc)))
                        }
                    }
                    fn visit_f64<E: de::Error>(self, n: f64) -> Result<$t, E> {
                        Err(E::custom(format!("{n} has no unit; write it as a string such as {}", $desc)))
                    }
                }
                d.deserialize_any(V)
            }
        }

        impl JsonSchema for $t {
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed($name)
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                // What the loader accepts: a string with a unit, and for counts a bare integer.
                if $allow_int {
                    json_schema!({
                        "anyOf": [{ "type": "string", "pattern": $pattern }, { "type": "integer", "minimum": 0 }],
                        "description": $desc
                    })
                } else {
                    json_schema!({ "type": "string", "pattern": $pattern, "description": $desc })
                }
            }
        }
    };
}

string_unit!(
    Rate,
    "Rate",
    r"^\s*[0-9.eE+-]+\s*(bps|b/s|kbps|Kbps|kb/s|Mbps|Mb/s|Gbps|Gb/s|cells/s|cps)\s*$",
    "a rate such as \"155.52Mbps\" or \"10cells/s\"",
    false
);
string_unit!(
    Duration,
    "Duration",
    r"^\s*[0-9.eE+-]+\s*(s|ms|us|µs|ns|ps)\s*$",
    "a duration such as \"5ms\" or \"100us\"",
    false
);
string_unit!(Cells, "Cells", r"^\s*[0-9]+\s*(cells?)?\s*$", "a cell count such as \"1000cells\"", true);
string_unit!(Packets, "Packets", r"^\s*[0-9]+\s*(packets?|pkts)?\s*$", "a packet count such as \"200packets\"", true);
string_unit!(
    Bytes,
    "Bytes",
    r"^\s*[0-9.eE+-]+\s*(B|kB|KB|KiB|MB|MiB)?\s*$",
    "a size such as \"600000B\" or \"128KiB\"",
    true
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!("155.52Mbps".parse::<Rate>().unwrap().bps(), 155_520_000.0);
        assert_eq!("10 cells/s".parse::<Rate>().unwrap().cells_per_s(), 10.0);
        assert_eq!("1.5Gbps".parse::<Rate>().unwrap().bps(), 1.5e9);
        assert!("155".parse::<Rate>().unwrap_err().contains("no unit"));
        assert!("155Mbit".parse::<Rate>().unwrap_err().contains("unknown rate unit 'Mbit'"));
        assert!("-1Mbps".parse::<Rate>().unwrap_err().contains("negative"));
        assert!("1e30Gbps".parse::<Rate>().unwrap_err().contains("too large"));
        // The largest rate the message names is one the parser reads.
        let e = "20000Gbps".parse::<Rate>().unwrap_err();
        assert!(e.contains("at most 10000Gbps"), "{e}");
        assert!("10000Gbps".parse::<Rate>().is_ok());
    }

    #[test]
    fn a_long_quantity_is_refused_at_once() {
        // Every prefix of a quantity is tried as a number: 10^5 digits would take ~10^10 steps.
        let long = "1".repeat(100_000) + "Mbps";
        let t = std::time::Instant::now();
        let e = long.parse::<Rate>().unwrap_err();
        assert!(e.contains("too long for a number with a unit"), "{e}");
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
        assert!(("1".repeat(100_000) + "ms").parse::<Duration>().is_err());
        assert!(format!("{}1Mbps", "0".repeat(59)).parse::<Rate>().is_ok());
    }

    #[test]
    fn durations() {
        assert_eq!("5ms".parse::<Duration>().unwrap().0, SimDuration::from_millis(5));
        assert_eq!("0.0002s".parse::<Duration>().unwrap().0, SimDuration::from_micros(200));
        assert_eq!("5 us".parse::<Duration>().unwrap().0, SimDuration::from_micros(5));
        assert!("5".parse::<Duration>().is_err());
        assert!("5min".parse::<Duration>().unwrap_err().contains("unknown time unit"));
    }

    #[test]
    fn cells() {
        assert_eq!("1000cells".parse::<Cells>().unwrap(), Cells(1000));
        assert_eq!("12".parse::<Cells>().unwrap(), Cells(12));
        assert!("1.5cells".parse::<Cells>().is_err());
        assert_eq!("200packets".parse::<Packets>().unwrap(), Packets(200));
        assert_eq!("50 pkts".parse::<Packets>().unwrap(), Packets(50));
        assert!("200cells".parse::<Packets>().is_err());
    }

    #[test]
    fn bytes() {
        assert_eq!("600000B".parse::<Bytes>().unwrap(), Bytes(600_000));
        assert_eq!("128KiB".parse::<Bytes>().unwrap(), Bytes(131_072));
        assert_eq!("64KB".parse::<Bytes>().unwrap(), Bytes(64_000));
        assert_eq!("1460".parse::<Bytes>().unwrap(), Bytes(1460));
        assert!("1.5B".parse::<Bytes>().is_err());
    }

    #[test]
    fn display_round_trips() {
        for s in ["155.52Mbps", "4.24Mbps", "0.02Mbps"] {
            let r: Rate = s.parse().unwrap();
            assert_eq!(r.to_string().parse::<Rate>().unwrap(), r);
        }
        for s in ["5ms", "1.5ms", "2726337ps", "0.1s"] {
            let d: Duration = s.parse().unwrap();
            assert_eq!(d.to_string().parse::<Duration>().unwrap(), d);
        }
    }

    proptest::proptest! {
        /// The parser never panics, whatever it is fed.
        #[test]
        fn parsers_never_panic(s in "\\PC{0,20}") {
            let _ = s.parse::<Rate>();
            let _ = s.parse::<Duration>();
            let _ = s.parse::<Cells>();
        }
    }
}
