//! TCP connections in the world: their start, their one timer event (retransmission and
//! delayed ACK share it), and the cells their hosts produce. The segments, ACKs and AAL5
//! framing themselves are `tcp/` and `tcp_host.rs`; arrivals at the hosts are `node/host.rs`'s.
//!
//! Owns each connection's timer generation; sends only through the VC's own hosts.

use super::vc::Ends;
use super::{Event, World};
use crate::cell::Cell;
use crate::ids::VcId;

impl World {
    /// A TCP connection opens: its first segments leave, its timer is armed.
    pub(in crate::world) fn start_tcp(&mut self, v: VcId) {
        let mut fwd = std::mem::take(&mut self.scratch_fwd);
        if let Ends::Tcp(t) = &mut self.vcs[v.index()].ends {
            t.start(self.now, v, &mut fwd);
        }
        self.tcp_emit(v, &mut fwd, true);
        self.scratch_fwd = fwd;
        self.schedule_tcp(v);
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
    /// pacing (its capacity is the access port's). A frame whose cells do not all fit is dropped
    /// whole (TCP recovers) [RECON]; the others are stamped with the time they were queued (the
    /// cell transfer delay's start, `crate::delays`).
    fn adapter_emit(&mut self, v: VcId, cells: &mut Vec<Cell>) {
        let now = self.now;
        let port = self.vcs[v.index()].fwd_ports[0];
        let capacity = self.ports[port.index()].buffer.capacity();
        let mut queued = 0u64;
        let mut rest = &cells[..];
        while let Some(first) = rest.first() {
            let n = rest.iter().position(|c| c.frame != first.frame).unwrap_or(rest.len());
            let (frame, tail) = rest.split_at(n);
            rest = tail;
            let vc = &mut self.vcs[v.index()];
            let abr = match &mut vc.ends {
                Ends::Tcp(t) => t.abr.as_mut(),
                _ => None,
            };
            let held = abr.as_ref().map_or(self.ports[port.index()].buffer.len(), |a| a.backlog.len() as u32);
            if capacity.saturating_sub(held) < n as u32 {
                let over_abr = abr.is_some();
                for c in frame {
                    vc.books.fwd_sent += 1;
                    vc.books.data_sent += 1;
                    vc.books.count_drop(c);
                    if !over_abr {
                        self.ports[port.index()].buffer.reject(v, crate::port::DropReason::FrameDiscard);
                    }
                }
                continue;
            }
            let stamped = frame.iter().map(|&c| {
                let mut c = c;
                c.stamp(now);
                c
            });
            match abr {
                Some(a) => {
                    a.backlog.extend(stamped);
                    queued += n as u64;
                }
                None => {
                    for c in stamped {
                        self.send_forward(v, c);
                    }
                }
            }
        }
        cells.clear();
        if queued > 0 {
            let Ends::Tcp(t) = &mut self.vcs[v.index()].ends else { unreachable!("checked") };
            let a = t.abr.as_mut().expect("queued only over ABR");
            if let Some(next) = a.source.data_arrived(now, queued) {
                self.schedule_source(v, Some(next));
            }
        }
    }

    /// Keeps exactly one live timer event per TCP connection.
    pub(in crate::world) fn schedule_tcp(&mut self, v: VcId) {
        let Ends::Tcp(t) = &mut self.vcs[v.index()].ends else { return };
        let due = t.timer_due();
        if due != t.timer_at {
            t.timer_gen = t.timer_gen.wrapping_add(1);
            t.timer_at = due;
            let gen = t.timer_gen;
            if let Some(at) = due {
                self.schedule(at, Event::TcpTimer(v, gen));
            }
        }
    }

    pub(in crate::world) fn on_tcp_timer(&mut self, v: VcId, gen: u32) {
        let (mut fwd, mut bwd) = (std::mem::take(&mut self.scratch_fwd), std::mem::take(&mut self.scratch_bwd));
        if let Ends::Tcp(t) = &mut self.vcs[v.index()].ends {
            if t.timer_gen != gen {
                self.scratch_fwd = fwd;
                self.scratch_bwd = bwd;
                return;
            }
            t.timer_at = None;
            t.on_timer(self.now, v, &mut fwd, &mut bwd);
        }
        self.tcp_emit(v, &mut fwd, true);
        self.tcp_emit(v, &mut bwd, false);
        self.scratch_fwd = fwd;
        self.scratch_bwd = bwd;
        self.schedule_tcp(v);
    }
}
