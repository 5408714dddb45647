//! First in, first out, holding the cells: for ports that need each departing cell's tag when it
//! leaves, not later (a buffer policy that counts tagged cells per VC, WBA). Same order and
//! timing as the FIFO fast path, with a departure event per cell.

use super::{HeldOrder, Next};
use crate::cell::Cell;
use ccsim_engine::SimTime;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct HeldFifo {
    cells: VecDeque<Cell>,
}

impl HeldOrder for HeldFifo {
    fn buffered(&self, _cell: &Cell) -> bool {
        true
    }

    fn hold(&mut self, cell: Cell) {
        self.cells.push_back(cell);
    }

    fn next(&mut self, _now: SimTime) -> Next {
        Next::from(self.cells.pop_front())
    }

    fn cells(&self) -> impl Iterator<Item = &Cell> {
        self.cells.iter()
    }
}
