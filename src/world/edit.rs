//! Changes to the terrain: operators' `fill`, players' digging and building, zombies breaking
//! doors. Each must be announced with [`BlocksChanged`], so that whatever keeps a view of the
//! blocks (the light, the walkability facts zombies walk by) catches up, and so that
//! [`Edits`] knows which chunks the next save must write: those whose blocks changed, and
//! those whose light changed with them.

use std::collections::{HashMap, HashSet};

use bevy_ecs::event::ManualEventReader;
use valence::log::warn;
use valence::prelude::*;

use rustc_hash::FxHashSet;

use super::anvil::{self, ChunkEdit, Regions, SaveOutcome, SectionEdit};
use super::block_entities::BlockEntities;
use super::light::Light;
use super::{Overworld, HEIGHT, MIN_Y};

/// Blocks in the box from `min` to `max` (inclusive) changed.
#[derive(Event, Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlocksChanged {
    pub min: BlockPos,
    pub max: BlockPos,
}

impl BlocksChanged {
    /// The box spanning two blocks, in either order (a door's two halves).
    pub fn between(a: BlockPos, b: BlockPos) -> Self {
        Self {
            min: BlockPos::new(a.x.min(b.x), a.y.min(b.y), a.z.min(b.z)),
            max: BlockPos::new(a.x.max(b.x), a.y.max(b.y), a.z.max(b.z)),
        }
    }

    /// Whether `at` is within `reach` blocks of the box along every axis.
    pub fn reaches(&self, at: BlockPos, reach: i32) -> bool {
        (self.min.x - reach..=self.max.x + reach).contains(&at.x)
            && (self.min.y - reach..=self.max.y + reach).contains(&at.y)
            && (self.min.z - reach..=self.max.z + reach).contains(&at.z)
    }
}

/// One bit per section, lowest section first.
type Sections = u32;
const ALL_SECTIONS: Sections = (1 << anvil::SECTIONS) - 1;

/// Chunks whose blocks changed since they were last written. A chunk with unsaved changes stays
/// loaded until a save has written it, so the region folder is never behind a loaded chunk.
#[derive(Resource, Debug)]
pub struct Edits {
    reader: ManualEventReader<BlocksChanged>,
    dirty: HashMap<ChunkPos, Sections>,
    /// Handed to a save that has not reported back yet.
    saving: HashMap<ChunkPos, Sections>,
    /// Loaded chunks the region folder holds: their changed sections are patched in; any other
    /// chunk is written whole.
    on_disk: HashSet<ChunkPos>,
    outcomes: (flume::Sender<SaveOutcome>, flume::Receiver<SaveOutcome>),
}

impl Default for Edits {
    fn default() -> Self {
        Self {
            reader: ManualEventReader::default(),
            dirty: HashMap::new(),
            saving: HashMap::new(),
            on_disk: HashSet::new(),
            outcomes: flume::unbounded(),
        }
    }
}

impl Edits {
    /// Whether the chunk has changes not yet on disk.
    pub fn holds(&self, pos: ChunkPos) -> bool {
        self.dirty.contains_key(&pos) || self.saving.contains_key(&pos)
    }

    pub(super) fn loaded_from_disk(&mut self, pos: ChunkPos) {
        self.on_disk.insert(pos);
    }

    pub(super) fn unloaded(&mut self, pos: ChunkPos) {
        self.on_disk.remove(&pos);
    }

    fn note(&mut self, events: &Events<BlocksChanged>) {
        for change in self.reader.iter(events) {
            let change = BlocksChanged::between(change.min, change.max);
            let section =
                |y: i32| ((y.clamp(MIN_Y, MIN_Y + HEIGHT as i32 - 1) - MIN_Y) / 16) as u32;
            let (low, high) = (section(change.min.y), section(change.max.y));
            let bits = (ALL_SECTIONS >> (anvil::SECTIONS - 1 - (high - low))) << low;
            let (min, max) = (
                ChunkPos::from_block_pos(change.min),
                ChunkPos::from_block_pos(change.max),
            );
            for z in min.z..=max.z {
                for x in min.x..=max.x {
                    *self.dirty.entry(ChunkPos::new(x, z)).or_default() |= bits;
                }
            }
        }
    }

    /// Notes chunks whose kept block entities changed (a chest's items): written again.
    fn entities_changed(&mut self, chunks: FxHashSet<ChunkPos>) {
        for pos in chunks {
            self.dirty.entry(pos).or_default();
        }
    }

    /// Notes chunks whose light edits changed: one the region folder holds is written again,
    /// or its saved light would be stale there (a dug torch's light would stay beside it).
    fn relit(&mut self, chunks: FxHashSet<ChunkPos>) {
        for pos in chunks {
            if self.on_disk.contains(&pos) {
                self.dirty.entry(pos).or_default();
            }
        }
    }

    /// Takes in what finished saves report.
    fn settle(&mut self) {
        for outcome in self.outcomes.1.try_iter() {
            for pos in outcome.saved {
                self.saving.remove(&pos);
                self.on_disk.insert(pos);
            }
            for pos in outcome.failed {
                if let Some(bits) = self.saving.remove(&pos) {
                    *self.dirty.entry(pos).or_default() |= bits;
                }
            }
            for pos in outcome.needs_whole {
                self.saving.remove(&pos);
                self.on_disk.remove(&pos);
                self.dirty.insert(pos, ALL_SECTIONS);
            }
        }
    }
}

/// Notes the edits since the last tick (before chunks are dropped, so a changed chunk is never
/// dropped unsaved) and takes in what finished saves report.
pub(super) fn track_edits(
    mut edits: ResMut<Edits>,
    events: Res<Events<BlocksChanged>>,
    mut light: ResMut<Light>,
    mut entities: ResMut<BlockEntities>,
) {
    edits.note(&events);
    edits.relit(light.take_relit());
    edits.entities_changed(entities.take_changed());
    edits.settle();
}

/// The changed chunks to write, encoded on the tick; [`TerrainSave::write`] does the disk work
/// wherever the caller likes.
pub struct TerrainSave {
    regions: Regions,
    edits: Vec<ChunkEdit>,
    report: flume::Sender<SaveOutcome>,
    reported: std::sync::atomic::AtomicBool,
}

impl TerrainSave {
    pub fn chunks(&self) -> usize {
        self.edits.len()
    }

    /// Writes the chunks and reports back to the tick; the outcome is returned too.
    pub fn write(&self) -> SaveOutcome {
        if self.edits.is_empty() {
            return SaveOutcome::default();
        }
        let outcome = self.regions.write(&self.edits);
        self.reported
            .store(true, std::sync::atomic::Ordering::Relaxed);
        // The tick keeps the receiver as long as the server runs.
        let _ = self.report.send(outcome.clone());
        outcome
    }
}

/// A save that never wrote (its thread could not start, or died) gives its chunks back to the
/// next one.
impl Drop for TerrainSave {
    fn drop(&mut self) {
        if !self.edits.is_empty() && !*self.reported.get_mut() {
            let _ = self.report.send(SaveOutcome {
                failed: self.edits.iter().map(|e| e.pos).collect(),
                error: Some("the save did not run".into()),
                ..SaveOutcome::default()
            });
        }
    }
}

/// Encodes every chunk changed since the last save, for writing.
pub fn snapshot_terrain(world: &mut World) -> TerrainSave {
    world.resource_scope(|world, mut edits: Mut<Edits>| {
        edits.note(world.resource::<Events<BlocksChanged>>());
        if let Some(mut light) = world.get_resource_mut::<Light>() {
            edits.relit(light.take_relit());
        }
        if let Some(mut entities) = world.get_resource_mut::<BlockEntities>() {
            edits.entities_changed(entities.take_changed());
        }
        edits.settle();
        let regions = world.resource::<Regions>().clone();
        let biomes = world.resource::<anvil::BiomeNames>().clone();
        let mut layers = world.query_filtered::<&ChunkLayer, With<Overworld>>();
        let mut saves = Vec::new();
        let light = world.get_resource::<Light>();
        let entities = world.get_resource::<BlockEntities>();
        if let Ok(layer) = layers.get_single(world) {
            let edits = &mut *edits;
            for (pos, bits) in std::mem::take(&mut edits.dirty) {
                let Some(chunk) = layer.chunk(pos) else {
                    // Only loaded blocks can change; a box may reach past them.
                    continue;
                };
                let whole = !edits.on_disk.contains(&pos);
                let sections = (0..anvil::SECTIONS)
                    .filter(|&i| whole || bits & (1 << i) != 0)
                    .map(|index| SectionEdit {
                        index,
                        block_states: anvil::encode_blocks(chunk, index),
                        biomes: anvil::encode_biomes(chunk, index, &biomes),
                    })
                    .collect();
                *edits.saving.entry(pos).or_default() |= bits;
                saves.push(ChunkEdit {
                    pos,
                    sections,
                    whole,
                    heightmaps: anvil::heightmap::encode(chunk),
                    light: light.and_then(|l| l.chunk(pos)).cloned(),
                    kept: entities.map(|e| e.of_chunk(pos)).unwrap_or_default(),
                });
            }
        } else if !edits.dirty.is_empty() {
            warn!("the world is not ready; its changes wait for the next save");
        }
        TerrainSave {
            regions,
            edits: saves,
            report: edits.outcomes.0.clone(),
            reported: false.into(),
        }
    })
}

/// Largest box `fill` sets at once, as vanilla.
const FILL_LIMIT: i64 = 32_768;

/// `fill`: sets every loaded block of the box between two corners to `state`.
pub fn fill(world: &mut World, a: BlockPos, b: BlockPos, state: BlockState) -> String {
    let (min, max) = (
        BlockPos::new(a.x.min(b.x), a.y.min(b.y), a.z.min(b.z)),
        BlockPos::new(a.x.max(b.x), a.y.max(b.y), a.z.max(b.z)),
    );
    // In i64: corners at the ends of the i32 range must not wrap to a small box.
    let side = |a: i32, b: i32| b as i64 - a as i64 + 1;
    let volume = side(min.x, max.x) * side(min.y, max.y) * side(min.z, max.z);
    if volume > FILL_LIMIT {
        return format!("error=\"{volume} blocks is more than {FILL_LIMIT}\"");
    }
    match place(world, (min, max), state, |_| true) {
        Ok((set, unloaded)) => format!(
            "filled={set} unloaded={unloaded} block={}",
            state.to_kind().to_str()
        ),
        Err(e) => e,
    }
}

/// `setblock`: sets one block to `state`, only where there is air if `keep` (vanilla's
/// modes `replace` and `keep`). Vanilla's failure when nothing changes.
pub fn set_block(world: &mut World, at: BlockPos, state: BlockState, keep: bool) -> String {
    let placed = place(world, (at, at), state, |old| {
        old != state && (!keep || old.is_air())
    });
    match placed {
        Ok((1, _)) => format!(
            "set=true x={} y={} z={} block={}",
            at.x,
            at.y,
            at.z,
            state.to_kind().to_str()
        ),
        Ok((_, 0)) => "error=\"Could not set the block\"".into(),
        Ok(_) => "error=\"That position is not loaded\"".into(),
        Err(e) => e,
    }
}

/// Sets the loaded blocks of the box to `state` where `replaces` their old state, with a
/// fresh block entity where `state` has one the server keeps (a chest to fill, a sign to
/// write on); how many were set and how many were not loaded.
fn place(
    world: &mut World,
    (min, max): (BlockPos, BlockPos),
    state: BlockState,
    replaces: impl Fn(BlockState) -> bool,
) -> Result<(u32, u32), String> {
    let kept_id = state
        .block_entity_kind()
        .map(|k| k.ident().path().to_owned())
        .filter(|id| super::block_entities::kept(id));
    // A block with an entity (a chest) carries one, which a client needs to draw it.
    let shown = state.block_entity_kind().map(|_| match &kept_id {
        Some(id) => super::block_entities::client_view(&super::block_entities::fresh(id)),
        None => valence::nbt::Compound::new(),
    });
    let mut layers = world.query_filtered::<&mut ChunkLayer, With<Overworld>>();
    let Ok(mut layer) = layers.get_single_mut(world) else {
        return Err("error=\"the world is not ready\"".into());
    };
    let (mut set, mut unloaded) = (0, 0);
    let mut placed = Vec::new();
    for x in min.x..=max.x {
        for y in min.y..=max.y {
            for z in min.z..=max.z {
                let Some(old) = layer.block([x, y, z]).map(|b| b.state) else {
                    unloaded += 1;
                    continue;
                };
                if !replaces(old) {
                    continue;
                }
                let block = Block {
                    state,
                    nbt: shown.clone(),
                };
                layer.set_block([x, y, z], block);
                placed.push(BlockPos::new(x, y, z));
                set += 1;
            }
        }
    }
    if let (Some(id), Some(mut entities)) = (kept_id, world.get_resource_mut::<BlockEntities>()) {
        for at in placed {
            entities.set(at, &id, super::block_entities::fresh(&id));
        }
    }
    world.send_event(BlocksChanged { min, max });
    Ok((set, unloaded))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(events: &mut Events<BlocksChanged>, min: [i32; 3], max: [i32; 3]) {
        events.send(BlocksChanged {
            min: BlockPos::new(min[0], min[1], min[2]),
            max: BlockPos::new(max[0], max[1], max[2]),
        });
    }

    #[test]
    fn an_edit_reaches_blocks_within_a_margin_on_every_axis() {
        let door = BlocksChanged::between(BlockPos::new(4, 64, 0), BlockPos::new(4, 65, 0));
        assert!(door.reaches(BlockPos::new(4, 66, 0), 1));
        assert!(door.reaches(BlockPos::new(6, 62, -2), 2));
        assert!(
            !door.reaches(BlockPos::new(7, 64, 0), 2),
            "three blocks aside"
        );
        assert!(
            !door.reaches(BlockPos::new(4, 68, 0), 2),
            "three blocks above"
        );
    }

    #[test]
    fn an_edit_marks_the_sections_and_chunks_it_touches() {
        let mut edits = Edits::default();
        let mut events = Events::default();
        change(&mut events, [-1, -64, 5], [16, -49, 5]);
        edits.note(&events);
        assert_eq!(edits.dirty.get(&ChunkPos::new(-1, 0)), Some(&0b1));
        assert_eq!(edits.dirty.get(&ChunkPos::new(0, 0)), Some(&0b1));
        assert_eq!(edits.dirty.get(&ChunkPos::new(1, 0)), Some(&0b1));
        change(&mut events, [0, 70, 0], [0, 90, 0]);
        edits.note(&events);
        assert_eq!(edits.dirty.get(&ChunkPos::new(0, 0)), Some(&0b11_0000_0001));
        change(&mut events, [0, -100, 0], [0, 400, 0]);
        edits.note(&events);
        assert_eq!(edits.dirty.get(&ChunkPos::new(0, 0)), Some(&ALL_SECTIONS));
    }

    #[test]
    fn a_failed_save_leaves_its_chunks_to_the_next_and_a_good_one_frees_them() {
        let mut edits = Edits::default();
        let (a, b) = (ChunkPos::new(0, 0), ChunkPos::new(1, 0));
        edits.saving.insert(a, 0b10);
        edits.saving.insert(b, 0b1);
        edits.dirty.insert(a, 0b1);
        let _ = edits.outcomes.0.send(SaveOutcome {
            saved: vec![b],
            failed: vec![a],
            ..Default::default()
        });
        edits.settle();
        assert_eq!(edits.dirty.get(&a), Some(&0b11));
        assert!(!edits.holds(b));
        assert!(edits.on_disk.contains(&b));
    }
}
