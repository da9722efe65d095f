//! Deterministic terrain for chunks the world folder does not have: rolling hills, lakes and
//! rivers, forests, cliffs with overhangs, and caves. Everything is a pure function of the seed
//! and the block position, so a chunk is identical whenever and wherever it is generated, and
//! trees that straddle a chunk border are whole on both sides.

use valence::prelude::*;

use super::noise::{Noise, Sampler3};

/// Lowest block of the overworld.
pub const MIN_Y: i32 = -64;
/// Blocks from `MIN_Y` to the build limit.
pub const HEIGHT: u32 = 384;
/// Water fills open air up to this level.
pub const SEA_LEVEL: i32 = 62;

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

/// The 3-D fields that shape a column, sampled up it cell by cell.
struct Shapers {
    cliffs: Sampler3,
    cave_a: Sampler3,
    cave_b: Sampler3,
}

/// Height of a river bed; water stands above it up to `SEA_LEVEL`.
const RIVER_BED: i32 = 56;

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

    /// Height of the ground before cliffs and caves shape it.
    pub fn surface(&self, x: i32, z: i32) -> i32 {
        let (fx, fz) = (x as f64, z as f64);
        let mut h = 67.0
            + 15.0 * self.hills.fractal2(fx / 220.0, fz / 220.0, 4)
            + 2.5 * self.bumps.at2(fx / 31.0, fz / 31.0);
        let river = self.rivers.fractal2(fx / 480.0, fz / 480.0, 2).abs();
        if river < 0.05 && h > RIVER_BED as f64 {
            let t = river / 0.05;
            let bank = t * t * (3.0 - 2.0 * t);
            h = RIVER_BED as f64 + (h - RIVER_BED as f64) * bank;
        }
        h.round() as i32
    }

    /// How strongly cliffs and overhangs shape this column, `0.0..=1.0`.
    fn cliffiness(&self, x: i32, z: i32) -> f64 {
        let m = self
            .cliff_mask
            .fractal2(x as f64 / 150.0, z as f64 / 150.0, 2);
        ((m - 0.2) / 0.2).clamp(0.0, 1.0)
    }

    /// Whether caves may open to the sky in this column.
    fn has_entrance(&self, x: i32, z: i32) -> bool {
        self.entrances.at2(x as f64 / 40.0, z as f64 / 40.0) > 0.45
    }

    fn shapers(&self) -> Shapers {
        Shapers {
            cliffs: self.cliffs.sampler3(),
            cave_a: self.cave_a.sampler3(),
            cave_b: self.cave_b.sampler3(),
        }
    }

    /// Whether the block is solid ground (before surface blocks are chosen).
    fn is_ground(
        shapers: &mut Shapers,
        x: i32,
        y: i32,
        z: i32,
        surface: i32,
        cliff: f64,
        entrance: bool,
    ) -> bool {
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
    fn tree_at(&self, x: i32, z: i32) -> Option<i32> {
        let surface = self.surface(x, z);
        if surface <= SEA_LEVEL || self.cliffiness(x, z) > 0.0 || self.has_entrance(x, z) {
            return None;
        }
        let forest = self
            .forests
            .fractal2(x as f64 / 180.0, z as f64 / 180.0, 2)
            .max(0.0);
        let density = 0.002 + 0.09 * forest;
        (self.scatter.unit(x as i64, 1, z as i64) < density)
            .then(|| 4 + (self.scatter.unit(x as i64, 2, z as i64) * 3.0) as i32)
    }

    /// Generates one chunk column.
    pub fn generate(&self, pos: ChunkPos) -> UnloadedChunk {
        let mut chunk = UnloadedChunk::with_height(HEIGHT);
        let (x0, z0) = (pos.x * 16, pos.z * 16);
        let mut column = Vec::with_capacity(HEIGHT as usize);
        let mut shapers = self.shapers();
        for lz in 0..16 {
            for lx in 0..16 {
                let (x, z) = (x0 + lx, z0 + lz);
                self.fill_column(&mut chunk, &mut column, &mut shapers, x, z);
            }
        }
        for z in z0 - 2..z0 + 18 {
            for x in x0 - 2..x0 + 18 {
                if let Some(trunk) = self.tree_at(x, z) {
                    self.place_tree(&mut chunk, pos, x, self.surface(x, z) + 1, z, trunk);
                }
            }
        }
        chunk
    }

    fn fill_column(
        &self,
        chunk: &mut UnloadedChunk,
        column: &mut Vec<bool>,
        shapers: &mut Shapers,
        x: i32,
        z: i32,
    ) {
        let surface = self.surface(x, z);
        let cliff = self.cliffiness(x, z);
        let entrance = self.has_entrance(x, z);
        let top = surface.max(SEA_LEVEL) + 13;
        column.clear();
        column.extend(
            (MIN_Y..=top).map(|y| Self::is_ground(shapers, x, y, z, surface, cliff, entrance)),
        );

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
            chunk.set_block_state(lx, (y - MIN_Y) as u32, lz, block);
            if block == BlockState::GRASS_BLOCK
                && self.scatter.unit(x as i64, 3, z as i64) < 0.12
                && (y + 1 - MIN_Y) < HEIGHT as i32
            {
                chunk.set_block_state(lx, (y + 1 - MIN_Y) as u32, lz, BlockState::GRASS);
            }
        }
    }

    /// Places the parts of an oak rooted at `(x, base, z)` that fall inside chunk `pos`.
    fn place_tree(
        &self,
        chunk: &mut UnloadedChunk,
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
            let old = chunk.block_state(lx, ly as u32, lz);
            if overwrite || old.is_air() || old == BlockState::GRASS {
                chunk.set_block_state(lx, ly as u32, lz, block);
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
        let a = blocks(&Terrain::new(1).generate(pos));
        let b = blocks(&Terrain::new(1).generate(pos));
        let c = blocks(&Terrain::new(2).generate(pos));
        assert!(a == b, "same seed must give the same blocks");
        assert!(a != c, "another seed must give other blocks");
    }

    #[test]
    fn generation_order_does_not_matter() {
        let terrain = Terrain::new(99);
        let first = blocks(&terrain.generate(ChunkPos::new(0, 0)));
        for x in -3..3 {
            terrain.generate(ChunkPos::new(x, 5));
        }
        assert!(first == blocks(&terrain.generate(ChunkPos::new(0, 0))));
    }

    #[test]
    fn bedrock_floor_and_solid_ground_under_every_column() {
        let chunk = Terrain::new(5).generate(ChunkPos::new(0, 0));
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
                let chunk = terrain.generate(ChunkPos::new(cx * 4, cz * 4));
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
