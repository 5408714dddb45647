//! Max-min fair rates by water-filling (docs/glossary.md, "Max-min fair share"): the reference
//! every scheme is judged by.
//!
//! Repeatedly find the most constrained resource — a link whose remaining capacity shared
//! equally among its unfrozen users is smallest, or a connection's own demand cap (its PCR)
//! if that is smaller — give that level to the users it binds, and freeze them.

/// One connection: the resources (links, by index) it crosses and its demand cap.
#[derive(Clone, Debug)]
pub struct Flow {
    pub links: Vec<usize>,
    /// Largest rate the flow can use (PCR); `f64::INFINITY` for none.
    pub demand: f64,
}

/// Max-min fair rates of `flows` over links of the given capacities (same unit as the result).
pub fn maxmin_rates(capacity: &[f64], flows: &[Flow]) -> Vec<f64> {
    let mut remaining = capacity.to_vec();
    let mut rate = vec![0.0; flows.len()];
    let mut frozen = vec![false; flows.len()];
    loop {
        let mut users = vec![0usize; capacity.len()];
        for (f, flow) in flows.iter().enumerate() {
            if !frozen[f] {
                for &l in &flow.links {
                    users[l] += 1;
                }
            }
        }
        // The lowest water level among links with unfrozen users...
        let mut level = f64::INFINITY;
        for (l, &n) in users.iter().enumerate() {
            if n > 0 {
                level = level.min(remaining[l].max(0.0) / n as f64);
            }
        }
        // ...or among unfrozen flows' own demands.
        for (f, flow) in flows.iter().enumerate() {
            if !frozen[f] {
                level = level.min(flow.demand);
            }
        }
        if !level.is_finite() {
            // Only unconstrained flows are left (no links, no demand): nothing binds them.
            for f in 0..flows.len() {
                if !frozen[f] {
                    rate[f] = f64::INFINITY;
                }
            }
            return rate;
        }
        let tight = |l: usize| users[l] > 0 && remaining[l].max(0.0) / users[l] as f64 <= level * (1.0 + 1e-12);
        let mut froze_any = false;
        for (f, flow) in flows.iter().enumerate() {
            if frozen[f] {
                continue;
            }
            if flow.demand <= level * (1.0 + 1e-12) || flow.links.iter().any(|&l| tight(l)) {
                frozen[f] = true;
                froze_any = true;
                rate[f] = level.min(flow.demand);
            }
        }
        // Recompute remaining capacity from every frozen flow (simple and exact).
        remaining.copy_from_slice(capacity);
        for (f, flow) in flows.iter().enumerate() {
            if frozen[f] {
                for &l in &flow.links {
                    remaining[l] -= rate[f];
                }
            }
        }
        if !froze_any || frozen.iter().all(|&x| x) {
            return rate;
        }
    }
}

/// What holds a flow at its max-min rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bottleneck {
    /// A link (by index) the flow crosses: the link is full and no flow on it gets more.
    Link(usize),
    /// The flow's own demand cap (its PCR).
    Demand,
    /// Nothing binds it (no links and no demand: an infinite rate).
    Unbound,
}

/// The bottleneck of each flow given its max-min `rates` (from `maxmin_rates` over the same
/// `capacity` and `flows`): the demand if the flow gets all it asks, otherwise the first link of
/// its route that is full (the rates on it add up to its capacity) and on which no flow gets more
/// than it does. In a max-min fair allocation every flow has one (Bertsekas & Gallager, *Data
/// Networks*, §6.5.2); the tolerance only absorbs the water-filling's rounding.
pub fn bottlenecks(capacity: &[f64], flows: &[Flow], rates: &[f64]) -> Vec<Bottleneck> {
    const TOL: f64 = 1e-9;
    let mut load = vec![0.0; capacity.len()];
    let mut top = vec![0.0f64; capacity.len()];
    for (flow, &r) in flows.iter().zip(rates) {
        for &l in &flow.links {
            load[l] += r;
            top[l] = top[l].max(r);
        }
    }
    flows
        .iter()
        .zip(rates)
        .map(|(flow, &r)| {
            if !r.is_finite() {
                return Bottleneck::Unbound;
            }
            if flow.demand <= r * (1.0 + TOL) {
                return Bottleneck::Demand;
            }
            let full = |l: usize| load[l] >= capacity[l].max(0.0) * (1.0 - TOL) - TOL;
            let largest = |l: usize| r >= top[l] * (1.0 - TOL);
            flow.links.iter().copied().find(|&l| full(l) && largest(l)).map_or(Bottleneck::Unbound, Bottleneck::Link)
        })
        .collect()
}

/// Jain's fairness index `(Σx)² / (n Σx²)` (1 = perfectly fair). Empty input gives 1.
pub fn jain_index(x: &[f64]) -> f64 {
    if x.is_empty() {
        return 1.0;
    }
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if s2 == 0.0 {
        1.0
    } else {
        s * s / (x.len() as f64 * s2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(links: &[usize]) -> Flow {
        Flow { links: links.to_vec(), demand: f64::INFINITY }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-3
    }

    #[test]
    fn gfc1() {
        // L1 50, L2 150, L3 150, L4 100 Mb/s; groups A(3) B(3) C(3) D(6) E(6) F(2).
        let caps = [50.0, 150.0, 150.0, 100.0];
        let mut flows = Vec::new();
        let groups: [(&[usize], usize, f64); 6] = [
            (&[0, 1, 2], 3, 5.556),
            (&[1, 2, 3], 3, 11.111),
            (&[2], 3, 33.333),
            (&[0], 6, 5.556),
            (&[3], 6, 11.111),
            (&[1], 2, 50.0),
        ];
        let mut want = Vec::new();
        for (links, n, r) in groups {
            for _ in 0..n {
                flows.push(flow(links));
                want.push(r);
            }
        }
        let got = maxmin_rates(&caps, &flows);
        for (g, w) in got.iter().zip(&want) {
            assert!(close(*g, *w), "{got:?}");
        }
    }

    #[test]
    fn upstream() {
        // S1..S14 on L1; S15 on L1, L2; S16, S17 on L2; 155.52 Mb/s each.
        let caps = [155.52, 155.52];
        let mut flows: Vec<Flow> = (0..14).map(|_| flow(&[0])).collect();
        flows.push(flow(&[0, 1]));
        flows.push(flow(&[1]));
        flows.push(flow(&[1]));
        let got = maxmin_rates(&caps, &flows);
        assert!(got[..15].iter().all(|&r| close(r, 10.368)), "{got:?}");
        assert!(close(got[15], 72.576) && close(got[16], 72.576), "{got:?}");
    }

    #[test]
    fn gfc2() {
        // GFC2 (the `abr-benchmarks/gfc2` preset, not in seed 003): trunks L1 50, L2 100, L3 50,
        // L4 150, L5 150, L6 50 Mb/s.
        let caps = [50.0, 100.0, 50.0, 150.0, 150.0, 50.0];
        let spec: [(&[usize], usize, f64); 12] = [
            (&[0, 1, 2, 3, 4], 1, 10.0),
            (&[1, 2, 3, 4], 1, 10.0),
            (&[2, 3, 4], 1, 10.0),
            (&[0, 1, 2, 3, 4, 5], 1, 5.0),
            (&[1, 2, 3, 4, 5], 1, 5.0),
            (&[3, 4, 5], 1, 5.0),
            (&[4], 3, 35.0),
            (&[0], 1, 35.0),
            (&[1], 2, 35.0),
            (&[2], 1, 10.0),
            (&[5], 7, 5.0),
            (&[3], 2, 52.5),
        ];
        let mut flows = Vec::new();
        let mut want = Vec::new();
        for (links, n, r) in spec {
            for _ in 0..n {
                flows.push(flow(links));
                want.push(r);
            }
        }
        let got = maxmin_rates(&caps, &flows);
        for (g, w) in got.iter().zip(&want) {
            assert!(close(*g, *w), "got {got:?}");
        }
    }

    #[test]
    fn demand_caps_bind_before_links() {
        // One source with PCR 155 on a 155.52 link gets 155; two share 77.76 each.
        let got = maxmin_rates(&[155.52], &[Flow { links: vec![0], demand: 155.0 }]);
        assert!(close(got[0], 155.0));
        let f = Flow { links: vec![0], demand: 155.0 };
        let got = maxmin_rates(&[155.52], &[f.clone(), f]);
        assert!(close(got[0], 77.76) && close(got[1], 77.76));
        // A small demand leaves the rest to the other flow.
        let got = maxmin_rates(&[100.0], &[Flow { links: vec![0], demand: 10.0 }, flow(&[0])]);
        assert!(close(got[0], 10.0) && close(got[1], 90.0));
    }

    #[test]
    fn bottlenecks_of_gfc1() {
        // GFC1's groups (as `gfc1` above): A and D are held by L1, B and E by L4, C by L3, F by L2.
        let caps = [50.0, 150.0, 150.0, 100.0];
        let routes: [&[usize]; 6] = [&[0, 1, 2], &[1, 2, 3], &[2], &[0], &[3], &[1]];
        let flows: Vec<Flow> = routes.iter().map(|l| flow(l)).collect();
        let mut all = flows.clone();
        // The group sizes of GFC1 (3, 3, 3, 6, 6, 2): one of each given above, the rest here.
        for (g, extra) in [(0, 2), (1, 2), (2, 2), (3, 5), (4, 5), (5, 1)] {
            for _ in 0..extra {
                all.push(flows[g].clone());
            }
        }
        let rates = maxmin_rates(&caps, &all);
        let b = bottlenecks(&caps, &all, &rates);
        let want = [0, 3, 2, 0, 3, 1].map(Bottleneck::Link);
        assert_eq!(&b[..6], &want, "{rates:?}");
    }

    #[test]
    fn a_demand_or_nothing_can_be_the_bottleneck() {
        let flows = [Flow { links: vec![0], demand: 10.0 }, flow(&[0]), flow(&[])];
        let rates = maxmin_rates(&[100.0], &flows);
        assert_eq!(bottlenecks(&[100.0], &flows, &rates), [Bottleneck::Demand, Bottleneck::Link(0), Bottleneck::Unbound]);
    }

    #[test]
    fn a_flow_below_the_largest_on_a_full_link_is_held_elsewhere() {
        // Parking lot: X crosses both links, Y only the first (cap 10), Z only the second (cap
        // 100). X and Y get 5 on link 0; Z gets 95 on link 1, which is full but where X is not the
        // largest: X's bottleneck is link 0, not the first full link it meets after it.
        let flows = [flow(&[1, 0]), flow(&[0]), flow(&[1])];
        let caps = [10.0, 100.0];
        let rates = maxmin_rates(&caps, &flows);
        assert!(close(rates[0], 5.0) && close(rates[2], 95.0), "{rates:?}");
        assert_eq!(bottlenecks(&caps, &flows, &rates), [Bottleneck::Link(0), Bottleneck::Link(0), Bottleneck::Link(1)]);
    }

    #[test]
    fn jain() {
        assert!(close(jain_index(&[1.0, 1.0, 1.0]), 1.0));
        assert!(close(jain_index(&[1.0, 0.0]), 0.5));
    }
}
