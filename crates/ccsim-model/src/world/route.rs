//! The route table the per-cell path reads: every VC's forward and reverse ports in one flat
//! array and, per VC, where its ports start and the two flags a switch reads for every cell.
//! A hop then reads 8 bytes here and 4 there, not the VC's own record (hundreds of bytes) and
//! its routes' two heap blocks: at scale, with thousands of VCs, those were cache misses on
//! every hop (docs/benchmarks.md).
//!
//! Derived once from the VCs when the world is built (`Routes::of`); a VC's `fwd_ports` and
//! `rev_ports` stay what everything else reads, and nothing changes them after the build.

use super::Vc;
use crate::ids::PortId;

/// One VC's place in the table and its per-cell flags.
#[derive(Copy, Clone, Debug, Default)]
pub(in crate::world) struct Route {
    /// Its first forward port in `Routes::ports`; its reverse ports follow its forward ones.
    start: u32,
    /// Links on the route (forward ports, and as many reverse ports).
    links: u32,
    /// ABR traffic (`Vc::abr`).
    pub abr: bool,
    /// Policed at its ingress switch (`Vc::policer`).
    pub policed: bool,
}

#[derive(Clone, Debug, Default)]
pub(in crate::world) struct Routes {
    ports: Vec<PortId>,
    vcs: Vec<Route>,
}

impl Routes {
    pub fn of(vcs: &[Vc]) -> Routes {
        let mut r = Routes { ports: Vec::with_capacity(vcs.iter().map(|v| 2 * v.fwd_ports.len()).sum()), vcs: Vec::with_capacity(vcs.len()) };
        for vc in vcs {
            debug_assert_eq!(vc.fwd_ports.len(), vc.rev_ports.len());
            let start = u32::try_from(r.ports.len()).expect("fewer than 2^32 route entries");
            r.ports.extend(vc.fwd_ports.iter().chain(&vc.rev_ports));
            r.vcs.push(Route { start, links: vc.fwd_ports.len() as u32, abr: vc.abr, policed: vc.policer.is_some() });
        }
        r
    }

    /// VC `v`'s entry.
    #[inline(always)]
    pub fn of_vc(&self, v: usize) -> Route {
        self.vcs[v]
    }

    /// The port at node `i` of the route towards node i + 1 (`Vc::fwd_ports[i]`).
    #[inline(always)]
    pub fn fwd(&self, r: Route, i: usize) -> PortId {
        debug_assert!(i < r.links as usize);
        self.ports[r.start as usize + i]
    }

    /// The port at node i + 1 of the route towards node i (`Vc::rev_ports[i]`).
    #[inline(always)]
    pub fn rev(&self, r: Route, i: usize) -> PortId {
        debug_assert!(i < r.links as usize);
        self.ports[r.start as usize + r.links as usize + i]
    }
}
