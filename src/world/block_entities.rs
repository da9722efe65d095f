//! Block entities the server keeps to itself: a chest's or barrel's items, a furnace's fuel and
//! progress, as vanilla saves them (the compound with `id`, `x`, `y`, `z`, `Items`...), by
//! block, read with their chunk from the region folder and written back with it. Clients are
//! sent only that such a block has an entity (an empty compound in Valence's chunk, which a
//! chest needs to be drawn), never what it holds: vanilla sends a chest's contents to those
//! who open it, not to everyone who loads the chunk.
//!
//! A change here is a change of the chunk: it is saved as an edit of its blocks is.

use rustc_hash::{FxHashMap, FxHashSet};
use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

use super::{BlocksChanged, Overworld};
use crate::common::stacks::{stack_from_nbt, stack_to_nbt};

/// Whether the server keeps block entities of this id (`minecraft:chest`) to itself.
pub fn kept_apart(id: &str) -> bool {
    matches!(
        id.strip_prefix("minecraft:").unwrap_or(id),
        "chest" | "trapped_chest" | "barrel" | "furnace" | "smoker" | "blast_furnace"
    )
}

/// The position a saved block entity names (`x`, `y`, `z`).
pub fn position_of(entity: &Compound) -> Option<BlockPos> {
    let int = |key| match entity.get(key) {
        Some(Value::Int(v)) => Some(*v),
        _ => None,
    };
    Some(BlockPos::new(int("x")?, int("y")?, int("z")?))
}

/// The id a saved block entity names, without `minecraft:`.
pub fn id_of(entity: &Compound) -> Option<&str> {
    match entity.get("id") {
        Some(Value::String(id)) => Some(id.strip_prefix("minecraft:").unwrap_or(id)),
        _ => None,
    }
}

/// A container's items (`Items`: `Slot`, `id`, `Count`, `tag`), each in its slot; an item
/// that cannot be read is left out.
pub fn items_of(entity: &Compound) -> Vec<(u8, ItemStack)> {
    let Some(Value::List(List::Compound(items))) = entity.get("Items") else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let slot = match item.get("Slot") {
                Some(Value::Byte(s)) => u8::try_from(*s).ok()?,
                _ => return None,
            };
            Some((slot, stack_from_nbt(item).ok()?))
        })
        .collect()
}

/// `entity` holding `slots` as its `Items`, empty slots left out as vanilla saves them.
pub fn with_items(mut entity: Compound, slots: &[Option<ItemStack>]) -> Compound {
    let items = slots
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let mut item = stack_to_nbt(s.as_ref()?);
            item.insert("Slot", i as i8);
            Some(item)
        })
        .collect::<Vec<_>>();
    let list = if items.is_empty() {
        List::End
    } else {
        List::Compound(items)
    };
    entity.insert("Items", list);
    entity
}

/// The loaded chunks' kept block entities.
#[derive(Resource, Debug, Default)]
pub struct BlockEntities {
    by_chunk: FxHashMap<ChunkPos, FxHashMap<BlockPos, Compound>>,
    /// Chunks whose block entities changed since the save last looked.
    changed: FxHashSet<ChunkPos>,
}

impl BlockEntities {
    /// The block entity at `at`, if its chunk is loaded and it has one.
    pub fn get(&self, at: BlockPos) -> Option<&Compound> {
        self.by_chunk.get(&ChunkPos::from_block_pos(at))?.get(&at)
    }

    /// Sets the block entity at `at`, its `id` being `id` (`chest`), its position stamped as
    /// vanilla saves it. False when the chunk is not loaded.
    pub fn set(&mut self, at: BlockPos, id: &str, mut entity: Compound) -> bool {
        let chunk = ChunkPos::from_block_pos(at);
        let Some(entities) = self.by_chunk.get_mut(&chunk) else {
            return false;
        };
        entity.insert("id", format!("minecraft:{id}"));
        entity.insert("x", at.x);
        entity.insert("y", at.y);
        entity.insert("z", at.z);
        entity.insert("keepPacked", false);
        entities.insert(at, entity);
        self.changed.insert(chunk);
        true
    }

    /// Takes away the block entity at `at`.
    pub fn remove(&mut self, at: BlockPos) -> Option<Compound> {
        let chunk = ChunkPos::from_block_pos(at);
        let gone = self.by_chunk.get_mut(&chunk)?.remove(&at)?;
        self.changed.insert(chunk);
        Some(gone)
    }

    /// The kept block entities in the box from `min` to `max`.
    fn within(&self, min: BlockPos, max: BlockPos) -> Vec<(BlockPos, &Compound)> {
        let (low, high) = (ChunkPos::from_block_pos(min), ChunkPos::from_block_pos(max));
        let mut found = Vec::new();
        for z in low.z..=high.z {
            for x in low.x..=high.x {
                let Some(entities) = self.by_chunk.get(&ChunkPos::new(x, z)) else {
                    continue;
                };
                found.extend(entities.iter().map(|(at, e)| (*at, e)).filter(|(at, _)| {
                    (min.x..=max.x).contains(&at.x)
                        && (min.y..=max.y).contains(&at.y)
                        && (min.z..=max.z).contains(&at.z)
                }));
            }
        }
        found
    }

    /// The kept block entities of a loaded chunk.
    pub fn in_chunk(&self, pos: ChunkPos) -> impl Iterator<Item = (BlockPos, &Compound)> {
        self.by_chunk
            .get(&pos)
            .into_iter()
            .flat_map(|m| m.iter().map(|(at, e)| (*at, e)))
    }

    /// A chunk arrives with these (from the region folder, or none when generated).
    pub(super) fn insert_chunk(&mut self, pos: ChunkPos, entities: Vec<Compound>) {
        let entities = entities
            .into_iter()
            .filter_map(|e| Some((position_of(&e)?, e)))
            .filter(|(at, _)| ChunkPos::from_block_pos(*at) == pos)
            .collect();
        self.by_chunk.insert(pos, entities);
    }

    pub(super) fn remove_chunk(&mut self, pos: ChunkPos) {
        self.by_chunk.remove(&pos);
        self.changed.remove(&pos);
    }

    /// A chunk's kept block entities, to be written with it.
    pub(super) fn of_chunk(&self, pos: ChunkPos) -> Vec<Compound> {
        let mut entities: Vec<(BlockPos, Compound)> = self
            .by_chunk
            .get(&pos)
            .map(|m| m.iter().map(|(at, e)| (*at, e.clone())).collect())
            .unwrap_or_default();
        entities.sort_by_key(|(at, _)| (at.y, at.z, at.x));
        entities.into_iter().map(|(_, e)| e).collect()
    }

    /// The chunks changed since the last call.
    pub(super) fn take_changed(&mut self) -> FxHashSet<ChunkPos> {
        std::mem::take(&mut self.changed)
    }
}

/// A kept block entity whose block is gone or is now another kind (a chest filled over) goes
/// with it.
pub(super) fn follow_blocks(
    mut changed: EventReader<BlocksChanged>,
    mut entities: ResMut<BlockEntities>,
    layers: Query<&ChunkLayer, With<Overworld>>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    for change in changed.iter() {
        let stale: Vec<BlockPos> = entities
            .within(change.min, change.max)
            .into_iter()
            .filter(|(at, entity)| {
                let kind = layer.block(*at).and_then(|b| b.state.block_entity_kind());
                kind.map(|k| k.ident().path().to_owned()).as_deref() != id_of(entity)
            })
            .map(|(at, _)| at)
            .collect();
        for at in stale {
            entities.remove(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_entity_is_kept_by_its_chunk_and_marks_it_changed() {
        let mut entities = BlockEntities::default();
        let at = BlockPos::new(17, 64, -3);
        assert!(!entities.set(at, "chest", Compound::new()), "not loaded");
        entities.insert_chunk(ChunkPos::new(1, -1), Vec::new());
        assert!(entities.set(at, "chest", Compound::new()));
        let saved = entities.get(at).unwrap();
        assert_eq!(id_of(saved), Some("chest"));
        assert_eq!(position_of(saved), Some(at));
        assert_eq!(entities.take_changed().len(), 1);
        assert_eq!(entities.of_chunk(ChunkPos::new(1, -1)).len(), 1);
        assert!(entities.remove(at).is_some());
        assert!(entities.take_changed().contains(&ChunkPos::new(1, -1)));
        assert!(kept_apart("minecraft:barrel") && !kept_apart("minecraft:sign"));
    }

    #[test]
    fn a_containers_items_round_trip_in_vanillas_layout() {
        let mut slots = vec![None; 27];
        slots[3] = Some(ItemStack::new(ItemKind::Torch, 12, None));
        slots[26] = Some(ItemStack::new(ItemKind::OakLog, 1, None));
        let chest = with_items(Compound::new(), &slots);
        let read = items_of(&chest);
        assert_eq!(read.len(), 2);
        assert_eq!(
            (read[0].0, read[0].1.item, read[0].1.count()),
            (3, ItemKind::Torch, 12)
        );
        assert_eq!(read[1].0, 26);
    }
}
