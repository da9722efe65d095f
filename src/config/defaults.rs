//! The shipped configuration: the SPEC's defaults, and the seed's zombie types and hunt maps
//! converted to blocks.

use super::*;

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
            generator: GeneratorSetting::Terrain,
            // Vanilla's default superflat: bedrock, two dirt, grass.
            flat_layers: vec![
                "minecraft:bedrock".into(),
                "2*minecraft:dirt".into(),
                "minecraft:grass_block".into(),
            ],
            tick_rate: 20,
            game_mode: GameModeSetting::Survival,
            difficulty: Difficulty::Normal,
            connection_mode: ConnectionModeSetting::Direct,
            velocity_secret: String::new(),
            spawn_invulnerable_ticks: 60,
            whitelist: false,
            enforce_whitelist: false,
            spawn_protection: 16,
            motd: "A horde server".into(),
            hide_online_players: false,
        }
    }
}

impl Default for TimeConfig {
    fn default() -> Self {
        Self {
            day_length_ticks: 24_000,
            start_time: 0,
            daylight_cycle: true,
        }
    }
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

impl Default for SaveConfig {
    fn default() -> Self {
        Self {
            autosave_ticks: 6000,
        }
    }
}

impl Default for ChunksConfig {
    fn default() -> Self {
        Self {
            retention_ticks: 300,
            report_interval_ticks: 1200,
        }
    }
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

impl Default for MapConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            address: "127.0.0.1".into(),
            port: 8100,
            max_connections: 16,
            publish_interval_ticks: 20,
            trail_interval_ticks: 200,
        }
    }
}

impl Default for MetricsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            address: "127.0.0.1".into(),
            // minecraft-prometheus-exporter's port, which dashboards and scrape configs expect.
            port: 9225,
            max_connections: 4,
        }
    }
}

impl Default for QueryConfig {
    /// Vanilla's `enable-query=false` and `query.port=25565`.
    fn default() -> Self {
        Self {
            enabled: false,
            port: 25565,
            max_packets_per_s: 200,
        }
    }
}

impl Default for WeatherConfig {
    /// Vanilla 1.20.1's `ServerLevel` spans.
    fn default() -> Self {
        Self {
            enabled: true,
            clear_min_ticks: 12_000,
            clear_max_ticks: 180_000,
            rain_min_ticks: 12_000,
            rain_max_ticks: 24_000,
            thunder_delay_min_ticks: 12_000,
            thunder_delay_max_ticks: 180_000,
            thunder_min_ticks: 3_600,
            thunder_max_ticks: 15_600,
            fade_per_tick: 0.01,
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
            break_doors: true,
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
                    helmet: Some(ArmourTier::Iron),
                    ..ZombieType::new("armored_zombie", 20, 75.0, 15.0, 15.0)
                },
                ZombieType::new("victorious_zomdiator", 5, 450.0, 13.0, 24.0),
            ],
        }
    }
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

impl Default for LodConfig {
    fn default() -> Self {
        Self {
            near_radius: 16.0,
            full_radius: 32.0,
            half_radius: 64.0,
            quarter_radius: 128.0,
            hysteresis: 4.0,
            near_sync_ticks: 3,
            full_sync_ticks: 4,
            half_sync_ticks: 16,
            quarter_sync_ticks: 48,
            near_crowd: 64,
            full_crowd: 128,
            tracking_range: 48.0,
        }
    }
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
            migrate_in_storms: true,
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

impl Default for SurvivalConfig {
    fn default() -> Self {
        Self {
            fall_damage: true,
            drowning_damage: true,
            fire_damage: true,
            natural_regeneration: true,
            keep_inventory: false,
            players_sleeping_percentage: 100,
        }
    }
}

impl Default for SiegeConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            dig_speed: 1.0,
            max_hardness: 3.0,
            never_break: Vec::new(),
            build_block: "dirt".into(),
            max_build_height: 6,
            edits_per_tick: 8,
            node_budget: 2000,
            plans_per_tick: 2,
        }
    }
}

impl Default for NoiseConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            dig_loudness: 4.0,
            dig_range: 16.0,
            place_loudness: 2.0,
            place_range: 10.0,
            fight_loudness: 4.0,
            fight_range: 16.0,
            death_loudness: 8.0,
            death_range: 24.0,
            door_loudness: 3.0,
            door_range: 12.0,
            door_break_loudness: 6.0,
            door_break_range: 32.0,
            sprint_loudness: 1.0,
            sprint_range: 8.0,
            jump_loudness: 1.0,
            jump_range: 6.0,
            hurt_loudness: 3.0,
            hurt_range: 12.0,
            wall_damping: 4.0,
            light_range: 32.0,
            light_loudness: 4.0,
            light_min_level: 10,
            investigate_ticks: 600,
            look_around_ticks: 100,
            memory_ticks: 600,
            switch_factor: 1.5,
            heat_half_life_ticks: 1200,
            summon_threshold: 100.0,
            summon_zombies: 4,
            summon_cooldown_ticks: 2400,
        }
    }
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
    fn hunt_types_take_the_seeds_damage_at_one_factor_in_its_order() {
        let types = ZombiesConfig::default().types;
        let damage = |name: &str| types.iter().find(|t| t.name == name).unwrap().damage;
        // The seed's table against 100 health, per map.
        let maps = [
            [
                ("forest_zombie", 8.0),
                ("fast_zombie", 8.0),
                ("slow_zombie", 12.0),
                ("crystal_guard", 20.0),
            ],
            [
                ("zombie_gladiator", 10.0),
                ("attacker_zombie", 18.0),
                ("armored_zombie", 15.0),
                ("victorious_zomdiator", 24.0),
            ],
        ];
        for map in maps {
            for (name, seed) in map {
                assert!((damage(name) - seed * SEED_DAMAGE).abs() < 1e-6, "{name}");
            }
            for a in map {
                for b in map {
                    if a.1 > b.1 {
                        assert!(
                            damage(a.0) > damage(b.0),
                            "{} hits harder than {}",
                            a.0,
                            b.0
                        );
                    }
                }
            }
        }
    }
}
