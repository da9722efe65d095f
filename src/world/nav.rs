//! Walkability of the loaded blocks, kept beside the chunk layer: whether each block stops a
//! body and whether it is water, as bits by column. Path searches ask about blocks millions of
//! times a second, and a bit costs a fraction of finding a block state in its section's
//! palette. A chunk's facts are found on the terrain threads as the chunk is made or read,
//! leave with the chunk, and are patched on every announced edit ([`BlocksChanged`]) before
//! zombies plan: the same tick for commands' and players' edits, the next for doors broken.

use std::cell::Cell;

use rustc_hash::FxHashMap;
use valence::prelude::*;

use super::voxels::{is_solid, Column, LayerVoxels, Voxels};
use super::{BlocksChanged, Overworld, HEIGHT, MIN_Y};

const SECTIONS: usize = HEIGHT as usize / 16;

/// The facts of one chunk. A block's facts are two bits of a word: solid in the low half,
/// liquid in the high half, one word a section's column. Each column's words lie together, so
/// that a search reading a column touches one cache line; the runs of sections all of stone
/// or all of air at the bottom and top of the chunk are not stored.
#[cfg_attr(test, derive(Debug, PartialEq))]
pub struct NavChunk {
    /// Sections `lo..lo + span`, column by column: `words[i * span + s - lo]` for section
    /// `s` of column `i` (`x + 16 * z`).
    words: Box<[u32]>,
    lo: usize,
    span: usize,
    /// The word of every column of the sections below `lo`, and from `lo + span` up.
    below: u32,
    above: u32,
}

/// A section's column of solid blocks, or of air.
const SOLID: u32 = 0xFFFF;
const OPEN: u32 = 0;

impl NavChunk {
    /// Reads every block of a chunk once, by `x`, `y` (from the bottom of the world) and `z`:
    /// on a terrain thread, a fraction of making it.
    pub fn of(block_at: impl Fn(u32, u32, u32) -> BlockState) -> Self {
        let mut sections = vec![[0u32; 256]; SECTIONS];
        // Runs of one block (stone, air) are the rule up a column: its facts are worked out
        // once a run.
        let mut last: Option<(BlockState, u32)> = None;
        for (s, section) in sections.iter_mut().enumerate() {
            for (i, word) in section.iter_mut().enumerate() {
                let (x, z) = (i as u32 % 16, i as u32 / 16);
                for y in 0..16 {
                    let block = block_at(x, (s * 16) as u32 + y, z);
                    let bits = match last {
                        Some((seen, bits)) if seen == block => bits,
                        _ => {
                            let bits =
                                u32::from(is_solid(block)) | u32::from(block.is_liquid()) << 16;
                            last = Some((block, bits));
                            bits
                        }
                    };
                    *word |= bits << y;
                }
            }
        }
        /// The word of every column when a section is all solid or all open.
        fn uniform(section: &[u32; 256]) -> Option<u32> {
            let word = section[0];
            ((word == SOLID || word == OPEN) && section.iter().all(|&w| w == word)).then_some(word)
        }
        /// The word and length of the run of uniform sections `sections` starts with.
        fn run<'s>(mut sections: impl Iterator<Item = &'s [u32; 256]>) -> (u32, usize) {
            let Some(word) = sections.next().and_then(uniform) else {
                return (OPEN, 0);
            };
            (
                word,
                1 + sections.take_while(|s| uniform(s) == Some(word)).count(),
            )
        }
        let (below, lo) = run(sections.iter());
        let (above, top_run) = run(sections[lo..].iter().rev());
        let span = SECTIONS - lo - top_run;
        let words = (0..256)
            .flat_map(|i| sections[lo..lo + span].iter().map(move |s| s[i]))
            .collect();
        Self {
            words,
            lo,
            span,
            below,
            above,
        }
    }

    fn word(&self, s: usize, i: usize) -> u32 {
        if s < self.lo {
            self.below
        } else if s >= self.lo + self.span {
            self.above
        } else {
            self.words[i * self.span + s - self.lo]
        }
    }

    /// The solid and water bits (bits 0 and 16) of the block at `x`, `z` in the chunk and `y`
    /// from the bottom of the world, `None` outside the world.
    fn at(&self, x: usize, y: i32, z: usize) -> Option<u32> {
        let y = usize::try_from(y).ok().filter(|&y| y < HEIGHT as usize)?;
        Some(self.word(y / 16, x + 16 * z) >> (y % 16) & 0x1_0001)
    }

    /// Records `block` at `x`, `z` in the chunk and `y` from the bottom of the world.
    fn set(&mut self, x: usize, y: usize, z: usize, block: BlockState) {
        let (s, i) = (y / 16, x + 16 * z);
        if !(self.lo..self.lo + self.span).contains(&s) {
            self.widen(s);
        }
        let word = &mut self.words[i * self.span + s - self.lo];
        let (solid, liquid) = (1 << (y % 16), 1 << (16 + y % 16));
        *word &= !(solid | liquid);
        if is_solid(block) {
            *word |= solid;
        }
        if block.is_liquid() {
            *word |= liquid;
        }
    }

    /// Stores section `s` and those between it and the stored ones.
    fn widen(&mut self, s: usize) {
        // With none stored, `lo` is where `below` ends and `above` starts: the bounds hold.
        let (lo, hi) = (self.lo.min(s), (self.lo + self.span).max(s + 1));
        let words = (0..256)
            .flat_map(|i| (lo..hi).map(move |s| (s, i)))
            .map(|(s, i)| self.word(s, i))
            .collect();
        (self.words, self.lo, self.span) = (words, lo, hi - lo);
    }

    /// The facts of `len` blocks of the column at `x`, `z` in the chunk, from `from` blocks
    /// above the bottom of the world: outside the world is not loaded.
    fn column(&self, x: usize, z: usize, from: i32, len: u32) -> Column {
        debug_assert!((1..=128).contains(&len));
        // Bits `lo..hi` of the window.
        let bits = |lo: i32, hi: i32| {
            let upto = |n: i32| u128::MAX.checked_shr(128 - n as u32).unwrap_or(0);
            upto(hi - from) & !upto(lo - from)
        };
        let (lo, hi) = (from.max(0), (from + len as i32).min(HEIGHT as i32));
        if lo >= hi {
            return Column {
                solid: bits(from, from + len as i32),
                ..Column::default()
            };
        }
        // The sections under the window, gathered from the lowest one's bottom up: a section's
        // bits are placed with one shift.
        let i = x + 16 * z;
        let (first, last) = (lo / 16, (hi - 1) / 16);
        let (mut solid, mut liquid) = (0u128, 0u128);
        let base = first * 16 - from;
        for s in first..=last {
            let word = self.word(s as usize, i);
            let (s_bits, l_bits) = (word as u16, (word >> 16) as u16);
            let shift = base + (s - first) * 16;
            let place = |b: u16| {
                let b = u128::from(b);
                if shift >= 0 {
                    b << shift
                } else {
                    b >> -shift
                }
            };
            solid |= place(s_bits);
            liquid |= place(l_bits);
        }
        let loaded = bits(lo, hi);
        Column {
            // Outside the world counts as solid, as an unloaded block.
            solid: (solid & loaded) | (bits(from, from + len as i32) & !loaded),
            liquid: liquid & loaded,
            loaded,
        }
    }

    /// The bytes its stored sections take.
    pub fn bytes(&self) -> usize {
        self.words.len() * std::mem::size_of::<u32>()
    }
}

/// The facts of every loaded chunk of the overworld that came from a terrain thread.
#[derive(Resource, Default)]
pub struct Nav {
    chunks: FxHashMap<ChunkPos, NavChunk>,
}

impl Nav {
    pub(super) fn insert(&mut self, pos: ChunkPos, chunk: NavChunk) {
        self.chunks.insert(pos, chunk);
    }

    pub(super) fn remove(&mut self, pos: ChunkPos) {
        self.chunks.remove(&pos);
    }

    /// Chunks with facts, and the bytes their stored sections take.
    pub fn size(&self) -> (usize, usize) {
        let bytes = self.chunks.values().map(NavChunk::bytes).sum();
        (self.chunks.len(), bytes)
    }
}

/// Patches the facts of edited blocks from the layer.
pub fn patch_nav(
    mut edits: EventReader<BlocksChanged>,
    layers: Query<&ChunkLayer, With<Overworld>>,
    mut nav: ResMut<Nav>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    for edit in edits.iter() {
        let (min, max) = (edit.min, edit.max);
        for x in min.x..=max.x {
            for z in min.z..=max.z {
                let Some(chunk) = nav.chunks.get_mut(&ChunkPos::new(x >> 4, z >> 4)) else {
                    continue;
                };
                let (cx, cz) = ((x & 15) as usize, (z & 15) as usize);
                for y in min.y.max(MIN_Y)..=max.y.min(MIN_Y + HEIGHT as i32 - 1) {
                    if let Some(block) = layer.block([x, y, z]) {
                        chunk.set(cx, (y - MIN_Y) as usize, cz, block.state);
                    }
                }
            }
        }
    }
}

/// Block facts from [`Nav`] where it has the chunk, else from the layer. What a path search
/// reads: it asks for solid, water and floors, never for the block itself.
pub struct NavVoxels<'a> {
    nav: &'a Nav,
    layer: LayerVoxels<'a>,
    /// The chunks found last, by the low two bits of their coordinates: a search crosses
    /// chunk borders back and forth, and each lookup would hash.
    found: [Cell<Option<(ChunkPos, Option<&'a NavChunk>)>>; 16],
}

impl<'a> NavVoxels<'a> {
    pub fn new(nav: &'a Nav, layer: &'a ChunkLayer) -> Self {
        Self {
            nav,
            layer: LayerVoxels::new(layer),
            found: Default::default(),
        }
    }

    fn chunk(&self, x: i32, z: i32) -> Option<&'a NavChunk> {
        let at = ChunkPos::new(x >> 4, z >> 4);
        let slot = &self.found[((at.x & 3) * 4 + (at.z & 3)) as usize];
        match slot.get() {
            Some((cached, chunk)) if cached == at => chunk,
            _ => {
                let chunk = self.nav.chunks.get(&at);
                slot.set(Some((at, chunk)));
                chunk
            }
        }
    }

    /// The facts of one block: `None` when its chunk has none (the layer answers), else its
    /// bits as [`NavChunk::at`] gives them.
    fn facts(&self, pos: BlockPos) -> Option<Option<u32>> {
        let chunk = self.chunk(pos.x, pos.z)?;
        Some(chunk.at((pos.x & 15) as usize, pos.y - MIN_Y, (pos.z & 15) as usize))
    }
}

impl Voxels for NavVoxels<'_> {
    fn block(&self, pos: BlockPos) -> Option<BlockState> {
        self.layer.block(pos)
    }

    fn solid(&self, pos: BlockPos) -> bool {
        match self.facts(pos) {
            Some(bits) => bits.is_none_or(|b| b & 1 != 0),
            None => self.layer.solid(pos),
        }
    }

    fn liquid(&self, pos: BlockPos) -> bool {
        match self.facts(pos) {
            Some(bits) => bits.is_some_and(|b| b >> 16 != 0),
            None => self.layer.liquid(pos),
        }
    }

    fn loaded(&self, pos: BlockPos) -> bool {
        match self.facts(pos) {
            Some(bits) => bits.is_some(),
            None => self.layer.loaded(pos),
        }
    }

    fn solid_in_column(&self, x: i32, z: i32, y0: i32, y1: i32) -> bool {
        match self.chunk(x, z) {
            // One read of the column's bits rather than one a block.
            Some(chunk) if y0 <= y1 && y1 - y0 < 128 => {
                let len = (y1 - y0 + 1) as u32;
                chunk
                    .column((x & 15) as usize, (z & 15) as usize, y0 - MIN_Y, len)
                    .solid
                    != 0
            }
            _ => (y0..=y1).any(|y| self.solid(BlockPos::new(x, y, z))),
        }
    }

    fn column(&self, x: i32, z: i32, y: i32, len: u32) -> Column {
        match self.chunk(x, z) {
            Some(chunk) => chunk.column((x & 15) as usize, (z & 15) as usize, y - MIN_Y, len),
            None => self.layer.column(x, z, y, len),
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::Rng;
    use valence::layer::chunk::{Chunk, UnloadedChunk};

    use super::*;
    use crate::world::Terrain;

    /// A chunk's blocks, read one by one: what the facts must agree with.
    struct Blocks<'a>(&'a UnloadedChunk);

    impl Voxels for Blocks<'_> {
        fn block(&self, pos: BlockPos) -> Option<BlockState> {
            let y = pos.y - MIN_Y;
            let inside = (0..16).contains(&pos.x) && (0..16).contains(&pos.z);
            (inside && (0..HEIGHT as i32).contains(&y))
                .then(|| self.0.block_state(pos.x as u32, y as u32, pos.z as u32))
        }
    }

    fn assert_agree(chunk: &UnloadedChunk, facts: &NavChunk, rng: &mut impl Rng) {
        let blocks = Blocks(chunk);
        for _ in 0..2000 {
            let (x, z) = (rng.gen_range(0..16), rng.gen_range(0..16));
            // Windows past the bottom and the top of the world, and across sections.
            let y = rng.gen_range(MIN_Y - 140..MIN_Y + HEIGHT as i32 + 10);
            let len = rng.gen_range(1..=128);
            assert_eq!(
                facts.column(x as usize, z as usize, y - MIN_Y, len),
                blocks.column(x, z, y, len),
                "{x} {y} {z} ({len} high)"
            );
        }
    }

    #[test]
    fn facts_agree_with_the_blocks_before_and_after_edits() {
        let mut rng = crate::random::generator(7);
        // A generated chunk at the sea: stone, water, air, plants.
        let mut chunk = Terrain::new(1).generate(ChunkPos::new(3, -2)).chunk;
        let mut facts = NavChunk::of(|x, y, z| chunk.block_state(x, y, z));
        assert!(
            facts.bytes() < 256 * SECTIONS * 4 / 2,
            "the stone below and the air above are not stored: {} bytes",
            facts.bytes()
        );
        assert_agree(&chunk, &facts, &mut rng);
        let door = BlockState::OAK_DOOR;
        let edits = [
            BlockState::WATER,
            BlockState::STONE,
            BlockState::AIR,
            door,
            door.set(PropName::Open, PropValue::True),
        ];
        for _ in 0..300 {
            let (x, y, z) = (
                rng.gen_range(0..16),
                rng.gen_range(0..HEIGHT),
                rng.gen_range(0..16),
            );
            let block = edits[rng.gen_range(0..edits.len())];
            chunk.set_block_state(x, y, z, block);
            facts.set(x as usize, y as usize, z as usize, block);
        }
        assert_agree(&chunk, &facts, &mut rng);
        // Edits below and above the stored sections widen them.
        for (y, block) in [(0, BlockState::AIR), (HEIGHT - 1, BlockState::STONE)] {
            chunk.set_block_state(5, y, 9, block);
            facts.set(5, y as usize, 9, block);
        }
        assert_eq!(facts.bytes(), 256 * SECTIONS * 4);
        assert_agree(&chunk, &facts, &mut rng);
    }

    #[test]
    fn a_chunk_of_uniform_sections_alone_stores_none_and_takes_edits() {
        let mut rng = crate::random::generator(8);
        // Stone up to a section's top and air above (a flat world), then all stone.
        for stone_sections in [4, SECTIONS as u32] {
            let mut chunk = UnloadedChunk::with_height(HEIGHT);
            for y in 0..stone_sections * 16 {
                for i in 0..256 {
                    chunk.set_block_state(i % 16, y, i / 16, BlockState::STONE);
                }
            }
            let mut facts = NavChunk::of(|x, y, z| chunk.block_state(x, y, z));
            assert_eq!(facts.bytes(), 0);
            assert_agree(&chunk, &facts, &mut rng);
            // Edits above the stone and in it, each widening what is stored.
            for (y, block) in [
                (170, BlockState::STONE),
                (20, BlockState::AIR),
                (3, BlockState::WATER),
            ] {
                chunk.set_block_state(7, y, 2, block);
                facts.set(7, y as usize, 2, block);
                assert_agree(&chunk, &facts, &mut rng);
            }
        }
    }
}
