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

use crate::config::Config;
use crate::metrics::TickTimes;
use crate::player::{DamageCause, DamagePlayer, Health};
use crate::time::WorldClock;
use crate::world::{ChunkLifecycle, Overworld};
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
            let saved = crate::save::save_all(world);
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
        Command::SaveAll => match crate::save::save_all(world) {
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
            let mut names: Vec<String> = world
                .query_filtered::<&Username, With<Client>>()
                .iter(world)
                .map(|n| n.0.clone())
                .collect();
            names.sort();
            let max = world.resource::<Config>().server.max_players;
            format!(
                "players={} max={max} names={}",
                names.len(),
                names.join(",")
            )
        }
        Command::Tps => world.resource::<TickTimes>().report(),
        Command::Chunks => world.resource::<ChunkLifecycle>().report(),
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
    }
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
