//! Threads: the windowed mode's logical processes run on several threads, with results identical
//! to one thread (docs/DESIGN.md §2, "As built — threads").
//!
//! Each thread runs its own copy of the world (a *shard*, built from the same scenario) and only
//! its own logical processes in it; the state of everything else in its copy is never touched
//! (but for the copies of traced TCP connections' frames in flight, which its trace rows read).
//! A window's events are independent across processes (`windows.rs`), so the threads run a window
//! at once and meet at a barrier. Between threads, cells cross (and, for TCP connections, notes of
//! the cells a switch dropped and, with a trace, the changes to their frames in flight; for credit
//! hops whose ends run on two threads, their BSU and BSC cells: they go in the same mailboxes at
//! the same time): a link whose ends run on two
//! threads (a *crossing* link) is pushed into at the sending thread and popped at the receiving
//! one; at the end of each window the sender moves the cells that left its buffer into a mailbox
//! for the receiver (`export`), which puts them into its own copy of the pipe before it runs the
//! next window (`import`). A cell sent in a window arrives after it ends, so the receiver has
//! every cell it needs before it needs it. Observers (samples, the measurement window's opening)
//! run on thread 0 between windows with the world gathered into its copy (`gather.rs`), as the
//! end of every chunk does for whoever reads the world.
//!
//! Owns the plan (which thread runs each process, `thread_plan`), the shards' set-up, the loop of
//! windows with its barrier, and the mailboxes. What a run may hold to be threaded is in
//! `thread_plan`: worlds outside it run on one thread.

use super::groups::UnionFind;
use super::windows::REMOTE;
use super::{Event, World};
use crate::cell::Cell;
use crate::ids::{PortId, VcId};
use crate::parallel::barrier::SpinBarrier;
use crate::parallel::steps::Announcements;
use crate::port::{Control, InFlight};
use crate::tcp_host::FrameLog;
use ccsim_engine::{ByEvent, EventQueue, SimDuration, SimTime};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Mutex, MutexGuard};

/// Below this many events per window (the world's expected work in one window, `auto_threads`),
/// the barrier that ends each window (a few microseconds) would cost more than a second thread
/// gains: `auto` keeps one thread. Measured on every windowed preset (docs/benchmarks.md, "Where
/// `auto` takes two threads"): seed 004's 100–125 µs windows (48–177 expected events) lose on two
/// threads, 0.64–1.10×; the 32-switch parking lot's 500 µs ones (831) gain 1.56×.
const MIN_EVENTS_PER_WINDOW: f64 = 500.0;

/// The most units `balance` moves after LPT, each move a look at every unit: bounded, so that a
/// world of 20,000 units plans in milliseconds.
const MAX_MOVES: usize = 256;

/// Which thread runs each logical process, and what that makes each thread own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadPlan {
    /// Per logical process, its thread.
    pub lp_thread: Vec<u32>,
    pub threads: usize,
}

/// What one shard knows of its place among the threads (every shard, thread 0's too).
pub(in crate::world) struct Shard {
    pub index: usize,
    /// The logical processes it runs, in index order (the order one thread runs them in).
    pub owned: Vec<u32>,
    /// Per logical process, the thread that runs it.
    pub lp_thread: Vec<u32>,
    /// The crossing links it sends on: the port and the thread at the far end.
    pub out: Vec<(PortId, u32)>,
    /// The credit-controlled hops that cross threads with an end here (`credit.rs`): the hop's
    /// port and the other end's thread. It sends that end the hop's BSCs if it runs the
    /// transmitter, BSUs if the receiver.
    pub credit_out: Vec<(PortId, u32)>,
    /// Per VC, the thread that runs its hosts (a TCP connection's two hosts share one,
    /// `thread_units`).
    pub vc_ends: Vec<u32>,
    /// Cells of TCP connections this thread dropped in the window whose hosts another thread runs
    /// (`World::count_drop`), with when: they go to that thread with the cells.
    pub tcp_drops: Vec<(Cell, SimTime)>,
    /// With a trace: the TCP connections whose hosts this thread runs. Their frames in flight go
    /// to the other threads' copies at each window's end (the trace reads what a frame carries
    /// where it records a row).
    pub tcp_logged: Vec<VcId>,
}

impl Shard {
    /// Whether this thread runs logical process `lp`.
    #[inline]
    pub fn runs_lp(&self, lp: u32) -> bool {
        self.lp_thread[lp as usize] as usize == self.index
    }

    /// Whether this thread runs the hosts of connection `v`.
    pub fn runs_ends_of(&self, v: VcId) -> bool {
        self.vc_ends[v.index()] as usize == self.index
    }
}

/// Cells that crossed from one thread to another in a window: per crossing link (in port order),
/// how many of `cells` are its, oldest first; the TCP connections' cells the sender dropped,
/// for the thread that runs their hosts (`Shard::tcp_drops`); the control cells of credit hops
/// whose ends run on the two threads.
#[derive(Default)]
struct Mail {
    links: Vec<(PortId, u32)>,
    cells: Vec<InFlight>,
    drops: Vec<(Cell, SimTime)>,
    frames: Vec<(VcId, FrameLog)>,
    /// Credit-controlled hops' BSU and BSC cells, by hop (its port), oldest first.
    controls: Vec<(PortId, SimTime, Control)>,
}

type Mailbox = Mutex<Mail>;

/// Thread 0's view of the run (kept in the world thread 0 runs, the one callers hold).
pub(in crate::world) struct Threads {
    /// The other threads' shards, each locked by its thread while it runs a window and by thread 0
    /// between windows to gather.
    pub others: Vec<Mutex<World>>,
    /// Mailbox `j * threads + k`: cells from thread `j` to thread `k`.
    mailboxes: Vec<Mailbox>,
    pub map: ThreadMap,
    /// Whether thread 0's copy holds the gathered world (between chunks) rather than its own part.
    pub gathered: bool,
    /// The run is complete and gathered for good (crossing pipes joined).
    pub finished: bool,
    /// Events waiting in the other shards' queues when last gathered.
    pub other_pending: usize,
}

/// Who owns what: the thread of each port's sending node, of each VC's source and destination
/// hosts, and the crossing links.
pub(in crate::world) struct ThreadMap {
    pub port_thread: Vec<u32>,
    pub vc_src: Vec<u32>,
    pub vc_dst: Vec<u32>,
    /// Per VC, the thread of its ingress switch (its policer's, GFR's F-GCRA).
    pub vc_ingress: Vec<u32>,
    /// Crossing links: port, sending thread, receiving thread.
    pub crossing: Vec<(PortId, u32, u32)>,
    /// Per logical process, its thread.
    pub lp_thread: Vec<u32>,
}

/// What every thread does next, as thread 0 announces it: run a window (ending at `bound`, an
/// observer's key when `observed`), wait while thread 0 runs that observer on the gathered world,
/// or take the last cells sent and stop (the chunk is over).
#[derive(Clone, Copy)]
enum Step {
    Window { bound: (SimTime, u64), until: SimTime, observed: bool },
    Observe,
    Stop { until: SimTime },
}

/// What the threads share while a chunk runs.
struct Shared<'a> {
    barrier: SpinBarrier,
    /// The steps thread 0 announces (`crate::parallel::steps`: step `i + 1` written before the
    /// barrier that ends step `i`).
    steps: Announcements<Step>,
    mailboxes: &'a [Mailbox],
    threads: usize,
    /// A thread that panicked leaves its message here and keeps meeting the others at the barrier,
    /// so that every thread ends the chunk; thread 0 then panics with it.
    failed: Mutex<Option<String>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The other threads' shards, between chunks (no thread runs: no lock is taken).
fn shards_mut(others: &mut [Mutex<World>]) -> Vec<&mut World> {
    others.iter_mut().map(|m| m.get_mut().unwrap_or_else(|e| e.into_inner())).collect()
}

fn panic_message(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| e.downcast_ref::<String>().cloned()).unwrap_or_else(|| "a panic".into())
}

impl World {
    /// Why this world cannot run on several threads, if it cannot: it must run in windows (which
    /// keeps gateways' trunks, HG-RCP, in one queue), and the work counts of `--parallel-report`
    /// are kept by one thread.
    pub fn can_run_on_threads(&self) -> Result<(), String> {
        if !self.is_windowed() {
            return Err(match self.can_run_in_windows() {
                Err(why) => format!("the world runs from one queue ({why})"),
                Ok(()) => "the world runs from one queue (its links are too short for windows)".into(),
            });
        }
        if let Some(vc) = self.vcs.iter().find(|vc| vc.is_trunk()) {
            return Err(format!("connection {} is a gateway's trunk: its gateways run in one queue", vc.name));
        }
        if self.work.is_some() {
            return Err("work counts (--parallel-report) are kept by one thread".into());
        }
        Ok(())
    }

    /// Per logical process, its *unit*: processes that must share a thread. A lazy sink (the
    /// link to an ABR destination, whose data cells are delivered in batches that read the pipe and
    /// the connection at once, `lazy.rs`) runs with both its ends, and so do a lossy link's (the
    /// loss is drawn where the link ends, in the port's state). A TCP connection's two hosts share
    /// one too: they share the table of its frames in flight (the receiver reads what each data
    /// frame carries from it, the sender what each ACK frame does), and the record of what it lost
    /// (`crate::timeout_cause`); drops elsewhere reach that record at the window's end
    /// (`World::count_drop`). A source host may run apart from its switch: what they share
    /// crosses its access link.
    fn thread_units(&self) -> crate::world::Groups {
        let mut uf = UnionFind::new(self.lps.len());
        for p in self.ports.iter().filter(|p| p.lazy_sink || p.loss.is_some()) {
            uf.union(self.node_lp[p.from.index()], self.node_lp[p.to.index()]);
        }
        for vc in self.vcs.iter().filter(|vc| matches!(vc.ends, super::Ends::Tcp(_))) {
            let (src, dst) = (self.ports[vc.fwd_ports[0].index()].from, self.ports[vc.rev_ports.last().expect("a route").index()].from);
            uf.union(self.node_lp[src.index()], self.node_lp[dst.index()]);
        }
        uf.groups()
    }

    /// Each unit's expected work, events per second, from every connection's max-min rate: its
    /// source's emissions at its source host, its cells' arrivals at each node of its route (at a
    /// lazy destination only its RM cells', one in `NRM`), the events most of a window's are.
    fn unit_work(&self, units: &crate::world::Groups) -> Vec<f64> {
        const NRM: f64 = 32.0;
        let rates = self.maxmin_rates();
        let mut work = vec![0.0; units.count];
        let unit_of = |n: crate::ids::NodeId| units.node_lp[self.node_lp[n.index()] as usize] as usize;
        for (vc, &r) in self.vcs.iter().zip(&rates) {
            if !r.is_finite() {
                continue;
            }
            work[unit_of(self.ports[vc.fwd_ports[0].index()].from)] += r;
            for p in &vc.fwd_ports {
                let port = &self.ports[p.index()];
                work[unit_of(port.to)] += if port.lazy_sink { r / NRM } else { r };
            }
        }
        work
    }

    /// The plan for `threads` threads: units (`thread_units`) onto threads by their expected work
    /// (`unit_work`), largest first onto the least loaded (LPT, `crate::parallel::lpt_partition`);
    /// thread 0, which also gathers the world between windows that hold an observer, is the one
    /// with the most ports. Fewer threads than asked when there are fewer units.
    pub fn thread_plan(&self, threads: usize) -> Result<ThreadPlan, String> {
        self.can_run_on_threads()?;
        let units = self.thread_units();
        if units.count < 2 {
            return Err("every node must share one thread (destinations run with their switch)".into());
        }
        let k = threads.clamp(1, units.count);
        let unit_thread = self.balance(&units, &self.unit_work(&units), k);
        let mut ports = vec![0usize; k];
        for p in &self.ports {
            ports[unit_thread[units.node_lp[self.node_lp[p.from.index()] as usize] as usize] as usize] += 1;
        }
        // Thread 0 first: the most ports (ties: the lowest index), the others in index order.
        let first = (0..k).max_by_key(|&t| (ports[t], std::cmp::Reverse(t))).expect("k >= 1") as u32;
        let rename = |t: u32| if t == first { 0 } else if t < first { t + 1 } else { t };
        let lp_thread = (0..self.lps.len()).map(|lp| rename(unit_thread[units.node_lp[lp] as usize])).collect();
        Ok(ThreadPlan { lp_thread, threads: k })
    }

    /// Per unit, its thread among `k`: each host first with the node at the other end of its
    /// access link (its cells then never cross between threads), those groups onto threads by
    /// their expected work (`work`, per unit), largest first onto the least loaded (LPT,
    /// `crate::parallel::lpt_partition`); then, while it lowers the busiest thread's load, the
    /// unit that best evens the busiest and the idlest threads moves between them (a source host
    /// apart from its switch, say: its cells then cross, a copy each at the window's end).
    fn balance(&self, units: &crate::world::Groups, work: &[f64], k: usize) -> Vec<u32> {
        let mut uf = UnionFind::new(units.count);
        let unit_of = |n: crate::ids::NodeId| units.node_lp[self.node_lp[n.index()] as usize];
        let host = |n: crate::ids::NodeId| self.nodes[n.index()].kind == super::NodeKind::Host;
        for p in self.ports.iter().filter(|p| host(p.from) || host(p.to)) {
            uf.union(unit_of(p.from), unit_of(p.to));
        }
        let coarse = uf.groups();
        let mut coarse_work = vec![0u64; coarse.count];
        for (u, w) in work.iter().enumerate() {
            coarse_work[coarse.node_lp[u] as usize] += w.round() as u64;
        }
        let coarse_thread = crate::parallel::lpt_partition(&coarse_work, k);
        let mut unit_thread: Vec<u32> = coarse.node_lp.iter().map(|&c| coarse_thread[c as usize]).collect();
        let mut load = vec![0.0; k];
        for (u, &t) in unit_thread.iter().enumerate() {
            load[t as usize] += work[u];
        }
        for _ in 0..MAX_MOVES {
            let by = |a: &usize, b: &usize| load[*a].total_cmp(&load[*b]).then(b.cmp(a));
            let (busiest, idlest) = ((0..k).max_by(by).expect("k >= 1"), (0..k).min_by(by).expect("k >= 1"));
            let gap = load[busiest] - load[idlest];
            // Moving `w` leaves the two at max(busiest − w, idlest + w): best at w = gap / 2.
            let best = (0..units.count)
                .filter(|&u| unit_thread[u] as usize == busiest && work[u] > 0.0 && work[u] < gap)
                .min_by(|&a, &b| (work[a] - gap / 2.0).abs().total_cmp(&(work[b] - gap / 2.0).abs()).then(a.cmp(&b)));
            let Some(u) = best else { break };
            unit_thread[u] = idlest as u32;
            load[busiest] -= work[u];
            load[idlest] += work[u];
        }
        unit_thread
    }

    /// The threads `auto` gives this world on a machine with `cores` cores: as many as it has
    /// units to spread, 1 where it cannot run on threads, where a window holds too little work to
    /// pay for the barrier that ends it (`MIN_EVENTS_PER_WINDOW`), or where a node is fed by more
    /// links than a window's tournament holds (a *wide* node, `wide.rs`). There two threads lose
    /// either way (`scale/gfc1-10k`, docs/scenarios.md, "Threads"): with the wide node's sources on
    /// its thread, that thread holds most of the work (the estimate from max-min rates cannot see
    /// the start's, when every source sends at its first rates); with the sources apart, the work
    /// is even but every cell crosses between threads into one of thousands of pipes, an import
    /// and an arrival that miss the caches.
    pub fn auto_threads(&self, cores: usize) -> usize {
        if cores < 2 || self.can_run_on_threads().is_err() || self.wide_trees.iter().any(|t| !t.is_empty()) {
            return 1;
        }
        let units = self.thread_units();
        if units.count < 2 || self.events_per_window(&units) < MIN_EVENTS_PER_WINDOW {
            return 1;
        }
        cores.min(units.count)
    }

    /// The events a window is expected to hold (`auto_threads`'s measure).
    pub fn expected_events_per_window(&self) -> f64 {
        self.events_per_window(&self.thread_units())
    }

    /// Every unit's expected work (`unit_work`, from the max-min rates) over the longest window.
    fn events_per_window(&self, units: &crate::world::Groups) -> f64 {
        self.unit_work(units).iter().sum::<f64>() * self.lookahead.as_secs_f64()
    }

    /// Runs on the threads of `plan`, with `shards` the other threads' copies of this world: built
    /// from the same scenario, the same way (checked: the same nodes, ports, connections,
    /// processes and pending events). Only before the run starts.
    pub fn set_threads(&mut self, plan: &ThreadPlan, shards: Vec<World>) -> Result<(), String> {
        if self.events != 0 {
            return Err("threads can only be set before the run".into());
        }
        if self.threads.is_some() {
            return Err("threads are set already".into());
        }
        if shards.len() + 1 != plan.threads || plan.lp_thread.len() != self.lps.len() {
            return Err(format!("the plan is for {} threads and {} processes", plan.threads, plan.lp_thread.len()));
        }
        self.can_run_on_threads()?;
        let same = |w: &World| {
            w.nodes.len() == self.nodes.len()
                && w.ports.len() == self.ports.len()
                && w.vcs.len() == self.vcs.len()
                && w.node_lp == self.node_lp
                && w.pending_events() == self.pending_events()
                && w.events == 0
        };
        if !shards.iter().all(same) {
            return Err("the threads' copies of the world differ".into());
        }
        let mut shards = shards;
        for w in &mut shards {
            w.lazy_ends_as(self);
            // A caller may have turned credit trains off too (`disable_credit_trains`).
            if self.train_ports.is_empty() {
                w.disable_credit_trains();
            }
            w.trace = self.trace.as_ref().map(|t| Box::new(crate::trace::Trace::new(t.spec().clone())));
        }
        let k = plan.threads;
        let port_thread: Vec<u32> = self.ports.iter().map(|p| plan.lp_thread[self.node_lp[p.from.index()] as usize]).collect();
        let arrive_thread = |p: &crate::port::Port| plan.lp_thread[self.node_lp[p.to.index()] as usize];
        let crossing: Vec<(PortId, u32, u32)> = self
            .ports
            .iter()
            .enumerate()
            .filter(|(i, p)| port_thread[*i] != arrive_thread(p))
            .map(|(i, p)| (PortId(i as u32), port_thread[i], arrive_thread(p)))
            .collect();
        let lp_of_port = |p: PortId| self.node_lp[self.ports[p.index()].from.index()] as usize;
        let vc_src: Vec<u32> = self.vcs.iter().map(|vc| plan.lp_thread[lp_of_port(vc.fwd_ports[0])]).collect();
        let vc_dst = self.vcs.iter().map(|vc| plan.lp_thread[lp_of_port(*vc.rev_ports.last().expect("a route"))]).collect();
        let vc_ingress = self.vcs.iter().map(|vc| plan.lp_thread[self.node_lp[self.ports[vc.fwd_ports[0].index()].to.index()] as usize]).collect();
        self.become_shard(0, plan, &crossing, &vc_src);
        let others = shards
            .into_iter()
            .enumerate()
            .map(|(i, mut w)| {
                w.become_shard(i + 1, plan, &crossing, &vc_src);
                Mutex::new(w)
            })
            .collect();
        self.threads = Some(Box::new(Threads {
            others,
            mailboxes: (0..k * k).map(|_| Mutex::new(Mail::default())).collect(),
            map: ThreadMap { port_thread, vc_src, vc_dst, vc_ingress, crossing, lp_thread: plan.lp_thread.clone() },
            gathered: false,
            finished: false,
            other_pending: 0,
        }));
        Ok(())
    }

    /// This copy's lazy sources and sinks become `like`'s (a copy built anew has the build's; a
    /// caller may have turned them off in thread 0's, `disable_lazy_sources`): every thread then
    /// runs each source and sink the same way. Before the run only.
    fn lazy_ends_as(&mut self, like: &World) {
        for (mine, theirs) in self.vcs.iter_mut().zip(&like.vcs) {
            mine.lazy_source = theirs.lazy_source;
        }
        let mut sinks_changed = false;
        for (mine, theirs) in self.ports.iter_mut().zip(&like.ports) {
            mine.lazy_source = theirs.lazy_source;
            sinks_changed |= mine.lazy_sink != theirs.lazy_sink;
            mine.lazy_sink = theirs.lazy_sink;
        }
        if sinks_changed {
            self.index_inputs();
        }
    }

    /// This copy becomes thread `t`'s shard: it keeps only its own processes' events (thread 0
    /// also the observers'), and its crossing links' arrivals are the receiver's to schedule.
    fn become_shard(&mut self, t: usize, plan: &ThreadPlan, crossing: &[(PortId, u32, u32)], vc_ends: &[u32]) {
        let owned: Vec<u32> = (0..self.lps.len() as u32).filter(|&lp| plan.lp_thread[lp as usize] as usize == t).collect();
        for lp in 0..self.lps.len() {
            if plan.lp_thread[lp] as usize != t {
                self.lps[lp] = EventQueue::with_rule(ByEvent);
                self.lp_next[lp] = SimTime::MAX;
            }
        }
        if t != 0 {
            self.queue = EventQueue::with_rule(ByEvent);
        }
        let mut out = Vec::new();
        let mut credit_out = Vec::new();
        for &(p, from, to) in crossing {
            if from as usize == t {
                self.arrive_lp[p.index()] = REMOTE;
                out.push((p, to));
            }
            if self.credit_receiver(p).is_some() {
                if from as usize == t {
                    credit_out.push((p, to));
                } else if to as usize == t {
                    credit_out.push((p, from));
                }
            }
        }
        let vc_ends = vc_ends.to_vec();
        let mut tcp_logged = Vec::new();
        if self.trace.is_some() {
            for (v, vc) in self.vcs.iter_mut().enumerate() {
                if let (super::Ends::Tcp(tcp), true) = (&mut vc.ends, vc_ends[v] as usize == t) {
                    tcp.log_frames();
                    tcp_logged.push(VcId(v as u32));
                }
            }
        }
        self.shard = Some(Box::new(Shard { index: t, owned, lp_thread: plan.lp_thread.clone(), out, credit_out, vc_ends, tcp_drops: Vec::new(), tcp_logged }));
    }

    /// The number of threads the world runs on (1 unless `set_threads`).
    pub fn threads(&self) -> usize {
        self.threads.as_ref().map_or(1, |t| t.others.len() + 1)
    }

    /// `advance` on threads: the windows up to `until`, as `run_windows` runs them on one thread.
    pub(in crate::world) fn run_threaded(&mut self, until: SimTime) {
        let mut threads = self.threads.take().expect("threaded");
        if threads.finished {
            self.threads = Some(threads);
            return;
        }
        if threads.gathered {
            let mut others = shards_mut(&mut threads.others);
            // Events scheduled on the gathered world since (settling lazy sources at a chunk's end).
            self.relocate_events(&threads.map, &mut others);
            self.swap_owned(&threads.map, &mut others);
            threads.gathered = false;
        }
        let shared = Shared {
            barrier: SpinBarrier::new(threads.others.len() + 1),
            steps: Announcements::new(Step::Stop { until }),
            mailboxes: &threads.mailboxes,
            threads: threads.others.len() + 1,
            failed: Mutex::new(None),
        };
        let (others, map) = (&threads.others, &threads.map);
        let mut failure = None;
        std::thread::scope(|s| {
            for shard in others {
                let shared = &shared;
                s.spawn(move || worker(shard, shared));
            }
            failure = self.coordinate(until, &shared, others, map);
        });
        let thread_failed = lock(&shared.failed).take();
        drop(shared);
        let finishing = until >= self.measure.end;
        let mut others = shards_mut(&mut threads.others);
        threads.other_pending = self.gather(&threads.map, &mut others, finishing);
        threads.gathered = true;
        threads.finished = finishing;
        self.threads = Some(threads);
        if let Some(e) = failure {
            resume_unwind(e);
        }
        if let Some(msg) = thread_failed {
            panic!("{msg}");
        }
    }

    /// Thread 0's loop: each window's end (as `run_windows` finds it), announced before the
    /// barrier that ends the step before it (one barrier per window); its own part of each window;
    /// the observer that ends a window, if one does, on the gathered world while the others wait.
    /// A panic here or in another thread ends the chunk cleanly (every thread stops at the same
    /// barrier) and is returned (thread 0's) or left in `Shared::failed` (another's).
    fn coordinate(
        &mut self,
        until: SimTime,
        shared: &Shared,
        others: &[Mutex<World>],
        map: &ThreadMap,
    ) -> Option<Box<dyn std::any::Any + Send>> {
        let end = (until + SimDuration::from_ps(1), 0);
        let mut failure = None;
        let mut caught = |r: std::thread::Result<Step>| match r {
            Ok(step) => step,
            Err(e) => {
                failure.get_or_insert(e);
                Step::Stop { until }
            }
        };
        let mut step = caught(catch_unwind(AssertUnwindSafe(|| self.next_window(until, end))));
        let mut i = 0;
        shared.steps.publish(0, step);
        shared.barrier.wait();
        loop {
            let next = match step {
                Step::Window { bound, observed, .. } => {
                    caught(catch_unwind(AssertUnwindSafe(|| {
                        self.shard_window(bound, until, shared.mailboxes, shared.threads);
                        if observed {
                            Step::Observe
                        } else if bound == end {
                            Step::Stop { until }
                        } else {
                            self.next_window(until, end)
                        }
                    })))
                }
                Step::Observe => caught(catch_unwind(AssertUnwindSafe(|| {
                    let (t, ev) = self.queue.pop().expect("the window ended at it");
                    let mut guards: Vec<MutexGuard<World>> = others.iter().map(lock).collect();
                    let mut others: Vec<&mut World> = guards.iter_mut().map(|g| &mut **g).collect();
                    self.gather(map, &mut others, false);
                    self.process(t, ev);
                    self.relocate_events(map, &mut others);
                    self.swap_owned(map, &mut others);
                    self.next_window(until, end)
                }))),
                Step::Stop { .. } => {
                    self.import(shared.mailboxes, shared.threads);
                    self.now = self.now.max(until);
                    shared.barrier.wait();
                    return failure;
                }
            };
            // A thread that failed stops the chunk (noticed here, a step after it failed at most).
            step = if lock(&shared.failed).is_some() { Step::Stop { until } } else { next };
            i += 1;
            shared.steps.publish(i, step);
            shared.barrier.wait();
        }
    }

    /// The next window (`World::next_bound`), as a step.
    fn next_window(&mut self, until: SimTime, end: (SimTime, u64)) -> Step {
        let (bound, observer) = self.next_bound(end);
        Step::Window { bound, until, observed: Some(bound) == observer }
    }

    /// After an observer ran on the gathered world, or a caller settled it between chunks: the
    /// events that scheduled for other threads' processes (a lazy source's next wake-up and its
    /// cells' arrivals at its switch, `lazy.rs`) go to their queues, not lost in thread 0's copies.
    fn relocate_events(&mut self, map: &ThreadMap, others: &mut [&mut World]) {
        for lp in 0..self.lps.len() {
            let t = map.lp_thread[lp] as usize;
            if t == 0 {
                continue;
            }
            let owner = &mut *others[t - 1];
            while let Some((at, ev)) = self.lps[lp].pop() {
                owner.lp_next[lp] = owner.lp_next[lp].min(at);
                owner.lps[lp].push(at, ev);
            }
            owner.new_heads[lp].append(&mut self.new_heads[lp]);
        }
    }

    /// One window of this shard: the cells other threads sent it, its own processes' events
    /// before `bound`, and the cells it sent other threads.
    fn shard_window(&mut self, bound: (SimTime, u64), until: SimTime, mailboxes: &[Mailbox], threads: usize) {
        self.import(mailboxes, threads);
        self.bound = bound;
        let start = self.now;
        let owned = std::mem::take(&mut self.shard.as_mut().expect("a shard").owned);
        for &lp in &owned {
            if self.lp_next[lp as usize] <= bound.0 {
                self.run_lp(lp as usize, start, bound);
            }
        }
        self.shard.as_mut().expect("a shard").owned = owned;
        self.now = bound.0.min(until);
        self.export(mailboxes, threads);
    }

    /// The cells that left this shard's crossing links' buffers by now go to the receivers'
    /// mailboxes (a FIFO port's queued cells are its pipe's newest entries and stay).
    fn export(&mut self, mailboxes: &[Mailbox], k: usize) {
        let shard = self.shard.as_mut().expect("a shard");
        let me = shard.index;
        for (cell, at) in shard.tcp_drops.drain(..) {
            let to = shard.vc_ends[cell.vc.index()] as usize;
            lock(&mailboxes[me * k + to]).drops.push((cell, at));
        }
        for &v in &shard.tcp_logged {
            let super::Ends::Tcp(tcp) = &mut self.vcs[v.index()].ends else { unreachable!("a TCP connection") };
            if let Some(log) = tcp.take_frame_log() {
                for to in (0..k).filter(|&j| j != me) {
                    lock(&mailboxes[me * k + to]).frames.push((v, log.clone()));
                }
            }
        }
        let shard = self.shard.as_ref().expect("a shard");
        for &(p, to) in &shard.credit_out {
            // This thread runs the hop's transmitter (its BSCs go) or its receiver (its BSUs).
            let line = if shard.runs_lp(self.port_lp[p.index()]) {
                &mut self.credit_rx[p.index()].as_mut().expect("a credit hop").bscs
            } else {
                &mut self.ports[p.index()].credit_mut().expect("a credit port").bsus
            };
            if !line.is_empty() {
                line.move_into(p, &mut lock(&mailboxes[me * k + to as usize]).controls);
            }
        }
        let mut to_thread = usize::MAX;
        let mut mailbox = None;
        for &(p, to) in &shard.out {
            let port = &mut self.ports[p.index()];
            port.sync(self.now);
            let queued = if port.is_event_scheduled() { 0 } else { port.buffer.len() as usize };
            let leaving = port.pipe.len() - queued;
            if leaving == 0 {
                continue;
            }
            if to as usize != to_thread {
                to_thread = to as usize;
                mailbox = Some(lock(&mailboxes[me * k + to_thread]));
            }
            let mail = mailbox.as_mut().expect("locked");
            mail.links.push((p, leaving as u32));
            port.pipe.move_front_into(leaving, &mut mail.cells);
        }
    }

    /// The cells other threads sent this shard go into its copies of their pipes; a pipe that was
    /// empty has its new head scheduled here, where its arrivals are taken (the sender does not).
    fn import(&mut self, mailboxes: &[Mailbox], k: usize) {
        let me = self.shard.as_ref().expect("a shard").index;
        for from in (0..k).filter(|&j| j != me) {
            let mut mail = lock(&mailboxes[from * k + me]);
            let Mail { links, cells, drops, frames, controls } = &mut *mail;
            let mut at = 0;
            for &(p, n) in links.iter() {
                let sent = &cells[at..at + n as usize];
                at += n as usize;
                let pipe = &mut self.ports[p.index()].pipe;
                let head = pipe.is_empty();
                pipe.extend_from_slice(sent);
                if head {
                    self.schedule(sent[0].arrival, Event::PipeArrival(p));
                }
            }
            links.clear();
            cells.clear();
            for (cell, at) in drops.drain(..) {
                if let super::Ends::Tcp(t) = &mut self.vcs[cell.vc.index()].ends {
                    t.on_cell_dropped(&cell, at);
                }
            }
            for (v, log) in frames.drain(..) {
                if let super::Ends::Tcp(t) = &mut self.vcs[v.index()].ends {
                    t.apply_frame_log(&log);
                }
            }
            for (p, at, msg) in controls.drain(..) {
                self.credit_arrived(p, at, msg);
            }
        }
    }
}

/// A thread other than 0: the steps thread 0 announces, until it stops.
fn worker(shard: &Mutex<World>, shared: &Shared) {
    let mut failed = false;
    let mut i = 0;
    shared.barrier.wait();
    loop {
        let step = shared.steps.read(i);
        if !failed && !matches!(step, Step::Observe) {
            let mut w = lock(shard);
            let r = catch_unwind(AssertUnwindSafe(|| match step {
                Step::Window { bound, until, .. } => w.shard_window(bound, until, shared.mailboxes, shared.threads),
                Step::Stop { until } => {
                    w.import(shared.mailboxes, shared.threads);
                    w.now = w.now.max(until);
                }
                Step::Observe => {}
            }));
            if let Err(e) = r {
                failed = true;
                let at = w.current.map_or(String::new(), |ev| format!(" (at {}, {ev:?})", w.now));
                lock(&shared.failed).get_or_insert(format!("a thread failed{at}: {}", panic_message(&*e)));
            }
        }
        shared.barrier.wait();
        if matches!(step, Step::Stop { .. }) {
            return;
        }
        i += 1;
    }
}
