//! Logical processes of the windowed mode: which nodes run together from one queue
//! (docs/DESIGN.md §2, "As built — logical processes"). A window is as long as the shortest link
//! *between* logical processes; a link inside one is crossed by events in its queue, as in the
//! single queue. Any grouping gives the same results; the grouping only decides how long windows
//! are and how much of the world one queue holds.
//!
//! Owns the choice of the grouping (`choose_groups`), the check of a grouping given from outside
//! (`check_groups`) and the lookahead a grouping allows; `windows.rs` runs the groups.

use super::windows::MIN_WINDOW;
use super::World;
use ccsim_engine::SimDuration;

/// A grouping: per node, the index of its logical process (dense, from 0), and how many there are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Groups {
    pub node_lp: Vec<u32>,
    pub count: usize,
}

impl Groups {
    /// One logical process per node (the grouping of a world whose links are all long enough).
    pub fn per_node(nodes: usize) -> Self {
        Groups { node_lp: (0..nodes as u32).collect(), count: nodes }
    }

    /// The grouping of `node_lp`'s labels, renumbered densely in order of first appearance.
    pub fn of_labels(labels: &[u32]) -> Self {
        let mut map = std::collections::HashMap::new();
        let node_lp = labels
            .iter()
            .map(|l| {
                let next = map.len() as u32;
                *map.entry(*l).or_insert(next)
            })
            .collect();
        Groups { node_lp, count: map.len() }
    }
}

/// Union-find over `0..n` (path halving, union by index: the smaller root wins, so labels do not
/// depend on the order of the unions): nodes into logical processes here, processes into the
/// units threads keep together (`threads.rs`).
pub(in crate::world) struct UnionFind(Vec<u32>);

impl UnionFind {
    pub(in crate::world) fn new(n: usize) -> Self {
        UnionFind((0..n as u32).collect())
    }

    /// The sets as a grouping (dense labels in order of first appearance).
    pub(in crate::world) fn groups(mut self) -> Groups {
        let labels: Vec<u32> = (0..self.0.len() as u32).map(|i| self.find(i)).collect();
        Groups::of_labels(&labels)
    }

    fn find(&mut self, mut i: u32) -> u32 {
        while self.0[i as usize] != i {
            let up = self.0[self.0[i as usize] as usize];
            self.0[i as usize] = up;
            i = up;
        }
        i
    }

    pub(in crate::world) fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        let (lo, hi) = (a.min(b), a.max(b));
        self.0[hi as usize] = lo;
    }
}

impl World {
    /// The grouping the windowed mode uses when it is not given one: nodes joined by a link
    /// shorter than `MIN_WINDOW` run as one logical process (a host with its switch over a 1 km
    /// access link, say), the fewest merges that give windows of at least `MIN_WINDOW` (merging
    /// longer links too would lengthen windows but leave fewer processes to run apart, and change
    /// the grouping of worlds whose links are all long enough: those keep one process per node).
    /// `None` when merges would swallow the world: a single process, or one holding more
    /// than half of the world's ports (a port's departures and arrivals are most of the work: a
    /// process with more than half of it leaves two threads nothing to balance).
    pub fn choose_groups(&self) -> Option<Groups> {
        let mut uf = UnionFind::new(self.nodes.len());
        for p in self.ports.iter().filter(|p| p.delay < MIN_WINDOW) {
            uf.union(p.from.0, p.to.0);
        }
        let groups = uf.groups();
        if groups.count == self.nodes.len() {
            // No link is that short: one process per node, as ever.
            return Some(groups);
        }
        if groups.count < 2 {
            return None;
        }
        let mut ports = vec![0usize; groups.count];
        for p in &self.ports {
            ports[groups.node_lp[p.from.index()] as usize] += 1;
        }
        (ports.iter().max().copied().unwrap_or(0) * 2 <= self.ports.len()).then_some(groups)
    }

    /// Why `groups` cannot be this world's grouping, if it cannot: one label per node, and no
    /// link without delay between two processes (a window would be empty).
    pub fn check_groups(&self, groups: &Groups) -> Result<(), String> {
        if groups.node_lp.len() != self.nodes.len() {
            return Err(format!("a grouping of {} nodes for a world of {}", groups.node_lp.len(), self.nodes.len()));
        }
        if groups.node_lp.iter().any(|&l| l as usize >= groups.count) {
            return Err("a logical process index past the count".into());
        }
        if self.lookahead_of(&groups.node_lp).is_zero() {
            return Err("a link between two logical processes has no propagation delay: windows would be empty".into());
        }
        Ok(())
    }

    /// The longest window grouping `node_lp` allows: the shortest delay of a link between two of
    /// its processes (`SimDuration::MAX` if none: one process).
    pub(in crate::world) fn lookahead_of(&self, node_lp: &[u32]) -> SimDuration {
        self.ports
            .iter()
            .filter(|p| node_lp[p.from.index()] != node_lp[p.to.index()])
            .map(|p| p.delay)
            .min()
            .unwrap_or(SimDuration::MAX)
    }

    /// The grouping the windowed mode runs (one process per node in the single queue's mode,
    /// where it is unused).
    pub fn groups(&self) -> Groups {
        Groups::of_labels(&self.node_lp)
    }

    /// The windowed mode's window length: the shortest link between logical processes.
    pub fn lookahead(&self) -> SimDuration {
        self.lookahead
    }
}
