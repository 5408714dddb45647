//! An IP-over-ATM gateway's state (seed 000; docs/models/hgrcp.md): on the LAN side of its ABR
//! connection, the ABR-SAP buffer in cells with packet-level discard and the HG-RCP controller; on
//! the far side, the reassembly of each connection's cells into packets for the LAN. What cells
//! meet at a gateway node (and the events it takes part in) is `world/node/gateway.rs`'s.

use super::HgrcpController;
use crate::aal5;
use crate::cell::{Cell, CellKind, Flags};
use crate::ids::{PortId, VcId};
use crate::tcp_host::ethernet_wire_bytes;
use ccsim_engine::SimTime;
use std::collections::VecDeque;

/// Counters of a gateway's ABR-SAP buffer.
#[derive(Clone, Debug, Default)]
pub struct GatewayStats {
    /// Packets admitted to / discarded from the buffer (packet-level discard).
    pub packets_in: u64,
    pub drops: u64,
    /// The largest occupancy, cells.
    pub max_queue: u32,
    /// The sum of the occupancies (cells) seen by arriving packets, for their mean (the seed
    /// records the queue at every packet arrival).
    pub queue_seen_sum: u64,
    /// The same after the packet's cells entered (unchanged for a discarded packet): the
    /// occupancy its arrival leaves, which the maximum also reads.
    pub queue_left_sum: u64,
    /// Rate and queue notifications sent.
    pub rn_sent: u64,
    pub qn_sent: u64,
    /// Cells the ABR connection took from the buffer.
    pub cells_out: u64,
    /// Time integral of the occupancy (cell·ps) up to `since`, for the mean delay (Little).
    pub area: u128,
    pub since: SimTime,
}

pub struct Gateway {
    pub name: String,
    /// The ABR VC this gateway is the source end system of (its LAN's traffic leaves by it).
    pub trunk: Option<VcId>,
    /// ABR-SAP buffer: the cells of admitted packets, oldest first, each with the hop index of
    /// its connection's route at this gateway.
    pub sap: VecDeque<Cell>,
    /// Capacity in cells (`None`: unlimited).
    pub capacity: Option<u32>,
    pub controller: Option<HgrcpController>,
    /// The LAN medium from this gateway to its hub: where rate and queue notifications go.
    pub lan_port: Option<PortId>,
    /// The LAN medium from the hub to this gateway: its stations are the paced outputs of the
    /// hosts whose connections enter the ATM network here.
    pub medium: Option<PortId>,
    /// A half-duplex CSMA/CD LAN: the one medium both directions share (at the hub; `lan_port`
    /// and the port toward the gateway are then the hub's own short links). `None`: two
    /// collision-free media, one per direction.
    pub shared_medium: Option<PortId>,
    /// The CSMA/CD medium its hosts contend on, shared or not (its statistics are reported).
    pub csma: Option<PortId>,
    /// Hosts already sent a queue notification.
    pub told: Vec<VcId>,
    /// Far side: per connection, the cells since its last end-of-frame (first frame, count).
    reassembly: Vec<(VcId, u16, u32)>,
    /// Statistics over the measurement window (whole run until it opens).
    pub stats: GatewayStats,
    /// Packets discarded over the whole run (the conservation check's).
    pub drops_run: u64,
    window_start: SimTime,
}

/// An ICMP message of HG-RCP: 8 bytes in a 28-byte IP packet [SEED].
pub const ICMP_IP_BYTES: u32 = 28;

impl Gateway {
    pub fn new(name: String, capacity: Option<u32>, controller: Option<HgrcpController>) -> Self {
        Gateway {
            name,
            trunk: None,
            sap: VecDeque::new(),
            capacity,
            controller,
            lan_port: None,
            medium: None,
            shared_medium: None,
            csma: None,
            told: Vec::new(),
            reassembly: Vec::new(),
            stats: GatewayStats::default(),
            drops_run: 0,
            window_start: SimTime::ZERO,
        }
    }

    /// Cells in the ABR-SAP buffer.
    pub fn queue(&self) -> u32 {
        self.sap.len() as u32
    }

    fn account(&mut self, now: SimTime) {
        let dt = now.saturating_since(self.stats.since).as_ps() as u128;
        self.stats.area += dt * self.sap.len() as u128;
        self.stats.since = now;
    }

    /// An IP packet (its Ethernet wire size in `size`) of the connection at hop `hop` reaches
    /// the buffer at `now`: its AAL5 cells (LLC/SNAP) enter whole, or none does. Returns how
    /// many cells entered (0: discarded).
    pub fn segment(&mut self, now: SimTime, packet: &Cell, hop: u16) -> u32 {
        self.account(now);
        self.stats.queue_seen_sum += self.sap.len() as u64;
        let ip_len = ip_length(packet);
        let n = aal5::cells(ip_len, true);
        if self.capacity.is_some_and(|c| self.sap.len() as u32 + n > c) {
            self.stats.drops += 1;
            self.drops_run += 1;
            self.stats.queue_left_sum += self.sap.len() as u64;
            return 0;
        }
        self.stats.packets_in += 1;
        for k in 0..n {
            let mut c = Cell::data(packet.vc);
            c.frame = packet.frame;
            c.hop = hop;
            // The IP length rides along for the far gateway, and the packet's departure from its
            // source for its end-to-end delay.
            c.set_ip_length(ip_len);
            c.set_sent(packet.sent());
            c.flags.set(Flags::EOM, k + 1 == n);
            self.sap.push_back(c);
        }
        self.stats.max_queue = self.stats.max_queue.max(self.sap.len() as u32);
        self.stats.queue_left_sum += self.sap.len() as u64;
        n
    }

    /// The ABR connection's next data cell, if the buffer holds one.
    pub fn take(&mut self, now: SimTime) -> Option<Cell> {
        self.account(now);
        let c = self.sap.pop_front()?;
        self.stats.cells_out += 1;
        Some(c)
    }

    /// A connection's cell reached the far gateway: on its end-of-frame cell, the packet for the
    /// LAN (its Ethernet wire size) if every cell of the frame came, and how many cells this
    /// frame had.
    pub fn reassemble(&mut self, cell: &Cell) -> Option<(Option<Cell>, u32)> {
        let i = match self.reassembly.iter().position(|r| r.0 == cell.vc) {
            Some(i) => i,
            None => {
                self.reassembly.push((cell.vc, cell.frame, 0));
                self.reassembly.len() - 1
            }
        };
        let r = &mut self.reassembly[i];
        if r.2 == 0 {
            r.1 = cell.frame;
        }
        r.2 += 1;
        if !cell.eom() {
            return None;
        }
        let (first, got) = (r.1, r.2);
        r.2 = 0;
        let ip_len = cell.ip_length();
        let whole = first == cell.frame && got == aal5::cells(ip_len, true);
        let packet = whole.then(|| {
            let mut p = Cell::packet(cell.vc, CellKind::Data, cell.frame, ethernet_wire_bytes(ip_len) as u16);
            p.set_sent(cell.sent());
            p
        });
        Some((packet, got))
    }

    /// When the statistics started (the window's opening, or time zero).
    pub fn stats_since(&self) -> SimTime {
        self.window_start
    }

    /// The measurement window opens at `now`: the queue's statistics restart (the seed deletes
    /// the warm-up); the counts of notifications go on over the whole run.
    pub fn open_window(&mut self, now: SimTime) {
        let (queue, rn_sent, qn_sent) = (self.queue(), self.stats.rn_sent, self.stats.qn_sent);
        self.stats = GatewayStats { max_queue: queue, since: now, rn_sent, qn_sent, ..GatewayStats::default() };
        self.window_start = now;
    }

    /// The time-average occupancy from `start` to `now`, cells (`None` over no time).
    pub fn time_mean_queue(&self, now: SimTime, start: SimTime) -> Option<f64> {
        let span = now.saturating_since(start).as_secs_f64();
        // The occupancy since the last change counts up to `now`.
        let area = self.stats.area + now.saturating_since(self.stats.since).as_ps() as u128 * self.sap.len() as u128;
        (span > 0.0).then(|| area as f64 / (span * ccsim_engine::PS_PER_SEC as f64))
    }

    /// The mean occupancy seen by arriving packets, before their cells entered (`false`) or
    /// after (`true`), cells (`None`: no packet arrived).
    pub fn arrival_mean_queue(&self, after: bool) -> Option<f64> {
        let arrivals = self.stats.packets_in + self.stats.drops;
        let sum = if after { self.stats.queue_left_sum } else { self.stats.queue_seen_sum };
        (arrivals > 0).then(|| sum as f64 / arrivals as f64)
    }

    /// The mean delay of a cell in the buffer over the run so far, seconds (Little's law: the
    /// mean occupancy over the cells' throughput).
    pub fn mean_delay_s(&self, now: SimTime, start: SimTime) -> f64 {
        let span = now.saturating_since(start).as_secs_f64();
        match self.time_mean_queue(now, start) {
            Some(q) if self.stats.cells_out > 0 => q / (self.stats.cells_out as f64 / span),
            _ => 0.0,
        }
    }
}

/// An IP packet's length from its Ethernet wire size (the 84-byte minimum frame pads short
/// packets: an ICMP message or an ACK reads as at most 46 bytes, which is all the cells need).
pub fn ip_length(packet: &Cell) -> u32 {
    (packet.size as u32).saturating_sub(crate::tcp_host::ETHERNET_OVERHEAD_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(vc: u32, frame: u16, ip: u32) -> Cell {
        Cell::packet(VcId(vc), CellKind::Data, frame, ethernet_wire_bytes(ip) as u16)
    }

    #[test]
    fn a_packet_enters_whole_or_not_at_all() {
        let mut g = Gateway::new("G".into(), Some(40), None);
        // 1500 bytes of IP: 32 cells with LLC/SNAP and the trailer.
        assert_eq!(g.segment(SimTime::ZERO, &packet(0, 0, 1500), 2), 32);
        assert_eq!(g.segment(SimTime::ZERO, &packet(1, 0, 1500), 2), 0, "8 cells left: discarded whole");
        assert_eq!((g.queue(), g.stats.drops), (32, 1));
        assert!(g.sap.iter().take(31).all(|c| !c.eom()) && g.sap[31].eom());
    }

    /// The Q-bit stays on the LAN: the cells a marked packet becomes carry no mark (the gateway
    /// clears it before the packet enters the ABR connection).
    #[test]
    fn the_q_bit_never_reaches_the_atm_side() {
        let mut g = Gateway::new("G".into(), None, None);
        let mut p = packet(0, 0, 1500);
        p.flags.set(Flags::QBIT, true);
        g.segment(SimTime::ZERO, &p, 2);
        assert!(g.sap.iter().all(|c| !c.flags.get(Flags::QBIT) && c.kind == CellKind::Data && c.size == 53));
    }

    #[test]
    fn the_far_gateway_rebuilds_the_packet_or_loses_it_whole() {
        let mut a = Gateway::new("A".into(), None, None);
        let mut b = Gateway::new("B".into(), None, None);
        a.segment(SimTime::ZERO, &packet(0, 7, 1500), 2);
        a.segment(SimTime::ZERO, &packet(0, 8, 1500), 2);
        let mut out = Vec::new();
        let mut k = 0;
        while let Some(c) = a.take(SimTime::ZERO) {
            k += 1;
            if k == 40 {
                continue; // a cell of the second packet lost on the way
            }
            if let Some(r) = b.reassemble(&c) {
                out.push(r);
            }
        }
        assert_eq!(out.len(), 2);
        let (p, n) = out[0];
        assert_eq!((p.unwrap().size, p.unwrap().frame, n), (1538, 7, 32));
        assert_eq!((out[1].0, out[1].1), (None, 31));
    }
}
