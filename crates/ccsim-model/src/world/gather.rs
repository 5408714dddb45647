//! Threads (`threads.rs`): the world gathered into thread 0's copy, where observers and callers
//! read it, and given back to the threads that own its parts.
//!
//! Each part of the world has one owner: a port the thread of its sending node, a connection's
//! source (and its wake-ups) the thread of its source host, its policer (GFR's F-GCRA) the thread
//! of its ingress switch, its destination end (and the delays of what it delivered) the thread of
//! its destination host, a TCP connection (both its hosts) the thread they share; the books' counts
//! of what each end sent and was delivered go with that end. Gathering swaps
//! every part another thread owns into thread 0's copy (thread 0's stale copy of it goes the other
//! way: nobody reads it), and a second swap gives each part back. Counters that only add up
//! (events, hops, the fingerprint, a port's cells delivered at the far end, a connection's drops)
//! are each thread's own share, and gathering adds the others' into thread 0's, leaving theirs at
//! zero: the sum is the count, whichever thread counted. So does the trace: thread 0's takes the
//! others' rows (`Trace::absorb`). Once the run is complete, each crossing
//! link's pipe is joined: the cells the receiver holds, then those still at the sender.
//!
//! Owns the swap and the sums; nothing here changes what any part holds.

use super::threads::ThreadMap;
use super::World;

impl World {
    /// Gathers the world into this copy (thread 0's) from `others` (threads 1, 2, …), and returns
    /// the events waiting in their queues. `finishing`: the run is complete; the crossing pipes
    /// are joined for good (the world is not given back).
    pub(in crate::world) fn gather(&mut self, map: &ThreadMap, others: &mut [&mut World], finishing: bool) -> usize {
        for w in others.iter_mut() {
            self.events += std::mem::take(&mut w.events);
            self.cell_hops += std::mem::take(&mut w.cell_hops);
            self.fingerprint.absorb(&mut w.fingerprint);
            for (mine, theirs) in self.vcs.iter_mut().zip(w.vcs.iter_mut()) {
                mine.books.absorb_drops(&mut theirs.books);
            }
            for (mine, theirs) in self.ports.iter_mut().zip(w.ports.iter_mut()) {
                mine.delivered += std::mem::take(&mut theirs.delivered);
            }
            if let (Some(mine), Some(theirs)) = (self.trace.as_deref_mut(), w.trace.as_deref_mut()) {
                mine.absorb(theirs);
            }
        }
        // The receivers' parts of the crossing pipes (the cells that left the sender's buffer).
        let received: Vec<_> = if finishing {
            map.crossing
                .iter()
                .map(|&(p, _, to)| {
                    let w = if to == 0 { &mut *self } else { &mut *others[to as usize - 1] };
                    std::mem::take(&mut w.ports[p.index()].pipe)
                })
                .collect()
        } else {
            Vec::new()
        };
        self.swap_owned(map, others);
        for (&(p, ..), mut joined) in map.crossing.iter().zip(received) {
            let pipe = &mut self.ports[p.index()].pipe;
            while let Some(f) = pipe.pop_front() {
                joined.push_back(f);
            }
            *pipe = joined;
        }
        others.iter().map(|w| w.pending_events()).sum()
    }

    /// Swaps every part another thread owns between this copy and that thread's: gathers, and
    /// applied again, gives back. A port's cells delivered stay where they are (`gather` sums them).
    pub(in crate::world) fn swap_owned(&mut self, map: &ThreadMap, others: &mut [&mut World]) {
        for (i, &t) in map.port_thread.iter().enumerate() {
            if t != 0 {
                let theirs = &mut others[t as usize - 1].ports[i];
                let mine = &mut self.ports[i];
                std::mem::swap(mine, theirs);
                std::mem::swap(&mut mine.delivered, &mut theirs.delivered);
            }
        }
        // A credit hop's receiver belongs to the thread of the node the hop leads to.
        for i in 0..self.credit_rx.len() {
            let r = map.lp_thread[self.node_lp[self.ports[i].to.index()] as usize] as usize;
            if r != 0 && self.credit_rx[i].is_some() {
                std::mem::swap(&mut self.credit_rx[i], &mut others[r - 1].credit_rx[i]);
            }
        }
        for (v, (&src, &dst)) in map.vc_src.iter().zip(&map.vc_dst).enumerate() {
            if src != 0 {
                self.vcs[v].swap_source_side(&mut others[src as usize - 1].vcs[v]);
            }
            let ingress = map.vc_ingress[v] as usize;
            if ingress != 0 {
                std::mem::swap(&mut self.vcs[v].policer, &mut others[ingress - 1].vcs[v].policer);
            }
            if dst != 0 {
                self.vcs[v].swap_dest_side(&mut others[dst as usize - 1].vcs[v]);
            }
        }
    }
}
