//! Operator edits of the terrain (`fill`), announced with [`BlocksChanged`] so that whatever
//! keeps a view of the blocks (the daylight sky map) forgets the stale part.

use valence::prelude::*;

use super::Overworld;

/// Blocks in the box from `min` to `max` (inclusive) changed.
#[derive(Event, Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlocksChanged {
    pub min: BlockPos,
    pub max: BlockPos,
}

/// Largest box `fill` sets at once, as vanilla.
const FILL_LIMIT: i64 = 32_768;

/// `fill`: sets every loaded block of the box between two corners to `block`.
pub fn fill(world: &mut World, a: BlockPos, b: BlockPos, block: &str) -> String {
    let name = block.strip_prefix("minecraft:").unwrap_or(block);
    let Some(kind) = BlockKind::from_str(name) else {
        return format!("error=\"no block named {block}\"");
    };
    let (min, max) = (
        BlockPos::new(a.x.min(b.x), a.y.min(b.y), a.z.min(b.z)),
        BlockPos::new(a.x.max(b.x), a.y.max(b.y), a.z.max(b.z)),
    );
    // In i64: corners at the ends of the i32 range must not wrap to a small box.
    let side = |a: i32, b: i32| b as i64 - a as i64 + 1;
    let volume = side(min.x, max.x) * side(min.y, max.y) * side(min.z, max.z);
    if volume > FILL_LIMIT {
        return format!("error=\"{volume} blocks is more than {FILL_LIMIT}\"");
    }
    let mut layers = world.query_filtered::<&mut ChunkLayer, With<Overworld>>();
    let Ok(mut layer) = layers.get_single_mut(world) else {
        return "error=\"the world is not ready\"".into();
    };
    let (mut set, mut unloaded) = (0, 0);
    for x in min.x..=max.x {
        for y in min.y..=max.y {
            for z in min.z..=max.z {
                match layer.set_block([x, y, z], kind.to_state()) {
                    Some(_) => set += 1,
                    None => unloaded += 1,
                }
            }
        }
    }
    world.send_event(BlocksChanged { min, max });
    format!("filled={set} unloaded={unloaded} block={name}")
}
