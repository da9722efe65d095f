//! The sun's rule and the world's escalation as plain data.

/// What the sun sees of one zombie at a check.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Exposure {
    /// Day for mobs (vanilla's `isDay`).
    pub day: bool,
    /// Its eyes see the sky (vanilla's `canSeeSky`).
    pub sees_sky: bool,
    /// The light level at its eyes, the sky darkened by the hour and the weather (vanilla's
    /// `getMaxLocalRawBrightness`).
    pub brightness: u8,
    pub in_water: bool,
    pub raining: bool,
    /// The ticks this check stands for: vanilla rolls every tick, the check once over these.
    pub ticks: u32,
    /// This check's draw, uniform in 0..1.
    pub draw: f64,
}

/// What the sun does to a zombie this check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sunlight {
    /// No effect (night, shade, water, rain, immunity, or the sun's roll missed).
    None,
    /// Its helmet takes the sun.
    WearsHelmet,
    /// It catches fire.
    Ignites,
}

/// Whether the sun burns at all: by day, below the immune phase. When it does not, nobody
/// need look at where zombies stand.
pub fn sun_burns(day: bool, phase: u32, immune_phase: u32) -> bool {
    day && phase < immune_phase
}

/// A light level as the sun check weighs it (vanilla's `LightTexture.getBrightness` in the
/// overworld, whose ambient light is 0), in vanilla's float arithmetic: level 12 comes out just
/// over one half, so it burns, rarely.
pub fn eye_brightness(level: u8) -> f32 {
    let f = f32::from(level) / 15.0;
    f / (4.0 - 3.0 * f)
}

/// The chance vanilla's `Mob.isSunBurnTick` passes on one tick at light level `level`, with the
/// rest of its conditions met: `random.nextFloat() * 30 < (brightness - 0.4) * 2` once the
/// brightness is over one half, 1 in 25 at full light.
pub fn burn_chance(level: u8) -> f64 {
    let brightness = eye_brightness(level);
    if brightness > 0.5 {
        f64::from((brightness - 0.4) * 2.0) / 30.0
    } else {
        0.0
    }
}

/// The burn rule: by day, eyes under open sky bright enough, not in water or rain, below the
/// immune phase. A helmet takes every such check; a bare head catches fire when vanilla's
/// per-tick roll would have passed on one of the check's ticks.
pub fn sunlight(e: Exposure, phase: u32, immune_phase: u32, has_helmet: bool) -> Sunlight {
    let exposed = e.sees_sky && !e.in_water && !e.raining && eye_brightness(e.brightness) > 0.5;
    if !exposed || !sun_burns(e.day, phase, immune_phase) {
        return Sunlight::None;
    }
    let missed_every_tick = (1.0 - burn_chance(e.brightness)).powi(e.ticks as i32);
    if has_helmet {
        Sunlight::WearsHelmet
    } else if e.draw < 1.0 - missed_every_tick {
        Sunlight::Ignites
    } else {
        Sunlight::None
    }
}

/// The world's escalation phase: rises every interval (with jitter), never falls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Phase {
    pub phase: u32,
    /// World age at which the next rise happens.
    pub next_rise: i64,
}

impl Phase {
    /// Phase 0 of a fresh world.
    pub fn new(seed: i64, interval: i64, jitter: i64) -> Self {
        Self {
            phase: 0,
            next_rise: rise_after(0, 0, seed, interval, jitter),
        }
    }

    /// Advances to world age `age`; returns whether the phase rose.
    pub fn advance(&mut self, age: i64, seed: i64, interval: i64, jitter: i64) -> bool {
        let mut rose = false;
        while age >= self.next_rise {
            self.phase += 1;
            self.next_rise = rise_after(self.next_rise, self.phase, seed, interval, jitter);
            rose = true;
        }
        rose
    }
}

/// When the rise after `from` comes: one interval later, moved by a jitter drawn from the seed
/// and the phase so that it is the same after a restart.
fn rise_after(from: i64, phase: u32, seed: i64, interval: i64, jitter: i64) -> i64 {
    let h = crate::random::mix(seed as u64 ^ crate::random::mix(phase as u64));
    let offset = if jitter == 0 {
        0
    } else {
        (h % (2 * jitter as u64 + 1)) as i64 - jitter
    };
    from + (interval + offset).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Noon in the open, checked once a second with a draw that any chance passes.
    const SUN: Exposure = Exposure {
        day: true,
        sees_sky: true,
        brightness: 15,
        in_water: false,
        raining: false,
        ticks: 20,
        draw: 0.0,
    };

    #[test]
    fn burns_only_in_the_open_by_day_below_immunity() {
        assert_eq!(sunlight(SUN, 0, 5, false), Sunlight::Ignites);
        assert_eq!(sunlight(SUN, 4, 5, false), Sunlight::Ignites);
        assert_eq!(sunlight(SUN, 5, 5, false), Sunlight::None, "immune");
        assert!(sun_burns(true, 4, 5) && !sun_burns(true, 5, 5) && !sun_burns(false, 0, 5));
        let spared = [
            Exposure { day: false, ..SUN },
            Exposure {
                sees_sky: false,
                ..SUN
            },
            Exposure {
                in_water: true,
                ..SUN
            },
            Exposure {
                raining: true,
                ..SUN
            },
            Exposure {
                brightness: 11,
                ..SUN
            },
        ];
        for e in spared {
            assert_eq!(sunlight(e, 0, 5, false), Sunlight::None, "{e:?}");
            assert_eq!(sunlight(e, 0, 5, true), Sunlight::None, "{e:?}");
        }
        assert_eq!(sunlight(SUN, 0, 5, true), Sunlight::WearsHelmet);
    }

    #[test]
    fn the_sun_rolls_as_vanilla_every_tick() {
        // By hand: brightness f / (4 - 3 f) for f = level / 15; chance (brightness - 0.4) * 2 / 30.
        assert_eq!(eye_brightness(15), 1.0);
        assert!((eye_brightness(13) - 0.619_047_6).abs() < 1e-6);
        assert!(
            eye_brightness(12) > 0.5,
            "vanilla's floats put level 12 just over"
        );
        assert!(eye_brightness(11) < 0.5);
        assert!((burn_chance(15) - 0.04).abs() < 1e-7);
        assert!((burn_chance(14) - 0.025_185_2).abs() < 1e-6);
        assert!((burn_chance(13) - 0.014_603_2).abs() < 1e-6);
        assert!((burn_chance(12) - 0.006_666_7).abs() < 1e-6);
        assert_eq!(burn_chance(11), 0.0);
        // Over a second at noon: 1 - 0.96^20 = 0.558.
        let over_a_second = |draw| sunlight(Exposure { draw, ..SUN }, 0, 5, false);
        assert_eq!(over_a_second(0.557), Sunlight::Ignites);
        assert_eq!(over_a_second(0.559), Sunlight::None);
        assert_eq!(
            sunlight(Exposure { draw: 0.999, ..SUN }, 0, 5, true),
            Sunlight::WearsHelmet,
            "the helmet takes every second in the sun"
        );
        let dusk = Exposure {
            brightness: 12,
            draw: 0.13,
            ..SUN
        };
        assert_eq!(
            sunlight(dusk, 0, 5, false),
            Sunlight::None,
            "1 - (1 - 1/150)^20 = 0.125"
        );
    }

    #[test]
    fn phase_rises_with_jitter_and_never_falls() {
        let (seed, interval, jitter) = (42, 12_000, 1_200);
        let mut p = Phase::new(seed, interval, jitter);
        assert!((interval - jitter..=interval + jitter).contains(&p.next_rise));
        let mut last = 0;
        let mut rises = Vec::new();
        for age in (0..120_000).step_by(20) {
            if p.advance(age, seed, interval, jitter) {
                rises.push(age);
            }
            assert!(p.phase >= last);
            last = p.phase;
        }
        assert!((9..=11).contains(&p.phase), "about ten rises: {}", p.phase);
        let gaps: Vec<i64> = rises.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps
            .iter()
            .all(|g| (interval - jitter - 20..=interval + jitter + 20).contains(g)));
        assert!(gaps.iter().any(|&g| g != interval), "jitter moves rises");
        // The schedule follows from the seed alone: a world restarted at any age and caught up
        // at once is where the step-by-step one was; another seed rises at other ticks.
        let at = rises[4];
        let mut stepwise = Phase::new(seed, interval, jitter);
        for age in (0..=at).step_by(20) {
            stepwise.advance(age, seed, interval, jitter);
        }
        let mut restarted = Phase::new(seed, interval, jitter);
        restarted.advance(at, seed, interval, jitter);
        assert_eq!(restarted, stepwise);
        let mut other = Phase::new(seed + 1, interval, jitter);
        other.advance(at, seed + 1, interval, jitter);
        assert_ne!(other.next_rise, stepwise.next_rise, "seeded");
    }

    #[test]
    fn a_long_gap_catches_up() {
        let mut p = Phase::new(1, 100, 0);
        p.advance(1000, 1, 100, 0);
        assert_eq!(p.phase, 10);
    }
}
