//! Block entities the server keeps: a chest's or barrel's items, a furnace's fuel and
//! progress, a sign's text, as vanilla saves them (the compound with `id`, `x`, `y`, `z`,
//! `Items`...), by block, read with their chunk from the region folder and written back with
//! it. Clients are sent a sign's text, but of a container only that it has an entity (an
//! empty compound in Valence's chunk, which a chest needs to be drawn), never what it holds:
//! vanilla sends a chest's contents to those who open it, not to everyone who loads the chunk.
//!
//! A change here is a change of the chunk: it is saved as an edit of its blocks is.

use rustc_hash::{FxHashMap, FxHashSet};
use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

use super::{BlocksChanged, Overworld};
use crate::common::stacks::{stack_from_nbt, stack_to_nbt};

/// Whether the server keeps block entities of this id (`minecraft:chest`), to save them and
/// to change them.
pub fn kept(id: &str) -> bool {
    let id = id.strip_prefix("minecraft:").unwrap_or(id);
    hidden(id) || is_sign(id)
}

/// Whether clients are told nothing of what a block entity of this id holds.
fn hidden(id: &str) -> bool {
    matches!(
        id,
        "chest" | "trapped_chest" | "barrel" | "furnace" | "smoker" | "blast_furnace"
    )
}

/// Whether the id (without `minecraft:`) is a sign's or a hanging sign's.
fn is_sign(id: &str) -> bool {
    matches!(id, "sign" | "hanging_sign")
}

/// What a client is sent of a saved block entity (in its chunk, or when it changes): its data
/// without the position and id, as vanilla's `getUpdateTag`; nothing for a container.
pub fn client_view(entity: &Compound) -> Compound {
    if id_of(entity).is_some_and(hidden) {
        return Compound::new();
    }
    let mut data = entity.clone();
    for key in ["id", "x", "y", "z", "keepPacked"] {
        data.remove(key);
    }
    data
}

/// An empty line of a sign: the JSON of an empty text component, as vanilla writes it.
pub const EMPTY_LINE: &str = r#"{"text":""}"#;

/// One side of a sign with no text: four empty lines, black, not glowing (`SignText`).
fn blank_side() -> Compound {
    let mut side = Compound::new();
    side.insert("messages", List::String(vec![EMPTY_LINE.to_owned(); 4]));
    side.insert("color", "black");
    side.insert("has_glowing_text", false);
    side
}

/// A sign as vanilla places it: both sides blank, not waxed (`SignBlockEntity`).
pub fn blank_sign() -> Compound {
    let mut sign = Compound::new();
    sign.insert("front_text", blank_side());
    sign.insert("back_text", blank_side());
    sign.insert("is_waxed", false);
    sign
}

/// The block entity a newly placed block of this id (`sign`) starts with: a blank sign, an
/// empty container.
pub fn fresh(id: &str) -> Compound {
    if is_sign(id.strip_prefix("minecraft:").unwrap_or(id)) {
        blank_sign()
    } else {
        Compound::new()
    }
}

/// A saved block entity as 1.20.1 reads it: a sign saved before 1.20 (`Text1`..`Text4`,
/// `Color`, `GlowingText`) gets its text on the front and a blank back, as vanilla's
/// `BlockEntitySignDoubleSidedEditableTextFix` upgrades it; anything else is as it was.
pub fn upgraded(mut entity: Compound) -> Compound {
    if !id_of(&entity).is_some_and(is_sign) || entity.contains_key("front_text") {
        return entity;
    }
    let mut front = blank_side();
    let text = |entity: &Compound, key: &str| match entity.get(key) {
        Some(Value::String(line)) => Some(line.clone()),
        _ => None,
    };
    let lines: Vec<String> = (1..=4)
        .map(|i| text(&entity, &format!("Text{i}")).unwrap_or_else(|| EMPTY_LINE.to_owned()))
        .collect();
    let filtered: Vec<Option<String>> = (1..=4)
        .map(|i| text(&entity, &format!("FilteredText{i}")))
        .collect();
    if filtered.iter().any(Option::is_some) {
        let filtered = filtered
            .into_iter()
            .zip(&lines)
            .map(|(f, line)| f.unwrap_or_else(|| line.clone()))
            .collect();
        front.insert("filtered_messages", List::String(filtered));
    }
    front.insert("messages", List::String(lines));
    if let Some(color) = text(&entity, "Color") {
        front.insert("color", color);
    }
    if let Some(glowing) = entity.get("GlowingText").cloned() {
        front.insert("has_glowing_text", glowing);
    }
    for i in 1..=4 {
        entity.remove(&format!("Text{i}"));
        entity.remove(&format!("FilteredText{i}"));
    }
    entity.remove("Color");
    entity.remove("GlowingText");
    entity.insert("front_text", front);
    entity.insert("back_text", blank_side());
    entity.insert("is_waxed", false);
    entity
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
        assert!(kept("minecraft:barrel") && kept("minecraft:sign") && !kept("banner"));
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

    #[test]
    fn a_sign_from_before_1_20_gets_its_text_on_the_front_and_clients_see_it() {
        let mut old = Compound::new();
        old.insert("id", "minecraft:sign");
        for (i, line) in ["\"Keep\"", "\"out\"", "\"\"", "\"\""].iter().enumerate() {
            old.insert(format!("Text{}", i + 1), *line);
        }
        old.insert("Color", "red");
        old.insert("GlowingText", 1i8);
        let sign = upgraded(old);
        let Some(Value::Compound(front)) = sign.get("front_text") else {
            panic!("{sign:?}")
        };
        let Some(Value::List(List::String(lines))) = front.get("messages") else {
            panic!("{front:?}")
        };
        assert_eq!(lines[..2], ["\"Keep\"", "\"out\""]);
        assert_eq!(front.get("color"), Some(&Value::String("red".into())));
        assert_eq!(front.get("has_glowing_text"), Some(&Value::Byte(1)));
        assert!(!sign.contains_key("Text1") && sign.contains_key("back_text"));
        let seen = client_view(&sign);
        assert!(seen.contains_key("front_text") && !seen.contains_key("id"));
        assert_eq!(upgraded(blank_sign()), blank_sign(), "1.20's own are kept");

        let mut chest = Compound::new();
        chest.insert("id", "minecraft:chest");
        chest.insert("Items", List::End);
        assert_eq!(client_view(&chest), Compound::new());
    }
}
