//! ATM ABR: TM 4.0 end systems and the switch rate-allocation schemes.

pub mod destination;
pub mod misbehaviour;
pub mod source;
pub mod switch;

pub use destination::AbrDestination;
pub use misbehaviour::Misbehaviour;
pub use source::{AbrParams, AbrSource};
