//! The escalation phase, kept in `horde_world.dat` (`Phase`, `NextPhaseAt`). `build_base`
//! reads it before the plugins, with the clock and the weather.

use valence::nbt::{Compound, Value};
use valence::prelude::*;

use super::{Phase, WorldPhase};
use crate::save::{world_keys, SaveApp, WorldKeys};

pub(super) fn register(app: &mut App) {
    app.add_save_part(|world| world_keys(&world.resource::<WorldPhase>().0));
}

impl WorldKeys for Phase {
    fn save(&self, root: &mut Compound) {
        root.insert("Phase", self.phase as i32);
        root.insert("NextPhaseAt", self.next_rise);
    }

    /// A save without the phase leaves it as it is.
    fn load(&mut self, root: &Compound) {
        if let (Some(Value::Int(phase)), Some(Value::Long(next))) =
            (root.get("Phase"), root.get("NextPhaseAt"))
        {
            self.phase = (*phase).max(0) as u32;
            self.next_rise = *next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phase_survives_a_round_trip_and_a_save_without_it_keeps_it() {
        let phase = Phase {
            phase: 4,
            next_rise: 123_456,
        };
        let mut root = Compound::new();
        phase.save(&mut root);
        let mut back = Phase::new(1, 24_000, 0);
        back.load(&root);
        assert_eq!(back, phase);
        back.load(&Compound::new());
        assert_eq!(back, phase);
    }
}
