//! Port disciplines: the order in which a port's transmitter takes what its buffer admitted.
//! One file per discipline; the `AnyDiscipline` family is stored inline in the port.
//!
//! Two shapes, because they cost differently:
//!
//! - **FIFO** (`fifo.rs`, the fast path): work-conserving and never reordering, so an admitted
//!   cell's departure is known at admission. The cell goes straight into the link pipe with its
//!   arrival time and the buffer only counts it (the queued cells are the pipe's newest
//!   entries); departures are applied lazily by `Port::sync`. No departure events.
//! - **Held** disciplines (`Held`, the `AnyHeldOrder` family): the port holds its cells and the
//!   transmitter takes one at a time, so departures are events (`World`'s `PortDeparture`).
//!   Only ports that use one pay for it (the state is boxed; FIFO ports keep their layout).
//!
//! ## The contract a held discipline implements (`HeldOrder`)
//!
//! - **Admission.** The port's buffer and its policy decide first, for the classes the buffer
//!   covers (`buffered`); `hold` sees only cells that were admitted (or classes outside the
//!   buffer, such as strict priority's high class, which are never dropped [RECON]).
//! - **Books.** The buffer counts a held cell as queued from admission until its transmission
//!   *ends*: the port calls `PortBuffer::release` then, records the queue length, and the cell
//!   enters the pipe. Every held cell is visible to `cells` (conservation counts them).
//! - **When a cell may leave.** Whenever the transmitter is free, the port asks `next`. A cell
//!   returned (`Next::Cell`) is in service for its serialisation time; its end is the port's
//!   pending `PortDeparture` event. `Next::At(t)`: nothing is eligible before `t` (a pacer), and
//!   the port wakes itself then with a `PortDeparture` event. `Next::Idle` with cells held: none
//!   is eligible until something outside changes the discipline (a credit arrives, a pacer's
//!   rate rises from zero) and calls `Port::kick`, which asks `next` again. A wake-up that a
//!   kick or a departure made stale is ignored when it fires.
//! - **Order.** A discipline may reorder across VCs (priority, fair queuing) but must keep each
//!   VC's cells in order (AAL5 reassembly and TCP rely on it).
//!
//! A new discipline: a file with its state and `impl HeldOrder`, a variant of `AnyHeldOrder`
//! and its arms below (docs/extending.md).

mod credit;
mod credit_rx;
pub mod csma_cd;
mod credit_train;
mod fifo;
mod held_fifo;
mod lan_medium;
mod scfq;
mod strict_priority;

pub use credit::{Control, ControlLine, Credit, CreditParams};
pub use credit_rx::{CreditRx, CreditStats};
pub use csma_cd::{CsmaCd, CsmaStats};
pub use credit_train::Train;
pub use held_fifo::HeldFifo;
pub use lan_medium::LanMedium;
pub use scfq::Scfq;
pub use strict_priority::StrictPriority;

use super::{DropReason, InFlight, Port};
use crate::cell::{Cell, CellKind, Stamp};
use ccsim_engine::SimTime;

/// How a port orders its cells.
#[derive(Clone, Debug, Default)]
pub enum AnyDiscipline {
    /// First in, first out; a cell's departure is computed when it is admitted (fast path).
    #[default]
    Fifo,
    /// A discipline that holds its cells; departures are events. Boxed: inline, its queues would
    /// push the port's per-cell fields apart (see `Port`).
    Held(Box<Held>),
}

impl AnyDiscipline {
    /// A held discipline of this order.
    pub fn held(order: AnyHeldOrder) -> Self {
        AnyDiscipline::Held(Box::new(Held::new(order)))
    }
}

/// What every held discipline shares: the cell in service, and the discipline's own order.
#[derive(Clone, Debug)]
pub struct Held {
    /// The cell being transmitted, chosen when its transmission began, and when it ends.
    in_service: Option<Cell>,
    service_end: SimTime,
    /// The transmitter, idle, looks again at this time (`Next::At`).
    wake: Option<SimTime>,
    order: AnyHeldOrder,
}

/// The held disciplines.
#[derive(Clone, Debug)]
pub enum AnyHeldOrder {
    /// CBR/VBR cells before ABR/UBR cells, non-preemptive (background traffic).
    StrictPriority(StrictPriority),
    /// Self-clocked fair queuing over per-VC queues, weights from MCR (GFR).
    Scfq(Scfq),
    /// FIFO that holds its cells (a policy counts tagged cells per VC: WBA).
    Fifo(HeldFifo),
    /// Controlled Transfer: per-connection queues sent on credit from the next element (CT).
    Credit(Credit),
    /// An HG-RCP intranet's LAN medium: per host a default queue and a rate-managed, paced one.
    Lan(LanMedium),
}

/// What a held discipline offers the free transmitter (module doc).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Next {
    /// This cell starts now.
    Cell(Cell),
    /// Nothing is eligible before this time.
    At(SimTime),
    /// Nothing is eligible until a kick (or nothing is held).
    Idle,
}

impl Next {
    fn from(cell: Option<Cell>) -> Next {
        cell.map_or(Next::Idle, Next::Cell)
    }

    /// The cell, if one starts now.
    pub fn cell(self) -> Option<Cell> {
        match self {
            Next::Cell(c) => Some(c),
            _ => None,
        }
    }
}

/// The contract of a held discipline (module doc).
pub trait HeldOrder {
    /// Whether the port's buffer (capacity, policy, books) covers this cell's class.
    fn buffered(&self, cell: &Cell) -> bool;
    /// Keeps an admitted cell.
    fn hold(&mut self, cell: Cell);
    /// What the free transmitter may start now.
    fn next(&mut self, now: SimTime) -> Next;
    /// Every cell held (not the one in service).
    fn cells(&self) -> impl Iterator<Item = &Cell>;
}

impl AnyHeldOrder {
    #[inline]
    fn buffered(&self, cell: &Cell) -> bool {
        match self {
            AnyHeldOrder::StrictPriority(d) => d.buffered(cell),
            AnyHeldOrder::Scfq(d) => d.buffered(cell),
            AnyHeldOrder::Fifo(d) => d.buffered(cell),
            AnyHeldOrder::Credit(d) => d.buffered(cell),
            AnyHeldOrder::Lan(d) => d.buffered(cell),
        }
    }
    #[inline]
    fn hold(&mut self, cell: Cell) {
        match self {
            AnyHeldOrder::StrictPriority(d) => d.hold(cell),
            AnyHeldOrder::Scfq(d) => d.hold(cell),
            AnyHeldOrder::Fifo(d) => d.hold(cell),
            AnyHeldOrder::Credit(d) => d.hold(cell),
            AnyHeldOrder::Lan(d) => d.hold(cell),
        }
    }
    #[inline]
    fn next(&mut self, now: SimTime) -> Next {
        match self {
            AnyHeldOrder::StrictPriority(d) => d.next(now),
            AnyHeldOrder::Scfq(d) => d.next(now),
            AnyHeldOrder::Fifo(d) => d.next(now),
            AnyHeldOrder::Credit(d) => d.next(now),
            AnyHeldOrder::Lan(d) => d.next(now),
        }
    }
}

impl Held {
    pub fn new(order: AnyHeldOrder) -> Self {
        Held { in_service: None, service_end: SimTime::ZERO, wake: None, order }
    }

    /// Every cell the port holds, the one in service included (conservation counts).
    pub fn cells(&self) -> Box<dyn Iterator<Item = &Cell> + '_> {
        let held: Box<dyn Iterator<Item = &Cell>> = match &self.order {
            AnyHeldOrder::StrictPriority(d) => Box::new(d.cells()),
            AnyHeldOrder::Scfq(d) => Box::new(d.cells()),
            AnyHeldOrder::Fifo(d) => Box::new(d.cells()),
            AnyHeldOrder::Credit(d) => Box::new(d.cells()),
            AnyHeldOrder::Lan(d) => Box::new(d.cells()),
        };
        Box::new(self.in_service.iter().chain(held))
    }
}

impl Port {
    /// The bits this port has put on its link by `now` (brought up to `now`): its finished
    /// transmissions (`departed_bits`) and the part of the one in progress already sent. Over a
    /// window, the difference of two readings is the link's busy time × its rate exactly, so a
    /// utilisation never exceeds 1 (counting finished transmissions alone, a window could gain a
    /// whole transmission begun before it).
    pub fn bits_sent_at(&self, now: SimTime) -> f64 {
        let rate = self.rate_bps() as f64 / ccsim_engine::PS_PER_SEC as f64;
        let in_progress = match &self.discipline {
            AnyDiscipline::Fifo => self.queued_head().map(|f| (self.departure_of(f), f.cell.bits() as f64)),
            AnyDiscipline::Held(h) => match &h.order {
                AnyHeldOrder::Credit(Credit { train: Some(t), .. }) => t.in_progress(now),
                _ => h.in_service.as_ref().map(|c| (h.service_end, c.bits() as f64)),
            },
        };
        let partial = match in_progress {
            Some((end, bits)) if end > now => (bits - end.saturating_since(now).as_ps() as f64 * rate).max(0.0),
            _ => 0.0,
        };
        self.departed_bits as f64 + partial
    }

    /// A GFR VC's MCR (cells/s) weighs it here: in a WBA policy (W_i = MCR / link cell rate) and
    /// in an SCFQ discipline (w_i = MCR). Ports that use no weights ignore it.
    pub fn set_vc_weight(&mut self, vc: crate::ids::VcId, mcr: f64) {
        let rate = self.cell_rate();
        if let crate::port::AnyBufferPolicy::Wba(w) = self.buffer.policy_mut() {
            *w.weights.entry(vc) = mcr / rate;
        }
        if let AnyDiscipline::Held(h) = &mut self.discipline {
            if let AnyHeldOrder::Scfq(s) = &mut h.order {
                s.set_weight(vc, mcr);
            }
        }
    }

    /// The LAN medium this port is, if it is one.
    pub fn lan_medium(&self) -> Option<&LanMedium> {
        match &self.discipline {
            AnyDiscipline::Held(h) => match &h.order {
                AnyHeldOrder::Lan(p) => Some(p),
                _ => None,
            },
            AnyDiscipline::Fifo => None,
        }
    }

    /// The hosts' pacers of an HG-RCP LAN medium, if this port is one.
    pub fn lan_medium_mut(&mut self) -> Option<&mut LanMedium> {
        match &mut self.discipline {
            AnyDiscipline::Held(h) => match &mut h.order {
                AnyHeldOrder::Lan(p) => Some(p),
                _ => None,
            },
            AnyDiscipline::Fifo => None,
        }
    }

    /// A frame this port's CSMA/CD medium discarded after the attempt limit: it leaves the
    /// buffer's books (the caller counts the drop in its VC's books).
    pub fn take_medium_discard(&mut self, now: SimTime) -> Option<Cell> {
        let cell = self.lan_medium_mut()?.take_discard()?;
        self.buffer.release(cell.vc, cell.clp());
        self.queue.record(now, self.buffer.len());
        Some(cell)
    }

    /// The credit control of a CT port, if it is one.
    pub fn credit(&self) -> Option<&Credit> {
        match &self.discipline {
            AnyDiscipline::Held(h) => match &h.order {
                AnyHeldOrder::Credit(c) => Some(c),
                _ => None,
            },
            AnyDiscipline::Fifo => None,
        }
    }

    pub fn credit_mut(&mut self) -> Option<&mut Credit> {
        match &mut self.discipline {
            AnyDiscipline::Held(h) => match &mut h.order {
                AnyHeldOrder::Credit(c) => Some(c),
                _ => None,
            },
            AnyDiscipline::Fifo => None,
        }
    }

    /// Whether this port orders cells by VC (only VCs sharing it give it anything to order).
    pub fn is_per_vc_discipline(&self) -> bool {
        matches!(&self.discipline, AnyDiscipline::Held(h) if matches!(h.order, AnyHeldOrder::Scfq(_)))
    }

    /// Whether this port holds its cells (departures are events).
    #[inline]
    pub fn is_event_scheduled(&self) -> bool {
        matches!(self.discipline, AnyDiscipline::Held(_))
    }

    /// The cells a held discipline holds, in service included (none for FIFO: its queued cells
    /// are already in the pipe).
    pub fn held_cells(&self) -> Option<Box<dyn Iterator<Item = &Cell> + '_>> {
        match &self.discipline {
            AnyDiscipline::Held(h) => Some(h.cells()),
            AnyDiscipline::Fifo => None,
        }
    }

    /// Offers a cell to a held-discipline port. If the transmitter was idle and a cell is
    /// eligible, it starts now and the result is when its transmission ends (the caller
    /// schedules the departure).
    pub fn offer_held(&mut self, now: SimTime, cell: Cell) -> Result<Option<SimTime>, DropReason> {
        let AnyDiscipline::Held(h) = &mut self.discipline else { unreachable!("FIFO ports use offer") };
        let buffered = h.order.buffered(&cell);
        if buffered {
            self.buffer.admit(&cell)?;
        }
        h.order.hold(cell);
        if buffered {
            self.queue.record(now, self.buffer.len());
        }
        if h.in_service.is_some() {
            return Ok(None);
        }
        Ok(self.start_next(now))
    }

    /// The transmitter is free at `now`: the discipline's next eligible cell starts. The result
    /// is when the port needs its next `PortDeparture` event (the transmission's end, or the
    /// wake-up of a discipline with nothing eligible yet), unless one is pending for that time.
    fn start_next(&mut self, now: SimTime) -> Option<SimTime> {
        let AnyDiscipline::Held(h) = &mut self.discipline else { unreachable!("FIFO ports do not hold") };
        match h.order.next(now) {
            Next::Cell(mut c) => {
                // A forward data item on its source's access link (hop 0) leaves its source now.
                if c.hop == 0 && c.kind == CellKind::Data {
                    c.set_sent(Stamp::of(now));
                }
                h.wake = None;
                h.in_service = Some(c);
                h.service_end = now + self.clock.tx_time(c.bits());
                Some(h.service_end)
            }
            Next::At(t) if h.wake == Some(t) => None,
            Next::At(t) => {
                h.wake = Some(t);
                Some(t)
            }
            Next::Idle => {
                h.wake = None;
                None
            }
        }
    }

    /// An idle transmitter looks again (a credit arrived, a pacer's rate changed): the result is
    /// when the port needs its next `PortDeparture` event, if it needs a new one.
    pub fn kick(&mut self, now: SimTime) -> Option<SimTime> {
        let AnyDiscipline::Held(h) = &self.discipline else { return None };
        if h.in_service.is_some() {
            return None;
        }
        self.start_next(now)
    }

    /// A `PortDeparture` event at `now`. If the cell in service ends now, it leaves the buffer's
    /// books and enters the pipe (the result's first part: when it arrives and whether it is the
    /// pipe's new head); if the transmitter is free (that cell gone, or a wake-up due now), the
    /// next eligible cell starts (the second part: when the port needs its next event). A
    /// wake-up made stale by a kick or a transmission does nothing.
    pub fn depart(&mut self, now: SimTime) -> (Option<(SimTime, bool)>, Option<SimTime>) {
        let AnyDiscipline::Held(h) = &mut self.discipline else { unreachable!("FIFO ports do not depart") };
        if h.in_service.is_none() {
            if h.wake != Some(now) {
                return (None, None);
            }
            h.wake = None;
            return (None, self.start_next(now));
        }
        if h.service_end != now {
            return (None, None);
        }
        let cell = h.in_service.take().expect("checked");
        if h.order.buffered(&cell) {
            self.buffer.release(cell.vc, cell.clp());
            self.queue.record(now, self.buffer.len());
        }
        self.departed += 1;
        self.departed_bits += cell.bits();
        let arrival = now + self.delay;
        let head = self.pipe.is_empty();
        self.pipe.push_back(InFlight { arrival, cell });
        (Some((arrival, head)), self.start_next(now))
    }
}
