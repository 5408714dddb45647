//! The result's `parallel_report` object (`ccsim run --parallel-report`): a windowed run's work
//! counts turned into the speed-up its logical processes would give on 2 to 64 threads
//! (`ccsim_model::parallel`; docs/benchmarks.md, "Scaling on paper"), or why the world has no
//! windows to count.

use ccsim_model::parallel::{partition::candidate_threads, ParallelReport};
use ccsim_model::World;
use serde_json::{json, Value};

/// The barrier rounds `measure_barrier` times (each barrier kind; about 0.1–0.3 s in all on an
/// idle two-core machine).
pub const BARRIER_ROUNDS: u32 = 20_000;

/// The report of `world`'s counted work (`World::count_work`) with the run's measured
/// `ns_per_event` and the two-thread barrier rounds `barrier_ns` (spin, `std::sync::Barrier`),
/// or `{"windowed": false, "why": …}` with the reason counting was refused (`why`).
pub fn report_json(
    world: &World,
    why: Option<&str>,
    ns_per_event: f64,
    barrier_ns: (f64, f64),
) -> Value {
    let Some(counts) = world.work_counts() else {
        return json!({"windowed": false, "why": why.unwrap_or("work was not counted")});
    };
    let mut ks = vec![1];
    ks.extend(candidate_threads(counts.lps()));
    let r: ParallelReport = counts.report(&ks, ns_per_event, barrier_ns.0);
    let threads: Vec<Value> = r
        .threads
        .iter()
        .map(|t| {
            json!({
                "threads": t.threads,
                "loads": t.loads,
                "critical_events": t.critical_events,
                "speedup_work": t.speedup_work,
                "speedup_with_barrier": t.speedup_with_barrier,
            })
        })
        .collect();
    // The busiest LP bounds every partition's speed-up: no thread count beats total / its work.
    let totals = counts.lp_totals();
    let busiest = (0..totals.len()).max_by_key(|&i| (totals[i], std::cmp::Reverse(i))).unwrap_or(0);
    let node_lp = world.groups().node_lp;
    let nodes: Vec<&str> =
        world.nodes.iter().zip(&node_lp).filter(|(_, &lp)| lp as usize == busiest).map(|(n, _)| n.name.as_str()).collect();
    json!({
        "windowed": true,
        "work_unit": "events",
        "lps": r.lps,
        "window_s": world.lookahead().as_secs_f64(),
        "windows": r.windows,
        "total_events": r.total_events,
        "serial_events": r.serial_events,
        "partition_from_windows": r.partition_from_windows,
        "ns_per_event": r.ns_per_event,
        "barrier_ns_2_threads": r.barrier_ns_2_threads,
        "barrier_ns_std_2_threads": barrier_ns.1,
        "busiest_lp": {
            "events": totals.get(busiest).copied().unwrap_or(0),
            "nodes": nodes.len(),
            "first_nodes": &nodes[..nodes.len().min(3)],
        },
        "threads": threads,
    })
}
