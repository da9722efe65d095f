//! The world save: the changed terrain (in `region/`, written by the world module), what horde
//! adds to the world folder under `data/` as vanilla keeps its own `data/*.dat` files, and the
//! players' `playerdata/`. Written at every autosave, on `save-all` and on shutdown.

pub mod entities;
mod file;
pub mod players;
pub mod zombies;

use std::collections::BTreeSet;
use std::path::Path;
use std::thread::JoinHandle;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;

use valence::entity::entity::Air;
use valence::entity::item::Stack;
use valence::log::{error, info, warn};
use valence::nbt::{Compound, Value};
use valence::prelude::*;

use crate::common::body::Dying;
use crate::common::events::DropItem;
use crate::common::stacks::ItemRecord;
use crate::config::{Config, HuntPreset};
use crate::daylight::{Phase, WorldPhase};
use crate::experience::{Experience, Levels, Orb, OrbRecord, PlaceOrb};
use crate::hunt::{HuntZombie, Hunts, Round};
use crate::items::GroundItem;
use crate::metrics::Label;
use crate::noise::Lights;
use crate::pack::{Pack, PackBrain, PackState, Packs};
use crate::player::hazards::{Exposure, MAX_AIR};
use crate::player::hunger::Food;
use crate::player::{Health, MAX_HEALTH};
use crate::random::Stream;
use crate::schedule::ZombieSet;
use crate::time::WorldClock;
use crate::weather::Weather;
use crate::world::anvil::EntityRegions;
use crate::world::{snapshot_terrain, Overworld, TerrainSave, WorldDir};
use crate::zombie::{Arena, Body, Burning, Equipment, Vitality, Zombie, ZombieKinds, ZombieRecord};
use entities::StandingZombie;
pub use file::SaveFile;
use players::{SavedBody, SavedPlayer};

/// Format versions of `horde_world.dat` and `horde_packs.dat`.
const WORLD_FORMAT: i32 = 1;
const PACKS_FORMAT: i32 = 2;
/// Format of `horde_items.dat`.
const ITEMS_FORMAT: i32 = 1;
/// Format of `playerdata/*.dat`.
const PLAYER_FORMAT: i32 = 1;

/// `data/horde_packs.dat`: packs and loose zombies.
pub fn packs_file(world_dir: &Path) -> SaveFile {
    SaveFile::new(world_dir.join("data").join("horde_packs.dat"), PACKS_FORMAT)
}

/// `data/horde_items.dat`: the items on the ground, in vanilla's item entity layout.
pub fn items_file(world_dir: &Path) -> SaveFile {
    SaveFile::new(world_dir.join("data").join("horde_items.dat"), ITEMS_FORMAT)
}

/// `data/horde_world.dat`: the world clock, phase and weather.
pub fn world_file(world_dir: &Path) -> SaveFile {
    SaveFile::new(world_dir.join("data").join("horde_world.dat"), WORLD_FORMAT)
}

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
        app.insert_resource(Autosave::default())
            .insert_resource(exported)
            .init_resource::<EntityChunks>()
            .add_systems(
                Update,
                restore_loose_zombies
                    .in_set(crate::schedule::TickSet::Zombies)
                    .before(ZombieSet::Classify),
            )
            .add_systems(
                Update,
                (restore_players, save_leaving_players).in_set(crate::schedule::TickSet::Zombies),
            )
            .add_systems(
                Update,
                restore_items.in_set(crate::schedule::TickSet::World),
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

/// The chunks of `entities/` that hold horde's zombies as of the last save: the next save
/// empties them of ours, wherever the zombies went since.
#[derive(Resource, Debug, Default)]
struct EntityChunks(BTreeSet<ChunkPos>);

/// Loose zombies read from the save, spawned once the overworld exists.
#[derive(Resource, Debug, Default)]
pub struct PendingZombies(pub Vec<zombies::SavedZombie>);

/// Items and experience orbs read from the save, put back once the overworld exists.
#[derive(Resource, Debug, Default)]
struct PendingItems {
    items: Vec<ItemRecord>,
    orbs: Vec<OrbRecord>,
}

/// Reads `horde_items.dat` (items and experience orbs, told apart by their entity `id`); one
/// that cannot be read is left out with a warning, a newer format is an error.
pub fn load_items(world_dir: &Path, app: &mut App) -> anyhow::Result<()> {
    let file = items_file(world_dir);
    let Some(root) = file.load_as(|root: &Compound| Ok::<_, String>(root.clone()))? else {
        return Ok(());
    };
    let mut pending = PendingItems::default();
    if let Some(Value::List(valence::nbt::List::Compound(list))) = root.get("Items") {
        for entry in list {
            let read = match entry.get("id") {
                Some(Value::String(id)) if id == crate::experience::record::ID => {
                    OrbRecord::from_nbt(entry).map(|orb| pending.orbs.push(orb))
                }
                _ => ItemRecord::from_nbt(entry).map(|item| pending.items.push(item)),
            };
            if let Err(e) = read {
                warn!("an entity in {} is left out: {e}", file.path().display());
            }
        }
    }
    info!(
        "{} items and {} experience orbs on the ground",
        pending.items.len(),
        pending.orbs.len()
    );
    app.insert_resource(pending);
    Ok(())
}

fn restore_items(
    mut commands: Commands,
    pending: Option<ResMut<PendingItems>>,
    layers: Query<(), With<Overworld>>,
    mut drops: EventWriter<DropItem>,
    mut orbs: EventWriter<PlaceOrb>,
) {
    let (Some(mut pending), false) = (pending, layers.is_empty()) else {
        return;
    };
    drops.send_batch(pending.items.drain(..).map(DropItem));
    orbs.send_batch(pending.orbs.drain(..).map(PlaceOrb));
    commands.remove_resource::<PendingItems>();
}

/// Reads `horde_packs.dat` into the pack table (every pack as a ghost: no chunk is watched at
/// start) and the loose zombies to spawn. A newer format is an error.
pub fn load_zombies(world_dir: &Path, app: &mut App) -> anyhow::Result<()> {
    let Some(saved) = packs_file(world_dir).load_as(zombies::SavedZombies::from_nbt)? else {
        return Ok(());
    };
    let config = app.world.resource::<Config>().clone();
    let mut kinds = app.world.resource::<ZombieKinds>().clone();
    let (mut members, count) = (0, saved.packs.len());
    for saved in saved.packs {
        let ghosts: Vec<ZombieRecord> = saved
            .members
            .iter()
            .map(|m| record_of(&mut kinds, &m.record, &config))
            .collect();
        members += ghosts.len();
        app.world
            .resource_mut::<Packs>()
            .insert_saved(saved.pack, ghosts, &kinds, &config.pack);
    }
    app.insert_resource(kinds);
    app.world.resource_mut::<Packs>().reserve_ids(saved.next_id);
    let mut loose = saved.loose;
    if let Some(hunt) = saved.hunt {
        // The round goes on with the preset it began with, whatever config.toml says now.
        let preset = match &hunt.settings {
            Some(text) => toml::from_str::<HuntPreset>(text).ok(),
            None => config
                .hunt
                .presets
                .iter()
                .find(|p| p.name == hunt.preset)
                .cloned(),
        };
        match preset {
            Some(preset) => {
                app.world.resource_mut::<Hunts>().active = Some(Round {
                    preset,
                    elapsed: hunt.elapsed,
                    next_wave_in: hunt.next_wave_in,
                    spawned: hunt.spawned,
                    kills: hunt.kills,
                    players: hunt.players,
                    goal: hunt.goal,
                    rng: Stream::resume(hunt.seed, hunt.draws),
                });
                info!(
                    "resuming hunt {} ({} kills so far)",
                    hunt.preset, hunt.kills
                );
            }
            None => {
                warn!(
                    "the saved hunt {:?} cannot be resumed (its preset is gone); its zombies come back as ordinary zombies",
                    hunt.preset
                );
                loose.iter_mut().for_each(|z| z.hunt = false);
            }
        }
    } else {
        // No round to belong to.
        loose.iter_mut().for_each(|z| z.hunt = false);
    }
    info!(
        "loaded {count} packs ({members} members) and {} loose zombies",
        loose.len()
    );
    app.insert_resource(PendingZombies(loose));
    app.insert_resource(EntityChunks(
        saved
            .entity_chunks
            .iter()
            .map(|&(x, z)| ChunkPos::new(x, z))
            .collect(),
    ));
    Ok(())
}

/// The type of a saved zombie, by name. A type no longer configured is kept under its name
/// with the default type's stats, so the zombie is never saved back as another type.
fn saved_kind(kinds: &mut ZombieKinds, name: &str, config: &Config) -> usize {
    if let Some(kind) = kinds.named(name) {
        return kind;
    }
    warn!(
        "saved zombie type {name:?} is no longer configured; its zombies keep the name with the stats of {}",
        config.zombies.default_type
    );
    let like = kinds.find(&config.zombies.default_type).unwrap_or(0);
    kinds.add_retired(name, like)
}

/// A saved zombie's record, its type looked up by name.
fn record_of(
    kinds: &mut ZombieKinds,
    saved: &ZombieRecord<String>,
    config: &Config,
) -> ZombieRecord {
    let kind = saved_kind(kinds, &saved.kind, config);
    saved
        .clone()
        .with_kind(u16::try_from(kind).unwrap_or(u16::MAX))
}

/// A record with its type by name, for the save.
fn named(kinds: &ZombieKinds, record: ZombieRecord) -> ZombieRecord<String> {
    record.with_kind(kinds.get(record.kind as usize).name.clone())
}

fn restore_loose_zombies(
    mut commands: Commands,
    pending: Option<ResMut<PendingZombies>>,
    layers: Query<Entity, With<Overworld>>,
    mut kinds: ResMut<ZombieKinds>,
    config: Res<Config>,
) {
    let (Some(mut pending), Ok(layer)) = (pending, layers.get_single()) else {
        return;
    };
    for (i, z) in pending.0.drain(..).enumerate() {
        let Some(pos) = z.pos else { continue };
        let record = record_of(&mut kinds, &z.record, &config);
        let mut zombie = commands.spawn(record.bundle(layer, pos, i as u64 ^ pos.x.to_bits()));
        if z.hunt {
            zombie.insert((HuntZombie, Arena));
        }
    }
    commands.remove_resource::<PendingZombies>();
}

/// What `horde_packs.dat` will hold, taken on the tick (cheap copies); turning it into NBT and
/// writing it can then happen elsewhere.
pub fn snapshot_zombies(world: &mut World) -> zombies::SavedZombies {
    let kinds = world.resource::<ZombieKinds>().clone();
    let now = world.resource::<Server>().current_tick() as u64;
    let mut bodies = world.query_filtered::<(
        &Zombie,
        &Position,
        &Vitality,
        &Burning,
        &Equipment,
        Option<&PackBrain>,
        Option<&HuntZombie>,
    ), Without<Dying>>();
    let saved = |zombie: &Zombie, vitality: &Vitality, fire: &Burning, equipment: &Equipment| {
        named(
            &kinds,
            ZombieRecord::capture(zombie, vitality, fire, equipment),
        )
    };
    let loose = bodies
        .iter(world)
        .filter(|(.., brain, _)| brain.is_none_or(|b| b.pack.is_none()))
        .map(|(z, p, v, f, e, _, hunt)| zombies::SavedZombie {
            record: saved(z, v, f, e),
            pos: Some(p.0),
            hunt: hunt.is_some(),
        })
        .collect();
    world.resource_mut::<Packs>().catch_up_sleepers(now);
    let packs = world.resource::<Packs>();
    let mut by_id: Vec<&Pack> = packs.iter().collect();
    by_id.sort_unstable_by_key(|p| p.id);
    let member = |record| zombies::SavedZombie {
        record,
        pos: None,
        hunt: false,
    };
    let saved_packs = by_id
        .into_iter()
        .map(|pack| zombies::SavedPack {
            pack: pack.record(now),
            members: match pack.state {
                PackState::Ghost => pack
                    .ghosts
                    .iter()
                    .map(|g| member(named(&kinds, *g)))
                    .collect(),
                PackState::Materialised => pack
                    .members
                    .iter()
                    .filter_map(|m| bodies.get(world, *m).ok())
                    .map(|(z, _, v, f, e, ..)| member(saved(z, v, f, e)))
                    .collect(),
            },
        })
        .collect();
    let hunt = world
        .resource::<Hunts>()
        .active
        .as_ref()
        .map(|r| zombies::SavedHunt {
            preset: r.preset.name.clone(),
            settings: toml::to_string(&r.preset).ok(),
            players: r.players,
            goal: r.goal,
            elapsed: r.elapsed,
            next_wave_in: r.next_wave_in,
            spawned: r.spawned,
            kills: r.kills,
            seed: r.rng.seed(),
            draws: r.rng.draws(),
        });
    zombies::SavedZombies {
        next_id: packs.next_id(),
        packs: saved_packs,
        loose,
        hunt,
        entity_chunks: world
            .get_resource::<EntityChunks>()
            .map(|c| c.0.iter().map(|p| (p.x, p.z)).collect())
            .unwrap_or_default(),
    }
}

/// Every zombie in the world as `entities/` will hold it, where its body really is.
fn standing_zombies(world: &mut World) -> Vec<StandingZombie> {
    let kinds = world.resource::<ZombieKinds>().clone();
    let breaks_doors = world.resource::<Config>().zombies.break_doors;
    let mut zombies = world.query_filtered::<(
        &Zombie,
        &Position,
        &Look,
        &UniqueId,
        &Vitality,
        &Burning,
        &Equipment,
        &Body,
    ), Without<Dying>>();
    zombies
        .iter(world)
        .map(
            |(zombie, pos, look, id, vitality, fire, equipment, body)| StandingZombie {
                pos: body.feet(pos.0),
                yaw: look.yaw,
                pitch: look.pitch,
                uuid: id.0,
                record: named(
                    &kinds,
                    ZombieRecord::capture(zombie, vitality, fire, equipment),
                ),
                max_health: kinds.get(zombie.kind).health,
                on_ground: body.on_ground(),
                breaks_doors,
            },
        )
        .collect()
}

/// Restores the saved clock and phase, if any. An unreadable save falls back as
/// `SaveFile::load` says; a save from a newer horde is an error.
pub fn load_world(
    world_dir: &Path,
    clock: &mut WorldClock,
    phase: &mut Phase,
    weather: &mut Weather,
) -> anyhow::Result<()> {
    let Some(root) = world_file(world_dir).load()? else {
        return Ok(());
    };
    let long = |key: &str| match root.get(key) {
        Some(Value::Long(v)) => Some(*v),
        _ => None,
    };
    if let (Some(age), Some(day_time), Some(day)) = (long("Time"), long("DayTime"), long("Day")) {
        clock.age = age.max(0);
        clock.day = day.max(0);
        // The day length may have changed since: keep the same fraction of the day.
        let saved_length = long("DayLength")
            .filter(|l| *l > 0)
            .unwrap_or(clock.day_length);
        clock.day_time = (day_time.rem_euclid(saved_length) * clock.day_length / saved_length)
            .clamp(0, clock.day_length - 1);
    }
    if let (Some(Value::Int(p)), Some(next)) = (root.get("Phase"), long("NextPhaseAt")) {
        phase.phase = (*p).max(0) as u32;
        phase.next_rise = next;
    }
    weather.load(&root);
    Ok(())
}

/// What a save wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    dir: std::path::PathBuf,
    terrain: TerrainSave,
    world: Compound,
    zombies: zombies::SavedZombies,
    players: Vec<(UniqueId, SavedPlayer)>,
    entities: EntityRegions,
    /// The zombies standing in the world, the items and orbs on the ground as vanilla's
    /// entities, and the entity chunks that held ours before.
    standing: Vec<StandingZombie>,
    ground: Vec<(DVec3, Compound)>,
    held_before: BTreeSet<ChunkPos>,
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

    /// Writes every part, even after one fails (a full disk must not cost the others). The
    /// error names the first failure in full and every other part that failed.
    fn write_parts(&self) -> anyhow::Result<Saved> {
        let mut failed: Vec<(&str, anyhow::Error)> = Vec::new();
        let mut keep = |part: &'static str, result: anyhow::Result<()>| {
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
            keep("region/", Err(e));
        }
        keep(
            "data/horde_world.dat",
            world_file(&self.dir).write(&self.world),
        );
        keep(
            "data/horde_packs.dat",
            packs_file(&self.dir).write(&self.zombies.to_nbt()),
        );
        keep(
            "data/horde_items.dat",
            items_file(&self.dir).write(&self.items_nbt()),
        );
        let entity_chunks = entities::by_chunk(&self.standing, &self.ground, &self.held_before);
        let written = self.entities.write(&entity_chunks, entities::is_ours);
        let entity_chunks = written.as_ref().map_or(0, |w| w.chunks);
        keep(
            "entities/",
            written
                .map(|_| ())
                .map_err(|e| e.context("writing entities/")),
        );
        let mut players_failed = 0;
        for (id, player) in &self.players {
            let result = player_file(&self.dir, *id).write(&player.to_nbt());
            players_failed += usize::from(result.is_err());
            if players_failed <= 1 {
                keep("playerdata/", result);
            }
        }
        let first_error = (!failed.is_empty()).then(|| {
            let mut parts = failed.into_iter();
            let (_, first) = parts.next().expect("not empty");
            let mut line = format!("{first:#}");
            let others: Vec<&str> = parts.map(|(part, _)| part).collect();
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
                packs: self.zombies.packs.len(),
                members: self.zombies.packs.iter().map(|p| p.members.len()).sum(),
                loose: self.zombies.loose.len(),
                players: self.players.len(),
                chunks: terrain.written.chunks,
                region_bytes: terrain.written.bytes,
                entity_chunks,
            }),
        }
    }
}

impl Snapshot {
    fn items_nbt(&self) -> Compound {
        let list = self.ground.iter().map(|(_, e)| e.clone()).collect();
        let mut root = Compound::new();
        root.insert("Items", Value::List(valence::nbt::List::Compound(list)));
        root
    }
}

fn snapshot(world: &mut World) -> Snapshot {
    let standing = standing_zombies(world);
    let mut ground: Vec<(DVec3, Compound)> = world
        .query_filtered::<(&Position, &Stack, &GroundItem, &UniqueId), Without<Despawned>>()
        .iter(world)
        .map(|(pos, stack, item, id)| {
            let record = ItemRecord {
                stack: stack.0.clone(),
                pos: pos.0,
                velocity: item.velocity,
                age: item.age,
                pickup_delay: item.pickup_delay,
            };
            (pos.0, entities::item_entity(&record, id.0))
        })
        .collect();
    ground.extend(
        world
            .query_filtered::<(&Position, &Orb, &UniqueId), Without<Despawned>>()
            .iter(world)
            .map(|(pos, orb, id)| {
                let record = OrbRecord {
                    value: orb.value,
                    pos: pos.0,
                    velocity: orb.velocity,
                    age: orb.age,
                };
                (pos.0, entities::orb_entity(&record, id.0))
            }),
    );
    let now: BTreeSet<ChunkPos> = standing
        .iter()
        .map(|z| ChunkPos::from_pos(z.pos))
        .chain(ground.iter().map(|(at, _)| ChunkPos::from_pos(*at)))
        .collect();
    let held_before = std::mem::replace(&mut world.resource_mut::<EntityChunks>().0, now);
    let zombies = snapshot_zombies(world);
    let terrain = snapshot_terrain(world);
    let (dir, root) = world_snapshot(world);
    let players = world
        .query_filtered::<(&UniqueId, PlayerData), With<Client>>()
        .iter(world)
        .map(|(id, player)| (*id, saved_player(player)))
        .collect();
    Snapshot {
        dir,
        terrain,
        world: root,
        zombies,
        players,
        entities: world.resource::<EntityRegions>().clone(),
        metrics: world.get_resource::<SaveMetrics>().cloned(),
        standing,
        ground,
        held_before,
    }
}

/// `playerdata/<uuid>.dat`: one player's position, health, game mode and inventory.
pub(crate) fn player_file(world_dir: &Path, id: UniqueId) -> SaveFile {
    let name = format!("{}.dat", id.0.hyphenated());
    SaveFile::new(world_dir.join("playerdata").join(name), PLAYER_FORMAT)
}

/// What a player's file is made of.
type PlayerData<'a> = (
    &'a Position,
    &'a Look,
    &'a Health,
    &'a GameMode,
    &'a Inventory,
    Option<&'a Food>,
    Option<&'a Air>,
    Option<&'a Exposure>,
    Option<&'a Experience>,
);

fn saved_player(
    (pos, look, health, mode, inventory, food, air, exposure, experience): PlayerData,
) -> SavedPlayer {
    SavedPlayer {
        pos: pos.0,
        yaw: look.yaw,
        pitch: look.pitch,
        health: health.0,
        game_mode: *mode,
        body: SavedBody {
            food: food.copied().unwrap_or_default(),
            air: air.map_or(MAX_AIR, |a| a.0),
            exposure: exposure.copied().unwrap_or_default(),
            experience: experience.map(|e| e.0).unwrap_or_default(),
        },
        items: SavedPlayer::items_of(inventory),
    }
}

/// A joining player gets back what their file holds: where they stood, their health, game
/// mode and inventory. One who left dead comes back at the spawn, as on respawning.
fn restore_players(
    mut commands: Commands,
    mut joined: Query<
        (
            Entity,
            &UniqueId,
            &Username,
            &mut Position,
            &mut Look,
            &mut GameMode,
            &mut Inventory,
            &mut Air,
        ),
        Added<Client>,
    >,
    dir: Res<WorldDir>,
) {
    for (entity, id, name, mut pos, mut look, mut mode, mut inventory, mut air) in &mut joined {
        let saved = match player_file(&dir.0, *id).load_as(SavedPlayer::from_nbt) {
            Ok(Some(saved)) => saved,
            Ok(None) => continue,
            Err(e) => {
                warn!(
                    "{}'s saved data is unusable, they start afresh: {e:#}",
                    name.0
                );
                continue;
            }
        };
        *mode = saved.game_mode;
        for (slot, stack) in saved.items {
            if slot < inventory.slot_count() {
                inventory.set_slot(slot, stack);
            }
        }
        if saved.health > 0.0 {
            pos.0 = saved.pos;
            look.yaw = saved.yaw;
            look.pitch = saved.pitch;
            air.0 = saved.body.air;
            commands.entity(entity).insert((
                Health(saved.health.min(MAX_HEALTH)),
                saved.body.food,
                saved.body.exposure,
            ));
        }
        if saved.body.experience != Levels::default() {
            commands
                .entity(entity)
                .insert(Experience(saved.body.experience));
        }
    }
}

/// A player who leaves is written to their file at once (off the tick).
fn save_leaving_players(
    mut left: RemovedComponents<Client>,
    players: Query<(&UniqueId, PlayerData)>,
    dir: Res<WorldDir>,
) {
    for entity in left.iter() {
        let Ok((id, player)) = players.get(entity) else {
            continue;
        };
        let file = player_file(&dir.0, *id);
        let saved = saved_player(player);
        let written = std::thread::Builder::new()
            .name("playerdata".into())
            .spawn(move || {
                if let Err(e) = file.write(&saved.to_nbt()) {
                    error!("saving a player who left failed: {e:#}");
                }
            });
        if let Err(e) = written {
            error!("saving a player who left failed: cannot start its thread: {e}");
        }
    }
}

/// The clock and phase as `horde_world.dat`'s root.
fn world_snapshot(world: &mut World) -> (std::path::PathBuf, Compound) {
    let dir = world.resource::<WorldDir>().0.clone();
    let clock = world.resource::<WorldClock>();
    let mut root = Compound::new();
    root.insert("Time", clock.age);
    root.insert("DayTime", clock.day_time);
    root.insert("Day", clock.day);
    root.insert("DayLength", clock.day_length);
    let phase = world.resource::<WorldPhase>().0;
    root.insert("Phase", phase.phase as i32);
    root.insert("NextPhaseAt", phase.next_rise);
    world.resource::<Weather>().save(&mut root);
    if let Some(lights) = world.get_resource::<Lights>() {
        root.insert("PlacedLights", Value::IntArray(lights.to_ints()));
    }
    (dir, root)
}

/// Puts back the lights players placed, from `horde_world.dat` (none in an older save).
pub fn load_lights(world_dir: &Path, app: &mut App) -> anyhow::Result<()> {
    let Some(root) = world_file(world_dir).load()? else {
        return Ok(());
    };
    if let Some(Value::IntArray(ints)) = root.get("PlacedLights") {
        app.insert_resource(Lights::from_ints(ints));
    }
    Ok(())
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
