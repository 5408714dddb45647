//! Output ports and the link pipes they feed.
//!
//! A port is one direction of one link: a finite buffer, a transmitter at the link rate and,
//! behind it, a pipe holding the cells in propagation. Each keeps only one pending wake-up:
//! the port its next departure, the pipe the arrival of its head cell (STYLE §3).

mod buffer;

pub use buffer::{DropReason, PortBuffer, VcBooks};

use crate::abr::switch::AnyAbrSwitch;
use crate::cell::{Cell, CELL_BITS};
use crate::ids::NodeId;
use ccsim_engine::{SimDuration, SimTime, TxClock};
use std::collections::VecDeque;

/// Time integral and extremes of the queue length, updated on every change.
#[derive(Clone, Debug, Default)]
pub struct QueueStats {
    area: u128,
    last_change: SimTime,
    last_len: u32,
    pub max: u32,
    /// Largest length since the measurement window opened.
    pub window_max: u32,
}

impl QueueStats {
    #[inline]
    pub fn record(&mut self, now: SimTime, len: u32) {
        self.area += self.last_len as u128 * now.saturating_since(self.last_change).as_ps() as u128;
        self.last_change = now;
        self.last_len = len;
        self.max = self.max.max(len);
        self.window_max = self.window_max.max(len);
    }

    /// The integral of the queue length up to `now`, in cell·picoseconds.
    pub fn area_at(&self, now: SimTime) -> u128 {
        self.area + self.last_len as u128 * now.saturating_since(self.last_change).as_ps() as u128
    }
}

pub struct Port {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub link_name: String,
    pub buffer: PortBuffer,
    clock: TxClock,
    pub delay: SimDuration,
    /// Cells in propagation with their arrival times, oldest first.
    pub pipe: VecDeque<(SimTime, Cell)>,
    /// The ABR rate-allocation scheme; only switch ports have one.
    pub scheme: Option<AnyAbrSwitch>,
    /// Is a departure event pending (i.e. is the transmitter busy)?
    pub busy: bool,
    pub queue: QueueStats,
    /// Cells that finished transmission (and entered the pipe).
    pub departed: u64,
    /// Cells that finished crossing the link.
    pub delivered: u64,
    /// Whether this port belongs to a switch (host ports are left out of queue plots).
    pub at_switch: bool,
}

impl Port {
    pub fn new(
        name: String,
        link_name: String,
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: SimDuration,
        buffer_cells: u32,
        n_vcs: usize,
        scheme: Option<AnyAbrSwitch>,
        at_switch: bool,
    ) -> Self {
        Port {
            name,
            from,
            to,
            link_name,
            buffer: PortBuffer::new(buffer_cells, n_vcs),
            clock: TxClock::new(rate_bps),
            delay,
            pipe: VecDeque::new(),
            scheme,
            busy: false,
            queue: QueueStats::default(),
            departed: 0,
            delivered: 0,
            at_switch,
        }
    }

    pub fn rate_bps(&self) -> u64 {
        self.clock.bits_per_sec()
    }

    /// Link capacity in cells per second.
    pub fn cell_rate(&self) -> f64 {
        self.clock.bits_per_sec() as f64 / CELL_BITS as f64
    }

    #[inline]
    pub fn next_tx_time(&mut self) -> SimDuration {
        self.clock.tx_time(CELL_BITS)
    }
}
