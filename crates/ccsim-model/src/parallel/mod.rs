//! What a windowed run would gain on more threads (issue #40, item 6; docs/benchmarks.md,
//! "Scaling on paper"). A windowed run already is a conservative synchronous parallel
//! simulation on one core: within a window no logical process (LP) affects another. This module
//! owns the record of each LP's work in each window (`WorkCounts`, filled by the world when asked:
//! `World::count_work`), the static partition of LPs onto threads and the speed-up it predicts
//! (`partition.rs`), the barrier that ends each window, with its micro-benchmark
//! (`barrier.rs`), and the slots in which a threaded run's thread 0 announces each step (`steps.rs`).
//!
//! Work is counted in events (`World::events`): every handler run, a pipe arrival, a port
//! departure, a source's wake-up or a timer. Cell hops would miss the work that is not a hop
//! (departures, sources' pacing, RM turn-arounds: about half the events of an ABR world) and put
//! it nowhere, so a process of hosts would look free.

pub mod barrier;
pub mod partition;
pub mod steps;

pub use partition::{lpt_partition, ParallelReport, ThreadsReport};

/// The thread counts a report predicts for (capped at the number of LPs).
pub const THREADS: [usize; 5] = [2, 4, 8, 16, 64];

/// The most (LP, events) entries kept before the partition is fixed (32 MiB): past it, the
/// partition is chosen from the work counted so far and each window's busiest thread is
/// accumulated as the run goes (`freeze`).
pub const DEFAULT_CAP: usize = 1 << 22;

/// Per window, the events each LP ran in it. Windows are kept as a list of (LP, events) for the
/// LPs that ran something, up to `cap` entries; then the partitions for `THREADS` are fixed from
/// the LPs' totals so far and only each window's largest thread load is added up, so memory stays
/// bounded (`per LP` + `cap` entries) however long the run.
#[derive(Clone, Debug)]
pub struct WorkCounts {
    cap: usize,
    /// Per LP, its events over the whole run.
    pub(crate) lp_total: Vec<u64>,
    /// Events run between windows (observers: samples, the measurement window's opening), by
    /// the loop that would own the threads: serial in any partition.
    pub(crate) serial: u64,
    /// Windows run (each one a barrier in a threaded run, empty or not).
    pub(crate) windows: u64,
    /// The current window's (LP, events) entries, and every recorded window's before them.
    pub(crate) entries: Vec<(u32, u32)>,
    /// Per recorded window, the index in `entries` where it ends.
    pub(crate) window_ends: Vec<u32>,
    /// Once `entries` reached `cap`: the partitions fixed then, and their sums so far.
    pub(crate) frozen: Option<Vec<partition::Running>>,
    /// Windows recorded as entries before the partitions were fixed.
    pub(crate) windows_before_freeze: u64,
}

impl WorkCounts {
    pub fn new(lps: usize, cap: usize) -> Self {
        WorkCounts {
            cap: cap.max(1),
            lp_total: vec![0; lps],
            serial: 0,
            windows: 0,
            entries: Vec::new(),
            window_ends: Vec::new(),
            frozen: None,
            windows_before_freeze: 0,
        }
    }

    pub fn lps(&self) -> usize {
        self.lp_total.len()
    }

    /// Every event counted: the LPs' and the serial ones.
    pub fn total(&self) -> u64 {
        self.lp_total.iter().sum::<u64>() + self.serial
    }

    /// Per LP, its events over the run.
    pub fn lp_totals(&self) -> &[u64] {
        &self.lp_total
    }

    pub fn windows(&self) -> u64 {
        self.windows
    }

    /// LP `lp` ran `events` events in the current window.
    #[inline]
    pub fn add(&mut self, lp: usize, events: u64) {
        if events == 0 {
            return;
        }
        self.lp_total[lp] += events;
        match &mut self.frozen {
            Some(running) => running.iter_mut().for_each(|r| r.add(lp, events)),
            None => self.entries.push((lp as u32, events.min(u32::MAX as u64) as u32)),
        }
    }

    /// An event run between windows (an observer).
    #[inline]
    pub fn add_serial(&mut self) {
        self.serial += 1;
    }

    /// The current window ends (every LP has run its part).
    pub fn close_window(&mut self) {
        self.windows += 1;
        match &mut self.frozen {
            Some(running) => running.iter_mut().for_each(|r| r.close_window()),
            None => {
                self.window_ends.push(self.entries.len() as u32);
                if self.entries.len() >= self.cap {
                    self.freeze();
                }
            }
        }
    }

    /// Fixes the partitions from the work so far, adds up the recorded windows' largest loads,
    /// and drops the entries: from now on windows are only added up.
    fn freeze(&mut self) {
        let running = std::iter::once(1)
            .chain(partition::candidate_threads(self.lps()))
            .map(|k| {
                let mut r = partition::Running::new(lpt_partition(&self.lp_total, k), k);
                r.replay(&self.entries, &self.window_ends);
                r
            })
            .collect();
        self.frozen = Some(running);
        self.windows_before_freeze = self.window_ends.len() as u64;
        self.entries = Vec::new();
        self.window_ends = Vec::new();
    }

    /// Whether the partitions were fixed before the run's end (from the first
    /// `windows_before_freeze` windows' work).
    pub fn frozen_after(&self) -> Option<u64> {
        self.frozen.as_ref().map(|_| self.windows_before_freeze)
    }
}
