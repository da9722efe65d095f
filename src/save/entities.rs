//! horde's entities in the world's `entities/` files, as Minecraft 1.17 and later keep a chunk's
//! entities: a vanilla reader, a map renderer or vanilla itself finds each zombie standing where
//! it stood, with its health, fire and helmet, and each item and orb where it lay. The plugins
//! write their entities ([`super::SaveOut::entity`]) and read them back from their own
//! `data/` files, never from here; each of ours carries the tag [`TAG`], so the next save
//! replaces them and keeps every other entity of the chunk.

use std::collections::{BTreeMap, BTreeSet};

use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

/// The tag on every entity horde wrote.
pub const TAG: &str = "horde";

/// Whether `entity` is one horde wrote.
pub fn is_ours(entity: &Compound) -> bool {
    matches!(entity.get("Tags"), Some(Value::List(List::String(tags))) if tags.iter().any(|t| t == TAG))
}

/// The entity chunks to write: the chunks that hold one of our `entities` (as compounds, where
/// they are) now, with them, and the chunks that held one at the last save (`before`), emptied
/// of ours.
pub fn by_chunk(
    entities: &[(DVec3, Compound)],
    before: &BTreeSet<ChunkPos>,
) -> BTreeMap<ChunkPos, Vec<Compound>> {
    let mut chunks: BTreeMap<ChunkPos, Vec<Compound>> =
        before.iter().map(|&pos| (pos, Vec::new())).collect();
    for (at, entity) in entities {
        chunks
            .entry(ChunkPos::from_pos(*at))
            .or_default()
            .push(entity.clone());
    }
    chunks
}

/// A UUID as vanilla's four big-endian ints.
pub fn uuid_array(uuid: uuid::Uuid) -> [i32; 4] {
    let b = uuid.as_bytes();
    std::array::from_fn(|i| {
        i32::from_be_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tagged() -> Compound {
        let mut e = Compound::new();
        e.insert("Tags", List::String(vec![TAG.to_string()]));
        e
    }

    #[test]
    fn chunks_that_held_one_of_ours_are_emptied_and_new_ones_filled() {
        let before = BTreeSet::from([ChunkPos::new(0, 0), ChunkPos::new(5, 5)]);
        let chunks = by_chunk(&[(DVec3::new(-1.0, 64.0, 17.0), tagged())], &before);
        assert_eq!(chunks.len(), 3);
        assert!(chunks[&ChunkPos::new(0, 0)].is_empty());
        assert_eq!(chunks[&ChunkPos::new(-1, 1)].len(), 1);
        assert!(is_ours(&chunks[&ChunkPos::new(-1, 1)][0]));
        assert!(!is_ours(&Compound::new()));
    }

    #[test]
    fn a_uuid_is_four_big_endian_ints() {
        let uuid = uuid::Uuid::from_u128(0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10);
        assert_eq!(
            uuid_array(uuid),
            [0x01020304, 0x05060708, 0x090a0b0c, 0x0d0e0f10]
        );
    }
}
