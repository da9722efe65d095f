//! What a body needs to know about blocks: solid, free, water, or not loaded. Path finding and
//! the walker read the world only through [`Voxels`], so they run the same on a chunk layer and
//! on a hand-made grid in a unit test.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::OnceLock;

use valence::layer::chunk::{Chunk, LoadedChunk};
use valence::prelude::*;

use super::door::is_open_door;

/// Read access to blocks; `None` means not loaded (never walked into).
pub trait Voxels {
    fn block(&self, pos: BlockPos) -> Option<BlockState>;

    /// Stops a body: has a collision shape. Unloaded counts as solid so nothing enters it.
    fn solid(&self, pos: BlockPos) -> bool {
        self.block(pos).is_none_or(is_solid)
    }

    /// Water (or another liquid) a body swims in.
    fn liquid(&self, pos: BlockPos) -> bool {
        self.block(pos).is_some_and(|b| b.is_liquid())
    }

    /// A body fits with its feet here: two loaded free blocks (with or without a floor).
    fn fits(&self, pos: BlockPos) -> bool {
        !self.solid(pos) && !self.solid(BlockPos::new(pos.x, pos.y + 1, pos.z))
    }

    /// A ladder, vine or the like that a body climbs.
    fn climbable(&self, pos: BlockPos) -> bool {
        self.block(pos).is_some_and(climbable)
    }

    /// Whether the block is loaded.
    fn loaded(&self, pos: BlockPos) -> bool {
        self.block(pos).is_some()
    }

    /// A body's feet fit here: two loaded free blocks, standing on something solid, or swimming.
    fn standable(&self, pos: BlockPos) -> bool {
        let below = BlockPos::new(pos.x, pos.y - 1, pos.z);
        self.fits(pos) && (self.liquid(pos) || (self.solid(below) && self.loaded(below)))
    }

    /// Whether any block of the column at `x`, `z` from `y0` to `y1` is solid (or unloaded): a
    /// body's box, column by column.
    fn solid_in_column(&self, x: i32, z: i32, y0: i32, y1: i32) -> bool {
        (y0..=y1).any(|y| self.solid(BlockPos::new(x, y, z)))
    }

    /// The facts of `len` (1 to 128) blocks of the column at `x`, `z` from `y` up, as bits.
    /// Path searches read whole columns: here block by block, from the server's walkability
    /// facts ([`super::NavVoxels`]) with a few shifts.
    fn column(&self, x: i32, z: i32, y: i32, len: u32) -> Column {
        debug_assert!((1..=128).contains(&len));
        let mut column = Column::default();
        for i in 0..len {
            let (pos, bit) = (BlockPos::new(x, y + i as i32, z), 1 << i);
            for (bits, holds) in [
                (&mut column.solid, self.solid(pos)),
                (&mut column.liquid, self.liquid(pos)),
                (&mut column.loaded, self.loaded(pos)),
            ] {
                if holds {
                    *bits |= bit;
                }
            }
        }
        column
    }
}

/// Facts of a run of blocks in one column, bit `i` for the `i`-th block from the bottom.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Column {
    /// Stops a body, or is not loaded (as [`Voxels::solid`]).
    pub solid: u128,
    pub liquid: u128,
    pub loaded: u128,
}

/// Whether a block stops a body: it has a collision shape. An open door does not: its thin
/// leaf stands at the side of its block, and bodies walk through the doorway.
pub fn is_solid(block: BlockState) -> bool {
    // Valence walks the state's shape list each time; paths ask millions of times a second.
    static SOLID: OnceLock<Vec<bool>> = OnceLock::new();
    let table = SOLID.get_or_init(|| {
        (0..=u16::MAX)
            .map_while(BlockState::from_raw)
            .map(|b| {
                // A ladder is a board against its wall: a body climbing it stands in its block.
                b.collision_shapes().next().is_some()
                    && !is_open_door(b)
                    && b.to_kind() != BlockKind::Ladder
            })
            .collect()
    });
    table[block.to_raw() as usize]
}

/// Blocks mobs climb (vanilla's `#minecraft:climbable`).
pub fn climbable(state: BlockState) -> bool {
    matches!(
        state.to_kind(),
        BlockKind::Ladder
            | BlockKind::Vine
            | BlockKind::Scaffolding
            | BlockKind::WeepingVines
            | BlockKind::WeepingVinesPlant
            | BlockKind::TwistingVines
            | BlockKind::TwistingVinesPlant
            | BlockKind::CaveVines
            | BlockKind::CaveVinesPlant
    )
}

impl Voxels for ChunkLayer {
    fn block(&self, pos: BlockPos) -> Option<BlockState> {
        LayerVoxels::new(self).block(pos)
    }
}

/// Block reads from a chunk layer that keep the last chunk at hand. Bodies, paths and sight
/// lines read runs of neighbouring blocks, and finding a chunk hashes its position: with
/// thousands of zombies that lookup was the biggest cost of a tick.
pub struct LayerVoxels<'a> {
    layer: &'a ChunkLayer,
    min_y: i32,
    height: i32,
    last: Cell<Option<(ChunkPos, Option<&'a LoadedChunk>)>>,
}

impl<'a> LayerVoxels<'a> {
    pub fn new(layer: &'a ChunkLayer) -> Self {
        Self {
            layer,
            min_y: layer.min_y(),
            height: layer.height() as i32,
            last: Cell::new(None),
        }
    }
}

impl Voxels for LayerVoxels<'_> {
    fn block(&self, pos: BlockPos) -> Option<BlockState> {
        let y = pos.y - self.min_y;
        if !(0..self.height).contains(&y) {
            return None;
        }
        let at = ChunkPos::new(pos.x >> 4, pos.z >> 4);
        let chunk = match self.last.get() {
            Some((cached, chunk)) if cached == at => chunk,
            _ => {
                let chunk = self.layer.chunk(at);
                self.last.set(Some((at, chunk)));
                chunk
            }
        };
        Some(chunk?.block_state((pos.x & 15) as u32, y as u32, (pos.z & 15) as u32))
    }
}

/// A hand-made world for tests and benchmarks: air everywhere inside its bounds unless set,
/// unloaded outside.
#[derive(Debug, Clone, Default)]
pub struct Grid {
    blocks: HashMap<BlockPos, BlockState>,
    pub min: [i32; 3],
    pub max: [i32; 3],
}

impl Grid {
    /// An empty (air) box from `min` to `max` inclusive.
    pub fn new(min: [i32; 3], max: [i32; 3]) -> Self {
        Self {
            blocks: HashMap::new(),
            min,
            max,
        }
    }

    pub fn set(&mut self, pos: impl Into<BlockPos>, block: BlockState) {
        self.blocks.insert(pos.into(), block);
    }

    /// Fills a box (inclusive) with one block.
    pub fn fill(&mut self, from: [i32; 3], to: [i32; 3], block: BlockState) {
        for x in from[0]..=to[0] {
            for y in from[1]..=to[1] {
                for z in from[2]..=to[2] {
                    self.set([x, y, z], block);
                }
            }
        }
    }

    /// A flat stone floor with its top at `y`, over the whole grid.
    pub fn floor(mut self, y: i32) -> Self {
        let (min, max) = (self.min, self.max);
        self.fill(
            [min[0], min[1], min[2]],
            [max[0], y, max[2]],
            BlockState::STONE,
        );
        self
    }
}

impl Voxels for Grid {
    fn block(&self, pos: BlockPos) -> Option<BlockState> {
        let inside = (0..3).all(|i| {
            let v = [pos.x, pos.y, pos.z][i];
            (self.min[i]..=self.max[i]).contains(&v)
        });
        inside.then(|| self.blocks.get(&pos).copied().unwrap_or(BlockState::AIR))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_door_stops_bodies_an_open_one_does_not() {
        let closed = BlockState::OAK_DOOR;
        assert!(is_solid(closed));
        assert!(!is_solid(closed.set(PropName::Open, PropValue::True)));
        let iron = BlockState::IRON_DOOR.set(PropName::Open, PropValue::True);
        assert!(!is_solid(iron), "open is open, iron or not");
    }

    #[test]
    fn standing_needs_ground_and_two_free_blocks() {
        let mut g = Grid::new([0, 0, 0], [4, 6, 4]).floor(0);
        assert!(g.standable(BlockPos::new(1, 1, 1)));
        assert!(!g.standable(BlockPos::new(1, 2, 1)), "nothing underneath");
        g.set([1, 2, 1], BlockState::STONE);
        assert!(!g.standable(BlockPos::new(1, 1, 1)), "no headroom");
        g.set([2, 1, 2], BlockState::WATER);
        assert!(g.standable(BlockPos::new(2, 1, 2)), "swimming");
        assert!(g.standable(BlockPos::new(3, 1, 3)));
        assert!(!g.standable(BlockPos::new(4, 1, 5)), "outside is unloaded");
        assert!(g.solid(BlockPos::new(9, 9, 9)));
        g.set([3, 1, 3], BlockState::GRASS);
        assert!(g.standable(BlockPos::new(3, 1, 3)), "plants do not block");
        g.set([3, 1, 3], BlockState::OAK_LEAVES);
        assert!(!g.standable(BlockPos::new(3, 1, 3)));
    }
}
