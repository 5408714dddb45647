//! The end of a run: the report over the measurement window, cells still in flight, the
//! conservation check, and the max-min fair rates the report sets beside measured rates.
//!
//! Read-only but for `free_cells_in_flight`, which ends a world once its result is counted.

use super::vc::VcBooks;
use super::World;
use crate::ids::{PortId, VcId};
use crate::maxmin::{bottlenecks, jain_index, maxmin_rates, Bottleneck, Flow};
use crate::port::DropReason;
use crate::tcp::SenderStats;
use crate::tcp_host::HostStats;
use ccsim_engine::SimTime;

impl World {
    /// Per VC, the histogram of the end-to-end delays of the units it delivered in the
    /// measurement window (`FlowDelay::buckets`: low and high picoseconds, units); empty before
    /// the window opens, as the report's delays are none then.
    pub fn delay_buckets(&self, v: usize) -> impl Iterator<Item = (u64, u64, u32)> + '_ {
        self.vcs[v].delay.buckets().filter(|_| self.window.opened)
    }

    /// What VC `v`'s session application had written when the measurement window opened.
    pub fn app_written_when_window_opened(&self, v: usize) -> u64 {
        self.window.app_written.get(v).copied().unwrap_or(0)
    }

    /// Cells of each VC still inside the network, (forward, backward).
    pub fn in_flight(&self) -> Vec<(u64, u64)> {
        let mut n = vec![(0u64, 0u64); self.vcs.len()];
        // A queued cell already sits in its pipe (see `Port`), so the pipes hold them all.
        for port in &self.ports {
            for c in port.pipe.iter().map(|f| &f.cell).chain(port.held_cells().into_iter().flatten()) {
                let e = &mut n[c.vc.index()];
                if c.is_forward() {
                    e.0 += 1
                } else {
                    e.1 += 1
                }
            }
        }
        // Cells waiting in gateways' ABR-SAP buffers (forward, of their connections).
        for c in self.gateways.iter().flat_map(|g| g.sap.iter()) {
            n[c.vc.index()].0 += 1;
        }
        // ACKs waiting in source edges' ACK buckets (FIABC; backward).
        for c in self.vcs.iter().filter_map(|v| v.edge.as_deref()).flat_map(|e| e.held()) {
            n[c.vc.index()].1 += 1;
        }
        n
    }

    /// Frees the link pipes' memory, the cells still in flight, once the run is over and they
    /// are counted (`Run::into_json`): at 100,000 sources they are half of the run's memory. The
    /// world can report nothing after this (its cells in flight read as none).
    pub fn free_cells_in_flight(&mut self) {
        for p in &mut self.ports {
            p.pipe = Default::default();
        }
    }

    /// The report, if conservation held; the cells in flight are counted once for both.
    pub fn checked_report(&self) -> Result<Report, String> {
        let flight = self.in_flight();
        self.check_conservation(&flight)?;
        Ok(self.report(&flight))
    }

    /// Per VC: cells sent = delivered + dropped + in flight (`flight`, from `in_flight`), in both
    /// directions.
    fn check_conservation(&self, flight: &[(u64, u64)]) -> Result<(), String> {
        for (vc, &(f, b)) in self.vcs.iter().zip(flight) {
            let k = &vc.books;
            if k.fwd_sent != k.fwd_delivered + k.fwd_dropped + f {
                return Err(format!(
                    "VC {}: forward cells sent {} != delivered {} + dropped {} + in flight {}",
                    vc.name, k.fwd_sent, k.fwd_delivered, k.fwd_dropped, f
                ));
            }
            if k.bwd_sent != k.bwd_delivered + k.bwd_dropped + b {
                return Err(format!(
                    "VC {}: backward cells sent {} != delivered {} + dropped {} + in flight {}",
                    vc.name, k.bwd_sent, k.bwd_delivered, k.bwd_dropped, b
                ));
            }
            if let Some(src) = vc.abr_source() {
                let s = &src.counters;
                // Over TCP the backward direction also carries ACK frames; a gateway's ABR
                // connection carries its connections' data cells in their own books, and its
                // rate notifications in its own.
                let trunk = vc.is_trunk();
                let brms_ok = vc.tcp().is_some() || trunk || s.brm_received == k.bwd_delivered;
                let sent = if trunk { s.frm_sent + s.oor_frm_sent } else { s.cells_sent() };
                if sent != k.fwd_sent || !brms_ok {
                    return Err(format!("VC {}: source counters disagree with the network's books", vc.name));
                }
            }
        }
        // Port books: what the buffers dropped, the links lost and CSMA/CD media discarded after
        // 16 collisions is what the VCs lost.
        let medium_discards = |p: &crate::port::Port| p.lan_medium().and_then(|m| m.csma_stats()).map_or(0, |s| s.discards);
        let port_drops: u64 = self
            .ports
            .iter()
            .map(|p| p.buffer.dropped_total() + p.loss.as_ref().map_or(0, |l| l.lost) + medium_discards(p))
            .sum::<u64>()
            + self.gateways.iter().map(|g| g.drops_run).sum::<u64>();
        let vc_drops: u64 = self.vcs.iter().map(|v| v.books.fwd_dropped + v.books.bwd_dropped).sum();
        if port_drops != vc_drops {
            return Err(format!("ports dropped {port_drops} cells but VCs lost {vc_drops}"));
        }
        Ok(())
    }

    /// Max-min fair rates (cells/s) of the VCs running at the end of the window, at full link
    /// capacity and capped by each source's demand (PCR, or the fixed rate of a source that
    /// ignores feedback); VCs not running then get zero.
    pub fn maxmin_rates(&self) -> Vec<f64> {
        self.maxmin_limits().0
    }

    /// The max-min fair rates (`maxmin_rates`) and, per VC, what holds it there
    /// (`crate::maxmin::bottlenecks`). Needs no run: `ccsim show` asks a world just built.
    pub fn maxmin_limits(&self) -> (Vec<f64>, Vec<MaxminLimit>) {
        let end = self.measure.end;
        let active: Vec<usize> = (0..self.vcs.len())
            .filter(|&i| {
                let vc = &self.vcs[i];
                vc.start_time() < end && vc.stop_time() >= end
            })
            .collect();
        // Background traffic takes its mean rate off every link it crosses.
        let mut caps: Vec<f64> = self.ports.iter().map(|p| p.cell_rate()).collect();
        for vc in &self.vcs {
            if let Some(b) = vc.background() {
                for p in &vc.fwd_ports {
                    caps[p.index()] = (caps[p.index()] - b.mean_rate()).max(0.0);
                }
            }
        }
        let active: Vec<usize> = active.into_iter().filter(|&i| self.vcs[i].background().is_none()).collect();
        // A gateway's trunk is one flow of the ATM network; the connections it carries share it.
        let (carried, top): (Vec<usize>, Vec<usize>) = active.iter().partition(|&&i| self.vcs[i].carrier.is_some());
        let flows: Vec<Flow> = top
            .iter()
            .map(|&i| {
                let vc = &self.vcs[i];
                Flow { links: vc.fwd_ports.iter().map(|p| p.index()).collect(), demand: vc.demand() }
            })
            .collect();
        let r = maxmin_rates(&caps, &flows);
        let mut out = vec![0.0; self.vcs.len()];
        let mut limits = vec![MaxminLimit::Outside; self.vcs.len()];
        for (k, b) in bottlenecks(&caps, &flows, &r).into_iter().enumerate() {
            out[top[k]] = r[k];
            limits[top[k]] = MaxminLimit::of(b, None);
        }
        self.share_trunks(&caps, &carried, &mut out, &mut limits);
        (out, limits)
    }

    /// The max-min rates of the connections gateway trunks carry (`carried`), given each trunk's
    /// own rate in `out`: per trunk, its data cells (one cell in Nrm is its RM cell) become one more
    /// link, shared max-min with the connections' ports outside the trunk. Rates are in 424-bit
    /// units of each connection's own wire (its Ethernet frames), as for any TCP connection: a
    /// trunk cell carries `wire bits per segment / (cells per segment · 424)` of them. Connections
    /// of one trunk with different segment sizes share it at their mean conversion [approximation].
    /// A connection held by that extra link is held by its trunk (`MaxminLimit::Trunk`).
    fn share_trunks(&self, caps: &[f64], carried: &[usize], out: &mut [f64], limits: &mut [MaxminLimit]) {
        let mut trunks: Vec<crate::ids::VcId> = carried.iter().filter_map(|&i| self.vcs[i].carrier).collect();
        trunks.sort_unstable();
        trunks.dedup();
        for t in trunks {
            let members: Vec<usize> = carried.iter().copied().filter(|&i| self.vcs[i].carrier == Some(t)).collect();
            let trunk = &self.vcs[t.index()];
            let nrm = trunk.abr_source().map_or(32, |s| s.params().nrm).max(2) as f64;
            let units_per_cell = members
                .iter()
                .filter_map(|&i| self.vcs[i].tcp())
                .map(|e| {
                    let cells = crate::aal5::cells(e.sender.core.cfg.smss + crate::tcp::HEADER_BYTES, true);
                    e.wire_bits_per_segment() as f64 / (cells as f64 * crate::cell::CELL_BITS as f64)
                })
                .sum::<f64>()
                / members.len() as f64;
            let mut link_caps = caps.to_vec();
            link_caps.push(out[t.index()] * (nrm - 1.0) / nrm * units_per_cell);
            let virtual_link = link_caps.len() - 1;
            let flows: Vec<Flow> = members
                .iter()
                .map(|&i| {
                    let vc = &self.vcs[i];
                    let links = vc.fwd_ports.iter().map(|p| p.index()).filter(|p| !trunk.fwd_ports.iter().any(|q| q.index() == *p));
                    Flow { links: links.chain([virtual_link]).collect(), demand: vc.demand() }
                })
                .collect();
            let rates = maxmin_rates(&link_caps, &flows);
            for (k, b) in bottlenecks(&link_caps, &flows, &rates).into_iter().enumerate() {
                out[members[k]] = rates[k];
                limits[members[k]] = MaxminLimit::of(b, Some((virtual_link, t)));
            }
        }
    }

    /// Per VC, the rate a GFR contract entitles it to, cells/s (0 for VCs without one): its MCR
    /// plus an MCR-weighted share of what the GFR VCs leave unreserved, at the port of its route
    /// where that is least (docs/models/ubr/gfr.md).
    pub fn gfr_targets(&self) -> Vec<f64> {
        let mut reserved = vec![0.0; self.ports.len()];
        for vc in self.vcs.iter().filter(|v| v.mcr > 0.0) {
            for p in &vc.fwd_ports {
                reserved[p.index()] += vc.mcr;
            }
        }
        self.vcs
            .iter()
            .map(|vc| {
                if vc.mcr <= 0.0 {
                    return 0.0;
                }
                vc.fwd_ports
                    .iter()
                    .map(|p| {
                        let (c, sum) = (self.ports[p.index()].cell_rate(), reserved[p.index()]);
                        vc.mcr + vc.mcr / sum * (c - sum).max(0.0)
                    })
                    .fold(f64::INFINITY, f64::min)
            })
            .collect()
    }

    /// Summary numbers over the measurement window, with the cells in flight already counted
    /// (`in_flight`).
    fn report(&self, flight: &[(u64, u64)]) -> Report {
        let now = self.now;
        let w = &self.window;
        let (t0, span) = if w.opened {
            let t0 = self.measure.window_start.min(self.measure.end);
            (t0, now.saturating_since(t0).as_secs_f64())
        } else {
            (now, 0.0)
        };
        let maxmin = self.maxmin_rates();
        let vcs: Vec<VcReport> = self
            .vcs
            .iter()
            .enumerate()
            .map(|(i, vc)| {
                let pick = |v: &Vec<u64>| if w.opened { v[i] } else { 0 };
                let acr0 = if w.opened { w.acr_integral[i] } else { 0.0 };
                let per_s = |x: f64| if span > 0.0 { x / span } else { 0.0 };
                let win_sent = vc.books.data_sent - pick(&w.data_sent);
                let win_lost = vc.books.data_dropped - pick(&w.data_dropped);
                VcReport {
                    name: vc.name.clone(),
                    dest_name: vc.dest_name.clone(),
                    acr: per_s(vc.acr_integral(now) - acr0),
                    final_acr: vc.acr(),
                    rate: per_s((vc.books.data_delivered - pick(&w.data_delivered)) as f64),
                    maxmin: maxmin[i],
                    books: vc.books.clone(),
                    frm_sent: vc.abr_source().map_or(0, |s| s.counters.frm_sent),
                    oor_frm_sent: vc.abr_source().map_or(0, |s| s.counters.oor_frm_sent),
                    brm_received: vc.abr_source().map_or(0, |s| s.counters.brm_received),
                    background: vc.background().is_some(),
                    trunk: vc.is_trunk(),
                    goodput: per_s((vc.goodput_bytes() - w.goodput_bytes.get(i).copied().unwrap_or(0)) as f64 * 8.0),
                    clp0_goodput: per_s(
                        (vc.tcp().map_or(0, |t| t.stats.clp0_delivered) - w.clp0_bytes.get(i).copied().unwrap_or(0)) as f64 * 8.0,
                    ),
                    mcr: vc.mcr,
                    frames_tagged: vc.policer.as_ref().map_or(0, |p| p.frames_nonconforming()),
                    tcp: vc.tcp().map(|t| TcpReport {
                        variant: t.sender.variant(),
                        stats: t.sender.stats().clone(),
                        host: t.stats.clone(),
                        delivered_bytes: t.receiver.delivered,
                        mss: t.sender.core.cfg.smss,
                        cells_per_segment: t.cells_per_segment(),
                        wire_bits_per_segment: t.wire_bits_per_segment(),
                    }),
                    in_flight_fwd: flight[i].0,
                    in_flight_bwd: flight[i].1,
                    clr: ratio(vc.books.data_dropped, vc.books.data_sent),
                    window_clr: ratio(win_lost, win_sent),
                    delay_mean: vc.delay.mean_s().filter(|_| w.opened),
                    delay_p99: vc.delay.p99_s().filter(|_| w.opened),
                    jitter: vc.delay.jitter_s().filter(|_| w.opened),
                }
            })
            .collect();
        let ports = self
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let a0 = if w.opened { w.queue_area[i] } else { 0 };
                let d0 = if w.opened { w.port_departed_bits[i] } else { 0.0 };
                let mean_q = if span > 0.0 {
                    (p.queue_area(now) - a0) as f64 / (span * ccsim_engine::PS_PER_SEC as f64)
                } else {
                    0.0
                };
                let util = if span > 0.0 { (p.bits_sent_at(now) - d0) / (span * p.rate_bps() as f64) } else { 0.0 };
                // FICCRD ports tell their RD packets from the data (`ip/rd_queue.rs`).
                let mean_rd_queue = p.control.as_ref().map(|c| {
                    if span > 0.0 {
                        c.rds().window_area_at(now) as f64 / (span * ccsim_engine::PS_PER_SEC as f64)
                    } else {
                        0.0
                    }
                });
                PortReport {
                    name: p.name.clone(),
                    link: p.link_name.clone(),
                    from: self.nodes[p.from.index()].name.clone(),
                    to: self.nodes[p.to.index()].name.clone(),
                    at_switch: p.at_switch,
                    rate_bps: p.rate_bps(),
                    mean_queue: mean_q,
                    max_queue: p.queue.window_max,
                    max_queue_run: p.queue.max,
                    drops: p.buffer.dropped_total(),
                    early_drops: p.buffer.dropped(DropReason::Early),
                    packets: p.packets,
                    departed: p.departed,
                    utilization: util,
                    mean_rd_queue,
                }
            })
            .collect();
        let x: Vec<f64> = vcs.iter().filter(|v| v.tcp.is_none() && !v.trunk && v.maxmin > 0.0).map(|v| v.rate / v.maxmin).collect();
        // Seed 001 §2: over TCP connections the index is over raw throughputs.
        let g: Vec<f64> = vcs.iter().filter(|v| v.tcp.is_some()).map(|v| v.goodput).collect();
        let gateways = self
            .gateways
            .iter()
            .map(|gw| GatewayReport {
                name: gw.name.clone(),
                max_queue: gw.stats.max_queue,
                mean_queue_seen: gw.arrival_mean_queue(false).unwrap_or(0.0),
                mean_queue_left: gw.arrival_mean_queue(true),
                time_mean_queue: gw.time_mean_queue(now, gw.stats_since()),
                mean_delay_s: gw.mean_delay_s(now, gw.stats_since()),
                rn_sent: gw.stats.rn_sent,
                qn_sent: gw.stats.qn_sent,
                drops: gw.drops_run,
                lan: gw.csma.and_then(|p| self.ports[p.index()].lan_medium()).and_then(|m| m.csma_stats()),
            })
            .collect();
        // Jain's index over nothing is not 1: none where there is no flow to compare.
        let index = |v: &[f64]| (!v.is_empty()).then(|| jain_index(v));
        Report { window: (t0, now), vcs, ports, gateways, fairness_index: index(&x), tcp_fairness_index: index(&g) }
    }
}

/// What holds a VC at its max-min fair rate (`World::maxmin_limits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxminLimit {
    /// An output port: its link is full and no VC on it gets more.
    Port(PortId),
    /// Its own demand (PCR, or a fixed rate).
    Demand,
    /// Its share of the gateway trunk that carries it (HG-RCP).
    Trunk(VcId),
    /// Not in the allocation: background traffic, or a VC not running when the window ends.
    Outside,
    /// Nothing: no link and no demand cap.
    Unbound,
}

impl MaxminLimit {
    /// A `Bottleneck` over port indices, where link `trunk.0` (if any) stands for trunk `trunk.1`.
    fn of(b: Bottleneck, trunk: Option<(usize, VcId)>) -> MaxminLimit {
        match b {
            Bottleneck::Link(l) if trunk.is_some_and(|(v, _)| v == l) => MaxminLimit::Trunk(trunk.expect("checked").1),
            Bottleneck::Link(l) => MaxminLimit::Port(PortId(l as u32)),
            Bottleneck::Demand => MaxminLimit::Demand,
            Bottleneck::Unbound => MaxminLimit::Unbound,
        }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// One VC over the measurement window. Rates in cells/s.
#[derive(Clone, Debug)]
pub struct VcReport {
    pub name: String,
    pub dest_name: String,
    /// Time-average ACR over the window.
    pub acr: f64,
    pub final_acr: f64,
    /// Data cells delivered per second over the window.
    pub rate: f64,
    pub maxmin: f64,
    pub books: VcBooks,
    pub frm_sent: u64,
    pub oor_frm_sent: u64,
    pub brm_received: u64,
    pub in_flight_fwd: u64,
    pub in_flight_bwd: u64,
    /// Data cells lost / data cells sent, whole run.
    pub clr: f64,
    /// Goodput over the window, bits/s (TCP; zero otherwise).
    pub goodput: f64,
    /// Of which released by untagged (CLP = 0) frames, bits/s.
    pub clp0_goodput: f64,
    /// A GFR VC's minimum cell rate, cells/s (0 otherwise).
    pub mcr: f64,
    /// Frames its ingress policer found non-conforming (tagged or dropped), whole run.
    pub frames_tagged: u64,
    /// Background CBR/VBR traffic.
    pub background: bool,
    /// A gateway's ABR connection (HG-RCP): it carries other VCs' cells.
    pub trunk: bool,
    pub tcp: Option<TcpReport>,
    /// The same over the measurement window.
    pub window_clr: f64,
    /// End-to-end delay of the units it delivered in the window (data cells, or a TCP
    /// connection's segments; `crate::delays::FlowDelay`), seconds: the mean, the 99th
    /// percentile, and the mean absolute difference of consecutive delays (the jitter). None
    /// without a unit (without two for the jitter).
    pub delay_mean: Option<f64>,
    pub delay_p99: Option<f64>,
    pub jitter: Option<f64>,
}

/// A TCP connection's totals.
#[derive(Clone, Debug)]
pub struct TcpReport {
    pub variant: &'static str,
    pub stats: SenderStats,
    pub host: HostStats,
    pub delivered_bytes: u64,
    pub mss: u32,
    /// Items per full-size segment: cells, or 1 on IP links.
    pub cells_per_segment: u32,
    pub wire_bits_per_segment: u64,
}

#[derive(Clone, Debug)]
pub struct PortReport {
    pub name: String,
    pub link: String,
    pub from: String,
    pub to: String,
    pub at_switch: bool,
    pub rate_bps: u64,
    pub mean_queue: f64,
    /// Largest queue inside the window.
    pub max_queue: u32,
    /// Largest queue over the whole run.
    pub max_queue_run: u32,
    pub drops: u64,
    /// Of which RED's early drops.
    pub early_drops: u64,
    /// An IP link: queue lengths and drops count packets.
    pub packets: bool,
    pub departed: u64,
    pub utilization: f64,
    /// Of `mean_queue`, the RD packets' part, at a port with FICCRD control (the data packets'
    /// part is the rest).
    pub mean_rd_queue: Option<f64>,
}

/// An HG-RCP gateway over the whole run.
#[derive(Clone, Debug)]
pub struct GatewayReport {
    pub name: String,
    /// Largest ABR-SAP buffer occupancy, cells.
    pub max_queue: u32,
    /// Mean occupancy seen by arriving packets before their cells entered, cells.
    pub mean_queue_seen: f64,
    /// Mean occupancy each arriving packet left behind (its own cells included), cells: the
    /// seed's "queue length … recorded at the arrival of an IP packet" as its maximum reads it.
    pub mean_queue_left: Option<f64>,
    /// Time-average occupancy over the window, cells.
    pub time_mean_queue: Option<f64>,
    /// Mean time a cell waits in the buffer, seconds (Little's law over the run).
    pub mean_delay_s: f64,
    /// Notifications sent and packets discarded whole, over the whole run (the queue's numbers
    /// are over the measurement window).
    pub rn_sent: u64,
    pub qn_sent: u64,
    pub drops: u64,
    /// Its CSMA/CD LAN's contention over the whole run (`None`: a collision-free LAN).
    pub lan: Option<crate::port::CsmaStats>,
}

#[derive(Clone, Debug)]
pub struct Report {
    pub window: (SimTime, SimTime),
    pub vcs: Vec<VcReport>,
    pub ports: Vec<PortReport>,
    pub gateways: Vec<GatewayReport>,
    /// Jain's index over measured rate / max-min rate (ABR VCs with a max-min rate; none without
    /// one).
    pub fairness_index: Option<f64>,
    /// Jain's index over TCP goodputs (none without a connection).
    pub tcp_fairness_index: Option<f64>,
}
