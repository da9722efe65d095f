//! Hunts: timed rounds of zombie waves around the world spawn, the Sword Masters game mode.
//! A wave comes every spawn_rate seconds at the preset's spawn points, each type drawn by
//! roulette on its rarity. Zombies alive and zombies spawned in the round are capped
//! separately (the seed counted dead ones as alive). The kill goal, 20 + 7 (players - 1) for
//! the players in survival or adventure, is shown on a boss bar; waves and the total grow with
//! it so it can always be met (`rules`). The round ends when it is met or the time is up, and
//! its zombies are cleared away. Hunt zombies are [`Arena`] zombies: the sun leaves them be.

mod rules;
pub mod save;

use bevy_ecs::system::SystemParam;
use valence::boss_bar::{
    BossBarBundle, BossBarColor, BossBarDivision, BossBarFlags, BossBarHealth, BossBarTitle,
    BossBarViewers,
};
use valence::log::info;
use valence::prelude::*;

use crate::common::body::huntable;
use crate::common::body::Dying;
use crate::common::events::PlayerKill;
use crate::config::{Config, HuntPreset};
use crate::random::Stream;
use crate::world::{ground_around, ground_at, Overworld, WorldSpawn};
use crate::zombie::record::new_zombie;
use crate::zombie::{Arena, ZombieKinds};
use rand::RngCore;
use rules::{kill_goal, roulette, wave_size, wave_ticks, Progress};

pub struct HuntPlugin;

impl Plugin for HuntPlugin {
    fn build(&self, app: &mut App) {
        let running = HuntGauges::default();
        crate::metrics::register(
            app,
            "horde_hunt_running",
            "1 while a hunt round runs",
            running.running.clone(),
        );
        crate::metrics::register(
            app,
            "horde_hunt_zombies_alive",
            "Zombies of the running hunt alive",
            running.alive.clone(),
        );
        app.insert_resource(Hunts::default())
            .insert_resource(running)
            .add_systems(
                Update,
                (
                    schedule_hunts,
                    run_hunt,
                    export_hunt.run_if(crate::metrics::once_a_second),
                )
                    .chain()
                    .in_set(crate::schedule::TickSet::Hunts),
            );
        save::register(app);
    }
}

/// The hunt's figures for the metrics endpoint.
#[derive(Resource, Clone, Default)]
struct HuntGauges {
    running: prometheus_client::metrics::gauge::Gauge,
    alive: prometheus_client::metrics::gauge::Gauge,
}

fn export_hunt(hunts: Res<Hunts>, zombies: Query<(), With<HuntZombie>>, gauges: Res<HuntGauges>) {
    gauges.running.set(i64::from(hunts.active.is_some()));
    gauges.alive.set(zombies.iter().count() as i64);
}

/// Marks a zombie spawned by the running hunt.
#[derive(Component, Debug)]
pub struct HuntZombie;

/// Marks the hunt's boss bar.
#[derive(Component, Debug)]
struct HuntBar;

/// The running round, if any.
#[derive(Resource, Debug, Default)]
pub struct Hunts {
    pub active: Option<Round>,
    /// Ask to start this preset on the next tick, or to stop.
    pub request: Option<HuntRequest>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum HuntRequest {
    Start(HuntPreset),
    Stop,
}

/// One round's progress.
#[derive(Debug, Clone)]
pub struct Round {
    /// The preset as it was when the round began: a reload that edits or removes it changes
    /// the next round, not this one.
    pub preset: HuntPreset,
    /// Ticks since the round began.
    pub elapsed: u64,
    /// Ticks until the next wave.
    pub next_wave_in: u64,
    pub spawned: u32,
    pub kills: u32,
    /// The most players the round has had: its waves and goal are sized for them.
    pub players: u32,
    /// The kill goal: raised when players join, never lowered while the round runs.
    pub goal: u32,
    /// The round's random stream (waves, spawn points, types), saved with it.
    pub rng: Stream,
}

impl Hunts {
    /// `hunt` status line (logfmt).
    pub fn report(&self, alive: usize, tick_rate: f64) -> String {
        match &self.active {
            None => "hunt=none".into(),
            Some(round) => {
                let preset = &round.preset;
                let left = preset.round_time_s - round.elapsed as f64 / tick_rate;
                format!(
                    "hunt={} alive={alive} spawned={} kills={} goal={} seconds_left={:.0}",
                    preset.name,
                    round.spawned,
                    round.kills,
                    round.goal,
                    left.max(0.0)
                )
            }
        }
    }
}

/// A spawn point in a lake or a tree spawns on the nearest ground, looked for on rings every
/// 2 blocks out to 16: every wave comes whole, so the kill goal it was sized for can be met.
const SPAWN_POINT_RINGS: u32 = 8;

fn schedule_hunts(mut hunts: ResMut<Hunts>, config: Res<Config>, server: Res<Server>) {
    let hunt = &config.hunt;
    if hunt.schedule_preset.is_empty() || hunts.active.is_some() || hunts.request.is_some() {
        return;
    }
    let every = (hunt.schedule_every_s * server.tick_rate().get() as f64).round() as i64;
    let tick = server.current_tick();
    if tick > 0 && tick % every.max(1) == 0 {
        if let Some(preset) = hunt.presets.iter().find(|p| p.name == hunt.schedule_preset) {
            hunts.request = Some(HuntRequest::Start(preset.clone()));
        }
    }
}

/// The hunt's boss bar, as the round shows it.
type Bars<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut BossBarTitle,
        &'static mut BossBarHealth,
        &'static mut BossBarViewers,
    ),
    With<HuntBar>,
>;

/// The hunt's zombies, and what players slew this tick: the kills among those zombies count
/// towards the goal.
#[derive(SystemParam)]
struct Quarry<'w, 's> {
    members: Query<'w, 's, (Entity, Option<&'static Dying>), With<HuntZombie>>,
    slain: EventReader<'w, 's, PlayerKill>,
}

impl Quarry<'_, '_> {
    /// The hunt's zombies slain this tick. The goal counts what players slay, not what the
    /// sun burns.
    fn kills(&mut self) -> u32 {
        let members = &self.members;
        self.slain
            .iter()
            .filter(|kill| members.contains(kill.victim))
            .count() as u32
    }

    fn alive(&self) -> u32 {
        self.members
            .iter()
            .filter(|(_, dying)| dying.is_none())
            .count() as u32
    }
}

/// Who plays: every client, told of the round and shown its bar, and their game modes, which
/// say who counts for the round.
#[derive(SystemParam)]
struct Players<'w, 's> {
    clients: Query<'w, 's, (Entity, &'static mut Client)>,
    modes: Query<'w, 's, &'static GameMode, With<Client>>,
}

impl Players<'_, '_> {
    /// The round is played by those zombies may hunt (spectators and builders do not count).
    fn hunted(&self) -> u32 {
        self.modes.iter().filter(|mode| huntable(mode)).count() as u32
    }
}

/// Where a wave comes and of what: the overworld, the world spawn its preset's points are
/// around, and the zombie kinds.
#[derive(SystemParam)]
struct WaveGround<'w, 's> {
    layers: Query<'w, 's, (Entity, &'static ChunkLayer), With<Overworld>>,
    spawn: Res<'w, WorldSpawn>,
    kinds: Res<'w, ZombieKinds>,
}

/// Each tick: a round asked for starts, or stops; the running round counts its kills and its
/// players, ends when won or out of time, sends its waves and shows its bar.
fn run_hunt(
    mut commands: Commands,
    mut hunts: ResMut<Hunts>,
    mut quarry: Quarry,
    mut bars: Bars,
    mut players: Players,
    ground: WaveGround,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    let tick_rate = server.tick_rate().get() as f64;
    let hunts = &mut *hunts;
    let kills = quarry.kills();
    match hunts.request.take() {
        Some(HuntRequest::Start(preset)) if hunts.active.is_none() => {
            hunts.active = Some(begin_round(preset, now, tick_rate, &mut players.clients));
        }
        Some(HuntRequest::Stop) if hunts.active.is_some() => {
            end_round(
                &mut commands,
                hunts,
                &quarry.members,
                &bars,
                &mut players.clients,
                "The hunt was stopped",
            );
            return;
        }
        _ => {}
    }
    let Some(round) = hunts.active.as_mut() else {
        return;
    };
    let goal = round.advance(kills, players.hunted(), tick_rate);
    let alive = quarry.alive();
    let elapsed = round.elapsed as f64 / tick_rate;
    // The boss bar, made here so that a round restored from the save gets one too.
    if bars.is_empty() {
        raise_bar(&mut commands, &round.preset.name);
    }
    if let Some(message) = round.verdict(goal, elapsed) {
        end_round(
            &mut commands,
            hunts,
            &quarry.members,
            &bars,
            &mut players.clients,
            &message,
        );
        return;
    }

    round.next_wave_in = round.next_wave_in.saturating_sub(1);
    if round.next_wave_in == 0 {
        let preset = &round.preset;
        round.next_wave_in = wave_ticks(preset, tick_rate);
        let size = wave_size(
            preset,
            round.players,
            alive,
            round.spawned,
            round.rng.unit(),
        );
        ground.send_wave(&mut commands, round, size);
    }
    show_bar(&mut bars, round, goal, elapsed, &players.clients);
}

/// A new round of `preset`, told to everyone.
fn begin_round(
    preset: HuntPreset,
    now: u64,
    tick_rate: f64,
    clients: &mut Query<(Entity, &mut Client)>,
) -> Round {
    info!("hunt {} started", preset.name);
    broadcast(clients, &format!("A hunt begins: {}", preset.name));
    Round {
        // As the seed's loop, the round waits a spawn interval before its first wave.
        next_wave_in: wave_ticks(&preset, tick_rate),
        preset,
        elapsed: 0,
        spawned: 0,
        kills: 0,
        players: 0,
        goal: 0,
        rng: Stream::new(crate::random::mix(now)),
    }
}

impl Round {
    /// The round's tick: `kills` added, sized for the most players it has had (`hunted`
    /// now), its goal raised to match, its clock on. Returns the goal.
    fn advance(&mut self, kills: u32, hunted: u32, tick_rate: f64) -> u32 {
        self.kills += kills;
        self.players = self.players.max(hunted);
        let progress = Progress {
            elapsed: self.elapsed,
            spawned: self.spawned,
            goal: self.goal,
        };
        self.goal = kill_goal(&self.preset, self.players, progress, tick_rate);
        self.elapsed += 1;
        self.goal
    }

    /// Why the round is over, if it is: its goal met, or its time up after `elapsed` seconds.
    fn verdict(&self, goal: u32, elapsed: f64) -> Option<String> {
        if self.kills >= goal {
            Some(format!("Victory: {} zombies slain", self.kills))
        } else if elapsed >= self.preset.round_time_s {
            Some(format!("Time is up: {}/{goal} zombies slain", self.kills))
        } else {
            None
        }
    }
}

fn raise_bar(commands: &mut Commands, title: &str) {
    commands.spawn((
        BossBarBundle::new(
            title.to_string().into(),
            BossBarColor::Red,
            BossBarDivision::TenNotches,
            BossBarFlags::new(),
        ),
        HuntBar,
    ));
}

impl WaveGround<'_, '_> {
    /// A wave of `size` zombies at the preset's spawn points, each of a type drawn by rarity.
    fn send_wave(&self, commands: &mut Commands, round: &mut Round, size: u32) {
        let (Ok((layer_entity, layer)), Some(center)) = (self.layers.get_single(), self.spawn.pos)
        else {
            return;
        };
        let kinds = &self.kinds;
        let preset = &round.preset;
        let weights: Vec<u32> = preset
            .types
            .iter()
            .map(|t| kinds.find(t).map_or(0, |k| kinds.get(k).rarity))
            .collect();
        for _ in 0..size {
            let point = preset.spawn_points[(round.rng.unit() * preset.spawn_points.len() as f64)
                as usize
                % preset.spawn_points.len()];
            let at = DVec2::new(center.x + point[0], center.z + point[1]);
            let radii = (1..=SPAWN_POINT_RINGS).map(|ring| 2.0 * ring as f64);
            let Some(pos) = ground_at(layer, at).or_else(|| ground_around(layer, at, radii)) else {
                continue; // No ground loaded near the point: nobody is near it.
            };
            let Some(kind) = kinds.find(&preset.types[roulette(&weights, round.rng.unit())]) else {
                continue;
            };
            let seed = round.rng.next_u64();
            commands.spawn((
                new_zombie(layer_entity, pos, kind, kinds, seed),
                HuntZombie,
                Arena,
            ));
            round.spawned += 1;
        }
    }
}

/// The boss bar: everyone online sees the goal and the time left.
fn show_bar(
    bars: &mut Bars,
    round: &Round,
    goal: u32,
    elapsed: f64,
    clients: &Query<(Entity, &mut Client)>,
) {
    let Ok((_, mut title, mut health, mut viewers)) = bars.get_single_mut() else {
        return;
    };
    let preset = &round.preset;
    let text = format!(
        "{}: {}/{goal} slain, {:.0} s left",
        preset.name,
        round.kills,
        (preset.round_time_s - elapsed).max(0.0)
    );
    if title.0.to_string() != text {
        title.0 = text.into();
    }
    let progress = (round.kills as f32 / goal as f32).clamp(0.0, 1.0);
    if health.0 != progress {
        health.0 = progress;
    }
    let online: std::collections::BTreeSet<Entity> = clients.iter().map(|(e, _)| e).collect();
    if viewers.viewers != online {
        viewers.viewers = online;
    }
}

fn end_round(
    commands: &mut Commands,
    hunts: &mut Hunts,
    members: &Query<(Entity, Option<&Dying>), With<HuntZombie>>,
    bars: &Bars,
    clients: &mut Query<(Entity, &mut Client)>,
    message: &str,
) {
    for (zombie, _) in members.iter() {
        commands.entity(zombie).insert(Despawned);
    }
    for (bar, ..) in bars.iter() {
        commands.entity(bar).insert(Despawned);
    }
    if let Some(round) = hunts.active.take() {
        info!(
            "hunt over after {} spawned, {} slain: {message}",
            round.spawned, round.kills
        );
    }
    broadcast(clients, message);
}

fn broadcast(clients: &mut Query<(Entity, &mut Client)>, message: &str) {
    for (_, mut client) in clients.iter_mut() {
        client.send_chat_message(message.to_string());
    }
}

/// `hunt start <preset>`: asks for a round of a configured preset.
pub fn start(world: &mut World, name: &str) -> String {
    let presets = &world.resource::<Config>().hunt.presets;
    let Some(preset) = presets.iter().find(|p| p.name == name).cloned() else {
        let known: Vec<&str> = presets.iter().map(|p| p.name.as_str()).collect();
        return format!(
            "error=\"no hunt preset {name}\" presets={}",
            known.join(",")
        );
    };
    let hunts = world.resource::<Hunts>();
    if let Some(round) = &hunts.active {
        return format!("error=\"a hunt is running\" hunt={}", round.preset.name);
    }
    if hunts.request.is_some() {
        return "error=\"a hunt is starting\"".into();
    }
    world.resource_mut::<Hunts>().request = Some(HuntRequest::Start(preset));
    format!("hunt={name} starting=true")
}

/// `hunt stop`.
pub fn stop(world: &mut World) -> String {
    let mut hunts = world.resource_mut::<Hunts>();
    if hunts.active.is_none() {
        return "hunt=none".into();
    }
    hunts.request = Some(HuntRequest::Stop);
    "stopping=true".into()
}

/// `hunt`: the running round.
pub fn status(world: &mut World) -> String {
    let alive = world
        .query_filtered::<(), (With<HuntZombie>, Without<Dying>)>()
        .iter(world)
        .count();
    let rate = world.resource::<Server>().tick_rate().get() as f64;
    world.resource::<Hunts>().report(alive, rate)
}
