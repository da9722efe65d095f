//! The allowed range of every numeric key, in one list, so that range checks and the messages
//! for values of the wrong type can never disagree.

use super::{Config, ConfigError};

/// A numeric key with its current value and inclusive range.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    pub key: String,
    pub value: f64,
    pub min: f64,
    pub max: f64,
}

impl Bound {
    fn new(
        key: impl Into<String>,
        value: impl Into<f64>,
        min: impl Into<f64>,
        max: impl Into<f64>,
    ) -> Self {
        Self {
            key: key.into(),
            value: value.into(),
            min: min.into(),
            max: max.into(),
        }
    }

    /// Every numeric key of `config`.
    pub fn all(config: &Config) -> Vec<Bound> {
        let c = config;
        let mut bounds = vec![
            Bound::new("server.port", c.server.port, 0, u16::MAX),
            Bound::new("server.max_players", c.server.max_players, 1, 10_000),
            Bound::new("server.view_distance", c.server.view_distance, 2, 32),
            Bound::new(
                "server.seed",
                c.server.seed as f64,
                i64::MIN as f64,
                i64::MAX as f64,
            ),
            Bound::new("server.tick_rate", c.server.tick_rate, 1, 100),
            Bound::new(
                "server.spawn_invulnerable_ticks",
                c.server.spawn_invulnerable_ticks as f64,
                0,
                72_000,
            ),
            Bound::new(
                "server.spawn_protection",
                c.server.spawn_protection,
                0,
                29_999_984,
            ),
            Bound::new(
                "time.day_length_ticks",
                c.time.day_length_ticks as f64,
                1200,
                1_728_000,
            ),
            Bound::new("time.start_time", c.time.start_time as f64, 0, 1_727_999),
            Bound::new(
                "survival.players_sleeping_percentage",
                c.survival.players_sleeping_percentage,
                0,
                100,
            ),
            Bound::new("rcon.port", c.rcon.port, 1, u16::MAX),
            Bound::new(
                "save.autosave_ticks",
                c.save.autosave_ticks as f64,
                20,
                1_728_000,
            ),
            Bound::new(
                "chunks.retention_ticks",
                c.chunks.retention_ticks as f64,
                1,
                72_000,
            ),
            Bound::new(
                "chunks.report_interval_ticks",
                c.chunks.report_interval_ticks as f64,
                20,
                1_728_000,
            ),
            Bound::new("zombies.follow_range", c.zombies.follow_range, 1, 128),
            Bound::new("zombies.attack_windup_s", c.zombies.attack_windup_s, 0, 10),
            Bound::new(
                "zombies.attack_cooldown_s",
                c.zombies.attack_cooldown_s,
                0.05,
                60,
            ),
            Bound::new("zombies.wander_radius", c.zombies.wander_radius, 1, 64),
            Bound::new("chase.hop_radius", c.chase.hop_radius, 0.5, 32),
            Bound::new("chase.watchdog_k", c.chase.watchdog_k, 1, 10),
            Bound::new("chase.node_budget", c.chase.node_budget as f64, 16, 100_000),
            Bound::new("chase.max_drop", c.chase.max_drop, 0, 16),
            Bound::new("chase.stuck_distance", c.chase.stuck_distance, 0, 1),
            Bound::new("chase.replan_collapse_s", c.chase.replan_collapse_s, 0, 1),
            Bound::new("chase.backoff_s", c.chase.backoff_s, 0, 10),
            Bound::new("chase.give_up_plans", c.chase.give_up_plans, 1, 1000),
            Bound::new("chase.give_up_s", c.chase.give_up_s, 0, 3600),
            Bound::new(
                "chase.retarget_ticks",
                c.chase.retarget_ticks as f64,
                1,
                200,
            ),
            Bound::new("chase.retarget_margin", c.chase.retarget_margin, 0, 64),
            Bound::new("lod.near_radius", c.lod.near_radius, 0, 1024),
            Bound::new("lod.full_radius", c.lod.full_radius, 0, 1024),
            Bound::new("lod.half_radius", c.lod.half_radius, 0, 1024),
            Bound::new("lod.quarter_radius", c.lod.quarter_radius, 0, 1024),
            Bound::new("lod.hysteresis", c.lod.hysteresis, 0, 64),
            Bound::new("lod.near_sync_ticks", c.lod.near_sync_ticks as f64, 1, 200),
            Bound::new("lod.full_sync_ticks", c.lod.full_sync_ticks as f64, 1, 200),
            Bound::new("lod.half_sync_ticks", c.lod.half_sync_ticks as f64, 1, 200),
            Bound::new(
                "lod.quarter_sync_ticks",
                c.lod.quarter_sync_ticks as f64,
                1,
                400,
            ),
            Bound::new("lod.near_crowd", c.lod.near_crowd as f64, 0, 100_000),
            Bound::new("lod.full_crowd", c.lod.full_crowd as f64, 0, 100_000),
            Bound::new("lod.tracking_range", c.lod.tracking_range, 16, 1024),
            Bound::new("hunt.schedule_every_s", c.hunt.schedule_every_s, 1, 86_400),
            Bound::new("hunt.target_range", c.hunt.target_range, 1, 256),
            Bound::new("daylight.burn_s", c.daylight.burn_s, 0, 600),
            Bound::new("daylight.burn_damage", c.daylight.burn_damage, 0, 1000),
            Bound::new(
                "daylight.helmet_wear_per_s",
                c.daylight.helmet_wear_per_s,
                0,
                1000,
            ),
            Bound::new(
                "daylight.phase_interval_ticks",
                c.daylight.phase_interval_ticks as f64,
                20,
                10_000_000,
            ),
            Bound::new(
                "daylight.phase_jitter_ticks",
                c.daylight.phase_jitter_ticks as f64,
                0,
                10_000_000,
            ),
            Bound::new(
                "daylight.sun_immune_phase",
                c.daylight.sun_immune_phase,
                0,
                1000,
            ),
            Bound::new("daylight.shade_radius", c.daylight.shade_radius, 0, 32),
            Bound::new("daylight.wake_radius", c.daylight.wake_radius, 0, 64),
            Bound::new("weather.fade_per_tick", c.weather.fade_per_tick, 0.001, 1),
            Bound::new("map.port", c.map.port, 0, u16::MAX),
            Bound::new("metrics.port", c.metrics.port, 0, u16::MAX),
            Bound::new(
                "metrics.max_connections",
                c.metrics.max_connections,
                1,
                1024,
            ),
            Bound::new("query.port", c.query.port, 0, u16::MAX),
            Bound::new(
                "query.max_packets_per_s",
                c.query.max_packets_per_s,
                1,
                100_000,
            ),
            // A page holds two: its event stream and its requests.
            Bound::new("map.max_connections", c.map.max_connections, 2, 1024),
            Bound::new(
                "map.publish_interval_ticks",
                c.map.publish_interval_ticks as f64,
                1,
                1200,
            ),
            Bound::new(
                "map.trail_interval_ticks",
                c.map.trail_interval_ticks as f64,
                1,
                72_000,
            ),
            Bound::new("pack.min_neighbours", c.pack.min_neighbours, 0, 64),
            Bound::new("pack.decision_divisor", c.pack.decision_divisor, 1, 1000),
            Bound::new("pack.scan_cap", c.pack.scan_cap, 1, 1000),
            Bound::new("pack.form_min_size", c.pack.form_min_size, 2, 64),
            Bound::new("pack.cohesion_radius", c.pack.cohesion_radius, 1, 256),
            Bound::new("pack.max_size", c.pack.max_size, 2, 1000),
            Bound::new("pack.break_radius", c.pack.break_radius, 1, 512),
            Bound::new("pack.stray_activations", c.pack.stray_activations, 1, 1000),
            Bound::new("pack.min_size", c.pack.min_size, 1, 64),
            Bound::new(
                "pack.dissolve_grace_ticks",
                c.pack.dissolve_grace_ticks as f64,
                0,
                1_000_000,
            ),
            Bound::new("pack.merge_radius", c.pack.merge_radius, 0, 512),
            Bound::new("pack.merge_heading_dot", c.pack.merge_heading_dot, -1, 1),
            Bound::new("pack.leg_min", c.pack.leg_min, 1, 100_000),
            Bound::new("pack.leg_max", c.pack.leg_max, 1, 100_000),
            Bound::new("pack.max_turn_degrees", c.pack.max_turn_degrees, 0, 180),
            Bound::new("pack.arrive_radius", c.pack.arrive_radius, 1, 256),
            Bound::new("pack.dwell_ticks", c.pack.dwell_ticks as f64, 0, 1_000_000),
            Bound::new(
                "pack.dwell_jitter_ticks",
                c.pack.dwell_jitter_ticks as f64,
                0,
                1_000_000,
            ),
            Bound::new("pack.march_lead", c.pack.march_lead, 1, 256),
            Bound::new("pack.stuck_activations", c.pack.stuck_activations, 1, 1000),
            Bound::new(
                "pack.sweep_interval_ticks",
                c.pack.sweep_interval_ticks as f64,
                1,
                1200,
            ),
            Bound::new(
                "pack.dematerialise_sweeps",
                c.pack.dematerialise_sweeps,
                1,
                100_000,
            ),
            Bound::new(
                "pack.ghost_speed_fraction",
                c.pack.ghost_speed_fraction,
                0,
                2,
            ),
            Bound::new("pack.restore_scatter", c.pack.restore_scatter, 0, 64),
            Bound::new(
                "pack.restore_search_radius",
                c.pack.restore_search_radius,
                1,
                512,
            ),
            Bound::new("pack.rejoin_radius", c.pack.rejoin_radius, 1, 512),
            Bound::new("pack.restore_attempts", c.pack.restore_attempts, 1, 1000),
            Bound::new("pack.border_radius", c.pack.border_radius, 100, 29_999_984),
            Bound::new(
                "spawning.interval_ticks",
                c.spawning.interval_ticks as f64,
                1,
                72_000,
            ),
            Bound::new("spawning.min_distance", c.spawning.min_distance, 0, 256),
            Bound::new("spawning.max_distance", c.spawning.max_distance, 1, 256),
            Bound::new("spawning.group_size", c.spawning.group_size, 1, 64),
            Bound::new("siege.dig_speed", c.siege.dig_speed, 0.1, 100),
            Bound::new("siege.max_hardness", c.siege.max_hardness, 0, 100),
            Bound::new("siege.max_build_height", c.siege.max_build_height, 0, 64),
            Bound::new("siege.edits_per_tick", c.siege.edits_per_tick, 1, 1000),
            Bound::new("siege.node_budget", c.siege.node_budget, 100, 100_000),
            Bound::new("siege.plans_per_tick", c.siege.plans_per_tick, 1, 1000),
            Bound::new(
                "spawning.mob_cap_per_player",
                c.spawning.mob_cap_per_player,
                0,
                100_000,
            ),
        ];
        let n = &c.noise;
        for (kind, loudness, range) in [
            ("dig", n.dig_loudness, n.dig_range),
            ("place", n.place_loudness, n.place_range),
            ("fight", n.fight_loudness, n.fight_range),
            ("death", n.death_loudness, n.death_range),
            ("door", n.door_loudness, n.door_range),
            ("door_break", n.door_break_loudness, n.door_break_range),
            ("sprint", n.sprint_loudness, n.sprint_range),
            ("jump", n.jump_loudness, n.jump_range),
            ("hurt", n.hurt_loudness, n.hurt_range),
        ] {
            bounds.push(Bound::new(
                format!("noise.{kind}_loudness"),
                loudness,
                0,
                1000,
            ));
            bounds.push(Bound::new(format!("noise.{kind}_range"), range, 0, 128));
        }
        bounds.extend([
            Bound::new("noise.wall_damping", n.wall_damping, 0, 128),
            Bound::new("noise.light_range", n.light_range, 0, 128),
            Bound::new("noise.light_loudness", n.light_loudness, 0, 1000),
            Bound::new("noise.light_min_level", n.light_min_level, 1, 15),
            Bound::new(
                "noise.investigate_ticks",
                n.investigate_ticks as f64,
                20,
                72_000,
            ),
            Bound::new(
                "noise.look_around_ticks",
                n.look_around_ticks as f64,
                0,
                72_000,
            ),
            Bound::new("noise.memory_ticks", n.memory_ticks as f64, 0, 72_000),
            Bound::new("noise.switch_factor", n.switch_factor, 1, 100),
            Bound::new(
                "noise.heat_half_life_ticks",
                n.heat_half_life_ticks as f64,
                20,
                1_728_000,
            ),
            Bound::new("noise.summon_threshold", n.summon_threshold, 1, 1_000_000),
            Bound::new("noise.summon_zombies", n.summon_zombies, 0, 64),
            Bound::new(
                "noise.summon_cooldown_ticks",
                n.summon_cooldown_ticks as f64,
                20,
                1_728_000,
            ),
        ]);
        let w = &c.weather;
        for (key, ticks) in [
            ("clear_min_ticks", w.clear_min_ticks),
            ("clear_max_ticks", w.clear_max_ticks),
            ("rain_min_ticks", w.rain_min_ticks),
            ("rain_max_ticks", w.rain_max_ticks),
            ("thunder_delay_min_ticks", w.thunder_delay_min_ticks),
            ("thunder_delay_max_ticks", w.thunder_delay_max_ticks),
            ("thunder_min_ticks", w.thunder_min_ticks),
            ("thunder_max_ticks", w.thunder_max_ticks),
        ] {
            // A week of ticks at most, as vanilla's `weather` command allows (1,000,000 s).
            bounds.push(Bound::new(format!("weather.{key}"), ticks, 1, 20_000_000));
        }
        for (i, t) in c.zombies.types.iter().enumerate() {
            let key = |field: &str| format!("zombies.types[{i}].{field}");
            bounds.extend([
                Bound::new(key("health"), t.health, 1, 100_000),
                Bound::new(key("speed"), t.speed, 0.1, 20),
                Bound::new(key("damage"), t.damage, 0, 1000),
                Bound::new(key("reach"), t.reach, 0.5, 8),
                Bound::new(key("rarity"), t.rarity, 0, 10_000),
            ]);
        }
        for (i, h) in c.hunt.presets.iter().enumerate() {
            let key = |field: &str| format!("hunt.presets[{i}].{field}");
            bounds.extend([
                Bound::new(key("max_spawn"), h.max_spawn, 1, 1000),
                Bound::new(key("spawn_rate_s"), h.spawn_rate_s, 0.05, 3600),
                Bound::new(key("max_alive"), h.max_alive, 1, 100_000),
                Bound::new(key("max_total"), h.max_total, 1, 1_000_000),
                Bound::new(key("round_time_s"), h.round_time_s, 1, 86_400),
                // The farthest coordinate of any spawn point: within the world border.
                Bound::new(
                    key("spawn_points"),
                    h.spawn_points
                        .iter()
                        .flatten()
                        .fold(0.0, |far: f64, c| far.max(c.abs())),
                    0,
                    29_999_984,
                ),
            ]);
        }
        bounds
    }

    /// The range as written in messages and in `config.toml`.
    pub fn allowed(&self) -> String {
        format!("{}..={}", self.min, self.max)
    }

    pub fn check(&self) -> Result<(), ConfigError> {
        if (self.min..=self.max).contains(&self.value) {
            Ok(())
        } else {
            Err(ConfigError(format!(
                "{} = {}: is out of range (allowed {})",
                self.key,
                self.value,
                self.allowed()
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every number of a config as TOML writes it, by key; an array of numbers (a spawn
    /// point) under the key of the array.
    fn numeric_keys(prefix: &str, value: &toml::Value, out: &mut Vec<String>) {
        match value {
            toml::Value::Integer(_) | toml::Value::Float(_) => out.push(prefix.to_string()),
            toml::Value::Table(table) => {
                for (key, value) in table {
                    let key = match prefix {
                        "" => key.clone(),
                        _ => format!("{prefix}.{key}"),
                    };
                    numeric_keys(&key, value, out);
                }
            }
            toml::Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    match item {
                        toml::Value::Table(_) => numeric_keys(&format!("{prefix}[{i}]"), item, out),
                        _ => numeric_keys(prefix, item, out),
                    }
                }
            }
            _ => {}
        }
    }

    #[test]
    fn every_numeric_key_has_a_range() {
        let config = Config::default();
        let mut keys = Vec::new();
        numeric_keys("", &toml::Value::try_from(&config).unwrap(), &mut keys);
        keys.dedup();
        let bounded: Vec<String> = Bound::all(&config).into_iter().map(|b| b.key).collect();
        let unbounded: Vec<&String> = keys.iter().filter(|k| !bounded.contains(k)).collect();
        assert!(keys.len() > 100, "{} numeric keys found", keys.len());
        assert!(
            unbounded.is_empty(),
            "numeric keys without a range: {unbounded:?}"
        );
    }
}
