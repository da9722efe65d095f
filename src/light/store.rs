//! Light levels as vanilla keeps them: a 4-bit level a block, 2048 bytes a 16³ section
//! (`DataLayer`, index `y << 8 | z << 4 | x`, the low nibble first), one layer for sky light and
//! one for block light, over the world's sections and one more below and above it.

use super::{LOW_Y, SECTIONS};

/// Bytes of one section's levels.
pub const SECTION_BYTES: usize = 2048;
/// Bytes of one row of a section (one y).
const ROW_BYTES: usize = SECTION_BYTES / 16;

/// One section's levels. Most sections are all dark or all lit (deep rock, open sky) and hold
/// no array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Nibbles {
    Uniform(u8),
    Levels(Box<[u8; SECTION_BYTES]>),
}

impl Default for Nibbles {
    fn default() -> Self {
        Self::Uniform(0)
    }
}

impl Nibbles {
    /// The level of block `i` (`y << 8 | z << 4 | x` within the section).
    #[inline]
    pub fn get(&self, i: usize) -> u8 {
        match self {
            Self::Uniform(level) => *level,
            Self::Levels(bytes) => bytes[i >> 1] >> ((i & 1) * 4) & 0xF,
        }
    }

    #[inline]
    pub fn set(&mut self, i: usize, level: u8) {
        if let Self::Uniform(all) = *self {
            if all == level {
                return;
            }
            *self = Self::Levels(Box::new([all | all << 4; SECTION_BYTES]));
        }
        if let Self::Levels(bytes) = self {
            let shift = (i & 1) * 4;
            let byte = &mut bytes[i >> 1];
            *byte = *byte & !(0xF << shift) | level << shift;
        }
    }

    /// From vanilla's saved array; `None` if it is not one section long.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let array: [u8; SECTION_BYTES] = bytes.try_into().ok()?;
        let mut nibbles = Self::Levels(Box::new(array));
        nibbles.compact();
        Some(nibbles)
    }

    /// As vanilla saves and sends it.
    pub fn to_bytes(&self) -> [u8; SECTION_BYTES] {
        match self {
            Self::Uniform(level) => [level | level << 4; SECTION_BYTES],
            Self::Levels(bytes) => **bytes,
        }
    }

    /// Drops the array of a section whose blocks all hold one level.
    pub fn compact(&mut self) {
        if let Self::Levels(bytes) = self {
            let first = bytes[0];
            if first >> 4 == first & 0xF && bytes.iter().all(|&b| b == first) {
                *self = Self::Uniform(first & 0xF);
            }
        }
    }

    /// A section whose every row is this one's lowest.
    fn lowest_row_upwards(&self) -> Self {
        match self {
            Self::Uniform(_) => self.clone(),
            Self::Levels(bytes) => {
                let mut rows = Box::new([0; SECTION_BYTES]);
                for row in rows.chunks_exact_mut(ROW_BYTES) {
                    row.copy_from_slice(&bytes[..ROW_BYTES]);
                }
                let mut rows = Self::Levels(rows);
                rows.compact();
                rows
            }
        }
    }

    /// Whether every block holds `level`.
    pub fn is_all(&self, level: u8) -> bool {
        matches!(self, Self::Uniform(l) if *l == level)
    }
}

/// Which light: from the sky, or from blocks that give light.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Sky,
    Block,
}

/// The light of one chunk column, with the sky's reach down each column and which sections
/// changed since they were last sent.
#[derive(Clone, Debug)]
pub struct ChunkLight {
    sky: Box<[Nibbles; SECTIONS]>,
    block: Box<[Nibbles; SECTIONS]>,
    /// Per column (`x + 16 * z`), the lowest y that sees the sky straight up: every block from
    /// there up has sky light 15 (vanilla's `ChunkSkyLightSources`).
    sources: Box<[i16; 256]>,
    /// Sections changed since [`Self::take_changed`], a bit a section, sky then block.
    changed: [u32; 2],
}

impl ChunkLight {
    /// A chunk in the dark, its sky reaching nowhere: the start of lighting.
    pub fn dark() -> Self {
        Self {
            sky: Box::new(std::array::from_fn(|_| Nibbles::default())),
            block: Box::new(std::array::from_fn(|_| Nibbles::default())),
            sources: Box::new([i16::MAX; 256]),
            changed: [0; 2],
        }
    }

    /// The light vanilla saved, each section's array where it stored one, the sky reaching
    /// nowhere yet. A section without block light is dark; one without sky light reads, as
    /// vanilla reads it, as the lowest row of the nearest section above that has some, and as
    /// open sky above them all.
    pub(super) fn from_saved(
        sky: [Option<Nibbles>; SECTIONS],
        block: [Option<Nibbles>; SECTIONS],
    ) -> Self {
        let mut light = Self::dark();
        *light.block = block.map(Option::unwrap_or_default);
        let mut above = None;
        for (s, saved) in sky.into_iter().enumerate().rev() {
            light.sky[s] = match saved {
                Some(nibbles) => {
                    above = Some(s);
                    nibbles
                }
                None => above.map_or(Nibbles::Uniform(15), |a| light.sky[a].lowest_row_upwards()),
            };
        }
        light
    }

    /// The arrays vanilla would save of this light, with their kind and section: block light
    /// where there is any, sky light where the section is not what vanilla reads for one it
    /// lacks ([`Self::from_saved`]).
    pub fn to_saved(&self) -> Vec<(Kind, usize, [u8; SECTION_BYTES])> {
        let mut saved = Vec::new();
        // The row a section without sky light repeats.
        let mut row = [0xFF; ROW_BYTES];
        for (s, section) in self.sky.iter().enumerate().rev() {
            let bytes = section.to_bytes();
            if bytes.chunks_exact(ROW_BYTES).any(|r| r != row) {
                row.copy_from_slice(&bytes[..ROW_BYTES]);
                saved.push((Kind::Sky, s, bytes));
            }
        }
        for (s, section) in self.block.iter().enumerate() {
            let bytes = section.to_bytes();
            if bytes.iter().any(|&b| b != 0) {
                saved.push((Kind::Block, s, bytes));
            }
        }
        saved
    }

    pub fn layer(&self, kind: Kind) -> &[Nibbles; SECTIONS] {
        match kind {
            Kind::Sky => &self.sky,
            Kind::Block => &self.block,
        }
    }

    pub fn layer_mut(&mut self, kind: Kind) -> &mut [Nibbles; SECTIONS] {
        match kind {
            Kind::Sky => &mut self.sky,
            Kind::Block => &mut self.block,
        }
    }

    /// The level at chunk-local `x`, `z` and world `y`; 0 outside the light's sections (and 15
    /// above them for the sky).
    #[inline]
    pub fn get(&self, kind: Kind, x: u32, y: i32, z: u32) -> u8 {
        match section_of(y) {
            Some((s, i)) => self.layer(kind)[s].get(i | index(x, z)),
            None if kind == Kind::Sky && y >= LOW_Y => 15,
            None => 0,
        }
    }

    /// Sets the level at chunk-local `x`, `z` and world `y`, which must be within the light's
    /// sections.
    #[inline]
    pub fn set(&mut self, kind: Kind, x: u32, y: i32, z: u32, level: u8) {
        if let Some((s, i)) = section_of(y) {
            self.layer_mut(kind)[s].set(i | index(x, z), level);
            self.changed[kind as usize] |= 1 << s;
        }
    }

    /// The lowest y of column `x`, `z` that sees the sky straight up.
    pub fn source_y(&self, x: u32, z: u32) -> i32 {
        i32::from(self.sources[index(x, z)])
    }

    pub(super) fn set_source_y(&mut self, x: u32, z: u32, y: i32) {
        self.sources[index(x, z)] = y as i16;
    }

    /// The sections changed since last asked, a bit a section (sky, block), and forgets them.
    pub fn take_changed(&mut self) -> [u32; 2] {
        std::mem::take(&mut self.changed)
    }

    /// Marks every section changed: the whole chunk is to be sent.
    pub fn mark_all_changed(&mut self) {
        self.changed = [(1 << SECTIONS) - 1; 2];
    }

    /// Drops the arrays of uniform sections, after lighting a whole chunk.
    pub fn compact(&mut self) {
        self.sky
            .iter_mut()
            .chain(self.block.iter_mut())
            .for_each(Nibbles::compact);
    }

    /// Bytes held beyond the struct itself, for the memory figures.
    pub fn heap_bytes(&self) -> usize {
        let arrays = self
            .sky
            .iter()
            .chain(self.block.iter())
            .filter(|n| matches!(n, Nibbles::Levels(_)))
            .count();
        arrays * SECTION_BYTES + 2 * std::mem::size_of::<[Nibbles; SECTIONS]>() + 512
    }
}

/// The index of column `x`, `z` within a section's layer, and of the column in the sources.
#[inline]
fn index(x: u32, z: u32) -> usize {
    (z << 4 | x) as usize
}

/// The section of world `y` (0 the one below the world) and the index of its row.
#[inline]
fn section_of(y: i32) -> Option<(usize, usize)> {
    let from_low = y - LOW_Y;
    let s = (from_low >> 4) as usize;
    (from_low >= 0 && s < SECTIONS).then_some((s, ((from_low & 15) as usize) << 8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nibbles_are_vanillas_layout() {
        let mut n = Nibbles::default();
        n.set(0, 3);
        n.set(1, 12);
        n.set(4095, 15);
        let bytes = n.to_bytes();
        assert_eq!(bytes[0], 0xC3);
        assert_eq!(bytes[2047], 0xF0);
        assert_eq!((n.get(0), n.get(1), n.get(2), n.get(4095)), (3, 12, 0, 15));
        let mut all = Nibbles::Levels(Box::new([0xFF; SECTION_BYTES]));
        all.compact();
        assert_eq!(all, Nibbles::Uniform(15));
        assert_eq!(
            Nibbles::from_bytes(&[0x77; 2048]),
            Some(Nibbles::Uniform(7))
        );
        assert_eq!(Nibbles::from_bytes(&[0; 10]), None);
    }

    #[test]
    fn levels_outside_the_sections() {
        let mut light = ChunkLight::dark();
        light.set(Kind::Sky, 1, -80, 2, 9);
        assert_eq!(light.get(Kind::Sky, 1, -80, 2), 9);
        assert_eq!(light.get(Kind::Sky, 1, 400, 2), 15);
        assert_eq!(light.get(Kind::Block, 1, 400, 2), 0);
        assert_eq!(light.get(Kind::Sky, 1, -81, 2), 0);
        assert_eq!(light.take_changed(), [1, 0]);
    }

    #[test]
    fn light_saved_as_vanilla_saves_it_reads_back_the_same() {
        let mut light = ChunkLight::dark();
        for s in 0..SECTIONS {
            let sky = match s {
                // Open sky above a roof at section 12, dark under it but where a shaft at
                // column 5 lets the sky down to section 6, and a lit cave in section 3.
                13.. => Nibbles::Uniform(15),
                _ => Nibbles::Uniform(0),
            };
            light.sky[s] = sky;
        }
        for y in LOW_Y + 6 * 16..LOW_Y + 13 * 16 {
            light.set(Kind::Sky, 5, y, 0, 15);
        }
        light.set(Kind::Sky, 2, LOW_Y + 3 * 16 + 4, 2, 9);
        light.set(Kind::Block, 1, LOW_Y + 20 * 16, 1, 14);
        let saved = light.to_saved();
        let kept = |kind| {
            let mut kept: Vec<usize> = saved
                .iter()
                .filter(|(k, ..)| *k == kind)
                .map(|&(_, s, _)| s)
                .collect();
            kept.sort();
            kept
        };
        // Only the roof's section (12), the dark one under the shaft (5) and the cave's (3)
        // differ from the lowest row of the one saved above them.
        assert_eq!(kept(Kind::Sky), [3, 5, 12]);
        assert_eq!(kept(Kind::Block), [20]);
        let mut sky: [Option<Nibbles>; SECTIONS] = Default::default();
        let mut block: [Option<Nibbles>; SECTIONS] = Default::default();
        for (kind, s, bytes) in saved {
            let layer = if kind == Kind::Sky {
                &mut sky
            } else {
                &mut block
            };
            layer[s] = Nibbles::from_bytes(&bytes);
        }
        let back = ChunkLight::from_saved(sky, block);
        for kind in [Kind::Sky, Kind::Block] {
            for (a, b) in back.layer(kind).iter().zip(light.layer(kind)) {
                assert_eq!(a.to_bytes(), b.to_bytes(), "{kind:?}");
            }
        }
    }

    #[test]
    fn a_section_without_saved_sky_reads_the_lowest_row_of_the_one_above() {
        let mut stored = Nibbles::Uniform(15);
        stored.set(0, 4);
        stored.set(256, 9);
        let mut sky: [Option<Nibbles>; SECTIONS] = Default::default();
        sky[10] = Some(stored.clone());
        sky[12] = Some(Nibbles::Uniform(7));
        let mut block: [Option<Nibbles>; SECTIONS] = Default::default();
        block[3] = Some(Nibbles::Uniform(2));
        let light = ChunkLight::from_saved(sky, block);
        let sky = light.layer(Kind::Sky);
        assert_eq!(sky[10], stored);
        assert_eq!((sky[9].get(0), sky[9].get(256), sky[9].get(1)), (4, 4, 15));
        assert_eq!(sky[0], sky[9], "down to the bottom");
        assert_eq!(sky[11], Nibbles::Uniform(7));
        assert!(sky[13..].iter().all(|s| s.is_all(15)), "open sky above");
        let block = light.layer(Kind::Block);
        assert_eq!(block[3], Nibbles::Uniform(2));
        assert!(block[4].is_all(0));
    }
}
