//! Chunks held in memory with their light, outside the server: for tests, benchmarks and tools
//! that light a set of chunks as the server would.

use valence::layer::chunk::Chunk;
use valence::prelude::*;

use super::{join, light_chunk, Access, ChunkLight, ChunkMap, MIN_Y};
use crate::blocks::{light_facts, LightFacts};

/// Chunks of blocks, each with its light.
#[derive(Debug)]
pub struct HeldChunks<C> {
    blocks: ChunkMap<C>,
    light: ChunkMap<ChunkLight>,
}

impl<C: Chunk> Default for HeldChunks<C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<C: Chunk> HeldChunks<C> {
    pub fn new() -> Self {
        Self {
            blocks: ChunkMap::default(),
            light: ChunkMap::default(),
        }
    }

    /// Lights `chunk` from its own blocks and joins it to the chunks held, as the server does
    /// with a chunk that arrives.
    pub fn insert(&mut self, pos: ChunkPos, chunk: C) {
        let light = light_chunk(|x, y, z| chunk.block_state(x, y, z));
        self.insert_lit(pos, chunk, light);
    }

    /// Takes `chunk` with the light it came with and joins it.
    pub fn insert_lit(&mut self, pos: ChunkPos, chunk: C, light: ChunkLight) {
        self.blocks.insert(pos, chunk);
        self.light.insert(pos, light);
        join(self, pos);
    }

    /// Changes a block and relights around it.
    pub fn set_block(&mut self, pos: BlockPos, block: BlockState) {
        let chunk = ChunkPos::from_block_pos(pos);
        let Some(c) = self.blocks.get_mut(chunk) else {
            return;
        };
        c.set_block_state(
            (pos.x & 15) as u32,
            (pos.y - MIN_Y) as u32,
            (pos.z & 15) as u32,
            block,
        );
        super::relight(self, [[pos.x, pos.y, pos.z]]);
    }

    pub fn light(&self, pos: ChunkPos) -> Option<&ChunkLight> {
        self.light.get(pos)
    }

    pub fn blocks(&self, pos: ChunkPos) -> Option<&C> {
        self.blocks.get(pos)
    }
}

impl<C: Chunk> Access for HeldChunks<C> {
    fn facts(&mut self, x: i32, y: i32, z: i32) -> Option<LightFacts> {
        let chunk = self.blocks.get_mut(ChunkPos::new(x >> 4, z >> 4))?;
        let from_bottom = y - MIN_Y;
        if from_bottom < 0 || from_bottom >= chunk.height() as i32 {
            return Some(LightFacts::AIR);
        }
        Some(light_facts(chunk.block_state(
            (x & 15) as u32,
            from_bottom as u32,
            (z & 15) as u32,
        )))
    }

    fn chunk(&mut self, cx: i32, cz: i32) -> Option<&mut ChunkLight> {
        self.light.get_mut(ChunkPos::new(cx, cz))
    }

    fn chunk_ref(&self, cx: i32, cz: i32) -> Option<&ChunkLight> {
        self.light.get(ChunkPos::new(cx, cz))
    }
}
