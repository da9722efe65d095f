//! A dematerialised pack's members, kept as compact records until someone comes near.

use valence::math::DVec2;

use crate::config::{HelmetKind, PackConfig};

/// What survives of one zombie while its pack is a ghost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GhostMember {
    /// Index into the zombie types.
    pub kind: u16,
    pub health: f32,
    /// Ticks of fire left.
    pub fire_ticks: u16,
    /// The helmet and its durability.
    pub helmet: Option<(HelmetKind, u16)>,
}

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
    fn a_ghost_member_is_small() {
        assert!(std::mem::size_of::<GhostMember>() <= 16);
    }

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
