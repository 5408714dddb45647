//! Scenario types for HG-RCP (seed 000; docs/models/hgrcp.md): `[[gateway]]` tables, the checks of
//! gateways and of the intranet connections between their LANs; `build.rs` turns them into nodes
//! and ports (`Builder::gateway_route_ports`).

use crate::transport::{ConnectionSpec, Transport};
use crate::types::{AbrSpec, Scenario};
use crate::units::{Cells, Duration, Rate};
use crate::ScenarioError;
use ccsim_model::hgrcp::{HgrcpController, HgrcpParams};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An IP-over-ATM gateway: the LAN behind it, its ABR-SAP buffer, its ABR connection's
/// parameters, and (optionally) HG-RCP's controller.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GatewaySpec {
    pub name: String,
    /// The intranet LAN behind the gateway.
    #[serde(default)]
    pub lan: LanSpec,
    /// ABR-SAP buffer, cells (default: unlimited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Cells>,
    /// Overrides of `defaults.abr` for the ABR connection this gateway sources (PCR defaults to
    /// its link's cell rate).
    #[serde(default)]
    pub abr: AbrSpec,
    /// HG-RCP's rate control (absent: conventional TCP/IP, the hosts send at LAN speed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<GatewayControlSpec>,
}

/// An Ethernet LAN (`ccsim docs models/hgrcp`, "LAN medium").
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LanSpec {
    #[serde(default = "LanSpec::rate")]
    pub rate: Rate,
    /// One-way intranet propagation delay (the seed's Table 7: 0-0.5 ms); under `csma_cd` also
    /// the propagation delay between any two stations.
    #[serde(default)]
    pub delay: Duration,
    /// How the hosts share the LAN.
    #[serde(default, skip_serializing_if = "LanMediumKind::is_round_robin")]
    pub medium: LanMediumKind,
    /// Under `csma_cd`: whether the gateway's frames toward the hosts contend on the same
    /// medium (`shared`, the default: a half-duplex segment) or go on a collision-free medium of
    /// their own (`separate`: the seed's §4.1 reading, whose ACKs use no LAN bandwidth).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway_frames: Option<GatewayFrames>,
}

/// Where a CSMA/CD LAN's gateway sends its frames toward the hosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GatewayFrames {
    /// On the hosts' medium, as one more station.
    Shared,
    /// On a collision-free medium of their own (one per direction).
    Separate,
}

/// The LAN's medium access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LanMediumKind {
    /// [RECON] One full-duplex medium per direction; hosts with a packet ready take turns, no
    /// collisions.
    #[default]
    RoundRobin,
    /// A half-duplex IEEE 802.3 segment: 1-persistent CSMA/CD with truncated binary exponential
    /// backoff, the gateway one more station (both directions share it).
    CsmaCd,
}

impl LanMediumKind {
    fn is_round_robin(&self) -> bool {
        *self == LanMediumKind::RoundRobin
    }
}

impl LanSpec {
    fn rate() -> Rate {
        Rate(10e6)
    }
}

impl Default for LanSpec {
    fn default() -> Self {
        LanSpec { rate: Self::rate(), delay: Duration::default(), medium: LanMediumKind::default(), gateway_frames: None }
    }
}

/// Checks of a CSMA/CD LAN: its times are whole picoseconds per bit, it is not a gigabit LAN
/// (half duplex there needs carrier extension), and a collision is detected within one slot:
/// the round trip between two stations plus the jam fit in a slot time (IEEE 802.3 §4.2.3.2.3).
fn check_csma(p: &str, lan: &LanSpec) -> Result<(), ScenarioError> {
    use ccsim_model::port::discipline::csma_cd::{JAM_BITS, SLOT_BITS};
    let e = |path: String, msg: String| Err(ScenarioError::new(path, msg));
    let bps = lan.rate.bps();
    let whole = bps.fract() == 0.0 && (ccsim_engine::PS_PER_SEC as f64 % bps) == 0.0;
    if bps > 100e6 || !whole {
        return e(
            format!("{p}.lan.rate"),
            format!("{bps} b/s: csma_cd scales IEEE 802.3's bit times (slot 512, gap 96, jam 32) to the rate; it takes a rate of at most 100 Mb/s whose bit time is a whole number of picoseconds (1, 10 or 100 Mb/s)"),
        );
    }
    let bit_s = 1.0 / bps;
    let limit = (SLOT_BITS - JAM_BITS) as f64 / 2.0 * bit_s;
    if lan.delay.0.as_secs_f64() > limit {
        return e(
            format!("{p}.lan.delay"),
            format!(
                "{} s: on a CSMA/CD LAN the round trip between stations plus the jam must fit in one slot time (512 bit times), so the delay is at most {:.1} us at this rate",
                lan.delay.0.as_secs_f64(),
                limit * 1e6
            ),
        );
    }
    Ok(())
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum GatewayControlSpec {
    /// HG-RCP (seed 000 Eq. 1): every `T`, ER = max(0, ACR + K (Q − q)) / N.
    Hgrcp {
        #[serde(rename = "T")]
        t: Duration,
        /// Gain, 1/s (default 1/T: a 60° phase margin).
        #[serde(rename = "K", default, skip_serializing_if = "Option::is_none")]
        k: Option<f64>,
        /// Reference queue, cells (default 100).
        #[serde(rename = "Q", default = "GatewayControlSpec::q")]
        q: f64,
        /// Activity window for counting sources (default 150 ms).
        #[serde(rename = "W", default = "GatewayControlSpec::w")]
        w: Duration,
        /// The hosts' Queue Mapping Tables start with the far LAN (the seed's runs: no QN is
        /// ever sent); false: they learn it from a QN on their first packet.
        #[serde(default = "GatewayControlSpec::preloaded")]
        preloaded: bool,
    },
}

impl GatewayControlSpec {
    fn q() -> f64 {
        100.0
    }
    fn w() -> Duration {
        "150ms".parse().expect("valid")
    }
    fn preloaded() -> bool {
        true
    }

    pub fn params(&self) -> HgrcpParams {
        let GatewayControlSpec::Hgrcp { t, k, q, w, .. } = self;
        HgrcpParams { t: t.0, k: k.unwrap_or(1.0 / t.0.as_secs_f64().max(f64::MIN_POSITIVE)), q: *q, w: w.0 }
    }

    pub fn build(&self) -> HgrcpController {
        HgrcpController::new(self.params())
    }

    pub fn preloaded_tables(&self) -> bool {
        let GatewayControlSpec::Hgrcp { preloaded, .. } = self;
        *preloaded
    }
}

/// An intranet connection's route: a gateway, the switches of its ABR connection, the far gateway.
pub(crate) fn check_route(
    p: &str,
    c: &ConnectionSpec,
    is_gateway: impl Fn(&str) -> bool,
    is_switch: impl Fn(&str) -> bool,
    linked: impl Fn(&str, &str) -> bool,
) -> Result<(), ScenarioError> {
    let e = |path: String, msg: String| Err(ScenarioError::new(path, msg));
    let r = &c.route;
    if r.len() < 3 || !is_gateway(&r[r.len() - 1]) {
        return e(format!("{p}.route"), "from a gateway's LAN: the gateway, the switches of its ABR connection, the far gateway".into());
    }
    for (k, n) in r[1..r.len() - 1].iter().enumerate() {
        if !is_switch(n) {
            return e(format!("{p}.route[{}]", k + 1), format!("'{n}' is not a switch: between two gateways a route crosses ATM switches"));
        }
    }
    for k in 1..r.len() {
        if !linked(&r[k - 1], &r[k]) {
            return e(format!("{p}.route[{k}]"), format!("no link between '{}' and '{}'", r[k - 1], r[k]));
        }
    }
    if c.transport.is_some_and(|t| t != Transport::Ip) {
        return e(format!("{p}.transport"), "between gateways' LANs a connection runs over IP (the gateways carry it over ABR)".into());
    }
    if c.gfr.is_some() {
        return e(format!("{p}.gfr"), "a GFR contract needs a UBR connection over switches".into());
    }
    Ok(())
}

/// Gateways' checks: a controller's parameters (K·T < 2 is refused: the loop would be unstable,
/// Eq. 8), a gateway that sources an ABR connection sends every connection to the same far
/// gateway over the same switches, and a gateway with a controller has connections to control.
pub(crate) fn validate(s: &Scenario) -> Result<(), ScenarioError> {
    let e = |path: String, msg: String| Err(ScenarioError::new(path, msg));
    for (i, g) in s.gateway.iter().enumerate() {
        let p = format!("gateway[{i}]");
        if g.buffer.is_some_and(|b| b.0 == 0) {
            return e(format!("{p}.buffer"), "must be at least 1 cell (or absent: unlimited)".into());
        }
        if g.lan.rate.bps() < 1.0 {
            return e(format!("{p}.lan.rate"), "must be > 0".into());
        }
        if g.lan.medium == LanMediumKind::CsmaCd {
            check_csma(&p, &g.lan)?;
        } else if g.lan.gateway_frames.is_some() {
            return e(format!("{p}.lan.gateway_frames"), "only a csma_cd LAN has a choice: a round_robin LAN has one medium per direction".into());
        }
        let routes: Vec<(usize, &Vec<String>)> =
            s.connection.iter().enumerate().filter(|(_, c)| c.route.first() == Some(&g.name)).map(|(k, c)| (k, &c.route)).collect();
        if let Some(ctl) = &g.control {
            ctl.params().check().or_else(|(field, msg)| e(format!("{p}.control.{field}"), msg))?;
            let kt = ctl.params().kt();
            if kt >= 2.0 {
                return e(format!("{p}.control.K"), format!("K·T = {kt:.3} >= 2: the loop would be unstable (phase margin, Eq. 8)"));
            }
            if routes.is_empty() {
                return e(format!("{p}.control"), "no connection starts on this gateway's LAN: it has nothing to control".into());
            }
        }
        if let Some((first, r0)) = routes.first() {
            if let Some((k, _)) = routes.iter().find(|(_, r)| r != r0) {
                return e(
                    format!("connection[{k}].route"),
                    format!("gateway '{}' has one ABR connection: every route from its LAN goes as connection[{first}]'s", g.name),
                );
            }
        }
    }
    Ok(())
}

/// The gateways that source an ABR connection (connections start on their LAN), each with the
/// route of that connection (its gateways and switches).
pub(crate) fn trunks(s: &Scenario) -> Vec<(&GatewaySpec, &Vec<String>)> {
    s.gateway.iter().filter_map(|g| s.connection.iter().find(|c| c.route.first() == Some(&g.name)).map(|c| (g, &c.route))).collect()
}

/// Hosts' ports: fast enough never to hold a packet long (the LAN medium is the queue).
const HOST_RATE_BPS: u64 = 1_000_000_000;

impl crate::build::Builder<'_> {
    /// Gateway nodes and their state.
    pub(crate) fn add_gateways(&mut self) {
        use ccsim_model::hgrcp::Gateway;
        use ccsim_model::NodeKind;
        for g in &self.s.gateway {
            let node = self.b.add_node(g.name.clone(), NodeKind::Gateway);
            self.nodes.insert(g.name.clone(), node);
            let state = Gateway::new(g.name.clone(), g.buffer.map(|b| b.0), g.control.as_ref().map(|c| c.build()));
            let index = self.b.add_gateway(node, state);
            self.gateways.insert(g.name.clone(), index);
        }
    }

    fn gateway_spec(&self, name: &str) -> &GatewaySpec {
        self.s.gateway.iter().find(|g| g.name == name).expect("validated")
    }

    /// A gateway's LAN, made once: its hub node, the ports a frame from a host takes to the
    /// gateway, and those a frame from the gateway takes to the hub (each in route order).
    /// Round robin: two media, hub -> gateway (under HG-RCP it holds the hosts' paced outputs,
    /// its stations) and gateway -> hub. CSMA/CD: one medium at the hub, both directions' frames
    /// crossing it (its pipe returns to the hub), and short links between hub and gateway.
    fn lan(&mut self, gateway: &str) -> (ccsim_model::NodeId, Vec<ccsim_model::PortId>, Vec<ccsim_model::PortId>) {
        use ccsim_model::port::{AnyHeldOrder, CsmaCd, LanMedium};
        use ccsim_model::tcp_host::ETHERNET_OVERHEAD_BYTES;
        let hub_name = format!("{gateway}-lan");
        if let Some(&hub) = self.nodes.get(&hub_name) {
            let (up, down) = (self.trunk[&(hub_name.clone(), gateway.to_string())], self.trunk[&(gateway.to_string(), hub_name.clone())]);
            return match self.trunk.get(&(hub_name.clone(), hub_name)) {
                Some(&medium) => (hub, vec![medium, up], vec![medium, down]),
                None => (hub, vec![up], vec![down]),
            };
        }
        let spec = self.gateway_spec(gateway);
        let (rate, delay) = (spec.lan.rate.bps().round() as u64, spec.lan.delay.0);
        let preloaded = spec.control.as_ref().map(|c| c.preloaded_tables());
        let csma = spec.lan.medium == LanMediumKind::CsmaCd;
        let shared = csma && spec.lan.gateway_frames != Some(GatewayFrames::Separate);
        let hub = self.b.add_node(hub_name.clone(), ccsim_model::NodeKind::Lan);
        self.nodes.insert(hub_name.clone(), hub);
        let gw = self.nodes[gateway];
        let link = format!("{gateway} LAN");
        let g = self.gateways[gateway];
        if shared {
            let rng = self.b.stream(self.b.n_ports() as u64, crate::build::STREAM_LAN_MEDIUM);
            let cd = CsmaCd::new(rate, delay, rng);
            // Silent on the managed queues until the first rate notification [RECON].
            let order = LanMedium::csma_cd(preloaded.unwrap_or(false), 0.0, ETHERNET_OVERHEAD_BYTES as u16, cd);
            let medium = self.b.add_port(ccsim_model::PortSpec {
                packets: true,
                held: Some(AnyHeldOrder::Lan(order)),
                ..ccsim_model::PortSpec::link(hub_name.clone(), link.clone(), hub, hub, rate, delay, self.s.defaults.host_buffer.0)
            });
            let up = self.host_port(format!("{hub_name}->{gateway}"), link.clone(), hub, gw, HOST_RATE_BPS, Default::default(), true);
            let down = self.host_port(format!("{gateway}->{hub_name}"), link, gw, hub, HOST_RATE_BPS, Default::default(), true);
            self.trunk.insert((hub_name.clone(), hub_name.clone()), medium);
            self.trunk.insert((hub_name.clone(), gateway.to_string()), up);
            self.trunk.insert((gateway.to_string(), hub_name), down);
            self.b.attach_lan(hub, g);
            let state = self.b.gateway_mut(g);
            state.lan_port = Some(down);
            state.shared_medium = Some(medium);
            state.csma = Some(medium);
            if preloaded.is_some() {
                state.medium = Some(medium);
            }
            return (hub, vec![medium, up], vec![medium, down]);
        }
        let held = if csma {
            // Only the hosts contend; the gateway's frames go by `down`.
            let rng = self.b.stream(self.b.n_ports() as u64, crate::build::STREAM_LAN_MEDIUM);
            Some(AnyHeldOrder::Lan(LanMedium::csma_cd(preloaded.unwrap_or(false), 0.0, ETHERNET_OVERHEAD_BYTES as u16, CsmaCd::new(rate, delay, rng))))
        } else {
            preloaded.map(|preloaded| AnyHeldOrder::Lan(LanMedium::new(preloaded, 0.0, ETHERNET_OVERHEAD_BYTES as u16)))
        };
        let up = self.b.add_port(ccsim_model::PortSpec {
            packets: true,
            // Silent on the managed queues until the first rate notification [RECON].
            held,
            ..ccsim_model::PortSpec::link(format!("{hub_name}->{gateway}"), link.clone(), hub, gw, rate, delay, self.s.defaults.host_buffer.0)
        });
        let down = self.host_port(format!("{gateway}->{hub_name}"), link, gw, hub, rate, delay, true);
        self.trunk.insert((hub_name.clone(), gateway.to_string()), up);
        self.trunk.insert((gateway.to_string(), hub_name), down);
        self.b.attach_lan(hub, g);
        self.b.gateway_mut(g).lan_port = Some(down);
        if csma {
            self.b.gateway_mut(g).csma = Some(up);
        }
        if preloaded.is_some() {
            self.b.gateway_mut(g).medium = Some(up);
        }
        (hub, vec![up], vec![down])
    }

    /// The members of an intranet connection: host -> LAN (the host's paced output is a station
    /// of the medium when its gateway runs HG-RCP) -> gateway -> switches -> far gateway -> LAN -> host, over IP in Ethernet frames.
    pub(crate) fn intranet_connection(&mut self, c: &ConnectionSpec) {
        use ccsim_model::tcp_host::HostLink;
        use ccsim_model::{VcKind, VcSpec};
        let s = self.s;
        let tcp = c.tcp.over(&s.defaults.tcp);
        let (first, last) = (c.route[0].clone(), c.route.last().expect("validated").clone());
        let (hub_a, up_a, down_a) = self.lan(&first);
        let (hub_b, up_b, down_b) = self.lan(&last);
        for (k, (name, dest)) in crate::build::group_names(&c.name, c.count, c.destination.as_deref()).into_iter().enumerate() {
            let host = self.b.add_node(name.clone(), ccsim_model::NodeKind::Host);
            let dhost = self.b.add_node(dest.clone(), ccsim_model::NodeKind::Host);
            let out = self.host_port(format!("{name}->{first}-lan"), format!("{name} NIC"), host, hub_a, HOST_RATE_BPS, Default::default(), true);
            let back = self.host_port(format!("{first}-lan->{name}"), format!("{name} NIC"), hub_a, host, HOST_RATE_BPS, Default::default(), true);
            let to_dest = self.host_port(format!("{last}-lan->{dest}"), format!("{dest} NIC"), hub_b, dhost, HOST_RATE_BPS, Default::default(), true);
            let from_dest = self.host_port(format!("{dest}->{last}-lan"), format!("{dest} NIC"), dhost, hub_b, HOST_RATE_BPS, Default::default(), true);
            // Port k of `rev` is the reverse of port k of `fwd` (a CSMA/CD medium is its own).
            let mut fwd = vec![out];
            let mut rev = vec![back];
            fwd.extend(&up_a);
            rev.extend(&down_a);
            for hop in c.route.windows(2) {
                fwd.push(self.trunk[&(hop[0].clone(), hop[1].clone())]);
                rev.push(self.trunk[&(hop[1].clone(), hop[0].clone())]);
            }
            fwd.extend(down_b.iter().rev());
            rev.extend(up_b.iter().rev());
            fwd.push(to_dest);
            rev.push(from_dest);
            let mut rng = self.b.stream(self.b.n_vcs_added() as u64, crate::build::STREAM_CONNECTION);
            let start = crate::transport::member_start(c, k as u32, rng.uniform());
            let jitter = self.b.stream(self.b.n_vcs_added() as u64, crate::build::STREAM_TCP_OVERHEAD);
            let (sender, receiver) = tcp.build(rng.uniform(), jitter);
            let v = self.b.add_vc(VcSpec {
                name,
                dest_name: dest,
                fwd_ports: fwd,
                rev_ports: rev,
                start,
                stop: ccsim_engine::SimTime::MAX,
                kind: VcKind::Tcp { sender, receiver, link: HostLink::Ethernet, abr: None },
                edge: None,
                gfr: None,
                credit_vp: None,
            });
            self.b.set_abr_cells(v);
        }
    }

    fn trunk_params(&self, name: &str) -> ccsim_model::abr::AbrParams {
        let s = self.s;
        let route = &trunks(s).into_iter().find(|(g, _)| g.name == name).expect("a sourcing gateway").1;
        let link = s.link.iter().find(|l| l.between.contains(&route[0]) && l.between.contains(&route[1]));
        let rate = crate::build::effective_rate(link.and_then(|l| l.rate).unwrap_or(s.defaults.link_rate), s.defaults.sonet_payload);
        crate::build::abr_params(&self.gateway_spec(name).abr.over(&s.defaults.abr), rate, s.defaults.algorithm.is_debra())
    }

    /// Each sourcing gateway's ABR connection to its far gateway.
    pub(crate) fn add_trunks(&mut self) {
        use ccsim_model::{VcKind, VcSpec};
        for (g, route) in trunks(self.s) {
            let params = self.trunk_params(&g.name);
            let fwd = route.windows(2).map(|h| self.trunk[&(h[0].clone(), h[1].clone())]).collect();
            let rev = route.windows(2).map(|h| self.trunk[&(h[1].clone(), h[0].clone())]).collect();
            let gateway = self.gateways[&g.name];
            self.b.add_vc(VcSpec {
                name: format!("{} ABR", g.name),
                dest_name: route.last().expect("validated").clone(),
                fwd_ports: fwd,
                rev_ports: rev,
                start: ccsim_engine::SimTime::ZERO,
                stop: ccsim_engine::SimTime::MAX,
                kind: VcKind::Trunk { params, gateway },
                edge: None,
                gfr: None,
                credit_vp: None,
            });
        }
    }
}
