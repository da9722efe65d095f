//! The four heightmaps vanilla keeps in a saved chunk (`Heightmaps`), computed from its blocks
//! as vanilla's `Heightmap.Types` define them, so that a chunk horde wrote is whole for map
//! renderers and editors, and for vanilla itself.

use valence::layer::chunk::Chunk;
use valence::nbt::{Compound, Value};
use valence::prelude::*;

use crate::world::HEIGHT;

/// Vanilla's saved heightmaps (1.20.1 `Heightmap.Types` whose usage is not world generation
/// only), by the predicate a block must meet to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heightmap {
    /// Any block but air.
    WorldSurface,
    /// Blocks that stop motion, and any fluid.
    MotionBlocking,
    /// As `MotionBlocking`, leaves aside.
    MotionBlockingNoLeaves,
    /// Blocks that stop motion.
    OceanFloor,
}

impl Heightmap {
    pub const SAVED: [Heightmap; 4] = [
        Heightmap::WorldSurface,
        Heightmap::MotionBlocking,
        Heightmap::MotionBlockingNoLeaves,
        Heightmap::OceanFloor,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Heightmap::WorldSurface => "WORLD_SURFACE",
            Heightmap::MotionBlocking => "MOTION_BLOCKING",
            Heightmap::MotionBlockingNoLeaves => "MOTION_BLOCKING_NO_LEAVES",
            Heightmap::OceanFloor => "OCEAN_FLOOR",
        }
    }

    /// Whether `state` counts for this heightmap.
    pub fn counts(self, state: BlockState) -> bool {
        match self {
            Heightmap::WorldSurface => !state.is_air(),
            Heightmap::MotionBlocking => blocks_motion(state) || has_fluid(state),
            Heightmap::MotionBlockingNoLeaves => {
                (blocks_motion(state) || has_fluid(state)) && !is_leaves(state)
            }
            Heightmap::OceanFloor => blocks_motion(state),
        }
    }
}

/// Vanilla's `BlockBehaviour.blocksMotion`: a solid block, cobwebs and bamboo saplings aside.
/// Solid is vanilla's `calculateSolid`: what a block's properties force (`forceSolidOn` and
/// `forceSolidOff` in 1.20.1's `Blocks`), else a collision box whose mean side is at least
/// 0.7292 of a block, or a block high.
pub fn blocks_motion(state: BlockState) -> bool {
    let kind = state.to_kind();
    if matches!(kind, BlockKind::Cobweb | BlockKind::BambooSapling) {
        return false;
    }
    if let Some(solid) = forced_solid(kind.to_str()) {
        return solid;
    }
    let mut shapes = state.collision_shapes();
    let Some(first) = shapes.next() else {
        return false;
    };
    let (mut min, mut max) = (first.min(), first.max());
    for shape in shapes {
        min = min.min(shape.min());
        max = max.max(shape.max());
    }
    let size = max - min;
    (size.x + size.y + size.z) / 3.0 >= 0.729_166_666_666_666_6 || size.y >= 1.0
}

/// The blocks whose properties force them solid or not in 1.20.1's `Blocks` (by name, and by
/// the families every member of which does).
fn forced_solid(name: &str) -> Option<bool> {
    const OFF: [&str; 8] = [
        "ladder",
        "snow",
        "end_rod",
        "chorus_plant",
        "chorus_flower",
        "azalea",
        "flowering_azalea",
        "big_dripleaf",
    ];
    const ON: [&str; 19] = [
        "moving_piston",
        "oak_fence",
        "cake",
        "chain",
        "turtle_egg",
        "conduit",
        "bamboo",
        "bell",
        "lantern",
        "soul_lantern",
        "amethyst_cluster",
        "large_amethyst_bud",
        "medium_amethyst_bud",
        "small_amethyst_bud",
        "sculk_vein",
        "lightning_rod",
        "pointed_dripstone",
        "decorated_pot",
        "shulker_box",
    ];
    const ON_FAMILIES: [&str; 7] = [
        "_sign",
        "_pressure_plate",
        "_banner",
        "_shulker_box",
        "candle_cake",
        "_fence_gate",
        "_wall",
    ];
    if OFF.contains(&name) {
        Some(false)
    } else if ON.contains(&name)
        || ON_FAMILIES.iter().any(|f| name.ends_with(f))
        || (name.starts_with("dead_") && name.contains("coral"))
    {
        Some(true)
    } else {
        None
    }
}

/// Whether the block holds a fluid: water or lava, a waterlogged block, or the underwater
/// plants and bubble columns that are water to vanilla.
fn has_fluid(state: BlockState) -> bool {
    state.is_liquid()
        || state.get(PropName::Waterlogged) == Some(PropValue::True)
        || matches!(
            state.to_kind(),
            BlockKind::Kelp
                | BlockKind::KelpPlant
                | BlockKind::Seagrass
                | BlockKind::TallSeagrass
                | BlockKind::BubbleColumn
        )
}

/// Vanilla's `LeavesBlock`s: every kind of leaves, azalea leaves among them.
fn is_leaves(state: BlockState) -> bool {
    state.to_kind().to_str().ends_with("_leaves")
}

/// Bits of one entry: heights from 0 (nothing counts) to the world's height.
fn entry_bits() -> u32 {
    u32::BITS - HEIGHT.leading_zeros()
}

/// Each column's height for `map` (one above its highest counting block, from the bottom of
/// the world; 0 for none), in vanilla's order `x + 16 * z`.
pub fn heights(chunk: &impl Chunk, map: Heightmap) -> [u32; 256] {
    let i = Heightmap::SAVED.iter().position(|m| *m == map).unwrap_or(0);
    all_heights(chunk)[i]
}

/// The four heightmaps at once, in [`Heightmap::SAVED`]'s order: one walk down each column
/// from the top, ending at the block that completes the last of them.
fn all_heights(chunk: &impl Chunk) -> [[u32; 256]; 4] {
    let mut out = [[0; 256]; 4];
    for z in 0..16 {
        for x in 0..16 {
            let column = (x + 16 * z) as usize;
            let mut missing = 0b1111u8;
            for y in (0..HEIGHT).rev() {
                let found = counts_for(chunk.block_state(x, y, z)) & missing;
                if found == 0 {
                    continue;
                }
                for (m, heights) in out.iter_mut().enumerate() {
                    if found & (1 << m) != 0 {
                        heights[column] = y + 1;
                    }
                }
                missing &= !found;
                if missing == 0 {
                    break;
                }
            }
        }
    }
    out
}

/// The heightmaps a block counts for, one bit each in [`Heightmap::SAVED`]'s order: worked
/// out once per block state (collision shapes are slow to walk).
fn counts_for(state: BlockState) -> u8 {
    static TABLE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..=u16::MAX)
            .map_while(BlockState::from_raw)
            .map(|s| {
                Heightmap::SAVED
                    .iter()
                    .enumerate()
                    .fold(0, |bits, (i, m)| bits | u8::from(m.counts(s)) << i)
            })
            .collect()
    });
    table[state.to_raw() as usize]
}

/// Packs heights as vanilla's `SimpleBitStorage` does: no entry spans two longs.
pub fn pack(heights: &[u32; 256]) -> Vec<i64> {
    let bits = entry_bits();
    let per_long = (64 / bits) as usize;
    heights
        .chunks(per_long)
        .map(|group| {
            group
                .iter()
                .enumerate()
                .fold(0u64, |word, (i, &h)| word | (h as u64) << (i as u32 * bits))
                as i64
        })
        .collect()
}

/// The inverse of [`pack`].
pub fn unpack(data: &[i64]) -> Option<[u32; 256]> {
    let bits = entry_bits();
    let per_long = (64 / bits) as usize;
    if data.len() != 256usize.div_ceil(per_long) {
        return None;
    }
    let mask = (1u64 << bits) - 1;
    let mut out = [0; 256];
    for (i, h) in out.iter_mut().enumerate() {
        let word = data[i / per_long] as u64;
        *h = ((word >> ((i % per_long) as u32 * bits)) & mask) as u32;
    }
    Some(out)
}

/// The chunk's `Heightmaps` compound.
pub fn encode(chunk: &impl Chunk) -> Compound {
    let mut maps = Compound::new();
    for (map, heights) in Heightmap::SAVED.iter().zip(all_heights(chunk)) {
        maps.insert(map.key(), Value::LongArray(pack(&heights)));
    }
    maps
}

#[cfg(test)]
mod tests {
    use super::*;
    use valence::layer::chunk::UnloadedChunk;

    #[test]
    fn what_counts_for_each_heightmap() {
        let water = BlockState::WATER;
        let leaves = BlockState::OAK_LEAVES;
        let grass = BlockState::GRASS;
        let slab = BlockState::OAK_SLAB;
        let logged = BlockState::OAK_SLAB.set(PropName::Waterlogged, PropValue::True);
        let cases = [
            (BlockState::STONE, [true, true, true, true]),
            (water, [true, true, true, false]),
            (leaves, [true, true, false, true]),
            (grass, [true, false, false, false]),
            (BlockState::COBWEB, [true, false, false, false]),
            (slab, [true, true, true, true]),
            (logged, [true, true, true, true]),
            (BlockState::KELP, [true, true, true, false]),
            (BlockState::TORCH, [true, false, false, false]),
            (BlockState::AIR, [false, false, false, false]),
        ];
        for (state, expected) in cases {
            let got = Heightmap::SAVED.map(|m| m.counts(state));
            assert_eq!(got, expected, "{state:?}");
        }
        assert!(
            blocks_motion(BlockState::SPRUCE_FENCE),
            "a fence is 1.5 high"
        );
        assert!(blocks_motion(BlockState::OAK_SIGN), "forced solid");
        assert!(blocks_motion(BlockState::COBBLESTONE_WALL));
        assert!(
            !blocks_motion(BlockState::LADDER),
            "forced not solid, though a block high"
        );
        assert!(!blocks_motion(BlockState::SNOW), "a snow layer, forced");
        assert!(!blocks_motion(BlockState::OAK_BUTTON), "too small");
        assert!(!blocks_motion(BlockState::REDSTONE_WIRE), "no collision");
    }

    #[test]
    fn heights_pack_as_vanilla_nine_bits_seven_a_long() {
        let mut chunk = UnloadedChunk::with_height(HEIGHT);
        chunk.set_block_state(3, 70, 2, BlockState::STONE);
        chunk.set_block_state(3, 75, 2, BlockState::OAK_LEAVES);
        chunk.set_block_state(0, HEIGHT - 1, 0, BlockState::GLASS);
        let surface = heights(&chunk, Heightmap::WorldSurface);
        assert_eq!(surface[3 + 16 * 2], 76);
        assert_eq!(
            heights(&chunk, Heightmap::MotionBlockingNoLeaves)[3 + 32],
            71
        );
        assert_eq!(surface[0], HEIGHT, "the top block counts");
        assert_eq!(surface[1], 0, "an empty column");
        let data = pack(&surface);
        assert_eq!(data.len(), 37);
        assert_eq!(unpack(&data), Some(surface));
        let maps = encode(&chunk);
        assert_eq!(maps.len(), 4);
    }
}
