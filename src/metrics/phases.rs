//! The tick's phases, timed apart: horde's own in `Update` (the world with the commands and
//! config before it, the players, the zombies with the hunts after them), then Valence's
//! passes in `PostUpdate`: writing the tick's chunk and entity changes into the layers
//! (`UpdateLayersPreClientSet`: `update_chunk_layers_pre_client`, `send_entity_update_messages`
//! and their kin), each client reading what it sees (`UpdateClientsSet`), and the packets'
//! flush (`FlushPacketsSet`). The floor runs the same passes, so a recording on each says what
//! Valence costs and where horde's work goes. What falls outside every phase (reading packets
//! in `PreUpdate`, Valence's own `Update` systems, the map's snapshot) is the rest of the tick.

use std::time::{Duration, Instant};

use valence::client::{FlushPacketsSet, UpdateClientsSet};
use valence::entity::{InitEntitiesSet, UpdateTrackedDataSet};
use valence::layer::UpdateLayersPreClientSet;
use valence::prelude::*;

use crate::schedule::{BeforeLayersSet, TickSet};

/// The phases, in the order they run, as the recording names them.
pub const NAMES: [&str; 6] = ["world", "players", "zombies", "layers", "clients", "flush"];

/// The time each phase took in one tick, in [`NAMES`]' order.
pub type Phases = [Duration; 6];

/// Stamps as the tick runs: four in `Update` (horde's three phases begin, the last ends), four
/// in `PostUpdate` (Valence's three passes begin, the last ends).
#[derive(Resource, Default)]
pub struct Marks([Option<Instant>; 8]);

impl Marks {
    /// This tick's phases, and the marks cleared for the next; zero for a phase not stamped
    /// (a tick a schedule did not run, as the first).
    pub fn take(&mut self) -> Phases {
        let marks = std::mem::take(&mut self.0);
        let span = |from: usize| match (marks[from], marks[from + 1]) {
            (Some(from), Some(to)) => to.saturating_duration_since(from),
            _ => Duration::ZERO,
        };
        // Each schedule's marks make a chain of their own.
        [span(0), span(1), span(2), span(4), span(5), span(6)]
    }
}

fn mark<const I: usize>(mut marks: ResMut<Marks>) {
    marks.0[I] = Some(Instant::now());
}

/// Stamps each phase's start and the end of the last, ordered by horde's and Valence's sets.
pub fn build(app: &mut App) {
    app.init_resource::<Marks>()
        .add_systems(
            Update,
            (
                mark::<0>.before(TickSet::Commands),
                mark::<1>.after(TickSet::World).before(TickSet::Players),
                mark::<2>.after(TickSet::Players).before(TickSet::Zombies),
                mark::<3>.after(TickSet::Hunts),
            ),
        )
        .add_systems(
            PostUpdate,
            (
                mark::<4>
                    .after(BeforeLayersSet)
                    .after(InitEntitiesSet)
                    .after(UpdateTrackedDataSet)
                    .before(UpdateLayersPreClientSet),
                mark::<5>
                    .after(UpdateLayersPreClientSet)
                    .before(UpdateClientsSet),
                mark::<6>.after(UpdateClientsSet).before(FlushPacketsSet),
                mark::<7>.after(FlushPacketsSet),
            ),
        );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_phase_runs_from_its_mark_to_the_next_in_its_schedule() {
        let t0 = Instant::now();
        let at = |ms| Some(t0 + Duration::from_millis(ms));
        let mut marks = Marks([at(0), at(1), at(3), at(9), at(20), at(23), at(30), at(31)]);
        assert_eq!(
            marks.take(),
            [1, 2, 6, 3, 7, 1].map(Duration::from_millis),
            "world, players, zombies; layers, clients, flush"
        );
        assert_eq!(
            marks.take(),
            [Duration::ZERO; 6],
            "cleared for the next tick"
        );
        let mut partial = Marks([None, None, None, None, at(0), at(2), None, None]);
        assert_eq!(
            partial.take(),
            [0, 0, 0, 2, 0, 0].map(Duration::from_millis),
            "a schedule that did not run"
        );
    }
}
