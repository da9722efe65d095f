//! The world save: the changed terrain (in `region/`, written by the world module), what horde
//! adds to the world folder under `data/` as vanilla keeps its own `data/*.dat` files, horde's
//! entities in `entities/`, and the players' `playerdata/`. Written at every autosave, on
//! `save-all` and on shutdown. What the files hold is the plugins' own: each registers its
//! share (`part`), which the save copies on the tick and writes on a thread of its own.

pub mod entities;
mod file;
pub mod keys;
mod part;
mod players;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;

use valence::log::{error, info, warn};
use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

use crate::config::Config;
use crate::metrics::Label;
use crate::schedule::TickSet;
use crate::time::WorldClock;
use crate::weather::Weather;
use crate::world::anvil::EntityRegions;
use crate::world::{snapshot_terrain, TerrainSave, WorldDir, WorldSpawn};
pub use file::SaveFile;
use part::SaveParts;
pub use part::{
    entries_with_id, read_world_keys, world_keys, DataFile, PlayerPart, ReadPart, ReadPlayer,
    RestorePart, RestorePlayer, SaveApp, SaveOut, SavePart, SnapshotPart, SnapshotPlayer,
    WorldKeys,
};
pub use players::player_file;

pub struct SavePlugin;

impl Plugin for SavePlugin {
    fn build(&self, app: &mut App) {
        let exported = SaveMetrics::default();
        // Both outcomes from the start, so a graph of failures begins at 0.
        for outcome in ["ok", "failed"] {
            drop(exported.saves.get_or_create(&[("outcome", outcome)]));
        }
        crate::metrics::register(
            app,
            "horde_saves",
            "World saves (autosave, save-all, stop) by outcome: ok or failed",
            exported.saves.clone(),
        );
        crate::metrics::register(
            app,
            "horde_save_duration_seconds",
            "Time to write a world save, off the tick",
            exported.duration.clone(),
        );
        crate::metrics::register(
            app,
            "horde_save_region_bytes",
            "Bytes of region files rewritten with changed chunks",
            exported.region_bytes.clone(),
        );
        // The clock, the weather and the spawn stand below the save: it keeps their keys
        // itself.
        app.insert_resource(Autosave::default())
            .insert_resource(exported)
            .init_resource::<EntityChunks>()
            .add_save_part(|world| world_keys(world.resource::<WorldClock>()))
            .add_save_part(|world| world_keys(world.resource::<Weather>()))
            .add_save_part(|world| world_keys(world.resource::<WorldSpawn>()))
            .add_systems(
                Update,
                (players::restore_players, players::save_leaving_players).in_set(TickSet::Zombies),
            )
            .add_systems(Last, autosave);
    }
}

/// The saves' figures for the metrics endpoint; each snapshot carries them to its writer.
#[derive(Resource, Clone)]
struct SaveMetrics {
    saves: Family<Label, Counter>,
    duration: Histogram,
    region_bytes: Counter,
}

impl Default for SaveMetrics {
    fn default() -> Self {
        Self {
            saves: Family::default(),
            duration: crate::metrics::export::seconds_histogram(),
            region_bytes: Counter::default(),
        }
    }
}

/// The autosave: the background write of the last one, so that two never overlap, and
/// whether the operator turned autosaves off (`save-off`, as vanilla, to copy the world).
#[derive(Resource, Default)]
struct Autosave {
    worker: Option<JoinHandle<()>>,
    off: bool,
}

/// The chunks of `entities/` that hold horde's entities as of the last save: the next save
/// empties them of ours, wherever the entities went since. Kept in `horde_packs.dat`
/// (`EntityChunks`); the writer's thread swaps in the new set, as saves never overlap.
#[derive(Resource, Debug, Default, Clone)]
struct EntityChunks(Arc<Mutex<BTreeSet<ChunkPos>>>);

impl EntityChunks {
    fn swap(&self, now: BTreeSet<ChunkPos>) -> BTreeSet<ChunkPos> {
        let mut held = self.0.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::replace(&mut held, now)
    }
}

impl RestorePart for EntityChunks {
    fn restore(self: Box<Self>, world: &mut World) {
        world.insert_resource(*self);
    }
}

/// Reads `EntityChunks`, kept since the first save that wrote `entities/`.
fn read_entity_chunks(root: &Compound) -> Result<Box<dyn RestorePart>, String> {
    let chunks = match root.get("EntityChunks") {
        Some(Value::List(List::IntArray(chunks))) => chunks
            .iter()
            .map(|xz| match xz[..] {
                [x, z] => Ok(ChunkPos::new(x, z)),
                _ => Err("an EntityChunks entry is not two ints".to_string()),
            })
            .collect::<Result<_, _>>()?,
        Some(Value::List(List::End)) | None => BTreeSet::new(),
        Some(_) => return Err("EntityChunks is not a list of int arrays".into()),
    };
    Ok(Box::new(EntityChunks(Arc::new(Mutex::new(chunks)))))
}

/// Reads the data files at start, each once, and gives each plugin its share: every share of
/// a file is read before any is restored, so that one that cannot be read sets the file aside
/// for its previous copy (see [`SaveFile::load`]). A newer format is an error.
pub fn load(world_dir: &Path, app: &mut App) -> anyhow::Result<()> {
    let mut readers = vec![(DataFile::Packs, read_entity_chunks as ReadPart)];
    if let Some(parts) = app.world.get_resource::<SaveParts>() {
        readers.extend(parts.readers.iter().copied());
    }
    for file in DataFile::ALL {
        let shares: Vec<ReadPart> = readers
            .iter()
            .filter(|(of, _)| *of == file)
            .map(|(_, read)| *read)
            .collect();
        if shares.is_empty() {
            continue;
        }
        let read = file.at(world_dir).load_as(|root| {
            shares
                .iter()
                .map(|read| read(root))
                .collect::<Result<Vec<_>, _>>()
        })?;
        for part in read.into_iter().flatten() {
            part.restore(&mut app.world);
        }
    }
    Ok(())
}

/// Puts back the world's keys of `horde_world.dat` (the clock, the phase, the weather), for
/// `build_base`, which reads them before any plugin is added. An unreadable save falls back as
/// [`SaveFile::load`] says; a save from a newer horde is an error.
pub fn load_world(world_dir: &Path, keepers: &mut [&mut dyn WorldKeys]) -> anyhow::Result<()> {
    let Some(root) = DataFile::World.at(world_dir).load()? else {
        return Ok(());
    };
    for keeper in keepers {
        keeper.load(&root);
    }
    Ok(())
}

impl WorldKeys for WorldClock {
    fn save(&self, root: &mut Compound) {
        WorldClock::save(self, root);
    }

    fn load(&mut self, root: &Compound) {
        WorldClock::load(self, root);
    }
}

impl WorldKeys for WorldSpawn {
    fn save(&self, root: &mut Compound) {
        WorldSpawn::save(self, root);
    }

    fn load(&mut self, root: &Compound) {
        WorldSpawn::load(self, root);
    }
}

impl WorldKeys for Weather {
    fn save(&self, root: &mut Compound) {
        Weather::save(self, root);
    }

    fn load(&mut self, root: &Compound) {
        Weather::load(self, root);
    }
}

/// What a save wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Saved {
    pub packs: usize,
    /// Zombies in those packs, materialised or not.
    pub members: usize,
    pub loose: usize,
    pub players: usize,
    /// Changed chunks written to `region/`, and the size of the region files rewritten.
    pub chunks: usize,
    pub region_bytes: u64,
    /// Chunks of `entities/` written (horde's zombies in them, or taken out).
    pub entity_chunks: usize,
}

impl std::fmt::Display for Saved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} packs ({} members), {} loose zombies, {} players, {} changed chunks",
            self.packs, self.members, self.loose, self.players, self.chunks
        )
    }
}

/// Writes everything horde keeps in the world folder, now.
fn save_all(world: &mut World) -> anyhow::Result<Saved> {
    let snapshot = snapshot(world);
    snapshot.write()
}

/// Everything to save, copied off the world on the tick.
struct Snapshot {
    dir: PathBuf,
    terrain: TerrainSave,
    parts: Vec<Box<dyn SavePart>>,
    players: Vec<(UniqueId, Vec<Box<dyn PlayerPart>>)>,
    entities: EntityRegions,
    held: EntityChunks,
    metrics: Option<SaveMetrics>,
}

impl Snapshot {
    /// Writes the save and counts it.
    fn write(&self) -> anyhow::Result<Saved> {
        let started = std::time::Instant::now();
        let written = self.write_parts();
        if let Some(exported) = &self.metrics {
            exported.duration.observe(started.elapsed().as_secs_f64());
            let outcome = if written.is_ok() { "ok" } else { "failed" };
            exported.saves.get_or_create(&[("outcome", outcome)]).inc();
            if let Ok(saved) = &written {
                exported.region_bytes.inc_by(saved.region_bytes);
            }
        }
        written
    }

    /// Writes every file, even after one fails (a full disk must not cost the others). The
    /// error names the first failure in full and every other file that failed.
    fn write_parts(&self) -> anyhow::Result<Saved> {
        let mut out = SaveOut::default();
        for part in &self.parts {
            part.write(&mut out);
        }
        let now: BTreeSet<ChunkPos> = out
            .entities
            .iter()
            .map(|(at, _)| ChunkPos::from_pos(*at))
            .collect();
        out.root(DataFile::Packs).insert(
            "EntityChunks",
            List::IntArray(now.iter().map(|p| vec![p.x, p.z]).collect()),
        );
        let held_before = self.held.swap(now);

        let mut failed: Vec<(String, anyhow::Error)> = Vec::new();
        let mut keep = |part: String, result: anyhow::Result<()>| {
            if let Err(e) = result {
                failed.push((part, e));
            }
        };
        let terrain = self.terrain.write();
        if let Some(e) = &terrain.error {
            let e = anyhow::anyhow!(
                "{} changed chunks kept for the next save: {e}",
                terrain.failed.len()
            );
            keep("region/".into(), Err(e));
        }
        for file in DataFile::ALL {
            let written = file.at(&self.dir).write(out.root(file));
            keep(format!("data/{}", file.name()), written);
        }
        let entity_chunks = entities::by_chunk(&out.entities, &held_before);
        let written = self.entities.write(&entity_chunks, entities::is_ours);
        let entity_chunks = written.as_ref().map_or(0, |w| w.chunks);
        keep(
            "entities/".into(),
            written
                .map(|_| ())
                .map_err(|e| e.context("writing entities/")),
        );
        let mut players_failed = 0;
        for (id, parts) in &self.players {
            let result = player_file(&self.dir, *id).write(&players::player_nbt(parts));
            players_failed += usize::from(result.is_err());
            if players_failed <= 1 {
                keep("playerdata/".into(), result);
            }
        }
        let first_error = (!failed.is_empty()).then(|| {
            let mut parts = failed.into_iter();
            let (_, first) = parts.next().expect("not empty");
            let mut line = format!("{first:#}");
            let others: Vec<String> = parts.map(|(part, _)| part).collect();
            if !others.is_empty() {
                line += &format!("; also failed: {}", others.join(", "));
            }
            if players_failed > 0 {
                line += &format!("; {players_failed} players' files not written");
            }
            anyhow::anyhow!(line)
        });
        match first_error {
            Some(e) => Err(e),
            None => Ok(Saved {
                players: self.players.len(),
                chunks: terrain.written.chunks,
                region_bytes: terrain.written.bytes,
                entity_chunks,
                ..out.saved
            }),
        }
    }
}

/// Copies every registered share, the changed terrain and the players, on the tick.
fn snapshot(world: &mut World) -> Snapshot {
    let snapshots = world
        .get_resource::<SaveParts>()
        .map(|parts| parts.snapshots.clone())
        .unwrap_or_default();
    let parts = snapshots.iter().map(|snapshot| snapshot(world)).collect();
    Snapshot {
        dir: world.resource::<WorldDir>().0.clone(),
        terrain: snapshot_terrain(world),
        parts,
        players: players::snapshot_all(world),
        entities: world.resource::<EntityRegions>().clone(),
        held: world.resource::<EntityChunks>().clone(),
        metrics: world.get_resource::<SaveMetrics>().cloned(),
    }
}

/// Every `save.autosave_ticks`: a snapshot on the tick, NBT and disk on a worker thread.
fn autosave(world: &mut World) {
    let every = world.resource::<Config>().save.autosave_ticks as i64;
    let tick = world.resource::<Server>().current_tick();
    if tick == 0 || tick % every != 0 {
        return;
    }
    let autosave = world.resource::<Autosave>();
    if autosave.off {
        return;
    }
    if autosave.worker.as_ref().is_some_and(|h| !h.is_finished()) {
        warn!("the previous autosave is still being written; skipping this one");
        return;
    }
    let snapshot = snapshot(world);
    let worker = std::thread::Builder::new()
        .name("autosave".into())
        .spawn(move || match snapshot.write() {
            Ok(saved) => info!("autosaved the world ({saved})"),
            Err(e) => error!("autosave failed: {e:#}"),
        });
    match worker {
        Ok(handle) => world.resource_mut::<Autosave>().worker = Some(handle),
        Err(e) => error!("autosave failed: cannot start its thread: {e}"),
    }
}

/// Saves now (`save-all`, `stop`), after any autosave still being written; returns what was
/// saved.
pub fn save_now(world: &mut World) -> anyhow::Result<Saved> {
    let Some(mut autosave) = world.get_resource_mut::<Autosave>() else {
        anyhow::bail!("this server keeps no save");
    };
    if let Some(handle) = autosave.worker.take() {
        let _ = handle.join();
    }
    save_all(world)
}

/// `save-on` and `save-off`: whether autosaves run. Turning them off waits for one still being
/// written, so that from its answer on only `save-all`, `stop` and leaving players write the
/// world folder.
pub fn switch_autosave(world: &mut World, on: bool) -> String {
    let Some(mut autosave) = world.get_resource_mut::<Autosave>() else {
        return "error=\"this server keeps no save\"".into();
    };
    let changed = autosave.off == on;
    autosave.off = !on;
    if let Some(handle) = autosave.worker.take().filter(|_| !on) {
        let _ = handle.join();
    }
    if changed {
        info!("autosave turned {}", if on { "on" } else { "off" });
    }
    format!(
        "autosave={} changed={changed}",
        if on { "on" } else { "off" }
    )
}
