//! Valence's own passes at the end of each tick, timed apart from horde's work: writing the
//! tick's chunk and entity changes into the layers (`UpdateLayersPreClientSet`:
//! `update_chunk_layers_pre_client`, `send_entity_update_messages` and their kin), each client
//! reading what it sees (`UpdateClientsSet`), and the packets' flush (`FlushPacketsSet`).
//! The floor runs the same passes, so a recording on each says what Valence costs and what
//! horde adds.

use std::time::{Duration, Instant};

use valence::client::{FlushPacketsSet, UpdateClientsSet};
use valence::entity::{InitEntitiesSet, UpdateTrackedDataSet};
use valence::layer::UpdateLayersPreClientSet;
use valence::prelude::*;

use crate::BeforeLayersSet;

/// The passes, in the order they run, as the recording names them.
pub const NAMES: [&str; 3] = ["layers", "clients", "flush"];

/// The time each of Valence's passes took in one tick, in [`NAMES`]' order.
pub type Passes = [Duration; 3];

/// When each pass began, and when the last one ended: stamped as they run.
#[derive(Resource, Default)]
pub struct Marks([Option<Instant>; 4]);

impl Marks {
    /// This tick's passes, and the marks cleared for the next; zeros for a pass not stamped
    /// (a tick Valence did not run, as the first).
    pub fn take(&mut self) -> Passes {
        let marks = std::mem::take(&mut self.0);
        std::array::from_fn(|i| match (marks[i], marks[i + 1]) {
            (Some(from), Some(to)) => to.saturating_duration_since(from),
            _ => Duration::ZERO,
        })
    }
}

fn mark<const I: usize>(mut marks: ResMut<Marks>) {
    marks.0[I] = Some(Instant::now());
}

/// Stamps the start of each pass and the end of the last, ordered by Valence's own sets.
pub fn build(app: &mut App) {
    app.init_resource::<Marks>().add_systems(
        PostUpdate,
        (
            mark::<0>
                .after(BeforeLayersSet)
                .after(InitEntitiesSet)
                .after(UpdateTrackedDataSet)
                .before(UpdateLayersPreClientSet),
            mark::<1>
                .after(UpdateLayersPreClientSet)
                .before(UpdateClientsSet),
            mark::<2>.after(UpdateClientsSet).before(FlushPacketsSet),
            mark::<3>.after(FlushPacketsSet),
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_pass_runs_from_its_mark_to_the_next_and_a_missing_mark_is_zero() {
        let t0 = Instant::now();
        let at = |ms| Some(t0 + Duration::from_millis(ms));
        let mut marks = Marks([at(0), at(3), at(10), at(11)]);
        assert_eq!(
            marks.take(),
            [3, 7, 1].map(Duration::from_millis),
            "layers, clients, flush"
        );
        assert_eq!(
            marks.take(),
            [Duration::ZERO; 3],
            "cleared for the next tick"
        );
        let mut partial = Marks([at(0), at(2), None, None]);
        assert_eq!(
            partial.take(),
            [Duration::from_millis(2), Duration::ZERO, Duration::ZERO]
        );
    }
}
