//! The merged mode: one event queue, as in the single-queue loop, with the arrivals over the
//! world's forward pipes taken in order from one tournament over their heads (`run_node`'s, as a
//! windowed node takes its own) instead of being queue events: each arrival replays one
//! leaf-to-root path of the tree (⌈log2 k⌉ comparisons for k pipes) where an event costs a push
//! and a pop in a heap of every pending event (docs/DESIGN.md §2). Worlds whose links are too
//! short for windows (Two Sources' 5 µs LAN) or that must run from one queue (FICCRD's edges,
//! HG-RCP's gateways, credit-controlled hops) run this way.
//!
//! Results are identical to the plain queue's (`merged_and_single_queue_runs_agree`): the
//! tournament's keys order the arrivals as the queue orders their events, and the loop runs each
//! where the queue would have. Unlike in windows, a cell may reach a pipe's far end in the window
//! it was sent in: a handler that gives an empty pipe a head cell leaves the pipe in
//! `fresh_heads` (`World::schedule`), and the tournament takes it in before it looks at its root
//! again. Windows only bound the tournament's 64-bit keys (`TournamentLayout::max_span`).
//!
//! Owns nothing but the loop over those windows.

use super::World;
use ccsim_engine::{SimDuration, SimTime};

impl World {
    /// Merged mode: every event up to and including `until`.
    pub(in crate::world) fn run_merged(&mut self, until: SimTime) {
        // The key just after every event at `until`.
        let end = (until + SimDuration::from_ps(1), 0);
        loop {
            let start = self.now;
            let bound = (start + self.layout.max_span(), 0).min(end);
            self.run_node_with_layout::<true>(0, start, bound);
            if bound == end {
                return;
            }
            self.now = bound.0;
        }
    }
}
