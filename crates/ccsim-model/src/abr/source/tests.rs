//! The TM 4.0 source's rules (docs/models/abr/), one scripted exchange per rule: RM cells sent, ACR after
//! each backward RM cell, pacing.

use super::*;

const PCR: f64 = 100_000.0;

fn params() -> AbrParams {
    AbrParams { icr: 10_000.0, rif: 1.0 / 16.0, rdf: 1.0 / 16.0, ..AbrParams::tm4_defaults(PCR) }
}

fn src(p: AbrParams) -> AbrSource {
    let mut s = AbrSource::new(VcId(0), p, SimTime::ZERO, SimTime::MAX);
    s.start(SimTime::ZERO);
    s
}

fn brm(er: f64, ci: bool, ni: bool) -> Cell {
    let mut c = Cell::frm(VcId(0), er, 0.0, 0.0);
    c.kind = CellKind::Brm;
    c.flags.set(Flags::CI, ci);
    c.flags.set(Flags::NI, ni);
    c
}

fn us(t: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_micros(t)
}

/// Runs the source for `n` wake-ups and returns the cells it emitted.
fn run(s: &mut AbrSource, n: usize) -> Vec<(SimTime, Cell)> {
    let mut out = Vec::new();
    let mut t = s.next_wake(SimTime::ZERO);
    for _ in 0..n {
        let Some(now) = t else { break };
        let (c, next) = s.on_wake(now);
        if let Some(c) = c {
            out.push((now, c));
        }
        t = next;
    }
    out
}

// --- rules 8 and 9: feedback arithmetic -----------------------------------------------

#[test]
fn ci_decreases_by_rdf() {
    let mut s = src(params());
    s.on_brm(us(1), &brm(PCR, true, false));
    assert!((s.acr() - 10_000.0 * 15.0 / 16.0).abs() < 1e-9);
}

#[test]
fn no_ci_no_ni_increases_by_rif_pcr() {
    let mut s = src(params());
    s.on_brm(us(1), &brm(PCR, false, false));
    assert!((s.acr() - (10_000.0 + PCR / 16.0)).abs() < 1e-9);
}

#[test]
fn ni_blocks_the_increase() {
    let mut s = src(params());
    s.on_brm(us(1), &brm(PCR, false, true));
    assert_eq!(s.acr(), 10_000.0);
}

#[test]
fn er_clamps_and_mcr_floors() {
    let mut s = src(AbrParams { mcr: 2_000.0, ..params() });
    s.on_brm(us(1), &brm(5_000.0, false, false));
    assert_eq!(s.acr(), 5_000.0);
    s.on_brm(us(2), &brm(1_000.0, false, false));
    assert_eq!(s.acr(), 2_000.0);
}

#[test]
fn pcr_caps_the_increase() {
    let mut s = src(AbrParams { rif: 1.0, ..params() });
    s.on_brm(us(1), &brm(1e9, false, false));
    assert_eq!(s.acr(), PCR);
}

// --- rules 2 and 3: the cell sequence ---------------------------------------------------

#[test]
fn first_cell_is_an_frm_then_every_nrm_th() {
    let mut s = src(AbrParams { nrm: 4, ..params() });
    let cells = run(&mut s, 9);
    let kinds: Vec<bool> = cells.iter().map(|(_, c)| c.kind == CellKind::Frm).collect();
    assert_eq!(kinds, [true, false, false, false, true, false, false, false, true]);
    // Paced at ACR = 10 000 cells/s: one cell every 100 us.
    assert_eq!(cells[1].0, us(100));
    assert_eq!(cells[8].0, us(800));
    // The FRM carries CCR = ACR and ER = PCR.
    assert_eq!(cells[0].1.ccr as f64, 10_000.0);
    assert_eq!(cells[0].1.er as f64, PCR);
}

#[test]
fn trm_forces_an_frm_after_mrm_cells_at_low_rate() {
    // 100 cells/s: a cell every 10 ms; Trm = 25 ms, Mrm = 2, Nrm = 32.
    let p = AbrParams { icr: 100.0, trm: SimDuration::from_millis(25), ..params() };
    let mut s = src(p);
    let cells = run(&mut s, 6);
    let frm_at: Vec<u64> = cells
        .iter()
        .filter(|(_, c)| c.kind == CellKind::Frm)
        .map(|(t, _)| t.as_ps() / 1_000_000_000)
        .collect();
    // FRM at 0; data at 10, 20 (2 = Mrm cells, but only 20 ms < Trm); at 30 ms both hold.
    assert_eq!(frm_at, [0, 30]);
}

// --- rules 5 and 6 --------------------------------------------------------------------

#[test]
fn adtf_returns_an_idle_source_to_icr() {
    let p = AbrParams { adtf: SimDuration::from_millis(10), trm: SimDuration::from_secs(10), ..params() };
    let mut s = src(p);
    run(&mut s, 1); // the first FRM at t = 0
    s.on_brm(us(1), &brm(50_000.0, false, false));
    assert_eq!(s.acr(), 10_000.0 + PCR / 16.0);
    // Pretend the source was idle: the next FRM is built 20 ms after the last one.
    s.cells_since_frm = 31;
    let (c, _) = s.on_wake(us(20_000));
    assert_eq!(c.unwrap().kind, CellKind::Frm);
    assert_eq!(s.acr(), 10_000.0);
}

#[test]
fn crm_cuts_the_rate_when_feedback_is_missing() {
    // TBE = 64, Nrm = 32: CRM = ⌈TBE/Nrm⌉ = 2 (docs/models/abr/source.md, "Validation").
    let p = AbrParams { tbe: 64, nrm: 32, cdf: 0.5, ..params() };
    assert_eq!(p.crm(), 2);
    let mut s = src(p);
    let cells = run(&mut s, 65); // FRMs at cells 0, 32, 64
    assert_eq!(cells.iter().filter(|(_, c)| c.kind == CellKind::Frm).count(), 3);
    // The third FRM found two unanswered ones: ACR halved just before it.
    assert_eq!(s.acr(), 5_000.0);
    // A BRM with BN = 0 resets the count.
    s.on_brm(cells[64].0, &brm(5_000.0, false, true));
    assert_eq!(s.unacked_frm, 0);
}

#[test]
fn icr_is_limited_by_tbe_over_frtt() {
    let p = AbrParams { tbe: 100, frtt: SimDuration::from_millis(50), ..params() };
    assert_eq!(p.effective_icr(), 2_000.0);
}

// --- rule 11: out-of-rate FRMs ------------------------------------------------------------

#[test]
fn zero_rate_source_sends_out_of_rate_frms_at_tcr() {
    let mut s = src(params());
    run(&mut s, 1);
    let wake = s.on_brm(us(1), &brm(0.0, false, false));
    assert_eq!(s.acr(), 0.0);
    // 1/TCR = 100 ms after the last cell.
    assert_eq!(wake, Some(us(100_000)));
    let (c, next) = s.on_wake(us(100_000));
    let c = c.unwrap();
    assert!(c.kind == CellKind::Frm && c.clp());
    assert_eq!(next, Some(us(200_000)));
    assert_eq!(s.counters.oor_frm_sent, 1);
}

// --- bidding and misbehaviour -------------------------------------------------------------

#[test]
fn a_bidding_source_bids_icr_then_the_last_er() {
    let mut s = src(AbrParams { bidding: true, ..params() });
    let cells = run(&mut s, 1);
    assert_eq!(cells[0].1.er as f64, 10_000.0);
    s.on_brm(us(1), &brm(30_000.0, false, false));
    s.cells_since_frm = 31;
    let (c, _) = s.on_wake(us(1_000));
    assert_eq!(c.unwrap().er as f64, 30_000.0);
}

#[test]
fn honest_fixed_rate_source_sends_and_reports_its_rate_and_ignores_er() {
    let m = Misbehaviour::FixedRate { start: us(0), rate: 20_000.0, honest: true };
    let mut s = AbrSource::new(VcId(0), params(), SimTime::ZERO, SimTime::MAX).with_misbehaviour(m);
    s.start(SimTime::ZERO);
    let cells = run(&mut s, 3);
    assert_eq!(cells[1].0, us(50));
    assert_eq!(cells[0].1.ccr as f64, 20_000.0);
    assert_eq!(s.on_brm(us(120), &brm(1_000.0, true, false)), None);
    assert_eq!(s.acr(), 20_000.0);
}

#[test]
fn dishonest_greedy_source_sends_faster_than_it_reports() {
    let m = Misbehaviour::DishonestGreedy { start: us(0), multiplier: 2.0, period: SimDuration::from_millis(1) };
    let mut s = AbrSource::new(VcId(0), params(), SimTime::ZERO, SimTime::MAX).with_misbehaviour(m);
    s.start(SimTime::ZERO);
    let cells = run(&mut s, 3);
    assert_eq!(cells[1].0, us(50)); // 2 × 10 000 cells/s
    assert_eq!(cells[0].1.ccr as f64, 10_000.0); // reports the ACR
}

// --- sources fed by an adapter ----------------------------------------------------------

#[test]
fn a_backlogged_source_sends_only_waiting_data_and_resumes_when_data_arrives() {
    let mut s = AbrSource::new(VcId(0), params(), SimTime::ZERO, SimTime::MAX).with_backlog();
    s.start(SimTime::ZERO);
    assert_eq!(s.data_arrived(SimTime::ZERO, 2), None);
    let cells = run(&mut s, 10);
    // FRM first, then the two waiting data cells, then idle.
    let kinds: Vec<CellKind> = cells.iter().map(|(_, c)| c.kind).collect();
    assert_eq!(kinds, [CellKind::Frm, CellKind::Data, CellKind::Data]);
    assert_eq!(s.next_wake(us(300)), None, "idle sources stop pacing");
    // Data arrives at 1 ms: pacing resumes at once.
    assert_eq!(s.data_arrived(us(1000), 1), Some(us(1000)));
    let (c, _) = s.on_wake(us(1000));
    assert_eq!(c.unwrap().kind, CellKind::Data);
    assert_eq!(s.waiting(), 0);
}

// --- re-pacing on a rate change -----------------------------------------------------------

#[test]
fn rate_increase_repaces_from_the_last_cell() {
    let mut s = src(params());
    run(&mut s, 1); // cell at 0, next due at 100 us
    let wake = s.on_brm(us(10), &brm(50_000.0, false, false));
    // ACR 10 000 + 6 250 = 16 250: next cell 61.538 us after the last one.
    assert_eq!(wake.unwrap().as_ps(), (1e12 / 16_250.0) as u64);
}

#[test]
fn stops_at_stop_time() {
    let mut s = AbrSource::new(VcId(0), params(), SimTime::ZERO, us(250));
    s.start(SimTime::ZERO);
    let cells = run(&mut s, 10);
    assert_eq!(cells.len(), 3); // 0, 100, 200 us
    assert!(!s.is_running());
    assert_eq!(s.acr(), 0.0);
}
