//! The operator's console: lines from stdin and from RCON go through one inbox and one set of
//! handlers, run on the tick thread with the whole world at hand. Status answers are logfmt so
//! people and scripts read the same text. Players type the same commands in the game's chat,
//! at their permission level (`in_game`).

pub mod command;
pub mod in_game;
pub mod rcon;
pub mod selector;
pub mod tree;

use std::io::BufRead;

use bevy_ecs::event::ManualEventReader;
use valence::app::AppExit;
use valence::event_loop::PacketEvent;
use valence::log::{error, info, warn};
use valence::prelude::*;
use valence::protocol::packets::play::command_suggestions_s2c::CommandSuggestionsMatch;
use valence::protocol::packets::play::{
    CommandExecutionC2s, CommandSuggestionsS2c, DisconnectS2c, EntityStatusS2c,
    RequestCommandCompletionsC2s,
};
use valence::protocol::VarInt;
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
        app.insert_resource(inbox)
            .insert_resource(tree::CommandTree::new())
            .add_systems(
                Update,
                (
                    run_commands,
                    run_players_commands,
                    tell_permission_levels,
                    complete_commands,
                )
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
    let online = players_to_select(world, |_| ());
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
        let level = permission_level(world.resource::<crate::access::Access>(), &name, id);
        let draw = world.resource::<Server>().current_tick() as u64;
        let answers: Vec<Text> =
            match in_game::expand(&line, (name.as_str(), stance), &online, draw) {
                Err(e) => vec![Text::text(e).color(Color::RED)],
                Ok(lines) => lines
                    .iter()
                    .filter_map(|line| match command::parse(line) {
                        // A player is told only of the commands they may run.
                        Ok(Command::Help) => Some(Text::text(help(level)).color(Color::GRAY)),
                        Ok(c) if tree::level(line.split(' ').next().unwrap_or("")) <= level => {
                            let answer = run(world, c.clone(), (&name, stance.feet));
                            in_game::reply(&c, &answer, &name)
                        }
                        // Vanilla shows a player none of the commands above their level.
                        Ok(_) => {
                            Some(Text::translate("command.unknown.command", []).color(Color::RED))
                        }
                        Err(_) if level < 2 => {
                            Some(Text::translate("command.unknown.command", []).color(Color::RED))
                        }
                        Err(usage) => {
                            let usage = usage.strip_prefix("error=").unwrap_or(&usage);
                            Some(Text::text(usage.trim_matches('"').to_owned()).color(Color::RED))
                        }
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

/// A player's permission level: their operator level (`ops.json`), 0 for everyone else.
fn permission_level(access: &crate::access::Access, name: &str, id: uuid::Uuid) -> u8 {
    access.read().op_level(name, id)
}

/// The permission level a player's client was last told, with the commands of that level.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToldLevel(u8);

/// Tells each joining player, and each whose operator level changed (`op`, `deop`, a
/// reload of `ops.json`), their permission level (vanilla's entity event 24 + level, which
/// unlocks the client's own operator features) and the command tree of what they may run.
fn tell_permission_levels(
    mut commands: Commands,
    tree: Res<tree::CommandTree>,
    access: Res<crate::access::Access>,
    mut clients: Query<(
        Entity,
        &mut Client,
        &Username,
        &UniqueId,
        Option<&ToldLevel>,
    )>,
) {
    // Every tick, for every client: one look at the lists for all of them.
    let lists = access.read();
    for (player, mut client, name, id, told) in &mut clients {
        let level = lists.op_level(&name.0, id.0);
        if told == Some(&ToldLevel(level)) {
            continue;
        }
        client.write_packet(&EntityStatusS2c {
            // A client is entity 0 to itself.
            entity_id: 0,
            entity_status: 24 + level.min(4),
        });
        client.write_packet(&tree.packet(level));
        commands.entity(player).insert(ToldLevel(level));
    }
}

/// Answers a client's tab completion of a command, as vanilla's server does for each
/// request: the words that may come next where the typed one starts.
fn complete_commands(
    mut packets: EventReader<PacketEvent>,
    tree: Res<tree::CommandTree>,
    config: Res<Config>,
    kinds: Option<Res<ZombieKinds>>,
    mut clients: Query<(&mut Client, Option<&ToldLevel>)>,
    names: Query<&Username, With<Client>>,
) {
    let mut known: Option<tree::Known> = None;
    for packet in packets.iter() {
        let Some(request) = packet.decode::<RequestCommandCompletionsC2s>() else {
            continue;
        };
        let Ok((mut client, told)) = clients.get_mut(packet.client) else {
            continue;
        };
        let known = known.get_or_insert_with(|| tree::Known {
            players: names.iter().map(|n| n.0.clone()).collect(),
            entities: kinds.iter().map(|_| "zombie").collect(),
            effects: crate::player::effects::Effect::ALL
                .iter()
                .map(|e| e.name())
                .collect(),
            kinds: kinds
                .iter()
                .flat_map(|k| k.names())
                .map(String::from)
                .collect(),
            presets: config.hunt.presets.iter().map(|p| p.name.clone()).collect(),
            keys: config.flatten().into_iter().map(|(key, _)| key).collect(),
        });
        let level = told.map_or(0, |t| t.0);
        let (start, matches) = tree.complete(request.text, level, known);
        // Brigadier counts in UTF-16 units.
        let units = |text: &str| VarInt(text.encode_utf16().count() as i32);
        client.write_packet(&CommandSuggestionsS2c {
            id: request.transaction_id,
            start: units(&request.text[..start]),
            length: units(&request.text[start..]),
            matches: matches
                .iter()
                .map(|m| CommandSuggestionsMatch {
                    suggested_match: m,
                    tooltip: None,
                })
                .collect(),
        });
    }
}

/// `help`: the forms of the commands of permission `level` and below, and what they do.
fn help(level: u8) -> String {
    COMMANDS
        .iter()
        .filter(|(usage, _)| tree::level(usage.split(' ').next().unwrap_or("")) <= level)
        .map(|(usage, what)| format!("{usage:<42} {what}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs one command and returns its answer. Each module answers for its own data.
pub fn execute(world: &mut World, command: Command) -> String {
    let spawn = world.resource::<WorldSpawn>().pos.unwrap_or_default();
    run(world, command, ("Server", spawn))
}

/// Runs one command for `sender` (`Server` for the console, or a player's name), with `~` in
/// `summon`, `setblock`, `fill` and `noise` relative to `origin` (the world spawn, or the player).
fn run(world: &mut World, command: Command, (sender, origin): (&str, DVec3)) -> String {
    if !available(world, &command) {
        return "error=\"not available on this server\"".into();
    }
    match command {
        Command::Help => help(u8::MAX),
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
        Command::Kill { player } => match selector::Selector::parse(&player) {
            Some(Ok(selector)) => kill(world, &selector, (sender, origin)),
            Some(Err(e)) => format!("error={e:?}"),
            None => player::commands::hurt(
                world,
                &player,
                f32::INFINITY,
                crate::common::events::DamageCause::Kill,
            ),
        },
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
            crate::world::fill(world, BlockPos::from_pos(a), BlockPos::from_pos(b), block)
        }
        Command::SetBlock { at, block, keep } => {
            let at = resolve(at, origin);
            if !crate::world::in_world(at) {
                return "error=\"That position is out of this world!\"".into();
            }
            crate::world::set_block(world, BlockPos::from_pos(at), block, keep)
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
        Command::Seed => format!("seed={}", world.resource::<Config>().server.seed),
        Command::Difficulty(to) => config::difficulty(world, to.as_deref()),
        Command::PlaySound {
            player,
            at,
            mut sound,
        } => {
            sound.at = at.map_or(origin, |at| resolve(at, origin));
            crate::show::play_sound(world, &player, &sound)
        }
        Command::Particle {
            at,
            mut shown,
            viewer,
        } => {
            shown.at = at.map_or(origin, |at| resolve(at, origin));
            crate::show::show_particles(world, &shown, viewer.as_deref())
        }
        Command::BossBar(bar) => bossbar(world, bar, (sender, origin)),
        Command::SetWorldSpawn { at, angle } => {
            crate::world::set_world_spawn(world, BlockPos::from_pos(resolve(at, origin)), angle)
        }
        Command::SpawnPoint { player, at } => {
            let at = at.map(|at| BlockPos::from_pos(resolve(at, origin)));
            player::commands::set_spawn_point(world, &player, at)
        }
        Command::GameRule { rule, value } => config::game_rule(world, &rule, value.as_deref()),
        Command::Tellraw { player, text } => crate::chat::tellraw(world, &player, text),
        Command::Title { player, shown } => crate::chat::title(world, &player, shown),
        Command::Clear { player, item, max } => {
            player::commands::clear(world, &player, item.as_deref(), max)
        }
        Command::Xp { player, change } => {
            use crate::experience::commands as xp;
            match change {
                command::XpChange::Add(amount, unit) => xp::add(world, &player, amount, unit),
                command::XpChange::Set(amount, unit) => xp::set(world, &player, amount, unit),
                command::XpChange::Query(unit) => xp::query(world, &player, unit),
            }
        }
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

/// Every player as a selector may pick them, each known by `what` makes of its entity.
fn players_to_select<T>(
    world: &mut World,
    what: impl Fn(Entity) -> T,
) -> Vec<selector::Candidate<T>> {
    world
        .query_filtered::<(Entity, &Username, &Position, &GameMode), With<Client>>()
        .iter(world)
        .map(|(entity, name, pos, mode)| selector::Candidate {
            name: name.0.clone(),
            pos: pos.0,
            kind: selector::Kind::Player,
            mode: Some(*mode),
            what: what(entity),
        })
        .collect()
}

/// `bossbar`: the operators' bars, which the `show` plugin keeps.
fn bossbar(world: &mut World, bar: command::BarCommand, (sender, origin): (&str, DVec3)) -> String {
    use crate::show::bossbar::{Change, CustomBars};
    use command::BarCommand;
    let (id, change) = match bar {
        BarCommand::Add { id, name } => return world.resource_mut::<CustomBars>().add(&id, name),
        BarCommand::Remove(id) => return world.resource_mut::<CustomBars>().remove(&id),
        BarCommand::List => return world.resource::<CustomBars>().list(),
        BarCommand::Get { id, what } => return world.resource::<CustomBars>().get(&id, &what),
        BarCommand::Set { id, change } => (id, change),
        BarCommand::SetPlayers { id, targets } => {
            let candidates = players_to_select(world, Some);
            let draw = world.resource::<Server>().current_tick() as u64;
            let mut players = Vec::new();
            for target in &targets {
                let picked: Vec<Entity> = match selector::Selector::parse(target) {
                    Some(Ok(s)) if s.players_only() => s
                        .pick(&candidates, origin, Some(sender), draw)
                        .iter()
                        .filter_map(|c| c.what)
                        .collect(),
                    Some(Ok(_)) => return "error=\"Only players may be affected by this command, but the provided selector includes entities\"".into(),
                    Some(Err(e)) => return format!("error={e:?}"),
                    None => match crate::common::body::player_named(world, target) {
                        Some(entity) => vec![entity],
                        None => return format!("error=\"no player named {target}\""),
                    },
                };
                for entity in picked {
                    let (Some(name), Some(uuid)) =
                        (world.get::<Username>(entity), world.get::<UniqueId>(entity))
                    else {
                        continue;
                    };
                    players.push((name.0.clone(), uuid.0));
                }
            }
            (id, Change::Players(players))
        }
    };
    world.resource_mut::<CustomBars>().set(&id, change)
}

/// `kill` of a selector's players and zombies, measured from `origin`; `sender` is `@s`.
fn kill(
    world: &mut World,
    selector: &selector::Selector,
    (sender, origin): (&str, DVec3),
) -> String {
    let mut candidates = players_to_select(world, |_| None);
    if !selector.players_only() {
        let mut zombies = world.query_filtered::<(Entity, &Position), (
            With<zombie::Zombie>,
            Without<crate::common::body::Dying>,
        )>();
        candidates.extend(
            zombies
                .iter(world)
                .map(|(entity, pos)| selector::Candidate {
                    name: "zombie".into(),
                    pos: pos.0,
                    kind: selector::Kind::Zombie,
                    mode: None,
                    what: Some(entity),
                }),
        );
    }
    let draw = world.resource::<Server>().current_tick() as u64;
    let picked = selector.pick(&candidates, origin, Some(sender), draw);
    if picked.is_empty() {
        return "error=\"No entity was found\"".into();
    }
    let name = if picked.len() == 1 {
        picked[0].name.clone()
    } else {
        String::new()
    };
    let zombies: Vec<Entity> = picked.iter().filter_map(|c| c.what).collect();
    let players: Vec<String> = picked
        .iter()
        .filter(|c| c.what.is_none())
        .map(|c| c.name.clone())
        .collect();
    let killed = picked.len();
    if !zombies.is_empty() {
        zombie::commands::kill(world, &zombies);
    }
    for player in players {
        player::commands::hurt(
            world,
            &player,
            f32::INFINITY,
            crate::common::events::DamageCause::Kill,
        );
    }
    format!("killed={killed} name={name} zombies={}", zombies.len())
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

/// Coordinates of `summon`, `setblock`, `fill` and `noise`, where `~` is relative to `origin`.
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
