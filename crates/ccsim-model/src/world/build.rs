//! Building a world: nodes, ports and VCs from specs, then the derived tables (what each port
//! leads to, lazy ends, windowed-mode inputs, idle schemes) and the initial events.
//!
//! Owns `WorldBuilder` and the specs; it decides nothing at run time.

use super::node::{Node, NodeKind};
use super::vc::{Ends, Vc, VcBooks};
use super::{Event, World};
use crate::abr::{AbrDestination, AbrParams, AbrSource, Misbehaviour};
use crate::ids::{NodeId, PortId, VcId};
use crate::hgrcp::Gateway;
use crate::ip::{AnyEdge, AnyIpControl, EdgeParams};
use crate::measure::{MeasureSpec, Recordings, WindowSnapshot};
use crate::policer::AnyPolicer;
use crate::port::{AnyBufferPolicy, AnyDiscipline, AnyHeldOrder, Port};
use crate::tcp::{TcpReceiver, TcpSender};
use crate::tcp_host::{AbrAdapter, HostLink, TcpEnds};
use crate::vbr::OnOffSource;
use ccsim_engine::{ByEvent, EventQueue, Fingerprint, RngStream, SimDuration, SimTime, StreamKey};
use std::collections::VecDeque;

/// A port to create, as the scenario layer describes it.
pub struct PortSpec {
    pub name: String,
    pub link_name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: SimDuration,
    /// Capacity in cells, or in packets on an IP link.
    pub buffer_cells: u32,
    pub scheme: Option<crate::abr::switch::AnyAbrSwitch>,
    pub policy: AnyBufferPolicy,
    /// An IP link: packets of their own sizes.
    pub packets: bool,
    /// Random Early Detection (IP router ports).
    pub red: Option<crate::port::Red>,
    /// IP congestion control at a router port (FICCRD).
    pub control: Option<AnyIpControl>,
    /// A held discipline (`port/discipline/`); `None` is the FIFO fast path. Ports on a VBR
    /// route get strict priority whatever this says (`add_vc`).
    pub held: Option<AnyHeldOrder>,
}

impl PortSpec {
    /// A plain FIFO port of a link: drop-tail, no switch scheme, no IP queue management; set the
    /// rest with struct update syntax.
    pub fn link(name: String, link_name: String, from: NodeId, to: NodeId, rate_bps: u64, delay: SimDuration, buffer: u32) -> Self {
        PortSpec {
            name,
            link_name,
            from,
            to,
            rate_bps,
            delay,
            buffer_cells: buffer,
            scheme: None,
            policy: AnyBufferPolicy::CellDropTail,
            packets: false,
            red: None,
            control: None,
            held: None,
        }
    }
}

/// A connection to create.
pub struct VcSpec {
    pub name: String,
    pub dest_name: String,
    pub fwd_ports: Vec<PortId>,
    pub rev_ports: Vec<PortId>,
    pub start: SimTime,
    pub stop: SimTime,
    pub kind: VcKind,
    /// The first router of the route is a FICCRD source edge with FIEWA enforcement (TCP over
    /// IP only; that router's kind is `NodeKind::IpEdge`).
    pub edge: Option<EdgeParams>,
    /// A GFR VC's contract, if it has one.
    pub gfr: Option<GfrVc>,
    /// Under credit control (CT), the VP it belongs to: on each hop it shares that VP's credit
    /// with the VP's other connections there (`None`: credit of its own on every hop).
    pub credit_vp: Option<u32>,
}

/// A GFR VC's contract (docs/models/ubr/gfr.md): its MCR weighs it at every port whose policy
/// or discipline uses weights (WBA, SCFQ); its policer checks its frames at the ingress switch.
pub struct GfrVc {
    /// Minimum cell rate, cells/s.
    pub mcr: f64,
    pub policer: Option<AnyPolicer>,
}

/// The traffic of a VC to create.
pub enum VcKind {
    Abr { params: AbrParams, misbehaviour: Misbehaviour },
    /// `abr`: run over ABR with these source parameters instead of UBR.
    Tcp { sender: TcpSender, receiver: TcpReceiver, link: HostLink, abr: Option<AbrParams> },
    Vbr { peak: f64, mean_on: SimDuration, mean_off: SimDuration, rng: RngStream },
    /// The ABR connection between two gateways (HG-RCP): route from the source gateway (its
    /// "host") to the far one; `gateway` is the source gateway's index (`add_gateway`).
    Trunk { params: AbrParams, gateway: u32 },
}

pub struct WorldBuilder {
    n_vcs: usize,
    seed: u64,
    replication: u64,
    nodes: Vec<Node>,
    ports: Vec<Port>,
    /// Per port, the receiving end of its credit-controlled hop (none for the others).
    credit_rx: Vec<Option<crate::port::CreditRx>>,
    vcs: Vec<Vc>,
    /// Gateways and their nodes (HG-RCP), and the LAN hubs of gateways.
    gateways: Vec<(NodeId, Gateway)>,
    lans: Vec<(NodeId, u32)>,
}

impl WorldBuilder {
    /// `n_vcs` sizes the per-VC tables of ports and schemes; add exactly that many VCs.
    pub fn new(n_vcs: usize) -> Self {
        WorldBuilder { n_vcs, seed: 1, replication: 0, nodes: Vec::new(), ports: Vec::new(), credit_rx: Vec::new(), vcs: Vec::new(), gateways: Vec::new(), lans: Vec::new() }
    }

    /// The seed and replication every random stream of this world derives from.
    pub fn seed(mut self, seed: u64, replication: u64) -> Self {
        self.seed = seed;
        self.replication = replication;
        self
    }

    pub fn n_vcs(&self) -> usize {
        self.n_vcs
    }

    /// Ports created so far (the next port's index).
    pub fn n_ports(&self) -> usize {
        self.ports.len()
    }

    /// VCs added so far (the next VC's index).
    pub fn n_vcs_added(&self) -> usize {
        self.vcs.len()
    }

    /// A random stream of this world's seed for one component and purpose.
    pub fn stream(&self, component: u64, purpose: u64) -> RngStream {
        RngStream::new(StreamKey { seed: self.seed, replication: self.replication, component, purpose })
    }

    pub fn add_node(&mut self, name: impl Into<String>, kind: NodeKind) -> NodeId {
        self.nodes.push(Node { name: name.into(), kind });
        NodeId(self.nodes.len() as u32 - 1)
    }

    /// The state of gateway node `node` (of kind `NodeKind::Gateway`); returns its index.
    pub fn add_gateway(&mut self, node: NodeId, gateway: Gateway) -> u32 {
        assert_eq!(self.nodes[node.index()].kind, NodeKind::Gateway);
        self.gateways.push((node, gateway));
        self.gateways.len() as u32 - 1
    }

    /// Node `hub` (of kind `NodeKind::Lan`) is gateway `g`'s LAN hub.
    pub fn attach_lan(&mut self, hub: NodeId, g: u32) {
        assert_eq!(self.nodes[hub.index()].kind, NodeKind::Lan);
        self.lans.push((hub, g));
    }

    /// Gateway `g`'s state (its LAN port, its hosts' paced outputs).
    pub fn gateway_mut(&mut self, g: u32) -> &mut Gateway {
        &mut self.gateways[g as usize].1
    }

    /// VC `v`'s cells are ABR cells in the ATM network although the VC has no ABR source of its
    /// own (a connection behind an HG-RCP gateway: switch schemes count its cells as the load of
    /// the gateway's ABR connection).
    pub fn set_abr_cells(&mut self, v: VcId) {
        self.vcs[v.index()].abr = true;
    }

    /// Items crossing port `p`'s link are lost with probability `probability` (faults).
    pub fn set_link_loss(&mut self, p: PortId, probability: f64, rng: RngStream) {
        self.ports[p.index()].loss = Some(Box::new(crate::port::LinkLoss::new(probability, rng)));
    }

    pub fn add_port(&mut self, s: PortSpec) -> PortId {
        let at_switch = self.nodes[s.from.index()].kind.in_network();
        let mut port =
            Port::new(s.name, s.link_name, s.from, s.to, s.rate_bps, s.delay, s.buffer_cells, s.scheme, at_switch);
        port.buffer = port.buffer.with_policy(s.policy, true);
        port.packets = s.packets;
        port.red = s.red.map(Box::new);
        port.control = s.control.map(Box::new);
        // A policy that counts tagged cells per VC needs each departing cell (WBA).
        let held = s.held.or_else(|| port.buffer.policy().counts_tags().then(|| AnyHeldOrder::Fifo(Default::default())));
        if let Some(order) = held {
            // FICCRD's RD count needs each RD's departure at admission (`ip/rd_queue.rs`).
            debug_assert!(port.control.is_none(), "a port with IP control is FIFO");
            port.discipline = AnyDiscipline::held(order);
        }
        self.ports.push(port);
        PortId(self.ports.len() as u32 - 1)
    }

    /// A VC's forward route is credit-controlled (CT) if every port of it is: the VC joins its
    /// VP's unit of credit (or one of its own) on each hop.
    fn link_credit_hops(&mut self, vc: VcId, route: &[PortId], vp: Option<u32>) -> bool {
        if !route.iter().all(|p| self.ports[p.index()].credit().is_some()) {
            return false;
        }
        for p in route {
            self.ports[p.index()].credit_mut().expect("checked").join(vc, vp);
            self.credit_rx[p.index()].as_mut().expect("with its transmitter").join(vc, vp);
        }
        true
    }

    /// TCP connection `v`'s application is seed 004's session model: it writes only what its
    /// sessions write.
    pub fn set_sessions(&mut self, v: VcId, sessions: crate::sessions::SessionSource) {
        let Ends::Tcp(t) = &mut self.vcs[v.index()].ends else { panic!("sessions drive a TCP connection") };
        t.sender.core.cfg.app_bytes = Some(0);
        t.sessions = Some(Box::new(sessions));
    }

    /// TCP connection `v`'s source adapter holds back the PDUs that do not fit (seed 004's other
    /// reading) instead of dropping them.
    pub fn set_adapter_blocks(&mut self, v: VcId) {
        let Ends::Tcp(t) = &mut self.vcs[v.index()].ends else { panic!("a TCP connection's adapter") };
        t.adapter_blocks = true;
    }

    pub fn port(&self, p: PortId) -> &Port {
        &self.ports[p.index()]
    }

    /// Puts port `p` under credit control (CT) with these parameters, unless it already is.
    pub fn set_credit(&mut self, p: PortId, params: crate::port::CreditParams) {
        let port = &mut self.ports[p.index()];
        if port.credit().is_none() {
            port.discipline = AnyDiscipline::held(AnyHeldOrder::Credit(crate::port::Credit::new(params)));
            if self.credit_rx.len() <= p.index() {
                self.credit_rx.resize_with(p.index() + 1, || None);
            }
            self.credit_rx[p.index()] = Some(crate::port::CreditRx::new(params));
        }
    }

    pub fn add_vc(&mut self, s: VcSpec) -> VcId {
        let id = VcId(self.vcs.len() as u32);
        assert!(id.index() < self.n_vcs, "more VCs than announced to WorldBuilder::new");
        assert!(!s.fwd_ports.is_empty() && s.fwd_ports.len() == s.rev_ports.len());
        // Per-VC state lives only at the ports a VC crosses (memory linear in VC-hops); schemes
        // make their entries now, in VC order.
        for p in s.fwd_ports.iter().chain(&s.rev_ports) {
            if let Some(scheme) = self.ports[p.index()].scheme.as_mut() {
                scheme.register(id);
            }
        }
        let (ends, abr) = match s.kind {
            VcKind::Abr { params, misbehaviour } => (
                Ends::Abr {
                    dest: AbrDestination::new(params.bidding),
                    source: AbrSource::new(id, params, s.start, s.stop).with_misbehaviour(misbehaviour),
                },
                true,
            ),
            VcKind::Tcp { sender, receiver, link, abr } => {
                let mut ends = TcpEnds::new(sender, receiver, s.start, link);
                let over_abr = abr.is_some();
                ends.abr = abr.map(|params| AbrAdapter {
                    dest: AbrDestination::new(params.bidding),
                    source: AbrSource::new(id, params, s.start, s.stop).with_backlog(),
                    backlog: VecDeque::new(),
                    last_pop: SimTime::ZERO,
                });
                (Ends::Tcp(Box::new(ends)), over_abr)
            }
            VcKind::Vbr { peak, mean_on, mean_off, rng } => {
                // Every port it crosses serves it with strict priority.
                for p in &s.fwd_ports {
                    let port = &mut self.ports[p.index()];
                    if !port.is_event_scheduled() {
                        let order = AnyHeldOrder::StrictPriority(Default::default());
                        port.discipline = AnyDiscipline::held(order);
                    }
                }
                (Ends::Vbr(OnOffSource::new(id, peak, mean_on, mean_off, s.start, rng)), false)
            }
            VcKind::Trunk { params, gateway } => {
                self.gateways[gateway as usize].1.trunk = Some(id);
                let ends = Ends::Trunk {
                    dest: AbrDestination::new(params.bidding),
                    source: AbrSource::new(id, params, s.start, s.stop).with_backlog(),
                    gateway,
                };
                (ends, true)
            }
        };
        let edge = s.edge.map(|params| {
            let mss = match &ends {
                Ends::Tcp(t) => t.sender.core.cfg.smss,
                _ => panic!("an edge router's enforcement needs a TCP connection"),
            };
            let edge_node = self.ports[s.fwd_ports[1].index()].from;
            assert_eq!(self.nodes[edge_node.index()].kind, NodeKind::IpEdge, "a flow's source edge is an IpEdge node");
            let out = self.ports[s.fwd_ports[1].index()].rate_bps() as f64;
            let access = self.ports[s.fwd_ports[0].index()].delay;
            Box::new(AnyEdge::new(params, out, access, mss))
        });
        let (mcr, policer) = s.gfr.map_or((0.0, None), |g| (g.mcr, g.policer.map(Box::new)));
        if mcr > 0.0 {
            for p in &s.fwd_ports {
                self.ports[p.index()].set_vc_weight(id, mcr);
            }
        }
        let credit = self.link_credit_hops(id, &s.fwd_ports, s.credit_vp);
        if credit {
            self.ports[s.fwd_ports[0].index()].credit_mut().expect("checked").stamp_heads = true;
        }
        let ctd = (credit || matches!(&ends, Ends::Tcp(t) if t.abr.is_some())).then(Box::default);
        self.vcs.push(Vc {
            name: s.name,
            dest_name: s.dest_name,
            fwd_ports: s.fwd_ports,
            rev_ports: s.rev_ports,
            ends,
            abr,
            wake_gen: 0,
            lazy_source: false,
            pending_wake: None,
            books: VcBooks::default(),
            edge,
            mcr,
            policer,
            credit,
            ctd,
            delay: Default::default(),
            carrier: None,
        });
        id
    }

    pub fn build(self, measure: MeasureSpec) -> World {
        assert_eq!(self.vcs.len(), self.n_vcs, "fewer VCs than announced to WorldBuilder::new");
        // An event's tie holds its component in 24 bits.
        assert!(self.ports.len() < 1 << 24 && self.vcs.len() < 1 << 24, "more than 2^24 ports or VCs");
        let arrive_kind =
            self.ports.iter().map(|p| if p.loss.is_some() { NodeKind::LossyLink } else { self.nodes[p.to.index()].kind }).collect();
        let mut node_gateway = vec![super::node::NO_GATEWAY; self.nodes.len()];
        for (g, (node, _)) in self.gateways.iter().enumerate() {
            node_gateway[node.index()] = g as u32;
        }
        for &(hub, g) in &self.lans {
            node_gateway[hub.index()] = g;
        }
        let gateways: Vec<Gateway> = self.gateways.into_iter().map(|(_, g)| g).collect();
        // The tables grew by doubling: up to half of each (the ports' at 576 bytes a port) empty.
        let (mut nodes, mut ports, mut vcs) = (self.nodes, self.ports, self.vcs);
        nodes.shrink_to_fit();
        ports.shrink_to_fit();
        vcs.shrink_to_fit();
        let mut credit_rx = self.credit_rx;
        if !credit_rx.is_empty() {
            credit_rx.resize_with(ports.len(), || None);
        }
        let mut w = World {
            nodes,
            ports,
            credit_rx,
            vcs,
            arrive_kind,
            edge_out: Vec::new(),
            gateways,
            node_gateway,
            queue: EventQueue::with_rule(ByEvent),
            lps: Vec::new(),
            node_lp: Vec::new(),
            lookahead: SimDuration::ZERO,
            bound: (SimTime::ZERO, 0),
            node_inputs: Vec::new(),
            lp_next: Vec::new(),
            tournament: Vec::new(),
            wide_trees: Vec::new(),
            new_heads: Vec::new(),
            input_leaf: Vec::new(),
            layout: Default::default(),
            arrive_lp: Vec::new(),
            port_lp: Vec::new(),
            vc_lp: Vec::new(),
            vc_dest_lp: Vec::new(),
            now: SimTime::ZERO,
            measure,
            rec: Recordings::default(),
            window: WindowSnapshot::default(),
            last_port_bits: Vec::new(),
            last_goodput_bytes: Vec::new(),
            last_delay: Vec::new(),
            events: 0,
            cell_hops: 0,
            fingerprint: Fingerprint::default(),
            current: None,
            seed: self.seed,
            replication: self.replication,
            scratch_fwd: Vec::new(),
            scratch_bwd: Vec::new(),
            trace: None,
            train_ports: Vec::new(),
            work: None,
            shard: None,
            threads: None,
            routes: Default::default(),
        };
        w.last_port_bits = vec![0.0; w.ports.len()];
        w.last_goodput_bytes = vec![0; w.vcs.len()];
        w.last_delay = vec![(0, 0); w.vcs.len()];
        w.node_lp = (0..w.nodes.len() as u32).collect();
        w.routes = super::route::Routes::of(&w.vcs);
        w.fifo_where_one_vc();
        w.mark_lazy_ends();
        w.index_inputs();
        w.drop_idle_schemes();
        w.mark_credit_trains();
        w.mark_carriers();
        let mut initial = Vec::new();
        for (i, vc) in w.vcs.iter().enumerate() {
            let id = VcId(i as u32);
            if vc.abr_source().is_some() || vc.background().is_some() {
                initial.push((vc.start_time(), Event::SourceStart(id)));
            }
            if vc.tcp().is_some() {
                initial.push((vc.start_time(), Event::TcpStart(id)));
            }
        }
        for (i, port) in w.ports.iter().enumerate() {
            if let Some(due) = port.scheme.as_ref().and_then(|s| s.timer_due()) {
                initial.push((due, Event::SchemeTimer(PortId(i as u32))));
            }
        }
        for (g, gw) in w.gateways.iter().enumerate() {
            if let Some(c) = gw.controller.as_ref() {
                initial.push((SimTime::ZERO + c.params().t, Event::GatewayTimer(g as u32)));
            }
        }
        initial.push((w.measure.window_start.min(w.measure.end), Event::WindowOpen));
        if w.series_size().0 == 0 {
            // Series that record nothing (every `measure` flag off): samples only reschedule.
            w.measure.keep = false;
        }
        if !w.measure.interval.is_zero() {
            initial.push((SimTime::ZERO, Event::Sample));
        }
        for (t, ev) in initial {
            w.schedule(t, ev);
        }
        if w.windows_pay() {
            w.set_windowed(true).expect("checked");
        }
        w
    }
}

impl World {
    /// Per port, whether a VC that `which` selects crosses it forward.
    pub(in crate::world) fn crossed_forward(&self, which: impl Fn(&Vc) -> bool) -> Vec<bool> {
        let mut crossed = vec![false; self.ports.len()];
        for vc in self.vcs.iter().filter(|vc| which(vc)) {
            for p in &vc.fwd_ports {
                crossed[p.index()] = true;
            }
        }
        crossed
    }

    /// A per-VC discipline at a port that only one VC uses orders nothing: it serves that VC's
    /// cells in order, work-conserving, exactly as FIFO does (same departures, same books), so
    /// such ports (the egress towards a host, say) take the FIFO fast path and its lack of
    /// departure events (or, under a policy that counts tags, the held FIFO). Strict priority
    /// stays: it separates background cells from the VC's own.
    fn fifo_where_one_vc(&mut self) {
        let users = self.port_users();
        for (port, n) in self.ports.iter_mut().zip(users) {
            if n <= 1 && port.is_per_vc_discipline() {
                port.discipline = if port.buffer.policy().counts_tags() {
                    AnyDiscipline::held(AnyHeldOrder::Fifo(Default::default()))
                } else {
                    AnyDiscipline::Fifo
                };
            }
        }
    }

    /// How many VCs use each port.
    pub(in crate::world) fn port_users(&self) -> Vec<u32> {
        let mut users = vec![0u32; self.ports.len()];
        for vc in &self.vcs {
            for p in vc.fwd_ports.iter().chain(&vc.rev_ports) {
                users[p.index()] += 1;
            }
        }
        users
    }
}
