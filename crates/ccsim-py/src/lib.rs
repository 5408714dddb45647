//! `ccsim._core`: the thin binding between Python and `ccsim-scenario`.
//!
//! It converts arguments, calls the scenario crate, maps errors onto the Python hierarchy in
//! `ccsim.errors`, releases the GIL while the engine runs, and turns any Rust panic into
//! `ccsim.InternalError` naming the simulated time and the event being processed, so a panic
//! never reaches Python as a crash (PyO3's `PanicException` is not an `Exception`).

use ccsim_engine::{SimDuration, SimTime};
use ccsim_scenario::{Adjustments, Format, Run, ScenarioError, SeriesUse};
use ccsim_scenario::results;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Raises `ccsim.errors.<class_name>(message)`.
fn ccsim_error(py: Python<'_>, class_name: &str, message: String) -> PyErr {
    let made = py
        .import("ccsim.errors")
        .and_then(|m| m.getattr(class_name))
        .and_then(|cls| cls.call1((message.clone(),)));
    match made {
        Ok(obj) => PyErr::from_value(obj),
        Err(_) => pyo3::exceptions::PyRuntimeError::new_err(format!("{class_name}: {message}")),
    }
}

fn scenario_error(py: Python<'_>, e: ScenarioError) -> PyErr {
    ccsim_error(py, "ScenarioError", e.to_string())
}

fn f64_bytes<'py>(py: Python<'py>, xs: &[f64]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &xs.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>())
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

fn adjustments(
    py: Python<'_>,
    overrides: Vec<(String, String)>,
    scheme: Option<String>,
    seed: Option<u64>,
    tcp: Option<String>,
) -> PyResult<Adjustments> {
    let mut parsed = Vec::with_capacity(overrides.len());
    for (path, value) in overrides {
        // Bounded as the scenario's text is: nesting (counting the path's components) and
        // finite numbers (`NaN`, `Infinity` refused with the path).
        let v = ccsim_scenario::parse_override(&path, &value).map_err(|e| scenario_error(py, e))?;
        parsed.push((path, v));
    }
    Ok(Adjustments { overrides: parsed, scheme, seed, tcp })
}

#[allow(clippy::too_many_arguments)]
fn load(
    py: Python<'_>,
    text: &str,
    format: &str,
    overrides: Vec<(String, String)>,
    scheme: Option<String>,
    seed: Option<u64>,
    tcp: Option<String>,
    series: SeriesUse,
) -> PyResult<Run> {
    let format: Format = text_format(py, format)?;
    let adj = adjustments(py, overrides, scheme, seed, tcp)?;
    match catch_unwind(AssertUnwindSafe(|| Run::open(text, format, &adj, series))) {
        Ok(Ok(run)) => Ok(run),
        Ok(Err(e)) => Err(scenario_error(py, e)),
        Err(p) => Err(ccsim_error(py, "InternalError", format!("while loading the scenario: {}", panic_text(&*p)))),
    }
}

fn text_format(py: Python<'_>, format: &str) -> PyResult<Format> {
    format.parse().map_err(|e| scenario_error(py, e))
}

/// Raises `InternalError` from a deliberate panic inside the same guard the engine calls use,
/// so the tests can check that a panic never reaches Python as a crash.
#[pyfunction]
fn _panic_selftest(py: Python<'_>) -> PyResult<()> {
    let outcome = py.detach(|| catch_unwind(|| -> u32 { panic!("deliberate panic (self-test)") }));
    match outcome {
        Ok(_) => Ok(()),
        Err(p) => Err(ccsim_error(py, "InternalError", format!("internal error: {}", panic_text(&*p)))),
    }
}

/// The JSON Schema of the scenario format.
#[pyfunction]
fn schema() -> String {
    ccsim_scenario::json_schema()
}

/// Parses, adjusts and validates a scenario; returns it resolved (every default filled in).
#[pyfunction]
#[pyo3(signature = (text, format, overrides = Vec::new(), scheme = None, seed = None, tcp = None))]
fn resolve(
    py: Python<'_>,
    text: &str,
    format: &str,
    overrides: Vec<(String, String)>,
    scheme: Option<String>,
    seed: Option<u64>,
    tcp: Option<String>,
) -> PyResult<String> {
    // Without the series-size check: `ccsim validate` accepts what `ccsim run` runs, and `run`
    // records series only with `--out`, streaming them to files when they are large.
    Ok(load(py, text, format, overrides, scheme, seed, tcp, SeriesUse::Discarded)?.resolved_json().to_string())
}

/// The network a scenario builds, without running it (`ccsim show`): nodes, ports (from, to,
/// rate, delay), flows (route as port indices, max-min fair rate, what holds it there) as JSON
/// text (`ccsim_scenario::topology::topology_json`). Series are not sized: nothing is recorded.
#[pyfunction]
#[pyo3(signature = (text, format, overrides = Vec::new(), scheme = None, seed = None, tcp = None))]
fn topology(
    py: Python<'_>,
    text: &str,
    format: &str,
    overrides: Vec<(String, String)>,
    scheme: Option<String>,
    seed: Option<u64>,
    tcp: Option<String>,
) -> PyResult<String> {
    let run = load(py, text, format, overrides, scheme, seed, tcp, SeriesUse::Discarded)?;
    let name = run.scenario().name.clone();
    match py.detach(|| catch_unwind(AssertUnwindSafe(|| ccsim_scenario::topology::topology_json(run.world(), &name)))) {
        Ok(text) => Ok(text),
        Err(p) => Err(ccsim_error(py, "InternalError", format!("while reading the topology: {}", panic_text(&*p)))),
    }
}

/// One simulation run, advanced in chunks from Python.
#[pyclass(module = "ccsim._core")]
struct Simulation {
    run: Run,
    poisoned: Option<String>,
    /// Wall time inside `run_until`, ns: the engine's own (the parallel report's ns per event).
    engine_ns: u128,
    /// Why work is not counted, once `count_work` was asked and refused.
    not_counted: Option<String>,
}

#[pymethods]
impl Simulation {
    /// `series`: "memory" (kept until `finish`; refused above `measure.max_series_mb`),
    /// "streamed" (the caller takes them while the run goes, `take_series`) or "none" (not
    /// recorded; nothing else about the run changes).
    #[new]
    #[pyo3(signature = (text, format, overrides = Vec::new(), scheme = None, seed = None, tcp = None, series = "memory"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        text: &str,
        format: &str,
        overrides: Vec<(String, String)>,
        scheme: Option<String>,
        seed: Option<u64>,
        tcp: Option<String>,
        series: &str,
    ) -> PyResult<Self> {
        let series = match series {
            "memory" => SeriesUse::InMemory,
            "streamed" => SeriesUse::Streamed,
            "none" => SeriesUse::Discarded,
            other => return Err(PyValueError::new_err(format!("series: expected memory, streamed or none, not {other:?}"))),
        };
        let run = load(py, text, format, overrides, scheme, seed, tcp, series)?;
        Ok(Simulation { run, poisoned: None, engine_ns: 0, not_counted: None })
    }

    /// The memory the whole run's series would take, MB, and the limit `measure.max_series_mb`.
    #[getter]
    fn series_estimate_mb(&self) -> (f64, u64) {
        (self.run.series_estimate_mb(), self.run.scenario().measure.max_series_mb)
    }

    /// Rows recorded and not yet taken.
    #[getter]
    fn series_rows(&self) -> usize {
        results::recorded_rows(&self.run.world().rec)
    }

    /// The series recorded since the last call, taken out of the engine, as binary columns (the
    /// form `finish` gives them).
    fn take_series<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let part = self.run.take_series();
        series_dict(py, &part, &results::Names::of(self.run.world()))
    }

    #[getter]
    fn name(&self) -> String {
        self.run.scenario().name.clone()
    }
    #[getter]
    fn seed(&self) -> u64 {
        self.run.scenario().run.seed
    }
    #[getter]
    fn duration_s(&self) -> f64 {
        self.run.world().end().as_secs_f64()
    }
    #[getter]
    fn now_s(&self) -> f64 {
        self.run.world().now().as_secs_f64()
    }
    /// The threads the run uses (`run.threads`; known once it has started).
    #[getter]
    fn threads(&self) -> usize {
        self.run.world().threads()
    }
    #[getter]
    fn events(&self) -> u64 {
        self.run.world().events()
    }
    /// Hops so far: cells that crossed an ATM link and packets that crossed an IP link.
    #[getter]
    fn hops(&mut self, py: Python<'_>) -> PyResult<u64> {
        self.settle(py)?;
        let w = self.run.world();
        Ok(w.cell_hops() + w.packet_hops())
    }
    /// Cells and packets the ports refused so far (with `hops`, every unit a port was offered).
    #[getter]
    fn port_drops(&mut self, py: Python<'_>) -> PyResult<u64> {
        self.settle(py)?;
        Ok(self.run.world().port_drops())
    }
    #[getter]
    fn scenario_hash(&self) -> String {
        self.run.scenario_hash()
    }
    /// What loading did not do as asked (options that change nothing, adjusted values).
    #[getter]
    fn notices(&self) -> Vec<String> {
        self.run.scenario().notices.clone()
    }
    /// The scenario with every default filled in, as JSON text.
    fn resolved_json(&self) -> String {
        self.run.resolved_json().to_string()
    }

    /// Advances to `t_s` seconds (capped at the end) with the GIL released; True when done.
    fn run_until(&mut self, py: Python<'_>, t_s: f64) -> PyResult<bool> {
        if let Some(why) = &self.poisoned {
            return Err(ccsim_error(py, "SimulationError", format!("this simulation failed earlier: {why}")));
        }
        if t_s.is_nan() {
            return Err(ccsim_error(py, "SimulationError", "run_until: time is NaN".into()));
        }
        let until = SimTime::ZERO + SimDuration::from_secs_f64(t_s.min(1e6));
        if self.run.world().events() == 0 {
            self.run.start_threads().map_err(|e| scenario_error(py, e))?;
        }
        let run = &mut self.run;
        let started = std::time::Instant::now();
        let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(|| run.advance(until))));
        self.engine_ns += started.elapsed().as_nanos();
        match outcome {
            Ok(done) => Ok(done),
            Err(p) => {
                let w = self.run.world();
                let at = w.current_event().map(|e| e.describe(w)).unwrap_or_else(|| "no event".into());
                let msg = format!("internal error at simulated time {} ({}): {}", w.now(), at, panic_text(&*p));
                self.poisoned = Some(msg.clone());
                Err(ccsim_error(py, "InternalError", msg))
            }
        }
    }

    /// Counts each logical process's work per window (`--parallel-report`); before the run only.
    /// Returns None, or why the world has no windows to count (it runs from one queue).
    fn count_work(&mut self) -> Option<String> {
        let why = self.run.world_mut().count_work().err();
        self.not_counted = why.clone();
        why
    }

    /// The `parallel_report` object as JSON text, once the run is complete: the speed-up
    /// predicted on 2 to 64 threads from the counted work, this run's engine ns per event and a
    /// two-thread barrier round measured now (`ccsim_model::parallel::barrier::measure`).
    fn parallel_report(&self, py: Python<'_>) -> String {
        let world = self.run.world();
        let why = self.not_counted.as_deref();
        let barrier = if world.work_counts().is_some() {
            py.detach(|| ccsim_model::parallel::barrier::measure(ccsim_scenario::parallel::BARRIER_ROUNDS))
        } else {
            (0.0, 0.0)
        };
        let ns_per_event = self.engine_ns as f64 / world.events().max(1) as f64;
        ccsim_scenario::parallel::report_json(world, why, ns_per_event, barrier).to_string()
    }

    /// The result's `trace` entry as JSON text, if the run records a trace.
    #[getter]
    fn trace_summary(&self) -> Option<String> {
        self.run.trace().map(|t| results::trace_summary(t).to_string())
    }

    /// The summary `ccsim run --json` prints (the result without `series` and `vcs`) as JSON
    /// text, never turned into Python objects: at 100,000 sources those took more memory than the
    /// text (~6.5 kB a source) while the world was still alive. Only once the run is complete.
    /// The run's cells in flight are freed once counted (`Run::into_json`): no other result can
    /// be taken after this.
    fn summary_text(&mut self, py: Python<'_>) -> PyResult<String> {
        self.result_text(py, results::Detail::Summary, true)
    }

    /// The result as a dict; only once the run is complete. Time series come as binary columns
    /// (`series[name] = {"time_s": bytes of f64, "key": bytes of u32, "names": [str], "key_field",
    /// "value_field", "value": bytes of f64}`, little-endian), which `ccsim.api` turns into arrays:
    /// a million samples as JSON took most of a second to print and parse.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = self.result_text(py, results::Detail::NoSeries, false)?;
        let data = py.import("json")?.call_method1("loads", (text,))?;
        let world = self.run.world();
        data.set_item("series", series_dict(py, &world.rec, &results::Names::of(world))?)?;
        if let Some(t) = world.trace() {
            data.set_item("trace_columns", trace_columns(py, world, t)?)?;
        }
        data.set_item("delay_histogram_columns", delay_histogram_columns(py, world)?)?;
        Ok(data)
    }
}

impl Simulation {
    /// Brings the world's lazy state up to now before a counter is read between chunks (`run_until`
    /// leaves it behind: `Run::advance`). A failed simulation is read as it stopped; a failure
    /// here fails the simulation as one in `run_until` does.
    fn settle(&mut self, py: Python<'_>) -> PyResult<()> {
        if self.poisoned.is_some() {
            return Ok(());
        }
        let run = &mut self.run;
        catch_unwind(AssertUnwindSafe(|| run.settle_now())).map_err(|p| {
            let msg = format!("internal error at simulated time {} (settling the world): {}", self.run.world().now(), panic_text(&*p));
            self.poisoned = Some(msg.clone());
            ccsim_error(py, "InternalError", msg)
        })
    }

    /// The result's text (`Run::finish_json`, or `Run::into_json` if `last`), the GIL released
    /// while it is written.
    fn result_text(&mut self, py: Python<'_>, detail: results::Detail, last: bool) -> PyResult<String> {
        if let Some(why) = &self.poisoned {
            return Err(ccsim_error(py, "SimulationError", format!("this simulation failed earlier: {why}")));
        }
        let run = &mut self.run;
        let text = py.detach(|| {
            catch_unwind(AssertUnwindSafe(|| if last { run.into_json(detail, release_freed_heap) } else { run.finish_json(detail) }))
        });
        match text {
            Ok(Ok(text)) => Ok(text),
            Ok(Err(e)) => Err(ccsim_error(py, "SimulationError", e.to_string())),
            Err(p) => Err(ccsim_error(py, "InternalError", format!("while collecting results: {}", panic_text(&*p)))),
        }
    }
}

/// Recorded series as binary little-endian columns (`finish`'s doc).
fn series_dict<'py>(py: Python<'py>, rec: &ccsim_model::Recordings, names: &results::Names) -> PyResult<Bound<'py, PyDict>> {
    let series = PyDict::new(py);
    for c in results::recorded_columns(rec, names) {
        let col = PyDict::new(py);
        col.set_item("key_field", c.key_field)?;
        col.set_item("value_field", c.value_field)?;
        col.set_item("names", c.names.to_vec())?;
        col.set_item("time_s", f64_bytes(py, &c.series.time_s))?;
        col.set_item("key", PyBytes::new(py, &c.series.key.iter().flat_map(|k| k.to_le_bytes()).collect::<Vec<u8>>()))?;
        col.set_item("value", f64_bytes(py, &c.series.value))?;
        series.set_item(c.name, col)?;
    }
    Ok(series)
}

/// Every flow's delay histogram over the window (`results::DelayHistograms`) as binary
/// little-endian columns (`flow` u32 codes into `flow_names`, `low_s` and `high_s` f64, `count`
/// u64).
fn delay_histogram_columns<'py>(py: Python<'py>, world: &ccsim_model::World) -> PyResult<Bound<'py, PyDict>> {
    let h = results::DelayHistograms::of(world);
    let d = PyDict::new(py);
    d.set_item("flow", PyBytes::new(py, &h.flow.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()))?;
    d.set_item("low_s", f64_bytes(py, &h.low_s))?;
    d.set_item("high_s", f64_bytes(py, &h.high_s))?;
    d.set_item("count", PyBytes::new(py, &h.count.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()))?;
    d.set_item("flow_names", world.vcs.iter().map(|v| v.name.clone()).collect::<Vec<_>>())?;
    Ok(d)
}

/// The event trace as binary little-endian columns (`time_ps` u64, `event` u8, `flow` u32,
/// `node` u32, `kind` u8, `frame` u64, `size_bytes` u16, `reason` u8, `seq` u64 (`u64::MAX`:
/// none), `uid` u64) and the names the coded ones index (`<column>_names`), which `ccsim.result`
/// turns into a polars DataFrame.
fn trace_columns<'py>(py: Python<'py>, world: &ccsim_model::World, t: &ccsim_model::trace::Trace) -> PyResult<Bound<'py, PyDict>> {
    fn le<T: Copy, const N: usize>(xs: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
        xs.iter().flat_map(|&x| f(x)).collect()
    }
    let names = results::TraceNames::of(world);
    let d = PyDict::new(py);
    d.set_item("time_ps", PyBytes::new(py, &le(&t.time_ps, u64::to_le_bytes)))?;
    d.set_item("event", PyBytes::new(py, &t.event))?;
    d.set_item("flow", PyBytes::new(py, &le(&t.vc, u32::to_le_bytes)))?;
    d.set_item("node", PyBytes::new(py, &le(&t.place, u32::to_le_bytes)))?;
    d.set_item("kind", PyBytes::new(py, &t.kind))?;
    d.set_item("frame", PyBytes::new(py, &le(&t.frame, u64::to_le_bytes)))?;
    d.set_item("seq", PyBytes::new(py, &le(&t.seq, u64::to_le_bytes)))?;
    d.set_item("uid", PyBytes::new(py, &le(&(0..t.len()).map(|i| t.uid(i)).collect::<Vec<u64>>(), u64::to_le_bytes)))?;
    d.set_item("size_bytes", PyBytes::new(py, &le(&t.size, u16::to_le_bytes)))?;
    d.set_item("reason", PyBytes::new(py, &t.reason))?;
    d.set_item("event_names", names.events)?;
    d.set_item("flow_names", names.flows)?;
    d.set_item("node_names", names.places)?;
    d.set_item("kind_names", names.kinds)?;
    d.set_item("reason_names", names.reasons)?;
    Ok(d)
}

/// A duration as the scenario format writes it ("1.5ms"), in seconds: the scenario loader's own
/// parser, so Python reads units exactly as scenarios do (ScenarioError otherwise).
#[pyfunction]
fn duration_s(py: Python<'_>, text: &str) -> PyResult<f64> {
    text.parse::<ccsim_scenario::units::Duration>()
        .map(|d| d.0.as_secs_f64())
        .map_err(|e| scenario_error(py, ScenarioError::new("", e)))
}

/// A rate as the scenario format writes it ("155.52Mbps", "10000cells/s"), in bits per second.
#[pyfunction]
fn rate_bps(py: Python<'_>, text: &str) -> PyResult<f64> {
    text.parse::<ccsim_scenario::units::Rate>().map(|r| r.bps()).map_err(|e| scenario_error(py, ScenarioError::new("", e)))
}

/// Hands the pages of the C heap's freed blocks back to the OS (glibc's `malloc_trim`): glibc keeps
/// freed small blocks mapped, so a finished run's cells in flight, or a whole world dropped before
/// its result is written, would otherwise still count in the process's memory. Nothing elsewhere.
#[pyfunction]
fn release_freed_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` takes no pointer; it only returns unused heap pages to the kernel.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(topology, m)?)?;
    m.add_function(wrap_pyfunction!(duration_s, m)?)?;
    m.add_function(wrap_pyfunction!(rate_bps, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_selftest, m)?)?;
    m.add_function(wrap_pyfunction!(release_freed_heap, m)?)?;
    m.add_class::<Simulation>()?;
    Ok(())
}
