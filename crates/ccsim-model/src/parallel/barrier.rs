//! The barrier that ends a window when logical processes run on several threads, and the
//! micro-benchmark of one round of it on this machine (`measure`), which `--parallel-report`
//! uses for its with-barrier estimate. Spin, then park: a window on a busy world is microseconds
//! long, shorter than a park and wake-up through the kernel, so a waiter first spins; a thread
//! whose partner lost its core (a machine with more runnable threads than cores) parks on a
//! condition variable instead of burning the core the partner needs. `measure` times
//! `std::sync::Barrier` (a mutex and a condition variable: always park) beside it.

use std::hint::spin_loop;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

/// Spins before a waiter parks: ~3 µs (a `spin_loop` hint, x86 PAUSE, takes tens of cycles on
/// recent cores; 1,024 of them measured 14 µs a round here against 5 µs for always parking).
const SPINS: u32 = 1 << 14;

/// A reusable barrier for `n` threads: a counter of arrivals and a generation the last arrival
/// advances. Waiters spin on the generation, then park until it changes.
pub struct SpinBarrier {
    n: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    /// Waiters parked or about to park: the last arrival wakes them only if there are any.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

impl SpinBarrier {
    pub fn new(n: usize) -> Self {
        SpinBarrier {
            n: n.max(1),
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    /// Returns once all `n` threads have called it (this round).
    pub fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            // The others wait for the generation to change and touch `arrived` only after.
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::SeqCst);
            // A waiter counts itself in `sleepers` before it checks the generation under the
            // lock (both SeqCst): either it sees the new generation or it is counted here.
            if self.sleepers.load(Ordering::SeqCst) > 0 {
                drop(self.lock.lock().unwrap_or_else(|e| e.into_inner()));
                self.wake.notify_all();
            }
            return;
        }
        for _ in 0..SPINS {
            if self.generation.load(Ordering::Acquire) != generation {
                return;
            }
            spin_loop();
        }
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while self.generation.load(Ordering::SeqCst) == generation {
            guard = self.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
        drop(guard);
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Batches `measure` splits its rounds into; it reports the median batch.
const BATCHES: u32 = 5;

/// Nanoseconds per round of two threads meeting at a barrier, for the spin-then-park barrier above and for
/// `std::sync::Barrier`: `rounds` rounds each, in `BATCHES` batches, the median batch's mean (a
/// batch in which the other thread lost its core to another process counts only as one of five;
/// each batch's time includes spawning its second thread, a few ns a round). A micro-benchmark:
/// its value depends on the machine and its load (docs/benchmarks.md), never asserted.
pub fn measure(rounds: u32) -> (f64, f64) {
    let per_batch = (rounds / BATCHES).max(1);
    let median = |mut xs: Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        xs[xs.len() / 2]
    };
    let spin = median((0..BATCHES).map(|_| time_rounds(per_batch, SpinBarrier::new(2), |b| b.wait())).collect());
    let std_barrier = median(
        (0..BATCHES)
            .map(|_| {
                time_rounds(per_batch, std::sync::Barrier::new(2), |b| {
                    b.wait();
                })
            })
            .collect(),
    );
    (spin, std_barrier)
}

/// Mean ns per round of two threads calling `wait` on `barrier` `rounds` times each.
fn time_rounds<B: Sync>(rounds: u32, barrier: B, wait: impl Fn(&B) + Sync) -> f64 {
    let t = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| (0..rounds).for_each(|_| wait(&barrier)));
        (0..rounds).for_each(|_| wait(&barrier));
    });
    t.elapsed().as_nanos() as f64 / rounds as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// No thread passes round r before every thread has finished round r − 1's work.
    #[test]
    fn the_spin_barrier_keeps_threads_in_lockstep() {
        let n = 3;
        let rounds = 200;
        let barrier = SpinBarrier::new(n);
        let done = AtomicU64::new(0);
        std::thread::scope(|s| {
            for _ in 0..n {
                s.spawn(|| {
                    for r in 0..rounds {
                        done.fetch_add(1, Ordering::SeqCst);
                        barrier.wait();
                        assert!(done.load(Ordering::SeqCst) >= (r + 1) * n as u64);
                        barrier.wait();
                    }
                });
            }
        });
        assert_eq!(done.load(Ordering::SeqCst), rounds * n as u64);
    }
}
