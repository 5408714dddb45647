//! Running: the single-queue loop, the dispatch of every event to its room, and scheduling
//! into the queue an event belongs to (one queue, or a node's queue in windowed mode).
//!
//! Owns the clock, the event count and the fingerprint; what an event does is the rooms'.

use super::windows::{IN_TOURNAMENT, IN_WIDE_TOURNAMENT, REMOTE};
use super::{Event, World};
use crate::tcp_host::TcpEnd;
use ccsim_engine::SimTime;

impl World {
    /// Processes every event up to and including `until` (capped at the end of the run), and
    /// brings the world's lazy state up to it (`settle_now`). Returns true once the run is complete.
    pub fn run_until(&mut self, until: SimTime) -> bool {
        let done = self.advance(until);
        if !done {
            self.settle();
        }
        done
    }

    /// `run_until` without bringing lazy state (sources, sinks, ports) up to `until` before the
    /// run is complete: for callers that only chunk a run (the Python API, for Ctrl-C and
    /// progress), whose readers call `settle_now` first. Settling changes no result, but at
    /// 10,000 sources it costs every VC and port a visit per chunk end. Never inlined: profiles
    /// (`scripts/instructions.sh`) count the instructions inside it.
    #[inline(never)]
    pub fn advance(&mut self, until: SimTime) -> bool {
        let until = until.min(self.measure.end);
        if self.lps.is_empty() {
            while let Some((t, ev)) = self.queue.pop_until(until) {
                self.process(t, ev);
            }
        } else if self.threads.is_some() {
            self.run_threaded(until);
        } else {
            self.run_windows(until);
        }
        self.current = None;
        self.now = self.now.max(until);
        if self.is_done() {
            self.settle();
            if self.trace.is_some() {
                self.finish_trace();
            }
        }
        self.is_done()
    }

    /// Brings lazy state up to now: what counters read between chunks (`advance`) need first.
    /// Changes no result.
    pub fn settle_now(&mut self) {
        self.settle();
    }

    #[inline]
    pub(in crate::world) fn process(&mut self, t: SimTime, ev: Event) {
        self.current = Some(ev);
        self.enter(t, ev);
        self.dispatch(ev);
    }

    /// An event starts at `t`: the clock, the count and the fingerprint.
    #[inline]
    pub(in crate::world) fn enter(&mut self, t: SimTime, ev: Event) {
        self.now = t;
        let (kind, comp) = ev.kind_and_component();
        self.fingerprint.add(t.as_ps(), kind, comp);
        self.events += 1;
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::PipeArrival(p) => self.on_pipe_arrival(p),
            Event::SourceStart(v) => self.start_source(v),
            Event::PortDeparture(p) => self.on_port_departure(p),
            Event::TcpStart(v) => self.start_tcp(v),
            Event::TcpTimer(v, gen) => self.on_tcp_timer(v, gen, TcpEnd::Source),
            Event::TcpAckTimer(v, gen) => self.on_tcp_timer(v, gen, TcpEnd::Destination),
            Event::SourceWake(v, gen) => self.on_source_wake(v, gen),
            Event::SchemeTimer(p) => self.on_scheme_timer(p),
            Event::Sample => self.on_sample(),
            Event::WindowOpen => self.open_window(),
            Event::GatewayTimer(g) => self.on_gateway_timer(g),
            Event::Credit(p) => self.on_credit(p),
            Event::Bsu(p) => self.on_bsu(p),
            Event::Bsc(p) => self.on_bsc(p),
            Event::EdgeRelease(v) => self.on_edge_release(v),
            Event::EdgeRdTimer(v) => self.on_edge_rd_timer(v),
        }
    }

    /// Schedules `ev` at `t`, in the queue of the node it belongs to (windowed mode).
    #[inline(always)]
    pub(in crate::world) fn schedule(&mut self, t: SimTime, ev: Event) {
        debug_assert!(t >= self.now, "{ev:?} scheduled in the past");
        if self.lps.is_empty() {
            return self.queue.push(t, ev);
        }
        let lp = match ev {
            // Taken in order by `run_node`'s tournament: no event.
            Event::PipeArrival(p) if self.arrive_lp[p.index()] == IN_TOURNAMENT => return,
            // A wide node's kept tournament takes the pipe's new head.
            Event::PipeArrival(p) if self.arrive_lp[p.index()] == IN_WIDE_TOURNAMENT => return self.wide_head(p, t),
            // Its far end runs on another thread, which schedules the arrival (`threads.rs`).
            Event::PipeArrival(p) if self.arrive_lp[p.index()] == REMOTE => return,
            Event::PipeArrival(p) => self.arrive_lp[p.index()],
            Event::PortDeparture(p) | Event::SchemeTimer(p) | Event::Credit(p) => self.port_lp[p.index()],
            // A hop's control cells, sent by its other end: on threads, the thread that runs this
            // end schedules them as they reach its copy of the line (`threads.rs`). (Thread 0's
            // world gathered between chunks schedules for everyone: the events move to their
            // threads with the line, `relocate_events`.)
            Event::Bsu(_) | Event::Bsc(_) => {
                let lp = match ev {
                    Event::Bsu(p) => self.port_lp[p.index()],
                    Event::Bsc(p) => self.node_lp[self.ports[p.index()].to.index()],
                    _ => unreachable!(),
                };
                if self.threads.is_none() && self.shard.as_ref().is_some_and(|s| !s.runs_lp(lp)) {
                    return;
                }
                lp
            }
            Event::SourceStart(v) | Event::SourceWake(v, _) | Event::TcpStart(v) | Event::TcpTimer(v, _) => {
                self.vc_lp[v.index()]
            }
            Event::TcpAckTimer(v, _) => self.vc_dest_lp[v.index()],
            // Worlds with gateways or edges run from one queue (`can_run_in_windows`).
            Event::Sample | Event::WindowOpen | Event::GatewayTimer(_) | Event::EdgeRelease(_) | Event::EdgeRdTimer(_) => {
                return self.queue.push(t, ev)
            }
        };
        self.lp_next[lp as usize] = self.lp_next[lp as usize].min(t);
        self.lps[lp as usize].push(t, ev);
    }
}
