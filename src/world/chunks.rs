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

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Duration;

use bevy_ecs::system::SystemParam;
use rustc_hash::{FxHashMap, FxHashSet};

use valence::client::ClientMarker;
use valence::log::{info, warn};
use valence::prelude::*;
use valence::protocol::CompressionThreshold;

use super::anvil::{Loaded, Loader};
use super::block_entities::BlockEntities;
use super::edit::Edits;
use super::gate::{close_gate, open_gate, TickGate};
use super::generate::{Generated, Land};
use super::light::{whole_light_packet, Light};
use super::nav::Nav;
use super::surface::ChunkArrived;
use super::Overworld;
use crate::config::{Config, ConfigChanged};
use crate::light::{light_chunk, ChunkLight};
use crate::metrics::Histogram;
use crate::schedule::TickSet;

pub struct ChunksPlugin {
    /// What fills the chunks the world folder lacks.
    pub land: Land,
    /// Whether the terrain worker waits for each tick to end (see [`TickGate`]).
    pub between_ticks: bool,
}

impl Plugin for ChunksPlugin {
    fn build(&self, app: &mut App) {
        let config = &app.world.resource::<Config>().chunks;
        let lifecycle = ChunkLifecycle::new(config.retention_ticks, config.report_interval_ticks);
        let exported = lifecycle.exported.clone();
        crate::metrics::register(
            app,
            "horde_chunks_loaded",
            "Chunks loaded in the overworld",
            exported.loaded,
        );
        crate::metrics::register(
            app,
            "horde_chunk_load_ticks",
            "Ticks from a client first needing a chunk to its being loaded",
            exported.load,
        );
        crate::metrics::register(
            app,
            "horde_chunk_unload_ticks",
            "Ticks from a chunk's last viewer leaving to its being dropped",
            exported.unload,
        );
        let threshold = app.world.resource::<Server>().compression_threshold();
        let gate = self.between_ticks.then(|| {
            let budget = Duration::from_secs(1) / app.world.resource::<Server>().tick_rate().get();
            (TickGate::default(), budget)
        });
        if let Some((gate, _)) = &gate {
            app.insert_resource(gate.clone())
                .add_systems(First, close_gate)
                .add_systems(Last, open_gate);
        }
        app.add_event::<ChunkDropped>()
            .insert_resource(EntityTicking::default())
            .insert_resource(lifecycle)
            .insert_resource(Generator::start(self.land.clone(), gate, threshold))
            .add_systems(
                PostUpdate,
                note_needed_chunks.in_set(crate::schedule::BeforeLayersSet),
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
pub struct EntityTicking {
    chunks: FxHashSet<ChunkPos>,
    /// The same chunks as bits over their bounding box, when that box is small enough: every
    /// zombie is looked up every tick, and a bit costs a fraction of a hash lookup.
    bits: Option<ChunkBits>,
    /// A chunk was set outside the bits' box (or there is none): they are built again.
    stale_bits: bool,
}

/// Chunks as bits over a box of `width` by `height` chunks from `min`.
#[derive(Debug)]
struct ChunkBits {
    min: ChunkPos,
    width: u32,
    height: u32,
    words: Vec<u64>,
}

impl ChunkBits {
    /// Most chunks in the box (64 KiB of bits): players far apart keep the hash set alone.
    const MOST: u64 = 1 << 19;

    fn of(chunks: &FxHashSet<ChunkPos>) -> Option<Self> {
        let first = chunks.iter().next()?;
        let (mut min, mut max) = (*first, *first);
        for c in chunks {
            (min.x, min.z) = (min.x.min(c.x), min.z.min(c.z));
            (max.x, max.z) = (max.x.max(c.x), max.z.max(c.z));
        }
        let width = (max.x - min.x + 1) as u32;
        let height = (max.z - min.z + 1) as u32;
        if u64::from(width) * u64::from(height) > Self::MOST {
            return None;
        }
        let mut bits = Self {
            min,
            width,
            height,
            words: vec![0; (width * height).div_ceil(64) as usize],
        };
        for c in chunks {
            let i = bits.index(*c).expect("inside the box");
            bits.words[i / 64] |= 1 << (i % 64);
        }
        Some(bits)
    }

    fn index(&self, c: ChunkPos) -> Option<usize> {
        let x = c.x.wrapping_sub(self.min.x) as u32;
        let z = c.z.wrapping_sub(self.min.z) as u32;
        (x < self.width && z < self.height).then(|| (z * self.width + x) as usize)
    }

    fn contains(&self, c: ChunkPos) -> bool {
        self.index(c)
            .is_some_and(|i| self.words[i / 64] & (1 << (i % 64)) != 0)
    }
}

impl EntityTicking {
    pub fn new(chunks: FxHashSet<ChunkPos>) -> Self {
        Self {
            bits: ChunkBits::of(&chunks),
            chunks,
            stale_bits: false,
        }
    }

    /// Adds or removes one chunk. The bits follow when the chunk is inside their box; else
    /// they are stale until [`Self::rebuild_bits_if_stale`].
    fn set(&mut self, chunk: ChunkPos, ticking: bool) {
        if ticking {
            self.chunks.insert(chunk);
        } else {
            self.chunks.remove(&chunk);
        }
        match self
            .bits
            .as_mut()
            .and_then(|b| b.index(chunk).map(|i| (b, i)))
        {
            Some((bits, i)) if ticking => bits.words[i / 64] |= 1 << (i % 64),
            Some((bits, i)) => bits.words[i / 64] &= !(1 << (i % 64)),
            // Outside the box, or no box (players far apart): the box may have grown or
            // shrunk.
            None => self.stale_bits = true,
        }
    }

    fn rebuild_bits_if_stale(&mut self) {
        if std::mem::take(&mut self.stale_bits) {
            self.bits = ChunkBits::of(&self.chunks);
        }
    }

    pub fn contains_block(&self, pos: DVec3) -> bool {
        // `ChunkPos::from_pos` by a cast: a float division and `floor` (a library call on the
        // baseline x86-64 target) cost more than the lookup itself.
        let of = |v: f64| {
            let block = v as i32;
            (block - i32::from(f64::from(block) > v)) >> 4
        };
        let chunk = ChunkPos::new(of(pos.x), of(pos.z));
        match &self.bits {
            Some(bits) => bits.contains(chunk),
            None => self.chunks.contains(&chunk),
        }
    }

    pub fn chunks(&self) -> impl Iterator<Item = ChunkPos> + '_ {
        self.chunks.iter().copied()
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
    needed_since: FxHashMap<ChunkPos, i64>,
    /// Chunks that may have no viewer left: they left a client's view or arrived. Looked at
    /// on the next tick, once Valence has counted their viewers.
    maybe_unviewed: Vec<ChunkPos>,
    unviewed: Unviewed,
    /// Chunks never dropped (spawn chunks).
    pinned: FxHashSet<ChunkPos>,
    loaded: usize,
    generated: u64,
    failed: u64,
    /// Ticks from first needed to in the layer.
    pub load_latency: Histogram,
    /// Ticks from last viewer gone to dropped.
    pub unload_latency: Histogram,
    exported: ChunkMetrics,
}

/// The chunks' figures for the metrics endpoint, kept as they change.
#[derive(Debug, Clone)]
struct ChunkMetrics {
    loaded: prometheus_client::metrics::gauge::Gauge,
    load: prometheus_client::metrics::histogram::Histogram,
    unload: prometheus_client::metrics::histogram::Histogram,
}

impl Default for ChunkMetrics {
    fn default() -> Self {
        // Ticks: within a tick, a second, ten seconds, a minute (the default retention is 300).
        let buckets = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 400.0, 1200.0];
        Self {
            loaded: Default::default(),
            load: prometheus_client::metrics::histogram::Histogram::new(buckets),
            unload: prometheus_client::metrics::histogram::Histogram::new(buckets),
        }
    }
}

impl ChunkLifecycle {
    pub fn new(retention_ticks: u64, report_interval_ticks: u64) -> Self {
        Self {
            retention_ticks,
            report_interval_ticks,
            needed_since: FxHashMap::default(),
            maybe_unviewed: Vec::new(),
            unviewed: Unviewed::default(),
            pinned: FxHashSet::default(),
            loaded: 0,
            generated: 0,
            failed: 0,
            load_latency: Histogram::default(),
            unload_latency: Histogram::default(),
            exported: ChunkMetrics::default(),
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
        self.unviewed.retime(retention_ticks);
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
            let ticks = (now - since).max(0) as u64;
            self.load_latency.record(ticks);
            self.exported.load.observe(ticks as f64);
        }
    }

    /// Chunk `pos` arrived, or left a client's view: it may have no viewer left.
    fn maybe_unviewed(&mut self, pos: ChunkPos) {
        self.maybe_unviewed.push(pos);
    }

    /// Chunk `pos`, which may have lost its last viewer, has `viewers` now: with none its
    /// retention starts (a spawn chunk has none).
    fn counted(&mut self, pos: ChunkPos, viewers: u32, now: i64) {
        if viewers == 0 && !self.pinned.contains(&pos) {
            self.unviewed.left(pos, now, self.retention_ticks);
        }
    }

    /// The lifecycle's part of the `chunks` status line (logfmt).
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

/// Loaded chunks nobody views and when each goes: `retention` ticks after its last viewer left,
/// unless a viewer comes back. Only the chunks that may have lost their last viewer are looked
/// at, and each again when its retention ends, rather than every loaded chunk every tick.
#[derive(Debug, Default)]
struct Unviewed {
    /// The chunks, with the tick the last viewer left.
    since: FxHashMap<ChunkPos, i64>,
    /// When to look at a chunk again: its retention's end, or later for one held back. An
    /// entry for a chunk that has been viewed again since is stale and skipped.
    checks: BinaryHeap<Reverse<(i64, ChunkPos)>>,
}

impl Unviewed {
    /// The last viewer of `pos` left at `now`.
    fn left(&mut self, pos: ChunkPos, now: i64, retention: u64) {
        self.since.insert(pos, now);
        self.checks.push(Reverse((now + retention as i64, pos)));
    }

    /// A chunk whose retention has run out by `now`, with the tick its last viewer left; it
    /// stays listed until [`Self::forget`] or [`Self::hold`].
    fn next_due(&mut self, now: i64, retention: u64) -> Option<(ChunkPos, i64)> {
        while let Some(&Reverse((at, pos))) = self.checks.peek() {
            if at > now {
                return None;
            }
            self.checks.pop();
            match self.since.get(&pos) {
                Some(&since) if now - since >= retention as i64 => return Some((pos, since)),
                _ => {}
            }
        }
        None
    }

    /// `pos` is viewed again, or gone.
    fn forget(&mut self, pos: ChunkPos) {
        self.since.remove(&pos);
    }

    /// `pos` must stay for now: it is looked at again at `until`.
    fn hold(&mut self, pos: ChunkPos, until: i64) {
        self.checks.push(Reverse((until, pos)));
    }

    /// A new retention (a reload): every chunk is looked at again when it ends.
    fn retime(&mut self, retention: u64) {
        self.checks = self
            .since
            .iter()
            .map(|(&pos, &since)| Reverse((since + retention as i64, pos)))
            .collect();
    }
}

/// Lowers the calling thread's priority (nice 10). Generation is the heaviest work a server
/// does while players explore; on a machine with few cores it must not delay ticks, and a
/// chunk a few ticks late is better than every tick late. Not `SCHED_IDLE`, which measured a
/// little better under load: any busy process could then starve generation, and an
/// unprivileged thread cannot take it back.
fn yield_to_the_tick() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority only reads its arguments; on Linux, who = 0 is the calling thread.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}

/// The terrain generator's worker thread and the chunks waiting for it.
#[derive(Resource)]
pub(super) struct Generator {
    requests: flume::Sender<ChunkPos>,
    /// Each chunk made, lit, with its whole light encoded as clients are sent it.
    done: flume::Receiver<(ChunkPos, Generated, ChunkLight, Vec<u8>)>,
    backlog: Backlog,
}

/// The chunks asked of the generator, handed to its thread a few at a time in the order asked:
/// a chunk nobody needs any more by its turn (its player teleported on, flew past or left) is
/// dropped rather than made, where a queue of every request kept the generator busy with
/// places long left while the chunks players stand in waited behind them.
#[derive(Debug, Default)]
struct Backlog {
    waiting: VecDeque<ChunkPos>,
    /// Waiting, or handed over and not made yet.
    asked: FxHashSet<ChunkPos>,
    /// Handed over and not made yet.
    handed: usize,
}

impl Backlog {
    /// Chunks the worker holds at most: more than it makes between two ticks (about 20, at
    /// 1.5 ms a chunk), so it never waits for a hand-over, and few enough that little of what
    /// it holds goes stale.
    const MOST_HANDED: usize = 64;

    fn ask(&mut self, pos: ChunkPos) {
        if self.asked.insert(pos) {
            self.waiting.push_back(pos);
        }
    }

    fn asked(&self, pos: ChunkPos) -> bool {
        self.asked.contains(&pos)
    }

    /// Hands the next waiting chunks that are still `needed` to `worker`, up to
    /// [`Self::MOST_HANDED`] in its hands; those no longer needed go to `dropped`.
    fn hand_over(
        &mut self,
        needed: impl Fn(ChunkPos) -> bool,
        mut worker: impl FnMut(ChunkPos),
        dropped: &mut Vec<ChunkPos>,
    ) {
        while self.handed < Self::MOST_HANDED {
            let Some(pos) = self.waiting.pop_front() else {
                break;
            };
            if needed(pos) {
                worker(pos);
                self.handed += 1;
            } else {
                self.asked.remove(&pos);
                dropped.push(pos);
            }
        }
    }

    /// The worker made `pos`.
    fn made(&mut self, pos: ChunkPos) {
        if self.asked.remove(&pos) {
            self.handed = self.handed.saturating_sub(1);
        }
    }
}

impl Generator {
    /// Starts the worker; with a gate, it generates between ticks or once a tick has run its
    /// budget.
    fn start(
        land: Land,
        gate: Option<(TickGate, Duration)>,
        threshold: CompressionThreshold,
    ) -> Self {
        let (requests, todo) = flume::unbounded::<ChunkPos>();
        let (finished, done) = flume::unbounded();
        std::thread::Builder::new()
            .name("terrain".into())
            .spawn(move || {
                yield_to_the_tick();
                for pos in todo.iter() {
                    if let Some((gate, budget)) = &gate {
                        gate.wait_between_ticks(*budget);
                    }
                    let made = land.generate(pos);
                    let light = light_chunk(|x, y, z| made.chunk.block_state(x, y, z));
                    let packet = whole_light_packet(pos, &light, threshold);
                    if finished.send((pos, made, light, packet)).is_err() {
                        break;
                    }
                }
            })
            .expect("the OS refused to start the terrain thread");
        Self {
            requests,
            done,
            backlog: Backlog::default(),
        }
    }

    fn request(&mut self, pos: ChunkPos) {
        self.backlog.ask(pos);
    }

    /// Hands the worker the next chunks still `needed`; returns those dropped.
    fn hand_over(&mut self, needed: impl Fn(ChunkPos) -> bool) -> Vec<ChunkPos> {
        let mut dropped = Vec::new();
        let requests = &self.requests;
        self.backlog.hand_over(
            needed,
            // The worker lives as long as the generator: a send cannot fail.
            |pos| {
                let _ = requests.send(pos);
            },
            &mut dropped,
        );
        dropped
    }
}

/// Clients' views of the world: of those playing, what they see now and saw last tick (and
/// whether they just joined the layer); of those leaving, what they saw.
#[derive(SystemParam)]
struct Views<'w, 's> {
    clients: Query<'w, 's, (View, OldView, Ref<'static, OldEntityLayerId>), With<Client>>,
    leaving: Query<'w, 's, View, (With<ClientMarker>, With<Despawned>)>,
}

/// Asks for the chunks entering clients' views, nearest first, and records the tick each was
/// first needed; notes the chunks leaving views, which may have no viewer left.
fn note_needed_chunks(
    views: Views,
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
    for (view, old_view, old_layer) in &views.clients {
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
            old_view
                .diff(view)
                .for_each(|pos| lifecycle.maybe_unviewed(pos));
        }
    }
    for view in &views.leaving {
        view.get()
            .iter()
            .for_each(|pos| lifecycle.maybe_unviewed(pos));
    }
    wanted.sort_unstable_by_key(|&(distance, _)| distance);
    for (_, pos) in wanted.drain(..) {
        if !generator.backlog.asked(pos) {
            loader.request(pos);
        }
    }
}

/// The two workers chunks come from: the reader of the region folder, and the generator for
/// what the folder lacks.
#[derive(SystemParam)]
struct ChunkWorkers<'w> {
    loader: ResMut<'w, Loader>,
    generator: ResMut<'w, Generator>,
}

/// What is kept beside each chunk's blocks: the walkability facts and the light.
#[derive(SystemParam)]
pub(super) struct Beside<'w> {
    nav: ResMut<'w, Nav>,
    light: ResMut<'w, Light>,
    entities: ResMut<'w, BlockEntities>,
}

/// Puts chunks read from the region folder in the layer, and sends the ones it lacks (or
/// cannot read) to the generator.
fn insert_read_chunks(
    mut workers: ChunkWorkers,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    mut lifecycle: ResMut<ChunkLifecycle>,
    mut edits: ResMut<Edits>,
    mut beside: Beside,
    mut arrived: EventWriter<ChunkArrived>,
    server: Res<Server>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    let ChunkWorkers { loader, generator } = &mut workers;
    for (pos, loaded) in loader.finished() {
        match loaded {
            Loaded::Chunk(read) => {
                if layer.chunk(pos).is_none() {
                    let read = *read;
                    layer.insert_chunk(pos, read.blocks);
                    beside.entities.insert_chunk(pos, read.kept);
                    beside.nav.insert(pos, read.nav);
                    beside.light.insert(pos, read.light, read.light_packet);
                    edits.loaded_from_disk(pos);
                    arrived.send(ChunkArrived {
                        pos,
                        surface: read.surface,
                    });
                    lifecycle.loaded += 1;
                    lifecycle.exported.loaded.set(lifecycle.loaded as i64);
                    lifecycle.maybe_unviewed(pos);
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

/// Puts the generated chunks in the layer, and hands the generator the next ones that a
/// client's view (or the spawn) still needs.
fn insert_generated_chunks(
    mut generator: ResMut<Generator>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    mut lifecycle: ResMut<ChunkLifecycle>,
    mut beside: Beside,
    mut arrived: EventWriter<ChunkArrived>,
    clients: Query<View, With<Client>>,
    server: Res<Server>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    let generator = &mut *generator;
    for (pos, made, lit, packet) in generator.done.try_iter() {
        generator.backlog.made(pos);
        if layer.chunk(pos).is_none() {
            layer.insert_chunk(pos, made.chunk);
            beside.entities.insert_chunk(pos, Vec::new());
            beside.nav.insert(pos, made.nav);
            beside.light.insert(pos, lit, packet);
            lifecycle.generated += 1;
            arrived.send(ChunkArrived {
                pos,
                surface: made.surface,
            });
            lifecycle.loaded += 1;
            lifecycle.exported.loaded.set(lifecycle.loaded as i64);
            lifecycle.maybe_unviewed(pos);
        }
        lifecycle.arrived(pos, server.current_tick());
    }
    let lifecycle = &mut *lifecycle;
    let pinned = &lifecycle.pinned;
    let dropped = generator
        .hand_over(|pos| pinned.contains(&pos) || clients.iter().any(|v| v.get().contains(pos)));
    for pos in dropped {
        // Needed again later, it is timed from then.
        lifecycle.needed_since.remove(&pos);
    }
}

/// Chunks dropped in one tick at most. Players who teleport away leave hundreds of chunks
/// each, whose retention then ends on one tick: dropping thousands at once made that tick
/// overrun; the rest go on the next ticks.
const MOST_DROPPED_A_TICK: usize = 256;

/// Ticks before a chunk kept for its unsaved changes is looked at again.
const HELD_TICKS: i64 = 20;

/// Drops the chunks whose retention has run out since their last viewer left, but those with
/// changes not yet saved.
pub(super) fn drop_unviewed_chunks(
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    mut lifecycle: ResMut<ChunkLifecycle>,
    mut edits: ResMut<Edits>,
    mut beside: Beside,
    mut dropped: EventWriter<ChunkDropped>,
    server: Res<Server>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    let now = server.current_tick();
    let lifecycle = &mut *lifecycle;
    let retention = lifecycle.retention_ticks;
    for pos in std::mem::take(&mut lifecycle.maybe_unviewed) {
        if let Some(chunk) = layer.chunk(pos) {
            lifecycle.counted(pos, chunk.viewer_count(), now);
        }
    }
    let mut gone = 0;
    while gone < MOST_DROPPED_A_TICK {
        let Some((pos, since)) = lifecycle.unviewed.next_due(now, retention) else {
            break;
        };
        match layer.chunk(pos).map(|c| c.viewer_count()) {
            Some(0) if edits.holds(pos) => lifecycle.unviewed.hold(pos, now + HELD_TICKS),
            Some(0) => {
                lifecycle.unviewed.forget(pos);
                lifecycle.unload_latency.record((now - since) as u64);
                lifecycle.exported.unload.observe((now - since) as f64);
                lifecycle.loaded -= 1;
                lifecycle.exported.loaded.set(lifecycle.loaded as i64);
                layer.remove_chunk(pos);
                beside.nav.remove(pos);
                beside.light.remove(pos);
                beside.entities.remove_chunk(pos);
                edits.unloaded(pos);
                dropped.send(ChunkDropped(pos));
                gone += 1;
            }
            _ => lifecycle.unviewed.forget(pos),
        }
    }
}

/// How many players' discs of entity-ticking chunks cover each chunk, kept up as players cross
/// chunks: with a hundred players someone crosses one nearly every tick, and rebuilding the
/// set of some 20,000 chunks each time cost a millisecond a tick.
#[derive(Debug, Default)]
pub struct Coverage {
    radius: i32,
    centres: FxHashMap<Entity, ChunkPos>,
    count: FxHashMap<ChunkPos, u32>,
}

impl Coverage {
    fn new(radius: i32) -> Self {
        Self {
            radius,
            ..Self::default()
        }
    }

    fn covers(&self, chunk: ChunkPos) -> bool {
        self.count.contains_key(&chunk)
    }

    /// The chunks of the disc around `centre`.
    fn disc(&self, centre: ChunkPos) -> impl Iterator<Item = ChunkPos> {
        let r = self.radius;
        (-r..=r)
            .flat_map(move |dz| (-r..=r).map(move |dx| (dx, dz)))
            .filter(move |(dx, dz)| dx * dx + dz * dz <= r * r)
            .map(move |(dx, dz)| ChunkPos::new(centre.x + dx, centre.z + dz))
    }

    /// Puts `player`'s disc at `centre` (`None`: the player left); pushes onto `touched` the
    /// chunks that began or ceased to be covered.
    fn place(&mut self, player: Entity, centre: Option<ChunkPos>, touched: &mut Vec<ChunkPos>) {
        let old = match centre {
            Some(c) => self.centres.insert(player, c),
            None => self.centres.remove(&player),
        };
        if old == centre {
            return;
        }
        if let Some(old) = old {
            for chunk in self.disc(old) {
                let count = self
                    .count
                    .get_mut(&chunk)
                    .expect("a placed disc is counted");
                *count -= 1;
                if *count == 0 {
                    self.count.remove(&chunk);
                    touched.push(chunk);
                }
            }
        }
        if let Some(centre) = centre {
            for chunk in self.disc(centre) {
                let count = self.count.entry(chunk).or_insert(0);
                *count += 1;
                if *count == 1 {
                    touched.push(chunk);
                }
            }
        }
    }
}

/// The chunks that came into the layer and left it this tick: a chunk ticks only while it is
/// loaded.
#[derive(SystemParam)]
pub struct ComingsAndGoings<'w, 's> {
    arrived: EventReader<'w, 's, ChunkArrived>,
    dropped: EventReader<'w, 's, ChunkDropped>,
}

/// Keeps [`EntityTicking`] the loaded chunks within a player's radius: changed by the chunks a
/// player's crossing or a chunk's coming or going touched, and only when one of those changes
/// it, so readers that rebuild on a change (the packs' sleep index) do so then.
pub fn mark_entity_ticking(
    players: Query<(Entity, &Position), With<Client>>,
    layers: Query<&ChunkLayer, With<Overworld>>,
    mut ticking: ResMut<EntityTicking>,
    mut comings: ComingsAndGoings,
    mut coverage: Local<Coverage>,
    mut touched: Local<Vec<ChunkPos>>,
    config: Res<Config>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let radius = (config.lod.quarter_radius / 16.0).ceil() as i32;
    if coverage.radius != radius {
        // A reload changed the radius: every disc again, every chunk looked at.
        touched.extend(coverage.count.keys().copied());
        *coverage = Coverage::new(radius);
    }
    let gone: Vec<Entity> = coverage
        .centres
        .keys()
        .filter(|player| !players.contains(**player))
        .copied()
        .collect();
    for player in gone {
        coverage.place(player, None, &mut touched);
    }
    for (player, pos) in &players {
        coverage.place(player, Some(ChunkPos::from_pos(pos.0)), &mut touched);
    }
    touched.extend(
        comings
            .arrived
            .iter()
            .map(|a| a.pos)
            .chain(comings.dropped.iter().map(|d| d.0)),
    );
    let mut changed = false;
    for chunk in touched.drain(..) {
        let wanted = coverage.covers(chunk) && layer.chunk(chunk).is_some();
        if wanted != ticking.chunks.contains(&chunk) {
            // Only now is the resource marked changed.
            ticking.bypass_change_detection().set(chunk, wanted);
            changed = true;
        }
    }
    if changed {
        ticking.set_changed();
        ticking.bypass_change_detection().rebuild_bits_if_stale();
    }
}

fn log_chunk_report(lifecycle: Res<ChunkLifecycle>, light: Res<Light>, server: Res<Server>) {
    let tick = server.current_tick();
    if tick > 0 && (tick as u64).is_multiple_of(lifecycle.report_interval_ticks) {
        info!("chunks {}", report(&lifecycle, &light));
    }
}

/// The `chunks` status line (logfmt): the lifecycle's figures and the light's memory.
pub fn report(lifecycle: &ChunkLifecycle, light: &Light) -> String {
    format!("{} light_bytes={}", lifecycle.report(), light.heap_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticking_chunks_answer_alike_as_bits_and_as_a_set() {
        let chunks: FxHashSet<ChunkPos> = [(-1, -1), (0, 0), (-2, 3), (5, -4)]
            .map(|(x, z)| ChunkPos::new(x, z))
            .into_iter()
            .collect();
        let ticking = EntityTicking::new(chunks.clone());
        assert!(ticking.bits.is_some());
        for x in (-80..120).map(|x| x as f64 * 0.5) {
            for z in (-80..80).map(|z| z as f64 * 0.5) {
                let pos = DVec3::new(x, 70.0, z);
                let want = chunks.contains(&ChunkPos::from_pos(pos));
                assert_eq!(ticking.contains_block(pos), want, "{pos}");
            }
        }
        // Two players half the world apart: the set alone.
        let far = EntityTicking::new(
            [(0, 0), (100_000, 100_000)]
                .map(|(x, z)| ChunkPos::new(x, z))
                .into_iter()
                .collect(),
        );
        assert!(far.bits.is_none());
        assert!(far.contains_block(DVec3::new(1_600_000.5, 64.0, 1_600_010.0)));
        assert!(!far.contains_block(DVec3::new(16.0, 64.0, 0.0)));
        assert!(!EntityTicking::default().contains_block(DVec3::ZERO));
    }

    #[test]
    fn coverage_kept_up_as_players_move_is_the_union_of_their_discs() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg32::seed_from_u64(7);
        let players: Vec<Entity> = (0..6).map(Entity::from_raw).collect();
        let mut coverage = Coverage::new(3);
        let mut ticking = EntityTicking::default();
        // Every chunk with x below 5 is loaded.
        let loaded = |c: ChunkPos| c.x < 5;
        let mut at: Vec<Option<ChunkPos>> = vec![None; players.len()];
        for step in 0..400 {
            let i = rng.gen_range(0..players.len());
            // Mostly a step to a neighbour, now and then a leap or leaving.
            at[i] = match (rng.gen_range(0..10), at[i]) {
                (0, _) => None,
                (1, _) | (_, None) => Some(ChunkPos::new(
                    rng.gen_range(-40..40),
                    rng.gen_range(-40..40),
                )),
                (_, Some(c)) => Some(ChunkPos::new(
                    c.x + rng.gen_range(-1..=1),
                    c.z + rng.gen_range(-1..=1),
                )),
            };
            let mut touched = Vec::new();
            coverage.place(players[i], at[i], &mut touched);
            for chunk in touched {
                ticking.set(chunk, coverage.covers(chunk) && loaded(chunk));
            }
            ticking.rebuild_bits_if_stale();
            let mut union = FxHashSet::default();
            for centre in at.iter().flatten() {
                union.extend(coverage.disc(*centre));
            }
            let covered: FxHashSet<ChunkPos> = coverage.count.keys().copied().collect();
            assert_eq!(covered, union, "step {step}");
            let want: FxHashSet<ChunkPos> = union.into_iter().filter(|c| loaded(*c)).collect();
            assert_eq!(ticking.chunks, want, "step {step}");
            for x in -45..45 {
                for z in -45..45 {
                    let pos = DVec3::new(x as f64 * 16.0 + 8.0, 64.0, z as f64 * 16.0 + 8.0);
                    assert_eq!(
                        ticking.contains_block(pos),
                        want.contains(&ChunkPos::new(x, z)),
                        "step {step} chunk {x} {z}"
                    );
                }
            }
        }
    }

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
    fn a_chunk_goes_when_its_retention_runs_out_unless_viewed_again() {
        let mut u = Unviewed::default();
        let (a, b) = (ChunkPos::new(0, 0), ChunkPos::new(1, 0));
        u.left(a, 0, 10);
        u.left(b, 5, 10);
        assert_eq!(u.next_due(9, 10), None);
        assert_eq!(u.next_due(10, 10), Some((a, 0)));
        u.forget(a);
        // b is viewed again and left again at 13: the check for its first leaving is stale.
        u.left(b, 13, 10);
        assert_eq!(u.next_due(22, 10), None);
        assert_eq!(u.next_due(23, 10), Some((b, 13)));
        // Held back (unsaved changes), it is looked at again later.
        u.hold(b, 30);
        assert_eq!(u.next_due(29, 10), None);
        assert_eq!(u.next_due(31, 10), Some((b, 13)));
        // A reload lengthens the retention: it goes at the new end.
        u.retime(40);
        assert_eq!(u.next_due(52, 40), None);
        assert_eq!(u.next_due(53, 40), Some((b, 13)));
        u.forget(b);
        assert_eq!(u.next_due(1000, 40), None);
    }

    #[test]
    fn the_generator_is_handed_chunks_in_order_and_none_nobody_needs() {
        let mut backlog = Backlog::default();
        let at = |i: i32| ChunkPos::new(i, 0);
        for i in 0..200 {
            backlog.ask(at(i));
        }
        backlog.ask(at(4));
        assert_eq!(backlog.waiting.len(), 200, "asked once");
        // The odd ones' viewers have moved on.
        let needed = |pos: ChunkPos| pos.x % 2 == 0;
        let (mut handed, mut dropped) = (Vec::new(), Vec::new());
        backlog.hand_over(needed, |pos| handed.push(pos), &mut dropped);
        assert_eq!(handed.len(), Backlog::MOST_HANDED);
        assert!(handed.iter().enumerate().all(|(i, p)| p.x == 2 * i as i32));
        assert!(dropped.iter().all(|p| p.x % 2 == 1 && !backlog.asked(*p)));
        assert!(handed.iter().all(|p| backlog.asked(*p)));
        // Nothing more until the worker makes some.
        let before = handed.len();
        backlog.hand_over(needed, |pos| handed.push(pos), &mut dropped);
        assert_eq!(handed.len(), before);
        for pos in handed.drain(..10) {
            backlog.made(pos);
            assert!(!backlog.asked(pos));
        }
        backlog.hand_over(needed, |pos| handed.push(pos), &mut dropped);
        assert_eq!(handed.len(), Backlog::MOST_HANDED - 10 + 10);
        assert_eq!(
            handed.last(),
            Some(&at(2 * (Backlog::MOST_HANDED as i32 + 9)))
        );
        // A dropped chunk asked again waits its turn anew.
        backlog.ask(at(1));
        assert_eq!(backlog.waiting.back(), Some(&at(1)));
    }

    #[test]
    fn pinned_chunks_stay() {
        let mut l = ChunkLifecycle::new(1, 1200);
        let (pinned, plain) = (ChunkPos::new(0, 0), ChunkPos::new(5, 5));
        l.pin(pinned, 0);
        l.counted(pinned, 0, 0);
        l.counted(plain, 0, 0);
        l.counted(ChunkPos::new(6, 6), 2, 0);
        assert_eq!(l.unviewed.next_due(1000, 1), Some((plain, 0)));
        assert_eq!(l.unviewed.next_due(1000, 1), None);
    }
}
