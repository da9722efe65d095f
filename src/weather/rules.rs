//! Vanilla 1.20.1's weather as plain data: the cycle of `ServerLevel.advanceWeatherCycle`, the
//! rain and thunder levels that follow it, and how dark they make the day.

use rand::Rng;

use crate::config::WeatherConfig;

/// What the `weather` command asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Clear,
    Rain,
    Thunder,
}

impl Kind {
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "clear" => Some(Self::Clear),
            "rain" => Some(Self::Rain),
            "thunder" => Some(Self::Thunder),
            _ => None,
        }
    }
}

/// The weather's timers and levels, named as in vanilla's `level.dat`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Sky {
    /// Ticks of forced clear sky left (`clearWeatherTime`): set by `weather clear`.
    pub clear_ticks: u32,
    /// Ticks until `raining` flips (`rainTime`); 0 draws a new span.
    pub rain_ticks: u32,
    /// Ticks until `thundering` flips (`thunderTime`); 0 draws a new span.
    pub thunder_ticks: u32,
    pub raining: bool,
    pub thundering: bool,
    /// 0 to 1, following `raining` by the fade step a tick.
    pub rain_level: f32,
    /// 0 to 1, following `thundering`; it shows only as far as it rains.
    pub thunder_level: f32,
}

fn draw(rng: &mut impl Rng, min: u32, max: u32) -> u32 {
    rng.gen_range(min..=max.max(min))
}

impl Sky {
    /// One tick of vanilla's cycle: a forced clear spell counts down with both flags off;
    /// otherwise each timer counts down to a flip and draws the next span when it hits 0.
    pub fn cycle(&mut self, rng: &mut impl Rng, c: &WeatherConfig) {
        if self.clear_ticks > 0 {
            self.clear_ticks -= 1;
            self.thunder_ticks = if self.thundering { 0 } else { 1 };
            self.rain_ticks = if self.raining { 0 } else { 1 };
            self.thundering = false;
            self.raining = false;
            return;
        }
        if self.thunder_ticks > 0 {
            self.thunder_ticks -= 1;
            if self.thunder_ticks == 0 {
                self.thundering = !self.thundering;
            }
        } else if self.thundering {
            self.thunder_ticks = draw(rng, c.thunder_min_ticks, c.thunder_max_ticks);
        } else {
            self.thunder_ticks = draw(rng, c.thunder_delay_min_ticks, c.thunder_delay_max_ticks);
        }
        if self.rain_ticks > 0 {
            self.rain_ticks -= 1;
            if self.rain_ticks == 0 {
                self.raining = !self.raining;
            }
        } else if self.raining {
            self.rain_ticks = draw(rng, c.rain_min_ticks, c.rain_max_ticks);
        } else {
            self.rain_ticks = draw(rng, c.clear_min_ticks, c.clear_max_ticks);
        }
    }

    /// Moves the levels one step towards their flags.
    pub fn fade(&mut self, step: f32) {
        let towards =
            |level: f32, on: bool| (if on { level + step } else { level - step }).clamp(0.0, 1.0);
        self.rain_level = towards(self.rain_level, self.raining);
        self.thunder_level = towards(self.thunder_level, self.thundering);
    }

    /// `weather clear|rain|thunder [ticks]`, as vanilla's command: without a duration, clear
    /// lasts a drawn clear spell and rain or thunder a drawn rain or thunder span.
    pub fn set(&mut self, kind: Kind, ticks: Option<u32>, rng: &mut impl Rng, c: &WeatherConfig) {
        let (clear, weather, raining, thundering) = match kind {
            Kind::Clear => (
                ticks.unwrap_or_else(|| draw(rng, c.clear_min_ticks, c.clear_max_ticks)),
                0,
                false,
                false,
            ),
            Kind::Rain => (
                0,
                ticks.unwrap_or_else(|| draw(rng, c.rain_min_ticks, c.rain_max_ticks)),
                true,
                false,
            ),
            Kind::Thunder => (
                0,
                ticks.unwrap_or_else(|| draw(rng, c.thunder_min_ticks, c.thunder_max_ticks)),
                true,
                true,
            ),
        };
        self.clear_ticks = clear;
        self.rain_ticks = weather;
        self.thunder_ticks = weather;
        self.raining = raining;
        self.thundering = thundering;
    }

    /// Rain is falling (vanilla's `isRaining`: the level past 0.2).
    pub fn is_raining(&self) -> bool {
        self.rain_level > 0.2
    }

    /// The thunder level as the world sees it: only as strong as the rain.
    pub fn storm_level(&self) -> f32 {
        self.thunder_level * self.rain_level
    }

    /// A thunderstorm (vanilla's `isThundering`).
    pub fn is_thundering(&self) -> bool {
        self.storm_level() > 0.9
    }

    /// What the `weather` query names it.
    pub fn name(&self) -> &'static str {
        if self.is_thundering() {
            "thunder"
        } else if self.is_raining() {
            "rain"
        } else {
            "clear"
        }
    }

    /// Vanilla's `skyDarken` (0, bright, to 11) at a time of day in vanilla ticks; a day with
    /// `sky_darken` of 4 or more counts as night for mobs (`Level.isDay`).
    pub fn sky_darken(&self, vanilla_time: i64) -> i32 {
        let rain = 1.0 - (self.rain_level as f64 * 5.0) / 16.0;
        let thunder = 1.0 - (self.storm_level() as f64 * 5.0) / 16.0;
        let angle = sun_angle(vanilla_time);
        let sun = 0.5 + 2.0 * f64::from(table_cos(angle * 6.283_185_5)).clamp(-0.25, 0.25);
        ((1.0 - sun * rain * thunder) * 11.0) as i32
    }

    /// Whether this weather leaves the day bright enough for the sun to act: a full
    /// thunderstorm does not.
    pub fn lets_sun_through(&self, vanilla_time: i64) -> bool {
        self.sky_darken(vanilla_time) < 4
    }
}

/// Vanilla's celestial angle (`DimensionType.timeOfDay`): 0 at noon, 0.5 at midnight, in
/// vanilla's single precision so that dusk turns to night on vanilla's tick.
fn sun_angle(vanilla_time: i64) -> f32 {
    let day = (vanilla_time.rem_euclid(24_000) as f64 / 24_000.0 - 0.25).rem_euclid(1.0);
    let eased = 0.5 - (day * std::f64::consts::PI).cos() / 2.0;
    (day * 2.0 + eased) as f32 / 3.0
}

/// Vanilla's `Mth.cos`: the sine table's entry (65536 to a turn) a quarter turn on.
fn table_cos(radians: f32) -> f32 {
    let index = (radians * 10_430.378 + 16_384.0) as i32 & 0xFFFF;
    (f64::from(index) * std::f64::consts::TAU / 65_536.0).sin() as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng() -> rand_pcg::Pcg32 {
        crate::random::generator(7)
    }

    fn ticks_until(sky: &mut Sky, rng: &mut rand_pcg::Pcg32, what: impl Fn(&Sky) -> bool) -> u32 {
        let c = WeatherConfig::default();
        (1..=1_000_000)
            .find(|_| {
                sky.cycle(rng, &c);
                what(sky)
            })
            .expect("it happens")
    }

    #[test]
    fn clear_spells_and_rains_last_as_long_as_vanilla_draws() {
        let c = WeatherConfig::default();
        let mut rng = rng();
        let mut sky = Sky::default();
        for _ in 0..20 {
            let clear = ticks_until(&mut sky, &mut rng, |s| s.raining);
            // The first tick draws the span, which then counts down to the flip.
            assert!(
                (c.clear_min_ticks..=c.clear_max_ticks + 1).contains(&clear),
                "{clear}"
            );
            let rain = ticks_until(&mut sky, &mut rng, |s| !s.raining);
            assert!(
                (c.rain_min_ticks..=c.rain_max_ticks + 1).contains(&rain),
                "{rain}"
            );
        }
    }

    #[test]
    fn thunder_runs_on_its_own_timer_and_shows_only_in_rain() {
        let c = WeatherConfig::default();
        let mut rng = rng();
        let mut sky = Sky::default();
        let delay = ticks_until(&mut sky, &mut rng, |s| s.thundering);
        assert!((c.thunder_delay_min_ticks..=c.thunder_delay_max_ticks + 1).contains(&delay));
        let storm = ticks_until(&mut sky, &mut rng, |s| !s.thundering);
        assert!((c.thunder_min_ticks..=c.thunder_max_ticks + 1).contains(&storm));

        let dry = Sky {
            thundering: true,
            thunder_level: 1.0,
            ..Sky::default()
        };
        assert!(!dry.is_thundering(), "no thunder without rain");
        assert!(Sky {
            rain_level: 1.0,
            ..dry
        }
        .is_thundering());
    }

    #[test]
    fn levels_fade_a_hundredth_a_tick() {
        let mut sky = Sky {
            raining: true,
            ..Sky::default()
        };
        for _ in 0..19 {
            sky.fade(0.01);
        }
        assert!(!sky.is_raining(), "0.19 is not rain yet");
        sky.fade(0.01);
        sky.fade(0.01);
        assert!(sky.is_raining());
        for _ in 0..200 {
            sky.fade(0.01);
        }
        assert_eq!(sky.rain_level, 1.0);
    }

    #[test]
    fn the_command_sets_vanillas_timers() {
        let c = WeatherConfig::default();
        let mut rng = rng();
        let mut sky = Sky::default();
        sky.set(Kind::Thunder, Some(600), &mut rng, &c);
        assert_eq!((sky.rain_ticks, sky.thunder_ticks), (600, 600));
        assert!(sky.raining && sky.thundering);
        sky.set(Kind::Clear, None, &mut rng, &c);
        assert!((c.clear_min_ticks..=c.clear_max_ticks).contains(&sky.clear_ticks));
        sky.cycle(&mut rng, &c);
        assert!(!sky.raining && !sky.thundering);
    }

    #[test]
    fn only_a_thunderstorm_darkens_noon_to_night() {
        let noon = 6000;
        let clear = Sky::default();
        assert_eq!(clear.sky_darken(noon), 0);
        assert!(clear.lets_sun_through(noon));
        let rain = Sky {
            rain_level: 1.0,
            ..clear
        };
        assert_eq!(
            rain.sky_darken(noon),
            3,
            "vanilla: rain alone dims noon to 3"
        );
        assert!(rain.lets_sun_through(noon));
        let storm = Sky {
            thunder_level: 1.0,
            ..rain
        };
        assert_eq!(storm.sky_darken(noon), 5);
        assert!(!storm.lets_sun_through(noon));
        assert!(clear.sky_darken(18_000) >= 4, "midnight is dark anyway");
    }

    #[test]
    fn the_sky_darkens_through_dusk_as_vanillas_formula() {
        // By hand: 11 * (1 - (0.5 + 2 * clamp(cos(2 pi angle), -1/4, 1/4)) * rain * thunder).
        let clear = Sky::default();
        let darken = |sky: Sky| [6000, 12_000, 12_500, 13_000, 18_000].map(|t| sky.sky_darken(t));
        assert_eq!(darken(clear), [0, 0, 3, 6, 11]);
        let storm = Sky {
            rain_level: 1.0,
            thunder_level: 1.0,
            ..clear
        };
        assert_eq!(darken(storm), [5, 6, 7, 9, 11]);
    }
}
