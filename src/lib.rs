//! horde: a Minecraft 1.20.1 server on Valence whose zombies roam in packs.
//!
//! Each module is one concern with a `Plugin` wiring its systems; [`build_app`] puts them
//! together into the server.

pub mod access;
pub mod blocks;
pub mod building;
pub mod combat;
pub mod common;
pub mod config;
pub mod console;
pub mod daylight;
pub mod experience;
pub mod files;
pub mod fuzz;
pub mod grid;
pub mod headless;
pub mod hunt;
pub mod items;
pub mod map;
pub mod metrics;
pub mod noise;
pub mod pack;
pub mod player;
pub mod random;
pub mod save;
pub mod schedule;
#[cfg(test)]
mod scratch;
pub mod service;
pub mod spawning;
pub mod status;
pub mod time;
pub mod weather;
pub mod world;
pub mod zombie;

use std::net::{SocketAddr, TcpListener};
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context};
use bevy_ecs::schedule::ExecutorKind;
use bevy_tasks::{ComputeTaskPool, TaskPoolBuilder};
use valence::keepalive::KeepaliveSettings;
use valence::log::{info, warn};
use valence::network::NetworkPlugin;
use valence::prelude::*;
use valence::ServerSettings;

use config::{Config, ConnectionModeSetting};

/// What to serve and how.
pub struct Launch {
    pub config: Config,
    /// Where `reload` reads the config again (none for headless tests).
    pub config_path: Option<PathBuf>,
    /// The world folder.
    pub world_dir: PathBuf,
    /// Listen for Minecraft clients; headless tests leave it off.
    pub network: bool,
    /// Read commands from stdin.
    pub stdin: bool,
}

/// Builds the whole server, ready to `run()`. Fails with an operator-readable message when the
/// world folder, its save or a port is unusable.
pub fn build_app(launch: Launch) -> anyhow::Result<App> {
    let mut app = build_base(launch)?;
    app.add_plugins((
        save::SavePlugin,
        building::BuildingPlugin,
        items::ItemsPlugin,
        experience::ExperiencePlugin,
        zombie::ZombiePlugin,
        noise::NoisePlugin,
        hunt::HuntPlugin,
        daylight::DaylightPlugin,
        pack::PackPlugin,
        spawning::SpawningPlugin,
    ));
    let world_dir = app.world.resource::<world::WorldDir>().0.clone();
    save::load(&world_dir, &mut app)?;
    Ok(app)
}

/// The server without its game: network, world, clock, players, metrics and the console.
/// [`build_app`] adds zombies, packs, daylight, hunts and saving on top; the load harness's
/// floor adds a trivial zombie mover instead, to measure what Valence alone costs.
pub fn build_base(launch: Launch) -> anyhow::Result<App> {
    let Launch {
        config,
        config_path,
        world_dir,
        network,
        stdin,
    } = launch;
    check_world_dir(&world_dir)?;
    let leftovers: usize = ["region", "entities", "data", "playerdata"]
        .iter()
        .map(|dir| files::remove_leftovers(&world_dir.join(dir)))
        .sum();
    if leftovers > 0 {
        info!("removed {leftovers} temp files an interrupted save left in the world folder");
    }
    let mut clock = time::WorldClock::new(config.time.day_length_ticks, config.time.start_time);
    let d = &config.daylight;
    let mut phase = daylight::Phase::new(
        config.server.seed,
        d.phase_interval_ticks,
        d.phase_jitter_ticks,
    );
    let mut weather = weather::Weather::new(config.server.seed);
    save::load_world(&world_dir, &mut [&mut clock, &mut phase, &mut weather])?;

    // Vanilla keeps its lists beside its properties: here, beside config.toml.
    let server_dir = config_path
        .as_deref()
        .and_then(|p| p.parent())
        .map(|p| {
            if p.as_os_str().is_empty() {
                std::path::Path::new(".")
            } else {
                p
            }
        })
        .unwrap_or(&world_dir)
        .to_path_buf();
    let icon = status::icon::load(&[&server_dir, &world_dir]);
    let world_name = world_dir
        .file_name()
        .map_or_else(|| "world".into(), |n| n.to_string_lossy().into_owned());
    let listing = Arc::new(status::Listing::new(&config, world_name, icon));
    let access = access::Access::load(server_dir, config.server.whitelist)?;

    // The pool the crowd's loops share (`par_iter`, the sieges' searches, Valence's client
    // loops): a thread a core. With one thread fewer the tick thread waited less for a core
    // but did the missing thread's work itself, and ticks ran longer (BENCHMARKS, #39). Made
    // here, once a process, rather than by whichever schedule happens to run first.
    ComputeTaskPool::init(|| TaskPoolBuilder::new().thread_name("compute".into()).build());
    let mut app = App::new();
    let defaults = ServerSettings::default();
    app.insert_resource(ServerSettings {
        tick_rate: NonZeroU32::new(config.server.tick_rate).context("server.tick_rate is 0")?,
        // Compression only pays over a network; headless mock clients read plain frames.
        compression_threshold: defaults.compression_threshold.filter(|_| network),
    });
    // Valence warns of every selected-slot packet it misreads (see `player::hotbar`), once a
    // scroll of the mouse wheel; operators are spared that line. `RUST_LOG` still overrides.
    let mut plugins = DefaultPlugins.build().set(valence::log::LogPlugin {
        filter: "wgpu=error,naga=warn,valence_server::event_loop=error".into(),
        level: valence::log::Level::INFO,
    });
    let mut listening = None;
    let mut door = None;
    if network {
        let (address, listener) = bind_address(&config)?;
        // Behind Velocity horde keeps the public port for its own door (see access::proxy) and
        // Valence listens on loopback behind it.
        let game_address = if config.server.connection_mode == ConnectionModeSetting::Velocity {
            let inner = bind_address_at(SocketAddr::from(([127, 0, 0, 1], 0)))?.0;
            door = Some((listener, inner, config.server.velocity_secret.clone()));
            inner
        } else {
            address
        };
        app.insert_resource(NetworkSettings {
            address: game_address,
            max_players: config.server.max_players as usize,
            connection_mode: match config.server.connection_mode {
                ConnectionModeSetting::Velocity => ConnectionMode::Velocity {
                    secret: config.server.velocity_secret.as_str().into(),
                },
                ConnectionModeSetting::Direct if config.server.online_mode => {
                    ConnectionMode::Online {
                        prevent_proxy_connections: false,
                    }
                }
                ConnectionModeSetting::Direct => ConnectionMode::Offline,
            },
            callbacks: access.gate(listing.clone()).into(),
            ..Default::default()
        });
        listening = Some(address);
    } else {
        // Headless: no connection to keep alive, however long a test or benchmark runs.
        app.insert_resource(KeepaliveSettings {
            period: std::time::Duration::MAX,
        });
        plugins = plugins.disable::<NetworkPlugin>();
    }
    let rcon = config.rcon.clone();
    let one_by_one = |schedule: &mut Schedule| {
        schedule.set_executor_kind(ExecutorKind::SingleThreaded);
    };
    let query = config.query.clone();
    let metrics = config.metrics.clone();
    app.insert_resource(config)
        .insert_resource(config::ConfigPath(config_path))
        .insert_resource(access)
        // Systems run one after another: nearly all of ours touch the zombies, so they could
        // hardly run side by side, and handing each system to a thread pool costs a wake-up
        // a system. On two cores under load, Valence's pool threads waited about as long to be
        // scheduled as they ran. Valence's own parallel loops still use the pool.
        .edit_schedule(PreUpdate, one_by_one)
        .edit_schedule(Update, one_by_one)
        .edit_schedule(PostUpdate, one_by_one)
        .add_plugins(plugins)
        .add_plugins(schedule::SchedulePlugin)
        .add_plugins((
            config::ConfigPlugin,
            metrics::MetricsPlugin,
            world::WorldPlugin {
                dir: world_dir,
                terrain_between_ticks: network,
            },
            time::TimePlugin,
            weather::WeatherPlugin,
            access::AccessPlugin,
            player::PlayerPlugin,
            status::StatusPlugin {
                listing: listing.clone(),
            },
            console::ConsolePlugin { stdin },
        ))
        .insert_resource(clock)
        .insert_resource(weather)
        .insert_resource(daylight::WorldPhase(phase));

    // Every listener is bound before the server says it is up. The game port and the proxy
    // door were bound above, and their failure stops the start; RCON and the map are
    // auxiliary, as in vanilla: one that cannot be bound is a warning and the game goes on.
    let rcon_listener = if rcon.enabled {
        let ip = rcon
            .address
            .parse()
            .context("rcon.address is not an IP address")?;
        let address = SocketAddr::new(ip, rcon.port);
        auxiliary(
            "RCON",
            "rcon.port",
            console::rcon::bind(address).with_context(|| format!("cannot listen on {address}")),
        )
    } else {
        None
    };
    let map = app.world.resource::<Config>().map.clone();
    let mut map_at = None;
    if network && map.enabled {
        let ip = map
            .address
            .parse()
            .context("map.address is not an IP address")?;
        let address = SocketAddr::new(ip, map.port);
        let started = map::MapPlugin::start(address, map.max_connections);
        if let Some((plugin, bound)) = auxiliary("the map", "map.port", started) {
            app.add_plugins(plugin);
            map_at = Some(bound);
        }
    }
    let mut metrics_at = None;
    if network && metrics.enabled {
        let ip = metrics
            .address
            .parse()
            .context("metrics.address is not an IP address")?;
        let exported = app.world.resource::<metrics::Exported>().clone();
        let started = metrics::export::start(
            SocketAddr::new(ip, metrics.port),
            metrics.max_connections,
            exported,
        );
        metrics_at = auxiliary("the metrics endpoint", "metrics.port", started);
    }
    let mut query_at = None;
    if let (true, true, Some(game)) = (network, query.enabled, listening) {
        let packets = status::query::QueryPackets::default();
        for outcome in ["answered", "refused", "dropped"] {
            drop(packets.get_or_create(&[("outcome", outcome)]));
        }
        metrics::register(
            &mut app,
            "horde_query_packets",
            "Query packets by outcome: answered, refused (malformed or a bad token), dropped (over query.max_packets_per_s)",
            packets.clone(),
        );
        let host = status::query::Host {
            ip: game.ip().to_string(),
            port: game.port(),
        };
        let started = status::query::start(
            SocketAddr::new(game.ip(), query.port),
            query.max_packets_per_s,
            host,
            listing,
            packets,
        );
        query_at = auxiliary("the query", "query.port", started);
    }
    if let Some((listener, inner, secret)) = door {
        access::proxy::start(listener, inner, secret)?;
    }

    // Logging starts with the plugins: report the listen addresses only now.
    if let Some(address) = listening {
        info!("listening for Minecraft 1.20.1 clients on {address}");
        let server = &app.world.resource::<Config>().server;
        if server.connection_mode == ConnectionModeSetting::Velocity {
            info!("behind Velocity: only the proxy (modern forwarding, shared secret) may connect");
        } else if !server.online_mode {
            warn!("online_mode is off: players are not authenticated and can join under any name");
        }
    }
    if let Some(listener) = rcon_listener {
        let inbox = app.world.resource::<console::Inbox>().sender();
        let refused = prometheus_client::metrics::counter::Counter::default();
        metrics::register(
            &mut app,
            "horde_rcon_refusals",
            "RCON logins refused for a wrong password",
            refused.clone(),
        );
        auxiliary(
            "RCON",
            "rcon.port",
            console::rcon::start(listener, rcon.password, inbox, refused)
                .context("cannot start RCON"),
        );
    }
    if let Some(bound) = map_at {
        info!("map at http://{bound}/");
    }
    if let Some(bound) = metrics_at {
        info!("metrics at http://{bound}/metrics");
    }
    if let Some(bound) = query_at {
        info!("query (GameSpy4) on udp {bound}");
    }
    Ok(app)
}

/// An auxiliary service's start: on failure a warning naming the key to change, and none.
fn auxiliary<T>(what: &str, key: &str, started: anyhow::Result<T>) -> Option<T> {
    match started {
        Ok(service) => Some(service),
        Err(e) => {
            warn!("{what} is off: {e:#}; set {key} to a free port (0 picks one) and restart");
            None
        }
    }
}

/// The Minecraft listen address, bound; port 0 is resolved here to a free port so it can be
/// logged.
fn bind_address(config: &Config) -> anyhow::Result<(SocketAddr, TcpListener)> {
    let ip = config.server.address.parse()?;
    bind_address_at(SocketAddr::new(ip, config.server.port))
}

/// Valence binds on its own thread and reports no failure: binding here first makes a busy
/// port a clear error at start. Valence binds again once this listener is dropped.
fn bind_address_at(mut address: SocketAddr) -> anyhow::Result<(SocketAddr, TcpListener)> {
    let listener = TcpListener::bind(address)
        .with_context(|| format!("cannot listen on {address} (is another server running?)"))?;
    address.set_port(listener.local_addr()?.port());
    Ok((address, listener))
}

fn check_world_dir(dir: &std::path::Path) -> anyhow::Result<()> {
    if !dir.exists() {
        bail!(
            "world folder {} does not exist (create it, or set server.world in config.toml)",
            dir.display()
        );
    }
    if !dir.is_dir() {
        bail!("world folder {} is not a folder", dir.display());
    }
    let region = dir.join("region");
    if region.exists() && !region.is_dir() {
        bail!("{} is not a folder of region files", region.display());
    }
    Ok(())
}
