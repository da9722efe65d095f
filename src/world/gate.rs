//! Terrain between ticks. On a machine with few cores a terrain worker that generates while
//! the tick runs takes a core the tick's own threads then wait for: a tick that does 20 ms of
//! work was measured taking 50 while the worker ran beside it. So the tick closes the gate
//! while it runs and opens it when it is done, and the worker generates while the tick thread
//! sleeps. A tick that outlasts its budget lets the worker through, so terrain is never
//! starved by an overloaded server.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use valence::prelude::*;

/// The gate between the tick and the terrain worker (cheap to clone: both hold the same one).
#[derive(Resource, Clone, Default)]
pub(super) struct TickGate(Arc<Shared>);

#[derive(Default)]
struct Shared {
    /// When the running tick began; `None` between ticks.
    tick_began: Mutex<Option<Instant>>,
    between_ticks: Condvar,
}

impl TickGate {
    fn state(&self) -> MutexGuard<'_, Option<Instant>> {
        // The guarded value is a plain timestamp: a holder that panicked left nothing half-made.
        self.0
            .tick_began
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A tick begins: the worker waits.
    pub(super) fn close(&self) {
        *self.state() = Some(Instant::now());
    }

    /// The tick is done: the worker may go on.
    pub(super) fn open(&self) {
        *self.state() = None;
        self.0.between_ticks.notify_all();
    }

    /// Returns between ticks, or once the running tick has lasted `budget`.
    pub(super) fn wait_between_ticks(&self, budget: Duration) {
        let mut began = self.state();
        while let Some(at) = *began {
            let Some(left) = (at + budget).checked_duration_since(Instant::now()) else {
                return;
            };
            began = self
                .0
                .between_ticks
                .wait_timeout(began, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// First thing in a tick.
pub(super) fn close_gate(gate: Res<TickGate>) {
    gate.close();
}

/// Last thing in a tick.
pub(super) fn open_gate(gate: Res<TickGate>) {
    gate.open();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worker_waits_for_the_tick_to_end() {
        let gate = TickGate::default();
        gate.wait_between_ticks(Duration::from_secs(3600));
        gate.close();
        let worker = {
            let gate = gate.clone();
            std::thread::spawn(move || gate.wait_between_ticks(Duration::from_secs(3600)))
        };
        gate.open();
        // Would hang for the hour if opening did not wake it.
        worker.join().unwrap();
    }

    #[test]
    fn a_tick_past_its_budget_lets_the_worker_through() {
        let gate = TickGate::default();
        gate.close();
        gate.wait_between_ticks(Duration::ZERO);
        gate.wait_between_ticks(Duration::from_millis(1));
    }
}
