//! A* over the voxel grid for a 2-high body: walk to the 8 neighbours (diagonals only when
//! both sides are open), step up 1, drop up to `max_drop`, swim through water at a higher cost.
//! The search stops after `node_budget` expanded nodes (vanilla caps a zombie at 560) and then
//! returns the path to the node closest to the goal, so a far or unreachable goal still yields
//! progress.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use valence::prelude::*;

use crate::world::Voxels;

/// Limits of one search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathLimits {
    pub node_budget: usize,
    pub max_drop: i32,
}

/// A found path, from the start (excluded) to its last node.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    pub nodes: Vec<BlockPos>,
    /// Whether the last node is the goal, rather than the closest node the budget allowed.
    pub complete: bool,
    /// Nodes expanded (the search's cost).
    pub expanded: usize,
    /// The path's cost, fixed-point (1000 a block).
    pub cost: u32,
}

/// Costs are fixed-point (1000 per block) so the heap orders integers.
const STRAIGHT: u32 = 1000;
const DIAGONAL: u32 = 1414;
const STEP_UP: u32 = 500;
const DROP_PER_BLOCK: u32 = 100;
const SWIM_FACTOR: u32 = 3;

/// Octile distance plus the cheapest price of each block of height: never more than the true
/// cost, so A* stays optimal.
pub fn heuristic(a: BlockPos, b: BlockPos) -> u32 {
    let (dx, dy, dz) = ((a.x - b.x).abs(), (a.y - b.y).abs(), (a.z - b.z).abs());
    let (long, short) = (dx.max(dz) as u32, dx.min(dz) as u32);
    (long - short) * STRAIGHT + short * DIAGONAL + dy as u32 * DROP_PER_BLOCK.min(STEP_UP)
}

fn offset(p: BlockPos, dx: i32, dy: i32, dz: i32) -> BlockPos {
    BlockPos::new(p.x + dx, p.y + dy, p.z + dz)
}

/// The moves out of `from`, with their costs (fixed-point, 1000 a block), into `out`.
pub fn neighbours(
    world: &impl Voxels,
    from: BlockPos,
    limits: PathLimits,
    out: &mut Vec<(BlockPos, u32)>,
) {
    out.clear();
    const DIRS: [(i32, i32); 8] = [
        (1, 0),
        (-1, 0),
        (0, 1),
        (0, -1),
        (1, 1),
        (1, -1),
        (-1, 1),
        (-1, -1),
    ];
    out.extend(
        DIRS.iter()
            .filter_map(|&(dx, dz)| step(world, from, dx, dz, limits)),
    );
}

/// The move from `from` one block along `(dx, dz)` (each -1, 0 or 1), with its cost: level,
/// one up, or a drop of up to `max_drop`; diagonals only when both sides are open.
fn step(
    world: &impl Voxels,
    from: BlockPos,
    dx: i32,
    dz: i32,
    limits: PathLimits,
) -> Option<(BlockPos, u32)> {
    let open = |p: BlockPos| !world.solid(p) && !world.solid(offset(p, 0, 1, 0));
    let diagonal = dx != 0 && dz != 0;
    if diagonal && !(open(offset(from, dx, 0, 0)) && open(offset(from, 0, 0, dz))) {
        return None;
    }
    let base = if diagonal { DIAGONAL } else { STRAIGHT };
    let side = offset(from, dx, 0, dz);
    let swim = |p: BlockPos, cost: u32| {
        if world.liquid(p) {
            cost * SWIM_FACTOR
        } else {
            cost
        }
    };
    if world.standable(side) {
        return Some((side, swim(side, base)));
    }
    if world.solid(side) {
        // Step up one block: room above our head and a free spot on top.
        let up = offset(side, 0, 1, 0);
        return (!diagonal && !world.solid(offset(from, 0, 2, 0)) && world.standable(up))
            .then(|| (up, swim(up, base + STEP_UP)));
    }
    if !open(side) {
        return None;
    }
    // Nothing underneath: drop, at most `max_drop` blocks.
    for drop in 1..=limits.max_drop {
        let down = offset(side, 0, -drop, 0);
        if world.solid(down) {
            return None;
        }
        if world.standable(down) {
            return Some((down, swim(down, base + DROP_PER_BLOCK * drop as u32)));
        }
    }
    None
}

/// The straight way to `goal` on dry ground, when there is one: the grid line from `start`
/// (diagonal steps spread evenly among straight ones, as many of each as the shortest way
/// has), each step a move A* could make, never swimming, ending exactly at `goal`. `None`
/// as soon as a step is not open, so the caller searches instead. On open ground it is a
/// path A* would find, for the block reads of one line instead of a search.
pub fn straight_path(
    world: &impl Voxels,
    start: BlockPos,
    goal: BlockPos,
    limits: PathLimits,
) -> Option<Path> {
    let (dx, dz) = (goal.x - start.x, goal.z - start.z);
    let (long, short) = (dx.abs().max(dz.abs()), dx.abs().min(dz.abs()));
    let mut nodes = Vec::with_capacity(long as usize);
    let (mut at, mut cost, mut err) = (start, 0, 0);
    for _ in 0..long {
        // Bresenham along the longer axis: a diagonal whenever the shorter one is due.
        err += short;
        let diagonal = 2 * err >= long && short > 0;
        if diagonal {
            err -= long;
        }
        let (sx, sz) = if dx.abs() >= dz.abs() {
            (dx.signum(), if diagonal { dz.signum() } else { 0 })
        } else {
            (if diagonal { dx.signum() } else { 0 }, dz.signum())
        };
        let (next, price) = step(world, at, sx, sz, limits)?;
        if world.liquid(next) {
            return None;
        }
        (at, cost) = (next, cost + price);
        nodes.push(at);
    }
    (at == goal).then_some(Path {
        nodes,
        complete: true,
        expanded: 0,
        cost,
    })
}

/// The search's node map hashes block positions with rustc's Fx hash: it is private and
/// short-lived, so it needs no defence against chosen keys, and the standard SipHash was a
/// tenth of a search's time.
type Nodes = FxHashMap<BlockPos, (u32, Option<BlockPos>)>;

/// Finds a path from `start` to `goal` (feet positions).
pub fn find_path(world: &impl Voxels, start: BlockPos, goal: BlockPos, limits: PathLimits) -> Path {
    let mut open = BinaryHeap::new();
    let mut best = Nodes::default();
    best.insert(start, (0, None));
    open.push(Reverse((heuristic(start, goal), 0u32, pos_key(start))));
    let (mut closest, mut closest_h) = (start, heuristic(start, goal));
    let mut expanded = 0;
    let mut moves = Vec::with_capacity(8);
    let mut complete = false;

    while let Some(Reverse((_, cost, key))) = open.pop() {
        let node = key_pos(key);
        if best.get(&node).is_some_and(|(c, _)| *c < cost) {
            continue; // A cheaper way here was already expanded.
        }
        if node == goal {
            closest = node;
            complete = true;
            break;
        }
        if expanded >= limits.node_budget {
            break;
        }
        expanded += 1;
        neighbours(world, node, limits, &mut moves);
        for &(next, step) in &moves {
            let next_cost = cost + step;
            if best.get(&next).is_none_or(|(c, _)| next_cost < *c) {
                best.insert(next, (next_cost, Some(node)));
                let h = heuristic(next, goal);
                if h < closest_h {
                    (closest, closest_h) = (next, h);
                }
                open.push(Reverse((next_cost + h, next_cost, pos_key(next))));
            }
        }
    }

    let cost = best.get(&closest).map_or(0, |(c, _)| *c);
    let mut nodes = Vec::new();
    let mut at = closest;
    while let Some(&(_, Some(parent))) = best.get(&at) {
        nodes.push(at);
        at = parent;
    }
    nodes.reverse();
    Path {
        nodes,
        complete,
        expanded,
        cost,
    }
}

/// Block positions packed into an ordered integer for the heap.
fn pos_key(p: BlockPos) -> (i32, i32, i32) {
    (p.x, p.y, p.z)
}

fn key_pos(k: (i32, i32, i32)) -> BlockPos {
    BlockPos::new(k.0, k.1, k.2)
}

/// Every `spacing` blocks of path length, one waypoint; the last node always is one.
pub fn waypoints(start: BlockPos, nodes: &[BlockPos], spacing: f64) -> Vec<BlockPos> {
    let mut out = Vec::new();
    let (mut prev, mut walked) = (start, 0.0);
    for (i, &node) in nodes.iter().enumerate() {
        let d = (((node.x - prev.x).pow(2) + (node.y - prev.y).pow(2) + (node.z - prev.z).pow(2))
            as f64)
            .sqrt();
        walked += d;
        prev = node;
        let last = i + 1 == nodes.len();
        // Changes of height are kept so the walker knows where to step or drop.
        let climbs = nodes.get(i + 1).is_some_and(|n| n.y != node.y);
        if walked >= spacing || last || climbs {
            out.push(node);
            walked = 0.0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Grid;

    const LIMITS: PathLimits = PathLimits {
        node_budget: 560,
        max_drop: 3,
    };

    fn p(x: i32, y: i32, z: i32) -> BlockPos {
        BlockPos::new(x, y, z)
    }

    /// Every step of a path is a legal move.
    fn assert_walkable(g: &Grid, start: BlockPos, path: &Path) {
        let mut prev = start;
        for &n in &path.nodes {
            assert!(g.standable(n), "{n:?} not standable");
            assert!(
                (n.x - prev.x).abs() <= 1 && (n.z - prev.z).abs() <= 1,
                "jump {prev:?}->{n:?}"
            );
            assert!(
                n.y - prev.y <= 1 && prev.y - n.y <= 3,
                "climb {prev:?}->{n:?}"
            );
            prev = n;
        }
    }

    #[test]
    fn straight_line_on_flat_ground() {
        let g = Grid::new([-2, 0, -2], [20, 5, 2]).floor(0);
        let path = find_path(&g, p(0, 1, 0), p(10, 1, 0), LIMITS);
        assert!(path.complete);
        assert_eq!(path.nodes.len(), 10);
        assert_eq!(*path.nodes.last().unwrap(), p(10, 1, 0));
    }

    #[test]
    fn goes_around_a_wall() {
        let mut g = Grid::new([-5, 0, -8], [12, 5, 8]).floor(0);
        g.fill([5, 1, -5], [5, 3, 5], BlockState::STONE);
        let path = find_path(&g, p(0, 1, 0), p(10, 1, 0), LIMITS);
        assert!(path.complete);
        assert_walkable(&g, p(0, 1, 0), &path);
        assert!(
            path.nodes.iter().any(|n| n.z.abs() >= 6),
            "must pass the wall's end"
        );
    }

    #[test]
    fn climbs_stairs_one_block_at_a_time_but_not_a_two_block_wall() {
        let mut g = Grid::new([-2, 0, -2], [12, 8, 2]).floor(0);
        for i in 0..4 {
            g.fill([3 + i, 1, -2], [3 + i, 1 + i, 2], BlockState::STONE);
        }
        let path = find_path(&g, p(0, 1, 0), p(6, 5, 0), LIMITS);
        assert!(path.complete, "stairs");
        assert_walkable(&g, p(0, 1, 0), &path);

        let mut g = Grid::new([-2, 0, -2], [8, 8, 2]).floor(0);
        g.fill([3, 1, -2], [3, 2, 2], BlockState::STONE);
        let path = find_path(&g, p(0, 1, 0), p(6, 1, 0), LIMITS);
        assert!(!path.complete, "a 2-high wall across the corridor blocks");
        assert_eq!(
            *path.nodes.last().unwrap(),
            p(2, 1, 0),
            "partial path ends at the wall"
        );
    }

    #[test]
    fn drops_up_to_three_blocks_not_four() {
        let mut g = Grid::new([-2, 0, -2], [8, 10, 2]).floor(0);
        g.fill([-2, 1, -2], [2, 3, 2], BlockState::STONE);
        let path = find_path(&g, p(0, 4, 0), p(6, 1, 0), LIMITS);
        assert!(path.complete, "3-block drop");
        let mut g = Grid::new([-2, 0, -2], [8, 10, 2]).floor(0);
        g.fill([-2, 1, -2], [2, 4, 2], BlockState::STONE);
        let path = find_path(&g, p(0, 5, 0), p(6, 1, 0), LIMITS);
        assert!(!path.complete, "4-block drop is refused");
    }

    #[test]
    fn crosses_a_gap_only_by_going_around() {
        let mut g = Grid::new([-2, -4, -6], [10, 4, 6]).floor(0);
        // A trench 5 deep across the middle, with a bridge at z = 5.
        g.fill([4, -4, -6], [5, 0, 6], BlockState::AIR);
        g.fill([4, 0, 5], [5, 0, 5], BlockState::STONE);
        let path = find_path(&g, p(0, 1, 0), p(8, 1, 0), LIMITS);
        assert!(path.complete);
        assert!(
            path.nodes
                .iter()
                .any(|n| n.z == 5 && (4..=5).contains(&n.x)),
            "uses the bridge"
        );
    }

    #[test]
    fn dead_end_uses_the_budget_and_returns_the_closest_node() {
        let mut g = Grid::new([-10, 0, -10], [10, 5, 10]).floor(0);
        // A sealed box around the goal.
        g.fill([4, 1, -2], [8, 3, 2], BlockState::STONE);
        g.fill([5, 1, -1], [7, 2, 1], BlockState::AIR);
        let limits = PathLimits {
            node_budget: 200,
            max_drop: 3,
        };
        let path = find_path(&g, p(0, 1, 0), p(6, 1, 0), limits);
        assert!(!path.complete);
        assert_eq!(path.expanded, 200);
        assert_eq!(
            *path.nodes.last().unwrap(),
            p(3, 1, 0),
            "closest reachable node"
        );
    }

    #[test]
    fn swims_across_water_when_there_is_no_way_around() {
        let mut g = Grid::new([-2, -3, -2], [12, 4, 2]).floor(0);
        g.fill([4, -3, -2], [7, 0, 2], BlockState::WATER);
        let path = find_path(&g, p(0, 1, 0), p(10, 1, 0), LIMITS);
        assert!(path.complete);
        assert!(path.nodes.iter().any(|n| g.liquid(*n)), "through the water");
    }

    #[test]
    fn the_straight_way_is_as_short_as_a_star_finds_on_open_ground() {
        let flat = Grid::new([-16, 0, -16], [16, 5, 16]).floor(0);
        for goal in [
            p(12, 1, 5),
            p(-7, 1, 3),
            p(4, 1, -9),
            p(6, 1, 6),
            p(0, 1, -12),
        ] {
            let straight = straight_path(&flat, p(0, 1, 0), goal, LIMITS).unwrap();
            assert_walkable(&flat, p(0, 1, 0), &straight);
            assert_eq!(straight.nodes.last(), Some(&goal));
            assert_eq!(
                straight.cost,
                find_path(&flat, p(0, 1, 0), goal, LIMITS).cost
            );
        }
        // Over a one-block step and down again, it climbs as A* may.
        let mut bump = Grid::new([-2, 0, -2], [12, 5, 2]).floor(0);
        bump.set([5, 1, 0], BlockState::STONE);
        let over = straight_path(&bump, p(0, 1, 0), p(10, 1, 0), LIMITS).unwrap();
        assert_walkable(&bump, p(0, 1, 0), &over);
        assert!(over.nodes.contains(&p(5, 2, 0)));
    }

    #[test]
    fn no_straight_way_through_a_wall_or_water() {
        let mut wall = Grid::new([-2, 0, -8], [12, 5, 8]).floor(0);
        wall.fill([4, 1, -5], [4, 2, 5], BlockState::STONE);
        assert!(straight_path(&wall, p(0, 1, 0), p(8, 1, 0), LIMITS).is_none());
        let mut wet = Grid::new([-2, 0, -2], [12, 5, 2]).floor(0);
        wet.set([3, 1, 0], BlockState::WATER);
        assert!(straight_path(&wet, p(0, 1, 0), p(8, 1, 0), LIMITS).is_none());
    }

    #[test]
    fn waypoints_every_half_hop() {
        let g = Grid::new([-2, 0, -2], [20, 5, 2]).floor(0);
        let path = find_path(&g, p(0, 1, 0), p(10, 1, 0), LIMITS);
        let w = waypoints(p(0, 1, 0), &path.nodes, 1.68);
        assert_eq!(
            w,
            vec![p(2, 1, 0), p(4, 1, 0), p(6, 1, 0), p(8, 1, 0), p(10, 1, 0)]
        );
    }
}
