//! The bright blocks players placed (a torch, a lantern, glowstone, a lit furnace: any block
//! giving at least `noise.light_min_level`), found in the edits as they happen, and for each
//! chunk the lights a zombie standing in it could see, so that its look is one lookup.
//! Lights already in the world (a vanilla village's lanterns) are not players' and draw none.
//! The lights are kept in the world save (`PlacedLights` in `data/horde_world.dat`), so a base
//! lit before a restart still draws zombies after it.

use rustc_hash::{FxHashMap, FxHashSet};
use valence::prelude::*;

use crate::config::Config;
use crate::world::{BlocksChanged, Overworld};

/// An edit larger than this many blocks is not searched for new lights (an operator's `fill`
/// of a whole area); lights it removed are still forgotten.
const SEARCHED: i64 = 32 * 32 * 32;

#[derive(Resource, Debug, Default)]
pub struct Lights {
    placed: FxHashSet<BlockPos>,
    /// For each chunk, the lights within `range` of some point of it.
    seen_from: FxHashMap<ChunkPos, Vec<BlockPos>>,
    /// The range `seen_from` was filed for, and whether it is up to date.
    filed_for: Option<f32>,
}

impl Lights {
    pub fn is_empty(&self) -> bool {
        self.placed.is_empty()
    }

    /// How many lights players placed.
    pub fn len(&self) -> usize {
        self.placed.len()
    }

    /// The lights as the save keeps them: x, y, z of each, in order.
    pub fn to_ints(&self) -> Vec<i32> {
        let mut lights: Vec<BlockPos> = self.placed.iter().copied().collect();
        lights.sort_by_key(|p| (p.x, p.y, p.z));
        lights.iter().flat_map(|p| [p.x, p.y, p.z]).collect()
    }

    /// The lights from the save's x, y, z triples (a trailing part of one is ignored).
    pub fn from_ints(ints: &[i32]) -> Self {
        let mut lights = Self::default();
        for p in ints.chunks_exact(3) {
            lights.add(BlockPos::new(p[0], p[1], p[2]));
        }
        lights
    }

    fn add(&mut self, at: BlockPos) {
        if self.placed.insert(at) {
            self.filed_for = None;
        }
    }

    fn remove(&mut self, at: BlockPos) {
        if self.placed.remove(&at) {
            self.filed_for = None;
        }
    }

    /// Files each light under the chunks from which it is within `range`, unless the lights
    /// and the range are as they were when last filed.
    pub fn file(&mut self, range: f32) {
        if self.filed_for != Some(range) {
            self.seen_from.clear();
            for &light in &self.placed {
                for chunk in super::chunks_within(ChunkPos::from_block_pos(light), range) {
                    self.seen_from.entry(chunk).or_default().push(light);
                }
            }
            self.filed_for = Some(range);
        }
    }

    /// The lights a zombie in `chunk` could see within the range they were last filed for.
    pub fn near(&self, chunk: ChunkPos) -> &[BlockPos] {
        self.seen_from.get(&chunk).map_or(&[], Vec::as_slice)
    }
}

/// Whether `state` is a light zombies see at night: by its own emission (vanilla's
/// `lightEmission`, what the light engine spreads), not by the light where it stands, which
/// a brighter block beside it may give and which the edit's tick has not spread yet.
fn bright(state: BlockState, min_level: u8) -> bool {
    state.luminance() >= min_level
}

/// Each edit's new bright blocks are lights; lights an edit put out are forgotten.
pub(super) fn track(
    mut edits: EventReader<BlocksChanged>,
    layers: Query<&ChunkLayer, With<Overworld>>,
    mut lights: ResMut<Lights>,
    config: Res<Config>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let min_level = config.noise.light_min_level;
    for edit in edits.iter() {
        let (a, b) = (edit.min, edit.max);
        let inside = |p: &BlockPos| {
            (a.x..=b.x).contains(&p.x) && (a.y..=b.y).contains(&p.y) && (a.z..=b.z).contains(&p.z)
        };
        let out: Vec<BlockPos> = lights
            .placed
            .iter()
            .filter(|p| inside(p))
            .filter(|p| !layer.block(**p).is_some_and(|s| bright(s.state, min_level)))
            .copied()
            .collect();
        for p in out {
            lights.remove(p);
        }
        let volume = (b.x as i64 - a.x as i64 + 1)
            * (b.y as i64 - a.y as i64 + 1)
            * (b.z as i64 - a.z as i64 + 1);
        if volume > SEARCHED {
            continue;
        }
        for x in a.x..=b.x {
            for y in a.y..=b.y {
                for z in a.z..=b.z {
                    let p = BlockPos::new(x, y, z);
                    if layer.block(p).is_some_and(|s| bright(s.state, min_level)) {
                        lights.add(p);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lights_players_place_are_bright_enough() {
        let torch = BlockState::TORCH;
        assert!(bright(torch, 10), "torch 14");
        assert!(bright(BlockState::GLOWSTONE, 10));
        assert!(bright(BlockState::LANTERN, 10));
        let lit = BlockState::FURNACE.set(PropName::Lit, PropValue::True);
        assert!(bright(lit, 10), "lit furnace 13");
        assert!(!bright(BlockState::FURNACE, 10), "unlit");
        assert!(!bright(BlockState::REDSTONE_TORCH, 10), "7");
        assert!(bright(BlockState::REDSTONE_TORCH, 7));
        assert!(!bright(BlockState::STONE, 1));
    }

    #[test]
    fn a_zombie_looks_up_the_lights_within_range_of_its_chunk() {
        let mut lights = Lights::default();
        lights.add(BlockPos::new(5, 64, 5));
        lights.add(BlockPos::new(500, 64, 5));
        lights.file(32.0);
        assert_eq!(lights.near(ChunkPos::new(0, 0)).len(), 1);
        assert_eq!(lights.near(ChunkPos::new(2, -2)).len(), 1);
        assert_eq!(lights.near(ChunkPos::new(3, 0)).len(), 0);
        lights.file(48.0);
        assert_eq!(lights.near(ChunkPos::new(3, 0)).len(), 1, "refiled");
        lights.remove(BlockPos::new(5, 64, 5));
        lights.file(48.0);
        assert!(lights.near(ChunkPos::new(0, 0)).is_empty());
        assert_eq!(lights.len(), 1);
    }

    #[test]
    fn lights_round_trip_through_the_saves_ints() {
        let mut lights = Lights::default();
        lights.add(BlockPos::new(5, -64, 5));
        lights.add(BlockPos::new(-500, 319, 7));
        let ints = lights.to_ints();
        assert_eq!(ints, vec![-500, 319, 7, 5, -64, 5]);
        assert_eq!(Lights::from_ints(&ints).to_ints(), ints);
        assert_eq!(
            Lights::from_ints(&ints[..4]).len(),
            1,
            "a broken triple is left out"
        );
    }
}
