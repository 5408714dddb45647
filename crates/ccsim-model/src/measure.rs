//! What the world records: sampled time series and the measurement window.
//!
//! Models keep cheap exact accumulators (queue-length and ACR integrals, cell counters); this
//! module samples them on a fixed period for plots and snapshots them when the measurement
//! window opens, so window averages are exact rather than sampled.

use ccsim_engine::{SimDuration, SimTime};

/// Which series to record and when the measurement window is.
#[derive(Clone, Debug)]
pub struct MeasureSpec {
    /// Sampling period of the time series; zero disables them.
    pub interval: SimDuration,
    /// Start of the measurement window; the window ends with the run.
    pub window_start: SimTime,
    /// End of the run.
    pub end: SimTime,
    pub acr: bool,
    pub queue: bool,
    pub received: bool,
    pub utilization: bool,
    /// cwnd, ssthresh, sequence-number, RTT, retransmission and timeout series of TCP
    /// connections.
    pub tcp: bool,
    /// Whether samples are kept: false when nothing will read the series
    /// (`World::discard_series`) or a sample would record nothing (`measure` asks for no series;
    /// set at build), so that it costs no pass over the ports and VCs. The sample events still run, so the run (its events, its
    /// fingerprint) is the same either way.
    pub keep: bool,
}

/// A long-format series: parallel columns of time, the index of the named thing, and value.
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub time_s: Vec<f64>,
    pub key: Vec<u32>,
    pub value: Vec<f64>,
}

impl Series {
    #[inline]
    pub fn push(&mut self, t: SimTime, key: usize, value: f64) {
        self.time_s.push(t.as_secs_f64());
        self.key.push(key as u32);
        self.value.push(value);
    }
    pub fn len(&self) -> usize {
        self.time_s.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
}

/// All recorded series. Keys index `World::vcs` (acr, received) or `World::ports` (queue,
/// utilization; switch ports only).
#[derive(Clone, Debug, Default)]
pub struct Recordings {
    /// ACR in Mb/s.
    pub acr: Series,
    /// Cells in the port buffer.
    pub queue: Series,
    /// Cumulative data cells delivered to the VC's destination.
    pub received: Series,
    /// Cumulative data cells (packets on IP flows) of the VC lost anywhere: dropped at a port,
    /// an adapter or a gateway, or lost on a link (loss over time; recorded with `received`).
    pub dropped: Series,
    /// Fraction of the link's cell slots used since the previous sample.
    pub utilization: Series,
    /// TCP congestion window, bytes (keys index `World::vcs`).
    pub cwnd: Series,
    /// TCP slow-start threshold, bytes.
    pub ssthresh: Series,
    /// Highest TCP sequence number sent + 1, bytes.
    pub seq: Series,
    /// The last RTT sample, seconds (no point before the first sample).
    pub rtt: Series,
    /// The smoothed RTT the sender's estimator holds, seconds.
    pub srtt: Series,
    /// Goodput since the previous sample (bytes delivered in order to the application), Mb/s.
    pub goodput: Series,
    /// Cumulative retransmitted segments.
    pub retransmits: Series,
    /// Cumulative retransmission timeouts.
    pub timeouts: Series,
    /// FICCRD's MAPR of a router port with that control, Mb/s (keys index `World::ports`).
    pub mapr: Series,
    /// FICCRD's down-pressure factor at the port's queue at the sampling time.
    pub dpf: Series,
    /// The data packets (RD packets left out) in a FICCRD port's buffer (recorded with
    /// `measure.queue`; keys index `World::ports`).
    pub data_queue: Series,
    /// An HG-RCP gateway's ABR-SAP buffer, cells (keys index `World::gateways`).
    pub gateway_queue: Series,
    /// A RED port's average queue (packets) as its last arrival left it (keys index `World::ports`).
    pub red_avg: Series,
    /// The mean end-to-end delay of the units each flow delivered since the previous sample,
    /// seconds (`crate::delays::FlowDelay`; recorded with `received`; no point for an interval
    /// in which the flow delivered nothing).
    pub delay: Series,
}

/// Counter values captured when the measurement window opens.
#[derive(Clone, Debug, Default)]
pub struct WindowSnapshot {
    pub opened: bool,
    pub acr_integral: Vec<f64>,
    pub goodput_bytes: Vec<u64>,
    /// Bytes each connection's session application had written (seed 004's demand).
    pub app_written: Vec<u64>,
    /// Of which released by untagged (CLP = 0) frames.
    pub clp0_bytes: Vec<u64>,
    pub data_delivered: Vec<u64>,
    pub data_sent: Vec<u64>,
    pub data_dropped: Vec<u64>,
    pub queue_area: Vec<u128>,
    pub port_departed_bits: Vec<f64>,
}
