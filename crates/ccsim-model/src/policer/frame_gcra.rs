//! Frame-based GCRA (F-GCRA), continuous-state form, as seed 001 §4.1 gives it: a frame is
//! conforming if, when its first cell arrives, the bucket's debt is within the tolerance; every
//! cell of a conforming frame is charged 1/MCR, a non-conforming frame is charged nothing and
//! its cells (all but the end-of-frame cell) are tagged or dropped (docs/models/ubr/gfr.md).
//!
//! Times are integer picoseconds: the bucket is a debt in time, as the GCRA defines it.

use super::{PolicerAction, Policer, Verdict};
use crate::cell::Cell;
use ccsim_engine::{SimDuration, SimTime};

/// Which tolerance the bucket allows (a named reading: the seed's and TM 4.1's differ).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tolerance {
    /// Seed 001: L = CDVT + BT/2, BT = (MBS − 1)(1/MCR − 1/PCR): with MBS = 2 × MFS, one
    /// frame's worth of tokens.
    Seed,
    /// ATM Forum TM 4.1: τ = CDVT + BT.
    Tm41,
}

#[derive(Copy, Clone, Debug)]
pub struct FrameGcraParams {
    /// Minimum cell rate, cells/s.
    pub mcr: f64,
    /// Peak cell rate (the access link's cell rate), cells/s.
    pub pcr: f64,
    /// Maximum burst size, cells.
    pub mbs: u32,
    pub cdvt: SimDuration,
    pub tolerance: Tolerance,
    pub action: PolicerAction,
}

impl FrameGcraParams {
    /// The increment I = 1/MCR.
    pub fn increment(&self) -> SimDuration {
        SimDuration::from_secs_f64(1.0 / self.mcr)
    }

    /// The limit the debt may reach at a frame's first cell.
    pub fn limit(&self) -> SimDuration {
        let bt = (self.mbs.max(1) - 1) as f64 * (1.0 / self.mcr - 1.0 / self.pcr).max(0.0);
        let bt = match self.tolerance {
            Tolerance::Seed => bt / 2.0,
            Tolerance::Tm41 => bt,
        };
        self.cdvt + SimDuration::from_secs_f64(bt)
    }
}

#[derive(Clone, Debug)]
pub struct FrameGcra {
    increment: u64,
    limit: u64,
    action: PolicerAction,
    /// The bucket's debt (ps) as of `lct`.
    debt: u64,
    /// Last compliance time.
    lct: SimTime,
    /// The next cell starts a frame.
    expect_first: bool,
    /// The frame in progress conforms.
    eligible: bool,
    pub frames_seen: u64,
    pub frames_nonconforming: u64,
}

impl FrameGcra {
    pub fn new(p: FrameGcraParams) -> Self {
        FrameGcra {
            increment: p.increment().as_ps(),
            limit: p.limit().as_ps(),
            action: p.action,
            debt: 0,
            lct: SimTime::ZERO,
            expect_first: true,
            eligible: true,
            frames_seen: 0,
            frames_nonconforming: 0,
        }
    }

    /// The debt left at `now` (never below zero).
    fn debt_at(&self, now: SimTime) -> u64 {
        self.debt.saturating_sub(now.saturating_since(self.lct).as_ps())
    }
}

impl Policer for FrameGcra {
    fn on_cell(&mut self, now: SimTime, cell: &Cell) -> Verdict {
        if self.expect_first {
            self.expect_first = false;
            self.frames_seen += 1;
            let debt = self.debt_at(now);
            // A frame the source tagged already is not eligible either (TM 4.1).
            self.eligible = debt <= self.limit && !cell.clp();
            if !self.eligible {
                self.frames_nonconforming += 1;
            }
        }
        let verdict = if self.eligible {
            self.debt = self.debt_at(now) + self.increment;
            self.lct = now;
            Verdict::Pass
        } else if cell.eom() {
            // Never tag or drop the end-of-frame cell, and do not charge it.
            Verdict::Pass
        } else {
            match self.action {
                PolicerAction::Tag => Verdict::Tag,
                PolicerAction::Drop => Verdict::Drop,
            }
        };
        if cell.eom() {
            self.expect_first = true;
        }
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::Flags;
    use crate::ids::VcId;

    const MCR: f64 = 10_000.0;
    const PCR: f64 = 353_207.5;
    const MFS: u32 = 23;

    fn gcra(tolerance: Tolerance) -> FrameGcra {
        FrameGcra::new(FrameGcraParams {
            mcr: MCR,
            pcr: PCR,
            mbs: 2 * MFS,
            cdvt: SimDuration::ZERO,
            tolerance,
            action: PolicerAction::Tag,
        })
    }

    /// Sends `frames` frames of MFS cells, each at the line rate (1/PCR apart), frames starting
    /// every `period`; returns the verdicts per frame.
    fn send(g: &mut FrameGcra, frames: u32, period: f64) -> Vec<Vec<Verdict>> {
        (0..frames)
            .map(|f| {
                (0..MFS)
                    .map(|k| {
                        let t = SimTime::ZERO + SimDuration::from_secs_f64(f as f64 * period + k as f64 / PCR);
                        let mut c = Cell::data(VcId(0));
                        c.flags.set(Flags::EOM, k + 1 == MFS);
                        g.on_cell(t, &c)
                    })
                    .collect()
            })
            .collect()
    }

    fn tagged_frames(v: &[Vec<Verdict>]) -> usize {
        v.iter().filter(|f| f.contains(&Verdict::Tag)).count()
    }

    #[test]
    fn a_vc_at_exactly_mcr_is_never_tagged() {
        for tol in [Tolerance::Seed, Tolerance::Tm41] {
            // Frames back to back at the line rate, one frame's worth of MCR apart.
            let mut g = gcra(tol);
            let v = send(&mut g, 500, MFS as f64 / MCR);
            assert_eq!(tagged_frames(&v), 0, "{tol:?}");
            // Cells evenly spaced at exactly MCR.
            let mut g = gcra(tol);
            for k in 0..10_000u32 {
                let mut c = Cell::data(VcId(0));
                c.flags.set(Flags::EOM, k % MFS == MFS - 1);
                assert_eq!(g.on_cell(SimTime::ZERO + SimDuration::from_secs_f64(k as f64 / MCR), &c), Verdict::Pass);
            }
        }
    }

    #[test]
    fn at_twice_mcr_about_half_the_frames_are_tagged() {
        let mut g = gcra(Tolerance::Seed);
        let v = send(&mut g, 1000, MFS as f64 / (2.0 * MCR));
        // Steady state: a conforming frame buys one frame time of debt, paid back over two
        // frame periods, so every other frame conforms.
        let late = &v[100..];
        let share = tagged_frames(late) as f64 / late.len() as f64;
        assert!((share - 0.5).abs() < 0.02, "{share}");
        assert_eq!(g.frames_nonconforming as usize, tagged_frames(&v));
    }

    #[test]
    fn the_end_of_frame_cell_is_never_tagged_and_the_rest_of_a_tagged_frame_is() {
        let mut g = gcra(Tolerance::Seed);
        let v = send(&mut g, 200, MFS as f64 / (4.0 * MCR));
        for f in &v {
            assert_eq!(*f.last().unwrap(), Verdict::Pass, "EOM");
            let tagged = f[..f.len() - 1].iter().filter(|&&x| x == Verdict::Tag).count();
            assert!(tagged == 0 || tagged == f.len() - 1, "a frame is tagged whole: {f:?}");
        }
        assert!(tagged_frames(&v) > 100);
    }

    #[test]
    fn drop_action_drops_instead_of_tagging() {
        let mut g = FrameGcra::new(FrameGcraParams {
            mcr: MCR,
            pcr: PCR,
            mbs: 2 * MFS,
            cdvt: SimDuration::ZERO,
            tolerance: Tolerance::Seed,
            action: PolicerAction::Drop,
        });
        let v = send(&mut g, 100, MFS as f64 / (4.0 * MCR));
        assert!(v.iter().flatten().any(|&x| x == Verdict::Drop));
        assert!(!v.iter().flatten().any(|&x| x == Verdict::Tag));
    }

    #[test]
    fn the_tm41_tolerance_is_twice_the_seed_s_burst_part() {
        let p = |tolerance| FrameGcraParams {
            mcr: MCR,
            pcr: PCR,
            mbs: 46,
            cdvt: SimDuration::from_micros(10),
            tolerance,
            action: PolicerAction::Tag,
        };
        let bt = 45.0 * (1.0 / MCR - 1.0 / PCR);
        assert!((p(Tolerance::Seed).limit().as_secs_f64() - (10e-6 + bt / 2.0)).abs() < 1e-9);
        assert!((p(Tolerance::Tm41).limit().as_secs_f64() - (10e-6 + bt)).abs() < 1e-9);
    }
}
