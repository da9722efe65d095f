//! The load harness's floor: horde's network, world, players and console with no game on top,
//! and zombies moved every tick by a trivial system with no AI. What it costs is what Valence
//! itself costs to hold the same crowd, so the harness prints horde's figures as ratios to it.
//!
//! `cargo run --release --example floor -- --config PATH --world DIR --per-player N`. The
//! console takes horde's commands plus `crowd`, which gives every player online N zombies
//! around them, each walking a small circle forever. There is no game to save: end it with
//! Ctrl-C or SIGTERM rather than `stop`.

use std::f64::consts::TAU;
use std::io::BufRead;
use std::path::PathBuf;

use anyhow::{bail, Context};
use horde::config::Config;
use horde::console::{Inbox, Request};
use horde::{build_base, Launch};
use valence::entity::zombie::ZombieEntityBundle;
use valence::prelude::*;

/// The horde binary's allocator, so that the ratio compares the game and not the allocators.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Blocks a floor zombie moves per tick: a zombie's walk.
const STEP: f64 = 0.115;

fn main() -> anyhow::Result<()> {
    let mut config = None;
    let mut world = None;
    let mut per_player = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args
            .next()
            .with_context(|| format!("{arg} needs a value"))?;
        match arg.as_str() {
            "--config" => config = Some(PathBuf::from(value)),
            "--world" => world = Some(PathBuf::from(value)),
            "--per-player" => per_player = Some(value.parse::<usize>()?),
            other => bail!("unknown argument {other:?}"),
        }
    }
    let usage = "usage: floor --config PATH --world DIR --per-player N";
    let (Some(config), Some(world_dir), Some(per_player)) = (config, world, per_player) else {
        bail!(usage);
    };
    let mut app = build_base(Launch {
        config: Config::load(&config)?,
        config_path: None,
        world_dir,
        network: true,
        stdin: false,
    })?;
    let (crowd, requested) = flume::unbounded();
    read_stdin(app.world.resource::<Inbox>().sender(), crowd);
    app.insert_resource(Crowd {
        per_player,
        requested,
    })
    .add_systems(Update, (crowd_everyone, walk_circles));
    app.run();
    Ok(())
}

/// `crowd` is ours; every other line goes to horde's console.
fn read_stdin(inbox: flume::Sender<Request>, crowd: flume::Sender<()>) {
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            let sent = if line.trim() == "crowd" {
                crowd.send(()).is_ok()
            } else {
                inbox.send(Request { line, reply: None }).is_ok()
            };
            if !sent {
                break;
            }
        }
    });
}

#[derive(Resource)]
struct Crowd {
    per_player: usize,
    requested: flume::Receiver<()>,
}

/// A floor zombie's circle.
#[derive(Component)]
struct Circle {
    centre: DVec3,
    radius: f64,
    angle: f64,
}

/// On `crowd`, spawns each player's share in a band 24 to 64 blocks around them, as natural
/// spawning places horde's zombies.
fn crowd_everyone(
    mut commands: Commands,
    players: Query<(&Position, &EntityLayerId), With<Client>>,
    crowd: Res<Crowd>,
    mut seed: Local<u64>,
) {
    if crowd.requested.try_iter().count() == 0 {
        return;
    }
    println!("crowd={}", players.iter().count() * crowd.per_player);
    for (pos, layer) in &players {
        for _ in 0..crowd.per_player {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let unit = |shift: u32| ((*seed >> shift) & 0xffff) as f64 / 65536.0;
            let (bearing, distance) = (unit(0) * TAU, 24.0 + 40.0 * unit(16));
            let centre =
                pos.0 + DVec3::new(bearing.cos() * distance, 0.0, bearing.sin() * distance);
            let circle = Circle {
                centre,
                radius: 2.0 + 2.0 * unit(32),
                angle: unit(48) * TAU,
            };
            commands.spawn((
                ZombieEntityBundle {
                    layer: *layer,
                    position: Position(circle.point()),
                    ..Default::default()
                },
                circle,
            ));
        }
    }
}

impl Circle {
    fn point(&self) -> DVec3 {
        self.centre + DVec3::new(self.angle.cos(), 0.0, self.angle.sin()) * self.radius
    }
}

fn walk_circles(mut zombies: Query<(&mut Circle, &mut Position, &mut Look, &mut HeadYaw)>) {
    for (mut circle, mut pos, mut look, mut head) in &mut zombies {
        circle.angle = (circle.angle + STEP / circle.radius) % TAU;
        pos.0 = circle.point();
        // Facing along the circle.
        let yaw = (circle.angle.to_degrees() + 180.0) as f32;
        look.yaw = yaw;
        head.0 = yaw;
    }
}
