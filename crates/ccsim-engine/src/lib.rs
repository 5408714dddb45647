//! The discrete-event core of ccsim.
//!
//! It knows about time, event order, random streams and fingerprints, and nothing about
//! networks. Everything is owned by the caller's simulation value: there is no global clock.
//!
//! ```
//! use ccsim_engine::{EventQueue, SimDuration, SimTime};
//! let mut q = EventQueue::new();
//! q.push(SimTime::ZERO + SimDuration::from_micros(5), "late");
//! q.push(SimTime::ZERO + SimDuration::from_micros(1), "early");
//! q.push(SimTime::ZERO + SimDuration::from_micros(1), "early, second");
//! let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
//! assert_eq!(order, ["early", "early, second", "late"]);
//! ```

mod fingerprint;
mod heap;
mod queue;
mod rng;
mod serializer;
mod time;

pub use fingerprint::Fingerprint;
pub use queue::{ByEvent, EventQueue, Fifo, IntrinsicOrder, TieBreak};
pub use rng::{RngStream, StreamKey};
pub use serializer::TxClock;
pub use time::{SimDuration, SimTime, PS_PER_SEC};
