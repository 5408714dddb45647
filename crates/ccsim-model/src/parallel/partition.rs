//! The static partition of logical processes onto threads and the speed-up it predicts from a
//! run's work counts (`WorkCounts`). Owns LPT (longest processing time first) and the two
//! estimates: work only, and with a barrier cost per window.
//!
//! With `k` threads and one barrier per window, a window takes as long as its busiest thread:
//! the run's critical path is the sum over windows of the largest thread load, plus the serial
//! events between windows. Work-only speed-up = total work / critical path (1 for one thread,
//! never above `k`). With a barrier: one-thread time = total × ns per event; `k`-thread time =
//! critical path × ns per event + windows × barrier(k), where barrier(k) = the measured
//! two-thread round × ⌈log2 k⌉ [RECON] (a tree or dissemination barrier takes ⌈log2 k⌉ rounds
//! of the pairwise hand-off this machine can measure; a central counter would grow faster).

use super::{WorkCounts, THREADS};

/// Per LP, its thread among `k`: LPT, deterministic. LPs in order of total work, largest first
/// (ties by index), each onto the thread with the least load so far (ties: the lowest index).
/// LPT is within 4/3 of the best makespan of the totals (Graham 1969).
pub fn lpt_partition(totals: &[u64], k: usize) -> Vec<u32> {
    let k = k.max(1);
    let mut order: Vec<usize> = (0..totals.len()).collect();
    order.sort_by(|&a, &b| totals[b].cmp(&totals[a]).then(a.cmp(&b)));
    let mut load = vec![0u64; k];
    let mut thread_of = vec![0u32; totals.len()];
    for lp in order {
        let t = (0..k).min_by_key(|&t| (load[t], t)).expect("k >= 1");
        load[t] += totals[lp];
        thread_of[lp] = t as u32;
    }
    thread_of
}

/// The thread counts reported for a world of `lps` LPs: `THREADS` capped at `lps`, without
/// repeats.
pub fn candidate_threads(lps: usize) -> Vec<usize> {
    let mut ks: Vec<usize> = THREADS.iter().map(|&k| k.min(lps.max(1))).collect();
    ks.dedup();
    ks
}

/// One partition's sum of each window's largest thread load, added up window by window.
#[derive(Clone, Debug)]
pub(crate) struct Running {
    pub(crate) k: usize,
    pub(crate) thread_of: Vec<u32>,
    load: Vec<u64>,
    /// Threads with load in the current window (cleared at its end).
    touched: Vec<u32>,
    pub(crate) sum_max: u64,
}

impl Running {
    pub(crate) fn new(thread_of: Vec<u32>, k: usize) -> Self {
        Running { k, thread_of, load: vec![0; k], touched: Vec::new(), sum_max: 0 }
    }

    #[inline]
    pub(crate) fn add(&mut self, lp: usize, events: u64) {
        let t = self.thread_of[lp] as usize;
        if self.load[t] == 0 {
            self.touched.push(t as u32);
        }
        self.load[t] += events;
    }

    pub(crate) fn close_window(&mut self) {
        let mut max = 0;
        for &t in &self.touched {
            max = max.max(self.load[t as usize]);
            self.load[t as usize] = 0;
        }
        self.touched.clear();
        self.sum_max += max;
    }

    /// The recorded windows (`entries` cut at `window_ends`) added up.
    pub(crate) fn replay(&mut self, entries: &[(u32, u32)], window_ends: &[u32]) {
        let mut start = 0;
        for &end in window_ends {
            for &(lp, n) in &entries[start..end as usize] {
                self.add(lp as usize, n as u64);
            }
            self.close_window();
            start = end as usize;
        }
    }
}

/// What `k` threads would give.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadsReport {
    /// Threads asked for, and used (at most the LPs).
    pub threads: usize,
    pub threads_used: usize,
    /// Per thread, the events of its LPs over the run.
    pub loads: Vec<u64>,
    /// Σ over windows of the busiest thread's events, plus the serial events.
    pub critical_events: u64,
    /// total / critical path.
    pub speedup_work: f64,
    /// With the run's ns per event and a barrier per window (module header).
    pub speedup_with_barrier: f64,
}

/// A run's report: the work and, per thread count, the prediction.
#[derive(Clone, Debug, PartialEq)]
pub struct ParallelReport {
    pub lps: usize,
    pub windows: u64,
    pub total_events: u64,
    pub serial_events: u64,
    /// The partitions were fixed from the work of this many first windows (memory cap), if not
    /// from the whole run's.
    pub partition_from_windows: Option<u64>,
    pub ns_per_event: f64,
    pub barrier_ns_2_threads: f64,
    pub threads: Vec<ThreadsReport>,
}

/// The barrier cost assumed for `k` threads from the measured two-thread round (module header).
pub fn barrier_ns(k: usize, two_thread_ns: f64) -> f64 {
    if k <= 1 {
        0.0
    } else {
        two_thread_ns * (usize::BITS - (k - 1).leading_zeros()) as f64
    }
}

impl WorkCounts {
    /// The prediction for `ks` threads (each capped at the LPs; 1 and `THREADS`), from the counts, the run's
    /// measured ns per event and one barrier round on two threads (`barrier::measure`).
    pub fn report(&self, ks: &[usize], ns_per_event: f64, barrier_two_ns: f64) -> ParallelReport {
        let total = self.total();
        let threads = ks
            .iter()
            .map(|&k| {
                let used = k.clamp(1, self.lps().max(1));
                let running = match &self.frozen {
                    Some(rs) => rs.iter().find(|r| r.k == used).cloned().unwrap_or_else(|| self.replayed(used)),
                    None => self.replayed(used),
                };
                let mut loads = vec![0u64; used];
                for (lp, &n) in self.lp_total.iter().enumerate() {
                    loads[running.thread_of[lp] as usize] += n;
                }
                let critical = running.sum_max + self.serial;
                let speedup_work = if critical == 0 { 1.0 } else { total as f64 / critical as f64 };
                let one = total as f64 * ns_per_event;
                let many = critical as f64 * ns_per_event + self.windows as f64 * barrier_ns(used, barrier_two_ns);
                let speedup_with_barrier = if used == 1 || many <= 0.0 { 1.0 } else { one / many };
                ThreadsReport { threads: k, threads_used: used, loads, critical_events: critical, speedup_work, speedup_with_barrier }
            })
            .collect();
        ParallelReport {
            lps: self.lps(),
            windows: self.windows,
            total_events: total,
            serial_events: self.serial,
            partition_from_windows: self.frozen_after(),
            ns_per_event,
            barrier_ns_2_threads: barrier_two_ns,
            threads,
        }
    }

    /// The partition for `k` threads from the whole run's totals, its recorded windows added up.
    /// Once the partitions are fixed (`freeze`) there are no windows left to add up: those
    /// cover 1 and every count of `candidate_threads`, the only ones `report` is asked for.
    fn replayed(&self, k: usize) -> Running {
        let mut r = Running::new(lpt_partition(&self.lp_total, k), k);
        assert!(self.frozen.is_none(), "thread count {k}: not one of the fixed partitions' (1 and `candidate_threads`)");
        r.replay(&self.entries, &self.window_ends);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::DEFAULT_CAP;

    fn counts(windows: &[&[(u32, u32)]], lps: usize, cap: usize) -> WorkCounts {
        let mut c = WorkCounts::new(lps, cap);
        for w in windows {
            for &(lp, n) in *w {
                c.add(lp as usize, n as u64);
            }
            c.close_window();
        }
        c
    }

    #[test]
    fn lpt_is_deterministic_and_balanced() {
        // Largest first: 7 → 0, 6 → 1, 5 → 1 (6 < 7), 4 → 0 (7 < 11), 3 (LP 0) → 0 (a tie at 11:
        // the lower index), 3 (LP 3) → 1: 14 and 14.
        let totals = [3, 7, 5, 3, 6, 4];
        let p = lpt_partition(&totals, 2);
        assert_eq!(p, lpt_partition(&totals, 2));
        assert_eq!(p, vec![0, 0, 1, 1, 1, 0]);
        let mut load = [0u64; 2];
        for (lp, &t) in p.iter().enumerate() {
            load[t as usize] += totals[lp];
        }
        assert_eq!(load, [14, 14]);
        // One thread takes everything; more threads than LPs leave the extra ones empty.
        assert!(lpt_partition(&totals, 1).iter().all(|&t| t == 0));
        let mut wide = lpt_partition(&totals, 8);
        wide.sort();
        assert_eq!(wide, vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn two_identical_independent_chains_give_two() {
        // Two LPs with the same work in every window: 2 threads halve every window.
        let w: &[(u32, u32)] = &[(0, 10), (1, 10)];
        let c = counts(&[w, w, w], 2, DEFAULT_CAP);
        let r = c.report(&[1, 2, 4], 100.0, 0.0);
        assert_eq!(r.threads[0].speedup_work, 1.0);
        assert_eq!(r.threads[1].speedup_work, 2.0);
        assert_eq!((r.threads[2].threads, r.threads[2].threads_used, r.threads[2].speedup_work), (4, 2, 2.0));
        assert_eq!(r.threads[1].loads, vec![30, 30]);
        // A barrier of 1,000 ns per window against 2 × 10 events of 100 ns: 6,000 / (3 × 1,000 + 3,000).
        let b = c.report(&[2], 100.0, 1000.0);
        assert_eq!(b.threads[0].speedup_with_barrier, 1.0);
    }

    #[test]
    fn windows_bound_the_speedup_below_the_balance_of_totals() {
        // Balanced totals (20 each) but the work alternates: each window has one busy LP, so
        // threads cannot overlap: speed-up 1 whatever k. Serial events count on both sides.
        let c = counts(&[&[(0, 10)], &[(1, 10)], &[(0, 10)], &[(1, 10)]], 2, DEFAULT_CAP);
        assert_eq!(c.report(&[2], 1.0, 0.0).threads[0].speedup_work, 1.0);
        let mut c = counts(&[&[(0, 6), (1, 2), (2, 2)], &[(0, 2), (1, 3), (2, 5)]], 3, DEFAULT_CAP);
        c.add_serial();
        c.add_serial();
        // Totals 8, 5, 7 → 2 threads: {0}, {2, 1}; windows' maxima 6 and 8; total 22, critical 16.
        let r = c.report(&[1, 2, 3, 8], 1.0, 0.0);
        assert_eq!(r.threads[1].loads, vec![8, 12]);
        assert_eq!(r.threads[1].critical_events, 16);
        assert_eq!(r.threads[1].speedup_work, 22.0 / 16.0);
        for t in &r.threads {
            assert!(t.speedup_work >= 1.0 && t.speedup_work <= t.threads_used as f64, "{t:?}");
        }
        assert_eq!(r.threads[0].speedup_work, 1.0);
    }

    #[test]
    fn a_capped_record_fixes_the_partition_early_and_adds_up_the_same() {
        // Steady work: the first window's totals give the whole run's partition, so fixing it
        // after one window (cap 1 entry) changes nothing.
        let w: &[(u32, u32)] = &[(0, 9), (1, 5), (2, 4), (3, 1)];
        let windows = [w; 6];
        let full = counts(&windows, 4, DEFAULT_CAP);
        let capped = counts(&windows, 4, 1);
        assert_eq!(capped.frozen_after(), Some(1));
        assert!(capped.entries.is_empty());
        let ks = candidate_threads(4);
        assert_eq!(ks, vec![2, 4]);
        let (a, b) = (full.report(&ks, 1.0, 0.0), capped.report(&ks, 1.0, 0.0));
        assert_eq!(a.threads, b.threads);
        // 9 → thread 0, 5 and 4 → thread 1, 1 → thread 0 (a tie at 9): 10 and 9 a window.
        assert_eq!(a.threads[0].loads, vec![60, 54]);
        assert_eq!(a.threads[0].speedup_work, 114.0 / 60.0);
    }

    #[test]
    fn barrier_cost_grows_with_the_rounds_of_a_tree() {
        assert_eq!(barrier_ns(1, 500.0), 0.0);
        assert_eq!((barrier_ns(2, 500.0), barrier_ns(4, 500.0), barrier_ns(5, 500.0), barrier_ns(64, 500.0)), (500.0, 1000.0, 1500.0, 3000.0));
    }
}
