//! The engine against hand-made worlds, and against a plain reference: light computed by
//! relaxing every block until nothing changes, which is the fixed point by definition.

use rand::{Rng, SeedableRng};
use rustc_hash::FxHashMap;
use valence::prelude::*;

use super::engine::stops_the_sky;
use super::*;
use crate::blocks::{light_facts, LightFacts, DIRECTIONS};

/// Chunks of blocks in memory, each with its light.
#[derive(Default)]
struct World {
    blocks: FxHashMap<[i32; 3], BlockState>,
    light: FxHashMap<ChunkPos, ChunkLight>,
}

impl World {
    fn block(&self, x: i32, y: i32, z: i32) -> BlockState {
        self.blocks
            .get(&[x, y, z])
            .copied()
            .unwrap_or(BlockState::AIR)
    }

    /// Lights chunk `pos` from its blocks and joins it to those loaded.
    fn load(&mut self, pos: ChunkPos) {
        let light = light_chunk(|x, y, z| {
            self.block(
                pos.x * 16 + x as i32,
                y as i32 + MIN_Y,
                pos.z * 16 + z as i32,
            )
        });
        self.light.insert(pos, light);
        join(self, pos);
    }

    fn set(&mut self, at: [i32; 3], block: BlockState) {
        self.blocks.insert(at, block);
        relight(self, [at]);
    }

    fn sky(&self, x: i32, y: i32, z: i32) -> u8 {
        self.level(Kind::Sky, x, y, z)
    }

    fn block_light(&self, x: i32, y: i32, z: i32) -> u8 {
        self.level(Kind::Block, x, y, z)
    }

    fn level(&self, kind: Kind, x: i32, y: i32, z: i32) -> u8 {
        self.light[&ChunkPos::new(x >> 4, z >> 4)].get(kind, (x & 15) as u32, y, (z & 15) as u32)
    }
}

impl Access for World {
    fn facts(&mut self, x: i32, y: i32, z: i32) -> Option<LightFacts> {
        self.light
            .contains_key(&ChunkPos::new(x >> 4, z >> 4))
            .then(|| light_facts(self.block(x, y, z)))
    }

    fn chunk(&mut self, cx: i32, cz: i32) -> Option<&mut ChunkLight> {
        self.light.get_mut(&ChunkPos::new(cx, cz))
    }

    fn chunk_ref(&self, cx: i32, cz: i32) -> Option<&ChunkLight> {
        self.light.get(&ChunkPos::new(cx, cz))
    }
}

/// A floor of stone at y 0 under chunks `0..n` by `0..n`, nothing else.
fn floored(n: i32) -> World {
    let mut world = World::default();
    for x in 0..16 * n {
        for z in 0..16 * n {
            world.blocks.insert([x, 0, z], BlockState::STONE);
        }
    }
    world
}

fn load_all(world: &mut World, n: i32) {
    for cx in 0..n {
        for cz in 0..n {
            world.load(ChunkPos::new(cx, cz));
        }
    }
}

/// A closed box of stone, its inside from `min` to `max`.
fn stone_box(world: &mut World, min: [i32; 3], max: [i32; 3]) {
    for x in min[0] - 1..=max[0] + 1 {
        for y in min[1] - 1..=max[1] + 1 {
            for z in min[2] - 1..=max[2] + 1 {
                let inside = (min[0]..=max[0]).contains(&x)
                    && (min[1]..=max[1]).contains(&y)
                    && (min[2]..=max[2]).contains(&z);
                if !inside {
                    world.blocks.insert([x, y, z], BlockState::STONE);
                }
            }
        }
    }
}

#[test]
fn the_sky_falls_straight_and_fades_sideways() {
    let mut world = floored(1);
    // A roof of stone over x 0..8, open to the east.
    for x in 0..8 {
        for z in 0..16 {
            world.blocks.insert([x, 5, z], BlockState::STONE);
        }
    }
    world.blocks.insert([10, 3, 10], BlockState::GLASS);
    world.blocks.insert([12, 3, 12], BlockState::OAK_LEAVES);
    load_all(&mut world, 1);
    assert_eq!(world.sky(12, 100, 12), 15);
    assert_eq!(world.sky(12, 1, 3), 15, "open ground");
    assert_eq!(world.sky(10, 2, 10), 15, "under glass");
    assert_eq!(world.sky(12, 3, 12), 14, "in leaves");
    assert_eq!(world.sky(12, 2, 12), 14, "under leaves, from the side");
    assert_eq!(world.sky(12, 0, 3), 0, "in stone");
    assert_eq!(world.sky(3, 5, 3), 0, "in the roof");
    // Under the roof the light falls off a level a block in from its edge.
    assert_eq!(world.sky(7, 1, 8), 14);
    assert_eq!(world.sky(6, 1, 8), 13);
    assert_eq!(world.sky(0, 1, 8), 7);
    assert_eq!(world.block_light(12, 1, 3), 0);
}

#[test]
fn a_torch_lights_its_room_and_leaves_it_dark_when_dug() {
    let mut world = floored(1);
    stone_box(&mut world, [2, 2, 2], [12, 4, 12]);
    load_all(&mut world, 1);
    assert_eq!((world.sky(5, 3, 5), world.block_light(5, 3, 5)), (0, 0));
    world.set([2, 2, 2], BlockState::TORCH);
    assert_eq!(world.block_light(2, 2, 2), 14);
    assert_eq!(world.block_light(3, 2, 2), 13);
    assert_eq!(world.block_light(4, 2, 2), 12);
    assert_eq!(world.block_light(4, 3, 3), 10);
    assert_eq!(world.block_light(1, 2, 2), 0, "in the wall");
    world.set([2, 2, 2], BlockState::AIR);
    for x in 2..=12 {
        assert_eq!(world.block_light(x, 2, 2), 0);
    }
}

#[test]
fn withdrawn_light_leaves_what_other_sources_give() {
    let mut world = floored(1);
    stone_box(&mut world, [1, 2, 1], [14, 2, 1]);
    world.blocks.insert([1, 2, 1], BlockState::GLOWSTONE);
    world.blocks.insert([14, 2, 1], BlockState::TORCH);
    load_all(&mut world, 1);
    assert_eq!(world.block_light(2, 2, 1), 14);
    assert_eq!(world.block_light(13, 2, 1), 13);
    world.set([1, 2, 1], BlockState::STONE);
    assert_eq!(
        world.block_light(2, 2, 1),
        2,
        "the torch's light reaches the far end"
    );
    assert_eq!(world.block_light(13, 2, 1), 13);
}

#[test]
fn light_crosses_chunk_borders_both_ways() {
    let mut world = floored(2);
    world.blocks.insert([15, 1, 8], BlockState::GLOWSTONE);
    world.load(ChunkPos::new(0, 0));
    world.load(ChunkPos::new(1, 0));
    assert_eq!(world.block_light(16, 1, 8), 14);
    assert_eq!(world.block_light(20, 1, 8), 10);
    // The other order: the lit chunk joins the dark one.
    let mut world = floored(2);
    world.blocks.insert([15, 1, 8], BlockState::GLOWSTONE);
    world.load(ChunkPos::new(1, 0));
    world.load(ChunkPos::new(0, 0));
    assert_eq!(world.block_light(20, 1, 8), 10);
    // And a block placed in one chunk dims the other.
    world.set([16, 1, 8], BlockState::STONE);
    assert_eq!(world.block_light(17, 1, 8), 11, "around the new stone");
}

#[test]
fn a_bottom_slab_keeps_the_sky_from_below_it() {
    let mut world = floored(1);
    stone_box(&mut world, [4, 2, 4], [6, 2, 6]);
    load_all(&mut world, 1);
    assert_eq!(world.sky(5, 2, 5), 0);
    world.set([5, 3, 5], BlockState::AIR);
    assert_eq!(world.sky(5, 2, 5), 15, "an open shaft");
    world.set([5, 3, 5], BlockState::OAK_SLAB);
    assert_eq!(world.sky(5, 3, 5), 15, "the slab sees the sky");
    assert_eq!(world.sky(5, 2, 5), 0, "its bottom face is closed");
    world.set([5, 3, 5], BlockState::OAK_LEAVES);
    assert_eq!(world.sky(5, 2, 5), 13);
}

#[test]
fn blocks_changed_together_are_relit_as_one_change() {
    let mut world = floored(1);
    load_all(&mut world, 1);
    // A roof and the walls under it, set at once, as a `fill` does.
    let mut changed = Vec::new();
    for x in 2..=6 {
        for y in 1..=4 {
            for z in 2..=6 {
                let inside = (3..=5).contains(&x) && y < 4 && (3..=5).contains(&z);
                if !inside {
                    world.blocks.insert([x, y, z], BlockState::STONE);
                }
                changed.push([x, y, z]);
            }
        }
    }
    relight(&mut world, changed);
    assert_eq!(world.sky(4, 2, 4), 0, "the sealed room is dark");
    assert_eq!(world.sky(4, 5, 4), 15, "on its roof");
}

#[test]
fn brightness_is_the_darkened_sky_or_the_block_light() {
    assert_eq!(raw_brightness(15, 0, 0), 15, "noon in the open");
    assert_eq!(raw_brightness(15, 0, 11), 4, "midnight in the open");
    assert_eq!(raw_brightness(15, 14, 11), 14, "a torch at midnight");
    assert_eq!(raw_brightness(3, 0, 11), 0, "never below dark");
}

/// The reference: every block's level relaxed from its own until nothing changes. Blocks
/// stand up to `blocks_top`; block light can climb 15 above them.
fn relaxed(world: &World, kind: Kind, chunks: i32, blocks_top: i32) -> FxHashMap<[i32; 3], u8> {
    let span = 16 * chunks;
    let top = blocks_top + 15;
    let mut levels = FxHashMap::default();
    let facts = |x, y, z| light_facts(world.block(x, y, z));
    // Everything above `top` is open sky.
    for x in 0..span {
        for z in 0..span {
            let mut source = top + 1;
            while source > MIN_Y && !stops_the_sky(facts(x, source, z), facts(x, source - 1, z)) {
                source -= 1;
            }
            for y in MIN_Y..=top {
                let own = match kind {
                    Kind::Sky => 15 * u8::from(y >= source),
                    Kind::Block => facts(x, y, z).emission(),
                };
                levels.insert([x, y, z], own);
            }
        }
    }
    loop {
        let mut changed = false;
        for x in 0..span {
            for z in 0..span {
                for y in MIN_Y..=top {
                    let to = facts(x, y, z);
                    let mut best = levels[&[x, y, z]];
                    for (d, [dx, dy, dz]) in DIRECTIONS.iter().enumerate() {
                        let from = [x - dx, y - dy, z - dz];
                        let Some(&level) = levels.get(&from).or(match kind {
                            Kind::Sky if from[1] > top => Some(&15),
                            _ => None,
                        }) else {
                            continue;
                        };
                        if !facts(from[0], from[1], from[2]).occludes(to, d) {
                            best = best.max(level.saturating_sub(to.opacity().max(1)));
                        }
                    }
                    if best != levels[&[x, y, z]] {
                        levels.insert([x, y, z], best);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return levels;
        }
    }
}

fn assert_matches_reference(world: &World, chunks: i32, top: i32, what: &str) {
    for kind in [Kind::Sky, Kind::Block] {
        let want = relaxed(world, kind, chunks, top);
        let wrong: Vec<String> = want
            .iter()
            .filter(|(&[x, y, z], &level)| world.level(kind, x, y, z) != level)
            .take(5)
            .map(|(p, l)| {
                format!(
                    "{p:?} {kind:?} want {l} got {}",
                    world.level(kind, p[0], p[1], p[2])
                )
            })
            .collect();
        assert!(wrong.is_empty(), "{what}: {wrong:?}");
    }
}

#[test]
fn random_worlds_lit_and_relit_match_the_reference() {
    let palette = [
        BlockState::STONE,
        BlockState::GLASS,
        BlockState::OAK_LEAVES,
        BlockState::WATER,
        BlockState::OAK_SLAB,
        BlockState::OAK_SLAB.set(PropName::Type, PropValue::Top),
        BlockState::OAK_STAIRS,
        BlockState::OAK_STAIRS.set(PropName::Facing, PropValue::East),
        BlockState::TORCH,
        BlockState::GLOWSTONE,
        BlockState::LANTERN,
    ];
    let top = MIN_Y + 24;
    for seed in 0..4 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut world = World::default();
        let random_block = |rng: &mut rand::rngs::StdRng| {
            if rng.gen_bool(0.55) {
                BlockState::AIR
            } else {
                palette[rng.gen_range(0..palette.len())]
            }
        };
        for x in 0..32 {
            for z in 0..32 {
                // Stone at the bottom, as bedrock: nothing lights the section below the world.
                world.blocks.insert([x, MIN_Y, z], BlockState::STONE);
                for y in MIN_Y + 1..=top {
                    let block = random_block(&mut rng);
                    if block != BlockState::AIR {
                        world.blocks.insert([x, y, z], block);
                    }
                }
            }
        }
        // Loaded in a shuffled order, each lit alone and joined.
        let mut order = vec![(0, 0), (1, 1), (0, 1), (1, 0)];
        order.rotate_left(seed as usize % 4);
        for (cx, cz) in order {
            world.load(ChunkPos::new(cx, cz));
        }
        assert_matches_reference(&world, 2, top, &format!("seed {seed}, loaded"));
        for _ in 0..60 {
            let at = [
                rng.gen_range(0..32),
                rng.gen_range(MIN_Y + 1..=top),
                rng.gen_range(0..32),
            ];
            let block = random_block(&mut rng);
            world.set(at, block);
        }
        assert_matches_reference(&world, 2, top, &format!("seed {seed}, edited"));
    }
}
