//! The `AnyAbrSwitch` family: rate-allocation schemes run at a switch output port.
//!
//! A scheme is told about cells through hooks with no-op defaults and stores its state inline
//! in the enum, so the per-cell path dispatches by `match` with no vtable and no boxing
//! (docs/DESIGN.md §3). Measurement is at the VC's *forward* output port; feedback is written into the
//! VC's backward RM cells as they pass the same switch (docs/models/abr/erica.md, "Model").
//!
//! Adding a scheme: a file here with a struct implementing `AbrSwitch`, a variant in
//! `AnyAbrSwitch` (and in `dispatch!`), its `type` tag in the scenario schema, a doc page.

mod debra;
mod efci;
mod eprca;
mod erica;
mod erica_plus;
mod ut;

pub use debra::{knee, water_level, Debra, DebraParams};
pub use efci::{Efci, EfciMode, EfciParams};
pub use eprca::{Eprca, EprcaParams};
pub use erica::{Erica, EricaParams, LoadAveraging};
pub use erica_plus::QueueControl;
pub use ut::{AbrRateReading, Ut, UtParams};

use crate::cell::Cell;
use crate::ids::VcId;
use ccsim_engine::SimTime;

/// What a scheme may see of its port when a hook runs.
#[derive(Copy, Clone, Debug)]
pub struct PortView {
    pub now: SimTime,
    /// Cells in the port's buffer, including the one being transmitted.
    pub queue_len: u32,
    /// Link capacity in cells per second.
    pub link_rate: f64,
}

pub trait AbrSwitch {
    /// Every ABR data cell or FRM arriving for this port (before the buffer decides whether it
    /// fits, so this is the offered load). May mark the cell (EFCI).
    fn on_cell_arrival(&mut self, _cell: &mut Cell, _view: &PortView) {}
    /// Whether a data cell that arrived for this port may enter its buffer (after
    /// `on_cell_arrival`); a scheme that discards selectively (DEBRA) says no here and the
    /// buffer records the drop.
    fn admit(&mut self, _cell: &Cell, _view: &PortView) -> bool {
        true
    }
    /// A forward RM cell arriving for this port (after `on_cell_arrival`).
    fn on_frm(&mut self, _vc: VcId, _cell: &Cell, _view: &PortView) {}
    /// A CBR/VBR cell arriving for this port: it takes capacity from ABR (docs/models/vbr.md, "Model").
    fn on_background_cell(&mut self, _view: &PortView) {}
    /// A backward RM cell of a VC whose forward port this is; may lower ER or set CI/NI.
    fn on_brm(&mut self, _vc: VcId, _cell: &mut Cell, _view: &PortView) {}
    /// When the scheme next needs a timer call, if ever.
    fn timer_due(&self) -> Option<SimTime> {
        None
    }
    /// The timer fired at or after `timer_due()`.
    fn on_timer(&mut self, _view: &PortView) {}

    /// A VC that will cross the port, announced by the builder in VC order before the run: a
    /// scheme that keeps per-VC state makes its entry now, so that its per-interval sums run in
    /// VC order (entries for VCs never announced are made on first use).
    fn register(&mut self, _vc: VcId) {}
}

/// Every ABR switch scheme, stored inline.
#[derive(Clone, Debug)]
pub enum AnyAbrSwitch {
    Efci(Efci),
    Erica(Erica),
    /// ERICA with `queue_control` set (erica_plus.rs).
    EricaPlus(Erica),
    Eprca(Eprca),
    Debra(Debra),
    Ut(Ut),
}

macro_rules! dispatch {
    ($self:expr, $s:ident => $body:expr) => {
        match $self {
            AnyAbrSwitch::Efci($s) => $body,
            AnyAbrSwitch::Erica($s) | AnyAbrSwitch::EricaPlus($s) => $body,
            AnyAbrSwitch::Eprca($s) => $body,
            AnyAbrSwitch::Debra($s) => $body,
            AnyAbrSwitch::Ut($s) => $body,
        }
    };
}

impl AnyAbrSwitch {
    pub fn type_name(&self) -> &'static str {
        match self {
            AnyAbrSwitch::Efci(_) => "efci",
            AnyAbrSwitch::Erica(_) => "erica",
            AnyAbrSwitch::EricaPlus(_) => "erica_plus",
            AnyAbrSwitch::Eprca(_) => "eprca",
            AnyAbrSwitch::Debra(_) => "debra",
            AnyAbrSwitch::Ut(_) => "ut",
        }
    }

    #[inline]
    pub fn on_cell_arrival(&mut self, cell: &mut Cell, view: &PortView) {
        dispatch!(self, s => s.on_cell_arrival(cell, view))
    }
    #[inline]
    pub fn on_background_cell(&mut self, view: &PortView) {
        dispatch!(self, s => s.on_background_cell(view))
    }
    #[inline]
    pub fn admit(&mut self, cell: &Cell, view: &PortView) -> bool {
        dispatch!(self, s => s.admit(cell, view))
    }
    #[inline]
    pub fn on_frm(&mut self, vc: VcId, cell: &Cell, view: &PortView) {
        dispatch!(self, s => s.on_frm(vc, cell, view))
    }
    #[inline]
    pub fn on_brm(&mut self, vc: VcId, cell: &mut Cell, view: &PortView) {
        dispatch!(self, s => s.on_brm(vc, cell, view))
    }
    #[inline]
    pub fn timer_due(&self) -> Option<SimTime> {
        dispatch!(self, s => s.timer_due())
    }
    #[inline]
    pub fn on_timer(&mut self, view: &PortView) {
        dispatch!(self, s => s.on_timer(view))
    }
    pub fn register(&mut self, vc: VcId) {
        dispatch!(self, s => s.register(vc))
    }
}
