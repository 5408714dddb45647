//! What a cell meets at a node, decided by the node's kind: the `NodeKind` family, one file per
//! kind, one `match` per arrival (`World::arrive`), no trait object on the per-cell path.
//!
//! Owns the dispatch and the two ways on (`pass_forward`, `pass_backward`: the next hop's port
//! by the cell's hop index). Each kind's file owns what happens at that kind of node and may
//! touch only the node's own ports' state (schemes, controls, buffers) and the arriving cell's
//! VC: other nodes are reached through links only (the windowed mode relies on it).
//!
//! | kind | file | a cell meets |
//! |---|---|---|
//! | `Host` | `host.rs` | the VC's end systems: TM 4.0 source and destination, TCP ends and their AAL5 adapters, the VBR sink |
//! | `Switch` | `switch.rs` | the output port's ABR scheme (data, RM and background hooks), its timers |
//! | `Router` | `router.rs` | the output port's IP control (FICCRD's core) for RD packets; data and ACKs pass |
//! | `IpEdge` | `edge.rs` | a router that is the source edge of the flows entering there (FIEWA): rate estimation, RD packets, ACK rewriting |
//! | `Lan` | `gateway.rs` | a gateway's LAN hub: packets pass; rate and queue notifications reach the hosts |
//! | `Gateway` | `gateway.rs` | an IP-over-ATM gateway (HG-RCP): segmentation into its ABR-SAP buffer, the ABR connection's end systems, reassembly, rate and queue notifications |
//!
//! A new kind (an HG-RCP gateway, say) adds a variant, a file with its `at_…` handler, and an
//! arm in `arrive`; per-node state it needs lives in an arena of its own indexed by the node
//! (`NodeKind` stays `Copy`: the per-port table `arrive_kind` holds it). See docs/extending.md.

mod edge;
mod gateway;
mod host;

pub(in crate::world) use gateway::NO_GATEWAY;
mod router;
mod switch;

use super::World;
use crate::cell::Cell;
use crate::ids::PortId;

/// The kind of a node: what its arriving cells meet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum NodeKind {
    /// An end-system host: the ends of one VC (every route starts and ends at a host).
    Host,
    /// An ATM switch: cells, output ports with ABR schemes and cell buffer policies.
    Switch,
    /// An IP router: packets, output ports with drop-tail or RED and, with FICCRD, a core
    /// control fed by RD packets.
    Router,
    /// An IP router that is also the source edge of the flows whose route starts there
    /// (FICCRD's FIEWA enforcement); a plain router for the flows that only cross it.
    IpEdge,
    /// An IP-over-ATM gateway between an intranet LAN and an ABR connection (HG-RCP, seed 000):
    /// packets become cells in its ABR-SAP buffer, or cells packets for the far LAN.
    Gateway,
    /// The hub of a gateway's intranet LAN: packets pass as at a router; the gateway's rate and
    /// queue notifications reach the hosts here.
    Lan,
    /// Not a node: in the per-port arrival table (`World::arrive_kind`), a link that loses cells
    /// (`Port::loss`). Its arrivals draw first, then meet the far node's own kind; other links
    /// pay nothing for the faults.
    LossyLink,
}

impl NodeKind {
    /// Nodes whose ports are network ports (queue plots, scheme and policy options).
    pub fn in_network(self) -> bool {
        self != NodeKind::Host
    }
}

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
}

impl World {
    /// A cell came out of port `p`'s pipe at the node at its far end: that node's kind decides
    /// what it meets.
    #[inline(always)]
    pub(in crate::world) fn arrive(&mut self, p: PortId, cell: Cell) {
        match self.arrive_kind[p.index()] {
            NodeKind::Switch => self.at_switch(cell),
            NodeKind::Host => self.at_host(cell),
            NodeKind::Router => self.at_router(cell),
            NodeKind::IpEdge => self.at_ip_edge(cell),
            NodeKind::Gateway => self.at_gateway(p, cell),
            NodeKind::Lan => self.at_lan(p, cell),
            NodeKind::LossyLink => self.arrive_over_lossy_link(p, cell),
        }
    }

    /// A cell at the end of port `p`'s lossy link: lost there (the VC's books count it dropped),
    /// or on to what the far node's kind decides.
    #[cold]
    fn arrive_over_lossy_link(&mut self, p: PortId, cell: Cell) {
        let port = &mut self.ports[p.index()];
        if port.loss.as_mut().expect("a lossy link").lose() {
            if self.trace.is_some() {
                self.trace_port(crate::trace::TraceEvent::Drop, &cell, self.now, p, crate::trace::TraceReason::LinkLoss);
            }
            return self.count_drop(&cell, self.now);
        }
        let kind = self.nodes[port.to.index()].kind;
        self.arrive_kind[p.index()] = kind;
        self.arrive(p, cell);
        self.arrive_kind[p.index()] = NodeKind::LossyLink;
    }

    /// A forward cell at node `node` of its route goes on by the port towards node + 1.
    #[inline(always)]
    pub(in crate::world) fn pass_forward(&mut self, node: usize, mut cell: Cell) {
        cell.hop = node as u16;
        let out = self.routes.fwd(self.routes.of_vc(cell.vc.index()), node);
        self.enqueue(out, cell);
    }

    /// A backward cell at node `node` of its route goes on by the port towards node − 1.
    #[inline(always)]
    pub(in crate::world) fn pass_backward(&mut self, node: usize, mut cell: Cell) {
        cell.hop = (node - 1) as u16;
        let out = self.routes.rev(self.routes.of_vc(cell.vc.index()), node - 1);
        self.enqueue(out, cell);
    }
}
