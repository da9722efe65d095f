//! Merging: packs whose centroids are close and whose headings agree fuse, smaller into
//! larger.

use valence::prelude::Entity;

use super::rules::merges;
use super::{PackId, PackState, Packs, PacksMerged};
use crate::grid::SpatialGrid;

/// Fuses packs whose centroids are close and whose headings agree, smaller into larger;
/// returns the merges and the members who changed pack, for their brains.
pub(super) fn merge_packs(
    packs: &mut Packs,
    rules: &crate::config::PackConfig,
) -> (Vec<PacksMerged>, Vec<(Entity, PackId)>) {
    let mut moved = Vec::new();
    let mut merged = Vec::new();
    let mut centroids = SpatialGrid::new(rules.merge_radius);
    for p in packs.materialised() {
        centroids.insert(p.id, p.centroid);
    }
    let ids: Vec<PackId> = packs.materialised().map(|p| p.id).collect();
    let mut near = Vec::new();
    for id in ids {
        let Some(a) = packs.get(id).filter(|p| p.state == PackState::Materialised) else {
            continue;
        };
        centroids.near(
            a.centroid,
            rules.merge_radius,
            rules.scan_cap as usize,
            &mut near,
        );
        let other = near.iter().map(|(o, _)| *o).find(|o| {
            *o != id
                && packs.get(*o).is_some_and(|b| {
                    b.state == PackState::Materialised
                        && a.members.len() + b.members.len() <= rules.max_size as usize
                        && merges(a.centroid, a.heading, b.centroid, b.heading, rules)
                })
        });
        let Some(other) = other else {
            continue;
        };
        let size = |id| packs.get(id).map_or(0, |p| p.members.len());
        let (keep, gone) = if size(id) >= size(other) {
            (id, other)
        } else {
            (other, id)
        };
        let gone = packs.remove(gone).expect("found above");
        merged.push(PacksMerged {
            kept: keep,
            gone: gone.id,
            at: gone.centroid,
        });
        moved.extend(gone.members.iter().map(|m| (*m, keep)));
        packs
            .get_mut(keep)
            .expect("found above")
            .members
            .extend(gone.members);
        packs.stats.merged += 1;
    }
    (merged, moved)
}
