//! Turns a validated scenario into a `World`.
//!
//! Every link is full duplex: two ports, one per direction. Each source has its own host with
//! an access link to the first switch of its route, and its destination its own host with an
//! egress link from the last switch (docs/scenarios.md: every source and destination has its own access link).

use crate::transport::{self, Transport};
use ccsim_model::tcp_host::HostLink;
use crate::ip::RouterSpec;
use crate::types::{AccessSpec, MisbehaviourSpec, Scenario, SourceSpec};
use crate::units::{Duration, Rate};
use ccsim_engine::{SimDuration, SimTime};
use ccsim_model::abr::{AbrParams, Misbehaviour};
use ccsim_model::world::GfrVc;
use ccsim_model::{MeasureSpec, NodeId, NodeKind, PortId, PortSpec, VcKind, VcSpec, World, WorldBuilder};
use std::collections::HashMap;

/// Purpose tag of the random stream a switch scheme draws from.
const STREAM_SWITCH_SCHEME: u64 = 1;

/// Purpose tag of the random streams of connection start jitter and TCP clock phases.
pub(crate) const STREAM_CONNECTION: u64 = 2;
/// Purpose tag of background sources' ON/OFF draws.
const STREAM_BACKGROUND: u64 = 3;
/// Purpose tag of a router port's RED drop draws.
const STREAM_RED: u64 = 4;
/// Purpose tag of a connection's application sessions (seed 004's traffic model).
const STREAM_SESSIONS: u64 = 5;
/// Loss on a link (`link.loss`), per port.
const STREAM_LINK_LOSS: u64 = 6;
/// A TCP sender's send delays (`tcp.overhead`), per connection.
pub(crate) const STREAM_TCP_OVERHEAD: u64 = 7;
/// A CSMA/CD LAN's backoff draws, per medium.
pub(crate) const STREAM_LAN_MEDIUM: u64 = 8;

/// The (source, destination) names of each member of a source group.
pub fn member_names(s: &SourceSpec) -> Vec<(String, String)> {
    group_names(&s.name, s.count, s.destination.as_deref())
}

/// The (source, destination) names of the members of a group of `count`.
pub fn group_names(name: &str, count: u32, destination: Option<&str>) -> Vec<(String, String)> {
    (1..=count)
        .map(|i| {
            let name = if count == 1 { name.to_string() } else { format!("{name}{i}") };
            let dest = match destination {
                Some(d) if count == 1 => d.to_string(),
                Some(d) => format!("{d}{i}"),
                None => default_destination(&name),
            };
            (name, dest)
        })
        .collect()
}

/// `S12` → `D12`; `A1` → `DA1`.
fn default_destination(source: &str) -> String {
    match source.strip_prefix('S') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => format!("D{rest}"),
        _ => format!("D{source}"),
    }
}

/// SONET payload of an OC-3 (docs/scenarios.md, `sonet_payload`).
pub(crate) fn effective_rate(r: Rate, sonet: bool) -> u64 {
    if sonet && (r.bps() - 155.52e6).abs() < 1.0 {
        149_760_000
    } else {
        r.bps().round().max(1.0) as u64
    }
}

/// TM 4.0 defaults where the scenario is silent; PCR defaults to the access link's rate.
pub(crate) fn abr_params(a: &crate::types::AbrSpec, access_rate_bps: u64, debra_default: bool) -> AbrParams {
    let pcr = a.pcr.map_or(access_rate_bps as f64 / ccsim_model::CELL_BITS as f64, |r| r.cells_per_s());
    let d = AbrParams::tm4_defaults(pcr);
    AbrParams {
        pcr,
        mcr: a.mcr.map_or(d.mcr, |r| r.cells_per_s()),
        icr: a.icr.map_or(d.icr, |r| r.cells_per_s()),
        rif: a.rif.unwrap_or(d.rif),
        rdf: a.rdf.unwrap_or(d.rdf),
        nrm: a.nrm.unwrap_or(d.nrm),
        mrm: a.mrm.unwrap_or(d.mrm),
        trm: a.trm.map_or(d.trm, |t| t.0),
        adtf: a.adtf.map_or(d.adtf, |t| t.0),
        tbe: a.tbe.unwrap_or(d.tbe),
        frtt: a.frtt.map_or(d.frtt, |t| t.0),
        cdf: a.cdf.unwrap_or(d.cdf),
        tcr: a.tcr.map_or(d.tcr, |r| r.cells_per_s()),
        bidding: a.bidding.unwrap_or(debra_default),
    }
}

pub(crate) struct Builder<'a> {
    pub(crate) s: &'a Scenario,
    pub(crate) b: WorldBuilder,
    pub(crate) nodes: HashMap<String, NodeId>,
    /// (from switch, to switch) → port.
    pub(crate) trunk: HashMap<(String, String), PortId>,
    /// Gateway name → its index in the world (HG-RCP).
    pub(crate) gateways: HashMap<String, u32>,
}

impl Builder<'_> {
    fn router(&self, node: &str) -> Option<&RouterSpec> {
        self.s.router.iter().find(|r| r.name == node)
    }

    fn is_router(&self, node: &str) -> bool {
        self.router(node).is_some()
    }

    /// An output port of a switch or a router.
    fn switch_port(&mut self, name: String, link: String, from: &str, to: NodeId, rate: u64, delay: SimDuration) -> PortId {
        if self.is_router(from) {
            return self.router_port(name, link, from, to, rate, delay);
        }
        if self.gateways.contains_key(from) {
            // A gateway's ATM port: its ABR source paces at ACR <= PCR, so no queue builds here.
            let buffer = self.s.defaults.host_buffer.0;
            return self.b.add_port(PortSpec::link(name, link, self.nodes[from], to, rate, delay, buffer));
        }
        let sw = self.s.switch.iter().find(|w| w.name == from).expect("validated");
        let alg = sw.algorithm.as_ref().unwrap_or(&self.s.defaults.algorithm);
        let capacity = sw.buffer.unwrap_or(self.s.defaults.buffer).0;
        let cell_rate = rate as f64 / ccsim_model::CELL_BITS as f64;
        // Each port's random stream is keyed by its index (docs/DESIGN.md: a random stream per component).
        let rng = self.b.stream(self.b.n_ports() as u64, STREAM_SWITCH_SCHEME);
        let from = self.nodes[from];
        self.b.add_port(PortSpec {
            scheme: Some(alg.build(cell_rate, rng)),
            policy: sw.buffer_policy.as_ref().unwrap_or(&self.s.defaults.buffer_policy).build(capacity),
            held: sw.scheduling.as_ref().unwrap_or(&self.s.defaults.scheduling).build(),
            ..PortSpec::link(name, link, from, to, rate, delay, capacity)
        })
    }

    /// A router's output port: packets, drop-tail or RED.
    fn router_port(&mut self, name: String, link: String, from: &str, to: NodeId, rate: u64, delay: SimDuration) -> PortId {
        let r = self.router(from).expect("validated");
        let d = &self.s.defaults;
        let rng = self.b.stream(self.b.n_ports() as u64, STREAM_RED);
        let buffer = r.buffer.unwrap_or(d.router_buffer).0;
        self.b.add_port(PortSpec {
            packets: true,
            red: r.queue.as_ref().unwrap_or(&d.queue).build(rate, rng),
            control: r.control.as_ref().map(|c| c.build(rate, buffer)),
            ..PortSpec::link(name, link, self.nodes[from], to, rate, delay, buffer)
        })
    }

    /// Hosts, access and egress ports of one VC: its forward and reverse port lists.
    fn route_ports(&mut self, name: &str, dest: &str, route: &[String], access: &AccessSpec, egress: &AccessSpec) -> (Vec<PortId>, Vec<PortId>) {
        let d = &self.s.defaults;
        let sonet = d.sonet_payload;
        let access_rate = effective_rate(access.rate.unwrap_or(d.link_rate), sonet);
        let access_delay = access.delay.unwrap_or(d.link_delay).0;
        let egress_rate = effective_rate(egress.rate.unwrap_or(d.link_rate), sonet);
        let egress_delay = egress.delay.unwrap_or(d.link_delay).0;
        let first = &route[0];
        let last = route.last().expect("validated non-empty");
        let host = self.b.add_node(name.to_string(), NodeKind::Host);
        let dhost = self.b.add_node(dest.to_string(), NodeKind::Host);
        let mut fwd = Vec::new();
        let mut rev = Vec::new();
        let link = format!("{name}-{first}");
        let ip = self.is_router(first);
        fwd.push(self.host_port(format!("{name}->{first}"), link.clone(), host, self.nodes[first.as_str()], access_rate, access_delay, ip));
        rev.push(self.switch_port(format!("{first}->{name}"), link, first, host, access_rate, access_delay));
        for hop in route.windows(2) {
            fwd.push(self.trunk[&(hop[0].clone(), hop[1].clone())]);
            rev.push(self.trunk[&(hop[1].clone(), hop[0].clone())]);
        }
        let link = format!("{last}-{dest}");
        fwd.push(self.switch_port(format!("{last}->{dest}"), link.clone(), last, dhost, egress_rate, egress_delay));
        rev.push(self.host_port(format!("{dest}->{last}"), link, dhost, self.nodes[last.as_str()], egress_rate, egress_delay, ip));
        (fwd, rev)
    }

    /// Credit control on every hop of a forward route (CT): a port gets the parameters of the
    /// first connection that crosses it (with `sizing = "bdp"` they depend on the next link).
    fn credit_hops(&mut self, fwd: &[PortId], spec: &crate::credit::CreditSpec) {
        let access = self.b.port(fwd[0]).cell_rate();
        for (k, &p) in fwd.iter().enumerate() {
            let port = self.b.port(p);
            let (delay, cell) = (port.delay, port.cell_time());
            let next = fwd.get(k + 1).map_or(cell, |&q| self.b.port(q).cell_time());
            self.b.set_credit(p, spec.params(delay, cell, next, access));
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn host_port(&mut self, name: String, link: String, from: NodeId, to: NodeId, rate: u64, delay: SimDuration, ip: bool) -> PortId {
        let buffer = self.s.defaults.host_buffer.0;
        self.b.add_port(PortSpec { packets: ip, ..PortSpec::link(name, link, from, to, rate, delay, buffer) })
    }
}

pub fn build(s: &Scenario) -> World {
    let n_vcs: usize = s.source.iter().map(|x| x.count as usize).sum::<usize>()
        + s.connection.iter().map(|c| c.count as usize).sum::<usize>()
        + s.background.len()
        + crate::hgrcp::trunks(s).len();
    let mut w = Builder {
        s,
        b: WorldBuilder::new(n_vcs).seed(s.run.seed, s.run.replication),
        nodes: HashMap::new(),
        trunk: HashMap::new(),
        gateways: HashMap::new(),
    };
    for sw in &s.switch {
        let id = w.b.add_node(sw.name.clone(), NodeKind::Switch);
        w.nodes.insert(sw.name.clone(), id);
    }
    for r in &s.router {
        // A router that is the source edge of the flows entering it (FIEWA) is its own kind.
        let kind = if r.edge.is_some() { NodeKind::IpEdge } else { NodeKind::Router };
        let id = w.b.add_node(r.name.clone(), kind);
        w.nodes.insert(r.name.clone(), id);
    }
    w.add_gateways();
    let sonet = s.defaults.sonet_payload;
    for l in &s.link {
        let (a, b) = (&l.between[0], &l.between[1]);
        let link = l.name.clone().unwrap_or_else(|| format!("{a}-{b}"));
        let rate = effective_rate(l.rate.unwrap_or(s.defaults.link_rate), sonet);
        let delay = l.delay.unwrap_or(s.defaults.link_delay).0;
        for (x, y) in [(a, b), (b, a)] {
            let to = w.nodes[y.as_str()];
            let p = w.switch_port(format!("{x}->{y}"), link.clone(), x, to, rate, delay);
            if let Some(loss) = l.loss {
                let rng = w.b.stream(p.0 as u64, STREAM_LINK_LOSS);
                w.b.set_link_loss(p, loss, rng);
            }
            w.trunk.insert((x.clone(), y.clone()), p);
        }
    }
    let end = SimTime::ZERO + s.run.duration.0;
    for src in &s.source {
        let access_rate = effective_rate(src.access.rate.unwrap_or(s.defaults.link_rate), sonet);
        let params = abr_params(&src.abr.over(&s.defaults.abr), access_rate, s.defaults.algorithm.is_debra());
        let misbehaviour = match &src.misbehaviour {
            None => Misbehaviour::None,
            Some(MisbehaviourSpec::DishonestGreedy { start, multiplier, period }) => {
                Misbehaviour::DishonestGreedy { start: SimTime::ZERO + start.0, multiplier: *multiplier, period: period.0 }
            }
            Some(MisbehaviourSpec::FixedRate { start, rate, honest }) => {
                Misbehaviour::FixedRate { start: SimTime::ZERO + start.0, rate: rate.cells_per_s(), honest: *honest }
            }
        };
        for (k, (name, dest)) in member_names(src).into_iter().enumerate() {
            let (fwd, rev) = w.route_ports(&name, &dest, &src.route, &src.access, &src.egress);
            let start = src.start.0 + SimDuration::from_ps(src.start_step.0.as_ps().saturating_mul(k as u64));
            w.b.add_vc(VcSpec {
                name,
                dest_name: dest,
                fwd_ports: fwd,
                rev_ports: rev,
                start: SimTime::ZERO + start,
                stop: src.stop.map_or(SimTime::MAX, |t| SimTime::ZERO + t.0),
                kind: VcKind::Abr { params: params.clone(), misbehaviour: misbehaviour.clone() },
                edge: None,
                gfr: None,
                credit_vp: None,
            });
        }
    }
    // Under credit control per VP, each VP's number (by name, in order of first use).
    let mut vps: HashMap<String, u32> = HashMap::new();
    for c in &s.connection {
        let credit_vp = s.credit.as_ref().filter(|cr| cr.scope == crate::credit::Scope::Vp).map(|_| {
            let n = vps.len() as u32;
            *vps.entry(c.vp_name()).or_insert(n)
        });
        if w.gateways.contains_key(&c.route[0]) {
            w.intranet_connection(c);
            continue;
        }
        let tcp = c.tcp.over(&s.defaults.tcp);
        for (k, (name, dest)) in group_names(&c.name, c.count, c.destination.as_deref()).into_iter().enumerate() {
            let (fwd, rev) = w.route_ports(&name, &dest, &c.route, &c.access, &c.egress);
            if let Some(cr) = &s.credit {
                w.credit_hops(&fwd, cr);
            }
            // One stream per VC: its start jitter, then its TCP clock phase (docs/DESIGN.md §2).
            let mut rng = w.b.stream(w.b.n_vcs_added() as u64, STREAM_CONNECTION);
            let start = transport::member_start(c, k as u32, rng.uniform());
            let jitter = w.b.stream(w.b.n_vcs_added() as u64, STREAM_TCP_OVERHEAD);
            let (sender, receiver) = tcp.build(rng.uniform(), jitter);
            let over = c.effective_transport(w.is_router(&c.route[0]));
            let link = if over == Transport::Ip { HostLink::Ip } else { HostLink::Atm { llc_snap: tcp.llc_snap() } };
            let access_rate = effective_rate(c.access.rate.unwrap_or(s.defaults.link_rate), s.defaults.sonet_payload);
            let abr = (over == Transport::Abr)
                .then(|| abr_params(&c.abr.over(&s.defaults.abr), access_rate, s.defaults.algorithm.is_debra()));
            let gfr = c.gfr.as_ref().map(|g| {
                let ingress = s.switch.iter().find(|x| x.name == c.route[0]).expect("validated");
                let policer = ingress.policer.as_ref().unwrap_or(&s.defaults.policer);
                let pcr = access_rate as f64 / ccsim_model::CELL_BITS as f64;
                GfrVc { mcr: g.mcr.cells_per_s(), policer: policer.build(g, pcr, tcp.frame_cells()) }
            });
            let v = w.b.add_vc(VcSpec {
                name,
                dest_name: dest,
                fwd_ports: fwd,
                rev_ports: rev,
                start,
                stop: SimTime::MAX,
                kind: VcKind::Tcp { sender, receiver, link, abr },
                edge: (over == Transport::Ip).then(|| w.router(&c.route[0])).flatten().and_then(|r| r.edge.as_ref()).map(|e| e.params()),
                gfr,
                credit_vp,
            });
            if s.defaults.adapter_full == crate::types::AdapterFull::Block {
                w.b.set_adapter_blocks(v);
            }
            if let Some(sp) = &c.sessions {
                let rng = w.b.stream(v.0 as u64, STREAM_SESSIONS);
                w.b.set_sessions(v, ccsim_model::sessions::SessionSource::new(sp.params(), rng, start));
            }
        }
    }
    w.add_trunks();
    for bg in &s.background {
        let dest = bg.destination.clone().unwrap_or_else(|| group_names(&bg.name, 1, None)[0].1.clone());
        let (fwd, rev) = w.route_ports(&bg.name, &dest, &bg.route, &bg.access, &bg.egress);
        let rng = w.b.stream(w.b.n_vcs_added() as u64, STREAM_BACKGROUND);
        w.b.add_vc(VcSpec {
            name: bg.name.clone(),
            dest_name: dest,
            fwd_ports: fwd,
            rev_ports: rev,
            start: SimTime::ZERO + bg.start.0,
            stop: SimTime::MAX,
            kind: VcKind::Vbr { peak: bg.peak.cells_per_s(), mean_on: bg.mean_on.0, mean_off: bg.mean_off.0, rng },
            edge: None,
            gfr: None,
            credit_vp: None,
        });
    }
    let window_start = s.run.measure_from.unwrap_or(Duration(SimDuration::from_ps(s.run.duration.0.as_ps() / 2)));
    w.b.build(MeasureSpec {
        interval: s.measure.interval.0,
        window_start: SimTime::ZERO + window_start.0,
        end,
        acr: s.measure.acr,
        queue: s.measure.queue,
        received: s.measure.received,
        utilization: s.measure.utilization,
        tcp: s.measure.tcp,
        keep: true,
    })
}
