//! Loom model checks of what a threaded run's threads share (`make loom`: `RUSTFLAGS="--cfg loom"
//! cargo test -p ccsim-model --test loom --release`): the barrier that ends each step and the slots
//! in which thread 0 announces the next (`ccsim_model::parallel`). Loom runs every interleaving of
//! the threads (up to its preemption bound) on its own atomics, mutexes and condition variables.
#![cfg(loom)]

use ccsim_model::parallel::barrier::SpinBarrier;
use ccsim_model::parallel::steps::Announcements;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(3);
    b.check(f);
}

/// No thread leaves round r of the barrier before every thread has arrived at it.
#[test]
fn the_barrier_keeps_threads_in_lockstep() {
    model(|| {
        let barrier = Arc::new(SpinBarrier::new(2));
        let arrived = Arc::new(AtomicUsize::new(0));
        let other = {
            let (barrier, arrived) = (barrier.clone(), arrived.clone());
            thread::spawn(move || {
                for r in 0..2 {
                    arrived.fetch_add(1, Ordering::SeqCst);
                    barrier.wait();
                    assert!(arrived.load(Ordering::SeqCst) >= 2 * (r + 1));
                }
            })
        };
        for r in 0..2 {
            arrived.fetch_add(1, Ordering::SeqCst);
            barrier.wait();
            assert!(arrived.load(Ordering::SeqCst) >= 2 * (r + 1));
        }
        other.join().unwrap();
    });
}

/// Thread 0 announces step i + 1 before the barrier that ends step i; the other thread reads each
/// step after the barrier before it and sees every step, in order, never a later one.
#[test]
fn every_thread_reads_each_announced_step() {
    const STEPS: usize = 3;
    model(|| {
        let barrier = Arc::new(SpinBarrier::new(2));
        let steps = Arc::new(Announcements::new(usize::MAX));
        let other = {
            let (barrier, steps) = (barrier.clone(), steps.clone());
            thread::spawn(move || {
                let mut seen = Vec::new();
                barrier.wait();
                for i in 0..STEPS {
                    seen.push(steps.read(i));
                    barrier.wait();
                }
                seen
            })
        };
        steps.publish(0, 0);
        barrier.wait();
        for i in 0..STEPS {
            if i + 1 < STEPS {
                steps.publish(i + 1, i + 1);
            }
            barrier.wait();
        }
        assert_eq!(other.join().unwrap(), (0..STEPS).collect::<Vec<_>>());
    });
}
