//! Background traffic: an exponential ON-OFF source (docs/models/vbr.md). While ON it sends
//! cells at its peak cell rate, each marked high priority, so strict-priority ports serve it
//! before ABR and UBR; ON and OFF periods are exponential with the given means, drawn from the
//! source's own random stream.

use crate::cell::{Cell, Flags};
use crate::ids::VcId;
use ccsim_engine::{RngStream, SimDuration, SimTime, PS_PER_SEC};

#[derive(Clone, Debug)]
pub struct OnOffSource {
    vc: VcId,
    /// Peak cell rate while ON, cells/s.
    peak: f64,
    mean_on: f64,
    mean_off: f64,
    rng: RngStream,
    start: SimTime,
    on_until: SimTime,
    next: SimTime,
    frac: f64,
    pub cells_sent: u64,
}

impl OnOffSource {
    pub fn new(vc: VcId, peak: f64, mean_on: SimDuration, mean_off: SimDuration, start: SimTime, rng: RngStream) -> Self {
        OnOffSource {
            vc,
            peak,
            mean_on: mean_on.as_secs_f64(),
            mean_off: mean_off.as_secs_f64(),
            rng,
            start,
            on_until: start,
            next: start,
            frac: 0.0,
            cells_sent: 0,
        }
    }

    pub fn start_time(&self) -> SimTime {
        self.start
    }

    /// Long-run mean rate, cells/s.
    pub fn mean_rate(&self) -> f64 {
        self.peak * self.mean_on / (self.mean_on + self.mean_off)
    }

    fn draw(&mut self, mean: f64) -> SimDuration {
        SimDuration::from_secs_f64(self.rng.exponential(mean))
    }

    /// Begins with an ON period.
    pub fn start(&mut self, now: SimTime) -> Option<SimTime> {
        self.on_until = now + self.draw(self.mean_on);
        self.next = now;
        Some(now)
    }

    pub fn on_wake(&mut self, now: SimTime) -> (Option<Cell>, Option<SimTime>) {
        let mut cell = None;
        if now < self.on_until {
            let mut c = Cell::data(self.vc);
            c.flags.set(Flags::PRIORITY, true);
            self.cells_sent += 1;
            cell = Some(c);
            let step = PS_PER_SEC as f64 / self.peak + self.frac;
            let whole = step.floor();
            self.frac = step - whole;
            self.next = now + SimDuration::from_ps(whole as u64);
        }
        if self.next >= self.on_until {
            // OFF, then the next ON period.
            let off_end = self.on_until + self.draw(self.mean_off);
            self.on_until = off_end + self.draw(self.mean_on);
            self.next = off_end;
            self.frac = 0.0;
        }
        (cell, Some(self.next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ccsim_engine::StreamKey;

    #[test]
    fn long_run_rate_is_peak_times_on_fraction() {
        let rng = RngStream::new(StreamKey { seed: 3, replication: 0, component: 0, purpose: 0 });
        // Peak 10 000 cells/s, ON 100 ms, OFF 400 ms: mean 2 000 cells/s.
        let mut s = OnOffSource::new(VcId(0), 10_000.0, SimDuration::from_millis(100), SimDuration::from_millis(400), SimTime::ZERO, rng);
        let mut t = s.start(SimTime::ZERO);
        let end = SimTime::ZERO + SimDuration::from_secs(200);
        while let Some(now) = t {
            if now > end {
                break;
            }
            let (c, next) = s.on_wake(now);
            if let Some(c) = c {
                assert!(c.high_priority());
            }
            t = next;
        }
        let rate = s.cells_sent as f64 / 200.0;
        // 400 ON/OFF cycles: the standard error of the ON fraction is about 3.5 %.
        assert!((rate - 2_000.0).abs() / 2_000.0 < 0.12, "{rate}");
        assert_eq!(s.mean_rate(), 2_000.0);
    }
}
