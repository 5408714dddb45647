//! Semantic checks that serde cannot express. Each error names the field and the rule.

use crate::error::ScenarioError;
use crate::types::{AbrSpec, AccessSpec, AlgorithmSpec, Scenario};
use crate::transport::{BufferPolicySpec, ClockSpec, TcpSpec, Transport, TCP_VARIANTS};
use crate::units::Rate;
use std::collections::{HashMap, HashSet};

/// Longest name of a switch, router, host, link, source or connection: names label every row of
/// the results and every series.
pub const MAX_NAME_CHARS: usize = 200;

/// Most sources and TCP connections a scenario may hold, counting each `count`'s members: memory
/// grows with them (about 8 KB each at 100,000 sources, docs/benchmarks.md), and a mistyped count
/// must fail at once rather than exhaust memory.
pub const MAX_FLOWS: u64 = 1_000_000;

type R = Result<(), ScenarioError>;

fn err(path: impl Into<String>, msg: impl Into<String>) -> R {
    Err(ScenarioError::new(path, msg))
}

pub fn validate(s: &Scenario) -> R {
    if s.run.duration.0.is_zero() {
        return err("run.duration", "must be > 0");
    }
    if let Some(m) = s.run.measure_from {
        if m.0 >= s.run.duration.0 {
            return err(
                "run.measure_from",
                format!("must be before the end of the run ({}); when shortening a run, set run.measure_from too", s.run.duration),
            );
        }
    }
    if s.defaults.link_rate.bps() < 1.0 {
        return err("defaults.link_rate", "must be > 0");
    }
    if s.defaults.buffer.0 == 0 {
        return err("defaults.buffer", "must be at least 1 cell");
    }
    if s.defaults.host_buffer.0 == 0 {
        return err("defaults.host_buffer", "must be at least 1 cell");
    }
    algorithm("defaults.algorithm", &s.defaults.algorithm)?;
    abr("defaults.abr", &s.defaults.abr, None, s.defaults.link_rate)?;

    let mut names: HashMap<String, String> = HashMap::new();
    let mut claim = |name: &str, path: String| -> R {
        if name.trim().is_empty() {
            return err(path, "must not be empty");
        }
        if name.chars().count() > MAX_NAME_CHARS {
            return err(path, format!("is {} characters long; names are at most {MAX_NAME_CHARS}", name.chars().count()));
        }
        if let Some(prev) = names.get(name) {
            return err(path, format!("duplicate name '{name}' (already used by {prev})"));
        }
        names.insert(name.to_string(), path);
        Ok(())
    };
    // Switch and router names first, so that a host named like one is reported at the host.
    let mut network: HashMap<&str, Net> = HashMap::new();
    for (i, sw) in s.switch.iter().enumerate() {
        claim(&sw.name, format!("switch[{i}].name"))?;
        network.insert(sw.name.as_str(), Net::Atm);
        if sw.buffer.is_some_and(|b| b.0 == 0) {
            return err(format!("switch[{i}].buffer"), "must be at least 1 cell");
        }
        if let Some(a) = &sw.algorithm {
            algorithm(&format!("switch[{i}].algorithm"), a)?;
        }
    }
    if s.defaults.router_buffer.0 == 0 {
        return err("defaults.router_buffer", "must be at least 1 packet");
    }
    queue("defaults.queue", &s.defaults.queue)?;
    for (i, r) in s.router.iter().enumerate() {
        claim(&r.name, format!("router[{i}].name"))?;
        network.insert(r.name.as_str(), Net::Ip);
        if r.buffer.is_some_and(|b| b.0 == 0) {
            return err(format!("router[{i}].buffer"), "must be at least 1 packet");
        }
        if let Some(q) = &r.queue {
            queue(&format!("router[{i}].queue"), q)?;
        }
        if let Some(c) = &r.control {
            c.check().or_else(|(field, msg)| err(format!("router[{i}].control.{field}"), msg))?;
        }
        if let Some(e) = &r.edge {
            e.check().or_else(|(field, msg)| err(format!("router[{i}].edge.{field}"), msg))?;
        }
    }
    for (i, g) in s.gateway.iter().enumerate() {
        claim(&g.name, format!("gateway[{i}].name"))?;
        network.insert(g.name.as_str(), Net::Gateway);
        abr(&format!("gateway[{i}].abr"), &g.abr.over(&s.defaults.abr), Some(&g.abr), s.defaults.link_rate)?;
    }
    let mut linked: HashSet<(&str, &str)> = HashSet::new();
    for (i, l) in s.link.iter().enumerate() {
        let p = format!("link[{i}]");
        if l.between.len() != 2 {
            return err(format!("{p}.between"), "must name exactly two switches or two routers");
        }
        let (a, b) = (l.between[0].as_str(), l.between[1].as_str());
        for (k, end) in [a, b].iter().enumerate() {
            if !network.contains_key(end) {
                return err(format!("{p}.between[{k}]"), format!("unknown switch or router '{end}'"));
            }
        }
        if a == b {
            return err(format!("{p}.between"), "a link must join two different switches or routers");
        }
        let gateway_to_switch = matches!((network[a], network[b]), (Net::Gateway, Net::Atm) | (Net::Atm, Net::Gateway));
        if network[a] == Net::Gateway && network[b] == Net::Gateway {
            return err(format!("{p}.between"), "joins two gateways: a gateway's ABR connection crosses at least one switch");
        }
        if network[a] != network[b] && !gateway_to_switch {
            let (sw, rt) = if network[a] == Net::Atm { (a, b) } else { (b, a) };
            return err(
                format!("{p}.between"),
                format!("joins switch '{sw}' to router '{rt}': link switches to switches and routers to routers (IP over ATM gateways are not modelled yet)"),
            );
        }
        if !linked.insert((a, b)) || !linked.insert((b, a)) {
            return err(format!("{p}.between"), format!("duplicate link between '{a}' and '{b}'"));
        }
        if let Some(name) = &l.name {
            claim(name, format!("{p}.name"))?;
        }
        if l.rate.is_some_and(|r| r.bps() < 1.0) {
            return err(format!("{p}.rate"), "must be > 0");
        }
        if l.loss.is_some_and(|x| !(0.0..1.0).contains(&x)) {
            return err(format!("{p}.loss"), "must be a probability in [0, 1)");
        }
    }
    if s.source.is_empty() && s.connection.is_empty() {
        return err("source", "a scenario needs at least one source or connection");
    }
    for (i, bg) in s.background.iter().enumerate() {
        let p = format!("background[{i}]");
        check_route(&p, &bg.route, &network, Net::Atm, &linked)?;
        for (name, dest) in crate::build::group_names(&bg.name, 1, bg.destination.as_deref()) {
            claim(&name, format!("{p}.name"))?;
            claim(&dest, format!("{p}.destination"))?;
        }
        host_links(&p, &bg.access, &bg.egress)?;
        if bg.peak.bps() < 1.0 {
            return err(format!("{p}.peak"), "must be > 0");
        }
        let access = bg.access.rate.unwrap_or(s.defaults.link_rate);
        if bg.peak.bps() > access.bps() * (1.0 + 1e-9) {
            return err(format!("{p}.peak"), format!("{} is above its access link's {}", bg.peak, access));
        }
        // The source sends one cell per cell time of ON time (docs/models/vbr.md): mean periods
        // shorter than a cell time describe traffic it cannot resolve at its peak.
        let cell = ccsim_engine::SimDuration::from_secs_f64(1.0 / bg.peak.cells_per_s());
        for (k, d) in [("mean_on", bg.mean_on), ("mean_off", bg.mean_off)] {
            if d.0.is_zero() {
                return err(format!("{p}.{k}"), "must be > 0");
            }
            if d.0 < cell {
                return err(
                    format!("{p}.{k}"),
                    format!("{d} is shorter than one cell time at its peak {} ({}); a mean period must last at least one", bg.peak, crate::units::Duration(cell)),
                );
            }
        }
    }
    let mut flows: u64 = 0;
    let mut count_flows = |path: String, count: u32| -> R {
        if count == 0 {
            return err(path, "must be at least 1");
        }
        flows += u64::from(count);
        if flows > MAX_FLOWS {
            return err(
                path,
                format!("{count} members would make {flows} sources and connections in all; a scenario holds at most {MAX_FLOWS}"),
            );
        }
        Ok(())
    };
    for (i, src) in s.source.iter().enumerate() {
        let p = format!("source[{i}]");
        count_flows(format!("{p}.count"), src.count)?;
        check_route(&p, &src.route, &network, Net::Atm, &linked)?;
        for (name, dest) in crate::build::member_names(src) {
            claim(&name, format!("{p}.name"))?;
            claim(&dest, format!("{p}.destination"))?;
        }
        if let Some(stop) = src.stop {
            if stop <= src.start {
                return err(format!("{p}.stop"), "must be after start");
            }
        }
        host_links(&p, &src.access, &src.egress)?;
        let access = src.access.rate.unwrap_or(s.defaults.link_rate);
        abr(&format!("{p}.abr"), &src.abr.over(&s.defaults.abr), Some(&src.abr), access)?;
        if let Some(crate::types::MisbehaviourSpec::DishonestGreedy { multiplier, period, .. }) = &src.misbehaviour {
            if !(*multiplier > 0.0) {
                return err(format!("{p}.misbehaviour.multiplier"), "must be > 0");
            }
            if period.0.is_zero() {
                return err(format!("{p}.misbehaviour.period"), "must be > 0");
            }
        }
    }
    tcp("defaults.tcp", &s.defaults.tcp)?;
    policy("defaults.buffer_policy", &s.defaults.buffer_policy, s.defaults.buffer.0)?;
    for (i, sw) in s.switch.iter().enumerate() {
        if let Some(bp) = &sw.buffer_policy {
            policy(&format!("switch[{i}].buffer_policy"), bp, sw.buffer.unwrap_or(s.defaults.buffer).0)?;
        }
    }
    for (i, c) in s.connection.iter().enumerate() {
        let p = format!("connection[{i}]");
        count_flows(format!("{p}.count"), c.count)?;
        let first = c.route.first().and_then(|r| network.get(r.as_str())).copied();
        if first == Some(Net::Gateway) {
            // An intranet connection between two gateways' LANs (HG-RCP): `hgrcp.rs` checks it.
            for (name, dest) in crate::build::group_names(&c.name, c.count, c.destination.as_deref()) {
                claim(&name, format!("{p}.name"))?;
                claim(&dest, format!("{p}.destination"))?;
            }
            tcp(&format!("{p}.tcp"), &c.tcp.over(&s.defaults.tcp))?;
            crate::hgrcp::check_route(&p, c, |n| network.get(n).copied() == Some(Net::Gateway), |n| network.get(n).copied() == Some(Net::Atm), |a, b| linked.contains(&(a, b)))?;
            continue;
        }
        let net = if c.effective_transport(first == Some(Net::Ip)) == Transport::Ip { Net::Ip } else { Net::Atm };
        if let (Some(t), Some(first)) = (c.transport, first) {
            if first != net {
                let (kind, want) = if first == Net::Ip { ("a router", "ip") } else { ("an ATM switch", "ubr or abr") };
                return err(
                    format!("{p}.transport"),
                    format!("'{}' does not run over {kind} ('{}'); use transport = {want}", t.name(), c.route[0]),
                );
            }
        }
        check_route(&p, &c.route, &network, net, &linked)?;
        for (name, dest) in crate::build::group_names(&c.name, c.count, c.destination.as_deref()) {
            claim(&name, format!("{p}.name"))?;
            claim(&dest, format!("{p}.destination"))?;
        }
        host_links(&p, &c.access, &c.egress)?;
        tcp(&format!("{p}.tcp"), &c.tcp.over(&s.defaults.tcp))?;
        let access = c.access.rate.unwrap_or(s.defaults.link_rate);
        abr(&format!("{p}.abr"), &c.abr.over(&s.defaults.abr), Some(&c.abr), access)?;
    }
    crate::gfr::validate(s)?;
    crate::hgrcp::validate(s)?;
    crate::credit::validate(s)?;
    crate::credit::validate_adapters(s)?;
    crate::sessions::validate(s)?;
    if s.measure.interval.0.as_ps() > 0 && s.measure.interval.0.as_ps() < 1_000_000 {
        return err("measure.interval", "must be 0 (off) or at least 1us");
    }
    for (name, settings) in &s.schemes {
        if !AlgorithmSpec::NAMES.contains(&name.as_str()) {
            return err(format!("schemes.{name}"), format!("unknown scheme (one of {})", AlgorithmSpec::NAMES.join(", ")));
        }
        let mut t = settings.clone();
        if let Some(abr_settings) = t.remove("abr") {
            let spec: AbrSpec = serde_path_to_error::deserialize(abr_settings)
                .map_err(|e| ScenarioError::new(format!("schemes.{name}.abr.{}", e.path()), e.inner().to_string()))?;
            abr(&format!("schemes.{name}.abr"), &spec.over(&s.defaults.abr), None, s.defaults.link_rate)?;
        }
        t.insert("type".into(), serde_json::Value::from(name.as_str()));
        let a: AlgorithmSpec = serde_path_to_error::deserialize(serde_json::Value::Object(t))
            .map_err(|e| ScenarioError::new(format!("schemes.{name}.{}", e.path()), e.inner().to_string()))?;
        algorithm(&format!("schemes.{name}"), &a)?;
    }
    Ok(())
}

/// A host's own links need a positive rate when they set one.
fn host_links(p: &str, access: &AccessSpec, egress: &AccessSpec) -> R {
    for (k, acc) in [("access", access), ("egress", egress)] {
        if acc.rate.is_some_and(|r| r.bps() < 1.0) {
            return err(format!("{p}.{k}.rate"), "must be > 0");
        }
    }
    Ok(())
}

/// Whether a node carries ATM cells (a switch) or IP packets (a router).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Net {
    Atm,
    Ip,
    /// An IP-over-ATM gateway (HG-RCP): linked to switches; its LAN's hosts are implicit.
    Gateway,
}

/// A route names known switches (or, for `Net::Ip`, routers), without repeats, each linked to
/// the next.
fn check_route(p: &str, route: &[String], network: &HashMap<&str, Net>, want: Net, linked: &HashSet<(&str, &str)>) -> R {
    let (what, whats) = if want == Net::Atm { ("switch", "switches") } else { ("router", "routers") };
    if route.is_empty() {
        return err(format!("{p}.route"), format!("must name at least one {what}"));
    }
    let mut seen = HashSet::new();
    for (k, sw) in route.iter().enumerate() {
        match network.get(sw.as_str()) {
            None => return err(format!("{p}.route[{k}]"), format!("unknown {what} '{sw}'")),
            Some(&n) if n != want => {
                let is = if n == Net::Ip { "a router" } else { "an ATM switch" };
                return err(format!("{p}.route[{k}]"), format!("'{sw}' is {is}; this route must cross {whats} only"));
            }
            Some(_) => {}
        }
        if !seen.insert(sw) {
            return err(format!("{p}.route[{k}]"), format!("{what} '{sw}' appears twice (routes must be loop-free)"));
        }
        if k > 0 && !linked.contains(&(route[k - 1].as_str(), sw.as_str())) {
            return err(format!("{p}.route[{k}]"), format!("no link between '{}' and '{sw}'", route[k - 1]));
        }
    }
    Ok(())
}

fn tcp(p: &str, t: &TcpSpec) -> R {
    if !TCP_VARIANTS.contains(&t.variant_name()) {
        return err(format!("{p}.variant"), format!("unknown TCP variant '{}' (one of {})", t.variant_name(), TCP_VARIANTS.join(", ")));
    }
    if t.mss() == 0 || t.mss() > 65_495 {
        return err(format!("{p}.mss"), "must be between 1 and 65495 bytes");
    }
    if t.window() < t.mss() as u64 {
        return err(format!("{p}.window"), format!("must hold at least one segment ({} bytes)", t.mss()));
    }
    if t.initial_window == Some(0) {
        return err(format!("{p}.initial_window"), "must be at least 1 segment");
    }
    match &t.clock {
        Some(ClockSpec::BsdTicks { tick, .. } | ClockSpec::Quantized { tick }) if tick.0.is_zero() => {
            return err(format!("{p}.clock.tick"), "must be > 0");
        }
        _ => {}
    }
    if let (Some(lo), Some(hi)) = (t.rto_min, t.rto_max) {
        if lo > hi {
            return err(format!("{p}.rto_min"), "must not exceed rto_max");
        }
    }
    Ok(())
}

fn queue(p: &str, q: &crate::ip::QueueSpec) -> R {
    q.check().or_else(|(field, msg)| err(format!("{p}.{field}"), msg))
}

fn policy(p: &str, b: &BufferPolicySpec, capacity: u32) -> R {
    let (threshold, z) = match b {
        BufferPolicySpec::DropTail | BufferPolicySpec::Ppd => return Ok(()),
        BufferPolicySpec::Epd { threshold, clp1_threshold } => {
            if let Some(r1) = clp1_threshold {
                let r = threshold.map_or((capacity as u64 * 9 / 10) as u32, |t| t.0);
                if r1.0 == 0 || r1.0 > r {
                    return err(format!("{p}.clp1_threshold"), format!("must be between 1 and the threshold ({r} cells)"));
                }
            }
            (threshold, None)
        }
        BufferPolicySpec::SelectiveDrop { threshold, z } | BufferPolicySpec::Fba { threshold, z } => (threshold, Some(*z)),
        BufferPolicySpec::Wba { threshold, z, hard_threshold } => {
            if !(0.0..=1.0).contains(z) {
                return err(format!("{p}.z"), "must be in [0, 1]");
            }
            let r = threshold.map_or(capacity / 2, |t| t.0);
            if let Some(h) = hard_threshold {
                if h.0 <= r || h.0 > capacity {
                    return err(format!("{p}.hard_threshold"), format!("must be above the threshold ({r} cells) and at most the buffer ({capacity} cells)"));
                }
            }
            (threshold, None)
        }
    };
    if let Some(t) = threshold {
        if t.0 == 0 || t.0 > capacity {
            return err(format!("{p}.threshold"), format!("must be between 1 and the buffer ({capacity} cells)"));
        }
    }
    if z.is_some_and(|z| !(z > 0.0)) {
        return err(format!("{p}.z"), "must be > 0");
    }
    Ok(())
}

fn algorithm(p: &str, a: &AlgorithmSpec) -> R {
    match a {
        AlgorithmSpec::Erica(e) => {
            if !(e.target_utilization > 0.0 && e.target_utilization <= 1.0) {
                return err(format!("{p}.target_utilization"), "must be in (0, 1]");
            }
            if !(e.delta >= 0.0) {
                return err(format!("{p}.delta"), "must be >= 0");
            }
            if e.interval.0.is_zero() {
                return err(format!("{p}.interval"), "must be > 0");
            }
            if !(e.n_active_decay >= 0.0 && e.n_active_decay <= 1.0) {
                return err(format!("{p}.n_active_decay"), "must be in [0, 1]");
            }
            if !(e.load_alpha > 0.0 && e.load_alpha <= 1.0) {
                return err(format!("{p}.load_alpha"), "must be in (0, 1]");
            }
        }
        AlgorithmSpec::EricaPlus(e) => {
            for (name, v) in [("a", e.a), ("b", e.b)] {
                if !(v > 1.0) {
                    return err(format!("{p}.{name}"), "must be > 1");
                }
            }
            if !(e.qdlf > 0.0 && e.qdlf <= 1.0) {
                return err(format!("{p}.qdlf"), "must be in (0, 1]");
            }
            if e.interval.0.is_zero() {
                return err(format!("{p}.interval"), "must be > 0");
            }
        }
        AlgorithmSpec::Debra(d) => {
            if !(d.target_utilization > 0.0 && d.target_utilization <= 1.0) {
                return err(format!("{p}.target_utilization"), "must be in (0, 1]");
            }
            if !(d.advertised_fraction > 0.0 && d.advertised_fraction <= 1.0) {
                return err(format!("{p}.advertised_fraction"), "must be in (0, 1]");
            }
            if !(d.k >= 1.0) {
                return err(format!("{p}.k"), "must be >= 1");
            }
            if d.interval.0.is_zero() {
                return err(format!("{p}.interval"), "must be > 0");
            }
            if !(d.active_frm_periods > 0.0) {
                return err(format!("{p}.active_frm_periods"), "must be > 0");
            }
            if !(d.assumed_nrm >= 2.0) {
                return err(format!("{p}.assumed_nrm"), "must be >= 2");
            }
        }
        AlgorithmSpec::Eprca(e) => {
            for (name, v) in [("av", e.av), ("dpf", e.dpf), ("erf", e.erf), ("mrf", e.mrf)] {
                if !(v > 0.0 && v <= 1.0) {
                    return err(format!("{p}.{name}"), "must be in (0, 1]");
                }
            }
            if e.qt > e.dqt {
                return err(format!("{p}.qt"), format!("must not exceed dqt ({})", e.dqt));
            }
        }
        AlgorithmSpec::Ut(u) => {
            if !(u.target_utilization > 0.0 && u.target_utilization <= 1.0) {
                return err(format!("{p}.target_utilization"), "must be in (0, 1]");
            }
            if u.interval.0.is_zero() {
                return err(format!("{p}.interval"), "must be > 0");
            }
            for (name, v) in [("beta_f", u.beta_f), ("beta_b", u.beta_b)] {
                if !(v > 0.0 && v <= 1.0) {
                    return err(format!("{p}.{name}"), "must be in (0, 1]");
                }
            }
        }
        AlgorithmSpec::Efci(e) => {
            if e.q_lo > e.q_hi {
                return err(format!("{p}.q_lo"), format!("must not exceed q_hi ({})", e.q_hi));
            }
            if e.q_hi == 0 {
                return err(format!("{p}.q_hi"), "must be at least 1 cell");
            }
        }
    }
    Ok(())
}

/// Checks the effective parameters; `own` tells which fields the source set itself, so an
/// error points at the field that was actually written.
fn abr(p: &str, a: &AbrSpec, own: Option<&AbrSpec>, default_pcr: Rate) -> R {
    let at = |field: &str, set_here: bool| {
        if own.is_none() || set_here {
            format!("{p}.{field}")
        } else {
            format!("{p}.{field} (from defaults.abr)")
        }
    };
    let here = |f: fn(&AbrSpec) -> bool| own.map_or(true, f);
    {
        let pcr = a.pcr.unwrap_or(default_pcr);
        if pcr.bps() <= 0.0 {
            return err(at("pcr", here(|o| o.pcr.is_some())), "must be > 0");
        }
        if let Some(mcr) = a.mcr {
            if mcr > pcr {
                return err(at("mcr", here(|o| o.mcr.is_some())), format!("must not exceed pcr ({pcr})"));
            }
        }
        if let Some(icr) = a.icr {
            if icr > pcr {
                return err(at("icr", here(|o| o.icr.is_some())), format!("must not exceed pcr ({pcr})"));
            }
        }
    }
    if let (Some(icr), Some(mcr)) = (a.icr, a.mcr) {
        if icr < mcr {
            return err(at("icr", here(|o| o.icr.is_some())), format!("must be at least mcr ({mcr})"));
        }
    }
    for (name, v, set) in [("rif", a.rif, here(|o| o.rif.is_some())), ("rdf", a.rdf, here(|o| o.rdf.is_some()))] {
        if let Some(v) = v {
            if !(v > 0.0 && v <= 1.0) {
                return err(at(name, set), "must be in (0, 1]");
            }
        }
    }
    if let Some(cdf) = a.cdf {
        if !(0.0..=1.0).contains(&cdf) {
            return err(at("cdf", here(|o| o.cdf.is_some())), "must be in [0, 1]");
        }
    }
    if a.nrm.is_some_and(|n| n < 2) {
        return err(at("nrm", here(|o| o.nrm.is_some())), "must be at least 2");
    }
    if a.tbe == Some(0) {
        return err(at("tbe", here(|o| o.tbe.is_some())), "must be > 0");
    }
    if a.tcr.is_some_and(|t| t.bps() <= 0.0) {
        return err(at("tcr", here(|o| o.tcr.is_some())), "must be > 0");
    }
    if a.trm.is_some_and(|t| t.0.is_zero()) {
        return err(at("trm", here(|o| o.trm.is_some())), "must be > 0");
    }
    Ok(())
}
