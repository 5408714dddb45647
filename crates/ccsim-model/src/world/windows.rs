//! The windowed mode: one event queue per logical process (a node, or nodes joined by short
//! links: `groups.rs`), run window by window up to the shortest link delay between processes, a
//! process's arrivals over links from other processes taken in order from its pipes by a
//! tournament instead of being queue events (docs/DESIGN.md §2). Results are identical to the
//! single queue, for every grouping.
//!
//! Owns the per-node queues (and the lower bound of each one's next event), the tournament and
//! the choice of mode; it calls the same handlers as the single queue (`run.rs`) and never
//! changes what an event does.

use super::event::shuffle;
use super::groups::Groups;
use super::{Event, World};
use crate::ids::PortId;
use ccsim_engine::{ByEvent, EventQueue, IntrinsicOrder, SimDuration, SimTime};

/// `World::arrive_lp` of a pipe whose arrivals `run_node` takes in order itself (no events).
pub(in crate::world) const IN_TOURNAMENT: u32 = u32::MAX;
/// `World::arrive_lp` of a pipe into a wide node, whose kept tournament takes its arrivals
/// (`wide.rs`).
pub(in crate::world) const IN_WIDE_TOURNAMENT: u32 = u32::MAX - 1;

/// `World::arrive_lp` of a pipe whose far end runs on another thread, in the sender's copy
/// (`threads.rs`): the receiver schedules its arrivals as the cells reach its copy of the pipe.
pub(in crate::world) const REMOTE: u32 = u32::MAX - 2;

/// A tournament leaf with no arrival left in the window (above every real key).
const NO_ARRIVAL: u64 = u64::MAX;

/// How a tournament key (`key_of_arrival`) splits its 64 bits: the leaf in the low
/// `leaf_bits`, the tie's 24-bit hash above it, the arrival's time in the window above that. More
/// leaf bits let a node take more pipes into its tournament and leave fewer for the time:
/// windows are then cut shorter than the links allow (each window costs a look at every node).
/// `index_inputs` takes the fewest bits that hold the busiest node's pipes, from `MIN_LEAF_BITS`
/// (128 pipes, windows up to 8.6 ms: every shipped preset) to `MAX_LEAF_BITS` (1,024 pipes,
/// windows up to 1.07 ms); a node fed by more is wide (`wide.rs`) and leaves the others' windows
/// their length.
#[derive(Clone, Copy, Debug)]
pub(in crate::world) struct TournamentLayout {
    leaf_bits: u32,
}

const MIN_LEAF_BITS: u32 = 7;
const MAX_LEAF_BITS: u32 = 10;
const HASH_BITS: u32 = 24;

impl TournamentLayout {
    /// The fewest leaf bits that hold `inputs` pipes, within the bounds above.
    fn for_inputs(inputs: usize) -> Self {
        let need = usize::BITS - inputs.saturating_sub(1).leading_zeros();
        TournamentLayout { leaf_bits: need.clamp(MIN_LEAF_BITS, MAX_LEAF_BITS) }
    }

    #[inline]
    fn time_shift(self) -> u32 {
        self.leaf_bits + HASH_BITS
    }

    #[inline]
    fn leaf_mask(self) -> u64 {
        (1 << self.leaf_bits) - 1
    }

    fn max_inputs(self) -> usize {
        1 << self.leaf_bits
    }

    /// The longest window: its times must fit above the hash, with room for the key's lower bits
    /// under `NO_ARRIVAL`.
    #[inline]
    pub(in crate::world) fn max_span(self) -> SimDuration {
        SimDuration::from_ps((1 << (64 - self.time_shift())) - 2)
    }

    /// The tournament keys of arrivals that certainly come before the event at `key` (a queue
    /// key at or after `start`) are below the result; an arrival whose key agrees with it above
    /// the leaf bits (same time, same hash) needs the full comparison. Arrivals rank first among
    /// simultaneous events, so after any other kind of event at the same time come all of them.
    #[inline]
    fn arrivals_before(self, start: SimTime, key: (SimTime, u64)) -> u64 {
        let offset = key.0.saturating_since(start).as_ps();
        if offset >= self.max_span().as_ps() {
            return NO_ARRIVAL;
        }
        let rank = key.1 >> 56;
        if rank > 0 {
            // Every arrival at that time comes first.
            (offset + 1) << self.time_shift()
        } else {
            offset << self.time_shift() | (key.1 >> 32 & 0xff_ffff) << self.leaf_bits
        }
    }
}

impl Default for TournamentLayout {
    fn default() -> Self {
        TournamentLayout { leaf_bits: MIN_LEAF_BITS }
    }
}

/// The shortest link delay at which a world runs in windows (`World::set_windowed`). Each
/// window costs a visit to every node; below this, windows would hold too few cells to pay
/// for it (a 155.52 Mb/s link carries ~37 cells in 100 us). A performance choice only: both
/// modes give the same results.
pub const MIN_WINDOW: SimDuration = SimDuration::from_micros(100);

/// The tournament key of an arrival at `arrival` (none: the pipe is empty) over pipe `p`, leaf
/// `leaf` of its node's tournament, if it comes before the window's end (`limit`, from
/// `arrivals_before`): its time in the window (from `start`, under the layout's `max_span`), the
/// 24-bit hash of its tie, then the leaf. Among one node's arrivals this is the queue's order: the
/// tie is the hash, then the port, and leaves are in port order.
#[inline]
fn key_of_arrival(layout: TournamentLayout, arrival: Option<SimTime>, p: PortId, leaf: usize, start: SimTime, limit: u64) -> u64 {
    let Some(arrival) = arrival else { return NO_ARRIVAL };
    let offset = arrival.saturating_since(start).as_ps();
    debug_assert!(arrival >= start);
    if offset >= layout.max_span().as_ps() {
        return NO_ARRIVAL;
    }
    let key = offset << layout.time_shift() | shuffle(arrival.as_ps(), p.0 as u64 & 0xff_ffff) << layout.leaf_bits | leaf as u64;
    // The window's end is a lookahead or chunk end (tie 0: arrivals at that time are after it) or
    // an observer (every arrival at its time is before it): no equal hashes to settle.
    if key < limit {
        key
    } else {
        NO_ARRIVAL
    }
}

/// An arrival's place in the queue's order: (time, tie) of the `PipeArrival` over `p` at `t`.
#[inline]
fn arrival_key(t: SimTime, p: PortId) -> (SimTime, u64) {
    (t, Event::PipeArrival(p).tie(t))
}

/// What `World::interleave` needs of a tournament's keys: a window's 64-bit keys relative to its
/// start (`WindowKeys`) or a wide node's absolute 128-bit ones (`wide.rs`). Either way a key
/// orders one node's arrivals as the queue does (time, the tie's hash, the leaf in port order).
pub(in crate::world) trait ArrivalKeys: Copy {
    type Key: Ord + Copy;
    /// A leaf with no arrival (above every real key).
    const NONE: Self::Key;
    /// Whether to load the next arrival's pipe head as soon as the tournament names it: for wide
    /// nodes, whose thousands of pipes' entries have left the caches by the time they arrive
    /// (`scale/gfc1-10k`: 221–250 → 206–218 ns per hop); not for a window's tournament over a
    /// few pipes, whose heads are near (GFC1 lost 2.5 % with it).
    const TOUCH_NEXT_HEAD: bool;
    /// Whether `key`, the tournament's least, is an arrival in the window being run.
    fn in_window(self, key: Self::Key) -> bool;
    /// `bound` lowered to the window's end: a key below the result is in the window and before
    /// the node's next queued event.
    fn clip(self, bound: Self::Key) -> Self::Key;
    /// The keys of arrivals that certainly come before the event at queue key `q` are below
    /// this; one that agrees with it above the leaf (`same_tie`) needs the full comparison.
    fn before(self, q: (SimTime, u64)) -> Self::Key;
    /// Whether `key` and a `before` bound have the same time and hash.
    fn same_tie(self, key: Self::Key, bound: Self::Key) -> bool;
    fn leaf(self, key: Self::Key) -> usize;
    fn time(self, key: Self::Key) -> SimTime;
    /// The key of an arrival at `arrival` (none: the pipe is empty) over pipe `p`, leaf `leaf`.
    fn key(self, arrival: Option<SimTime>, p: PortId, leaf: usize) -> Self::Key;
}

/// A window's tournament keys (`key_of_arrival`): from `start`, arrivals before `limit` only.
#[derive(Clone, Copy)]
struct WindowKeys {
    layout: TournamentLayout,
    start: SimTime,
    limit: u64,
}

impl ArrivalKeys for WindowKeys {
    type Key = u64;
    const NONE: u64 = NO_ARRIVAL;
    const TOUCH_NEXT_HEAD: bool = false;
    #[inline(always)]
    fn in_window(self, key: u64) -> bool {
        key != NO_ARRIVAL
    }
    /// Keys past the window's end are `NO_ARRIVAL` already (`key_of_arrival`).
    #[inline(always)]
    fn clip(self, bound: u64) -> u64 {
        bound
    }
    #[inline(always)]
    fn before(self, q: (SimTime, u64)) -> u64 {
        self.layout.arrivals_before(self.start, q)
    }
    #[inline(always)]
    fn same_tie(self, key: u64, bound: u64) -> bool {
        key >> self.layout.leaf_bits == bound >> self.layout.leaf_bits
    }
    #[inline(always)]
    fn leaf(self, key: u64) -> usize {
        (key & self.layout.leaf_mask()) as usize
    }
    #[inline(always)]
    fn time(self, key: u64) -> SimTime {
        self.start + SimDuration::from_ps(key >> self.layout.time_shift())
    }
    #[inline(always)]
    fn key(self, arrival: Option<SimTime>, p: PortId, leaf: usize) -> u64 {
        key_of_arrival(self.layout, arrival, p, leaf, self.start, self.limit)
    }
}

impl World {
    /// Windowed mode. Nodes touch each other only through links, and a cell sent at `t` reaches
    /// the far end at `t + delay` at the earliest. So once every event before time `T` has run,
    /// each node can run all its own events before `T + L` (L the shortest link delay) without
    /// waiting for the others: whatever they send it in that window arrives after it. Nodes
    /// joined by shorter links run together from one queue (a logical process, `groups.rs`), and
    /// L is the shortest delay between processes. Nodes
    /// run one after another, each from its own small queue, with its ports, pipes and scheme
    /// state in cache, instead of every event going through one queue of every component.
    /// Observers (samples, the window opening) and the end of the chunk cut windows short and
    /// run when every node has run everything before them. Every event runs with the same
    /// state, and simultaneous events in the same order (`IntrinsicOrder`), as in one queue:
    /// results are identical (`windowed_and_single_queue_runs_agree`).
    pub(in crate::world) fn run_windows(&mut self, until: SimTime) {
        // The key just after every event at `until`.
        let end = (until + SimDuration::from_ps(1), 0);
        loop {
            let (bound, observer) = self.next_bound(end);
            self.bound = bound;
            let start = self.now;
            let counting = self.work.is_some();
            for i in 0..self.lps.len() {
                // A node with nothing before the window's end has nothing to run: most hosts of
                // a large world in most windows, each queue a line or two out of the caches.
                if self.lp_next[i] > bound.0 {
                    continue;
                }
                // Work counts (`work.rs`), when asked: one test per process run, none per event.
                let before = self.events;
                self.run_lp(i, start, bound);
                if counting {
                    self.count_lp_run(i, self.events - before);
                }
            }
            if counting {
                self.close_counted_window();
            }
            if Some(bound) == observer {
                let (t, ev) = self.queue.pop().expect("peeked");
                if let Some(work) = &mut self.work {
                    work.add_serial();
                }
                self.process(t, ev);
            } else if bound == end {
                self.now = until;
                return;
            } else {
                self.now = bound.0;
            }
        }
    }

    /// The end of the next window (before key `end` at the latest): the lookahead, or the next
    /// observer if it comes first (returned too), idle samples counted first
    /// (`pass_idle_samples`). `run_windows` and the threads' `next_window` alike.
    pub(in crate::world) fn next_bound(&mut self, end: (SimTime, u64)) -> ((SimTime, u64), Option<(SimTime, u64)>) {
        if !self.measure.keep {
            self.pass_idle_samples(end);
        }
        let lookahead = (self.now + self.lookahead.min(self.layout.max_span()), 0);
        let observer = self.queue.peek_key();
        (observer.map_or(lookahead, |o| o.min(lookahead)).min(end), observer)
    }

    /// Logical process `lp` runs its events before `bound` (`run_node`), with one copy of the node
    /// loop per layout, its shifts and masks constants (a layout read at run time cost GFC1 1.2 %
    /// more instructions per hop).
    #[inline]
    pub(in crate::world) fn run_lp(&mut self, lp: usize, start: SimTime, bound: (SimTime, u64)) {
        match self.layout.leaf_bits {
            7 => self.run_node::<7>(lp, start, bound),
            8 => self.run_node::<8>(lp, start, bound),
            9 => self.run_node::<9>(lp, start, bound),
            _ => self.run_node::<MAX_LEAF_BITS>(lp, start, bound),
        }
    }

    /// Windowed mode: node `lp` runs its events before `bound`. Its arrivals over links that
    /// carry forward traffic are no events: every cell that reaches it in the window is already
    /// in its pipes, so a tournament over the pipes' heads yields them in the queue's order (time,
    /// then the tie a `PipeArrival` would have), interleaved with the node's queue exactly where
    /// the queue would have run them.
    fn run_node<const LEAF_BITS: u32>(&mut self, lp: usize, start: SimTime, bound: (SimTime, u64)) {
        // A node without tournament inputs (a host) runs its queue alone, as the loop below
        // would with an empty tree, without building one: most of a large world's nodes, whose
        // events are their sources' pacing wake-ups.
        if self.node_inputs[lp].is_empty() {
            self.bound = bound;
            while let Some((t, ev)) = self.lps[lp].pop_before(bound) {
                self.process(t, ev);
            }
            self.lp_next[lp] = self.next_queued_time(lp);
            return;
        }
        if !self.wide_trees[lp].is_empty() {
            return self.run_wide_node(lp, bound);
        }
        let inputs = std::mem::take(&mut self.node_inputs[lp]);
        // A tournament over the pipes' heads: each arrival replays one leaf-to-root path,
        // ⌈log2 k⌉ comparisons, where a queue event would cost a push and a pop. Keys are 64-bit
        // (`key_of_arrival`), ordered as the queue orders the arrivals' own keys.
        let layout = TournamentLayout { leaf_bits: LEAF_BITS };
        debug_assert_eq!(layout.leaf_bits, self.layout.leaf_bits);
        let limit = layout.arrivals_before(start, bound);
        let mut store = std::mem::take(&mut self.tournament);
        let size = inputs.len().next_power_of_two();
        if store.len() < 2 * size {
            store.resize(2 * size, NO_ARRIVAL);
        }
        // Every entry is written below: the leaves past the inputs' here, the others by the loops.
        let tree = &mut store[..2 * size];
        tree[size + inputs.len()..].fill(NO_ARRIVAL);
        for (j, &p) in inputs.iter().enumerate() {
            tree[size + j] = self.tournament_key(layout, p, j, start, limit);
        }
        rebuild(tree);
        self.interleave(lp, WindowKeys { layout, start, limit }, tree, &inputs, bound);
        debug_assert!(inputs.iter().enumerate().all(|(j, &p)| self.tournament_key(layout, p, j, start, limit) == NO_ARRIVAL));
        self.tournament = store;
        self.node_inputs[lp] = inputs;
    }

    /// Node `lp` runs its events before `bound`: its queue's, and the arrivals that its tournament
    /// `tree` over the pipes `inputs` yields (keys of kind `K`), each where the single queue would
    /// have run it. `run_node`'s windows and `wide.rs`'s kept tournaments alike.
    #[inline(always)]
    pub(in crate::world) fn interleave<K: ArrivalKeys>(
        &mut self,
        lp: usize,
        keys: K,
        tree: &mut [K::Key],
        inputs: &[PortId],
        bound: (SimTime, u64),
    ) {
        // The node's next queued event (its queue key, that key as a tournament bound, and the
        // queue's push count when looked up): arrivals with smaller tournament keys come first;
        // one at the same time with the same hash needs the full comparison. Looked up again
        // only when the queue changed.
        let next_queued = |w: &World| {
            let q = w.lps[lp].peek_key();
            (q, q.map_or(K::NONE, |q| keys.before(q)), w.lps[lp].pushes())
        };
        let (mut queued, mut before_queued, mut pushes) = next_queued(self);
        loop {
            let key = tree[1];
            if self.lps[lp].pushes() != pushes {
                (queued, before_queued, pushes) = next_queued(self);
            }
            let leaf = keys.leaf(key);
            let first = key < keys.clip(before_queued)
                || (keys.in_window(key)
                    && keys.same_tie(key, before_queued)
                    && queued.is_none_or(|q| arrival_key(keys.time(key), inputs[leaf]) < q));
            if first {
                let p = inputs[leaf];
                let ev = Event::PipeArrival(p);
                self.current = Some(ev);
                self.enter(keys.time(key), ev);
                let (cell, next) = self.take_arrival(p);
                replay(tree, leaf, keys.key(next, p, leaf));
                // The next arrival's pipe head was written a propagation delay ago and has left
                // the caches (at 10,000 inputs, half the arrivals missed it): loaded now, it
                // comes in while this cell is handled.
                if K::TOUCH_NEXT_HEAD && tree[1] != K::NONE {
                    self.ports[inputs[keys.leaf(tree[1])].index()].pipe.touch_front();
                }
                self.arrive(p, cell);
            } else {
                match self.lps[lp].pop_before(bound) {
                    Some((t, ev)) => {
                        // What a handler may run at once (`run_source`) must also come before
                        // the next arrival.
                        self.bound = if keys.in_window(key) { bound.min(arrival_key(keys.time(key), inputs[leaf])) } else { bound };
                        self.process(t, ev);
                        (queued, before_queued, pushes) = next_queued(self);
                    }
                    None => break,
                }
            }
        }
    }

    /// The tournament key of the next arrival over pipe `p` (leaf `leaf` of its node's
    /// tournament), if it comes before the window's end (`limit`, from `arrivals_before`).
    #[inline]
    fn tournament_key(&self, layout: TournamentLayout, p: PortId, leaf: usize, start: SimTime, limit: u64) -> u64 {
        let next = self.ports[p.index()].pipe.front().map(|f| f.arrival);
        key_of_arrival(layout, next, p, leaf, start, limit)
    }

    /// Why this world cannot run in windows, if it cannot: every event must belong to one node
    /// and touch other nodes only through links. A TCP connection's ends each have their own
    /// timer event (`TcpEnds::timer`, by `TcpEnd`); what they share are the tables
    /// of frames in flight, which the sending end appends to and the receiving end takes from the
    /// front of, up to a frame that was sent before it arrived (so a frame appended later, in
    /// another node's window, is never touched), and counters that only add up. Flows from
    /// FICCRD's edges (their ACK buckets' releases) run from one queue.
    pub fn can_run_in_windows(&self) -> Result<(), String> {
        if let Some(vc) = self.vcs.iter().find(|vc| vc.edge.is_some()) {
            return Err(format!("flow {} starts at a FICCRD edge: its ACK bucket's releases run from one queue", vc.name));
        }
        if self.ports.is_empty() {
            return Err("the world has no links".into());
        }
        if let Some(g) = self.gateways.first() {
            return Err(format!("gateway {} serves its hosts from shared state", g.name));
        }
        Ok(())
    }

    /// Whether `build` runs this world in windows: it can, its grouping (`choose_groups`) gives
    /// windows of at least `MIN_WINDOW` (the shortest link between logical processes), and its
    /// links carry cells. IP links carry packets of up to kilobytes, tens
    /// of times fewer items per window than a cell link of the same rate: on seed 002's dumbbell
    /// (10 Mb/s, 2 ms links: about one packet per link per window) windows cost 1,463
    /// instructions per packet-hop against 823 from one queue (docs/benchmarks.md).
    pub(in crate::world) fn windows_pay(&self) -> bool {
        self.can_run_in_windows().is_ok()
            && !self.ports.iter().any(|p| p.packets)
            && self.choose_groups().is_some_and(|g| self.lookahead_of(&g.node_lp) >= MIN_WINDOW)
    }

    /// Where each pipe's arrivals go: events in its far end's queue, or (windowed mode) taken
    /// in order by `run_node`'s tournament. Only pipes that carry forward traffic join the
    /// tournament: a pipe that only ever carries backward RM cells (the reverse half of an
    /// access link) has an arrival every few dozen cells and would only deepen the tree; lazy
    /// sinks keep their own events.
    pub(in crate::world) fn index_inputs(&mut self) {
        let on = self.is_windowed();
        let lps = self.lps.len();
        let node_lp = &self.node_lp;
        // Every event belongs to the logical process of its node (`schedule`).
        self.port_lp = self.ports.iter().map(|p| node_lp[p.from.index()]).collect();
        self.vc_lp = self.vcs.iter().map(|vc| node_lp[self.ports[vc.fwd_ports[0].index()].from.index()]).collect();
        self.vc_dest_lp =
            self.vcs.iter().map(|vc| node_lp[self.ports[vc.fwd_ports[vc.fwd_ports.len() - 1].index()].to.index()]).collect();
        self.arrive_lp = self.ports.iter().map(|p| node_lp[p.to.index()]).collect();
        self.node_inputs = vec![Vec::new(); lps];
        self.input_leaf = vec![0; self.ports.len()];
        self.wide_trees = vec![Vec::new(); lps];
        self.new_heads = vec![Vec::new(); lps];
        if on {
            let forward = self.crossed_forward(|_| true);
            // A link inside a logical process may deliver within the window it was sent in: its
            // arrivals are events in the process's queue, as in the single queue.
            let joins = |i: usize| {
                let p = &self.ports[i];
                !p.lazy_sink && forward[i] && node_lp[p.from.index()] != node_lp[p.to.index()]
            };
            let mut per_lp = vec![0usize; lps];
            for i in (0..self.ports.len()).filter(|&i| joins(i)) {
                per_lp[self.arrive_lp[i] as usize] += 1;
            }
            // Processes fed by more pipes than the widest window's tournament are wide (`wide.rs`);
            // the others' tournaments are as wide as the busiest of them needs.
            let max_inputs = TournamentLayout { leaf_bits: MAX_LEAF_BITS }.max_inputs();
            let wide: Vec<bool> = per_lp.iter().map(|&n| n > max_inputs).collect();
            self.layout = TournamentLayout::for_inputs(per_lp.iter().copied().filter(|&n| n <= max_inputs).max().unwrap_or(0));
            let joining: Vec<usize> = (0..self.ports.len()).filter(|&i| joins(i)).collect();
            for i in joining {
                let to = self.arrive_lp[i] as usize;
                let inputs = &mut self.node_inputs[to];
                self.input_leaf[i] = inputs.len() as u32;
                inputs.push(PortId(i as u32));
                self.arrive_lp[i] = if wide[to] { IN_WIDE_TOURNAMENT } else { IN_TOURNAMENT };
            }
            for lp in (0..lps).filter(|&lp| wide[lp]) {
                self.wide_trees[lp] = self.build_wide_tree(lp);
            }
        }
        self.lp_next = (0..self.lps.len())
            .map(|i| if self.node_inputs[i].is_empty() { self.next_queued_time(i) } else { SimTime::ZERO })
            .collect();
    }

    /// The time of node `lp`'s next queued event (`SimTime::MAX` if none).
    #[inline]
    fn next_queued_time(&self, lp: usize) -> SimTime {
        self.lps[lp].peek_key().map_or(SimTime::MAX, |k| k.0)
    }

    /// Whether the world runs in windows, one queue per node (`run_windows`).
    pub fn is_windowed(&self) -> bool {
        !self.lps.is_empty()
    }

    /// Runs in windows or from one queue; only before the run starts. `build` chooses windows
    /// when they pay (`windows_pay`). In windows, nodes are grouped into logical processes by
    /// `choose_groups` (one per node where it finds none that pays). The results are the same
    /// either way, and for every grouping. Lazy sources (an emission generated when its access
    /// link runs dry, `catch_up_source`) need the source and its switch in one queue: in windows,
    /// only a host in its switch's process has one (`mark_lazy_sources`); the others run their own
    /// emissions from their own process's queue.
    pub fn set_windowed(&mut self, on: bool) -> Result<(), String> {
        if on == self.is_windowed() {
            return if self.events != 0 { Err("the engine mode can only change before the run".into()) } else { Ok(()) };
        }
        let groups = on.then(|| self.choose_groups().unwrap_or_else(|| Groups::per_node(self.nodes.len())));
        self.set_mode(groups)
    }

    /// Runs in windows with logical processes `groups` (any grouping whose links between
    /// processes all have a delay; one process for the whole world too); only before the run
    /// starts. Results are those of the single queue whatever the grouping.
    pub fn set_groups(&mut self, groups: Groups) -> Result<(), String> {
        self.set_mode(Some(groups))
    }

    /// Windows with these logical processes, or (`None`) the single queue.
    fn set_mode(&mut self, groups: Option<Groups>) -> Result<(), String> {
        if self.events != 0 {
            return Err("the engine mode can only change before the run".into());
        }
        if self.threads.is_some() {
            return Err("the engine mode cannot change on threads".into());
        }
        if let Some(g) = &groups {
            self.can_run_in_windows()?;
            self.check_groups(g)?;
            self.lookahead = self.lookahead_of(&g.node_lp);
        }
        let mut pending: Vec<(SimTime, Event)> = std::iter::from_fn(|| self.queue.pop()).collect();
        for q in &mut self.lps {
            pending.extend(std::iter::from_fn(|| q.pop()));
        }
        let on = groups.is_some();
        let groups = groups.unwrap_or_else(|| Groups::per_node(self.nodes.len()));
        self.lps = if on { (0..groups.count).map(|_| EventQueue::with_rule(ByEvent)).collect() } else { Vec::new() };
        self.node_lp = groups.node_lp;
        self.index_inputs();
        self.queue = EventQueue::with_rule(ByEvent);
        for vc in &mut self.vcs {
            vc.lazy_source = false;
        }
        for p in &mut self.ports {
            p.lazy_source = false;
        }
        let users = self.port_users();
        self.mark_lazy_sources(&users);
        for (t, ev) in pending {
            self.schedule(t, ev);
        }
        Ok(())
    }
}

/// Leaf `leaf` of tournament `tree` (`tree[1]` the least of its leaves, which are stored from
/// `tree.len() / 2` on) takes `key`, and its path to the root is replayed: each parent the smaller
/// of its two children. (The tree's length is a power of two: masked indices need no bounds
/// checks.) Windows' 64-bit keys and wide nodes' 128-bit ones alike.
#[inline(always)]
pub(in crate::world) fn replay<K: Ord + Copy>(tree: &mut [K], leaf: usize, key: K) {
    let mask = tree.len() - 1;
    let mut i = tree.len() / 2 + leaf;
    let mut m = key;
    tree[i & mask] = m;
    while i > 1 {
        m = m.min(tree[(i ^ 1) & mask]);
        i /= 2;
        tree[i & mask] = m;
    }
}

/// Every parent of tournament `tree` set from its children, once its leaves are written.
#[inline]
pub(in crate::world) fn rebuild<K: Ord + Copy>(tree: &mut [K]) {
    for i in (1..tree.len() / 2).rev() {
        tree[i] = tree[2 * i].min(tree[2 * i + 1]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fewest leaf bits that hold the busiest node's pipes, and what is left for the window.
    #[test]
    fn a_tournament_widens_with_its_busiest_node_and_shortens_its_windows() {
        let bits = |n| TournamentLayout::for_inputs(n).leaf_bits;
        assert_eq!((bits(0), bits(1), bits(128), bits(129), bits(256), bits(257)), (7, 7, 7, 8, 8, 9));
        assert_eq!((bits(1024), bits(1025), bits(100_000)), (10, 10, 10));
        assert_eq!(TournamentLayout::for_inputs(100).max_inputs(), 128);
        assert_eq!(TournamentLayout::for_inputs(5000).max_inputs(), 1024);
        // 2^33 ps (8.6 ms) with 7 leaf bits, 2^30 ps (1.07 ms) with 10; never under `MIN_WINDOW`.
        assert_eq!(TournamentLayout::for_inputs(10).max_span(), SimDuration::from_ps((1 << 33) - 2));
        assert_eq!(TournamentLayout::for_inputs(1000).max_span(), SimDuration::from_ps((1 << 30) - 2));
        assert!(TournamentLayout::for_inputs(usize::MAX).max_span() > MIN_WINDOW);
        // A key's fields do not overlap: the largest time, hash and leaf fit under `NO_ARRIVAL`.
        for n in [1, 200, 1000] {
            let l = TournamentLayout::for_inputs(n);
            let key = (l.max_span().as_ps() << l.time_shift()) | (0xff_ffff << l.leaf_bits) | l.leaf_mask();
            assert!(key < NO_ARRIVAL && key >> l.time_shift() == l.max_span().as_ps());
        }
    }
}
