//! Lighting one chunk from its blocks alone, as a worker thread does for a chunk it made or
//! read: the sky's straight fall down each column, block light from every block that gives
//! some, and both spread within the chunk; or taking the light vanilla saved with it. What crosses into its neighbours is added when it
//! joins them ([`super::join`]).

use std::collections::VecDeque;

use valence::prelude::BlockState;

use super::engine::{propagate_increases, sky_source_y, Access, Entry};
use super::store::{ChunkLight, Kind, Nibbles};
use super::{HIGH_Y, LOW_Y, MIN_Y, SECTIONS};
use crate::blocks::{light_facts, LightFacts};

/// Blocks in the world's height.
const WORLD_HEIGHT: usize = (HIGH_Y - LOW_Y - 32) as usize;

/// One chunk's blocks as light facts, beside its light, with nothing around it.
struct Lone {
    facts: Vec<LightFacts>,
    light: ChunkLight,
}

impl Lone {
    #[inline]
    fn index(x: i32, y: i32, z: i32) -> usize {
        (((y - MIN_Y) as usize * 16 + z as usize) << 4) | x as usize
    }
}

impl Access for Lone {
    #[inline]
    fn facts(&mut self, x: i32, y: i32, z: i32) -> Option<LightFacts> {
        if !(0..16).contains(&x) || !(0..16).contains(&z) {
            return None;
        }
        if y < MIN_Y || y >= MIN_Y + WORLD_HEIGHT as i32 {
            return Some(LightFacts::AIR);
        }
        Some(self.facts[Self::index(x, y, z)])
    }

    #[inline]
    fn chunk(&mut self, cx: i32, cz: i32) -> Option<&mut ChunkLight> {
        (cx == 0 && cz == 0).then_some(&mut self.light)
    }

    fn chunk_ref(&self, cx: i32, cz: i32) -> Option<&ChunkLight> {
        (cx == 0 && cz == 0).then_some(&self.light)
    }
}

impl Lone {
    /// A chunk's blocks as light facts, in the dark, `block_at(x, y, z)` with `y` from the
    /// bottom of the world; with the highest block's y and the blocks that give light.
    fn read(block_at: impl Fn(u32, u32, u32) -> BlockState) -> (Self, i32, Vec<Entry>) {
        let mut facts = vec![LightFacts::AIR; 16 * 16 * WORLD_HEIGHT];
        // Runs of one block (stone, air) are the rule: each run is looked up once.
        let mut last = (BlockState::AIR, LightFacts::AIR);
        let mut top = MIN_Y - 1;
        let mut emitters = Vec::new();
        for y in 0..WORLD_HEIGHT as u32 {
            for z in 0..16 {
                for x in 0..16 {
                    let block = block_at(x, y, z);
                    if block != last.0 {
                        last = (block, light_facts(block));
                    }
                    let f = last.1;
                    if f != LightFacts::AIR {
                        let (x, y, z) = (x as i32, y as i32 + MIN_Y, z as i32);
                        top = y;
                        facts[Self::index(x, y, z)] = f;
                        if f.emission() > 0 {
                            emitters.push(Entry {
                                x,
                                y,
                                z,
                                level: f.emission(),
                            });
                        }
                    }
                }
            }
        }
        let lone = Self {
            facts,
            light: ChunkLight::dark(),
        };
        (lone, top, emitters)
    }

    /// Finds how far the sky falls down each column, from above the highest block `top`, and
    /// keeps it in the light.
    fn find_sky_sources(&mut self, top: i32) -> [i32; 256] {
        std::array::from_fn(|i| {
            let (x, z) = ((i & 15) as i32, (i >> 4) as i32);
            let y = sky_source_y(self, x, top + 1, z);
            self.light.set_source_y(x as u32, z as u32, y);
            y
        })
    }
}

/// The light of a chunk from its own blocks, `block_at(x, y, z)` with `y` from the bottom of
/// the world.
pub fn light_chunk(block_at: impl Fn(u32, u32, u32) -> BlockState) -> ChunkLight {
    let (mut lone, top, emitters) = Lone::read(block_at);
    let sources = lone.find_sky_sources(top);
    light_sky(&mut lone, &sources);
    let mut queue = VecDeque::with_capacity(emitters.len());
    for e in emitters {
        lone.light
            .set(Kind::Block, e.x as u32, e.y, e.z as u32, e.level);
        queue.push_back(e);
    }
    propagate_increases(&mut lone, Kind::Block, &mut queue);
    let mut light = lone.light;
    light.compact();
    light.take_changed();
    light
}

/// The light vanilla saved for a chunk, `sky` and `block` each section's array where it
/// stored one, with the sky's reach down each column found from its blocks, as vanilla finds
/// it again on load: edits need it.
pub fn saved_light(
    sky: [Option<Nibbles>; SECTIONS],
    block: [Option<Nibbles>; SECTIONS],
    block_at: impl Fn(u32, u32, u32) -> BlockState,
) -> ChunkLight {
    let (mut lone, top, _) = Lone::read(block_at);
    lone.light = ChunkLight::from_saved(sky, block);
    lone.find_sky_sources(top);
    lone.light
}

/// Fills what the sky reaches straight down each column, from `sources`, with 15 and spreads
/// it within the chunk.
fn light_sky(lone: &mut Lone, sources: &[i32; 256]) {
    let highest = *sources.iter().max().expect("256 columns");
    // Sections wholly above every column's reach are all 15; below it, block by block.
    let sky = lone.light.layer_mut(Kind::Sky);
    for (s, section) in sky.iter_mut().enumerate() {
        if LOW_Y + 16 * s as i32 >= highest {
            *section = Nibbles::Uniform(15);
        }
    }
    let first_full = ((highest - LOW_Y + 15) / 16).min(SECTIONS as i32);
    let full_from = LOW_Y + 16 * first_full;
    for (i, &source) in sources.iter().enumerate() {
        let (x, z) = ((i & 15) as u32, (i >> 4) as u32);
        for y in source..full_from {
            lone.light.set(Kind::Sky, x, y, z, 15);
        }
    }
    // The sky spreads from the blocks it reaches beside and above those it does not.
    let mut queue = VecDeque::new();
    for (i, &source) in sources.iter().enumerate() {
        let (x, z) = ((i & 15) as i32, (i >> 4) as i32);
        let beside = [(x - 1, z), (x + 1, z), (x, z - 1), (x, z + 1)]
            .into_iter()
            .filter(|&(nx, nz)| (0..16).contains(&nx) && (0..16).contains(&nz))
            .map(|(nx, nz)| sources[(nz * 16 + nx) as usize])
            .max()
            .unwrap_or(source);
        for y in source..beside.max(source + 1) {
            if y < HIGH_Y {
                queue.push_back(Entry { x, y, z, level: 15 });
            }
        }
    }
    propagate_increases(lone, Kind::Sky, &mut queue);
}
