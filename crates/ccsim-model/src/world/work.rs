//! The windowed mode's work counts (`crate::parallel`): which logical process ran how many
//! events in which window, for `ccsim run --parallel-report`. Owns turning them on and handing
//! them out; `windows.rs` adds to them after each process's run in a window (one test of the
//! flag per process run, none per event) and counts the observers between windows as serial.
//! Counting changes nothing the run does: it only reads the event count.

use super::World;
use crate::parallel::{WorkCounts, DEFAULT_CAP};

impl World {
    /// Counts each logical process's events per window from now on; only before the run
    /// starts, and only in windows. The error says why not: the world runs from one queue
    /// (`can_run_in_windows`'s reason, or windows that do not pay: `windows_pay`).
    pub fn count_work(&mut self) -> Result<(), String> {
        self.count_work_capped(DEFAULT_CAP)
    }

    /// `count_work` keeping at most `cap` (process, events) entries before the partitions are
    /// fixed (`WorkCounts`).
    pub fn count_work_capped(&mut self, cap: usize) -> Result<(), String> {
        if self.events != 0 {
            return Err("work is counted from the start of the run only".into());
        }
        if !self.is_windowed() {
            self.can_run_in_windows()?;
            return Err(if self.ports.iter().any(|p| p.packets) {
                "it carries IP packets: too few per window for windows to pay, so it runs from one queue".into()
            } else {
                format!(
                    "its logical processes allow no window of at least {} (its shortest link between them), so it runs from one queue",
                    super::MIN_WINDOW
                )
            });
        }
        self.work = Some(Box::new(WorkCounts::new(self.lps.len(), cap)));
        Ok(())
    }

    /// Logical process `lp` ran `events` events in the window being run (`run_windows`, when
    /// counting). Out of line: the loop that runs processes keeps its shape when not counting.
    #[inline(never)]
    pub(in crate::world) fn count_lp_run(&mut self, lp: usize, events: u64) {
        if let Some(work) = &mut self.work {
            work.add(lp, events);
        }
    }

    /// The window being run ends (`run_windows`, when counting).
    #[inline(never)]
    pub(in crate::world) fn close_counted_window(&mut self) {
        if let Some(work) = &mut self.work {
            work.close_window();
        }
    }

    /// The work counted so far (`count_work`), if asked for.
    pub fn work_counts(&self) -> Option<&WorkCounts> {
        self.work.as_deref()
    }
}
