//! horde: a Minecraft 1.20.1 server on Valence whose zombies roam in packs.
//!
//! Each module is one concern with a `Plugin` wiring its systems; [`build_app`] puts them
//! together into the server.

pub mod access;
pub mod blocks;
pub mod building;
pub mod chat;
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
pub mod light;
pub mod map;
pub mod menu;
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
pub mod show;
pub mod sign;
pub mod sleep;
pub mod spawning;
pub mod status;
pub mod time;
pub mod weather;
pub mod world;
pub mod zombie;

use std::net::{SocketAddr, TcpListener};
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
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
        chat::ChatPlugin,
        show::ShowPlugin,
        items::ItemsPlugin,
        menu::MenuPlugin,
        sleep::SleepPlugin,
        sign::SignPlugin,
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
    let network = launch.network;
    let world_dir = &launch.world_dir;
    open_world_dir(world_dir)?;
    let saved = SavedWorld::load(&launch.config, world_dir)?;
    let server_dir = server_dir(launch.config_path.as_deref(), world_dir);
    let listing = listing(&launch.config, &server_dir, world_dir);
    let access = access::Access::load(server_dir, launch.config.server.whitelist)?;

    let mut app = new_app(&launch.config, network)?;
    let game = if network {
        Some(listen_for_players(
            &mut app,
            &launch.config,
            &access,
            &listing,
        )?)
    } else {
        // Headless: no connection to keep alive, however long a test or benchmark runs.
        app.insert_resource(KeepaliveSettings {
            period: std::time::Duration::MAX,
        });
        None
    };
    let rcon = launch.config.rcon.clone();
    let query = launch.config.query.clone();
    let metrics = launch.config.metrics.clone();
    let plugins = valence_plugins(network);
    add_server(&mut app, plugins, launch, access, listing.clone(), saved);

    // Every listener is bound before the server says it is up. The game port and the proxy
    // door were bound above, and their failure stops the start; RCON and the map are
    // auxiliary, as in vanilla: one that cannot be bound is a warning and the game goes on.
    let rcon_listener = bind_rcon(&rcon)?;
    let map_at = start_map(&mut app, network)?;
    let metrics_at = start_metrics(&mut app, &metrics, network)?;
    let listening = game.as_ref().map(|game| game.address);
    let query_at = match (network, query.enabled, listening) {
        (true, true, Some(game)) => start_query(&mut app, &query, game, listing),
        _ => None,
    };
    if let Some(door) = game.and_then(|game| game.door) {
        access::proxy::start(door.listener, door.inner, door.forwarding)?;
    }

    // Logging starts with the plugins: report the listen addresses only now.
    if let Some(address) = listening {
        announce_game(&app, address);
    }
    if let Some(listener) = rcon_listener {
        start_rcon(&mut app, listener, rcon.password);
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

/// Checks the world folder, and clears it of the temp files an interrupted save left.
fn open_world_dir(world_dir: &Path) -> anyhow::Result<()> {
    check_world_dir(world_dir)?;
    let leftovers: usize = ["region", "entities", "data", "playerdata"]
        .iter()
        .map(|dir| files::remove_leftovers(&world_dir.join(dir)))
        .sum();
    if leftovers > 0 {
        info!("removed {leftovers} temp files an interrupted save left in the world folder");
    }
    Ok(())
}

/// The world's clock, escalation phase and weather, as its save left them (or new).
struct SavedWorld {
    clock: time::WorldClock,
    phase: daylight::Phase,
    weather: weather::Weather,
    spawn: world::WorldSpawn,
}

impl SavedWorld {
    fn load(config: &Config, world_dir: &Path) -> anyhow::Result<Self> {
        let mut clock = time::WorldClock::new(config.time.day_length_ticks, config.time.start_time);
        let d = &config.daylight;
        let mut phase = daylight::Phase::new(
            config.server.seed,
            d.phase_interval_ticks,
            d.phase_jitter_ticks,
        );
        let mut weather = weather::Weather::new(config.server.seed);
        let mut spawn = world::WorldSpawn::default();
        save::load_world(
            world_dir,
            &mut [&mut clock, &mut phase, &mut weather, &mut spawn],
        )?;
        Ok(Self {
            clock,
            phase,
            weather,
            spawn,
        })
    }
}

/// Vanilla keeps its lists beside its properties: here, beside config.toml.
fn server_dir(config_path: Option<&Path>, world_dir: &Path) -> PathBuf {
    config_path
        .and_then(|p| p.parent())
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .unwrap_or(world_dir)
        .to_path_buf()
}

/// What the server list shows of the server: its icon beside the lists or in the world
/// folder, and the world's name.
fn listing(config: &Config, server_dir: &Path, world_dir: &Path) -> Arc<status::Listing> {
    let icon = status::icon::load(&[server_dir, world_dir]);
    let world_name = world_dir
        .file_name()
        .map_or_else(|| "world".into(), |n| n.to_string_lossy().into_owned());
    Arc::new(status::Listing::new(config, world_name, icon))
}

/// The app with its thread pool and tick settings.
fn new_app(config: &Config, network: bool) -> anyhow::Result<App> {
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
    Ok(app)
}

/// Valence's plugins, logging as operators want it; headless, without the network.
fn valence_plugins(network: bool) -> impl PluginGroup {
    // Valence warns of every selected-slot packet it misreads (see `player::hotbar`), once a
    // scroll of the mouse wheel; operators are spared that line. `RUST_LOG` still overrides.
    let plugins = DefaultPlugins.build().set(valence::log::LogPlugin {
        filter: "wgpu=error,naga=warn,valence_server::event_loop=error".into(),
        level: valence::log::Level::INFO,
    });
    if network {
        plugins
    } else {
        plugins.disable::<NetworkPlugin>()
    }
}

/// Where players reach the game, and horde's door in front of it if there is one.
struct GamePort {
    address: SocketAddr,
    door: Option<Door>,
}

/// The public port's listener, kept for the door, and the loopback address Valence listens
/// on behind it; what the door forwards.
struct Door {
    listener: TcpListener,
    inner: SocketAddr,
    forwarding: access::proxy::Forwarding,
}

/// Binds the game's port and sets Valence's network settings: who may connect, and how.
fn listen_for_players(
    app: &mut App,
    config: &Config,
    access: &access::Access,
    listing: &Arc<status::Listing>,
) -> anyhow::Result<GamePort> {
    use access::proxy::Forwarding;
    let (address, listener) = bind_address(config)?;
    let server = &config.server;
    // Behind Velocity, and for unauthenticated players, horde keeps the public port for its
    // own door (see access::proxy) and Valence listens on loopback behind it.
    let (connection_mode, forwarding) = match server.connection_mode {
        ConnectionModeSetting::Velocity => {
            let secret = server.velocity_secret.as_str();
            let forwarding = Forwarding::Velocity {
                secret: secret.into(),
            };
            let mode = ConnectionMode::Velocity {
                secret: secret.into(),
            };
            (mode, Some(forwarding))
        }
        ConnectionModeSetting::Direct if server.online_mode => {
            let mode = ConnectionMode::Online {
                prevent_proxy_connections: false,
            };
            (mode, None)
        }
        ConnectionModeSetting::Direct => (ConnectionMode::BungeeCord, Some(Forwarding::Offline)),
    };
    let (game_address, door) = match forwarding {
        Some(forwarding) => {
            let inner = bind_address_at(SocketAddr::from(([127, 0, 0, 1], 0)))?.0;
            let door = Door {
                listener,
                inner,
                forwarding,
            };
            (inner, Some(door))
        }
        None => (address, None),
    };
    app.insert_resource(NetworkSettings {
        address: game_address,
        max_players: server.max_players as usize,
        connection_mode,
        callbacks: access.gate(listing.clone()).into(),
        ..Default::default()
    });
    Ok(GamePort { address, door })
}

/// The configuration, the world and the server's plugins, with the world's saved state.
fn add_server(
    app: &mut App,
    plugins: impl PluginGroup,
    launch: Launch,
    access: access::Access,
    listing: Arc<status::Listing>,
    saved: SavedWorld,
) {
    let Launch {
        config,
        config_path,
        world_dir,
        network,
        stdin,
    } = launch;
    let one_by_one = |schedule: &mut Schedule| {
        schedule.set_executor_kind(ExecutorKind::SingleThreaded);
    };
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
            status::StatusPlugin { listing },
            console::ConsolePlugin { stdin },
        ))
        .insert_resource(saved.clock)
        .insert_resource(saved.weather)
        .insert_resource(saved.spawn)
        .insert_resource(daylight::WorldPhase(saved.phase));
}

/// RCON's listener, bound if RCON is on.
fn bind_rcon(rcon: &config::RconConfig) -> anyhow::Result<Option<TcpListener>> {
    if !rcon.enabled {
        return Ok(None);
    }
    let ip = rcon
        .address
        .parse()
        .context("rcon.address is not an IP address")?;
    let address = SocketAddr::new(ip, rcon.port);
    Ok(auxiliary(
        "RCON",
        "rcon.port",
        console::rcon::bind(address).with_context(|| format!("cannot listen on {address}")),
    ))
}

/// The live map, started if it is on and the server is on a network; its address.
fn start_map(app: &mut App, network: bool) -> anyhow::Result<Option<SocketAddr>> {
    let map = app.world.resource::<Config>().map.clone();
    if !(network && map.enabled) {
        return Ok(None);
    }
    let ip = map
        .address
        .parse()
        .context("map.address is not an IP address")?;
    let address = SocketAddr::new(ip, map.port);
    let started = map::MapPlugin::start(address, map.max_connections);
    let Some((plugin, bound)) = auxiliary("the map", "map.port", started) else {
        return Ok(None);
    };
    app.add_plugins(plugin);
    Ok(Some(bound))
}

/// The metrics endpoint, started if it is on and the server is on a network; its address.
fn start_metrics(
    app: &mut App,
    metrics: &config::MetricsConfig,
    network: bool,
) -> anyhow::Result<Option<SocketAddr>> {
    if !(network && metrics.enabled) {
        return Ok(None);
    }
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
    Ok(auxiliary("the metrics endpoint", "metrics.port", started))
}

/// The query (GameSpy4) on the game's IP, its packets counted by outcome; its address.
fn start_query(
    app: &mut App,
    query: &config::QueryConfig,
    game: SocketAddr,
    listing: Arc<status::Listing>,
) -> Option<SocketAddr> {
    let packets = status::query::QueryPackets::default();
    for outcome in ["answered", "refused", "dropped"] {
        drop(packets.get_or_create(&[("outcome", outcome)]));
    }
    metrics::register(
        app,
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
    auxiliary("the query", "query.port", started)
}

/// The game's address, and who may connect there.
fn announce_game(app: &App, address: SocketAddr) {
    info!("listening for Minecraft 1.20.1 clients on {address}");
    let server = &app.world.resource::<Config>().server;
    if server.connection_mode == ConnectionModeSetting::Velocity {
        info!("behind Velocity: only the proxy (modern forwarding, shared secret) may connect");
    } else if !server.online_mode {
        warn!("online_mode is off: players are not authenticated and can join under any name");
    }
}

/// RCON on its bound listener, handing lines to the console; its refusals counted.
fn start_rcon(app: &mut App, listener: TcpListener, password: String) {
    let inbox = app.world.resource::<console::Inbox>().sender();
    let refused = prometheus_client::metrics::counter::Counter::default();
    metrics::register(
        app,
        "horde_rcon_refusals",
        "RCON logins refused for a wrong password",
        refused.clone(),
    );
    auxiliary(
        "RCON",
        "rcon.port",
        console::rcon::start(listener, password, inbox, refused).context("cannot start RCON"),
    );
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
