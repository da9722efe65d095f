//! `config.toml`: every tunable number of the server. This file is the schema; the shipped
//! values are in `defaults`, the checks in `validate` and `bounds`, and `reload` puts an
//! edited file in force and announces it with [`ConfigChanged`], so that each plugin rebuilds
//! what it derived from the old values.
//!
//! Loading is strict on purpose: an unknown key, a wrong type or an out-of-range value stops the
//! server with one line naming the key, the value and what is allowed. A typo must never be
//! silently replaced by a default.

mod bounds;
mod defaults;
mod reload;
pub mod rules;
mod validate;

use std::fmt;
use std::path::Path;

use bevy_ecs::prelude::Resource;
use serde::{Deserialize, Serialize};
use valence::prelude::{App, Plugin};

pub use bounds::Bound;
pub use defaults::{SEED_DAMAGE, STUD};
pub use reload::{needs_restart, reload, show, ConfigChanged};
pub use rules::{difficulty, game_rule};

/// Announces reloads; the configuration itself is put in by whoever builds the app.
pub struct ConfigPlugin;

impl Plugin for ConfigPlugin {
    fn build(&self, app: &mut App) {
        app.add_event::<ConfigChanged>();
    }
}

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
    pub weather: WeatherConfig,
    pub pack: PackConfig,
    pub map: MapConfig,
    pub metrics: MetricsConfig,
    pub query: QueryConfig,
    pub spawning: SpawningConfig,
    pub siege: SiegeConfig,
    pub survival: SurvivalConfig,
    pub noise: NoiseConfig,
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
    /// What is generated where the world folder has no chunk: horde's `terrain`, or `flat`
    /// (vanilla's `level-type=flat`) of `flat_layers`.
    pub generator: GeneratorSetting,
    /// A flat world's layers from the bottom of the world up, as vanilla's superflat codes:
    /// `"minecraft:bedrock"`, `"2*minecraft:dirt"`.
    pub flat_layers: Vec<String>,
    /// Ticks per second.
    pub tick_rate: u32,
    /// Game mode of joining players.
    pub game_mode: GameModeSetting,
    /// How hard the game is, as vanilla's `difficulty`: a zombie's blow, starvation's floor.
    pub difficulty: Difficulty,
    /// `direct` (clients connect here; `online_mode` decides authentication) or `velocity`
    /// (behind a Velocity proxy with modern forwarding; only the proxy may connect).
    pub connection_mode: ConnectionModeSetting,
    /// The forwarding secret shared with Velocity (its `forwarding.secret`).
    pub velocity_secret: String,
    /// Ticks a player cannot be hurt by mobs after joining and after respawning (vanilla's
    /// `spawnInvulnerableTime`, 60), so a spawn camped by zombies is no death loop.
    pub spawn_invulnerable_ticks: u64,
    /// Only players on `whitelist.json` (and operators) may join (`whitelist on|off` sets it).
    pub whitelist: bool,
    /// Kick online players who are no longer on the whitelist, as vanilla's
    /// `enforce-whitelist`.
    pub enforce_whitelist: bool,
    /// Players who are not operators cannot dig, place or open doors within this many blocks
    /// of the world spawn (0: nowhere).
    pub spawn_protection: u32,
    /// The server list's message of the day; `§` formatting codes as vanilla's `motd`.
    pub motd: String,
    /// The server list and the query show the player count but no names, as vanilla's
    /// `hide-online-players`.
    pub hide_online_players: bool,
}

/// What fills the chunks a world folder does not have.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GeneratorSetting {
    Terrain,
    Flat,
}

/// A flat world's layers (`server.flat_layers`), one block state a block from the bottom of
/// the world up: `"2*minecraft:dirt"` is two layers of dirt (vanilla's superflat code). An
/// error names the layer that is wrong; all the layers together fit in the world's 384 blocks.
pub fn flat_layers(layers: &[String]) -> Result<Vec<valence::BlockState>, String> {
    let mut blocks = Vec::new();
    for (i, layer) in layers.iter().enumerate() {
        let (count, block) = match layer.split_once('*') {
            Some((count, block)) => (
                count
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| {
                        format!("flat_layers[{i}] = {layer:?}: expected N*block with N at least 1")
                    })?,
                block,
            ),
            None => (1, layer.as_str()),
        };
        let state = crate::blocks::parse_state(block.trim())
            .map_err(|e| format!("flat_layers[{i}] = {layer:?}: {e}"))?;
        blocks.extend(std::iter::repeat_n(state, count.min(385)));
        if blocks.len() > 384 {
            return Err(format!(
                "flat_layers: more than the world's 384 blocks of height (at [{i}] = {layer:?})"
            ));
        }
    }
    Ok(blocks)
}

/// How players reach this server.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ConnectionModeSetting {
    Direct,
    Velocity,
}

/// The game modes in which zombies can hurt a player.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GameModeSetting {
    Survival,
    Adventure,
}

/// Vanilla's difficulties but peaceful (which has no zombies).
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Difficulty {
    Easy,
    Normal,
    Hard,
}

/// `[survival]`: what the world does to a player's body, as vanilla's game rules.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SurvivalConfig {
    /// Falls hurt (`fallDamage`).
    pub fall_damage: bool,
    /// Drowning hurts (`drowningDamage`).
    pub drowning_damage: bool,
    /// Lava and fire hurt (`fireDamage`).
    pub fire_damage: bool,
    /// A fed player heals (`naturalRegeneration`).
    pub natural_regeneration: bool,
    /// A player who dies keeps their inventory and experience (`keepInventory`).
    pub keep_inventory: bool,
    /// Share of the players (not spectators) who must sleep to skip the night, in percent
    /// (`playersSleepingPercentage`; 0 still needs one sleeper).
    pub players_sleeping_percentage: u32,
}

/// `[time]`: the world clock.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TimeConfig {
    /// Ticks in one full day; vanilla is 24000.
    pub day_length_ticks: i64,
    /// Time of day of a fresh world, in ticks of `day_length_ticks`.
    pub start_time: i64,
    /// Whether the time of day moves (`doDaylightCycle`); the world's age always does.
    pub daylight_cycle: bool,
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

/// `[save]`: when the world save is written.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SaveConfig {
    /// Ticks between autosaves (6000 = 5 minutes).
    pub autosave_ticks: u64,
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
    /// Blocks a zombie with no target strolls from where it stands; far from every player, the
    /// length of its hops on a stroll or a march (see `ChaseRules::hop_reach`).
    pub wander_radius: f64,
    /// Zombies chasing someone break the wooden doors in their way, as vanilla's do on Hard.
    pub break_doors: bool,
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
    pub helmet: Option<ArmourTier>,
}

/// The armour materials a zombie can wear, with vanilla's durability of their helmets.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ArmourTier {
    Leather,
    Golden,
    Chainmail,
    Iron,
    Diamond,
    Netherite,
}

impl ArmourTier {
    pub const ALL: [ArmourTier; 6] = [
        ArmourTier::Leather,
        ArmourTier::Golden,
        ArmourTier::Chainmail,
        ArmourTier::Iron,
        ArmourTier::Diamond,
        ArmourTier::Netherite,
    ];

    /// The name used in `config.toml` and saves.
    pub fn name(self) -> &'static str {
        match self {
            ArmourTier::Leather => "leather",
            ArmourTier::Golden => "golden",
            ArmourTier::Chainmail => "chainmail",
            ArmourTier::Iron => "iron",
            ArmourTier::Diamond => "diamond",
            ArmourTier::Netherite => "netherite",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|h| h.name() == name)
    }

    pub fn durability(self) -> u16 {
        match self {
            ArmourTier::Leather => 55,
            ArmourTier::Golden => 77,
            ArmourTier::Chainmail | ArmourTier::Iron => 165,
            ArmourTier::Diamond => 363,
            ArmourTier::Netherite => 407,
        }
    }

    /// This material's helmet, chestplate, leggings and boots.
    pub fn pieces(self) -> [valence::ItemKind; 4] {
        use valence::ItemKind::*;
        match self {
            ArmourTier::Leather => [
                LeatherHelmet,
                LeatherChestplate,
                LeatherLeggings,
                LeatherBoots,
            ],
            ArmourTier::Golden => [GoldenHelmet, GoldenChestplate, GoldenLeggings, GoldenBoots],
            ArmourTier::Chainmail => [
                ChainmailHelmet,
                ChainmailChestplate,
                ChainmailLeggings,
                ChainmailBoots,
            ],
            ArmourTier::Iron => [IronHelmet, IronChestplate, IronLeggings, IronBoots],
            ArmourTier::Diamond => [
                DiamondHelmet,
                DiamondChestplate,
                DiamondLeggings,
                DiamondBoots,
            ],
            ArmourTier::Netherite => [
                NetheriteHelmet,
                NetheriteChestplate,
                NetheriteLeggings,
                NetheriteBoots,
            ],
        }
    }

    /// This material's helmet.
    pub fn helmet(self) -> valence::ItemKind {
        self.pieces()[0]
    }

    /// The material of an armour piece, if `item` is one of these materials' pieces.
    pub fn of(item: valence::ItemKind) -> Option<(Self, usize)> {
        Self::ALL.into_iter().find_map(|tier| {
            let slot = tier.pieces().iter().position(|&p| p == item)?;
            Some((tier, slot))
        })
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

/// `[weather]`: vanilla's weather cycle. Each span is drawn evenly between its min and max.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WeatherConfig {
    /// Whether the weather changes by itself (`doWeatherCycle`); when off it stays as it is,
    /// or as the `weather` command leaves it.
    pub enabled: bool,
    /// Ticks of clear sky between rains.
    pub clear_min_ticks: u32,
    pub clear_max_ticks: u32,
    /// Ticks a rain lasts.
    pub rain_min_ticks: u32,
    pub rain_max_ticks: u32,
    /// Ticks between thunderstorms (thunder shows only while it rains).
    pub thunder_delay_min_ticks: u32,
    pub thunder_delay_max_ticks: u32,
    /// Ticks a thunderstorm lasts.
    pub thunder_min_ticks: u32,
    pub thunder_max_ticks: u32,
    /// How much the rain and thunder levels move towards their target each tick.
    pub fade_per_tick: f32,
}

/// `[map]`: the live web map of packs, served by the server process.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MapConfig {
    /// Serve the map.
    pub enabled: bool,
    /// Interface to listen on: loopback unless the operator opens it.
    pub address: String,
    /// TCP port; 0 picks a free port, logged at start.
    pub port: u16,
    /// Connections served at once (an open page holds two); more are answered 503.
    pub max_connections: u32,
    /// Ticks between the snapshots the page shows.
    pub publish_interval_ticks: u64,
    /// Ticks between the points of a pack's trail (kept for the last night).
    pub trail_interval_ticks: u64,
}

/// `[metrics]`: the Prometheus endpoint, `GET /metrics`.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// Serve the endpoint.
    pub enabled: bool,
    /// Interface to listen on: loopback unless the operator opens it.
    pub address: String,
    /// TCP port; 0 picks a free port, logged at start.
    pub port: u16,
    /// Connections served at once; more are answered 503.
    pub max_connections: u32,
}

/// `[query]`: vanilla's GameSpy4 query over UDP, for server lists and status sites.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct QueryConfig {
    /// Answer queries, as vanilla's `enable-query`.
    pub enabled: bool,
    /// UDP port on `server.address`, as vanilla's `query.port`; 0 picks a free one.
    pub port: u16,
    /// Packets read a second, from everyone together; the rest are dropped unread.
    pub max_packets_per_s: u32,
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
    /// Plans in a row without getting closer before a target is given up; plans in a row
    /// that do not move a zombie on an errand before it rests instead.
    pub give_up_plans: u32,
    /// Seconds a given-up target is ignored.
    pub give_up_s: f64,
    /// Ticks between target checks of one zombie.
    pub retarget_ticks: u64,
    /// At the end of a hop a chasing zombie switches to another player only if that one is
    /// this many blocks closer, so two players at nearly equal distance do not make it flip.
    pub retarget_margin: f64,
}

/// `[lod]`: how often zombies act by the distance from the point they walk to to the nearest
/// player: every tick within `full_radius`, every 8th within `half_radius`, every 16th within
/// `quarter_radius`, frozen beyond. Beyond `full_radius`, where nobody watches closely, a
/// stroll or a march swims on through water and turns aside at what is in its way rather than
/// searching round it.
/// Clients are sent a zombie at vanilla's rate only within `near_radius`; a crowd round one
/// player is tiered by rank as well.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LodConfig {
    pub near_radius: f64,
    pub full_radius: f64,
    pub half_radius: f64,
    pub quarter_radius: f64,
    /// Blocks past a boundary before a zombie changes tier, so it does not flicker.
    pub hysteresis: f64,
    /// Ticks between the moves and turns clients are sent of a zombie in each tier: vanilla's
    /// 3 up close; fewer farther out, where a crowd would otherwise fill a player's
    /// connection, and vanilla clients draw a zombie only up to about 67 blocks (default
    /// entity distance). A zombie acts every 1, 2, 8 and 16 ticks by tier and is sent on its
    /// first turn after each of these ticks.
    pub near_sync_ticks: u64,
    pub full_sync_ticks: u64,
    pub half_sync_ticks: u64,
    pub quarter_sync_ticks: u64,
    /// At most this many of a player's nearest zombies are in the near tier, and this many
    /// (those included) in the full tier or nearer: the rest of a crowd is put no nearer than
    /// the full tier, or the half tier past the second cap, where nobody can tell behind the
    /// front rows. Vanilla's mob cap is 70 a player, so ordinary play never reaches either.
    pub near_crowd: u32,
    pub full_crowd: u32,
    /// Blocks within which a player is sent zombies: Paper's and Spigot's default for monsters
    /// (vanilla servers track them to 128, and vanilla clients draw them to about 67). Zombies
    /// are kept by chunk, and a player sees every chunk with a point within range.
    pub tracking_range: f64,
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
    /// Spawn points as [x, z] offsets in blocks from the hunt's centre; one in water or a tree
    /// spawns on the nearest dry ground within 16 blocks.
    pub spawn_points: Vec<[f64; 2]>,
}

/// `[pack]`: the pack rules of the first seed (names without its `pack_` prefix).
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PackConfig {
    /// A loose zombie considers packs only with at least this many neighbours.
    pub min_neighbours: u32,
    /// A loose zombie decides about packs once per this many of its activations (ticks it
    /// spends in an entity-ticking chunk).
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
    /// ...for this many of its activations in a row (ticks it spends in an entity-ticking
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
    /// Whether a thunderstorm dark enough to stop the sun burning counts as night for packs.
    pub migrate_in_storms: bool,
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

/// `[siege]`: chasing zombies dig, climb and build their way to a player they cannot reach.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SiegeConfig {
    pub enabled: bool,
    /// How much faster than vanilla's bare hand a zombie digs (1: vanilla's time).
    pub dig_speed: f32,
    /// Blocks harder than this (vanilla's hardness: dirt 0.5, stone 1.5, planks 2, iron
    /// 5) are never broken; nor are bedrock and obsidian, whatever it says.
    pub max_hardness: f32,
    /// Blocks zombies never break, by name.
    pub never_break: Vec<String>,
    /// The block zombies stack under themselves and bridge gaps with.
    pub build_block: String,
    /// Blocks a zombie may stack under itself above where it stood.
    pub max_build_height: u32,
    /// Blocks broken and placed by all zombies together in one tick, at most.
    pub edits_per_tick: u32,
    /// Nodes one siege search may expand.
    pub node_budget: u32,
    /// Siege searches started in one tick, at most.
    pub plans_per_tick: u32,
}

/// `[noise]`: what zombies hear and see of players when they cannot see the players
/// themselves, and the heat that calls more of them. Each kind of noise has a loudness (how
/// strongly it draws, and the heat it adds) and a range in blocks through open air.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NoiseConfig {
    /// Zombies hear noises and see lights at all.
    pub enabled: bool,
    /// A player starting to dig a block and the block breaking.
    pub dig_loudness: f32,
    pub dig_range: f32,
    /// A block placed.
    pub place_loudness: f32,
    pub place_range: f32,
    /// A blow landing, either way.
    pub fight_loudness: f32,
    pub fight_range: f32,
    /// A zombie or a player dying.
    pub death_loudness: f32,
    pub death_range: f32,
    /// A door opened or closed.
    pub door_loudness: f32,
    pub door_range: f32,
    /// A zombie battering a door, and the door giving way.
    pub door_break_loudness: f32,
    pub door_break_range: f32,
    /// A player sprinting, heard every half second.
    pub sprint_loudness: f32,
    pub sprint_range: f32,
    /// A player jumping.
    pub jump_loudness: f32,
    pub jump_range: f32,
    /// A player hurt.
    pub hurt_loudness: f32,
    pub hurt_range: f32,
    /// Blocks of range a noise loses for each block of wall on the straight line to a zombie.
    pub wall_damping: f32,
    /// By night zombies see a bright block a player placed from this many blocks, in the open.
    pub light_range: f32,
    /// How strongly a seen light draws, as a noise's loudness.
    pub light_loudness: f32,
    /// The least light level a placed block must give to be seen (torch 14, soul torch 10,
    /// redstone torch 7).
    pub light_min_level: u8,
    /// Ticks a zombie may take to reach the place before it gives up.
    pub investigate_ticks: u64,
    /// Ticks it looks around the place before it goes back to its errand.
    pub look_around_ticks: u64,
    /// Ticks a place it looked at is not looked at again for a noise no louder.
    pub memory_ticks: u64,
    /// A new noise draws a zombie already drawn elsewhere only if this many times as loud.
    pub switch_factor: f32,
    /// Ticks in which the noise heat of an area halves.
    pub heat_half_life_ticks: u64,
    /// By night, heat in a chunk past this sends zombies from afar.
    pub summon_threshold: f32,
    /// Zombies sent each time (0: none are ever sent).
    pub summon_zombies: u32,
    /// Ticks before the same chunk can send for more.
    pub summon_cooldown_ticks: u64,
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
    fn flat_layers_read_vanillas_superflat_codes() {
        let layers =
            |codes: &[&str]| flat_layers(&codes.iter().map(|c| c.to_string()).collect::<Vec<_>>());
        let default = layers(&["minecraft:bedrock", "2*minecraft:dirt", "grass_block"]).unwrap();
        assert_eq!(
            default,
            [
                valence::BlockState::BEDROCK,
                valence::BlockState::DIRT,
                valence::BlockState::DIRT,
                valence::BlockState::GRASS_BLOCK
            ]
        );
        assert_eq!(layers(&["3*snow[layers=2]"]).unwrap().len(), 3);
        assert_eq!(layers(&[]).unwrap(), [], "a void world");
        assert!(layers(&["0*stone"]).unwrap_err().contains("flat_layers[0]"));
        assert!(layers(&["stone", "dirtt"])
            .unwrap_err()
            .starts_with("flat_layers[1] = \"dirtt\": Unknown block type"));
        assert!(layers(&["385*stone"]).unwrap_err().contains("384"));
        assert!(layers(&["200*stone", "184*dirt"]).is_ok());
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
    fn lod_radii_out_of_order_are_named() {
        let err = Config::parse("[lod]\nnear_radius = 40.0\n").unwrap_err().0;
        assert_eq!(
            err,
            "lod radii 40 / 32 / 64 / 128: expected near_radius <= full_radius <= half_radius <= quarter_radius"
        );
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
}
