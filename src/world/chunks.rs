//! Chunk lifetime: which chunks are loaded, for how long, and how long that takes.
//!
//! A chunk a client needs is read from the region folder on one worker thread; a chunk the
//! folder lacks is generated on another, so the tick never waits. A chunk stays for
//! `chunks.retention_ticks` after its last viewer leaves, as vanilla keeps chunks a while, and
//! one with changes not yet saved stays until a save has written it.
//!
//! Both latencies are measured in ticks and kept as distributions: from the tick a client's view
//! first needs a chunk to the tick it is in the layer, and from the tick its last viewer leaves
//! to the tick it is dropped. The pack system's dematerialisation grace is judged against them.

use std::collections::{HashMap, HashSet};

use rustc_hash::FxHashSet;

use valence::layer::UpdateLayersPreClientSet;
use valence::log::{info, warn};
use valence::prelude::*;

use super::anvil::{Loaded, Loader};
use super::edit::Edits;
use super::generate::Terrain;
use super::surface::{surface, ChunkArrived, Surface};
use super::Overworld;
use crate::config::{Config, ConfigChanged};
use crate::metrics::Histogram;
use crate::TickSet;

pub struct ChunksPlugin {
    pub seed: i64,
}

impl Plugin for ChunksPlugin {
    fn build(&self, app: &mut App) {
        let config = &app.world.resource::<Config>().chunks;
        let lifecycle = ChunkLifecycle::new(config.retention_ticks, config.report_interval_ticks);
        app.add_event::<ChunkDropped>()
            .insert_resource(EntityTicking::default())
            .insert_resource(lifecycle)
            .insert_resource(Generator::start(self.seed))
            .add_systems(
                PostUpdate,
                note_needed_chunks.before(UpdateLayersPreClientSet),
            )
            .add_systems(
                Update,
                (
                    insert_read_chunks,
                    insert_generated_chunks,
                    drop_unviewed_chunks,
                    mark_entity_ticking,
                    log_chunk_report,
                )
                    .in_set(TickSet::World),
            )
            .add_systems(Update, retime_chunks.in_set(TickSet::Config));
    }
}

/// After a `reload` of `[chunks]`: the new retention and report interval.
fn retime_chunks(
    mut changed: EventReader<ConfigChanged>,
    mut lifecycle: ResMut<ChunkLifecycle>,
    config: Res<Config>,
) {
    if changed.iter().any(|c| c.touches("chunks")) {
        let chunks = &config.chunks;
        lifecycle.set_timing(chunks.retention_ticks, chunks.report_interval_ticks);
    }
}

/// Loaded chunks where entities act: within the simulation distance (`lod.quarter_radius`,
/// beyond which zombies freeze) of a player, as vanilla's simulation distance. Other modules
/// read this set instead of players' positions.
#[derive(Resource, Debug, Default)]
pub struct EntityTicking(pub FxHashSet<ChunkPos>);

impl EntityTicking {
    pub fn contains_block(&self, pos: DVec3) -> bool {
        self.0.contains(&ChunkPos::from_pos(pos))
    }
}

/// A chunk left the layer (its retention ran out).
#[derive(Event, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkDropped(pub ChunkPos);

/// Loaded, pending and measured chunks of the overworld.
#[derive(Resource, Debug)]
pub struct ChunkLifecycle {
    retention_ticks: u64,
    report_interval_ticks: u64,
    /// Chunks a client needs that are not loaded yet, with the tick the need began.
    needed_since: HashMap<ChunkPos, i64>,
    /// Loaded chunks nobody views, with the tick the last viewer left.
    unviewed_since: HashMap<ChunkPos, i64>,
    /// Chunks never dropped (spawn chunks).
    pinned: HashSet<ChunkPos>,
    loaded: usize,
    generated: u64,
    failed: u64,
    /// Ticks from first needed to in the layer.
    pub load_latency: Histogram,
    /// Ticks from last viewer gone to dropped.
    pub unload_latency: Histogram,
}

impl ChunkLifecycle {
    pub fn new(retention_ticks: u64, report_interval_ticks: u64) -> Self {
        Self {
            retention_ticks,
            report_interval_ticks,
            needed_since: HashMap::new(),
            unviewed_since: HashMap::new(),
            pinned: HashSet::new(),
            loaded: 0,
            generated: 0,
            failed: 0,
            load_latency: Histogram::default(),
            unload_latency: Histogram::default(),
        }
    }

    /// Chunks a client needs that are not loaded yet.
    pub fn pending(&self) -> usize {
        self.needed_since.len()
    }

    /// Applies new `[chunks]` timing (a reload).
    pub fn set_timing(&mut self, retention_ticks: u64, report_interval_ticks: u64) {
        self.retention_ticks = retention_ticks;
        self.report_interval_ticks = report_interval_ticks;
    }

    /// Keeps a chunk loaded for good, and counts it as needed from `now`.
    pub fn pin(&mut self, pos: ChunkPos, now: i64) {
        self.pinned.insert(pos);
        self.need(pos, now);
    }

    fn need(&mut self, pos: ChunkPos, now: i64) {
        self.needed_since.entry(pos).or_insert(now);
    }

    fn arrived(&mut self, pos: ChunkPos, now: i64) {
        if let Some(since) = self.needed_since.remove(&pos) {
            self.load_latency.record((now - since).max(0) as u64);
        }
    }

    /// Whether a chunk with `viewers` should go, given it is `now`.
    fn should_drop(&mut self, pos: ChunkPos, viewers: u32, now: i64) -> bool {
        if viewers > 0 || self.pinned.contains(&pos) {
            self.unviewed_since.remove(&pos);
            return false;
        }
        let since = *self.unviewed_since.entry(pos).or_insert(now);
        if (now - since) as u64 >= self.retention_ticks {
            self.unviewed_since.remove(&pos);
            self.unload_latency.record((now - since) as u64);
            true
        } else {
            false
        }
    }

    /// The `chunks` status line (logfmt).
    pub fn report(&self) -> String {
        format!(
            "loaded={} pending={} generated={} failed={} retention_ticks={} {} {}",
            self.loaded,
            self.needed_since.len(),
            self.generated,
            self.failed,
            self.retention_ticks,
            self.load_latency.logfmt("load"),
            self.unload_latency.logfmt("unload"),
        )
    }
}

/// Lowers the calling thread's priority (nice 10). Generation is the heaviest work a server
/// does while players explore; on a machine with few cores it must not delay ticks, and a
/// chunk a few ticks late is better than every tick late.
fn yield_to_the_tick() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority only reads its arguments; on Linux, who = 0 is the calling thread.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}

/// The terrain generator's worker thread and the chunks handed to it.
#[derive(Resource)]
pub(super) struct Generator {
    requests: flume::Sender<ChunkPos>,
    done: flume::Receiver<(ChunkPos, UnloadedChunk, Surface)>,
    in_flight: HashSet<ChunkPos>,
}

impl Generator {
    fn start(seed: i64) -> Self {
        let (requests, todo) = flume::unbounded::<ChunkPos>();
        let (finished, done) = flume::unbounded();
        std::thread::Builder::new()
            .name("terrain".into())
            .spawn(move || {
                yield_to_the_tick();
                let terrain = Terrain::new(seed);
                for pos in todo.iter() {
                    let chunk = terrain.generate(pos);
                    let surface = surface(&chunk);
                    if finished.send((pos, chunk, surface)).is_err() {
                        break;
                    }
                }
            })
            .expect("the OS refused to start the terrain thread");
        Self {
            requests,
            done,
            in_flight: HashSet::new(),
        }
    }

    fn request(&mut self, pos: ChunkPos) {
        if self.in_flight.insert(pos) {
            // The worker lives as long as the generator: a send cannot fail.
            let _ = self.requests.send(pos);
        }
    }
}

/// Asks for the chunks entering clients' views, nearest first, and records the tick each was
/// first needed.
fn note_needed_chunks(
    clients: Query<(View, OldView, Ref<OldEntityLayerId>), With<Client>>,
    layers: Query<&ChunkLayer, With<Overworld>>,
    server: Res<Server>,
    mut lifecycle: ResMut<ChunkLifecycle>,
    mut loader: ResMut<Loader>,
    generator: Res<Generator>,
    mut wanted: Local<Vec<(u64, ChunkPos)>>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let now = server.current_tick();
    for (view, old_view, old_layer) in &clients {
        let (view, old_view) = (view.get(), old_view.get());
        if view == old_view && !old_layer.is_added() {
            continue;
        }
        let mut note = |pos: ChunkPos| {
            if layer.chunk(pos).is_none() {
                lifecycle.need(pos, now);
                wanted.push((view.pos.distance_squared(pos), pos));
            }
        };
        if old_layer.is_added() {
            view.iter().for_each(&mut note);
        } else {
            view.diff(old_view).for_each(&mut note);
        }
    }
    wanted.sort_unstable_by_key(|&(distance, _)| distance);
    for (_, pos) in wanted.drain(..) {
        if !generator.in_flight.contains(&pos) {
            loader.request(pos);
        }
    }
}

/// Puts chunks read from the region folder in the layer, and sends the ones it lacks (or
/// cannot read) to the generator.
fn insert_read_chunks(
    mut loader: ResMut<Loader>,
    mut generator: ResMut<Generator>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    mut lifecycle: ResMut<ChunkLifecycle>,
    mut edits: ResMut<Edits>,
    mut arrived: EventWriter<ChunkArrived>,
    server: Res<Server>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    for (pos, loaded) in loader.finished() {
        match loaded {
            Loaded::Chunk(chunk, surface) => {
                if layer.chunk(pos).is_none() {
                    layer.insert_chunk(pos, chunk);
                    edits.loaded_from_disk(pos);
                    arrived.send(ChunkArrived { pos, surface });
                }
                lifecycle.arrived(pos, server.current_tick());
            }
            Loaded::Missing => generator.request(pos),
            Loaded::Unreadable(err, aside) => {
                lifecycle.failed += 1;
                let kept = aside
                    .map(|path| format!("; a copy of its region file is at {}", path.display()))
                    .unwrap_or_default();
                warn!(
                    "chunk x={} z={} in the world folder is unreadable ({err:#}); generating it instead{kept}",
                    pos.x, pos.z
                );
                generator.request(pos);
            }
        }
    }
}

fn insert_generated_chunks(
    mut generator: ResMut<Generator>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    mut lifecycle: ResMut<ChunkLifecycle>,
    mut arrived: EventWriter<ChunkArrived>,
    server: Res<Server>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    let generator = &mut *generator;
    for (pos, chunk, surface) in generator.done.try_iter() {
        generator.in_flight.remove(&pos);
        if layer.chunk(pos).is_none() {
            layer.insert_chunk(pos, chunk);
            lifecycle.generated += 1;
            arrived.send(ChunkArrived { pos, surface });
        }
        lifecycle.arrived(pos, server.current_tick());
    }
}

pub(super) fn drop_unviewed_chunks(
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    mut lifecycle: ResMut<ChunkLifecycle>,
    mut edits: ResMut<Edits>,
    mut to_drop: Local<Vec<ChunkPos>>,
    mut dropped: EventWriter<ChunkDropped>,
    server: Res<Server>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    let now = server.current_tick();
    let mut loaded = 0;
    for (pos, chunk) in layer.chunks() {
        loaded += 1;
        if !edits.holds(pos) && lifecycle.should_drop(pos, chunk.viewer_count(), now) {
            to_drop.push(pos);
        }
    }
    lifecycle.loaded = loaded - to_drop.len();
    for pos in to_drop.drain(..) {
        layer.remove_chunk(pos);
        edits.unloaded(pos);
        dropped.send(ChunkDropped(pos));
    }
}

/// Recomputes [`EntityTicking`] from the players' chunks. The set is replaced only when it
/// differs: readers that rebuild on a change (the packs' sleep index) then do so when a player
/// crosses a chunk or a chunk loads, not every tick.
pub fn mark_entity_ticking(
    players: Query<&Position, With<Client>>,
    layers: Query<&ChunkLayer, With<Overworld>>,
    mut ticking: ResMut<EntityTicking>,
    mut scratch: Local<FxHashSet<ChunkPos>>,
    config: Res<Config>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let radius = (config.lod.quarter_radius / 16.0).ceil() as i32;
    scratch.clear();
    for pos in &players {
        let centre = ChunkPos::from_pos(pos.0);
        for dz in -radius..=radius {
            for dx in -radius..=radius {
                let chunk = ChunkPos::new(centre.x + dx, centre.z + dz);
                if dx * dx + dz * dz <= radius * radius && layer.chunk(chunk).is_some() {
                    scratch.insert(chunk);
                }
            }
        }
    }
    if ticking.0 != *scratch {
        std::mem::swap(&mut ticking.0, &mut scratch);
    }
}

fn log_chunk_report(lifecycle: Res<ChunkLifecycle>, server: Res<Server>) {
    let tick = server.current_tick();
    if tick > 0 && (tick as u64).is_multiple_of(lifecycle.report_interval_ticks) {
        info!("chunks {}", lifecycle.report());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_latency_counts_from_first_need() {
        let mut l = ChunkLifecycle::new(10, 1200);
        let pos = ChunkPos::new(1, 2);
        l.need(pos, 5);
        l.need(pos, 7);
        l.arrived(pos, 9);
        assert_eq!(l.load_latency.max(), Some(4));
        l.arrived(pos, 20);
        assert_eq!(l.load_latency.samples(), 1, "a chunk arrives once per need");
    }

    #[test]
    fn dropped_only_after_retention_without_viewers() {
        let mut l = ChunkLifecycle::new(10, 1200);
        let pos = ChunkPos::new(0, 0);
        assert!(!l.should_drop(pos, 1, 0));
        assert!(!l.should_drop(pos, 0, 1));
        assert!(!l.should_drop(pos, 0, 10));
        assert!(
            !l.should_drop(pos, 2, 11),
            "a returning viewer resets the clock"
        );
        assert!(!l.should_drop(pos, 0, 12));
        assert!(!l.should_drop(pos, 0, 21));
        assert!(l.should_drop(pos, 0, 22));
        assert_eq!(l.unload_latency.max(), Some(10));
    }

    #[test]
    fn pinned_chunks_stay() {
        let mut l = ChunkLifecycle::new(1, 1200);
        let pos = ChunkPos::new(0, 0);
        l.pin(pos, 0);
        assert!(!l.should_drop(pos, 0, 0));
        assert!(!l.should_drop(pos, 0, 1000));
    }
}
