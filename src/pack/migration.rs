//! Where a pack goes: legs of 96 to 384 blocks turning at most 45 degrees from the current
//! heading, drawn from the pack's own seeded random stream, kept inside the world border;
//! arrival within 8 blocks, then a dwell of 200 ticks plus up to 100 of jitter. Members walk to
//! a waypoint 24 blocks ahead of the centroid, never to the far destination.

use valence::math::DVec2;

use crate::config::PackConfig;
use crate::random::Stream;

/// Picks the next destination from `from`, heading `heading` (unit), inside a square border
/// of half-width `border` around the origin. Returns the destination and the new heading.
pub fn next_leg(
    from: DVec2,
    heading: DVec2,
    rng: &mut Stream,
    rules: &PackConfig,
    border: f64,
) -> (DVec2, DVec2) {
    let max_turn = rules.max_turn_degrees.to_radians();
    let base = heading.y.atan2(heading.x);
    // A few draws: the first that stays inside the border wins; failing all, turn back.
    for _ in 0..8 {
        let turn = (rng.unit() * 2.0 - 1.0) * max_turn;
        let length = rules.leg_min + rng.unit() * (rules.leg_max - rules.leg_min);
        let dir = DVec2::from_angle(base + turn);
        let dest = from + dir * length;
        if dest.x.abs() <= border && dest.y.abs() <= border {
            return (dest, dir);
        }
    }
    let home = (-from).normalize_or_zero();
    let dir = if home == DVec2::ZERO { -heading } else { home };
    let length = rules.leg_min.min(from.length());
    (from + dir * length, dir)
}

/// Whether the centroid has arrived.
pub fn arrived(centroid: DVec2, dest: DVec2, rules: &PackConfig) -> bool {
    centroid.distance(dest) <= rules.arrive_radius
}

/// Ticks to dwell after arriving: the base plus up to the jitter.
pub fn dwell_ticks(rng: &mut Stream, rules: &PackConfig) -> u64 {
    rules.dwell_ticks + (rng.unit() * (rules.dwell_jitter_ticks + 1) as f64) as u64
}

/// The point members walk to: `march_lead` blocks ahead of the centroid toward the
/// destination, never beyond it.
pub fn waypoint(centroid: DVec2, dest: DVec2, rules: &PackConfig) -> DVec2 {
    let to = dest - centroid;
    if to.length() <= rules.march_lead {
        dest
    } else {
        centroid + to.normalize() * rules.march_lead
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> PackConfig {
        PackConfig::default()
    }

    #[test]
    fn legs_are_96_to_384_long_and_turn_at_most_45_degrees() {
        let r = rules();
        let mut rng = Stream::new(7);
        let mut heading = DVec2::new(1.0, 0.0);
        let mut at = DVec2::ZERO;
        for _ in 0..500 {
            let (dest, dir) = next_leg(at, heading, &mut rng, &r, 1e9);
            let length = dest.distance(at);
            assert!((96.0 - 1e-9..=384.0 + 1e-9).contains(&length), "{length}");
            let turn = heading.angle_between(dir).to_degrees().abs();
            assert!(turn <= 45.0 + 1e-9, "{turn}");
            (at, heading) = (dest, dir);
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_legs() {
        let r = rules();
        let walk = |seed| {
            let mut rng = Stream::new(seed);
            let (mut at, mut heading) = (DVec2::ZERO, DVec2::new(0.0, 1.0));
            (0..20)
                .map(|_| {
                    (at, heading) = next_leg(at, heading, &mut rng, &r, 1e9);
                    at
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(walk(99), walk(99));
        assert_ne!(walk(99), walk(100));
    }

    #[test]
    fn legs_stay_inside_the_border() {
        let r = rules();
        let mut rng = Stream::new(3);
        let (mut at, mut heading) = (DVec2::new(900.0, 0.0), DVec2::new(1.0, 0.0));
        for _ in 0..200 {
            (at, heading) = next_leg(at, heading, &mut rng, &r, 1000.0);
            assert!(at.x.abs() <= 1000.0 && at.y.abs() <= 1000.0, "{at}");
        }
    }

    #[test]
    fn arrival_dwell_and_waypoint() {
        let r = rules();
        assert!(arrived(DVec2::new(0.0, 7.9), DVec2::ZERO, &r));
        assert!(!arrived(DVec2::new(0.0, 8.1), DVec2::ZERO, &r));
        let mut rng = Stream::new(5);
        for _ in 0..100 {
            assert!((200..=300).contains(&dwell_ticks(&mut rng, &r)));
        }
        assert_eq!(
            waypoint(DVec2::ZERO, DVec2::new(100.0, 0.0), &r),
            DVec2::new(24.0, 0.0)
        );
        assert_eq!(
            waypoint(DVec2::ZERO, DVec2::new(10.0, 0.0), &r),
            DVec2::new(10.0, 0.0)
        );
    }
}
