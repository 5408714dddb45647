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
        if forward {
            // Over ABR the cells wait in the adapter for the source's pacing.
            if let Ends::Tcp(t) = &mut self.vcs[v.index()].ends {
                if let Some(a) = t.abr.as_mut() {
                    let n = cells.len() as u64;
                    let now = self.now;
                    // Stamped with the time they were queued (the cell transfer delay's start).
                    a.backlog.extend(cells.drain(..).map(|mut c| {
                        c.stamp(now);
                        c
                    }));
                    let next = a.source.data_arrived(self.now, n);
                    if next.is_some() {
                        self.schedule_source(v, next);
                    }
                    return;
                }
            }
        }
        if forward && self.vcs[v.index()].credit {
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

    /// A credit-controlled connection's source adapter (CT, seed 004): a frame whose cells do not
    /// all fit in the adapter's buffer is dropped whole (TCP recovers) [RECON].
    fn adapter_emit(&mut self, v: VcId, cells: &mut Vec<Cell>) {
        let port = self.vcs[v.index()].fwd_ports[0];
        let mut rest = &cells[..];
        while let Some(first) = rest.first() {
            let n = rest.iter().position(|c| c.frame != first.frame).unwrap_or(rest.len());
            let (frame, tail) = rest.split_at(n);
            rest = tail;
            let buffer = &self.ports[port.index()].buffer;
            if buffer.capacity() - buffer.len() < n as u32 {
                let books = &mut self.vcs[v.index()].books;
                for c in frame {
                    books.fwd_sent += 1;
                    books.data_sent += 1;
                    books.count_drop(c);
                    self.ports[port.index()].buffer.reject(v, crate::port::DropReason::FrameDiscard);
                }
                continue;
            }
            for &c in frame {
                // Stamped with the time it was queued (the cell transfer delay's start).
                let mut c = c;
                c.stamp(self.now);
                self.send_forward(v, c);
            }
        }
        cells.clear();
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
