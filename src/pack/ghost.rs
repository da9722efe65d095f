//! A dematerialised pack: how it walks on without bodies (its members are kept as
//! [`crate::zombie::ZombieRecord`]s), and where they come back.

use valence::math::DVec2;

use crate::config::PackConfig;

/// Blocks a ghost pack walks in one sweep: the configured fraction of its slowest member's
/// walking speed (`slowest`, blocks per second), over the sweep's ticks.
pub fn ghost_step(slowest: f64, rules: &PackConfig, tick_rate: f64) -> f64 {
    rules.ghost_speed_fraction * slowest * rules.sweep_interval_ticks as f64 / tick_rate
}

/// Moves a ghost pack `step` blocks toward `dest`; returns the new position.
pub fn drift(at: DVec2, dest: DVec2, step: f64) -> DVec2 {
    let to = dest - at;
    if to.length() <= step {
        dest
    } else {
        at + to.normalize() * step
    }
}

/// A straight stretch of a ghost's migration: sweeps in a row on which it only drifts closer,
/// and its progress counters after them (see [`glide`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Glide {
    pub sweeps: u64,
    pub best_distance: f64,
    pub stuck: u32,
}

/// How many migrating sweeps in a row (up to `most`) a ghost `distance` blocks from its
/// destination walks at `step` a sweep before one that arrives, lands on the destination or
/// gives the leg up as stuck (by the rule of `Pack::migrate`, from `best_distance` and
/// `stuck`). A waking sleeper walks such a stretch at once. It stops short of any comparison
/// that rounding could tip, so the route is the one walked sweep by sweep.
pub fn glide(
    distance: f64,
    step: f64,
    best_distance: f64,
    stuck: u32,
    most: u64,
    rules: &PackConfig,
) -> Glide {
    /// Far more than the rounding of a few dozen steps, far less than anything a player sees.
    const MARGIN: f64 = 1e-6;
    let mut glide = Glide {
        sweeps: 0,
        best_distance,
        stuck,
    };
    while glide.sweeps < most {
        let before = distance - glide.sweeps as f64 * step;
        let after = before - step;
        let headway = glide.best_distance - 1.0;
        if before <= step + MARGIN
            || after <= rules.arrive_radius + MARGIN
            || (after - headway).abs() < MARGIN
        {
            break;
        }
        if after < headway {
            glide.best_distance = after;
            glide.stuck = 0;
        } else if glide.stuck + 1 >= rules.stuck_activations {
            break;
        } else {
            glide.stuck += 1;
        }
        glide.sweeps += 1;
    }
    glide
}

/// Whether a member restored at `spot` rejoins its pack (else it comes back loose).
pub fn rejoins(spot: DVec2, centroid: DVec2, rules: &PackConfig) -> bool {
    spot.distance(centroid) <= rules.rejoin_radius
}

/// Offsets for restored members: a deterministic spiral filling a disc of `radius`, so the
/// pack does not reappear in one column.
pub fn scatter(index: usize, radius: f64) -> DVec2 {
    const GOLDEN: f64 = 2.399_963_229_728_653;
    let r = radius * ((index as f64 + 0.5) / 24.0).sqrt().min(1.0);
    DVec2::from_angle(index as f64 * GOLDEN) * r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ghost_walks_at_forty_percent_of_its_slowest_member() {
        let rules = PackConfig::default();
        // Vanilla-like zombies (2.3 blocks/s) over a 20-tick sweep at 20 ticks/s.
        let step = ghost_step(2.3, &rules, 20.0);
        assert!((step - 0.92).abs() < 1e-9, "{step}");
        assert!(
            ghost_step(1.0, &rules, 20.0) < step,
            "slow types make slow ghosts"
        );
    }

    #[test]
    fn a_glide_ends_where_the_sweeps_one_by_one_do() {
        let rules = PackConfig::default();
        let dest = DVec2::new(-40.0, 30_000.0);
        for (step, best, stuck) in [(0.92, f64::INFINITY, 0), (1.8, 120.0, 3), (0.1, 90.0, 0)] {
            let mut at = DVec2::new(35.0, 29_900.0);
            let g = glide(at.distance(dest), step, best, stuck, 200, &rules);
            assert!(g.sweeps > 0, "{step}");
            let (mut best, mut stuck) = (best, stuck);
            for _ in 0..g.sweeps {
                at = drift(at, dest, step);
                let d = at.distance(dest);
                assert!(d > rules.arrive_radius);
                if d < best - 1.0 {
                    (best, stuck) = (d, 0);
                } else {
                    stuck += 1;
                    assert!(stuck < rules.stuck_activations);
                }
            }
            assert!((g.best_distance - best).abs() < 1e-9 || best.is_infinite());
            assert_eq!(g.stuck, stuck, "{step}");
        }
        // Slow enough to give its leg up: the glide stops on the sweep before.
        let g = glide(100.0, 0.1, 99.95, 0, 200, &rules);
        assert_eq!(g.sweeps as u32, rules.stuck_activations - 1);
        // Never past the arrival.
        let g = glide(20.0, 1.5, f64::INFINITY, 0, 200, &rules);
        assert!(20.0 - g.sweeps as f64 * 1.5 > rules.arrive_radius);
        assert!(20.0 - (g.sweeps + 1) as f64 * 1.5 <= rules.arrive_radius + 1e-6);
    }

    #[test]
    fn drift_stops_at_the_destination() {
        let d = DVec2::new(10.0, 0.0);
        assert_eq!(drift(DVec2::ZERO, d, 1.8), DVec2::new(1.8, 0.0));
        assert_eq!(drift(DVec2::new(9.0, 0.0), d, 1.8), d);
    }

    #[test]
    fn members_rejoin_from_up_to_sixty_four_blocks() {
        let rules = PackConfig::default();
        let c = DVec2::new(100.0, -50.0);
        assert!(rejoins(c + DVec2::new(6.0, 0.0), c, &rules));
        assert!(rejoins(c + DVec2::new(0.0, 64.0), c, &rules));
        assert!(
            !rejoins(c + DVec2::new(0.0, 64.5), c, &rules),
            "comes back loose"
        );
    }

    #[test]
    fn scatter_spreads_within_the_radius() {
        let spots: Vec<DVec2> = (0..24).map(|i| scatter(i, 6.0)).collect();
        assert!(spots.iter().all(|s| s.length() <= 6.0 + 1e-9));
        for (i, a) in spots.iter().enumerate() {
            for b in &spots[i + 1..] {
                assert!(a.distance(*b) > 0.5, "two members on one spot");
            }
        }
    }
}
