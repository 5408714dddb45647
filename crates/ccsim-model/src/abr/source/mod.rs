//! The TM 4.0 ABR source end system (SES), docs/models/abr/source.md.
//!
//! Sans-IO: the world calls `start`, `on_wake` and `on_brm` with the current time and gets
//! back the cell to emit and when the source next wants to be woken. The source never sees
//! the event queue, so its rules are unit-tested directly by scripted BRM exchanges.

use super::misbehaviour::Misbehaviour;
use crate::cell::{Cell, CellKind, Flags};
use crate::ids::VcId;
use ccsim_engine::{SimDuration, SimTime, PS_PER_SEC};

/// TM 4.0 source parameters (docs/models/abr/source.md, "Parameters"). Rates in cells/s.
/// `repr(C)`, those every emission reads first (`AbrSource`).
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct AbrParams {
    pub nrm: u32,
    pub mrm: u32,
    pub tcr: f64,
    pub trm: SimDuration,
    pub pcr: f64,
    pub mcr: f64,
    pub icr: f64,
    pub rif: f64,
    pub rdf: f64,
    pub adtf: SimDuration,
    pub tbe: u64,
    /// Fixed round-trip time signalled at set-up; zero means not signalled.
    pub frtt: SimDuration,
    pub cdf: f64,
    /// DEBRA sources (docs/models/abr/debra.md, "Reconstruction"): the FRM's ER field carries a bid,
    /// `min(PCR, last ER received)`, starting at ICR, instead of PCR.
    pub bidding: bool,
}

impl AbrParams {
    /// TM 4.0 defaults (docs/models/abr/source.md, "Parameters") for a connection with the given PCR.
    pub fn tm4_defaults(pcr: f64) -> Self {
        AbrParams {
            pcr,
            mcr: 0.0,
            icr: pcr,
            rif: 1.0 / 16.0,
            rdf: 1.0 / 16.0,
            nrm: 32,
            mrm: 2,
            trm: SimDuration::from_millis(100),
            adtf: SimDuration::from_millis(500),
            tbe: 16_777_215,
            frtt: SimDuration::ZERO,
            cdf: 1.0 / 16.0,
            tcr: 10.0,
            bidding: false,
        }
    }

    /// Missing-RM-cell count, CRM = ceil(TBE / Nrm).
    pub fn crm(&self) -> u64 {
        self.tbe.div_ceil(self.nrm as u64).max(1)
    }

    /// ICR after the set-up rule ICR ≤ TBE / FRTT.
    pub fn effective_icr(&self) -> f64 {
        let frtt = self.frtt.as_secs_f64();
        let icr = if frtt > 0.0 { self.icr.min(self.tbe as f64 / frtt) } else { self.icr };
        icr.clamp(self.mcr, self.pcr)
    }
}

/// Counters of one source.
#[derive(Clone, Debug, Default)]
pub struct SourceCounters {
    pub data_sent: u64,
    pub frm_sent: u64,
    pub oor_frm_sent: u64,
    pub brm_received: u64,
}

impl SourceCounters {
    pub fn cells_sent(&self) -> u64 {
        self.data_sent + self.frm_sent + self.oor_frm_sent
    }
}

/// `repr(C)`, aligned to a cache line, the fields an emission reads first: its flags, rates and
/// times in the first line, the adapter's count and the misbehaviour in the second, the counters
/// and the parameters' per-cell ones in the third. In a large run sources are out of the caches
/// between emissions, and rustc's ordering spread an emission over five lines
/// (docs/benchmarks.md).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct AbrSource {
    running: bool,
    first: bool,
    /// Nothing to send at the last in-rate opportunity: pacing stops until data arrives.
    idle: bool,
    cells_since_frm: u32,
    vc: VcId,
    acr: f64,
    next_in_rate: SimTime,
    pacing_frac: f64,
    last_in_rate: SimTime,
    last_any: SimTime,
    stop: SimTime,
    /// Data cells waiting in the adapter; `None` for a greedy source that always has data.
    waiting: Option<u64>,
    misbehaviour: Misbehaviour,
    last_frm: SimTime,
    unacked_frm: u64,
    pub counters: SourceCounters,
    p: AbrParams,
    crm: u64,
    start: SimTime,
    /// The DEBRA bid (cells/s) when `p.bidding`.
    bid: f64,
    // Time integral of ACR (cells), for exact time averages.
    acr_area: f64,
    acr_since: SimTime,
}

fn interval_ps(rate: f64) -> f64 {
    PS_PER_SEC as f64 / rate
}

/// 2^63, the first float a conversion to `i64` cannot hold.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;

/// The pacing step's whole picoseconds, as a float (the fraction is carried) and as an integer
/// (`u64::MAX` from 2^63 ps, 106 days, on: a source that will not send again), without the libm
/// call that `floor` becomes on baseline x86-64. Below 2^63, truncating to an integer is flooring,
/// exactly, and one conversion gives both. It is unchecked there: `as` saturates, and its checks
/// for NaN and overflow cost ~15 instructions per emission (docs/benchmarks.md).
#[inline]
fn split_step(x: f64) -> (f64, u64) {
    if (0.0..TWO_63).contains(&x) {
        // SAFETY: `x` is finite and in [0, 2^63): its truncation fits an `i64`.
        let whole = unsafe { x.to_int_unchecked::<i64>() };
        (whole as f64, whole as u64)
    } else {
        let whole = x.floor();
        (whole, if whole < TWO_63 { whole as i64 as u64 } else { u64::MAX })
    }
}

impl AbrSource {
    pub fn new(vc: VcId, p: AbrParams, start: SimTime, stop: SimTime) -> Self {
        let crm = p.crm();
        AbrSource {
            vc,
            crm,
            start,
            stop,
            running: false,
            acr: 0.0,
            first: true,
            cells_since_frm: 0,
            last_frm: SimTime::ZERO,
            unacked_frm: 0,
            last_in_rate: SimTime::ZERO,
            next_in_rate: SimTime::MAX,
            pacing_frac: 0.0,
            last_any: SimTime::ZERO,
            counters: SourceCounters::default(),
            misbehaviour: Misbehaviour::None,
            bid: 0.0,
            waiting: None,
            idle: false,
            acr_area: 0.0,
            acr_since: SimTime::ZERO,
            p,
        }
    }

    /// A source fed by an adapter (TCP over ABR) instead of a greedy application: it sends a
    /// data cell only when one is waiting (rule 3c) and stops pacing when none is.
    pub fn with_backlog(mut self) -> Self {
        self.waiting = Some(0);
        self
    }

    /// `n` data cells arrived in the adapter; returns a new wake-up time if pacing resumes.
    pub fn data_arrived(&mut self, now: SimTime, n: u64) -> Option<SimTime> {
        if let Some(w) = &mut self.waiting {
            *w += n;
        }
        if self.idle && n > 0 {
            self.idle = false;
            self.next_in_rate = self.next_in_rate.max(now);
            return self.next_wake(now);
        }
        None
    }

    /// Data cells waiting in the adapter (zero for greedy sources).
    pub fn waiting(&self) -> u64 {
        self.waiting.unwrap_or(0)
    }

    pub fn with_misbehaviour(mut self, m: Misbehaviour) -> Self {
        self.misbehaviour = m;
        self
    }

    pub fn params(&self) -> &AbrParams {
        &self.p
    }

    /// The most this source will ever use: PCR, or its fixed rate if it ignores feedback.
    pub fn demand(&self) -> f64 {
        match self.misbehaviour {
            Misbehaviour::FixedRate { rate, .. } => rate.min(self.p.pcr),
            _ => self.p.pcr,
        }
    }

    /// The rate the source really sends at (ACR unless it misbehaves).
    fn sending_rate(&self, now: SimTime) -> f64 {
        self.misbehaviour.sending_rate(now, self.acr)
    }

    /// ER field of a forward RM cell: PCR (TM 4.0 rule 10, docs/models/abr/source.md), or the DEBRA
    /// bid (docs/models/abr/debra.md).
    fn requested_rate(&self, now: SimTime) -> f64 {
        if !self.p.bidding {
            return self.p.pcr;
        }
        self.misbehaviour.fixed_rate(now).unwrap_or(self.bid)
    }
    pub fn start_time(&self) -> SimTime {
        self.start
    }
    pub fn stop_time(&self) -> SimTime {
        self.stop
    }
    /// The allowed cell rate, cells/s (zero while not running).
    pub fn acr(&self) -> f64 {
        if self.running {
            self.acr
        } else {
            0.0
        }
    }
    pub fn is_running(&self) -> bool {
        self.running
    }

    /// The integral of ACR from the start of the run up to `now`, in cells.
    pub fn acr_integral(&self, now: SimTime) -> f64 {
        self.acr_area + self.acr() * now.saturating_since(self.acr_since).as_secs_f64()
    }

    fn set_acr(&mut self, now: SimTime, acr: f64) {
        self.acr_area = self.acr_integral(now);
        self.acr_since = now;
        self.acr = acr;
    }

    fn set_running(&mut self, now: SimTime, running: bool) {
        self.acr_area = self.acr_integral(now);
        self.acr_since = now;
        self.running = running;
    }

    /// Connection set-up (rule 2): ACR = ICR, and the first in-rate cell goes out now.
    pub fn start(&mut self, now: SimTime) -> Option<SimTime> {
        if now >= self.stop {
            return None;
        }
        self.set_running(now, true);
        self.set_acr(now, self.p.effective_icr());
        self.bid = self.acr;
        self.first = true;
        self.next_in_rate = now;
        self.pacing_frac = 0.0;
        self.last_any = now;
        self.next_wake(now)
    }

    /// When the source next needs to run, if ever.
    fn next_wake(&self, now: SimTime) -> Option<SimTime> {
        if !self.running {
            return None;
        }
        let mut wake = if self.sending_rate(now) > 0.0 && !self.idle { self.next_in_rate } else { SimTime::MAX };
        // Rule 11: with ACR below TCR, an out-of-rate FRM at most every 1/TCR.
        if self.acr < self.p.tcr && self.p.tcr > 0.0 {
            let oor = self.last_any + SimDuration::from_secs_f64(1.0 / self.p.tcr);
            wake = wake.min(oor);
        }
        let wake = wake.max(now).min(self.stop);
        (wake < SimTime::MAX).then_some(wake)
    }

    /// The source's wake-up: emits at most one cell and says when to wake next.
    pub fn on_wake(&mut self, now: SimTime) -> (Option<Cell>, Option<SimTime>) {
        if !self.running {
            return (None, None);
        }
        if now >= self.stop {
            self.set_running(now, false);
            return (None, None);
        }
        if let Some(rate) = self.misbehaviour.fixed_rate(now) {
            if self.acr != rate {
                self.set_acr(now, rate);
            }
        }
        let cell = if self.sending_rate(now) > 0.0 && now >= self.next_in_rate && !self.idle {
            let c = self.send_in_rate(now);
            self.idle = c.is_none();
            c
        } else if self.acr < self.p.tcr
            && now >= self.last_any + SimDuration::from_secs_f64(1.0 / self.p.tcr)
        {
            Some(self.send_out_of_rate_frm(now))
        } else {
            None
        };
        (cell, self.next_wake(now))
    }

    fn send_in_rate(&mut self, now: SimTime) -> Option<Cell> {
        // Rule 3: an FRM first, after Nrm-1 other cells, or on the Trm timer after Mrm cells.
        let frm_due = self.first
            || self.cells_since_frm >= self.p.nrm.saturating_sub(1)
            || (self.cells_since_frm >= self.p.mrm && now.saturating_since(self.last_frm) >= self.p.trm);
        let cell = if frm_due {
            self.build_frm(now)
        } else if self.waiting.is_none_or(|n| n > 0) {
            // Rule 3c, with rules 4 and 12: CLP = 0, EFCI = 0.
            if let Some(n) = &mut self.waiting {
                *n -= 1;
            }
            self.cells_since_frm += 1;
            self.counters.data_sent += 1;
            Cell::data(self.vc)
        } else {
            return None;
        };
        self.last_in_rate = now;
        self.last_any = now;
        let step = interval_ps(self.sending_rate(now)) + self.pacing_frac;
        let (whole, whole_ps) = split_step(step);
        self.pacing_frac = step - whole;
        self.next_in_rate = now + SimDuration::from_ps(whole_ps);
        Some(cell)
    }

    fn build_frm(&mut self, now: SimTime) -> Cell {
        // Rule 5 (ADTF): an idle connection falls back to ICR.
        if !self.first && self.acr > self.p.icr && now.saturating_since(self.last_frm) > self.p.adtf {
            self.set_acr(now, self.p.icr);
        }
        // Rule 6 (CRM/CDF): too many FRMs without a backward RM cell.
        if self.unacked_frm >= self.crm && self.p.cdf > 0.0 {
            let acr = (self.acr - self.acr * self.p.cdf).max(self.p.mcr);
            self.set_acr(now, acr);
        }
        self.first = false;
        self.unacked_frm += 1;
        self.cells_since_frm = 0;
        self.last_frm = now;
        self.counters.frm_sent += 1;
        // Rules 7 and 10: CCR = ACR, ER = the rate the source would like (PCR).
        let ccr = self.misbehaviour.reported_rate(now, self.acr);
        Cell::frm(self.vc, self.requested_rate(now), ccr, self.p.mcr)
    }

    fn send_out_of_rate_frm(&mut self, now: SimTime) -> Cell {
        self.last_any = now;
        self.counters.oor_frm_sent += 1;
        let ccr = self.misbehaviour.reported_rate(now, self.acr);
        let mut c = Cell::frm(self.vc, self.requested_rate(now), ccr, self.p.mcr);
        c.flags.set(Flags::CLP, true);
        c
    }

    /// A backward RM cell reached the source (rules 8 and 9). Returns a new wake-up time when
    /// the pacing changed; the previously returned wake-up is then stale.
    pub fn on_brm(&mut self, now: SimTime, cell: &Cell) -> Option<SimTime> {
        debug_assert_eq!(cell.kind, CellKind::Brm);
        self.counters.brm_received += 1;
        if !cell.bn() {
            self.unacked_frm = 0;
        }
        self.bid = self.p.pcr.min(cell.er as f64);
        if self.misbehaviour.fixed_rate(now).is_some() {
            // A fixed-rate source ignores the feedback altogether.
            return None;
        }
        let old = self.acr;
        let mut acr = old;
        if cell.ci() {
            acr = (acr - acr * self.p.rdf).max(self.p.mcr);
        } else if !cell.ni() {
            acr = (acr + self.p.rif * self.p.pcr).min(self.p.pcr);
        }
        acr = acr.min(cell.er as f64).max(self.p.mcr);
        if acr == old {
            return None;
        }
        self.set_acr(now, acr);
        if !self.running {
            return None;
        }
        // Re-pace from the last in-rate cell with the new rate, never earlier than now [IMPL].
        let rate = self.sending_rate(now);
        self.next_in_rate = if rate > 0.0 {
            (self.last_in_rate + SimDuration::from_ps(interval_ps(rate) as u64)).max(now)
        } else {
            SimTime::MAX
        };
        if self.first {
            self.next_in_rate = self.next_in_rate.min(now);
        }
        self.pacing_frac = 0.0;
        self.next_wake(now)
    }
}

#[cfg(test)]
mod floor_tests {
    use super::{split_step, TWO_63};

    #[test]
    fn split_step_is_floor_and_its_saturated_integer() {
        let xs = [0.0, 0.25, 1.0, 1.5, 2.999_999_999, 6_434_527.86, 4.5e15, 9.007_199_254_740_993e15, 9.2e18, 9.3e18, 1.7e19, 1.9e19, 1e300, f64::INFINITY];
        for x in xs {
            let (whole, ps) = split_step(x);
            assert_eq!(whole.to_bits(), x.floor().to_bits(), "{x}");
            let saturated = if x.floor() < TWO_63 { x.floor() as u64 } else { u64::MAX };
            assert_eq!(ps, saturated, "{x}");
        }
        let (whole, ps) = split_step(f64::NAN);
        assert!(whole.is_nan() && ps == u64::MAX);
    }
}

#[cfg(test)]
mod tests;
