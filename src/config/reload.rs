//! `reload`: the config file is read and checked again; the keys that can change while the
//! server runs are put in force at once and announced with [`ConfigChanged`]; the others
//! (listener, world, tick rate, RCON, the day's length) are reported for the next start.

use bevy_ecs::prelude::{Event, World};
use valence::log::{info, warn};

use super::{Config, ConfigPath};

/// A reload put new values in force. Each plugin rebuilds what it derived from the keys it
/// uses (by stable names, never by position in a list), so nobody reaches into another
/// module's state.
#[derive(Event, Debug, Clone, PartialEq, Eq)]
pub struct ConfigChanged {
    /// The keys whose values changed, such as `chase.hop_radius` or `zombies.types`.
    pub keys: Vec<String>,
}

impl ConfigChanged {
    /// Whether `key`, or any key of table `key`, changed.
    pub fn touches(&self, key: &str) -> bool {
        self.keys.iter().any(|k| {
            k == key
                || k.strip_prefix(key)
                    .is_some_and(|rest| rest.starts_with('.'))
        })
    }
}

/// Reads the config file again and puts what can change now in force; answers in logfmt. A
/// file with any error is refused whole and nothing changes.
pub fn reload(world: &mut World) -> String {
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
    let running = world.resource::<Config>();
    let (later, now): (Vec<String>, Vec<String>) = new
        .changed_keys(running)
        .into_iter()
        .partition(|k| needs_restart(k));
    let effective = new.applicable_now(running);
    world.insert_resource(effective);
    let (changed, later) = (now.join(","), later.join(","));
    info!("config reloaded: changed={changed} restart_required={later}");
    if !now.is_empty() {
        world.send_event(ConfigChanged { keys: now });
    }
    format!("reloaded=true changed={changed} restart_required={later}")
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
    "server.generator",
    "server.flat_layers",
    "server.tick_rate",
    "server.connection_mode",
    "server.velocity_secret",
    "rcon.",
    "time.day_length_ticks",
    "time.start_time",
    "map.enabled",
    "map.address",
    "map.port",
    "map.max_connections",
    "metrics.",
    "query.",
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

    /// This config with the values of `running` kept for every key that needs a restart
    /// ([`needs_restart`], the one list of them).
    pub fn applicable_now(self, running: &Config) -> Config {
        let (Ok(toml::Value::Table(mut new)), Ok(toml::Value::Table(old))) =
            (toml::Value::try_from(&self), toml::Value::try_from(running))
        else {
            return self;
        };
        for (table, keys) in &old {
            let (toml::Value::Table(keys), Some(toml::Value::Table(into))) =
                (keys, new.get_mut(table))
            else {
                continue;
            };
            for (key, value) in keys {
                if needs_restart(&format!("{table}.{key}")) {
                    into.insert(key.clone(), value.clone());
                }
            }
        }
        toml::Value::Table(new).try_into().unwrap_or(self)
    }
}

/// `config [key|table]`: the effective values as `key=value` lines.
pub fn show(config: &Config, key: Option<&str>) -> String {
    let lines: Vec<String> = config
        .flatten()
        .into_iter()
        .filter(|(k, _)| match key {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_touches_its_key_and_its_table() {
        let change = ConfigChanged {
            keys: vec!["chase.hop_radius".into(), "zombies.types".into()],
        };
        assert!(change.touches("chase") && change.touches("chase.hop_radius"));
        assert!(change.touches("zombies.types"));
        assert!(!change.touches("zombies.follow_range") && !change.touches("chas"));
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
    fn every_key_that_needs_a_restart_keeps_its_running_value_and_no_other_does() {
        let old = Config::default();
        let mut new = Config::default();
        new.server.port = 1234;
        new.server.max_players = 7;
        new.rcon.port = 4321;
        new.time.day_length_ticks = 12_000;
        new.map.port = 9999;
        new.map.enabled = !old.map.enabled;
        new.map.publish_interval_ticks = 40;
        new.pack.max_size = 3;
        new.chase.hop_radius = 6.0;
        let changed = new.changed_keys(&old);
        let applied = new.clone().applicable_now(&old).flatten();
        let (old, new) = (old.flatten(), new.flatten());
        for (((key, applied), (_, was)), (_, wanted)) in applied.iter().zip(&old).zip(&new) {
            let expected = if needs_restart(key) { was } else { wanted };
            assert_eq!(applied, expected, "{key}");
        }
        assert!(
            changed.iter().any(|k| k == "map.port") && changed.len() == 9,
            "{changed:?}"
        );
    }
}
