//! Checks of every range and of the rules that tie keys together.

use super::{Bound, Config, ConfigError, ConnectionModeSetting};
use crate::blocks::block_kind;

impl Config {
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
            ("map.address", &self.map.address),
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
        super::flat_layers(&self.server.flat_layers)
            .map_err(|e| ConfigError(format!("server.{e}")))?;
        self.validate_zombies()?;
        self.validate_siege()?;
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
    fn validate_siege(&self) -> Result<(), ConfigError> {
        for (i, name) in self.siege.never_break.iter().enumerate() {
            if block_kind(name).is_none() {
                return Err(ConfigError(format!(
                    "siege.never_break[{i}] = {name:?}: no block has this name"
                )));
            }
        }
        let build = &self.siege.build_block;
        let whole = block_kind(build).is_some_and(|k| {
            let state = k.to_state();
            let mut shapes = state.collision_shapes();
            let cube = shapes.next().is_some_and(|b| {
                b.min() == valence::math::DVec3::ZERO && b.max() == valence::math::DVec3::ONE
            });
            cube && shapes.next().is_none()
                && state.block_entity_kind().is_none()
                && !crate::blocks::falls(k)
        });
        if !whole {
            return Err(ConfigError(format!(
                "siege.build_block = {build:?}: expected a whole solid block such as \"dirt\""
            )));
        }
        Ok(())
    }

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
        let w = &self.weather;
        for (name, min, max) in [
            ("clear", w.clear_min_ticks, w.clear_max_ticks),
            ("rain", w.rain_min_ticks, w.rain_max_ticks),
            (
                "thunder_delay",
                w.thunder_delay_min_ticks,
                w.thunder_delay_max_ticks,
            ),
            ("thunder", w.thunder_min_ticks, w.thunder_max_ticks),
        ] {
            if min > max {
                return Err(ConfigError(format!(
                    "weather.{name}_min_ticks = {min}: must not exceed weather.{name}_max_ticks ({max})"
                )));
            }
        }
        if self.daylight.phase_jitter_ticks >= self.daylight.phase_interval_ticks {
            return Err(ConfigError(format!(
                "daylight.phase_jitter_ticks = {}: must be less than phase_interval_ticks ({})",
                self.daylight.phase_jitter_ticks, self.daylight.phase_interval_ticks
            )));
        }
        let lod = &self.lod;
        let radii = [
            lod.near_radius,
            lod.full_radius,
            lod.half_radius,
            lod.quarter_radius,
        ];
        if !radii.is_sorted() {
            return Err(ConfigError(format!(
                "lod radii {} / {} / {} / {}: expected near_radius <= full_radius <= half_radius <= quarter_radius",
                lod.near_radius, lod.full_radius, lod.half_radius, lod.quarter_radius
            )));
        }
        if lod.near_crowd > lod.full_crowd {
            return Err(ConfigError(format!(
                "lod.near_crowd = {}: must not be above full_crowd ({}), which counts the near ones too",
                lod.near_crowd, lod.full_crowd
            )));
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
            if preset.spawn_rate_s >= preset.round_time_s {
                return Err(ConfigError(format!(
                    "{key}.spawn_rate_s = {}: must be less than round_time_s ({}), or no wave comes",
                    preset.spawn_rate_s, preset.round_time_s
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConnectionModeSetting;

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
    fn start_time_must_fall_within_a_day() {
        let err = Config::parse("[time]\nstart_time = 24000\n").unwrap_err().0;
        assert_eq!(
            err,
            "time.start_time = 24000: is out of range (allowed 0..=23999)"
        );
    }

    #[test]
    fn a_hunt_must_have_time_for_a_wave() {
        let mut config = Config::default();
        config.hunt.presets[1].spawn_rate_s = 300.0;
        let err = config.validate().unwrap_err().0;
        assert!(
            err.starts_with("hunt.presets[1].spawn_rate_s = 300: must be less than round_time_s"),
            "{err}"
        );
    }
}
