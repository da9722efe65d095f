//! `config.toml`: every tunable number of the server, with the SPEC's defaults.
//!
//! Loading is strict on purpose: an unknown key, a wrong type or an out-of-range value stops the
//! server with one line naming the key, the value and what is allowed. A typo must never be
//! silently replaced by a default.

mod bounds;

use std::fmt;
use std::path::Path;

use bevy_ecs::prelude::Resource;
use serde::{Deserialize, Serialize};

pub use bounds::Bound;

/// The file the running configuration came from.
#[derive(Resource, Debug, Clone, Default)]
pub struct ConfigPath(pub Option<std::path::PathBuf>);

/// The whole configuration, one table per concern.
#[derive(Resource, Deserialize, Serialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub server: ServerConfig,
    pub time: TimeConfig,
    pub rcon: RconConfig,
    pub save: SaveConfig,
    pub chunks: ChunksConfig,
    pub zombies: ZombiesConfig,
    pub chase: ChaseConfig,
    pub lod: LodConfig,
    pub hunt: HuntConfig,
    pub daylight: DaylightConfig,
    pub pack: PackConfig,
    pub spawning: SpawningConfig,
}

/// `[server]`: networking, world and players.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    /// Interface to listen on.
    pub address: String,
    /// TCP port for Minecraft clients; 0 picks a free port, logged at start.
    pub port: u16,
    /// Authenticate players with Mojang, as vanilla does.
    pub online_mode: bool,
    /// Logins beyond this many players are refused.
    pub max_players: u32,
    /// Largest view distance in chunks granted to a client.
    pub view_distance: u8,
    /// Folder name under `worlds/`.
    pub world: String,
    /// Seed of the terrain generated where the world folder has no chunk.
    pub seed: i64,
    /// Ticks per second.
    pub tick_rate: u32,
    /// Game mode of joining players.
    pub game_mode: GameModeSetting,
    /// `direct` (clients connect here; `online_mode` decides authentication) or `velocity`
    /// (behind a Velocity proxy with modern forwarding; only the proxy may connect).
    pub connection_mode: ConnectionModeSetting,
    /// The forwarding secret shared with Velocity (its `forwarding.secret`).
    pub velocity_secret: String,
    /// Ticks a player cannot be hurt by mobs after joining and after respawning (vanilla's
    /// `spawnInvulnerableTime`, 60), so a spawn camped by zombies is no death loop.
    pub spawn_invulnerable_ticks: u64,
}

/// How players reach this server.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ConnectionModeSetting {
    Direct,
    Velocity,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            address: "0.0.0.0".into(),
            port: 25565,
            online_mode: true,
            max_players: 20,
            view_distance: 10,
            world: "default".into(),
            seed: 20_230_612,
            tick_rate: 20,
            game_mode: GameModeSetting::Survival,
            connection_mode: ConnectionModeSetting::Direct,
            velocity_secret: String::new(),
            spawn_invulnerable_ticks: 60,
        }
    }
}

/// The game modes in which zombies can hurt a player.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GameModeSetting {
    Survival,
    Adventure,
}

/// `[time]`: the world clock.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TimeConfig {
    /// Ticks in one full day; vanilla is 24000.
    pub day_length_ticks: i64,
    /// Time of day of a fresh world, in ticks of `day_length_ticks`.
    pub start_time: i64,
}

impl Default for TimeConfig {
    fn default() -> Self {
        Self {
            day_length_ticks: 24_000,
            start_time: 0,
        }
    }
}

/// `[rcon]`: remote console, the vanilla protocol.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RconConfig {
    pub enabled: bool,
    pub address: String,
    pub port: u16,
    pub password: String,
}

impl Default for RconConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            address: "127.0.0.1".into(),
            port: 25575,
            password: String::new(),
        }
    }
}

/// `[save]`: when the world save is written.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SaveConfig {
    /// Ticks between autosaves (6000 = 5 minutes).
    pub autosave_ticks: u64,
}

impl Default for SaveConfig {
    fn default() -> Self {
        Self {
            autosave_ticks: 6000,
        }
    }
}

/// `[chunks]`: chunk lifetime and its measurement.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ChunksConfig {
    /// Ticks a chunk stays loaded after its last viewer leaves.
    pub retention_ticks: u64,
    /// Ticks between the chunk latency log lines.
    pub report_interval_ticks: u64,
}

impl Default for ChunksConfig {
    fn default() -> Self {
        Self {
            retention_ticks: 300,
            report_interval_ticks: 1200,
        }
    }
}

/// `[zombies]`: the zombie types and what every zombie shares.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ZombiesConfig {
    /// Type summoned when none is named.
    pub default_type: String,
    /// Blocks within which a zombie notices and keeps a player (vanilla: 35).
    pub follow_range: f64,
    /// Seconds from the start of a swing to the hit.
    pub attack_windup_s: f64,
    /// Seconds between two attacks of one zombie.
    pub attack_cooldown_s: f64,
    /// Blocks a zombie with no target strolls from where it stands.
    pub wander_radius: f64,
    pub types: Vec<ZombieType>,
}

/// One kind of zombie.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ZombieType {
    pub name: String,
    pub health: f32,
    /// Walking speed in blocks per second (a walking player does 4.3).
    pub speed: f64,
    pub damage: f32,
    /// Melee reach in blocks, from the zombie to the player.
    pub reach: f64,
    /// Weight in a hunt's spawn roulette.
    pub rarity: u32,
    /// A helmet shields the zombie from the sun until it wears out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub helmet: Option<HelmetKind>,
}

/// Helmets a zombie can wear, with vanilla's durability.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum HelmetKind {
    Leather,
    Golden,
    Chainmail,
    Iron,
    Diamond,
    Netherite,
}

impl HelmetKind {
    pub const ALL: [HelmetKind; 6] = [
        HelmetKind::Leather,
        HelmetKind::Golden,
        HelmetKind::Chainmail,
        HelmetKind::Iron,
        HelmetKind::Diamond,
        HelmetKind::Netherite,
    ];

    /// The name used in `config.toml` and saves.
    pub fn name(self) -> &'static str {
        match self {
            HelmetKind::Leather => "leather",
            HelmetKind::Golden => "golden",
            HelmetKind::Chainmail => "chainmail",
            HelmetKind::Iron => "iron",
            HelmetKind::Diamond => "diamond",
            HelmetKind::Netherite => "netherite",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|h| h.name() == name)
    }

    pub fn durability(self) -> u32 {
        match self {
            HelmetKind::Leather => 55,
            HelmetKind::Golden => 77,
            HelmetKind::Chainmail | HelmetKind::Iron => 165,
            HelmetKind::Diamond => 363,
            HelmetKind::Netherite => 407,
        }
    }

    pub fn item(self) -> valence::ItemKind {
        use valence::ItemKind;
        match self {
            HelmetKind::Leather => ItemKind::LeatherHelmet,
            HelmetKind::Golden => ItemKind::GoldenHelmet,
            HelmetKind::Chainmail => ItemKind::ChainmailHelmet,
            HelmetKind::Iron => ItemKind::IronHelmet,
            HelmetKind::Diamond => ItemKind::DiamondHelmet,
            HelmetKind::Netherite => ItemKind::NetheriteHelmet,
        }
    }
}

/// `[daylight]`: the sun's rule and the world's escalation.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DaylightConfig {
    /// Seconds a zombie burns after the sun last caught it.
    pub burn_s: f64,
    /// Damage per second while burning.
    pub burn_damage: f32,
    /// Durability a helmet loses per second in the sun.
    pub helmet_wear_per_s: u32,
    /// Ticks between phase rises.
    pub phase_interval_ticks: i64,
    /// Each rise comes up to this many ticks early or late.
    pub phase_jitter_ticks: i64,
    /// From this phase on zombies no longer burn.
    pub sun_immune_phase: u32,
    /// Blocks around a zombie searched for shade by day.
    pub shade_radius: i32,
    /// A dozing zombie wakes when a player comes this close (or hits it).
    pub wake_radius: f64,
}

impl Default for DaylightConfig {
    fn default() -> Self {
        Self {
            burn_s: 8.0,
            burn_damage: 1.0,
            helmet_wear_per_s: 1,
            phase_interval_ticks: 12_000,
            phase_jitter_ticks: 1_200,
            sun_immune_phase: 5,
            shade_radius: 12,
            wake_radius: 8.0,
        }
    }
}

impl ZombieType {
    /// A type of the hunt seed: speed converted at [`STUD`], damage at [`SEED_DAMAGE`].
    fn new(name: &str, rarity: u32, health: f32, studs_per_s: f64, seed_damage: f32) -> Self {
        Self {
            name: name.into(),
            health,
            speed: (studs_per_s * STUD * 100.0).round() / 100.0,
            damage: (seed_damage * SEED_DAMAGE * 100.0).round() / 100.0,
            reach: 2.0,
            rarity,
            helmet: None,
        }
    }
}

/// Blocks per Roblox stud: the seed's distances and speeds are converted with it.
pub const STUD: f64 = 0.28;

/// The hunt seed's damage against its 100 health, scaled to a player's 20.
pub const SEED_DAMAGE: f32 = 0.2;

impl Default for ZombiesConfig {
    fn default() -> Self {
        Self {
            default_type: "zombie".into(),
            follow_range: 35.0,
            attack_windup_s: 0.333,
            attack_cooldown_s: 2.0,
            wander_radius: 8.0,
            types: vec![
                ZombieType {
                    name: "zombie".into(),
                    health: 20.0,
                    speed: 2.3,
                    damage: 3.0,
                    reach: 2.0,
                    rarity: 100,
                    helmet: None,
                },
                ZombieType::new("forest_zombie", 45, 25.0, 19.0, 8.0),
                ZombieType::new("fast_zombie", 30, 20.0, 27.0, 8.0),
                ZombieType::new("slow_zombie", 20, 40.0, 16.0, 12.0),
                ZombieType::new("crystal_guard", 5, 250.0, 14.0, 20.0),
                ZombieType::new("zombie_gladiator", 45, 30.0, 20.0, 10.0),
                ZombieType::new("attacker_zombie", 30, 40.0, 27.0, 18.0),
                ZombieType {
                    helmet: Some(HelmetKind::Iron),
                    ..ZombieType::new("armored_zombie", 20, 75.0, 15.0, 15.0)
                },
                ZombieType::new("victorious_zomdiator", 5, 450.0, 13.0, 24.0),
            ],
        }
    }
}

/// `[chase]`: the hop re-planning rule and its watchdog.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ChaseConfig {
    /// R: blocks per hop (12 studs = 3.36). Waypoints are every R/2.
    pub hop_radius: f64,
    /// Watchdog margin k in tau = k * R / v.
    pub watchdog_k: f64,
    /// Most path nodes expanded per plan (vanilla: 560).
    pub node_budget: u32,
    /// Highest drop a path may take, in blocks.
    pub max_drop: i32,
    /// Moved this far or less since the last plan means stuck (0.07 studs).
    pub stuck_distance: f64,
    /// Plans closer together than this collapse into one.
    pub replan_collapse_s: f64,
    /// Wait after a collapsed plan.
    pub backoff_s: f64,
    /// Plans in a row without getting closer before a target is given up.
    pub give_up_plans: u32,
    /// Seconds a given-up target is ignored.
    pub give_up_s: f64,
    /// Ticks between target checks of one zombie.
    pub retarget_ticks: u64,
    /// At the end of a hop a chasing zombie switches to another player only if that one is
    /// this many blocks closer, so two players at nearly equal distance do not make it flip.
    pub retarget_margin: f64,
}

impl Default for ChaseConfig {
    fn default() -> Self {
        Self {
            hop_radius: 12.0 * STUD,
            watchdog_k: 1.5,
            node_budget: 560,
            max_drop: 3,
            stuck_distance: 0.07 * STUD,
            replan_collapse_s: 0.07,
            backoff_s: 0.333,
            give_up_plans: 8,
            give_up_s: 10.0,
            retarget_ticks: 10,
            retarget_margin: 2.0,
        }
    }
}

/// `[lod]`: how often zombies act by the distance from the point they walk to to the nearest
/// player: every tick within `full_radius`, every 2nd within `half_radius`, every 4th within
/// `quarter_radius`, frozen beyond.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LodConfig {
    pub full_radius: f64,
    pub half_radius: f64,
    pub quarter_radius: f64,
    /// Blocks past a boundary before a zombie changes tier, so it does not flicker.
    pub hysteresis: f64,
    /// Ticks between the moves and turns clients are sent of a zombie in each tier: vanilla's
    /// 3 up close; fewer far away, where vanilla clients draw a zombie only up to about 64
    /// blocks (default entity distance). A multiple of the tier's period (1, 2, 4).
    pub full_sync_ticks: u64,
    pub half_sync_ticks: u64,
    pub quarter_sync_ticks: u64,
}

impl Default for LodConfig {
    fn default() -> Self {
        Self {
            full_radius: 32.0,
            half_radius: 64.0,
            quarter_radius: 128.0,
            hysteresis: 4.0,
            full_sync_ticks: 3,
            half_sync_ticks: 16,
            quarter_sync_ticks: 40,
        }
    }
}

/// `[hunt]`: wave rounds (`hunt start <preset>`), and an optional schedule.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HuntConfig {
    /// Preset started automatically every `schedule_every_s` seconds; empty for none.
    pub schedule_preset: String,
    pub schedule_every_s: f64,
    /// Blocks within which a hunt zombie finds the round's players, seen or not (the seed's
    /// 255 studs).
    pub target_range: f64,
    pub presets: Vec<HuntPreset>,
}

/// One hunt map.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HuntPreset {
    pub name: String,
    /// Zombie types drawn by roulette on their rarity.
    pub types: Vec<String>,
    /// Each wave spawns 1..=max_spawn zombies.
    pub max_spawn: u32,
    pub spawn_rate_s: f64,
    /// Cap on zombies alive at once.
    pub max_alive: u32,
    /// Cap on zombies spawned in a round for one player; it grows with the kill goal.
    pub max_total: u32,
    pub round_time_s: f64,
    /// Spawn points as [x, z] offsets in blocks from the hunt's centre.
    pub spawn_points: Vec<[f64; 2]>,
}

impl Default for HuntConfig {
    fn default() -> Self {
        let ring = |r: f64, n: usize| {
            (0..n)
                .map(|i| {
                    let a = i as f64 * std::f64::consts::TAU / n as f64;
                    [(r * a.cos()).round(), (r * a.sin()).round()]
                })
                .collect()
        };
        Self {
            schedule_preset: String::new(),
            schedule_every_s: 600.0,
            target_range: (255.0 * STUD * 10.0).round() / 10.0,
            presets: vec![
                HuntPreset {
                    name: "mystery_forest".into(),
                    types: [
                        "forest_zombie",
                        "fast_zombie",
                        "slow_zombie",
                        "crystal_guard",
                    ]
                    .map(String::from)
                    .into(),
                    max_spawn: 7,
                    spawn_rate_s: 5.0,
                    max_alive: 40,
                    max_total: 75,
                    round_time_s: 225.0,
                    spawn_points: ring(20.0, 6),
                },
                HuntPreset {
                    name: "colosseum".into(),
                    types: [
                        "zombie_gladiator",
                        "attacker_zombie",
                        "armored_zombie",
                        "victorious_zomdiator",
                    ]
                    .map(String::from)
                    .into(),
                    max_spawn: 9,
                    spawn_rate_s: 7.0,
                    max_alive: 30,
                    max_total: 41,
                    round_time_s: 225.0,
                    spawn_points: ring(14.0, 4),
                },
            ],
        }
    }
}

/// `[pack]`: the pack rules of the first seed (names without its `pack_` prefix).
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PackConfig {
    /// A loose zombie considers packs only with at least this many neighbours.
    pub min_neighbours: u32,
    /// A loose zombie decides about packs once per this many of its activations (ticks it
    /// acts in an entity-ticking chunk).
    pub decision_divisor: u32,
    /// Most neighbours inspected per decision.
    pub scan_cap: u32,
    /// Loose zombies close together needed to form a new pack.
    pub form_min_size: u32,
    /// A zombie joins a pack whose centroid is within this many blocks.
    pub cohesion_radius: f64,
    pub max_size: u32,
    /// A member beyond this distance from the centroid...
    pub break_radius: f64,
    /// ...for this many of its activations in a row (ticks it acts in an entity-ticking
    /// chunk) leaves.
    pub stray_activations: u32,
    /// Below this many members a pack dissolves...
    pub min_size: u32,
    /// ...after this many ticks.
    pub dissolve_grace_ticks: u64,
    /// Packs whose centroids are closer than this...
    pub merge_radius: f64,
    /// ...fuse if the dot product of their headings reaches this.
    pub merge_heading_dot: f64,
    /// Length of a migration leg, in blocks.
    pub leg_min: f64,
    pub leg_max: f64,
    /// Largest turn from the current heading when a leg is picked.
    pub max_turn_degrees: f64,
    /// The centroid within this many blocks of the destination has arrived.
    pub arrive_radius: f64,
    /// Ticks a pack rests on arrival, plus up to `dwell_jitter_ticks`.
    pub dwell_ticks: u64,
    pub dwell_jitter_ticks: u64,
    /// Members walk to a waypoint this far ahead of the centroid.
    pub march_lead: f64,
    /// Pack updates without headway before a new leg is picked.
    pub stuck_activations: u32,
    /// Whether packs travel by day too (by default they rest, as zombies doze).
    pub migrate_at_day: bool,
    /// Ticks between pack updates and visibility sweeps.
    pub sweep_interval_ticks: u64,
    /// Sweeps in a row with no member in an entity-ticking chunk before a pack becomes a ghost.
    pub dematerialise_sweeps: u32,
    /// A ghost pack walks its legs at this fraction of its slowest member's walking speed.
    pub ghost_speed_fraction: f64,
    /// Restored members are scattered over this many blocks.
    pub restore_scatter: f64,
    /// A member with no ground at its spot looks for some up to this many blocks out.
    pub restore_search_radius: f64,
    /// A restored member within this many blocks of the centroid rejoins its pack; farther
    /// out it comes back loose.
    pub rejoin_radius: f64,
    /// Restores tried before a ghost pack is given up.
    pub restore_attempts: u32,
    /// Legs stay within this many blocks of 0,0 on both axes (vanilla's border: 29999984).
    pub border_radius: f64,
}

impl Default for PackConfig {
    fn default() -> Self {
        Self {
            min_neighbours: 1,
            decision_divisor: 8,
            scan_cap: 16,
            form_min_size: 3,
            cohesion_radius: 24.0,
            max_size: 24,
            break_radius: 40.0,
            stray_activations: 3,
            min_size: 2,
            dissolve_grace_ticks: 200,
            merge_radius: 32.0,
            merge_heading_dot: 0.5,
            leg_min: 96.0,
            leg_max: 384.0,
            max_turn_degrees: 45.0,
            arrive_radius: 8.0,
            dwell_ticks: 200,
            dwell_jitter_ticks: 100,
            march_lead: 24.0,
            stuck_activations: 8,
            migrate_at_day: false,
            sweep_interval_ticks: 20,
            dematerialise_sweeps: 40,
            ghost_speed_fraction: 0.4,
            restore_scatter: 6.0,
            restore_search_radius: 96.0,
            rejoin_radius: 64.0,
            restore_attempts: 5,
            border_radius: 29_999_984.0,
        }
    }
}

/// `[spawning]`: zombies appearing in the dark around players at night.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SpawningConfig {
    pub enabled: bool,
    /// Ticks between spawn attempts.
    pub interval_ticks: u64,
    /// Spawn spots are between these distances from a player, in blocks.
    pub min_distance: f64,
    pub max_distance: f64,
    /// Zombies per spawn group (vanilla spawns zombies in groups of up to 4).
    pub group_size: u32,
    /// Most zombies per player online, counting ghost pack members too.
    pub mob_cap_per_player: u32,
}

impl Default for SpawningConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            interval_ticks: 40,
            min_distance: 24.0,
            max_distance: 64.0,
            group_size: 4,
            mob_cap_per_player: 70,
        }
    }
}

/// A configuration problem, rendered as one line for the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Reads and validates a config file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError(format!("cannot read {}: {e}", path.display())))?;
        Self::parse(&text).map_err(|e| ConfigError(format!("{}: {e}", path.display())))
    }

    /// Parses and validates config text.
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start].lines().count().max(1))
                .unwrap_or(1);
            ConfigError(format!("line {line}: {}", one_line(e.message())))
        })?;
        let config: Config = serde_path_to_error::deserialize(table.clone()).map_err(|e| {
            let key = e.path().to_string();
            let shown = lookup(&table, &key)
                .map(|v| format!("{key} = {v}"))
                .unwrap_or_else(|| key.clone());
            let bound = Bound::all(&Config::default())
                .into_iter()
                .find(|b| b.key == key);
            match bound {
                Some(b) => ConfigError(format!("{shown}: expected a number in {}", b.allowed())),
                None => ConfigError(format!("{shown}: {}", one_line(&e.inner().to_string()))),
            }
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Checks every range and cross-key rule.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for bound in Bound::all(self) {
            bound.check()?;
        }
        if self.server.connection_mode == ConnectionModeSetting::Velocity
            && self.server.velocity_secret.is_empty()
        {
            return Err(ConfigError(
                "server.velocity_secret = \"\": connection_mode = \"velocity\" needs Velocity's forwarding secret".into(),
            ));
        }
        if self.rcon.enabled && self.rcon.password.is_empty() {
            return Err(ConfigError(
                "rcon.password = \"\": RCON is enabled, so it needs a password".into(),
            ));
        }
        for (key, value) in [
            ("server.address", &self.server.address),
            ("rcon.address", &self.rcon.address),
        ] {
            if value.parse::<std::net::IpAddr>().is_err() {
                return Err(ConfigError(format!(
                    "{key} = {value:?}: expected an IP address such as \"0.0.0.0\""
                )));
            }
        }
        let world = &self.server.world;
        if world.is_empty() || world.contains(['/', '\\']) || world == "." || world == ".." {
            return Err(ConfigError(format!(
                "server.world = {world:?}: expected a folder name under worlds/"
            )));
        }
        self.validate_zombies()?;
        if !(0..self.time.day_length_ticks).contains(&self.time.start_time) {
            return Err(ConfigError(format!(
                "time.start_time = {}: is out of range (allowed 0..={})",
                self.time.start_time,
                self.time.day_length_ticks - 1
            )));
        }
        Ok(())
    }
}

impl Config {
    fn validate_zombies(&self) -> Result<(), ConfigError> {
        let types = &self.zombies.types;
        if types.is_empty() {
            return Err(ConfigError(
                "zombies.types: at least one type is needed".into(),
            ));
        }
        for (i, t) in types.iter().enumerate() {
            if t.name.is_empty() || t.name.contains(char::is_whitespace) {
                return Err(ConfigError(format!(
                    "zombies.types[{i}].name = {:?}: expected one word, used in commands",
                    t.name
                )));
            }
            if types[..i].iter().any(|o| o.name == t.name) {
                return Err(ConfigError(format!(
                    "zombies.types[{i}].name = {:?}: the name is used twice",
                    t.name
                )));
            }
        }
        let known = |name: &str| types.iter().any(|t| t.name == name);
        if !known(&self.zombies.default_type) {
            return Err(ConfigError(format!(
                "zombies.default_type = {:?}: no such entry in zombies.types",
                self.zombies.default_type
            )));
        }
        let pack = &self.pack;
        if pack.leg_min > pack.leg_max {
            return Err(ConfigError(format!(
                "pack.leg_min = {}: must not exceed pack.leg_max ({})",
                pack.leg_min, pack.leg_max
            )));
        }
        if self.spawning.min_distance > self.spawning.max_distance {
            return Err(ConfigError(format!(
                "spawning.min_distance = {}: must not exceed spawning.max_distance ({})",
                self.spawning.min_distance, self.spawning.max_distance
            )));
        }
        if self.daylight.phase_jitter_ticks >= self.daylight.phase_interval_ticks {
            return Err(ConfigError(format!(
                "daylight.phase_jitter_ticks = {}: must be less than phase_interval_ticks ({})",
                self.daylight.phase_jitter_ticks, self.daylight.phase_interval_ticks
            )));
        }
        let lod = &self.lod;
        if !(lod.full_radius <= lod.half_radius && lod.half_radius <= lod.quarter_radius) {
            return Err(ConfigError(format!(
                "lod radii {} / {} / {}: expected full_radius <= half_radius <= quarter_radius",
                lod.full_radius, lod.half_radius, lod.quarter_radius
            )));
        }
        for (key, ticks, period) in [
            ("half_sync_ticks", lod.half_sync_ticks, 2),
            ("quarter_sync_ticks", lod.quarter_sync_ticks, 4),
        ] {
            if !ticks.is_multiple_of(period) {
                return Err(ConfigError(format!(
                    "lod.{key} = {ticks}: must be a multiple of {period}, the ticks between the tier's turns"
                )));
            }
        }
        let presets = &self.hunt.presets;
        for (i, preset) in presets.iter().enumerate() {
            let key = format!("hunt.presets[{i}]");
            if let Some(bad) = preset.types.iter().find(|t| !known(t)) {
                return Err(ConfigError(format!(
                    "{key}.types: {bad:?} is not in zombies.types"
                )));
            }
            if preset.types.is_empty() || preset.spawn_points.is_empty() {
                return Err(ConfigError(format!(
                    "{key}: needs at least one type and one spawn point"
                )));
            }
            if presets[..i].iter().any(|o| o.name == preset.name) {
                return Err(ConfigError(format!(
                    "{key}.name = {:?}: the name is used twice",
                    preset.name
                )));
            }
        }
        let scheduled = &self.hunt.schedule_preset;
        if !scheduled.is_empty() && !presets.iter().any(|p| &p.name == scheduled) {
            return Err(ConfigError(format!(
                "hunt.schedule_preset = {scheduled:?}: no such entry in hunt.presets"
            )));
        }
        Ok(())
    }
}

/// Joins a parser's multi-line message into one line, dropping its "in `table`" trailer (the
/// key path already says where).
fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("in `"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Keys that take effect only at the next start: the listener, the world, the tick, RCON and
/// the length of a day. The rest apply from the next activation.
const RESTART_KEYS: &[&str] = &[
    "server.address",
    "server.port",
    "server.online_mode",
    "server.max_players",
    "server.world",
    "server.seed",
    "server.tick_rate",
    "server.connection_mode",
    "server.velocity_secret",
    "rcon.",
    "time.",
];

/// Whether changing `key` needs a restart.
pub fn needs_restart(key: &str) -> bool {
    RESTART_KEYS
        .iter()
        .any(|k| key == *k || (k.ends_with('.') && key.starts_with(k)))
}

impl Config {
    /// Every key with its value as written in TOML, sorted by key; arrays of tables
    /// (`zombies.types`, `hunt.presets`) are one entry each.
    pub fn flatten(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let Ok(toml::Value::Table(root)) = toml::Value::try_from(self) else {
            return out;
        };
        for (table, value) in root {
            match value {
                toml::Value::Table(keys) => {
                    for (key, value) in keys {
                        out.push((format!("{table}.{key}"), value.to_string()));
                    }
                }
                other => out.push((table, other.to_string())),
            }
        }
        out
    }

    /// The keys whose values differ from `other`.
    pub fn changed_keys(&self, other: &Config) -> Vec<String> {
        let theirs = other.flatten();
        self.flatten()
            .into_iter()
            .zip(theirs)
            .filter(|(a, b)| a.1 != b.1)
            .map(|(a, _)| a.0)
            .collect()
    }

    /// This config with the restart-only values of `running` kept.
    pub fn applicable_now(mut self, running: &Config) -> Config {
        let (s, r) = (&mut self.server, &running.server);
        s.address = r.address.clone();
        s.port = r.port;
        s.online_mode = r.online_mode;
        s.max_players = r.max_players;
        s.world = r.world.clone();
        s.seed = r.seed;
        s.tick_rate = r.tick_rate;
        s.connection_mode = r.connection_mode;
        s.velocity_secret = r.velocity_secret.clone();
        self.rcon = running.rcon.clone();
        self.time = running.time.clone();
        self
    }
}

/// Finds `a.b` in a TOML table, for quoting the offending value back.
fn lookup(table: &toml::Table, dotted: &str) -> Option<toml::Value> {
    let mut value: Option<&toml::Value> = None;
    for part in dotted.split('.') {
        let (name, index) = match part.split_once('[') {
            Some((name, rest)) => (name, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        let next = match value {
            None => table.get(name)?,
            Some(v) => v.as_table()?.get(name)?,
        };
        value = Some(match index {
            Some(i) => next.as_array()?.get(i)?,
            None => next,
        });
    }
    value.cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_file_gives_spec_defaults() {
        let config = Config::parse("").unwrap();
        assert_eq!(config, Config::default());
        assert_eq!(config.save.autosave_ticks, 6000);
        assert!(config.server.online_mode);
        assert_eq!(config.time.day_length_ticks, 24_000);
    }

    #[test]
    fn shipped_config_is_valid_and_documents_every_key() {
        let text = include_str!("../../config.toml");
        Config::parse(text).unwrap();
        for bound in Bound::all(&Config::default()) {
            if bound.key.contains('[') {
                continue; // Entries of [[arrays]] are checked by parsing the file.
            }
            let (table, key) = bound.key.split_once('.').unwrap();
            assert!(text.contains(&format!("[{table}]")), "{table} missing");
            let line = text
                .lines()
                .position(|l| l.starts_with(&format!("{key} =")))
                .unwrap_or_else(|| panic!("{} not in config.toml", bound.key));
            let above = text.lines().nth(line.wrapping_sub(1)).unwrap_or("");
            assert!(above.starts_with('#'), "{} has no comment", bound.key);
        }
    }

    #[test]
    fn unknown_key_is_named() {
        let err = Config::parse("[server]\nprot = 1\n").unwrap_err().0;
        assert!(
            err.starts_with("server.prot = 1: unknown field `prot`"),
            "{err}"
        );
        assert!(!err.contains('\n'));
    }

    #[test]
    fn unknown_table_is_named() {
        let err = Config::parse("[sever]\nport = 1\n").unwrap_err().0;
        assert!(err.contains("sever"), "{err}");
    }

    #[test]
    fn wrong_type_names_key_value_and_range() {
        let err = Config::parse("[server]\nport = \"high\"\n").unwrap_err().0;
        assert_eq!(
            err,
            "server.port = \"high\": expected a number in 0..=65535"
        );
    }

    #[test]
    fn out_of_range_names_key_value_and_range() {
        let err = Config::parse("[server]\nview_distance = 40\n")
            .unwrap_err()
            .0;
        assert_eq!(
            err,
            "server.view_distance = 40: is out of range (allowed 2..=32)"
        );
        let err = Config::parse("[server]\nport = 70000\n").unwrap_err().0;
        assert_eq!(err, "server.port = 70000: expected a number in 0..=65535");
        let err = Config::parse("[save]\nautosave_ticks = -5\n")
            .unwrap_err()
            .0;
        assert!(err.starts_with("save.autosave_ticks = -5: expected a number"));
    }

    #[test]
    fn syntax_error_gives_the_line() {
        let err = Config::parse("[server]\nport = = 3\n").unwrap_err().0;
        assert!(err.starts_with("line 2: "), "{err}");
        assert!(!err.contains('\n'));
    }

    #[test]
    fn velocity_needs_its_secret() {
        let err = Config::parse("[server]\nconnection_mode = \"velocity\"\n")
            .unwrap_err()
            .0;
        assert!(err.starts_with("server.velocity_secret"), "{err}");
        let ok = Config::parse(
            "[server]\nconnection_mode = \"velocity\"\nvelocity_secret = \"s3cret\"\n",
        );
        assert_eq!(
            ok.unwrap().server.connection_mode,
            ConnectionModeSetting::Velocity
        );
    }

    #[test]
    fn rcon_needs_a_password() {
        let err = Config::parse("[rcon]\nenabled = true\n").unwrap_err().0;
        assert!(err.starts_with("rcon.password"), "{err}");
        Config::parse("[rcon]\nenabled = true\npassword = \"x\"\n").unwrap();
    }

    #[test]
    fn bad_enum_and_address() {
        let err = Config::parse("[server]\ngame_mode = \"creative\"\n")
            .unwrap_err()
            .0;
        assert!(err.starts_with("server.game_mode = \"creative\": unknown variant"));
        let err = Config::parse("[server]\naddress = \"nowhere\"\n")
            .unwrap_err()
            .0;
        assert!(err.starts_with("server.address = \"nowhere\""));
        let err = Config::parse("[server]\nworld = \"../etc\"\n")
            .unwrap_err()
            .0;
        assert!(err.starts_with("server.world"));
    }

    #[test]
    fn changed_keys_and_what_needs_a_restart() {
        let old = Config::default();
        let mut new = Config::default();
        new.pack.max_size = 3;
        new.chase.hop_radius = 6.0;
        new.server.port = 1234;
        new.zombies.types[0].health = 30.0;
        let changed = new.changed_keys(&old);
        assert_eq!(
            changed,
            [
                "chase.hop_radius",
                "pack.max_size",
                "server.port",
                "zombies.types"
            ]
        );
        assert!(needs_restart("server.port") && needs_restart("rcon.password"));
        assert!(!needs_restart("pack.max_size") && !needs_restart("server.view_distance"));
        let applied = new.applicable_now(&old);
        assert_eq!(applied.server.port, old.server.port, "restart-only kept");
        assert_eq!(applied.pack.max_size, 3, "live keys applied");
    }

    #[test]
    fn start_time_must_fall_within_a_day() {
        let err = Config::parse("[time]\nstart_time = 24000\n").unwrap_err().0;
        assert_eq!(
            err,
            "time.start_time = 24000: is out of range (allowed 0..=23999)"
        );
    }
}
