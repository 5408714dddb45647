//! The barrier that ends a window when logical processes run on several threads, and the
//! micro-benchmark of one round of it on this machine (`measure`), which `--parallel-report`
//! uses for its with-barrier estimate. Spin, then park: a window on a busy world is microseconds
//! long, shorter than a park and wake-up through the kernel, so a waiter first spins; a thread
//! whose partner lost its core (a machine with more runnable threads than cores) parks on a
//! condition variable instead of burning the core the partner needs. `measure` times
//! `std::sync::Barrier` (a mutex and a condition variable: always park) beside it.

// Under `--cfg loom` the barrier is built on loom's primitives, whose model checker runs every
// interleaving of the threads that use it (`tests/loom.rs`).
#[cfg(loom)]
use loom::{
    hint::spin_loop,
    thread::yield_now,
    sync::atomic::{AtomicUsize, Ordering},
    sync::{Condvar, Mutex},
};
#[cfg(not(loom))]
use std::{
    hint::spin_loop,
    thread::yield_now,
    sync::atomic::{AtomicUsize, Ordering},
    sync::{Condvar, Mutex},
    time::Instant,
};

/// Spins before a waiter parks: up to ~0.5 ms (16,384 `spin_loop` hints, x86 PAUSE). A thread of a
/// threaded run waits at the barrier for the other's part of the window, tens to hundreds of µs
/// when the parts are uneven; parking and being woken through the kernel cost tens of µs more on
/// this VM, so spinning that long paid (GFC1 on two threads: 0.14–0.16 s with 128 spins, 0.129–0.135
/// s with 16,384; docs/benchmarks.md, "Threads"). Under loom, two: each spin is a yield to the model.
const SPINS: u32 = if cfg!(loom) { 2 } else { 1 << 14 };

/// Yields before a waiter parks when there are more threads than cores. A spinning waiter there
/// holds the core the last thread to arrive needs, and parking costs a wake-up the scheduler is
/// slow to grant: 3 threads on this 2-core machine, in a TCP world of 4,500 barrier rounds, took
/// 12.9 s spinning and 2.3 s parking at once, against 0.26 s on 2 threads.
const YIELDS: u32 = if cfg!(loom) { 2 } else { 1 << 10 };

/// A reusable barrier for `n` threads: a counter of arrivals and a generation the last arrival
/// advances. Waiters spin on the generation, then park until it changes. The generation changes
/// under the lock that parked waiters check it under, so a waiter about to park either sees the new
/// generation or is counted in `sleepers` and woken: no wake-up is lost, with no reliance on the
/// order of sequentially consistent operations on two variables (which loom does not model).
pub struct SpinBarrier {
    n: usize,
    /// More threads than cores: a waiter yields its core instead of spinning (a spinning one
    /// would hold the core the last thread to arrive needs), `YIELDS` times, then parks.
    oversubscribed: bool,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    /// Waiters parked or about to park, under the lock.
    sleepers: Mutex<usize>,
    wake: Condvar,
}

impl SpinBarrier {
    pub fn new(n: usize) -> Self {
        #[cfg(not(loom))]
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        #[cfg(loom)]
        let cores = usize::MAX;
        SpinBarrier {
            n: n.max(1),
            oversubscribed: n > cores,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            sleepers: Mutex::new(0),
            wake: Condvar::new(),
        }
    }

    /// Returns once all `n` threads have called it (this round).
    pub fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            // The others wait for the generation to change and touch `arrived` only after.
            self.arrived.store(0, Ordering::Relaxed);
            let sleepers = self.sleepers.lock().unwrap_or_else(|e| e.into_inner());
            self.generation.fetch_add(1, Ordering::Release);
            let parked = *sleepers > 0;
            drop(sleepers);
            if parked {
                self.wake.notify_all();
            }
            return;
        }
        let (tries, relax): (u32, fn()) = if self.oversubscribed { (YIELDS, yield_now) } else { (SPINS, spin_loop) };
        for _ in 0..tries {
            if self.generation.load(Ordering::Acquire) != generation {
                return;
            }
            relax();
        }
        let mut sleepers = self.sleepers.lock().unwrap_or_else(|e| e.into_inner());
        *sleepers += 1;
        while self.generation.load(Ordering::Acquire) == generation {
            sleepers = self.wake.wait(sleepers).unwrap_or_else(|e| e.into_inner());
        }
        *sleepers -= 1;
    }
}

/// Batches `measure` splits its rounds into; it reports the median batch.
#[cfg(not(loom))]
const BATCHES: u32 = 5;

/// Nanoseconds per round of two threads meeting at a barrier, for the spin-then-park barrier above and for
/// `std::sync::Barrier`: `rounds` rounds each, in `BATCHES` batches, the median batch's mean (a
/// batch in which the other thread lost its core to another process counts only as one of five;
/// each batch's time includes spawning its second thread, a few ns a round). A micro-benchmark:
/// its value depends on the machine and its load (docs/benchmarks.md), never asserted.
#[cfg(not(loom))]
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
#[cfg(not(loom))]
fn time_rounds<B: Sync>(rounds: u32, barrier: B, wait: impl Fn(&B) + Sync) -> f64 {
    let t = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| (0..rounds).for_each(|_| wait(&barrier)));
        (0..rounds).for_each(|_| wait(&barrier));
    });
    t.elapsed().as_nanos() as f64 / rounds as f64
}

#[cfg(all(test, not(loom)))]
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
