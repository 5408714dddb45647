//! TCP connections in the world: their start, the timer events of their two ends (the sender's
//! retransmission timer and the application's writes at the source host, the delayed ACK at the
//! destination host: each end's own, so that each belongs to its host's queue in windowed mode),
//! and the cells their hosts produce. The segments, ACKs and AAL5
//! framing themselves are `tcp/` and `tcp_host.rs`; arrivals at the hosts are `node/host.rs`'s.
//!
//! Owns each end's timer event; sends only through the VC's own hosts.

use super::vc::Ends;
use super::{Event, World};
use crate::cell::{Cell, Stamp};
use crate::ids::VcId;
use crate::tcp_host::{Fire, TcpEnd};

impl World {
    /// A TCP connection opens: its first segments leave, its timer is armed.
    pub(in crate::world) fn start_tcp(&mut self, v: VcId) {
        let mut fwd = std::mem::take(&mut self.scratch_fwd);
        if let Ends::Tcp(t) = &mut self.vcs[v.index()].ends {
            t.start(self.now, v, &mut fwd);
        }
        self.tcp_emit(v, &mut fwd, true);
        self.scratch_fwd = fwd;
        self.schedule_tcp(v, TcpEnd::Source);
    }

    /// Sends the cells a TCP host produced (forward from the source host, or backward from the
    /// destination host), counting them in the VC's books.
    pub(in crate::world) fn tcp_emit(&mut self, v: VcId, cells: &mut Vec<Cell>, forward: bool) {
        if forward && (self.vcs[v.index()].credit || matches!(&self.vcs[v.index()].ends, Ends::Tcp(t) if t.abr.is_some())) {
            return self.adapter_emit(v, cells);
        }
        for c in cells.drain(..) {
            if forward {
                self.send_forward(v, c);
            } else {
                self.send_backward(v, c);
            }
        }
    }

    /// A source adapter with a buffer of its own (seed 004): CT's, whose buffer is the access
    /// port's (the hop's transmitter), or TCP over ABR's, whose cells wait for the TM 4.0 source's
    /// pacing (its capacity is the access port's). A PDU whose cells do not all fit is dropped
    /// whole (TCP recovers) [RECON], or, with a blocking adapter, waits in the host with every PDU
    /// after it until there is room (`adapter_refill`).
    fn adapter_emit(&mut self, v: VcId, cells: &mut Vec<Cell>) {
        if let Ends::Tcp(t) = &mut self.vcs[v.index()].ends {
            if t.adapter_blocks {
                t.blocked.extend(cells.drain(..));
                return self.adapter_refill(v);
            }
        }
        let mut rest = &cells[..];
        let mut queued = 0;
        while let Some(first) = rest.first() {
            let n = rest.iter().position(|c| c.frame != first.frame).unwrap_or(rest.len());
            let (frame, tail) = rest.split_at(n);
            rest = tail;
            // A credit train's departures so far leave the adapter's buffer first.
            self.train_sync(self.vcs[v.index()].fwd_ports[0]);
            if self.adapter_room(v) >= n as u32 {
                queued += self.adapter_take(v, frame);
            } else {
                self.adapter_drop(v, frame);
            }
        }
        cells.clear();
        self.adapter_queued(v, queued);
    }

    /// A blocking adapter has room again (or new PDUs wait): whole PDUs move in while they fit.
    pub(in crate::world) fn adapter_refill(&mut self, v: VcId) {
        let mut queued = 0;
        loop {
            let Ends::Tcp(t) = &mut self.vcs[v.index()].ends else { return };
            let Some(first) = t.blocked.front().map(|c| c.frame) else { break };
            let n = t.blocked.iter().position(|c| c.frame != first).unwrap_or(t.blocked.len());
            if self.adapter_room(v) < n as u32 {
                break;
            }
            let Ends::Tcp(t) = &mut self.vcs[v.index()].ends else { unreachable!() };
            let frame: Vec<Cell> = t.blocked.drain(..n).collect();
            queued += self.adapter_take(v, &frame);
        }
        self.adapter_queued(v, queued);
    }

    /// Cells the adapter of `v` can still take.
    fn adapter_room(&self, v: VcId) -> u32 {
        let vc = &self.vcs[v.index()];
        let buffer = &self.ports[vc.fwd_ports[0].index()].buffer;
        let held = match &vc.ends {
            Ends::Tcp(t) if t.abr.is_some() => t.abr.as_ref().map_or(0, |a| a.backlog.len() as u32),
            _ => buffer.len(),
        };
        buffer.capacity().saturating_sub(held)
    }

    /// A PDU enters the adapter, its cells stamped with the time they were queued (the cell transfer
    /// delay's start, `Cell::queued`). Over ABR they wait for the source (the count is returned for
    /// `adapter_queued`); over CT they enter the access port at once.
    fn adapter_take(&mut self, v: VcId, frame: &[Cell]) -> u64 {
        let now = self.now;
        let stamped = frame.iter().map(|&c| {
            let mut c = c;
            c.set_queued(Stamp::of(now));
            c
        });
        if let Ends::Tcp(t) = &mut self.vcs[v.index()].ends {
            if let Some(a) = t.abr.as_mut() {
                a.backlog.extend(stamped);
                return frame.len() as u64;
            }
        }
        for c in stamped {
            self.send_forward(v, c);
        }
        0
    }

    /// A PDU the adapter has no room for is dropped whole: over CT at the access port (the VC's
    /// books), over ABR before the VC (the host's count).
    fn adapter_drop(&mut self, v: VcId, frame: &[Cell]) {
        let port = self.vcs[v.index()].fwd_ports[0];
        let vc = &mut self.vcs[v.index()];
        if let Ends::Tcp(t) = &mut vc.ends {
            if t.abr.is_some() {
                t.stats.adapter_drops += frame.len() as u64;
                t.on_cell_dropped(&frame[0], self.now);
                return;
            }
        }
        for c in frame {
            let vc = &mut self.vcs[v.index()];
            vc.books.fwd_sent += 1;
            vc.books.data_sent += 1;
            self.count_drop(c, self.now);
            self.ports[port.index()].buffer.reject(v, crate::port::DropReason::FrameDiscard);
            if self.trace.is_some() {
                let why = crate::trace::TraceReason::Port(crate::port::DropReason::FrameDiscard);
                self.trace_offered(port, c, self.now, why);
            }
        }
    }

    /// `queued` cells entered an ABR adapter: its source learns of them.
    fn adapter_queued(&mut self, v: VcId, queued: u64) {
        if queued == 0 {
            return;
        }
        let Ends::Tcp(t) = &mut self.vcs[v.index()].ends else { unreachable!("a TCP connection") };
        let a = t.abr.as_mut().expect("queued only over ABR");
        if let Some(next) = a.source.data_arrived(self.now, queued) {
            self.schedule_source(v, Some(next));
        }
    }

    /// Brings the timer event of an end of connection `v` in line with its due time
    /// (`TimerSlot`): after anything that end handled.
    pub(in crate::world) fn schedule_tcp(&mut self, v: VcId, end: TcpEnd) {
        let Ends::Tcp(t) = &mut self.vcs[v.index()].ends else { return };
        let due = t.due(end);
        if let Some((at, gen)) = t.timer(end).arm(due) {
            self.schedule(at, timer_event(v, gen, end));
        }
    }

    /// An end's timer event: superseded, early (re-armed), or due: at the source the sender's
    /// retransmission timer and the application's write run, at the destination the delayed ACK.
    pub(in crate::world) fn on_tcp_timer(&mut self, v: VcId, gen: u32, end: TcpEnd) {
        let now = self.now;
        let Ends::Tcp(t) = &mut self.vcs[v.index()].ends else { return };
        match t.timer(end).fire(gen, now) {
            Fire::Nothing => return,
            Fire::Rearm(at, gen) => return self.schedule(at, timer_event(v, gen, end)),
            Fire::Due => {}
        }
        let forward = end == TcpEnd::Source;
        let mut out = std::mem::take(if forward { &mut self.scratch_fwd } else { &mut self.scratch_bwd });
        t.on_timer(end, now, v, &mut out);
        self.tcp_emit(v, &mut out, forward);
        *(if forward { &mut self.scratch_fwd } else { &mut self.scratch_bwd }) = out;
        self.schedule_tcp(v, end);
    }
}

/// The timer event of an end: at its own host (`TcpTimer` at the source, `TcpAckTimer` at the
/// destination).
fn timer_event(v: VcId, gen: u32, end: TcpEnd) -> Event {
    match end {
        TcpEnd::Source => Event::TcpTimer(v, gen),
        TcpEnd::Destination => Event::TcpAckTimer(v, gen),
    }
}
