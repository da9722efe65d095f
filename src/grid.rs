//! A uniform grid over points (zombies, packs, players), so a lookup looks at the
//! neighbourhood of a point and never at every point.

use rustc_hash::FxHashMap;
use valence::math::{DVec2, DVec3};

/// Where a point is filed: its x and z (a grid is flat; heights are the caller's).
pub fn flat(p: DVec3) -> DVec2 {
    DVec2::new(p.x, p.z)
}

/// Whether a point whose distance squared is `squared` may lie within `radius`: a test
/// without a square root, to run before the distance itself on many points. Rounding aside
/// (it errs towards yes), the same answer.
pub fn may_reach(squared: f64, radius: f64) -> bool {
    squared <= radius * radius * (1.0 + 1e-9)
}

/// Items bucketed by square cells of one size.
#[derive(Debug, Clone)]
pub struct SpatialGrid<T> {
    cell: f64,
    /// Fx-hashed: cells are looked up thousands of times a tick, by keys nobody chooses.
    cells: FxHashMap<(i32, i32), Vec<(T, DVec2)>>,
}

impl<T: Copy> SpatialGrid<T> {
    pub fn new(cell: f64) -> Self {
        Self {
            cell: cell.max(1.0),
            cells: FxHashMap::default(),
        }
    }

    fn key(&self, p: DVec2) -> (i32, i32) {
        (
            (p.x / self.cell).floor() as i32,
            (p.y / self.cell).floor() as i32,
        )
    }

    /// Empties the grid for the next round. A cell that stayed empty through the last round
    /// goes: zombies wander, and a cell kept for every place one ever stood would grow without
    /// end (and be walked at every clear); a cell in use keeps its capacity.
    pub fn clear(&mut self) {
        self.cells.retain(|_, items| {
            let used = !items.is_empty();
            items.clear();
            used
        });
    }

    pub fn insert(&mut self, item: T, at: DVec2) {
        let key = self.key(at);
        self.cells.entry(key).or_default().push((item, at));
    }

    /// Every item filed in the cells that the square of half-side `radius` round `at`
    /// touches, nearest or not: for a caller that measures each one anyway.
    pub fn filed_round(&self, at: DVec2, radius: f64) -> impl Iterator<Item = &(T, DVec2)> {
        let (cx, cz) = self.key(at);
        let reach = (radius / self.cell).ceil() as i32;
        (-reach..=reach)
            .flat_map(move |dz| (-reach..=reach).map(move |dx| (cx + dx, cz + dz)))
            .filter_map(|key| self.cells.get(&key))
            .flatten()
    }

    /// Up to `cap` items within `radius` of `at` (nearest cells first), and how many were
    /// inspected.
    pub fn near(&self, at: DVec2, radius: f64, cap: usize, out: &mut Vec<(T, DVec2)>) -> usize {
        out.clear();
        let (cx, cz) = self.key(at);
        let reach = (radius / self.cell).ceil() as i32;
        let mut inspected = 0;
        for ring in 0..=reach {
            for dz in -ring..=ring {
                for dx in -ring..=ring {
                    if dx.abs() != ring && dz.abs() != ring {
                        continue;
                    }
                    let Some(items) = self.cells.get(&(cx + dx, cz + dz)) else {
                        continue;
                    };
                    for &(item, p) in items {
                        if inspected >= cap {
                            return inspected;
                        }
                        inspected += 1;
                        if p.distance(at) <= radius {
                            out.push((item, p));
                        }
                    }
                }
            }
        }
        inspected
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_neighbours_within_radius_and_respects_the_cap() {
        let mut g = SpatialGrid::new(24.0);
        for i in 0..100 {
            g.insert(i, DVec2::new(i as f64, 0.0));
        }
        let mut out = Vec::new();
        g.near(DVec2::new(50.0, 0.0), 5.0, 1000, &mut out);
        let mut found: Vec<i32> = out.iter().map(|(i, _)| *i).collect();
        found.sort();
        assert_eq!(found, (45..=55).collect::<Vec<_>>());
        let inspected = g.near(DVec2::new(50.0, 0.0), 50.0, 16, &mut out);
        assert_eq!(inspected, 16, "never more than the scan cap");
        g.clear();
        g.near(DVec2::new(50.0, 0.0), 50.0, 16, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn may_reach_keeps_every_point_within_the_radius() {
        let radius = 35.0;
        // Points on the circle itself, and a little inside and outside it.
        for i in 0..10_000 {
            let angle = i as f64 * 0.000_628_3;
            for r in [
                radius,
                radius - 1e-9,
                radius + 1e-6,
                radius - 1.0,
                radius + 1.0,
            ] {
                let p = DVec3::new(r * angle.cos(), 0.3, r * angle.sin());
                let d = p.distance(DVec3::new(0.0, 0.3, 0.0));
                let may = may_reach(p.distance_squared(DVec3::new(0.0, 0.3, 0.0)), radius);
                assert!(may || d > radius, "{p} dropped at {d}");
                assert!(!may || d < radius + 1e-6, "{p} kept at {d}");
            }
        }
    }

    #[test]
    fn filed_round_gives_every_item_of_the_cells_a_square_touches() {
        let mut g = SpatialGrid::new(10.0);
        for i in -30..30 {
            g.insert(i, DVec2::new(i as f64, 0.0));
        }
        // Cells -1, 0 and 1 on x: -10 to 19.
        let mut found: Vec<i32> = g
            .filed_round(DVec2::new(5.0, 0.0), 4.0)
            .map(|(i, _)| *i)
            .collect();
        found.sort();
        assert_eq!(found, (-10..20).collect::<Vec<_>>());
    }

    #[test]
    fn cells_left_empty_for_a_round_are_forgotten() {
        let mut g = SpatialGrid::new(24.0);
        // One walker crossing a cell a round, as a pack marching for a night.
        for round in 0..1000 {
            g.clear();
            g.insert(0, DVec2::new(round as f64 * 24.0, 0.0));
        }
        assert!(g.cells.len() <= 2, "{} cells kept", g.cells.len());
        let mut out = Vec::new();
        g.near(DVec2::new(999.0 * 24.0, 0.0), 1.0, 16, &mut out);
        assert_eq!(out.len(), 1, "the walker is still found where it is");
    }
}
