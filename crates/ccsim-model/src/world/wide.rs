//! Wide nodes in windowed mode: a node fed by more pipes than a window's tournament holds
//! (`windows.rs`, 1,024: a switch with thousands of access links) keeps one tournament over all
//! of them from window to window, with absolute 128-bit keys, instead of a window's tournament
//! over the first 1,024 and an arrival event per cell for the rest. Results are identical.
//!
//! Owns the wide nodes' tournaments, their keys and their pending new heads; the loop that
//! interleaves a node's arrivals with its queue is `windows.rs`'s (`World::interleave`).

use super::event::shuffle;
use super::windows::{rebuild, replay, ArrivalKeys};
use super::World;
use crate::ids::PortId;
use ccsim_engine::SimTime;

/// A wide node's tournament key: the arrival's time (picoseconds) in the high 64 bits, the 24-bit
/// hash of a `PipeArrival`'s tie at that time above bit 32, the leaf (the pipe's place among the
/// node's inputs, in port order) in the low 32 bits. Absolute times: the tournament is kept
/// between windows, a leaf changing only when its pipe's head does.
pub(in crate::world) type WideKey = u128;

/// A leaf whose pipe is empty (above every real key).
pub(in crate::world) const NO_WIDE_ARRIVAL: WideKey = WideKey::MAX;

/// A key's leaf: its pipe's place among the node's inputs.
#[inline(always)]
fn wide_leaf(key: WideKey) -> usize {
    (key & 0xffff_ffff) as usize
}

/// The key of an arrival at `arrival` (none: the pipe is empty) over pipe `p`, leaf `leaf`: among
/// one node's arrivals the queue's order (time, then the tie: its hash, then the port).
#[inline]
pub(in crate::world) fn wide_key(arrival: Option<SimTime>, p: PortId, leaf: usize) -> WideKey {
    let Some(arrival) = arrival else { return NO_WIDE_ARRIVAL };
    let t = arrival.as_ps();
    (t as WideKey) << 64 | (shuffle(t, p.0 as u64 & 0xff_ffff) as WideKey) << 32 | leaf as WideKey
}

/// The keys of arrivals that certainly come before the event at queue key `key` are below the
/// result; one that agrees with it above the leaf bits (same time, same hash: another arrival,
/// over a pipe outside the tournament) needs the full comparison. Arrivals rank first among
/// simultaneous events, so after any other kind of event at the same time come all of them;
/// before a window's end (time, tie 0) only those before its time.
#[inline]
pub(in crate::world) fn wide_before(key: (SimTime, u64)) -> WideKey {
    let t = key.0.as_ps() as WideKey;
    if key.0 == SimTime::MAX {
        NO_WIDE_ARRIVAL
    } else if key.1 >> 56 > 0 {
        (t + 1) << 64
    } else {
        t << 64 | ((key.1 >> 32 & 0xff_ffff) as WideKey) << 32
    }
}

/// A wide node's keys for `World::interleave`: arrivals before `window` (`wide_before` of the
/// window's end) are the window's.
#[derive(Clone, Copy)]
struct WideKeys {
    window: WideKey,
}

impl ArrivalKeys for WideKeys {
    type Key = WideKey;
    const NONE: WideKey = NO_WIDE_ARRIVAL;
    const TOUCH_NEXT_HEAD: bool = true;
    #[inline(always)]
    fn in_window(self, key: WideKey) -> bool {
        key < self.window
    }
    #[inline(always)]
    fn clip(self, bound: WideKey) -> WideKey {
        bound.min(self.window)
    }
    #[inline(always)]
    fn before(self, q: (SimTime, u64)) -> WideKey {
        wide_before(q)
    }
    #[inline(always)]
    fn same_tie(self, key: WideKey, bound: WideKey) -> bool {
        key >> 32 == bound >> 32
    }
    #[inline(always)]
    fn leaf(self, key: WideKey) -> usize {
        wide_leaf(key)
    }
    #[inline(always)]
    fn time(self, key: WideKey) -> SimTime {
        SimTime::from_ps((key >> 64) as u64)
    }
    #[inline(always)]
    fn key(self, arrival: Option<SimTime>, p: PortId, leaf: usize) -> WideKey {
        wide_key(arrival, p, leaf)
    }
}

impl World {
    /// Windowed mode: wide node `lp` runs its events before `bound`, as `run_node` runs a node's,
    /// its arrivals from its kept tournament.
    pub(in crate::world) fn run_wide_node(&mut self, lp: usize, bound: (SimTime, u64)) {
        // Its inputs are links from other logical processes: nothing this process does changes
        // its own tournament but its arrivals, handled here.
        let inputs = std::mem::take(&mut self.node_inputs[lp]);
        let mut tree = std::mem::take(&mut self.wide_trees[lp]);
        self.take_new_heads(lp, &mut tree);
        self.interleave(lp, WideKeys { window: wide_before(bound) }, &mut tree, &inputs, bound);
        self.bound = bound;
        self.wide_trees[lp] = tree;
        self.node_inputs[lp] = inputs;
        debug_assert!(self.wide_tree_is_current(lp));
    }

    /// A cell entered pipe `p` of a wide node while it was empty (`schedule`'s `PipeArrival`): it
    /// is the pipe's head, arriving at `arrival`, after the window being run (links are at least
    /// one window long). Its key waits for the node's next run (`take_new_heads`), when the
    /// node's tournament is in the caches.
    #[inline]
    pub(in crate::world) fn wide_head(&mut self, p: PortId, arrival: SimTime) {
        debug_assert!(arrival >= self.bound.0);
        let lp = self.node_lp[self.ports[p.index()].to.index()] as usize;
        let leaf = self.input_leaf[p.index()] as usize;
        self.new_heads[lp].push(wide_key(Some(arrival), p, leaf));
    }

    /// The pipes of wide node `lp` that got a new head since it last ran take their keys in its
    /// tournament `tree`: a replay each or, when there are more of them than that pays for, the
    /// whole tree rebuilt from its leaves (a window then costs the lesser of the two).
    fn take_new_heads(&mut self, lp: usize, tree: &mut [WideKey]) {
        let heads = &mut self.new_heads[lp];
        let size = tree.len() / 2;
        if heads.len() * (size.trailing_zeros() as usize + 1) <= size {
            for &key in heads.iter() {
                replay(tree, wide_leaf(key), key);
            }
        } else {
            for &key in heads.iter() {
                tree[size + wide_leaf(key)] = key;
            }
            rebuild(tree);
        }
        heads.clear();
    }

    /// A wide tournament over node `lp`'s pipes' heads now (`index_inputs`).
    pub(in crate::world) fn build_wide_tree(&self, lp: usize) -> Vec<WideKey> {
        let inputs = &self.node_inputs[lp];
        let mut tree = vec![NO_WIDE_ARRIVAL; 2 * inputs.len().next_power_of_two()];
        let size = tree.len() / 2;
        for (j, &p) in inputs.iter().enumerate() {
            tree[size + j] = wide_key(self.ports[p.index()].pipe.front().map(|f| f.arrival), p, j);
        }
        rebuild(&mut tree);
        tree
    }

    /// Whether wide node `lp`'s tournament holds its pipes' heads (debug builds check it after
    /// each of its windows).
    fn wide_tree_is_current(&self, lp: usize) -> bool {
        self.new_heads[lp].is_empty() && self.wide_trees[lp] == self.build_wide_tree(lp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Event;
    use ccsim_engine::IntrinsicOrder;

    /// A tournament's root is the least of its leaves after any sequence of replays, and keys
    /// order arrivals by time, then their tie's hash, then leaf; `wide_before` splits them where
    /// the queue's order does.
    #[test]
    fn wide_tournaments_keep_the_least_key_at_the_root() {
        let mut rng = ccsim_engine::RngStream::new(ccsim_engine::StreamKey { seed: 3, replication: 0, component: 0, purpose: 0 });
        for inputs in [1usize, 2, 3, 5, 8, 100, 1000] {
            let mut tree = vec![NO_WIDE_ARRIVAL; 2 * inputs.next_power_of_two()];
            let mut leaves = vec![NO_WIDE_ARRIVAL; inputs];
            for _ in 0..2000 {
                let j = (rng.uniform() * inputs as f64) as usize % inputs;
                let at = SimTime::from_ps((rng.uniform() * 1e6) as u64);
                let key = if rng.uniform() < 0.2 { NO_WIDE_ARRIVAL } else { wide_key(Some(at), PortId(j as u32), j) };
                leaves[j] = key;
                replay(&mut tree, j, key);
                assert_eq!(tree[1], *leaves.iter().min().unwrap(), "{inputs} inputs");
            }
        }
        let t = SimTime::from_ps(5_000);
        let a = wide_key(Some(t), PortId(7), 3);
        assert!(a < wide_key(Some(SimTime::from_ps(5_001)), PortId(0), 0));
        let keys = WideKeys { window: NO_WIDE_ARRIVAL };
        assert_eq!((keys.time(a), keys.leaf(a)), (t, 3));
        // A window ending at `t` (tie 0) excludes the arrival at `t`; an observer at `t` does not.
        assert!(a >= wide_before((t, 0)));
        assert!(a < wide_before((t, Event::Sample.tie(t))));
        assert_eq!(wide_before((SimTime::MAX, 0)), NO_WIDE_ARRIVAL);
    }
}
