//! The steps thread 0 announces to the others in a threaded run (`world/threads.rs`): step `i` in
//! slot `i % 2`. Thread 0 writes step `i + 1` before the barrier that ends step `i`; every thread
//! reads it after that barrier. Thread 0 writes step `i + 3` in the same slot only after the
//! barrier that ends step `i + 1`, which every thread reaches after reading step `i + 1`: a slot is
//! never written while a thread may still read it. Loom checks this with the barrier
//! (`tests/loom.rs`).

#[cfg(loom)]
use loom::sync::Mutex;
#[cfg(not(loom))]
use std::sync::Mutex;

pub struct Announcements<T: Copy> {
    slots: [Mutex<T>; 2],
}

impl<T: Copy> Announcements<T> {
    /// Both slots hold `first` until written.
    pub fn new(first: T) -> Self {
        Announcements { slots: [Mutex::new(first), Mutex::new(first)] }
    }

    /// Thread 0: step `i` is `step` (before the barrier that ends step `i - 1`).
    pub fn publish(&self, i: usize, step: T) {
        *self.slots[i % 2].lock().unwrap_or_else(|e| e.into_inner()) = step;
    }

    /// Every thread: step `i` (after the barrier that ends step `i - 1`).
    pub fn read(&self, i: usize) -> T {
        *self.slots[i % 2].lock().unwrap_or_else(|e| e.into_inner())
    }
}
