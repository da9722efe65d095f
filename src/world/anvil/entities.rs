//! The `entities/` folder: since Minecraft 1.17 a chunk's entities are kept in their own region
//! files beside `region/`, each chunk `{DataVersion, Position: [x, z], Entities: [...]}`.
//! horde writes its zombies there so that a vanilla reader finds them where they stood, and
//! keeps every entity that is not its own (a vanilla world's cows, items, its own zombies).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

use super::region::{region_of, RegionFolder, Written};
use super::DATA_VERSION;

/// The world's `entities/` folder.
#[derive(Resource, Debug, Clone)]
pub struct EntityRegions(Arc<Mutex<RegionFolder>>);

impl EntityRegions {
    pub fn new(world_dir: &Path) -> Self {
        Self(Arc::new(Mutex::new(RegionFolder::new(
            world_dir.join("entities"),
        ))))
    }

    /// Rewrites the entity chunks in `chunks`: in each, the entities `ours` owns are replaced
    /// by the ones given for it (none, for a chunk listed empty), every other entity kept as
    /// it was. One region file at a time, each whole before it replaces the old one.
    pub fn write(
        &self,
        chunks: &BTreeMap<ChunkPos, Vec<Compound>>,
        ours: impl Fn(&Compound) -> bool,
    ) -> anyhow::Result<Written> {
        let mut by_region: BTreeMap<_, Vec<ChunkPos>> = BTreeMap::new();
        for &pos in chunks.keys() {
            by_region.entry(region_of(pos).0).or_default().push(pos);
        }
        let mut folder = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let mut total = Written::default();
        for (region, positions) in by_region {
            let written = folder.write(region, &positions, |pos, original| {
                let mine = chunks.get(&pos)?;
                Some(entity_chunk(pos, original, mine, &ours))
            })?;
            total.chunks += written.chunks;
            total.bytes += written.bytes;
        }
        Ok(total)
    }
}

/// The entity chunk at `pos`: `original` (if the folder had it) with its entities that
/// `ours` owns replaced by `mine`.
fn entity_chunk(
    pos: ChunkPos,
    original: Option<Compound>,
    mine: &[Compound],
    ours: impl Fn(&Compound) -> bool,
) -> Compound {
    let mut root = original.unwrap_or_else(|| {
        let mut root = Compound::new();
        root.insert("DataVersion", DATA_VERSION);
        root.insert("Position", Value::IntArray(vec![pos.x, pos.z]));
        root
    });
    let mut entities = match root.remove("Entities") {
        Some(Value::List(List::Compound(entities))) => entities,
        _ => Vec::new(),
    };
    entities.retain(|e| !ours(e));
    entities.extend(mine.iter().cloned());
    root.insert(
        "Entities",
        if entities.is_empty() {
            List::End
        } else {
            List::Compound(entities)
        },
    );
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(id: &str, ours: bool) -> Compound {
        let mut e = Compound::new();
        e.insert("id", id);
        if ours {
            e.insert("Tags", List::String(vec!["horde".into()]));
        }
        e
    }

    fn is_ours(e: &Compound) -> bool {
        matches!(e.get("Tags"), Some(Value::List(List::String(t))) if t.iter().any(|t| t == "horde"))
    }

    #[test]
    fn our_entities_are_replaced_and_the_others_kept() {
        let mut original = Compound::new();
        original.insert("DataVersion", 2855);
        original.insert("Position", Value::IntArray(vec![3, 4]));
        let cow = entity("minecraft:cow", false);
        let old = entity("minecraft:zombie", true);
        original.insert("Entities", List::Compound(vec![cow.clone(), old]));
        let new = entity("minecraft:zombie", true);
        let chunk = entity_chunk(
            ChunkPos::new(3, 4),
            Some(original),
            std::slice::from_ref(&new),
            is_ours,
        );
        assert_eq!(
            chunk.get("DataVersion"),
            Some(&Value::Int(2855)),
            "vanilla's, for its own"
        );
        assert_eq!(
            chunk.get("Entities"),
            Some(&Value::List(List::Compound(vec![cow, new])))
        );
        let fresh = entity_chunk(ChunkPos::new(-1, 2), None, &[], is_ours);
        assert_eq!(fresh.get("Position"), Some(&Value::IntArray(vec![-1, 2])));
        assert_eq!(fresh.get("Entities"), Some(&Value::List(List::End)));
    }
}
