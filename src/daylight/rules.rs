//! The sun's rule and the world's escalation as plain data.

/// What the sun sees of one zombie.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Exposure {
    pub day: bool,
    pub sees_sky: bool,
    pub in_water: bool,
    pub raining: bool,
}

/// What the sun does to a zombie this check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sunlight {
    /// No effect (night, shade, water, rain or immunity).
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

/// The burn rule: by day, eyes under open sky, not in water or rain, below the immune phase.
pub fn sunlight(e: Exposure, phase: u32, immune_phase: u32, has_helmet: bool) -> Sunlight {
    let exposed = e.sees_sky && !e.in_water && !e.raining;
    if !exposed || !sun_burns(e.day, phase, immune_phase) {
        Sunlight::None
    } else if has_helmet {
        Sunlight::WearsHelmet
    } else {
        Sunlight::Ignites
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

    const SUN: Exposure = Exposure {
        day: true,
        sees_sky: true,
        in_water: false,
        raining: false,
    };

    #[test]
    fn burns_only_in_the_open_by_day_below_immunity() {
        assert_eq!(sunlight(SUN, 0, 5, false), Sunlight::Ignites);
        assert_eq!(sunlight(SUN, 4, 5, false), Sunlight::Ignites);
        assert_eq!(sunlight(SUN, 5, 5, false), Sunlight::None, "immune");
        assert!(sun_burns(true, 4, 5) && !sun_burns(true, 5, 5) && !sun_burns(false, 0, 5));
        assert_eq!(
            sunlight(Exposure { day: false, ..SUN }, 0, 5, false),
            Sunlight::None
        );
        assert_eq!(
            sunlight(
                Exposure {
                    sees_sky: false,
                    ..SUN
                },
                0,
                5,
                false
            ),
            Sunlight::None
        );
        assert_eq!(
            sunlight(
                Exposure {
                    in_water: true,
                    ..SUN
                },
                0,
                5,
                false
            ),
            Sunlight::None
        );
        assert_eq!(
            sunlight(
                Exposure {
                    raining: true,
                    ..SUN
                },
                0,
                5,
                false
            ),
            Sunlight::None
        );
        assert_eq!(sunlight(SUN, 0, 5, true), Sunlight::WearsHelmet);
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
