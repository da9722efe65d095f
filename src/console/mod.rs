//! The operator's console: lines from stdin and from RCON go through one inbox and one set of
//! handlers, run on the tick thread with the whole world at hand. Status answers are logfmt so
//! people and scripts read the same text. Players type the same commands in the game's chat,
//! at their permission level (`in_game`).

pub mod command;
pub mod in_game;
pub mod rcon;

use std::io::BufRead;

use bevy_ecs::event::ManualEventReader;
use valence::app::AppExit;
use valence::event_loop::PacketEvent;
use valence::log::{error, info, warn};
use valence::prelude::*;
use valence::protocol::packets::play::{CommandExecutionC2s, DisconnectS2c};
use valence::protocol::WritePacket;

use crate::access::commands as access;
use crate::config::{self, Config};
use crate::hunt::Hunts;
use crate::metrics::{self, TickTimes};
use crate::pack::Packs;
use crate::time::{self, WorldClock};
use crate::world::{ChunkLifecycle, WorldSpawn};
use crate::zombie::ZombieKinds;
use crate::{daylight, hunt, pack, player, zombie};
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
        app.insert_resource(inbox).add_systems(
            Update,
            (run_commands, run_players_commands)
                .chain()
                .in_set(crate::schedule::TickSet::Commands),
        );
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

/// The commands players typed in the game: each run for every target its selectors name, at
/// the player's permission level, its answers sent back to them in grey; a command above their
/// level is unknown to them, as vanilla's are.
fn run_players_commands(world: &mut World, mut seen: Local<ManualEventReader<PacketEvent>>) {
    let typed: Vec<(Entity, String)> = seen
        .iter(world.resource::<Events<PacketEvent>>())
        .filter_map(|p| {
            Some((
                p.client,
                p.decode::<CommandExecutionC2s>()?.command.to_owned(),
            ))
        })
        .collect();
    if typed.is_empty() {
        return;
    }
    let online: Vec<String> = world
        .query_filtered::<&Username, With<Client>>()
        .iter(world)
        .map(|n| n.0.clone())
        .collect();
    for (player, line) in typed {
        let Some((name, id, stance)) = world
            .query::<(&Username, &UniqueId, &Position, &Look)>()
            .get(world, player)
            .ok()
            .map(|(n, id, p, look)| {
                let stance = in_game::Stance {
                    feet: p.0,
                    yaw: look.yaw,
                    pitch: look.pitch,
                };
                (n.0.clone(), id.0, stance)
            })
        else {
            continue;
        };
        info!("{name} issued server command: /{line}");
        let level = world
            .resource::<crate::access::Access>()
            .read()
            .op_level(&name, id);
        let pick = world.resource::<Server>().current_tick() as usize;
        let answers: Vec<Text> =
            match in_game::expand(&line, (name.as_str(), stance), &online, pick) {
                Err(e) => vec![Text::text(e).color(Color::RED)],
                Ok(lines) => lines
                    .iter()
                    .map(|line| match command::parse(line) {
                        Ok(c) if in_game::level(&c) <= level => {
                            Text::text(run(world, c, (&name, stance.feet))).color(Color::GRAY)
                        }
                        // Vanilla shows a player none of the commands above their level.
                        Ok(_) => Text::translate("command.unknown.command", []).color(Color::RED),
                        Err(_) if level < 2 => {
                            Text::translate("command.unknown.command", []).color(Color::RED)
                        }
                        Err(usage) => Text::text(usage).color(Color::RED),
                    })
                    .collect(),
            };
        if let Some(mut client) = world.get_mut::<Client>(player) {
            for answer in answers {
                client.send_chat_message(answer);
            }
        }
    }
}

/// Runs one command and returns its answer. Each module answers for its own data.
pub fn execute(world: &mut World, command: Command) -> String {
    let spawn = world.resource::<WorldSpawn>().pos.unwrap_or_default();
    run(world, command, ("Server", spawn))
}

/// Runs one command for `sender` (`Server` for the console, or a player's name), with `~` in
/// `summon`, `fill` and `noise` relative to `origin` (the world spawn, or the player).
fn run(world: &mut World, command: Command, (sender, origin): (&str, DVec3)) -> String {
    if !available(world, &command) {
        return "error=\"not available on this server\"".into();
    }
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
                Ok(saved) => format!("saved=true chunks={} stopping=true", saved.chunks),
                Err(e) => format!("saved=false error={:?} stopping=true", format!("{e:#}")),
            }
        }
        Command::SaveAll => {
            match crate::save::save_now(world) {
                Ok(saved) => {
                    info!("saved the world ({saved})");
                    format!(
                    "saved=true packs={} members={} loose={} players={} chunks={} region_bytes={}",
                    saved.packs, saved.members, saved.loose, saved.players, saved.chunks, saved.region_bytes
                )
                }
                Err(e) => {
                    error!("save-all failed: {e:#}");
                    format!("saved=false error={:?}", format!("{e:#}"))
                }
            }
        }
        Command::SaveOn => crate::save::switch_autosave(world, true),
        Command::SaveOff => crate::save::switch_autosave(world, false),
        Command::List => player::commands::list(world),
        Command::Tps => world.resource::<TickTimes>().tps_report(),
        Command::Mspt => world.resource::<TickTimes>().mspt_report(),
        Command::Chunks => crate::world::chunks::report(
            world.resource::<ChunkLifecycle>(),
            world.resource::<crate::world::light::Light>(),
        ),
        Command::Entities => entities_report(world),
        Command::PerfStart => metrics::perf_start(world),
        Command::PerfStop => {
            let debug = world.resource::<crate::world::WorldDir>().0.join("debug");
            metrics::perf_stop(world, &debug)
        }
        Command::TimeQuery => world.resource::<WorldClock>().report(),
        Command::TimeSet(ticks) => time::set_time(world, ticks),
        Command::Tp { player, to } => player::commands::teleport(world, &player, |from| {
            DVec3::new(
                to[0].resolve(from.x),
                to[1].resolve(from.y),
                to[2].resolve(from.z),
            )
        }),
        Command::Damage { player, amount } => player::commands::hurt(
            world,
            &player,
            amount,
            crate::common::events::DamageCause::Command,
        ),
        Command::Kill { player } => player::commands::hurt(
            world,
            &player,
            f32::INFINITY,
            crate::common::events::DamageCause::Kill,
        ),
        Command::Summon { at, kind } => {
            let pos = resolve(at, origin);
            if !crate::world::in_spawnable_bounds(pos) {
                return "error=\"Invalid position for summon\"".into();
            }
            zombie::commands::summon(world, pos, kind.as_deref())
        }
        Command::Zombies => zombie::commands::report(world),
        Command::Noise {
            at,
            radius,
            loudness,
        } => {
            let pos = resolve(at, origin);
            if !crate::world::in_world(pos) {
                return "error=\"That position is out of this world!\"".into();
            }
            crate::noise::command(world, pos, radius, loudness)
        }
        Command::Fill { from, to, block } => {
            let (a, b) = (resolve(from, origin), resolve(to, origin));
            if ![a, b].iter().all(|p| crate::world::in_world(*p)) {
                return "error=\"That position is out of this world!\"".into();
            }
            crate::world::fill(world, BlockPos::from_pos(a), BlockPos::from_pos(b), &block)
        }
        Command::Give {
            player,
            item,
            count,
        } => player::commands::give(world, &player, &item, count),
        Command::GameMode { mode, player } => player::commands::set_game_mode(world, &player, mode),
        Command::EffectGive {
            player,
            effect,
            seconds,
            amplifier,
        } => player::commands::give_effect(world, &player, &effect, seconds, amplifier),
        Command::EffectClear(player) => player::commands::clear_effects(world, &player),
        Command::Say(message) => crate::chat::say(world, sender, &message),
        Command::Me(action) => crate::chat::emote(world, sender, &action),
        Command::Msg { player, message } => crate::chat::whisper(world, sender, &player, &message),
        Command::Packs => pack::report(world),
        Command::Reload => {
            let config = config::reload(world);
            format!("{config} {}", access::reload_lists(world))
        }
        Command::ShowConfig(key) => config::show(world.resource::<Config>(), key.as_deref()),
        Command::PhaseQuery => daylight::phase_report(world),
        Command::WeatherQuery => crate::weather::query(world),
        Command::WhitelistSwitch(on) => access::whitelist_switch(world, on),
        Command::WhitelistAdd(player) => access::whitelist_add(world, &player),
        Command::WhitelistRemove(player) => access::whitelist_remove(world, &player),
        Command::WhitelistList => access::whitelist_list(world),
        Command::WhitelistReload => access::whitelist_reload(world),
        Command::Ban { player, reason } => access::ban(world, &player, reason.as_deref()),
        Command::BanIp { target, reason } => access::ban_ip(world, &target, reason.as_deref()),
        Command::Pardon(player) => access::pardon(world, &player),
        Command::PardonIp(address) => access::pardon_ip(world, &address),
        Command::Banlist(which) => access::banlist(world, which.as_deref()),
        Command::Kick { player, reason } => access::kick(world, &player, reason.as_deref()),
        Command::Op(player) => access::op(world, &player),
        Command::Deop(player) => access::deop(world, &player),
        Command::WeatherSet(kind, seconds) => crate::weather::command(world, kind, seconds),
        Command::PhaseSet(n) => daylight::set_phase(world, n),
        Command::HuntStart(name) => hunt::start(world, &name),
        Command::HuntStop => hunt::stop(world),
        Command::HuntStatus => hunt::status(world),
    }
}

/// Whether the part of the game `command` works on is in this server: the load harness's
/// floor runs the server base alone, without zombies, packs or hunts.
fn available(world: &World, command: &Command) -> bool {
    match command {
        Command::Summon { .. } | Command::Zombies | Command::Noise { .. } => {
            world.contains_resource::<ZombieKinds>()
        }
        Command::Packs => world.contains_resource::<Packs>(),
        Command::HuntStart(_) | Command::HuntStop | Command::HuntStatus => {
            world.contains_resource::<Hunts>()
        }
        _ => true,
    }
}

/// Coordinates of `summon`, `fill` and `noise`, where `~` is relative to `origin`.
fn resolve(at: [command::Coord; 3], origin: DVec3) -> DVec3 {
    DVec3::new(
        at[0].resolve(origin.x),
        at[1].resolve(origin.y),
        at[2].resolve(origin.z),
    )
}

/// `entities`: every entity in the world, and those of each kind horde makes many of: what a
/// long run watches for a leak (one left behind by a death, a ghosting or a reconnection).
fn entities_report(world: &mut World) -> String {
    fn count<F: bevy_ecs::query::ReadOnlyWorldQuery>(world: &mut World) -> usize {
        world.query_filtered::<(), F>().iter(world).count()
    }
    format!(
        "entities={} players={} zombies={} items={} orbs={} entity_layers={}",
        world.entities().len(),
        count::<With<Client>>(world),
        count::<With<zombie::Zombie>>(world),
        count::<With<crate::items::GroundItem>>(world),
        count::<With<crate::experience::Orb>>(world),
        count::<With<EntityLayer>>(world),
    )
}

fn kick_everyone(world: &mut World, reason: &'static str) {
    let mut clients = world.query::<&mut Client>();
    for mut client in clients.iter_mut(world) {
        client.write_packet(&DisconnectS2c {
            reason: reason.into_cow_text(),
        });
    }
}
