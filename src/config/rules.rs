//! Vanilla's game rules that horde keeps as configuration keys: `gamerule` reads and sets them
//! by their vanilla names. A rule set is checked as `config.toml` is, written into the file
//! (so a restart keeps it, as vanilla keeps its rules in `level.dat`) and announced as a
//! reload's change is, so each plugin follows it by itself.

use valence::log::info;
use valence::prelude::*;

use super::{Config, ConfigChanged, ConfigPath};

/// Each rule by its vanilla name, and the key that holds it.
pub const GAME_RULES: &[(&str, &str)] = &[
    ("doDaylightCycle", "time.daylight_cycle"),
    ("doMobSpawning", "spawning.enabled"),
    ("doWeatherCycle", "weather.enabled"),
    ("drowningDamage", "survival.drowning_damage"),
    ("fallDamage", "survival.fall_damage"),
    ("fireDamage", "survival.fire_damage"),
    ("keepInventory", "survival.keep_inventory"),
    ("naturalRegeneration", "survival.natural_regeneration"),
    (
        "playersSleepingPercentage",
        "survival.players_sleeping_percentage",
    ),
];

/// `config` with `key` (`table.key`) set to `value`, checked as a loaded file is.
fn with_key(config: &Config, key: &str, value: toml::Value) -> Result<Config, String> {
    let (table, field) = key.split_once('.').ok_or("not a table's key")?;
    let mut root = toml::Value::try_from(config).map_err(|e| e.to_string())?;
    let slot = root
        .get_mut(table)
        .and_then(|t| t.get_mut(field))
        .ok_or_else(|| format!("no config key {key}"))?;
    if std::mem::discriminant(slot) != std::mem::discriminant(&value) {
        return Err(format!("expected a value like {slot}"));
    }
    *slot = value;
    let changed: Config = root
        .try_into()
        .map_err(|e: toml::de::Error| e.to_string())?;
    changed.validate().map_err(|e| e.to_string())?;
    Ok(changed)
}

/// Writes `key` (`table.key`) = `value` into the configuration file at `path`, keeping the
/// rest of the file as it is, comments and all.
pub fn persist(
    path: &std::path::Path,
    key: &str,
    value: impl Into<toml_edit::Value>,
) -> anyhow::Result<()> {
    let (table, field) = key
        .split_once('.')
        .ok_or_else(|| anyhow::anyhow!("{key} is not a table's key"))?;
    let text = std::fs::read_to_string(path)?;
    let mut doc: toml_edit::DocumentMut = text.parse()?;
    // The table may be written as a table or inline; only a missing one is added.
    if doc.get(table).is_none() {
        doc[table] = toml_edit::table();
    }
    let table = doc[table]
        .as_table_like_mut()
        .ok_or_else(|| anyhow::anyhow!("{table} in {} is not a table", path.display()))?;
    table.insert(field, toml_edit::value(value));
    crate::files::replace(path, doc.to_string().as_bytes())
}

/// `gamerule <rule> [value]`: the rule's value, or the rule set to `value`.
pub fn game_rule(world: &mut World, rule: &str, value: Option<&str>) -> String {
    let Some(&(rule, key)) = GAME_RULES.iter().find(|(name, _)| *name == rule) else {
        let known: Vec<&str> = GAME_RULES.iter().map(|(name, _)| *name).collect();
        return format!(
            "error=\"Incorrect argument for command: no game rule {rule}; horde has {}\"",
            known.join(", ")
        );
    };
    let Some(value) = value else {
        let current = world
            .resource::<Config>()
            .flatten()
            .into_iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
            .unwrap_or_default();
        return format!("rule={rule} value={current} key={key}");
    };
    let parsed = match value {
        "true" => toml::Value::Boolean(true),
        "false" => toml::Value::Boolean(false),
        number => match number.parse::<i64>() {
            Ok(n) => toml::Value::Integer(n),
            Err(_) => return format!("error=\"Invalid value {value} for {rule}\""),
        },
    };
    if let Err(e) = set_key(world, key, parsed) {
        return format!("error={:?}", format!("{rule}: {e}"));
    }
    info!("game rule {rule} set to {value} ({key})");
    format!("rule={rule} value={value} key={key}")
}

/// Sets `key` (`table.key`) to `value` in the running configuration, checked as a loaded
/// file is, written into the configuration file, and announced as a reload's change is.
pub fn set_key(world: &mut World, key: &str, value: toml::Value) -> Result<(), String> {
    let changed = with_key(world.resource::<Config>(), key, value.clone())?;
    if let Some(path) = world.resource::<ConfigPath>().0.clone() {
        let written = match value {
            toml::Value::Boolean(b) => persist(&path, key, b),
            toml::Value::Integer(n) => persist(&path, key, n),
            toml::Value::String(s) => persist(&path, key, s),
            other => Err(anyhow::anyhow!("{key}: cannot write {other}")),
        };
        written.map_err(|e| format!("{e:#}"))?;
    }
    world.insert_resource(changed);
    world.send_event(ConfigChanged {
        keys: vec![key.to_owned()],
    });
    Ok(())
}

/// `difficulty [easy|normal|hard]`: the difficulty, or the difficulty set (kept in
/// `config.toml` as `server.difficulty`). horde has no peaceful: it has zombies.
pub fn difficulty(world: &mut World, to: Option<&str>) -> String {
    let Some(to) = to else {
        let now = world.resource::<Config>().server.difficulty;
        return format!("difficulty={}", format!("{now:?}").to_lowercase());
    };
    if let Err(e) = set_key(
        world,
        "server.difficulty",
        toml::Value::String(to.to_owned()),
    ) {
        return format!("error={:?}", format!("difficulty {to}: {e}"));
    }
    info!("difficulty set to {to}");
    format!("difficulty={to} set=true")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_names_a_key_of_the_configuration() {
        let keys: Vec<String> = Config::default()
            .flatten()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        for (rule, key) in GAME_RULES {
            assert!(keys.iter().any(|k| k == key), "{rule}: {key}");
        }
    }

    #[test]
    fn a_rule_is_set_only_to_a_value_its_key_takes() {
        let config = Config::default();
        let off = with_key(&config, "survival.fall_damage", toml::Value::Boolean(false)).unwrap();
        assert!(!off.survival.fall_damage);
        assert!(with_key(&config, "survival.fall_damage", toml::Value::Integer(3)).is_err());
        let half = with_key(
            &config,
            "survival.players_sleeping_percentage",
            toml::Value::Integer(50),
        )
        .unwrap();
        assert_eq!(half.survival.players_sleeping_percentage, 50);
        let too_many = with_key(
            &config,
            "survival.players_sleeping_percentage",
            toml::Value::Integer(1000),
        );
        assert!(too_many.unwrap_err().contains("out of range"));
    }
}
