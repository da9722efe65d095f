//! The surface of the terrain, as a map draws it from above: the top block of each column.
//! Worker threads take it from each chunk they make or read, so the tick only passes it on.

use std::sync::Arc;

use valence::prelude::*;

use super::{is_solid, HEIGHT, MIN_Y};

/// Top block of each column of a chunk, `x + 16 * z`.
pub type Surface = Arc<[BlockState]>;

/// A chunk entered the layer, with its surface.
#[derive(Event, Debug, Clone)]
pub struct ChunkArrived {
    pub pos: ChunkPos,
    pub surface: Surface,
}

/// Seen from above: a solid block or a liquid, not air nor a plant one walks through.
fn seen(block: BlockState) -> bool {
    is_solid(block) || block.is_liquid()
}

/// A chunk's surface, from its blocks by `x`, `y` (from the bottom of the world) and `z`, all
/// air from `air_from` up.
pub fn surface(block: impl Fn(u32, u32, u32) -> BlockState, air_from: u32) -> Surface {
    (0..256u32)
        .map(|i| {
            let (x, z) = (i % 16, i / 16);
            (0..air_from.min(HEIGHT))
                .rev()
                .map(|y| block(x, y, z))
                .find(|b| seen(*b))
                .unwrap_or(BlockState::AIR)
        })
        .collect()
}

/// The top block of one column of the layer, after an edit; `None` if it is not loaded.
pub fn column_top(layer: &ChunkLayer, x: i32, z: i32) -> Option<BlockState> {
    let top = MIN_Y + HEIGHT as i32 - 1;
    for y in (MIN_Y..=top).rev() {
        let block = layer.block([x, y, z])?.state;
        if seen(block) {
            return Some(block);
        }
    }
    Some(BlockState::AIR)
}
