//! The ccsim network model: cells, ports and links, ABR end systems, switch schemes, and the
//! world that ties them together. It knows nothing about file formats (that is
//! `ccsim-scenario`) and nothing about Python.

pub mod aal5;
pub mod abr;
pub mod cell;
pub mod delays;
pub mod hgrcp;
pub mod ids;
pub mod ip;
pub mod maxmin;
pub mod measure;
pub mod parallel;
pub mod policer;
pub mod port;
pub mod sessions;
pub mod tcp;
pub mod tcp_host;
pub mod timeout_cause;
pub mod trace;
pub mod vc_table;
pub mod vbr;
pub mod world;

pub use cell::{cells_to_mbps, mbps_to_cells, Cell, CellKind, CELL_BITS};
pub use ids::{NodeId, PortId, VcId};
pub use measure::{MeasureSpec, Recordings, Series};
pub use world::{Ends, Event, MaxminLimit, NodeKind, PortSpec, Report, VcKind, VcSpec, World, WorldBuilder};
