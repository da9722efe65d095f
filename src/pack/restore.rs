//! Restoring a ghost pack: its members come back scattered on standable ground around the
//! centroid; a member that finds ground only beyond the rejoin radius comes back loose.

use rand::RngCore;
use valence::prelude::*;

use crate::world::{ground_around, ground_at};

use super::ghost::{rejoins, scatter};
use super::{Pack, PackBrain, PackState};
use crate::grid::flat;

/// Brings a ghost pack's members back, scattered on standable ground; false if a member finds
/// no ground within the search radius. Members that find ground beyond the rejoin radius come
/// back loose.
pub(super) fn restore(
    commands: &mut Commands,
    pack: &mut Pack,
    layer_entity: Entity,
    layer: &ChunkLayer,
    rules: &crate::config::PackConfig,
) -> bool {
    let mut spots = Vec::with_capacity(pack.ghosts.len());
    // No ground at a member's spot: look further out, ring by ring every 8 blocks or so.
    let reach = (rules.restore_search_radius - rules.restore_scatter).max(0.0);
    let rings = (reach / 8.0).ceil().max(1.0) as u32;
    let radii = (1..=rings).map(|ring| rules.restore_scatter + reach * ring as f64 / rings as f64);
    for i in 0..pack.ghosts.len() {
        let spot = ground_at(layer, pack.centroid + scatter(i, rules.restore_scatter))
            .or_else(|| ground_around(layer, pack.centroid, radii.clone()));
        match spot {
            Some(s) => spots.push(s),
            None => return false,
        }
    }
    for (ghost, spot) in pack.ghosts.drain(..).zip(spots) {
        let seed = pack.rng.next_u64();
        let rejoins = rejoins(flat(spot), pack.centroid, rules);
        let member = commands
            .spawn((
                ghost.bundle(layer_entity, spot, seed),
                PackBrain::of(rejoins.then_some(pack.id)),
            ))
            .id();
        if rejoins {
            pack.members.push(member);
        }
    }
    pack.state = PackState::Materialised;
    pack.unticked_sweeps = 0;
    true
}
