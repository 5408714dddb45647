//! HG-RCP (seed 000; docs/models/hgrcp.md): explicit-rate control from an intranet gateway to its
//! hosts. `controller.rs` is the gateway's Eq. 1, sans-IO (it never sees the event queue: the
//! gateway calls it with `now`, its ABR connection's ACR and its buffer); the hosts' paced output
//! is a port discipline (`port/discipline/paced.rs`).

mod controller;

pub use controller::{HgrcpController, HgrcpParams};
