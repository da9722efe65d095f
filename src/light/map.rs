//! Chunks' data by position, as the light engine reads it: block after block in one chunk,
//! so the last chunk asked for mutably is remembered and the next ask for it skips the hash
//! lookup.

use rustc_hash::FxHashMap;
use valence::prelude::ChunkPos;

/// Values by chunk, kept in a vector the positions index.
#[derive(Debug)]
pub struct ChunkMap<T> {
    index: FxHashMap<ChunkPos, u32>,
    values: Vec<(ChunkPos, T)>,
    last: Option<(ChunkPos, u32)>,
}

impl<T> Default for ChunkMap<T> {
    fn default() -> Self {
        Self {
            index: FxHashMap::default(),
            values: Vec::new(),
            last: None,
        }
    }
}

impl<T> ChunkMap<T> {
    #[inline]
    fn slot(&self, pos: ChunkPos) -> Option<usize> {
        match self.last {
            Some((at, i)) if at == pos => Some(i as usize),
            _ => self.index.get(&pos).map(|&i| i as usize),
        }
    }

    #[inline]
    pub fn get(&self, pos: ChunkPos) -> Option<&T> {
        self.slot(pos).map(|i| &self.values[i].1)
    }

    /// The value of `pos`, which becomes the one remembered.
    #[inline]
    pub fn get_mut(&mut self, pos: ChunkPos) -> Option<&mut T> {
        let i = self.slot(pos)?;
        self.last = Some((pos, i as u32));
        Some(&mut self.values[i].1)
    }

    pub fn contains(&self, pos: ChunkPos) -> bool {
        self.slot(pos).is_some()
    }

    pub fn insert(&mut self, pos: ChunkPos, value: T) {
        match self.slot(pos) {
            Some(i) => self.values[i].1 = value,
            None => {
                self.index.insert(pos, self.values.len() as u32);
                self.values.push((pos, value));
            }
        }
    }

    pub fn remove(&mut self, pos: ChunkPos) -> Option<T> {
        let i = self.index.remove(&pos)? as usize;
        self.last = None;
        let (_, value) = self.values.swap_remove(i);
        if let Some((moved, _)) = self.values.get(i) {
            self.index.insert(*moved, i as u32);
        }
        Some(value)
    }

    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.values.iter().map(|(_, v)| v)
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removing_moves_the_last_value_and_keeps_every_position_right() {
        let mut map = ChunkMap::default();
        for i in 0..5 {
            map.insert(ChunkPos::new(i, -i), i);
        }
        assert_eq!(map.get(ChunkPos::new(4, -4)), Some(&4));
        assert_eq!(map.remove(ChunkPos::new(1, -1)), Some(1));
        assert_eq!(map.get(ChunkPos::new(1, -1)), None);
        for i in [0, 2, 3, 4] {
            assert_eq!(map.get(ChunkPos::new(i, -i)), Some(&i));
        }
        map.insert(ChunkPos::new(2, -2), 20);
        assert_eq!(map.get(ChunkPos::new(2, -2)), Some(&20));
        assert_eq!(map.len(), 4);
    }
}

#[cfg(test)]
mod random_tests {
    use rand::{Rng, SeedableRng};
    use rustc_hash::FxHashMap;

    use super::*;

    #[test]
    fn random_operations_agree_with_a_hash_map() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut map = ChunkMap::default();
        let mut reference = FxHashMap::default();
        for step in 0..100_000u32 {
            let pos = ChunkPos::new(rng.gen_range(-6..6), rng.gen_range(-6..6));
            match rng.gen_range(0..4) {
                0 => {
                    map.insert(pos, step);
                    reference.insert(pos, step);
                }
                1 => assert_eq!(map.remove(pos), reference.remove(&pos)),
                2 => assert_eq!(map.get_mut(pos).copied(), reference.get(&pos).copied()),
                _ => assert_eq!(map.get(pos), reference.get(&pos)),
            }
        }
    }
}
