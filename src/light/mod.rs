//! Vanilla 1.20.1's light, block for block: sky light falling from the sky and spreading
//! sideways, block light spreading from torches, lava and the like, each level losing at least
//! one a block and more through blocks that filter light (leaves, water), and stopped by full
//! blocks and by the faces slabs and stairs close. A world's light is one fixed point of those
//! rules, so light computed here from a chunk's blocks is what vanilla stored for it.
//!
//! A chunk is lit from its own blocks on a worker thread ([`light_chunk`]), or takes the light
//! vanilla saved for it ([`saved_light`]); [`join`] adds what crosses between it and its loaded
//! neighbours, and [`relight`] follows changed blocks. The
//! world module keeps the light beside the blocks and sends it to clients.

mod chunk;
mod engine;
mod held;
mod map;
mod store;

use valence::prelude::ChunkPos;

pub use chunk::{light_chunk, saved_light};
pub use engine::{Access, Entry, Queues};
pub use held::HeldChunks;
pub use map::ChunkMap;
pub use store::{ChunkLight, Kind, Nibbles, SECTION_BYTES};

/// The world's lowest block (vanilla's overworld).
pub const MIN_Y: i32 = -64;
/// Light sections of a chunk: the world's 24 and one below and above it, as vanilla keeps and
/// sends them.
pub const SECTIONS: usize = 26;
/// The lowest y with light (the section below the world), and the first above the highest.
pub const LOW_Y: i32 = MIN_Y - 16;
pub const HIGH_Y: i32 = LOW_Y + 16 * SECTIONS as i32;

/// The brightness of a block with `sky` and `block` light when the sky is darkened by
/// `darken` (vanilla's `LevelLightEngine.getRawBrightness`, behind `getMaxLocalRawBrightness`):
/// the brighter of the darkened sky light and the block light.
pub fn raw_brightness(sky: u8, block: u8, darken: i32) -> u8 {
    (sky as i32 - darken).max(block as i32).clamp(0, 15) as u8
}

/// The four chunks beside `pos`, with whether each lies along x (west or east) of it and
/// whether it comes first (west or north).
fn beside(pos: ChunkPos) -> [(ChunkPos, bool, bool); 4] {
    [
        (ChunkPos::new(pos.x - 1, pos.z), true, true),
        (ChunkPos::new(pos.x + 1, pos.z), true, false),
        (ChunkPos::new(pos.x, pos.z - 1), false, true),
        (ChunkPos::new(pos.x, pos.z + 1), false, false),
    ]
}

/// Spreads the light that crosses between chunk `pos`, just lit from its own blocks, and its
/// loaded neighbours, both ways, and on through them.
pub fn join<A: Access>(access: &mut A, pos: ChunkPos) {
    for kind in [Kind::Sky, Kind::Block] {
        let mut queues = Queues::default();
        for (other, along_x, first) in beside(pos) {
            let (Some(me), Some(them)) = (
                access.chunk_ref(pos.x, pos.z),
                access.chunk_ref(other.x, other.z),
            ) else {
                continue;
            };
            let (a, b) = if first {
                ((them, other.x, other.z), (me, pos.x, pos.z))
            } else {
                ((me, pos.x, pos.z), (them, other.x, other.z))
            };
            engine::seam_entries(a, b, along_x, kind, &mut queues.increase);
        }
        queues.run(access, kind);
    }
}

/// Follows a change of the blocks at `changed`: withdraws the light that no longer passes and
/// spreads what now does, across chunks.
pub fn relight<A: Access>(access: &mut A, changed: impl IntoIterator<Item = [i32; 3]>) {
    let mut queues: [Queues; 2] = Default::default();
    // From the top down: a column's sky reach is found again from the block above each change,
    // which must already see the sky as it now is.
    let mut changed: Vec<[i32; 3]> = changed.into_iter().collect();
    changed.sort_unstable_by_key(|&[x, y, z]| (std::cmp::Reverse(y), x, z));
    for [x, y, z] in changed {
        engine::check_block(access, x, y, z, &mut queues);
    }
    for kind in [Kind::Sky, Kind::Block] {
        queues[kind as usize].run(access, kind);
    }
}

#[cfg(test)]
mod tests;
