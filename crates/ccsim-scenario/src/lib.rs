//! Scenarios for ccsim: the file format (TOML, JSON, Python dicts), units, validation with
//! field paths, building the world, running it in chunks, and the result columns.
//!
//! ```
//! use ccsim_scenario::{Adjustments, Format, Run};
//! let text = r#"
//!     name = "doc/one"
//!     run = { duration = "5ms" }
//!     switch = [{ name = "SW1" }]
//!     source = [{ name = "S1", route = ["SW1"] }]
//! "#;
//! let mut run = Run::from_text(text, Format::Toml, &Adjustments::default()).unwrap();
//! run.run_to_end();
//! let result = run.finish().unwrap();
//! assert_eq!(result["scenario"], "doc/one");
//! ```

pub mod algorithms;
mod build;
pub mod credit;
mod error;
pub mod gfr;
pub mod hgrcp;
pub mod ip;
mod load;
pub mod parallel;
mod tree;
pub mod results;
pub mod sessions;
pub mod topology;
pub mod transport;
pub mod types;
pub mod units;
mod validate;
pub use validate::{MAX_FLOWS, MAX_NAME_CHARS};

pub use build::build;
pub use error::ScenarioError;
pub use load::{adjust, from_tree, load, parse_override, parse_tree, set_path, Adjustments, Format};
pub use tree::{check_depth, MAX_DEPTH};
pub use types::Scenario;

use ccsim_engine::SimTime;
use ccsim_model::World;
use std::fmt;

/// A run that failed after the scenario was accepted (an internal invariant broke).
#[derive(Clone, Debug)]
pub struct SimulationError(pub String);

impl fmt::Display for SimulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SimulationError {}

/// The JSON Schema of the scenario format.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Scenario);
    serde_json::to_string_pretty(&schema).expect("schemas serialise")
}

/// FNV-1a over the resolved scenario: a stable identity for results files.
fn hash_text(s: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// What becomes of a run's time series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeriesUse {
    /// Kept until the run ends (refused above `measure.max_series_mb`).
    InMemory,
    /// Taken by the caller while the run goes (`Run::take_series`, written to files): never all
    /// in memory at once.
    Streamed,
    /// Not recorded: nothing will read them (`ccsim run --json`). The run is otherwise the same.
    Discarded,
}

pub struct Run {
    scenario: Scenario,
    resolved: String,
    world: World,
    /// The cells in flight were freed (`into_json`): no result can be counted again.
    released: bool,
    /// Whether `run.threads` was applied (`start_threads`, before the first chunk).
    threads_started: bool,
}

impl Run {
    pub fn new(mut scenario: Scenario) -> Run {
        let resolved = serde_json::to_string(&scenario).expect("scenarios serialise");
        let world = build(&scenario);
        scenario.notices.extend(never_started(&world, SimTime::ZERO + scenario.run.duration.0));
        Run { scenario, resolved, world, released: false, threads_started: false }
    }

    pub fn from_text(text: &str, format: Format, adj: &Adjustments) -> Result<Run, ScenarioError> {
        Run::open(text, format, adj, SeriesUse::InMemory)
    }

    /// A run whose series are kept in memory, taken by the caller as it runs, or not recorded
    /// (`SeriesUse`); `measure.max_series_mb` applies only to the first.
    pub fn open(text: &str, format: Format, adj: &Adjustments, series: SeriesUse) -> Result<Run, ScenarioError> {
        let mut run = Run::new(load(text, format, adj)?);
        match series {
            SeriesUse::InMemory => run.check_series_size()?,
            SeriesUse::Streamed => {}
            SeriesUse::Discarded => run.world.discard_series(),
        }
        run.start_trace()?;
        if let types::ThreadCount::Count(n @ 2..) = run.scenario.run.threads {
            run.world.thread_plan(n as usize).map_err(|why| thread_error(n as usize, &why))?;
        }
        Ok(run)
    }

    /// Applies `run.threads` (before the first chunk; `advance` does it if the caller did not):
    /// "auto" takes `World::auto_threads` of the cores available; a count is refused if the world
    /// cannot run on threads now (work counting turned on since loading, say). Returns the threads
    /// the run uses.
    pub fn start_threads(&mut self) -> Result<usize, ScenarioError> {
        if self.threads_started {
            return Ok(self.world.threads());
        }
        let n = match self.scenario.run.threads {
            types::ThreadCount::Auto => self.world.auto_threads(std::thread::available_parallelism().map_or(1, |n| n.get())),
            types::ThreadCount::Count(n) => n as usize,
        };
        self.set_threads(n).map_err(|why| thread_error(n, &why))
    }

    /// The series recorded since the last call (or the start), taken out of the world.
    pub fn take_series(&mut self) -> ccsim_model::Recordings {
        std::mem::take(&mut self.world.rec)
    }

    /// Turns on the event trace `measure.trace` asks for (docs/trace.md); refuses flow names
    /// that name no flow and a window that ends before it starts.
    pub fn start_trace(&mut self) -> Result<(), ScenarioError> {
        let Some(spec) = self.scenario.measure.trace.clone().filter(|t| t.enabled) else { return Ok(()) };
        let names: Vec<&str> = self.world.vcs.iter().map(|v| v.name.as_str()).collect();
        let mut flows = Vec::new();
        if !spec.flows.is_empty() {
            flows = vec![false; names.len()];
            for (i, f) in spec.flows.iter().enumerate() {
                let Some(k) = names.iter().position(|n| n == f) else {
                    let shown: Vec<&str> = names.iter().copied().take(20).collect();
                    let more = if names.len() > 20 { format!(", ... ({} in all)", names.len()) } else { String::new() };
                    return Err(ScenarioError::new(
                        format!("measure.trace.flows[{i}]"),
                        format!("no source, connection or background flow named '{f}' (flows: {}{more})", shown.join(", ")),
                    ));
                };
                flows[k] = true;
            }
        }
        let from = SimTime::ZERO + spec.from.map_or(ccsim_engine::SimDuration::ZERO, |d| d.0);
        let to = spec.to.map_or(SimTime::MAX, |d| SimTime::ZERO + d.0);
        if to <= from {
            return Err(ScenarioError::new("measure.trace.to", format!("must be after measure.trace.from ({})", from)));
        }
        if spec.max_mb == 0 {
            return Err(ScenarioError::new("measure.trace.max_mb", "must be at least 1"));
        }
        let max_rows = spec.max_mb.saturating_mul(1_000_000) / ccsim_model::trace::ROW_BYTES;
        self.world.set_trace(ccsim_model::trace::TraceSpec { flows, from, to, max_rows });
        Ok(())
    }

    /// The recorded trace if `measure.trace` asked for one: sorted by time once the run is
    /// complete.
    pub fn trace(&self) -> Option<&ccsim_model::trace::Trace> {
        self.world.trace()
    }

    /// The memory the whole run's time series would take, MB (20 bytes a row), at most.
    pub fn series_estimate_mb(&self) -> f64 {
        let (rows, samples) = self.world.series_size();
        rows as f64 * samples as f64 * 20.0 / 1e6
    }

    /// Refuses a run whose time series would take more than `measure.max_series_mb`.
    pub fn check_series_size(&self) -> Result<(), ScenarioError> {
        let (rows, samples) = self.world.series_size();
        let (mb, limit) = (self.series_estimate_mb(), self.scenario.measure.max_series_mb);
        if mb > limit as f64 {
            return Err(ScenarioError::new(
                "measure",
                format!(
                    "the time series would take ~{mb:.0} MB ({rows} series rows x {samples} samples of 20 bytes), above \
                     measure.max_series_mb = {limit}; sample less often (measure.interval), leave series out \
                     (measure.queue = false, measure.acr = false, ...), raise measure.max_series_mb, or write them \
                     to files as the run goes (`ccsim run --out` does when they are large; in Python, \
                     ccsim.run(..., stream_series=DIR))"
                ),
            ));
        }
        Ok(())
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    /// The scenario with every default filled in, as JSON.
    pub fn resolved_json(&self) -> &str {
        &self.resolved
    }
    pub fn scenario_hash(&self) -> String {
        hash_text(&self.resolved)
    }
    pub fn world(&self) -> &World {
        &self.world
    }
    /// For tests that change how the engine runs (not what it models).
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// Runs on up to `n` threads (`World::thread_plan`), building the other threads' copies of
    /// the world from the scenario, in this world's engine mode and grouping; only before the run
    /// starts. Returns the threads it runs on (fewer than `n` where the world has fewer units to
    /// spread); refuses a world that cannot run on threads, with the reason.
    pub fn set_threads(&mut self, n: usize) -> Result<usize, String> {
        self.threads_started = true;
        if n <= 1 {
            return Ok(1);
        }
        let plan = self.world.thread_plan(n)?;
        let groups = self.world.groups();
        let shards = (1..plan.threads)
            .map(|_| {
                let mut w = build(&self.scenario);
                w.set_groups(groups.clone())?;
                Ok(w)
            })
            .collect::<Result<Vec<_>, String>>()?;
        self.world.set_threads(&plan, shards)?;
        Ok(plan.threads)
    }

    /// Advances to `until` (capped at the end of the run); true once complete.
    pub fn run_until(&mut self, until: SimTime) -> bool {
        self.start_threads_quietly();
        self.world.run_until(until)
    }

    /// `start_threads` for callers that did not call it: a count that cannot be honoured now (it
    /// was checked at loading) leaves the run on one thread, with the same results.
    fn start_threads_quietly(&mut self) {
        if !self.threads_started {
            let _ = self.start_threads();
        }
    }

    /// `run_until` leaving lazy state behind until the run is complete (`World::advance`): for
    /// chunked runs; call `settle_now` before reading counters between chunks.
    pub fn advance(&mut self, until: SimTime) -> bool {
        self.start_threads_quietly();
        self.world.advance(until)
    }

    /// Brings the world's lazy state up to now (changes no result).
    pub fn settle_now(&mut self) {
        self.world.settle_now();
    }

    pub fn run_to_end(&mut self) {
        let end = self.world.end();
        self.run_until(end);
    }

    /// The result; fails if the run is incomplete or a conservation check broke.
    pub fn finish(&self) -> Result<serde_json::Value, SimulationError> {
        Ok(serde_json::from_str(&self.finish_json(results::Detail::Full)?).expect("the result is JSON"))
    }

    /// The result as JSON text, as much of it as `detail` asks for (`results::Detail`).
    pub fn finish_json(&self, detail: results::Detail) -> Result<String, SimulationError> {
        let report = self.counted()?;
        Ok(self.write_json(&report, detail))
    }

    /// The result as `finish_json` gives it, for a run that ends here: the cells in flight (most
    /// of a large run's memory: ~1 GB at 100,000 sources) are freed as soon as they are counted,
    /// and `freed` is called before the text is written (the Python binding hands the freed heap
    /// back to the OS there: the allocator keeps small freed blocks mapped, and the text's large
    /// buffers would not reuse them). The run gives no result after this.
    pub fn into_json(&mut self, detail: results::Detail, freed: impl FnOnce()) -> Result<String, SimulationError> {
        let report = self.counted()?;
        self.world.free_cells_in_flight();
        self.released = true;
        freed();
        Ok(self.write_json(&report, detail))
    }

    /// The world's report, once the run is complete and if conservation held.
    fn counted(&self) -> Result<ccsim_model::world::Report, SimulationError> {
        if self.released {
            return Err(SimulationError("the result was already taken (its cells in flight are freed)".into()));
        }
        if !self.world.is_done() {
            return Err(SimulationError(format!(
                "the run is at {} of {}; run it to the end before asking for results",
                self.world.now(),
                self.world.end()
            )));
        }
        self.world.checked_report().map_err(|e| SimulationError(format!("conservation check failed: {e}")))
    }

    /// The result's text from a report `counted` gave (so conservation held).
    fn write_json(&self, report: &ccsim_model::world::Report, detail: results::Detail) -> String {
        let name = &self.scenario.name;
        results::result_json(&self.world, report, true, name, self.scenario.run.seed, &self.scenario_hash(), detail)
    }
}

/// `run.threads` refused: the count and why (`World::can_run_on_threads`).
fn thread_error(n: usize, why: &str) -> ScenarioError {
    ScenarioError::new("run.threads", format!("{n} threads: {why}; leave run.threads at \"auto\" or 1"))
}

/// The notice for flows that start at or after the end of the run (`end`), one line for all of
/// them: they send nothing, and their rows read zeros that are not measurements.
fn never_started(world: &World, end: SimTime) -> Option<String> {
    let late: Vec<(&str, SimTime)> =
        world.vcs.iter().filter(|v| v.start_time() >= end).map(|v| (v.name.as_str(), v.start_time())).collect();
    let ((first, at), rest) = late.split_first()?;
    let named = |(n, t): &(&str, SimTime)| format!("{n} (at {t})");
    let mut names = std::iter::once(named(&(first, *at))).chain(rest.iter().take(4).map(named)).collect::<Vec<_>>().join(", ");
    if late.len() > 5 {
        names.push_str(&format!(" and {} more", late.len() - 5));
    }
    let (what, verb) = if late.len() == 1 { ("flow", "starts") } else { ("flows", "start") };
    Some(format!(
        "{} {what} {names} {verb} at or after the end of the run ({end}): nothing is sent, and the result's rows for \
         them are zeros, not measurements; lengthen run.duration or start them earlier",
        late.len()
    ))
}
