//! Merging: packs whose centroids are close and whose headings agree fuse, smaller into
//! larger.

use super::grid::SpatialGrid;
use super::rules::merges;
use super::sweep::Members;
use super::{PackId, PackState, Packs, PacksMerged};

/// Fuses packs whose centroids are close and whose headings agree, smaller into larger;
/// returns the merges.
pub(super) fn merge_packs(
    packs: &mut Packs,
    zombies: &mut Members,
    rules: &crate::config::PackConfig,
) -> Vec<PacksMerged> {
    let mut merged = Vec::new();
    let mut centroids = SpatialGrid::new(rules.merge_radius);
    for p in packs.materialised() {
        centroids.insert(p.id, p.centroid);
    }
    let ids: Vec<PackId> = packs.materialised().map(|p| p.id).collect();
    let mut near = Vec::new();
    for id in ids {
        let Some(a) = packs
            .packs
            .get(&id)
            .filter(|p| p.state == PackState::Materialised)
        else {
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
                && packs.packs.get(o).is_some_and(|b| {
                    b.state == PackState::Materialised
                        && a.members.len() + b.members.len() <= rules.max_size as usize
                        && merges(a.centroid, a.heading, b.centroid, b.heading, rules)
                })
        });
        let Some(other) = other else {
            continue;
        };
        let (keep, gone) = if packs.packs[&id].members.len() >= packs.packs[&other].members.len() {
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
        for member in &gone.members {
            if let Ok((.., mut brain, _, _)) = zombies.get_mut(*member) {
                brain.pack = Some(keep);
            }
        }
        packs
            .packs
            .get_mut(&keep)
            .expect("found above")
            .members
            .extend(gone.members);
        packs.stats.merged += 1;
    }
    merged
}
