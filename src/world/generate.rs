//! Deterministic terrain for chunks the world folder does not have: rolling hills, lakes and
//! rivers, forests, cliffs with overhangs, and caves. Everything is a pure function of the seed
//! and the block position, so a chunk is identical whenever and wherever it is generated, and
//! trees that straddle a chunk border are whole on both sides.

use valence::layer::chunk::Chunk;
use valence::prelude::*;

use super::nav::NavChunk;
use super::noise::{Fractal2, Noise, Sampler2, Sampler3};
use super::surface::{surface, Surface};

/// Lowest block of the overworld.
pub const MIN_Y: i32 = -64;
/// Blocks from `MIN_Y` to the build limit.
pub const HEIGHT: u32 = 384;
/// Water fills open air up to this level.
pub const SEA_LEVEL: i32 = 62;

/// What fills the chunks the world folder does not have.
#[derive(Debug, Clone)]
pub enum Land {
    /// Horde's terrain of one seed.
    Terrain(Box<Terrain>),
    /// Vanilla's superflat: one block a layer, from the bottom of the world up.
    Flat(Vec<BlockState>),
}

impl Land {
    /// One chunk column, with its surface and walkability facts.
    pub fn generate(&self, pos: ChunkPos) -> Generated {
        match self {
            Land::Terrain(terrain) => terrain.generate(pos),
            Land::Flat(layers) => {
                let mut blocks = Blocks::new();
                for (y, &layer) in layers.iter().enumerate() {
                    for z in 0..16 {
                        for x in 0..16 {
                            blocks.set(x, y as u32, z, layer);
                        }
                    }
                }
                blocks.generated()
            }
        }
    }
}

/// The terrain of one seed.
#[derive(Debug, Clone)]
pub struct Terrain {
    hills: Noise,
    bumps: Noise,
    rivers: Noise,
    cliff_mask: Noise,
    cliffs: Noise,
    cave_a: Noise,
    cave_b: Noise,
    entrances: Noise,
    forests: Noise,
    scatter: Noise,
}

/// A generated chunk, with what the tick needs of it besides its blocks.
pub struct Generated {
    pub chunk: UnloadedChunk,
    /// Its top blocks, for the map.
    pub surface: Surface,
    /// Its walkability facts, for paths and bodies.
    pub nav: NavChunk,
}

/// The 2-D fields that shape columns, sampled across a chunk column by column.
struct Fields {
    hills: Fractal2,
    bumps: Sampler2,
    rivers: Fractal2,
    cliff_mask: Fractal2,
    entrances: Sampler2,
    forests: Fractal2,
}

/// What shapes one column.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// Height of the ground before cliffs and caves shape it.
    surface: i32,
    /// How strongly cliffs and overhangs shape it, `0.0..=1.0`.
    cliff: f64,
    /// Whether caves may open to the sky here.
    entrance: bool,
}

/// The 3-D fields that shape a column, sampled up it cell by cell.
struct Shapers {
    cliffs: Sampler3,
    cave_a: Sampler3,
    cave_b: Sampler3,
}

/// Height of a river bed; water stands above it up to `SEA_LEVEL`.
const RIVER_BED: i32 = 56;

/// Trees rooted this many blocks outside a chunk reach into it.
const TREE_REACH: i32 = 2;

/// A chunk's blocks as the generator lays them, in a plain array (`x`, then `z`, then `y`, as
/// in a section): trees, the surface and the walkability facts read them back far faster than
/// through the sections' palettes, and the sections are filled once at the end.
struct Blocks {
    blocks: Vec<BlockState>,
    /// Every block from this height up is air.
    air_from: u32,
}

impl Blocks {
    const SECTION: usize = 16 * 16 * 16;

    fn new() -> Self {
        Self {
            blocks: vec![BlockState::AIR; 16 * 16 * HEIGHT as usize],
            air_from: 0,
        }
    }

    fn index(x: u32, y: u32, z: u32) -> usize {
        ((y * 16 + z) * 16 + x) as usize
    }

    fn get(&self, x: u32, y: u32, z: u32) -> BlockState {
        self.blocks[Self::index(x, y, z)]
    }

    fn set(&mut self, x: u32, y: u32, z: u32, block: BlockState) {
        self.blocks[Self::index(x, y, z)] = block;
        if !block.is_air() {
            self.air_from = self.air_from.max(y + 1);
        }
    }

    /// The chunk as the tick takes it: its blocks, surface and walkability facts.
    fn generated(self) -> Generated {
        Generated {
            surface: self.surface(),
            nav: NavChunk::of(|x, y, z| self.get(x, y, z)),
            chunk: self.into_chunk(),
        }
    }

    /// The chunk's surface.
    fn surface(&self) -> Surface {
        surface(|x, y, z| self.get(x, y, z), self.air_from)
    }

    /// Valence's chunk of these blocks: each section is filled with its commonest block, and
    /// only the others are set one by one.
    fn into_chunk(self) -> UnloadedChunk {
        let mut chunk = UnloadedChunk::with_height(HEIGHT);
        let built = (self.air_from as usize).div_ceil(16) * Self::SECTION;
        for (s, section) in self.blocks[..built].chunks_exact(Self::SECTION).enumerate() {
            // Blocks come in runs along x: the count of the run's block is at hand.
            let mut counts: Vec<(BlockState, usize)> = Vec::new();
            let mut last = 0;
            for &block in section {
                if counts.get(last).is_none_or(|(b, _)| *b != block) {
                    last = match counts.iter().position(|(b, _)| *b == block) {
                        Some(i) => i,
                        None => {
                            counts.push((block, 0));
                            counts.len() - 1
                        }
                    };
                }
                counts[last].1 += 1;
            }
            let Some(&(common, _)) = counts.iter().max_by_key(|(_, n)| *n) else {
                continue;
            };
            chunk.fill_block_state_section(s as u32, common);
            for (i, &block) in section.iter().enumerate() {
                if block != common {
                    let (x, z, y) = (i % 16, i / 16 % 16, s * 16 + i / 256);
                    chunk.set_block_state(x as u32, y as u32, z as u32, block);
                }
            }
        }
        chunk
    }
}

impl Terrain {
    pub fn new(seed: i64) -> Self {
        Self {
            hills: Noise::new(seed, 1),
            bumps: Noise::new(seed, 2),
            rivers: Noise::new(seed, 3),
            cliff_mask: Noise::new(seed, 4),
            cliffs: Noise::new(seed, 5),
            cave_a: Noise::new(seed, 6),
            cave_b: Noise::new(seed, 7),
            entrances: Noise::new(seed, 8),
            forests: Noise::new(seed, 9),
            scatter: Noise::new(seed, 10),
        }
    }

    fn fields(&self) -> Fields {
        Fields {
            hills: self.hills.fractal2(4),
            bumps: self.bumps.sampler2(),
            rivers: self.rivers.fractal2(2),
            cliff_mask: self.cliff_mask.fractal2(2),
            entrances: self.entrances.sampler2(),
            forests: self.forests.fractal2(2),
        }
    }

    fn shape(fields: &mut Fields, x: i32, z: i32) -> Shape {
        let (fx, fz) = (x as f64, z as f64);
        let mut h = 67.0
            + 15.0 * fields.hills.at(fx / 220.0, fz / 220.0)
            + 2.5 * fields.bumps.at(fx / 31.0, fz / 31.0);
        let river = fields.rivers.at(fx / 480.0, fz / 480.0).abs();
        if river < 0.05 && h > RIVER_BED as f64 {
            let t = river / 0.05;
            let bank = t * t * (3.0 - 2.0 * t);
            h = RIVER_BED as f64 + (h - RIVER_BED as f64) * bank;
        }
        let mask = fields.cliff_mask.at(fx / 150.0, fz / 150.0);
        Shape {
            surface: h.round() as i32,
            cliff: ((mask - 0.2) / 0.2).clamp(0.0, 1.0),
            entrance: fields.entrances.at(fx / 40.0, fz / 40.0) > 0.45,
        }
    }

    fn shapers(&self) -> Shapers {
        Shapers {
            cliffs: self.cliffs.sampler3(),
            cave_a: self.cave_a.sampler3(),
            cave_b: self.cave_b.sampler3(),
        }
    }

    /// Whether the block is solid ground (before surface blocks are chosen).
    fn is_ground(shapers: &mut Shapers, x: i32, y: i32, z: i32, shape: Shape) -> bool {
        let Shape {
            surface,
            cliff,
            entrance,
        } = shape;
        if y == MIN_Y {
            return true;
        }
        let mut solid = y <= surface;
        if cliff > 0.0 && (surface - 12..=surface + 12).contains(&y) {
            let wobble = shapers
                .cliffs
                .at(x as f64 / 14.0, y as f64 / 9.0, z as f64 / 14.0);
            solid = (surface - y) as f64 + 14.0 * cliff * wobble > 0.0;
        }
        let cave_top = if entrance && surface > SEA_LEVEL {
            surface
        } else {
            surface - 5
        };
        if solid && y > MIN_Y + 4 && y <= cave_top {
            let (fx, fy, fz) = (x as f64 / 40.0, y as f64 / 24.0, z as f64 / 40.0);
            solid = shapers.cave_a.at(fx, fy, fz).abs() > 0.08
                || shapers.cave_b.at(fx + 31.7, fy, fz - 11.3).abs() > 0.08;
        }
        solid
    }

    /// The trunk height of a tree rooted on this column's ground, if one grows there.
    fn tree_at(&self, fields: &mut Fields, x: i32, z: i32, shape: Shape) -> Option<i32> {
        if shape.surface <= SEA_LEVEL || shape.cliff > 0.0 || shape.entrance {
            return None;
        }
        let forest = fields
            .forests
            .at(x as f64 / 180.0, z as f64 / 180.0)
            .max(0.0);
        let density = 0.002 + 0.09 * forest;
        (self.scatter.unit(x as i64, 1, z as i64) < density)
            .then(|| 4 + (self.scatter.unit(x as i64, 2, z as i64) * 3.0) as i32)
    }

    /// Generates one chunk column, with its surface and walkability facts.
    pub fn generate(&self, pos: ChunkPos) -> Generated {
        let mut blocks = Blocks::new();
        let (x0, z0) = (pos.x * 16, pos.z * 16);
        // The shapes of the chunk's columns and of those its trees may grow from.
        let width = 16 + 2 * TREE_REACH;
        let mut fields = self.fields();
        let shapes: Vec<Shape> = (0..width * width)
            .map(|i| {
                let (x, z) = (x0 - TREE_REACH + i % width, z0 - TREE_REACH + i / width);
                Self::shape(&mut fields, x, z)
            })
            .collect();
        let shape_at =
            |x: i32, z: i32| shapes[((z - z0 + TREE_REACH) * width + x - x0 + TREE_REACH) as usize];
        let mut column = Vec::with_capacity(HEIGHT as usize);
        let mut shapers = self.shapers();
        for lz in 0..16 {
            for lx in 0..16 {
                let (x, z) = (x0 + lx, z0 + lz);
                self.fill_column(&mut blocks, &mut column, &mut shapers, x, z, shape_at(x, z));
            }
        }
        for z in z0 - TREE_REACH..z0 + 16 + TREE_REACH {
            for x in x0 - TREE_REACH..x0 + 16 + TREE_REACH {
                let shape = shape_at(x, z);
                if let Some(trunk) = self.tree_at(&mut fields, x, z, shape) {
                    self.place_tree(&mut blocks, pos, x, shape.surface + 1, z, trunk);
                }
            }
        }
        blocks.generated()
    }

    fn fill_column(
        &self,
        blocks: &mut Blocks,
        column: &mut Vec<bool>,
        shapers: &mut Shapers,
        x: i32,
        z: i32,
        shape: Shape,
    ) {
        let surface = shape.surface;
        let top = surface.max(SEA_LEVEL) + 13;
        column.clear();
        column.extend((MIN_Y..=top).map(|y| Self::is_ground(shapers, x, y, z, shape)));

        let (lx, lz) = (x.rem_euclid(16) as u32, z.rem_euclid(16) as u32);
        let mut sky_open = true;
        let mut depth = 0;
        for y in (MIN_Y..=top).rev() {
            let solid = column[(y - MIN_Y) as usize];
            let block = if !solid {
                depth = 0;
                if sky_open && y <= SEA_LEVEL {
                    BlockState::WATER
                } else {
                    continue;
                }
            } else {
                let was_open = sky_open;
                sky_open = false;
                depth += 1;
                if y == MIN_Y {
                    BlockState::BEDROCK
                } else if depth == 1 && was_open && y >= SEA_LEVEL {
                    if y <= SEA_LEVEL + 1 && surface <= SEA_LEVEL + 1 {
                        BlockState::SAND
                    } else {
                        BlockState::GRASS_BLOCK
                    }
                } else if depth <= 3 && y >= SEA_LEVEL - 8 {
                    if surface <= SEA_LEVEL + 1 {
                        BlockState::SAND
                    } else {
                        BlockState::DIRT
                    }
                } else if depth <= 2 {
                    BlockState::GRAVEL
                } else if y < 0 {
                    BlockState::DEEPSLATE
                } else {
                    BlockState::STONE
                }
            };
            blocks.set(lx, (y - MIN_Y) as u32, lz, block);
            if block == BlockState::GRASS_BLOCK
                && self.scatter.unit(x as i64, 3, z as i64) < 0.12
                && (y + 1 - MIN_Y) < HEIGHT as i32
            {
                blocks.set(lx, (y + 1 - MIN_Y) as u32, lz, BlockState::GRASS);
            }
        }
    }

    /// Places the parts of an oak rooted at `(x, base, z)` that fall inside chunk `pos`.
    fn place_tree(
        &self,
        blocks: &mut Blocks,
        pos: ChunkPos,
        x: i32,
        base: i32,
        z: i32,
        trunk: i32,
    ) {
        let leaves = BlockState::OAK_LEAVES.set(PropName::Persistent, PropValue::True);
        let mut put = |bx: i32, by: i32, bz: i32, block: BlockState, overwrite: bool| {
            if bx.div_euclid(16) != pos.x || bz.div_euclid(16) != pos.z {
                return;
            }
            let ly = by - MIN_Y;
            if !(0..HEIGHT as i32).contains(&ly) {
                return;
            }
            let (lx, lz) = (bx.rem_euclid(16) as u32, bz.rem_euclid(16) as u32);
            let old = blocks.get(lx, ly as u32, lz);
            if overwrite || old.is_air() || old == BlockState::GRASS {
                blocks.set(lx, ly as u32, lz, block);
            }
        };
        for dy in trunk - 2..=trunk + 1 {
            let radius: i32 = if dy < trunk { 2 } else { 1 };
            for dz in -radius..=radius {
                for dx in -radius..=radius {
                    let corner = dx.abs() == radius && dz.abs() == radius;
                    let trimmed = corner
                        && (dy >= trunk
                            || self.scatter.unit(
                                (x + dx) as i64,
                                (base + dy) as i64,
                                (z + dz) as i64,
                            ) < 0.5);
                    if !trimmed {
                        put(x + dx, base + dy, z + dz, leaves, false);
                    }
                }
            }
        }
        for dy in 0..trunk {
            put(x, base + dy, z, BlockState::OAK_LOG, true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(chunk: &UnloadedChunk) -> Vec<BlockState> {
        let mut out = Vec::new();
        for y in 0..HEIGHT {
            for z in 0..16 {
                for x in 0..16 {
                    out.push(chunk.block_state(x, y, z));
                }
            }
        }
        out
    }

    #[test]
    fn same_seed_same_chunk_different_seed_different_chunk() {
        let pos = ChunkPos::new(3, -7);
        let a = blocks(&Terrain::new(1).generate(pos).chunk);
        let b = blocks(&Terrain::new(1).generate(pos).chunk);
        let c = blocks(&Terrain::new(2).generate(pos).chunk);
        assert!(a == b, "same seed must give the same blocks");
        assert!(a != c, "another seed must give other blocks");
    }

    /// Players' edits are saved, and the rest of the world is generated again whenever it
    /// loads: a generator that made other blocks than it used to would shift the land under
    /// saved chunks and leave seams. A digest of chunks over a thousand blocks square of the
    /// shipped seed (hills, lakes, rivers, forests, cliffs, caves): any change to how the
    /// generator works must leave it as it is.
    #[test]
    fn the_shipped_seed_makes_the_land_it_always_made() {
        let terrain = Terrain::new(20_230_612);
        // FNV-1a over the blocks' raw states.
        let mut digest: u64 = 0xcbf2_9ce4_8422_2325;
        for cz in -4..4 {
            for cx in -4..4 {
                for block in blocks(&terrain.generate(ChunkPos::new(cx * 8, cz * 8)).chunk) {
                    for byte in block.to_raw().to_le_bytes() {
                        digest = (digest ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
                    }
                }
            }
        }
        assert_eq!(digest, 0x5ee4_4129_c296_8642, "{digest:#018x}");
    }

    #[test]
    fn a_chunks_surface_and_facts_are_those_of_its_blocks() {
        let terrain = Terrain::new(20_230_612);
        for cz in -2..2 {
            for cx in -2..2 {
                let made = terrain.generate(ChunkPos::new(cx * 13, cz * 13));
                let block = |x, y, z| made.chunk.block_state(x, y, z);
                assert!(made.surface == surface(block, HEIGHT), "{cx} {cz}");
                assert!(made.nav == NavChunk::of(block), "{cx} {cz}");
            }
        }
    }

    #[test]
    fn generation_order_does_not_matter() {
        let terrain = Terrain::new(99);
        let first = blocks(&terrain.generate(ChunkPos::new(0, 0)).chunk);
        for x in -3..3 {
            terrain.generate(ChunkPos::new(x, 5));
        }
        assert!(first == blocks(&terrain.generate(ChunkPos::new(0, 0)).chunk));
    }

    #[test]
    fn bedrock_floor_and_solid_ground_under_every_column() {
        let chunk = Terrain::new(5).generate(ChunkPos::new(0, 0)).chunk;
        for z in 0..16 {
            for x in 0..16 {
                assert_eq!(chunk.block_state(x, 0, z), BlockState::BEDROCK);
                let top = (0..HEIGHT)
                    .rev()
                    .find(|&y| !chunk.block_state(x, y, z).is_air())
                    .unwrap();
                assert!(top as i32 + MIN_Y > 30, "column {x},{z} is a hole");
            }
        }
    }

    /// Over a wide area, the terrain has what zombies must cope with.
    #[test]
    fn a_region_has_hills_water_trees_caves_and_overhangs() {
        let terrain = Terrain::new(20_230_612);
        let (mut water, mut logs, mut caves, mut overhangs) = (0, 0, 0, 0);
        let (mut lowest, mut highest) = (i32::MAX, i32::MIN);
        for cz in -8..8 {
            for cx in -8..8 {
                let chunk = terrain.generate(ChunkPos::new(cx * 4, cz * 4)).chunk;
                for z in 0..16 {
                    for x in 0..16 {
                        let mut air_above_ground = false;
                        let mut seen_ground = false;
                        for y in (1..HEIGHT).rev() {
                            let b = chunk.block_state(x, y, z);
                            match b {
                                BlockState::WATER => water += 1,
                                BlockState::OAK_LOG => logs += 1,
                                _ => {}
                            }
                            let solid = !b.is_air() && !b.is_liquid() && b != BlockState::GRASS;
                            if solid && !seen_ground {
                                seen_ground = true;
                                let y = y as i32 + MIN_Y;
                                lowest = lowest.min(y);
                                highest = highest.max(y);
                            } else if seen_ground && b.is_air() {
                                air_above_ground = true;
                                if (y as i32 + MIN_Y) < 40 {
                                    caves += 1;
                                }
                            } else if air_above_ground && solid && (y as i32 + MIN_Y) > 50 {
                                overhangs += 1;
                                air_above_ground = false;
                            }
                        }
                    }
                }
            }
        }
        assert!(highest - lowest >= 20, "too flat: {lowest}..{highest}");
        assert!(water > 1000, "water blocks: {water}");
        assert!(logs > 50, "log blocks: {logs}");
        assert!(caves > 1000, "cave air blocks: {caves}");
        assert!(overhangs > 20, "overhangs: {overhangs}");
    }
}
