//! The allowed range of every numeric key, in one list, so that range checks and the messages
//! for values of the wrong type can never disagree.

use super::{Config, ConfigError};

/// A numeric key with its current value and inclusive range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    pub key: &'static str,
    pub value: f64,
    pub min: f64,
    pub max: f64,
}

impl Bound {
    fn new(
        key: &'static str,
        value: impl Into<f64>,
        min: impl Into<f64>,
        max: impl Into<f64>,
    ) -> Self {
        Self {
            key,
            value: value.into(),
            min: min.into(),
            max: max.into(),
        }
    }

    /// Every numeric key of `config`.
    pub fn all(config: &Config) -> Vec<Bound> {
        let c = config;
        vec![
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
                "time.day_length_ticks",
                c.time.day_length_ticks as f64,
                1200,
                1_728_000,
            ),
            Bound::new("time.start_time", c.time.start_time as f64, 0, 1_727_999),
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
        ]
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
