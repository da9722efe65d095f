//! "Sees the sky" without a light engine: per block column, the height of the highest block
//! that stops sky light (opaque blocks, leaves, water, solid non-transparent blocks). Columns
//! are measured when first asked and forgotten when their chunk unloads or a block in them
//! changes, so the map stays right without scanning every chunk that loads.

use std::collections::HashMap;

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
    tops: HashMap<(i32, i32), i32>,
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
        if let Some(&top) = self.tops.get(&(x, z)) {
            return Some(top);
        }
        let mut top = MIN_Y - 1;
        for y in (MIN_Y..MIN_Y + HEIGHT as i32).rev() {
            if blocks_sky(world.block(BlockPos::new(x, y, z))?) {
                top = y;
                break;
            }
        }
        self.tops.insert((x, z), top);
        Some(top)
    }

    /// Forgets a column whose blocks changed.
    pub fn forget_column(&mut self, x: i32, z: i32) {
        self.tops.remove(&(x, z));
    }

    /// Forgets the columns of an unloaded chunk.
    pub fn forget_chunk(&mut self, pos: ChunkPos) {
        if self.tops.is_empty() {
            return;
        }
        for z in 0..16 {
            for x in 0..16 {
                self.tops.remove(&(pos.x * 16 + x, pos.z * 16 + z));
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.tops.is_empty()
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
        assert!(map.is_empty());
    }

    #[test]
    fn unloaded_columns_are_shade_and_not_cached() {
        let g = Grid::new([0, 0, 0], [0, 10, 0]);
        let mut map = SkyMap::default();
        assert!(!map.sees_sky(&g, BlockPos::new(5, 62, 5)));
        assert!(map.is_empty());
    }
}
