//! "Sees the sky" without a light engine: per block column, the height of the highest block
//! that stops sky light (opaque blocks, leaves, water, solid non-transparent blocks). Columns
//! are measured when first asked and forgotten when their chunk unloads or a block in them
//! changes, so the map stays right without scanning every chunk that loads.

use rustc_hash::FxHashMap;
use valence::prelude::*;

use crate::world::{is_solid, Voxels, HEIGHT, MIN_Y};

/// Whether sky light stops at this block.
pub fn blocks_sky(block: BlockState) -> bool {
    if block.is_opaque() || block.is_liquid() {
        return true;
    }
    let name = block.to_kind().to_str();
    if name.ends_with("leaves") {
        return true;
    }
    // Solid blocks stop the light unless they are see-through.
    is_solid(block)
        && !["glass", "pane", "bars", "fence", "chain", "wall"]
            .iter()
            .any(|t| name.contains(t))
}

/// Cached sky-blocking heights.
#[derive(Resource, Debug, Default)]
pub struct SkyMap {
    /// By chunk, each column's at `x + 16 z` within it ([`UNMEASURED`] until first asked): an
    /// unloaded chunk is forgotten in one step, and a player's travel drops hundreds of chunks
    /// on one tick.
    tops: FxHashMap<ChunkPos, Box<[i32; 256]>>,
}

/// A column not measured since its chunk loaded or a block in it changed.
const UNMEASURED: i32 = i32::MIN;

/// A column's chunk and its index within it.
fn slot(x: i32, z: i32) -> (ChunkPos, usize) {
    (
        ChunkPos::new(x >> 4, z >> 4),
        ((z & 15) * 16 + (x & 15)) as usize,
    )
}

impl SkyMap {
    /// Whether a block at `pos` is under open sky (nothing above stops sky light). Unloaded
    /// columns count as shaded and are not cached.
    pub fn sees_sky(&mut self, world: &impl Voxels, pos: BlockPos) -> bool {
        match self.top(world, pos.x, pos.z) {
            Some(top) => pos.y > top,
            None => false,
        }
    }

    /// The highest sky-blocking block of a column (`MIN_Y - 1` when there is none).
    fn top(&mut self, world: &impl Voxels, x: i32, z: i32) -> Option<i32> {
        let (chunk, i) = slot(x, z);
        if let Some(top) = self.tops.get(&chunk).map(|tops| tops[i]) {
            if top != UNMEASURED {
                return Some(top);
            }
        }
        let mut top = MIN_Y - 1;
        for y in (MIN_Y..MIN_Y + HEIGHT as i32).rev() {
            if blocks_sky(world.block(BlockPos::new(x, y, z))?) {
                top = y;
                break;
            }
        }
        self.tops
            .entry(chunk)
            .or_insert_with(|| Box::new([UNMEASURED; 256]))[i] = top;
        Some(top)
    }

    /// Forgets a column whose blocks changed.
    pub fn forget_column(&mut self, x: i32, z: i32) {
        let (chunk, i) = slot(x, z);
        if let Some(tops) = self.tops.get_mut(&chunk) {
            tops[i] = UNMEASURED;
        }
    }

    /// Forgets the columns of an unloaded chunk.
    pub fn forget_chunk(&mut self, pos: ChunkPos) {
        self.tops.remove(&pos);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Grid;

    fn column(blocks: &[(i32, BlockState)]) -> Grid {
        let mut g = Grid::new([0, MIN_Y, 0], [0, MIN_Y + HEIGHT as i32 - 1, 0]);
        g.set([0, 60, 0], BlockState::STONE);
        for &(y, b) in blocks {
            g.set([0, y, 0], b);
        }
        g
    }

    fn sees(g: &Grid, y: i32) -> bool {
        SkyMap::default().sees_sky(g, BlockPos::new(0, y, 0))
    }

    #[test]
    fn open_ground_sees_the_sky() {
        let g = column(&[]);
        assert!(sees(&g, 62));
        assert!(!sees(&g, 59), "inside the ground");
    }

    #[test]
    fn leaves_water_and_overhangs_shade_glass_does_not() {
        assert!(!sees(&column(&[(70, BlockState::OAK_LEAVES)]), 62));
        assert!(!sees(&column(&[(63, BlockState::WATER)]), 62));
        assert!(
            !sees(&column(&[(80, BlockState::STONE)]), 62),
            "an overhang far above"
        );
        assert!(!sees(&column(&[(66, BlockState::OAK_SLAB)]), 62));
        assert!(sees(&column(&[(66, BlockState::GLASS)]), 62));
        assert!(sees(&column(&[(66, BlockState::GRASS)]), 67));
    }

    #[test]
    fn changes_are_seen_after_forgetting() {
        let mut g = column(&[]);
        let mut map = SkyMap::default();
        assert!(map.sees_sky(&g, BlockPos::new(0, 62, 0)));
        g.set([0, 70, 0], BlockState::STONE);
        assert!(
            map.sees_sky(&g, BlockPos::new(0, 62, 0)),
            "cached until told"
        );
        map.forget_column(0, 0);
        assert!(!map.sees_sky(&g, BlockPos::new(0, 62, 0)));
        map.forget_chunk(ChunkPos::new(0, 0));
        assert!(map.tops.is_empty());
    }

    #[test]
    fn columns_are_kept_apart_across_chunks_and_signs() {
        // Columns in chunks -2, -1 and 0 along x, all open; then two of them roofed.
        let mut g = Grid::new([-17, MIN_Y, 0], [16, MIN_Y + HEIGHT as i32 - 1, 0]);
        g.fill([-17, 60, 0], [16, 60, 0], BlockState::STONE);
        let mut map = SkyMap::default();
        for x in [-17, -1, 15] {
            assert!(map.sees_sky(&g, BlockPos::new(x, 62, 0)), "x = {x}");
        }
        g.set([-17, 70, 0], BlockState::STONE);
        g.set([-1, 70, 0], BlockState::STONE);
        map.forget_chunk(ChunkPos::new(-1, 0));
        assert!(
            !map.sees_sky(&g, BlockPos::new(-1, 62, 0)),
            "its chunk forgotten"
        );
        assert!(
            map.sees_sky(&g, BlockPos::new(-17, 62, 0)),
            "chunk -2 still cached until told"
        );
        map.forget_column(-17, 0);
        assert!(!map.sees_sky(&g, BlockPos::new(-17, 62, 0)));
        assert!(map.sees_sky(&g, BlockPos::new(15, 62, 0)));
    }

    #[test]
    fn unloaded_columns_are_shade_and_not_cached() {
        let g = Grid::new([0, 0, 0], [0, 10, 0]);
        let mut map = SkyMap::default();
        assert!(!map.sees_sky(&g, BlockPos::new(5, 62, 5)));
        assert!(map.tops.is_empty());
    }
}
