//! Observers: a sample of every time series the scenario's `measure` section asks for, and the
//! opening of the measurement window (the snapshot its report subtracts).
//!
//! Reads the world after `settle`; changes nothing but the recordings and the snapshot.

use super::{Event, World};
use crate::cell::cells_to_mbps;
use ccsim_engine::{IntrinsicOrder, SimTime};

impl World {
    pub(in crate::world) fn on_sample(&mut self) {
        if !self.measure.keep {
            return self.schedule_sample();
        }
        self.settle();
        let now = self.now;
        let m = &self.measure;
        let dt = m.interval.as_secs_f64();
        if m.acr || m.received || m.tcp {
            for (i, vc) in self.vcs.iter().enumerate() {
                if m.acr && vc.abr && vc.abr_source().is_some() {
                    self.rec.acr.push(now, i, cells_to_mbps(vc.acr()));
                }
                if m.received {
                    self.rec.received.push(now, i, vc.books.data_delivered as f64);
                    self.rec.dropped.push(now, i, vc.books.data_dropped as f64);
                    // The mean delay of the units delivered since the previous sample.
                    let (sum, n) = vc.delay.totals();
                    let (last_sum, last_n) = self.last_delay[i];
                    let (d_sum, d_n) = (sum as i128 - last_sum, n as i64 - last_n);
                    if d_n > 0 {
                        self.rec.delay.push(now, i, d_sum as f64 / d_n as f64 / ccsim_engine::PS_PER_SEC as f64);
                    }
                    self.last_delay[i] = (sum as i128, n as i64);
                }
                if let (true, Some(t)) = (m.tcp, vc.tcp()) {
                    let c = &t.sender.core;
                    self.rec.cwnd.push(now, i, c.cwnd);
                    self.rec.ssthresh.push(now, i, c.ssthresh);
                    self.rec.seq.push(now, i, c.snd_max as f64);
                    if let Some(r) = c.rtt.last_sample_s() {
                        self.rec.rtt.push(now, i, r);
                    }
                    if let Some(r) = c.rtt.srtt_s() {
                        self.rec.srtt.push(now, i, r);
                    }
                    let st = t.sender.stats();
                    self.rec.retransmits.push(now, i, st.retransmissions as f64);
                    self.rec.timeouts.push(now, i, st.timeouts as f64);
                    let bytes = vc.goodput_bytes();
                    if now > SimTime::ZERO {
                        let new = bytes - self.last_goodput_bytes[i];
                        self.rec.goodput.push(now, i, new as f64 * 8.0 / dt / 1e6);
                    }
                    self.last_goodput_bytes[i] = bytes;
                }
            }
        }
        for (i, port) in self.ports.iter().enumerate() {
            if !port.at_switch {
                continue;
            }
            if m.queue {
                self.rec.queue.push(now, i, port.buffer.len() as f64);
                if let Some(red) = &port.red {
                    self.rec.red_avg.push(now, i, red.avg());
                }
            }
            if let Some(c) = port.control.as_ref().and_then(|c| c.ficcrd()) {
                self.rec.mapr.push(now, i, c.mapr / 1e6);
                self.rec.dpf.push(now, i, c.dpf_at(c.queue(now, port.buffer.len()) as f64));
                if m.queue {
                    self.rec.data_queue.push(now, i, (port.buffer.len() - c.rds.len_at(now)) as f64);
                }
            }
            let bits = port.bits_sent_at(now);
            if m.utilization && now > SimTime::ZERO {
                let sent = bits - self.last_port_bits[i];
                self.rec.utilization.push(now, i, sent / (dt * port.rate_bps() as f64));
            }
            self.last_port_bits[i] = bits;
        }
        if m.queue {
            for (i, g) in self.gateways.iter().enumerate() {
                if g.trunk.is_some() {
                    self.rec.gateway_queue.push(now, i, g.queue() as f64);
                }
            }
        }
        self.schedule_sample();
    }

    fn schedule_sample(&mut self) {
        self.schedule_sample_after(self.now);
    }

    fn schedule_sample_after(&mut self, t: SimTime) {
        let next = t + self.measure.interval;
        if next <= self.measure.end {
            self.schedule(next, Event::Sample);
        }
    }

    /// Windowed mode, samples that record nothing (`Measure::keep` false): each still counts as
    /// an event, but reads and changes nothing, and the fingerprint is a sum over the events
    /// whatever their order. So the samples at the head of the observers' queue before `end` are
    /// counted at once instead of cutting the windows they fall in (the world's windows then run
    /// to the links' lookahead, not to the sampling interval).
    pub(in crate::world) fn pass_idle_samples(&mut self, end: (SimTime, u64)) {
        debug_assert!(!self.measure.keep);
        while let Some(key) = self.queue.peek_key() {
            if key >= end || key.1 != Event::Sample.tie(key.0) {
                return;
            }
            let (t, ev) = self.queue.pop().expect("peeked");
            let (kind, comp) = ev.kind_and_component();
            self.fingerprint.add(t.as_ps(), kind, comp);
            self.events += 1;
            // Work counts (`work.rs`): run between windows, by the loop that would own threads.
            if let Some(work) = &mut self.work {
                work.add_serial();
            }
            self.schedule_sample_after(t);
        }
    }

    /// Records no series from now on (nothing will read them: `ccsim run --json`); the sample
    /// events still run, so everything else the run reports is unchanged (events and fingerprint
    /// included), but only to reschedule themselves: without a sample to take, the world is not
    /// settled first (settling applies lazy work early, never changes it: every preset reports the
    /// same with and without series), and in windowed mode they cut no windows
    /// (`pass_idle_samples`).
    pub fn discard_series(&mut self) {
        self.measure.keep = false;
        self.rec = Default::default();
    }

    /// How many rows `on_sample` records at most per sample, and how many samples the run takes:
    /// the size of its series, known before it runs (20 bytes a row: time, key, value).
    pub fn series_size(&self) -> (u64, u64) {
        let m = &self.measure;
        if m.interval.is_zero() || !m.keep {
            return (0, 0);
        }
        let mut rows = 0u64;
        for vc in &self.vcs {
            rows += (m.acr && vc.abr && vc.abr_source().is_some()) as u64 + 3 * m.received as u64;
            rows += if m.tcp && vc.tcp().is_some() { 8 } else { 0 };
        }
        for p in self.ports.iter().filter(|p| p.at_switch) {
            rows += m.queue as u64 * (1 + p.red.is_some() as u64) + m.utilization as u64
                + (2 + m.queue as u64) * p.control.as_ref().and_then(|c| c.ficcrd()).is_some() as u64;
        }
        if m.queue {
            rows += self.gateways.iter().filter(|g| g.trunk.is_some()).count() as u64;
        }
        (rows, m.end.as_ps() / m.interval.as_ps() + 1)
    }

    pub(in crate::world) fn open_window(&mut self) {
        self.settle();
        let now = self.now;
        let w = &mut self.window;
        w.opened = true;
        w.acr_integral = self.vcs.iter().map(|v| v.acr_integral(now)).collect();
        w.goodput_bytes = self.vcs.iter().map(|v| v.goodput_bytes()).collect();
        w.app_written = self.vcs.iter().map(|v| v.tcp().and_then(|t| t.sessions.as_ref()).map_or(0, |s| s.written)).collect();
        w.clp0_bytes = self.vcs.iter().map(|v| v.tcp().map_or(0, |t| t.stats.clp0_delivered)).collect();
        w.data_delivered = self.vcs.iter().map(|v| v.books.data_delivered).collect();
        w.data_sent = self.vcs.iter().map(|v| v.books.data_sent).collect();
        w.data_dropped = self.vcs.iter().map(|v| v.books.data_dropped).collect();
        w.queue_area = self.ports.iter().map(|p| p.queue_area(now)).collect();
        for c in self.ports.iter_mut().filter_map(|p| p.control.as_deref_mut()) {
            c.open_window(now);
        }
        w.port_departed_bits = self.ports.iter().map(|p| p.bits_sent_at(now)).collect();
        for p in &mut self.ports {
            p.queue.window_max = p.buffer.len();
        }
        for g in &mut self.gateways {
            g.open_window(now);
        }
        // Delay distributions count from here (the cell transfer delay checks the time itself):
        // the end-to-end delays of the units delivered after the books above were read.
        for (v, last) in self.vcs.iter_mut().zip(&mut self.last_delay) {
            // The delay series keeps differencing across the reset: what was delivered since the
            // previous sample stays in its next point.
            let (sum, n) = v.delay.totals();
            *last = (last.0 - sum as i128, last.1 - n as i64);
            v.delay.reset();
            if let super::Ends::Tcp(t) = &mut v.ends {
                t.ack_times.stats.reset();
            }
        }
    }
}
