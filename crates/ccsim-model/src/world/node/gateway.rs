//! An IP-over-ATM gateway (HG-RCP, seed 000; docs/models/hgrcp.md). On the LAN side of its ABR
//! connection it records the sources, answers an unmanaged host with a queue notification,
//! clears the Q-bit and segments each packet into its ABR-SAP buffer (packet-level discard); its
//! ABR connection's source takes the buffer's cells at ACR (`pace_trunk`); every T its controller
//! may broadcast a rate notification. On the far side it is the connection's destination end
//! system and rebuilds each connection's packets for its LAN. ACKs pass through.
//!
//! May touch its own state (`World::gateways`), its trunk VC, the arriving cell's VC books (at the
//! far gateway also the delivered count of the trunk that carried the cell, `Vc::carrier`: a
//! book of another node's VC, to split per node when nodes run on threads), and the LAN medium
//! toward it, whose stations are its hosts' paced outputs (rate and queue notifications reach them
//! over the LAN).

use crate::cell::{Cell, CellKind, Flags};
use crate::hgrcp::{ip_length, ICMP_IP_BYTES};
use crate::ids::{PortId, VcId};
use crate::tcp_host::ethernet_wire_bytes;
use crate::world::{Event, World};

/// An HG-RCP ICMP message about VC `v` (a 28-byte IP packet in an Ethernet frame).
fn icmp(v: VcId) -> Cell {
    Cell::packet(v, CellKind::Icmp, 0, ethernet_wire_bytes(ICMP_IP_BYTES) as u16)
}

/// `World::node_gateway` of a node that is no gateway.
pub(in crate::world) const NO_GATEWAY: u32 = u32::MAX;

impl World {
    /// A cell or packet arrived at a gateway over port `p`.
    pub(in crate::world) fn at_gateway(&mut self, p: PortId, cell: Cell) {
        let g = self.node_gateway[self.ports[p.index()].to.index()] as usize;
        let v = cell.vc.index();
        // The ABR connection's own cells: its source and destination end systems are here.
        if self.vcs[v].is_trunk() {
            return self.at_host(cell);
        }
        if !cell.is_forward() {
            return self.pass_backward(cell.hop as usize, cell);
        }
        let node = cell.hop as usize + 1;
        if self.gateways[g].trunk.is_some() {
            self.enter_abr(g, node, cell);
        } else {
            self.leave_abr(g, node, cell);
        }
    }

    /// Which gateway trunk carries each connection: the one whose first port (the gateway's ATM
    /// output) the connection's route crosses. Trunks carry no data cells of their own, so their
    /// rows count what they carry (`pace_trunk`, `leave_abr`) and the max-min reference shares a
    /// trunk among its connections (`World::maxmin_rates`).
    pub(in crate::world) fn mark_carriers(&mut self) {
        let trunks: Vec<(VcId, PortId)> = self.gateways.iter().filter_map(|g| g.trunk).map(|t| (t, self.vcs[t.index()].fwd_ports[0])).collect();
        if trunks.is_empty() {
            return;
        }
        for vc in self.vcs.iter_mut().filter(|v| !v.is_trunk() && v.background().is_none()) {
            vc.carrier = trunks.iter().find(|(_, p)| vc.fwd_ports.contains(p)).map(|&(t, _)| t);
        }
    }

    /// A packet arrived at a gateway's LAN hub over port `p`: notifications from the gateway reach
    /// the hosts; everything else passes as at a router.
    pub(in crate::world) fn at_lan(&mut self, p: PortId, cell: Cell) {
        if cell.kind == CellKind::Icmp {
            let g = self.node_gateway[self.ports[p.index()].to.index()] as usize;
            // On a shared CSMA/CD medium a notification from the gateway contends for it first.
            if let Some(medium) = self.gateways[g].shared_medium.filter(|&m| m != p) {
                return self.enqueue(medium, cell);
            }
            return self.icmp_arrived(g, cell);
        }
        self.at_router(cell)
    }

    /// A connection's packet from the LAN enters the ABR connection's buffer (or is discarded).
    fn enter_abr(&mut self, g: usize, node: usize, mut packet: Cell) {
        let now = self.now;
        let v = packet.vc;
        let gw = &mut self.gateways[g];
        if let Some(c) = gw.controller.as_mut() {
            c.on_packet(now, v.0);
            // A host not yet rate-managing this destination hears of its queue (once).
            if !packet.flags.get(Flags::QBIT) && !gw.told.contains(&v) {
                gw.told.push(v);
                gw.stats.qn_sent += 1;
                let mut qn = icmp(v);
                qn.flags.set(Flags::CI, true);
                self.send_icmp(g, qn);
            }
        }
        packet.flags.set(Flags::QBIT, false);
        let gw = &mut self.gateways[g];
        let n = gw.segment(now, &packet, node as u16);
        if self.trace.is_some() {
            self.trace_gateway_entry(node, &packet, n);
        }
        if n == 0 {
            return self.count_drop(&packet, now);
        }
        let books = &mut self.vcs[v.index()].books;
        // The packet arrived; its n cells leave by the ABR connection.
        books.fwd_delivered += 1;
        books.data_delivered += 1;
        books.fwd_sent += n as u64;
        books.data_sent += n as u64;
        let trunk = self.gateways[g].trunk.expect("checked by the caller");
        let crate::world::Ends::Trunk { source, .. } = &mut self.vcs[trunk.index()].ends else { unreachable!("a trunk") };
        let next = source.data_arrived(now, n as u64);
        if next.is_some() {
            self.schedule_source(trunk, next);
        }
    }

    /// A connection's cell from the ATM network at the far gateway: its packet, once whole, goes
    /// on to the LAN.
    fn leave_abr(&mut self, g: usize, node: usize, cell: Cell) {
        let rebuilt = self.gateways[g].reassemble(&cell);
        if self.trace.is_some() {
            let packet = rebuilt.and_then(|(p, _)| p);
            self.trace_gateway_exit(node, &cell, packet.as_ref());
        }
        let vc = &mut self.vcs[cell.vc.index()];
        let carrier = vc.carrier;
        vc.books.fwd_delivered += 1;
        vc.books.data_delivered += 1;
        if let Some(t) = carrier {
            self.vcs[t.index()].books.data_delivered += 1;
        }
        let books = &mut self.vcs[cell.vc.index()].books;
        if let Some((Some(packet), _)) = rebuilt {
            books.fwd_sent += 1;
            books.data_sent += 1;
            self.pass_forward(node, packet);
        }
    }

    /// The trunk's pacing timer: a data opportunity takes the gateway buffer's head cell, which
    /// goes on along its own connection's route; RM cells are the trunk's own.
    pub(in crate::world) fn pace_trunk(&mut self, v: VcId, gen: u32) {
        let crate::world::Ends::Trunk { source, gateway, .. } = &mut self.vcs[v.index()].ends else { unreachable!("a trunk") };
        let g = *gateway as usize;
        let (cell, next) = source.on_wake(self.now);
        if let Some(t) = next {
            self.schedule(t, Event::SourceWake(v, gen));
        }
        match cell {
            Some(c) if c.kind == CellKind::Data => {
                if let Some(c) = self.gateways[g].take(self.now) {
                    // The trunk's own books count the data cells it carries (its row's rate).
                    self.vcs[v.index()].books.data_sent += 1;
                    self.pass_forward(c.hop as usize, c);
                }
            }
            Some(rm) => self.send_forward(v, rm),
            None => {}
        }
    }

    /// The controller's tick: a rate notification if the rate changed, and the next tick.
    pub(in crate::world) fn on_gateway_timer(&mut self, g: u32) {
        let now = self.now;
        let gw = &self.gateways[g as usize];
        let (Some(c), Some(trunk)) = (gw.controller.as_ref(), gw.trunk) else { return };
        let period = c.params().t;
        let acr = self.vcs[trunk.index()].acr();
        let q = gw.queue();
        let gw = &mut self.gateways[g as usize];
        if let Some(er) = gw.controller.as_mut().expect("checked").on_tick(now, acr, q) {
            gw.stats.rn_sent += 1;
            let mut rn = icmp(trunk);
            rn.er = er as f32;
            self.send_icmp(g as usize, rn);
        }
        self.schedule(now + period, Event::GatewayTimer(g));
    }

    /// Puts an ICMP message on the LAN towards the hosts (the medium from the gateway to the LAN's
    /// hub); it reaches them when through.
    fn send_icmp(&mut self, g: usize, mut msg: Cell) {
        let Some(lan) = self.gateways[g].lan_port else { return };
        self.vcs[msg.vc.index()].books.bwd_sent += 1;
        if self.trace.is_some() {
            self.trace_number_sent(&mut msg);
            self.trace_send_by(&msg, self.now, lan);
        }
        debug_assert_eq!(ip_length(&msg), 46, "a minimum frame");
        self.enqueue(lan, msg);
    }

    /// An ICMP message of gateway `g` came through the LAN: a rate notification for every host,
    /// or a queue notification for its VC's host (the hosts' outputs are the stations of the
    /// medium toward the gateway).
    fn icmp_arrived(&mut self, g: usize, msg: Cell) {
        self.vcs[msg.vc.index()].books.bwd_delivered += 1;
        if let (true, Some(lan)) = (self.trace.is_some(), self.gateways[g].lan_port) {
            self.trace_deliver_by(&msg, self.now, lan);
        }
        if msg.flags.get(Flags::CI) {
            let Some(port) = self.gateways[g].medium else { return };
            if let Some(medium) = self.ports[port.index()].lan_medium_mut() {
                medium.learn(msg.vc);
            }
            if let Some(t) = self.ports[port.index()].kick(self.now) {
                self.schedule(t, Event::PortDeparture(port));
            }
            return self.medium_discards(port);
        }
        if let Some(port) = self.gateways[g].medium {
            self.notify_rate(port, msg.er as f64);
        }
    }
}
