//! The operator's console: lines from stdin and from RCON go through one inbox and one set of
//! handlers, run on the tick thread with the whole world at hand. Status answers are logfmt so
//! people and scripts read the same text.

pub mod command;
pub mod rcon;

use std::io::BufRead;

use valence::app::AppExit;
use valence::log::{error, info, warn};
use valence::prelude::*;
use valence::protocol::packets::play::DisconnectS2c;
use valence::protocol::WritePacket;

use crate::config::{needs_restart, Config, ConfigPath};
use crate::daylight::{SkyMap, WorldPhase};
use crate::hunt::{HuntRequest, HuntZombie, Hunts};
use crate::metrics::TickTimes;
use crate::pack::Packs;
use crate::player::{DamageCause, DamagePlayer, Health};
use crate::time::WorldClock;
use crate::world::{ChunkLifecycle, Overworld, WorldDir, WorldSpawn};
use crate::zombie::attack::AttackTiming;
use crate::zombie::chase::ChaseRules;
use crate::zombie::{
    zombie_bundle, Attack, Chase, ChaseStats, Dying, Kills, Lod, Tier, Zombie, ZombieKinds,
};
use command::{Command, COMMANDS};

pub struct ConsolePlugin {
    /// Read commands from this process's stdin.
    pub stdin: bool,
}

impl Plugin for ConsolePlugin {
    fn build(&self, app: &mut App) {
        let inbox = Inbox::new();
        if self.stdin {
            read_stdin(inbox.sender());
        }
        app.insert_resource(inbox).add_systems(Update, run_commands);
    }
}

/// A command line waiting to run, and where its answer goes (stdout when `None`).
pub struct Request {
    pub line: String,
    pub reply: Option<flume::Sender<String>>,
}

/// Where stdin, RCON and signal handlers post their commands.
#[derive(Resource)]
pub struct Inbox {
    sender: flume::Sender<Request>,
    receiver: flume::Receiver<Request>,
}

impl Inbox {
    fn new() -> Self {
        let (sender, receiver) = flume::unbounded();
        Self { sender, receiver }
    }

    pub fn sender(&self) -> flume::Sender<Request> {
        self.sender.clone()
    }
}

fn read_stdin(inbox: flume::Sender<Request>) {
    let spawned = std::thread::Builder::new()
        .name("console".into())
        .spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if line.trim().is_empty() {
                    continue;
                }
                if inbox.send(Request { line, reply: None }).is_err() {
                    break;
                }
            }
        });
    if let Err(e) = spawned {
        warn!("console input is unavailable: {e}");
    }
}

fn run_commands(world: &mut World) {
    let requests: Vec<Request> = world.resource::<Inbox>().receiver.try_iter().collect();
    for request in requests {
        let answer = match command::parse(&request.line) {
            Ok(command) => execute(world, command),
            Err(usage) => usage,
        };
        match request.reply {
            Some(reply) => {
                let _ = reply.send(answer);
            }
            None => println!("{answer}"),
        }
    }
}

/// Runs one command and returns its answer.
pub fn execute(world: &mut World, command: Command) -> String {
    match command {
        Command::Help => COMMANDS
            .iter()
            .map(|(usage, what)| format!("{usage:<42} {what}"))
            .collect::<Vec<_>>()
            .join("\n"),
        Command::Stop => {
            info!("stopping the server");
            let saved = crate::save::save_now(world);
            if let Err(e) = &saved {
                error!("saving on shutdown failed: {e:#}");
            }
            kick_everyone(world, "Server closed");
            world.send_event(AppExit);
            match saved {
                Ok(()) => "saved=true stopping=true".into(),
                Err(e) => format!("saved=false error={:?} stopping=true", format!("{e:#}")),
            }
        }
        Command::SaveAll => match crate::save::save_now(world) {
            Ok(()) => {
                info!("saved the world");
                "saved=true".into()
            }
            Err(e) => {
                error!("save-all failed: {e:#}");
                format!("saved=false error={:?}", format!("{e:#}"))
            }
        },
        Command::List => {
            let mut players: Vec<(String, u32)> = world
                .query_filtered::<(&Username, Option<&Kills>), With<Client>>()
                .iter(world)
                .map(|(n, k)| (n.0.clone(), k.map_or(0, |k| k.0)))
                .collect();
            players.sort();
            let max = world.resource::<Config>().server.max_players;
            let names: Vec<&str> = players.iter().map(|(n, _)| n.as_str()).collect();
            let kills: Vec<String> = players.iter().map(|(n, k)| format!("{n}:{k}")).collect();
            format!(
                "players={} max={max} names={} kills={}",
                players.len(),
                names.join(","),
                kills.join(",")
            )
        }
        Command::Tps => world.resource::<TickTimes>().report(),
        Command::Chunks => world.resource::<ChunkLifecycle>().report(),
        Command::PerfStart => {
            let tick_rate = world.resource::<Server>().tick_rate().get();
            if world.resource_mut::<TickTimes>().start_recording(tick_rate) {
                info!("recording tick times until perf stop");
                "recording=true".into()
            } else {
                "error=\"a recording is running; perf stop ends it\"".into()
            }
        }
        Command::PerfStop => perf_stop(world),
        Command::TimeQuery => world.resource::<WorldClock>().report(),
        Command::TimeSet(ticks) => {
            let mut clock = world.resource_mut::<WorldClock>();
            clock.set_vanilla(ticks);
            let packet = clock.packet();
            let report = clock.report();
            let mut layers = world.query_filtered::<&mut ChunkLayer, With<Overworld>>();
            if let Ok(mut layer) = layers.get_single_mut(world) {
                layer.write_packet(&packet);
            }
            report
        }
        Command::Tp { player, to } => {
            let Some(entity) = find_player(world, &player) else {
                return no_such_player(&player);
            };
            let mut pos = world
                .get_mut::<Position>(entity)
                .expect("players have a position");
            let target = DVec3::new(
                to[0].resolve(pos.0.x),
                to[1].resolve(pos.0.y),
                to[2].resolve(pos.0.z),
            );
            pos.0 = target;
            format!(
                "teleported={player} x={} y={} z={}",
                target.x, target.y, target.z
            )
        }
        Command::Damage { player, amount } => hurt(world, &player, amount),
        Command::Kill { player } => hurt(world, &player, f32::INFINITY),
        Command::Summon { at, kind } => summon(world, at, kind.as_deref()),
        Command::Zombies => zombie_report(world),
        Command::Fill { from, to, block } => fill(world, from, to, &block),
        Command::Give {
            player,
            item,
            count,
        } => give(world, &player, &item, count),
        Command::GameMode { mode, player } => {
            let Some(entity) = find_player(world, &player) else {
                return no_such_player(&player);
            };
            if let Some(mut current) = world.get_mut::<GameMode>(entity) {
                *current = mode;
            }
            format!("gamemode={mode:?} player={player}").to_lowercase()
        }
        Command::Packs => {
            let packs = world.resource::<Packs>();
            let chunks = world.resource::<ChunkLifecycle>();
            let mut lines: Vec<String> = packs.packs.values().map(|p| p.report()).collect();
            lines.push(format!(
                "{} {} {}",
                packs.summary(),
                chunks.load_latency.logfmt("chunk_load"),
                chunks.unload_latency.logfmt("chunk_unload")
            ));
            lines.join("\n")
        }
        Command::Reload => reload(world),
        Command::ShowConfig(key) => {
            let config = world.resource::<Config>();
            let lines: Vec<String> = config
                .flatten()
                .into_iter()
                .filter(|(k, _)| match &key {
                    Some(wanted) => k == wanted || k.starts_with(&format!("{wanted}.")),
                    None => true,
                })
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            if lines.is_empty() {
                format!("error=\"no config key {}\"", key.unwrap_or_default())
            } else {
                lines.join("\n")
            }
        }
        Command::PhaseQuery => phase_report(world),
        Command::PhaseSet(n) => {
            let old = world.resource::<WorldPhase>().0.phase;
            world.resource_mut::<WorldPhase>().0.phase = n;
            info!("phase set from {old} to {n}");
            phase_report(world)
        }
        Command::HuntStart(name) => {
            let presets = &world.resource::<Config>().hunt.presets;
            let Some(index) = presets.iter().position(|p| p.name == name) else {
                let known: Vec<&str> = presets.iter().map(|p| p.name.as_str()).collect();
                return format!(
                    "error=\"no hunt preset {name}\" presets={}",
                    known.join(",")
                );
            };
            let hunts = world.resource::<Hunts>();
            if let Some(round) = &hunts.active {
                let running = &presets[round.preset].name;
                return format!("error=\"a hunt is running\" hunt={running}");
            }
            if hunts.request.is_some() {
                return "error=\"a hunt is starting\"".into();
            }
            world.resource_mut::<Hunts>().request = Some(HuntRequest::Start(index));
            format!("hunt={name} starting=true")
        }
        Command::HuntStop => {
            let mut hunts = world.resource_mut::<Hunts>();
            if hunts.active.is_none() {
                return "hunt=none".into();
            }
            hunts.request = Some(HuntRequest::Stop);
            "stopping=true".into()
        }
        Command::HuntStatus => {
            let alive = world
                .query_filtered::<(), (With<HuntZombie>, Without<Dying>)>()
                .iter(world)
                .count();
            let rate = world.resource::<Server>().tick_rate().get() as f64;
            world
                .resource::<Hunts>()
                .report(world.resource::<Config>(), alive, rate)
        }
    }
}

/// Ends a `perf` recording and writes its ticks next to the world, as vanilla writes its
/// profiles under `debug/`.
fn perf_stop(world: &mut World) -> String {
    let Some(recording) = world.resource_mut::<TickTimes>().stop_recording() else {
        return "error=\"no recording is running; perf start begins one\"".into();
    };
    let dir = world.resource::<WorldDir>().0.join("debug");
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let file = dir.join(format!("tick-times-{stamp}.csv"));
    let written =
        std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&file, recording.csv()));
    match written {
        Ok(()) => {
            info!("tick times written to {}", file.display());
            format!(
                "{} file={:?}",
                recording.summary(),
                file.display().to_string()
            )
        }
        Err(e) => {
            warn!("cannot write {}: {e}", file.display());
            format!(
                "{} error={:?}",
                recording.summary(),
                format!("cannot write {}: {e}", file.display())
            )
        }
    }
}

fn summon(world: &mut World, at: [command::Coord; 3], kind: Option<&str>) -> String {
    let kinds = world.resource::<ZombieKinds>().clone();
    let name = kind
        .unwrap_or(&world.resource::<Config>().zombies.default_type)
        .to_string();
    let Some(index) = kinds.find(&name) else {
        let known: Vec<&str> = kinds.0.iter().map(|t| t.name.as_str()).collect();
        return format!("error=\"no zombie type {name}\" types={}", known.join(","));
    };
    let origin = world.resource::<WorldSpawn>().pos.unwrap_or_default();
    let pos = DVec3::new(
        at[0].resolve(origin.x),
        at[1].resolve(origin.y),
        at[2].resolve(origin.z),
    );
    let mut layers = world.query_filtered::<Entity, With<Overworld>>();
    let Ok(layer) = layers.get_single(world) else {
        return "error=\"the world is not ready\"".into();
    };
    let seed = world.resource::<Server>().current_tick() as u64
        ^ pos.x.to_bits()
        ^ pos.z.to_bits().rotate_left(17);
    let entity = world
        .spawn(zombie_bundle(layer, pos, index, &kinds, seed))
        .id();
    format!(
        "summoned={} id={} x={} y={} z={}",
        kinds.0[index].name,
        entity.index(),
        pos.x,
        pos.y,
        pos.z
    )
}

/// Largest box `fill` sets at once, as vanilla.
const FILL_LIMIT: i64 = 32_768;

fn fill(
    world: &mut World,
    from: [command::Coord; 3],
    to: [command::Coord; 3],
    block: &str,
) -> String {
    let name = block.strip_prefix("minecraft:").unwrap_or(block);
    let Some(kind) = BlockKind::from_str(name) else {
        return format!("error=\"no block named {block}\"");
    };
    let origin = world.resource::<WorldSpawn>().pos.unwrap_or_default();
    let corner = |c: [command::Coord; 3]| {
        BlockPos::new(
            c[0].resolve(origin.x).floor() as i32,
            c[1].resolve(origin.y).floor() as i32,
            c[2].resolve(origin.z).floor() as i32,
        )
    };
    let (a, b) = (corner(from), corner(to));
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
    let mut layers = world.query_filtered::<&mut ChunkLayer, With<Overworld>>();
    let Ok(mut layer) = layers.get_single_mut(world) else {
        return "error=\"the world is not ready\"".into();
    };
    let (mut set, mut unloaded) = (0, 0);
    for x in min.x..=max.x {
        for y in min.y..=max.y {
            for z in min.z..=max.z {
                match layer.set_block([x, y, z], kind.to_state()) {
                    Some(_) => set += 1,
                    None => unloaded += 1,
                }
            }
        }
    }
    let mut sky = world.resource_mut::<SkyMap>();
    for x in min.x..=max.x {
        for z in min.z..=max.z {
            sky.forget_column(x, z);
        }
    }
    format!("filled={set} unloaded={unloaded} block={name}")
}

fn give(world: &mut World, player: &str, item: &str, count: u8) -> String {
    let name = item.strip_prefix("minecraft:").unwrap_or(item);
    let Some(kind) = ItemKind::from_str(name) else {
        return format!("error=\"no item named {item}\"");
    };
    let Some(entity) = find_player(world, player) else {
        return no_such_player(player);
    };
    let Some(mut inventory) = world.get_mut::<Inventory>(entity) else {
        return no_such_player(player);
    };
    // The hotbar first, as vanilla fills it.
    let slot = inventory
        .first_empty_slot_in(36..45)
        .or_else(|| inventory.first_empty_slot_in(9..36));
    match slot {
        Some(slot) => {
            inventory.set_slot(slot, ItemStack::new(kind, count, None));
            format!("given={name} count={count} to={player} slot={slot}")
        }
        None => format!("error=\"{player}'s inventory is full\""),
    }
}

/// Re-reads the config file. A file that does not validate changes nothing; keys that need a
/// restart are reported and left as they run.
fn reload(world: &mut World) -> String {
    let Some(path) = world.resource::<ConfigPath>().0.clone() else {
        return "error=\"this server was started without a config file\"".into();
    };
    let new = match Config::load(&path) {
        Ok(new) => new,
        Err(e) => {
            warn!("reload refused, the running configuration is kept: {e}");
            return format!("reloaded=false error={:?}", e.to_string());
        }
    };
    let running = world.resource::<Config>().clone();
    let changed = new.changed_keys(&running);
    let (later, now): (Vec<&String>, Vec<&String>) = changed.iter().partition(|k| needs_restart(k));
    let effective = new.applicable_now(&running);
    apply(world, &running, effective);
    let list = |keys: &[&String]| {
        keys.iter()
            .map(|k| k.as_str())
            .collect::<Vec<_>>()
            .join(",")
    };
    info!(
        "config reloaded: changed={} restart_required={}",
        list(&now),
        list(&later)
    );
    format!(
        "reloaded=true changed={} restart_required={}",
        list(&now),
        list(&later)
    )
}

/// Puts a new configuration in force and rebuilds what was derived from the old one.
fn apply(world: &mut World, running: &Config, config: Config) {
    let tick_rate = world.resource::<Server>().tick_rate().get() as f64;
    world.insert_resource(ChaseRules::new(&config, tick_rate));
    world.insert_resource(AttackTiming::new(&config, tick_rate));
    world.resource_mut::<ChunkLifecycle>().set_timing(
        config.chunks.retention_ticks,
        config.chunks.report_interval_ticks,
    );
    // Zombie types apply to new spawns; zombies alive keep their type, found again by name.
    let new_kinds = ZombieKinds(config.zombies.types.clone());
    let fallback = new_kinds.find(&config.zombies.default_type).unwrap_or(0);
    let mut zombies = world.query::<&mut Zombie>();
    for mut zombie in zombies.iter_mut(world) {
        let name = &running.zombies.types[zombie.kind].name;
        zombie.kind = new_kinds.find(name).unwrap_or(fallback);
    }
    world.insert_resource(new_kinds);
    world.insert_resource(config);
}

fn phase_report(world: &mut World) -> String {
    let phase = world.resource::<WorldPhase>().0;
    let age = world.resource::<WorldClock>().age;
    let immune = world.resource::<Config>().daylight.sun_immune_phase;
    format!(
        "phase={} next_rise_in_ticks={} sun_immune_phase={immune} burning={}",
        phase.phase,
        (phase.next_rise - age).max(0),
        phase.phase < immune
    )
}

fn zombie_report(world: &mut World) -> String {
    let mut tiers = [0usize; 4];
    let (mut total, mut chasing, mut wandering, mut attacking, mut dying) = (0, 0, 0, 0, 0);
    let mut zombies = world.query::<(&Chase, &Attack, &Lod, Option<&Dying>)>();
    for (chase, attack, lod, dead) in zombies.iter(world) {
        total += 1;
        if dead.is_some() {
            dying += 1;
            continue;
        }
        tiers[Tier::ALL.iter().position(|t| *t == lod.tier).unwrap_or(3)] += 1;
        if *attack != Attack::Ready {
            attacking += 1;
        } else if chase.target.is_some() {
            chasing += 1;
        } else if chase.wandering() {
            wandering += 1;
        }
    }
    let idle = total - dying - attacking - chasing - wandering;
    let stats = world.resource::<ChaseStats>();
    format!(
        "total={total} chasing={chasing} attacking={attacking} wandering={wandering} idle={idle} dying={dying} \
         lod_full={} lod_half={} lod_quarter={} lod_frozen={} plans={} nodes={} watchdog_fires={} give_ups={}",
        tiers[0], tiers[1], tiers[2], tiers[3], stats.plans, stats.expanded_nodes, stats.watchdog_fires, stats.give_ups
    )
}

fn hurt(world: &mut World, player: &str, amount: f32) -> String {
    let Some(entity) = find_player(world, player) else {
        return no_such_player(player);
    };
    world.send_event(DamagePlayer {
        player: entity,
        amount,
        cause: DamageCause::Command,
    });
    let health = world.get::<Health>(entity).map_or(0.0, |h| h.0);
    format!(
        "damaged={player} amount={amount} health={}",
        (health - amount).max(0.0)
    )
}

fn find_player(world: &mut World, name: &str) -> Option<Entity> {
    world
        .query_filtered::<(Entity, &Username), With<Client>>()
        .iter(world)
        .find(|(_, n)| n.0.eq_ignore_ascii_case(name))
        .map(|(e, _)| e)
}

fn no_such_player(name: &str) -> String {
    format!("error=\"no player named {name} is online\"")
}

fn kick_everyone(world: &mut World, reason: &'static str) {
    let mut clients = world.query::<&mut Client>();
    for mut client in clients.iter_mut(world) {
        client.write_packet(&DisconnectS2c {
            reason: reason.into_cow_text(),
        });
    }
}
