//! Pack membership as plain arithmetic: forming, joining, straying with hysteresis,
//! dissolving after a grace, and merging only when headings agree.

use valence::math::DVec2;

use crate::config::PackConfig;

/// Mean of points (the origin for none).
pub fn centroid(points: impl IntoIterator<Item = DVec2>) -> DVec2 {
    let (sum, n) = points
        .into_iter()
        .fold((DVec2::ZERO, 0usize), |(s, n), p| (s + p, n + 1));
    if n == 0 {
        DVec2::ZERO
    } else {
        sum / n as f64
    }
}

/// A pack as a loose zombie sees it when deciding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub id: u64,
    pub centroid: DVec2,
    pub size: usize,
}

/// The pack a loose zombie at `at` joins: the nearest with its centroid within the cohesion
/// radius and room left.
pub fn pack_to_join(at: DVec2, packs: &[Candidate], rules: &PackConfig) -> Option<u64> {
    packs
        .iter()
        .filter(|p| p.size < rules.max_size as usize)
        .map(|p| (p.centroid.distance(at), p))
        .filter(|(d, _)| *d <= rules.cohesion_radius)
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.id.cmp(&b.1.id)))
        .map(|(_, p)| p.id)
}

/// A zombie's pack counters. An activation is a tick the zombie spends in an
/// entity-ticking chunk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    activations: u32,
    /// Activations in a row out beyond the break radius, for a member.
    stray: u32,
}

/// What one activation leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Nothing this time.
    Wait,
    /// A loose zombie's turn to consider packs (one activation in `decision_divisor`).
    Decide,
    /// A member strayed long enough and leaves its pack.
    Leave,
}

impl Counters {
    /// One activation of a loose zombie (`from_centroid` is `None`) or of a member that far
    /// from its pack's centroid. Straying counts every activation, as the seed does; deciding
    /// comes once per `decision_divisor`.
    pub fn activate(&mut self, from_centroid: Option<f64>, rules: &PackConfig) -> Step {
        self.activations = self.activations.wrapping_add(1);
        match from_centroid {
            Some(distance) => {
                if strays(&mut self.stray, distance, rules) {
                    self.stray = 0;
                    Step::Leave
                } else {
                    Step::Wait
                }
            }
            None if self.activations.is_multiple_of(rules.decision_divisor) => Step::Decide,
            None => Step::Wait,
        }
    }

    /// A new membership starts the stray count afresh.
    pub fn joined(&mut self) {
        self.stray = 0;
    }
}

/// Whether a loose zombie with `neighbours` other zombies within the cohesion radius considers
/// packs at all.
pub fn considers_packs(neighbours: usize, rules: &PackConfig) -> bool {
    neighbours >= rules.min_neighbours as usize
}

/// Whether a loose zombie with `loose_neighbours` other loose zombies around starts a pack.
pub fn forms_pack(loose_neighbours: usize, rules: &PackConfig) -> bool {
    loose_neighbours + 1 >= rules.form_min_size as usize
}

/// Counts a member's activations out beyond the break radius; `true` when it leaves.
pub fn strays(count: &mut u32, distance: f64, rules: &PackConfig) -> bool {
    if distance > rules.break_radius {
        *count += 1;
    } else {
        *count = 0;
    }
    *count >= rules.stray_activations
}

/// Whether a pack below `min_size` since `since` dissolves at `now`.
pub fn dissolves(size: usize, since: Option<u64>, now: u64, rules: &PackConfig) -> bool {
    size < rules.min_size as usize && since.is_some_and(|s| now >= s + rules.dissolve_grace_ticks)
}

/// Whether two packs fuse: centroids close and headings agreeing.
pub fn merges(a: DVec2, a_heading: DVec2, b: DVec2, b_heading: DVec2, rules: &PackConfig) -> bool {
    a.distance(b) < rules.merge_radius && a_heading.dot(b_heading) >= rules.merge_heading_dot
}

/// Counts visibility sweeps in a row that found no member in an entity-ticking chunk; true
/// when the pack has been unseen for the whole grace and becomes a ghost.
pub fn unseen_long_enough(count: &mut u32, seen: bool, rules: &PackConfig) -> bool {
    *count = if seen { 0 } else { *count + 1 };
    *count >= rules.dematerialise_sweeps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> PackConfig {
        PackConfig::default()
    }

    #[test]
    fn forming_needs_three() {
        assert!(!forms_pack(1, &rules()));
        assert!(forms_pack(2, &rules()));
    }

    #[test]
    fn joins_the_nearest_pack_in_radius_with_room() {
        let r = rules();
        let packs = [
            Candidate {
                id: 1,
                centroid: DVec2::new(20.0, 0.0),
                size: 5,
            },
            Candidate {
                id: 2,
                centroid: DVec2::new(10.0, 0.0),
                size: 24,
            },
            Candidate {
                id: 3,
                centroid: DVec2::new(0.0, 23.0),
                size: 3,
            },
            Candidate {
                id: 4,
                centroid: DVec2::new(0.0, 30.0),
                size: 3,
            },
        ];
        assert_eq!(
            pack_to_join(DVec2::ZERO, &packs, &r),
            Some(1),
            "2 is full, 3 is farther"
        );
        assert_eq!(pack_to_join(DVec2::new(0.0, 50.0), &packs, &r), Some(4));
        assert_eq!(pack_to_join(DVec2::new(100.0, 100.0), &packs, &r), None);
        assert_eq!(
            pack_to_join(DVec2::new(24.0, 0.0), &packs[..1], &r),
            Some(1),
            "24 is within"
        );
    }

    #[test]
    fn straying_needs_three_activations_in_a_row_beyond_forty() {
        let r = rules();
        let mut count = 0;
        assert!(!strays(&mut count, 39.0, &r), "joined at 24, kept up to 40");
        assert!(!strays(&mut count, 41.0, &r));
        assert!(!strays(&mut count, 41.0, &r));
        assert!(!strays(&mut count, 30.0, &r), "back in: the count restarts");
        assert!(!strays(&mut count, 41.0, &r));
        assert!(!strays(&mut count, 41.0, &r));
        assert!(strays(&mut count, 41.0, &r));
    }

    #[test]
    fn a_member_leaves_after_three_activations_out_and_a_loose_zombie_decides_every_eighth() {
        let r = rules();
        let mut member = Counters::default();
        assert_eq!(member.activate(Some(41.0), &r), Step::Wait);
        assert_eq!(member.activate(Some(41.0), &r), Step::Wait);
        assert_eq!(
            member.activate(Some(41.0), &r),
            Step::Leave,
            "the third in a row"
        );
        let mut loose = Counters::default();
        let decisions: Vec<usize> = (1..=24)
            .filter(|_| loose.activate(None, &r) == Step::Decide)
            .collect();
        assert_eq!(decisions, [8, 16, 24]);
    }

    #[test]
    fn packs_are_considered_with_enough_neighbours() {
        let r = rules();
        assert!(!considers_packs(0, &r), "a lone zombie");
        assert!(considers_packs(1, &r));
    }

    #[test]
    fn dissolving_waits_for_the_grace() {
        let r = rules();
        assert!(!dissolves(1, Some(100), 299, &r));
        assert!(dissolves(1, Some(100), 300, &r));
        assert!(!dissolves(2, Some(100), 1000, &r), "two is enough");
        assert!(!dissolves(1, None, 1000, &r));
    }

    #[test]
    fn merging_needs_closeness_and_agreeing_headings() {
        let r = rules();
        let east = DVec2::new(1.0, 0.0);
        let north_east = DVec2::new(1.0, 1.0).normalize();
        let west = DVec2::new(-1.0, 0.0);
        let (a, b) = (DVec2::ZERO, DVec2::new(20.0, 0.0));
        assert!(merges(a, east, b, north_east, &r), "dot 0.71");
        assert!(
            !merges(a, east, b, west, &r),
            "crossing in opposite directions"
        );
        assert!(!merges(a, east, DVec2::new(40.0, 0.0), east, &r), "too far");
        let perpendicular = DVec2::new(0.0, 1.0);
        assert!(!merges(a, east, b, perpendicular, &r), "dot 0 < 0.5");
    }

    #[test]
    fn dematerialise_after_exactly_forty_unseen_sweeps() {
        let r = rules();
        let mut count = 0;
        for _ in 0..39 {
            assert!(!unseen_long_enough(&mut count, false, &r));
        }
        assert!(
            !unseen_long_enough(&mut count, true, &r),
            "seen once: the grace restarts"
        );
        for _ in 0..39 {
            assert!(
                !unseen_long_enough(&mut count, false, &r),
                "39 is not enough"
            );
        }
        assert!(unseen_long_enough(&mut count, false, &r), "the 40th is");
    }

    #[test]
    fn centroid_of_points() {
        let c = centroid([DVec2::new(0.0, 0.0), DVec2::new(4.0, 2.0)]);
        assert_eq!(c, DVec2::new(2.0, 1.0));
        assert_eq!(centroid(std::iter::empty()), DVec2::ZERO);
    }
}
