//! `config.toml`: every tunable number of the server, with the SPEC's defaults.
//!
//! Loading is strict on purpose: an unknown key, a wrong type or an out-of-range value stops the
//! server with one line naming the key, the value and what is allowed. A typo must never be
//! silently replaced by a default.

mod bounds;

use std::fmt;
use std::path::Path;

use bevy_ecs::prelude::Resource;
use serde::Deserialize;

pub use bounds::Bound;

/// The whole configuration, one table per concern.
#[derive(Resource, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub server: ServerConfig,
    pub time: TimeConfig,
    pub rcon: RconConfig,
    pub save: SaveConfig,
    pub chunks: ChunksConfig,
}

/// `[server]`: networking, world and players.
#[derive(Deserialize, Debug, Clone, PartialEq)]
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
        }
    }
}

/// The game modes in which zombies can hurt a player.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GameModeSetting {
    Survival,
    Adventure,
}

/// `[time]`: the world clock.
#[derive(Deserialize, Debug, Clone, PartialEq)]
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
#[derive(Deserialize, Debug, Clone, PartialEq)]
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
#[derive(Deserialize, Debug, Clone, PartialEq)]
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
#[derive(Deserialize, Debug, Clone, PartialEq)]
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
    let mut parts = dotted.split('.');
    let mut value = table.get(parts.next()?)?;
    for part in parts {
        value = value.as_table()?.get(part)?;
    }
    Some(value.clone())
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
    fn start_time_must_fall_within_a_day() {
        let err = Config::parse("[time]\nstart_time = 24000\n").unwrap_err().0;
        assert_eq!(
            err,
            "time.start_time = 24000: is out of range (allowed 0..=23999)"
        );
    }
}
