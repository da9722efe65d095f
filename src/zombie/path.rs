//! A* over the voxel grid for a 2-high body: walk to the 8 neighbours (diagonals only when
//! both sides are open), step up 1, drop up to `max_drop`, swim through water at a higher cost.
//! The search stops after `node_budget` expanded nodes (vanilla caps a zombie at 560) and then
//! returns the path to the node closest to the goal, so a far or unreachable goal still yields
//! progress. A search keeps its nodes in a box of slots around start and goal, reused by the
//! next search on the same thread, and reads each column of the box once, as bits: a move is
//! then a few bit tests. Fed from the server's walkability facts ([`crate::world::Nav`]), a
//! column costs a few shifts.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use valence::prelude::*;

use crate::world::{Column, Voxels};

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

/// Octile distance plus the price of each block of height (a step up for each block to climb,
/// a block's drop for each to fall): never more than the true cost, so A* stays optimal.
pub fn heuristic(a: BlockPos, b: BlockPos) -> u32 {
    let (dx, dz) = ((a.x - b.x).abs(), (a.z - b.z).abs());
    let (long, short) = (dx.max(dz) as u32, dx.min(dz) as u32);
    let (climb, fall) = ((b.y - a.y).max(0) as u32, (a.y - b.y).max(0) as u32);
    (long - short) * STRAIGHT + short * DIAGONAL + climb * STEP_UP + fall * DROP_PER_BLOCK
}

fn offset(p: BlockPos, dx: i32, dy: i32, dz: i32) -> BlockPos {
    BlockPos::new(p.x + dx, p.y + dy, p.z + dz)
}

/// The eight ways out of a block, in the order moves are listed.
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

/// The moves out of `from`, with their costs (fixed-point, 1000 a block), into `out`.
pub fn neighbours(
    world: &impl Voxels,
    from: BlockPos,
    limits: PathLimits,
    out: &mut Vec<(BlockPos, u32)>,
) {
    out.clear();
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
    let diagonal = dx != 0 && dz != 0;
    if diagonal && !(world.fits(offset(from, dx, 0, 0)) && world.fits(offset(from, 0, 0, dz))) {
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
    if !world.fits(side) {
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

/// Whether a straight way may take steps in water.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Water {
    /// Stop before it, as a search that prices swimming dearly would go round it.
    Shun,
    /// Swim on through it.
    Swim,
}

/// The straight way to `goal`, as far as it goes: the grid line from `start` (diagonal steps
/// spread evenly among straight ones, as many of each as the shortest way has), each step a
/// move A* could make, round the corner of a diagonal cut off, into water only if `water`
/// says so. It stops before the first step that is not open; `complete` when it reached
/// `goal`. On open dry ground it is a path A* would find, for the block reads of one line
/// instead of a search.
pub fn straight_path(
    world: &impl Voxels,
    start: BlockPos,
    goal: BlockPos,
    limits: PathLimits,
    water: Water,
) -> Path {
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
        let ways: &[&[(i32, i32)]] = if sx != 0 && sz != 0 {
            // A diagonal cut off by a corner goes round it, by one side or the other.
            &[&[(sx, sz)], &[(sx, 0), (0, sz)], &[(0, sz), (sx, 0)]]
        } else {
            &[&[(sx, sz)]]
        };
        let Some(price) = ways
            .iter()
            .find_map(|way| steps(world, at, way, limits, water, &mut nodes))
        else {
            break;
        };
        (at, cost) = (nodes[nodes.len() - 1], cost + price);
    }
    Path {
        nodes,
        complete: at == goal,
        expanded: 0,
        cost,
    }
}

/// Which way a far walker turns aside at what blocks its straight way: the sign of the turn
/// (positive turns from east towards south, a right turn seen from above).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Aside {
    #[default]
    Either,
    Right,
    Left,
}

/// A far walker's way: the straight way as far as it goes or, when its first step is
/// blocked, the straight way turned 45° and then 90° to one side (to `side`, once it has
/// turned one way; else right, then left). Keeping to one side follows a wall to its end,
/// where turning by turns would pace along it. It swims where its way crosses water, as
/// nobody watches it pick a dry way round a lake. With the way it turned; `None` when no way
/// makes a step, and only a search can find a way on.
pub fn way_on(
    world: &impl Voxels,
    start: BlockPos,
    goal: BlockPos,
    limits: PathLimits,
    side: Aside,
) -> Option<(Path, Aside)> {
    let ahead = DVec2::new((goal.x - start.x) as f64, (goal.z - start.z) as f64);
    let right = [(45.0, Aside::Right), (90.0, Aside::Right)];
    let left = [(-45.0, Aside::Left), (-90.0, Aside::Left)];
    let turns: &[(f64, Aside)] = match side {
        Aside::Either => &[right[0], right[1], left[0], left[1]],
        Aside::Right => &right,
        Aside::Left => &left,
    };
    let straight = straight_path(world, start, goal, limits, Water::Swim);
    if !straight.nodes.is_empty() {
        return Some((straight, Aside::Either));
    }
    turns.iter().find_map(|&(degrees, turned)| {
        let aside = DVec2::from_angle(f64::to_radians(degrees)).rotate(ahead);
        let to = BlockPos::new(
            start.x + aside.x.round() as i32,
            goal.y,
            start.z + aside.y.round() as i32,
        );
        let way = straight_path(world, start, to, limits, Water::Swim);
        (!way.nodes.is_empty()).then_some((way, turned))
    })
}

/// Takes the steps of `way` from `from`, each onto `nodes`: their price, or `None` (and
/// `nodes` as it was) when one is not open, or in water that `water` shuns.
fn steps(
    world: &impl Voxels,
    from: BlockPos,
    way: &[(i32, i32)],
    limits: PathLimits,
    water: Water,
    nodes: &mut Vec<BlockPos>,
) -> Option<u32> {
    let (kept, mut at, mut price) = (nodes.len(), from, 0);
    for &(sx, sz) in way {
        match step(world, at, sx, sz, limits) {
            Some((next, cost)) if water == Water::Swim || !world.liquid(next) => {
                (at, price) = (next, price + cost);
                nodes.push(at);
            }
            _ => {
                nodes.truncate(kept);
                return None;
            }
        }
    }
    Some(price)
}

/// Finds a path from `start` to `goal` (feet positions).
pub fn find_path(world: &impl Voxels, start: BlockPos, goal: BlockPos, limits: PathLimits) -> Path {
    SCRATCH.with_borrow_mut(|scratch| {
        let mut area = Area::around(world, start, goal, limits, scratch);
        search(&mut area, start, goal, limits)
    })
}

fn search<V: Voxels>(
    area: &mut Area<'_, V>,
    start: BlockPos,
    goal: BlockPos,
    limits: PathLimits,
) -> Path {
    let mut open = BinaryHeap::new();
    area.improve(start, 0, None);
    open.push(Entry::new(heuristic(start, goal), 0, start));
    let (mut closest, mut closest_h) = (start, heuristic(start, goal));
    let mut expanded = 0;
    let mut moves = Vec::with_capacity(8);
    let mut complete = false;

    while let Some(entry) = open.pop() {
        let (cost, node) = (entry.cost(), entry.node);
        if area.cost(node).is_some_and(|c| c < cost) {
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
        area.moves(node, limits, &mut moves);
        for &(next, step) in &moves {
            let next_cost = cost + step;
            if area.improve(next, next_cost, Some(node)) {
                let h = heuristic(next, goal);
                if h < closest_h {
                    (closest, closest_h) = (next, h);
                }
                open.push(Entry::new(next_cost + h, next_cost, next));
            }
        }
    }

    let cost = area.cost(closest).unwrap_or(0);
    let mut nodes = Vec::new();
    let mut at = closest;
    while let Some(parent) = area.parent(at) {
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

/// A node waiting in the search's heap. The heap pops the lowest estimate first and, among
/// equal estimates, the node farthest along: on open ground many nodes tie, and going on with
/// the deepest reaches the goal without expanding the others. Both are packed in one rank, so
/// the heap compares a single integer.
struct Entry {
    rank: u64,
    node: BlockPos,
}

impl Entry {
    fn new(estimate: u32, cost: u32, node: BlockPos) -> Self {
        Self {
            rank: (u64::from(u32::MAX - estimate) << 32) | u64::from(cost),
            node,
        }
    }

    fn cost(&self) -> u32 {
        self.rank as u32
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank.cmp(&other.rank)
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The room a search keeps in its area around start and goal: sideways, and up and down
/// beyond the largest drop. A hop's search (a few hundred nodes) stays inside; beyond it the
/// search goes on, with slower bookkeeping.
const AREA_MARGIN: i32 = 12;
const AREA_HEIGHT_MARGIN: i32 = 8;
/// How much farther sideways the columns' facts reach, and how tall they are (a `u128`).
const FACTS_MARGIN: i32 = 20;
const FACTS_HEIGHT: i32 = 128;

thread_local! {
    /// One search's memory on each thread, kept for the next: slots are stamped with their
    /// search, so a new search starts without clearing the old one's.
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

#[derive(Default)]
struct Scratch {
    search: u16,
    slots: Vec<Slot>,
    /// Each column's search stamp, apart from its facts: checking it touches no facts.
    stamps: Vec<u16>,
    columns: Vec<Facts>,
}

/// A node of the area, once the search reached it: its best cost and the move that came in.
#[derive(Clone, Copy, Default)]
struct Slot {
    cost: u32,
    search: u16,
    came: Move,
}

/// The move into a node from its parent, as its offset packed in a byte (0: the start, which
/// has no parent). Kept as an offset, it works across the area's edge too.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Move(u8);

impl Move {
    /// Offsets are -1..=1 sideways and at most 16 down or 1 up (`chase.max_drop` ≤ 16).
    fn between(from: BlockPos, to: BlockPos) -> Self {
        let (dx, dy, dz) = (to.x - from.x + 1, to.y - from.y + 16, to.z - from.z + 1);
        Self(1 + ((dx * 3 + dz) * 18 + dy) as u8)
    }

    fn parent(self, of: BlockPos) -> Option<BlockPos> {
        let code = self.0.checked_sub(1)? as i32;
        let (dy, sideways) = (code % 18 - 16, code / 18);
        let (dx, dz) = (sideways / 3 - 1, sideways % 3 - 1);
        Some(offset(of, -dx, -dy, -dz))
    }
}

/// What a body can do in one column of the area, a bit a block from the area's floor. Found
/// once a search from the column's facts, so that a move is a few bit tests where [`step`]
/// asks the same questions block by block.
#[derive(Clone, Copy, Default)]
struct Facts {
    solid: u128,
    liquid: u128,
    fits: u128,
    standable: u128,
}

impl Facts {
    fn of(column: Column, len: u32) -> Self {
        let Column {
            solid,
            liquid,
            loaded,
        } = column;
        let fits = !solid & !(solid >> 1) & (u128::MAX >> (128 - len));
        Self {
            solid,
            liquid,
            fits,
            standable: fits & (liquid | ((solid & loaded) << 1)),
        }
    }
}

fn bit(bits: u128, i: i32) -> bool {
    bits >> i & 1 != 0
}

/// A search's nodes and its blocks' facts, in a box around start and goal. Every expanded
/// node's moves look at its neighbours' feet, heads and floors: inside the box these come from
/// its columns' facts, each column read from the world once. Nodes inside live in plain slots
/// rather than a hash map; the rare ones outside in a map, and their moves read the world
/// block by block.
struct Area<'a, V> {
    world: &'a V,
    min: BlockPos,
    size: [i32; 3],
    search: u16,
    slots: &'a mut [Slot],
    outside: FxHashMap<BlockPos, (u32, Move)>,
    /// The columns' facts, in a wider box than the slots' (columns are cheap to keep and a
    /// node outside them reads the world block by block): `facts_size` columns from
    /// `facts_min`, each `FACTS_HEIGHT` blocks. Empty when the slots' box is taller.
    facts_min: BlockPos,
    facts_size: [i32; 2],
    stamps: &'a mut [u16],
    columns: &'a mut [Facts],
}

impl<'a, V: Voxels> Area<'a, V> {
    fn around(
        world: &'a V,
        start: BlockPos,
        goal: BlockPos,
        limits: PathLimits,
        scratch: &'a mut Scratch,
    ) -> Self {
        let (h, v) = (AREA_MARGIN, AREA_HEIGHT_MARGIN + limits.max_drop);
        let min = BlockPos::new(
            start.x.min(goal.x) - h,
            start.y.min(goal.y) - v,
            start.z.min(goal.z) - h,
        );
        let size = [
            start.x.max(goal.x) + h + 1 - min.x,
            start.y.max(goal.y) + v + 1 - min.y,
            start.z.max(goal.z) + h + 1 - min.z,
        ];
        let len = size.iter().map(|&s| s as usize).product();
        if scratch.slots.len() < len {
            scratch.slots.resize(len, Slot::default());
        }
        let facts_min = BlockPos::new(
            min.x - FACTS_MARGIN,
            min.y - (FACTS_HEIGHT - size[1]) / 2,
            min.z - FACTS_MARGIN,
        );
        let facts_size = [size[0] + 2 * FACTS_MARGIN, size[2] + 2 * FACTS_MARGIN];
        let columns = if size[1] <= FACTS_HEIGHT {
            (facts_size[0] * facts_size[1]) as usize
        } else {
            0
        };
        if scratch.columns.len() < columns {
            scratch.columns.resize(columns, Facts::default());
            scratch.stamps.resize(columns, 0);
        }
        scratch.search = scratch.search.wrapping_add(1);
        if scratch.search == 0 {
            // Stamps came round: forget every search before.
            scratch.slots.fill(Slot::default());
            scratch.stamps.fill(0);
            scratch.search = 1;
        }
        Self {
            world,
            min,
            size,
            search: scratch.search,
            slots: &mut scratch.slots[..len],
            outside: FxHashMap::default(),
            facts_min,
            facts_size,
            stamps: &mut scratch.stamps[..columns],
            columns: &mut scratch.columns[..columns],
        }
    }

    /// The slot of `p` (its index, and what it holds fresh for this search), when `p` is
    /// inside the area.
    fn slot(&self, p: BlockPos) -> Option<(usize, Slot)> {
        let (x, y, z) = (p.x - self.min.x, p.y - self.min.y, p.z - self.min.z);
        let [sx, sy, sz] = self.size;
        if !((0..sx).contains(&x) && (0..sy).contains(&y) && (0..sz).contains(&z)) {
            return None;
        }
        let i = ((z * sx + x) * sy + y) as usize;
        let slot = self.slots[i];
        let slot = if slot.search == self.search {
            slot
        } else {
            Slot {
                search: self.search,
                came: Move::default(),
                cost: u32::MAX,
            }
        };
        Some((i, slot))
    }

    /// The index of the column at `x`, `z` (inside the facts' box), its facts read on first
    /// use.
    fn facts(&mut self, x: i32, z: i32) -> usize {
        let (min, [sx, _]) = (self.facts_min, self.facts_size);
        let i = ((z - min.z) * sx + x - min.x) as usize;
        if self.stamps[i] != self.search {
            let len = FACTS_HEIGHT as u32;
            self.columns[i] = Facts::of(self.world.column(x, z, min.y, len), len);
            self.stamps[i] = self.search;
        }
        i
    }

    /// The moves out of `from`, as [`neighbours`] finds them: from the columns' facts when
    /// every block a move looks at is inside the area, else block by block.
    fn moves(&mut self, from: BlockPos, limits: PathLimits, out: &mut Vec<(BlockPos, u32)>) {
        let min = self.facts_min;
        let (x, i, z) = (from.x - min.x, from.y - min.y, from.z - min.z);
        let [sx, sz] = self.facts_size;
        let inside = !self.columns.is_empty()
            && (1..sx - 1).contains(&x)
            && (1..sz - 1).contains(&z)
            && i > limits.max_drop
            && i + 2 < FACTS_HEIGHT;
        if !inside {
            return neighbours(self.world, from, limits, out);
        }
        out.clear();
        // The 3 × 3 columns around `from`, by (dx + 1) * 3 + dz + 1.
        // Read where they lie rather than copied: a move looks at a word or two of each.
        let near: [usize; 9] = std::array::from_fn(|k| {
            self.facts(from.x + k as i32 / 3 - 1, from.z + k as i32 % 3 - 1)
        });
        let columns = &*self.columns;
        let at = |dx: i32, dz: i32| &columns[near[((dx + 1) * 3 + dz + 1) as usize]];
        for (dx, dz) in DIRS {
            let diagonal = dx != 0 && dz != 0;
            if diagonal && !(bit(at(dx, 0).fits, i) && bit(at(0, dz).fits, i)) {
                continue;
            }
            let base = if diagonal { DIAGONAL } else { STRAIGHT };
            let side = at(dx, dz);
            let to = |j: i32, cost: u32| {
                let cost = if bit(side.liquid, j) {
                    cost * SWIM_FACTOR
                } else {
                    cost
                };
                (offset(from, dx, j - i, dz), cost)
            };
            if bit(side.standable, i) {
                out.push(to(i, base));
            } else if bit(side.solid, i) {
                // Step up one block: room above our head and a free spot on top.
                if !diagonal && !bit(at(0, 0).solid, i + 2) && bit(side.standable, i + 1) {
                    out.push(to(i + 1, base + STEP_UP));
                }
            } else if bit(side.fits, i) {
                // Drop to the first floor below, unless something solid comes first.
                let below = (1u128 << i) - (1u128 << (i - limits.max_drop));
                let stops = (side.solid | side.standable) & below;
                if stops != 0 {
                    let j = 127 - stops.leading_zeros() as i32;
                    if bit(side.standable, j) {
                        out.push(to(j, base + DROP_PER_BLOCK * (i - j) as u32));
                    }
                }
            }
        }
    }

    /// The best cost found to `p` so far, if reached.
    fn cost(&self, p: BlockPos) -> Option<u32> {
        match self.slot(p) {
            Some((_, slot)) => (slot.cost != u32::MAX).then_some(slot.cost),
            None => self.outside.get(&p).map(|&(cost, _)| cost),
        }
    }

    fn parent(&self, p: BlockPos) -> Option<BlockPos> {
        let came = match self.slot(p) {
            Some((_, slot)) => slot.came,
            None => self.outside.get(&p)?.1,
        };
        came.parent(p)
    }

    /// Records `cost` (by way of `parent`) as the best to `p` when it beats what was found.
    fn improve(&mut self, p: BlockPos, cost: u32, parent: Option<BlockPos>) -> bool {
        let came = parent.map_or(Move::default(), |q| Move::between(q, p));
        match self.slot(p) {
            Some((i, slot)) => {
                let better = cost < slot.cost;
                if better {
                    self.slots[i] = Slot { cost, came, ..slot };
                }
                better
            }
            None => match self.outside.get(&p) {
                Some(&(known, _)) if known <= cost => false,
                _ => {
                    self.outside.insert(p, (cost, came));
                    true
                }
            },
        }
    }
}

/// The waypoints of a hop, walked from the front. A hop has a few, kept inline (last first,
/// so the next one is popped off the end): thousands of zombies walk each tick, and a heap
/// block apiece was a cache miss at every step.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Waypoints(SmallVec<[BlockPos; 4]>);

impl Waypoints {
    /// The waypoint walked to now.
    pub fn front(&self) -> Option<&BlockPos> {
        self.0.last()
    }

    /// The waypoint is reached: on to the next.
    pub fn pop_front(&mut self) {
        self.0.pop();
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<BlockPos> for Waypoints {
    /// Waypoints in walking order.
    fn from_iter<I: IntoIterator<Item = BlockPos>>(iter: I) -> Self {
        let mut stack: SmallVec<[BlockPos; 4]> = iter.into_iter().collect();
        stack.reverse();
        Self(stack)
    }
}

/// Every `spacing` blocks of path length, one waypoint; the last node always is one.
pub fn waypoints(start: BlockPos, nodes: &[BlockPos], spacing: f64) -> Waypoints {
    let mut out = SmallVec::new();
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
    out.reverse();
    Waypoints(out)
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
            let straight = straight_path(&flat, p(0, 1, 0), goal, LIMITS, Water::Shun);
            assert!(straight.complete);
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
        let over = straight_path(&bump, p(0, 1, 0), p(10, 1, 0), LIMITS, Water::Shun);
        assert!(over.complete);
        assert_walkable(&bump, p(0, 1, 0), &over);
        assert!(over.nodes.contains(&p(5, 2, 0)));
    }

    #[test]
    fn the_straight_way_goes_round_a_corner_that_cuts_a_diagonal_off() {
        let mut corner = Grid::new([-2, 0, -2], [8, 5, 8]).floor(0);
        corner.fill([1, 1, 0], [1, 2, 0], BlockState::STONE);
        let round = straight_path(&corner, p(0, 1, 0), p(4, 1, 4), LIMITS, Water::Shun);
        assert!(round.complete);
        assert_walkable(&corner, p(0, 1, 0), &round);
        assert_eq!(round.nodes[..2], [p(0, 1, 1), p(1, 1, 1)]);
        assert_eq!(round.cost, 2 * STRAIGHT + 3 * DIAGONAL);
    }

    #[test]
    fn a_far_walker_turns_aside_from_a_wall_keeps_its_side_and_stops_in_a_pocket() {
        let mut wall = Grid::new([-4, 0, -6], [8, 5, 6]).floor(0);
        wall.fill([1, 1, -6], [1, 2, 6], BlockState::STONE);
        let (on, side) = way_on(&wall, p(0, 1, 0), p(4, 1, 1), LIMITS, Aside::Either).unwrap();
        assert_walkable(&wall, p(0, 1, 0), &on);
        assert!(!on.nodes.is_empty());
        assert!(on.nodes.iter().all(|n| n.x <= 0), "along the wall");
        assert_eq!(side, Aside::Right, "right first: east turns south");
        assert!(on.nodes.iter().all(|n| n.z >= 0));
        // Having turned left, it keeps left even where right is open too.
        let (kept, side) = way_on(&wall, p(0, 1, 0), p(4, 1, 1), LIMITS, Aside::Left).unwrap();
        assert_eq!(side, Aside::Left);
        assert!(kept.nodes.iter().all(|n| n.x <= 0 && n.z <= 0));
        // The straight way, when open, ends the turning.
        let open = Grid::new([-4, 0, -6], [8, 5, 6]).floor(0);
        let (_, side) = way_on(&open, p(0, 1, 0), p(4, 1, 1), LIMITS, Aside::Left).unwrap();
        assert_eq!(side, Aside::Either);
        // Walled in on three sides and the goal beyond: no way makes a step ahead or aside.
        let mut pocket = wall.clone();
        pocket.fill([-1, 1, -1], [0, 2, -1], BlockState::STONE);
        pocket.fill([-1, 1, 1], [0, 2, 1], BlockState::STONE);
        assert!(way_on(&pocket, p(0, 1, 0), p(4, 1, 0), LIMITS, Aside::Either).is_none());
        // Its side blocked, a walker searches rather than turning back the other way.
        let mut bay = wall.clone();
        bay.fill([-1, 1, 1], [0, 2, 1], BlockState::STONE);
        assert!(way_on(&bay, p(0, 1, 0), p(4, 1, 0), LIMITS, Aside::Right).is_none());
        assert!(way_on(&bay, p(0, 1, 0), p(4, 1, 0), LIMITS, Aside::Either).is_some());
    }

    #[test]
    fn a_far_walker_swims_on_where_its_way_crosses_water() {
        let mut lake = Grid::new([-2, 0, -2], [12, 5, 2]).floor(0);
        lake.fill([2, 1, -2], [6, 1, 2], BlockState::WATER);
        let (across, side) = way_on(&lake, p(0, 1, 0), p(8, 1, 0), LIMITS, Aside::Either).unwrap();
        assert!(across.complete, "straight on, through the water");
        assert_eq!(side, Aside::Either);
        assert_walkable(&lake, p(0, 1, 0), &across);
        assert!(across.nodes.iter().any(|n| lake.liquid(*n)));
        // From the middle of the lake too, where no dry step is to be had.
        let (out, _) = way_on(&lake, p(4, 1, 0), p(8, 1, 0), LIMITS, Aside::Either).unwrap();
        assert!(out.complete);
        // A near walker's straight way stops at the shore, as a search would go round.
        let shunned = straight_path(&lake, p(0, 1, 0), p(8, 1, 0), LIMITS, Water::Shun);
        assert_eq!(shunned.nodes.last(), Some(&p(1, 1, 0)));
    }

    #[test]
    fn the_straight_way_stops_before_a_wall_or_water() {
        let mut wall = Grid::new([-2, 0, -8], [12, 5, 8]).floor(0);
        wall.fill([4, 1, -5], [4, 2, 5], BlockState::STONE);
        let short = straight_path(&wall, p(0, 1, 0), p(8, 1, 0), LIMITS, Water::Shun);
        assert!(!short.complete);
        assert_walkable(&wall, p(0, 1, 0), &short);
        assert_eq!(short.nodes.last(), Some(&p(3, 1, 0)));
        let mut wet = Grid::new([-2, 0, -2], [12, 5, 2]).floor(0);
        wet.set([3, 1, 0], BlockState::WATER);
        let dry = straight_path(&wet, p(0, 1, 0), p(8, 1, 0), LIMITS, Water::Shun);
        assert!(!dry.complete);
        assert_eq!(dry.nodes.last(), Some(&p(2, 1, 0)));
        let mut blocked = Grid::new([-2, 0, -2], [12, 5, 2]).floor(0);
        blocked.fill([1, 1, -2], [1, 2, 2], BlockState::STONE);
        assert!(
            straight_path(&blocked, p(0, 1, 0), p(8, 1, 0), LIMITS, Water::Shun)
                .nodes
                .is_empty()
        );
    }

    #[test]
    fn leaves_its_area_round_a_long_wall() {
        let mut g = Grid::new([-5, 0, -30], [12, 5, 30]).floor(0);
        // The wall's ends are farther than the area's margin from start and goal.
        let end = AREA_MARGIN + 8;
        g.fill([5, 1, -end], [5, 3, end], BlockState::STONE);
        let path = find_path(&g, p(0, 1, 0), p(10, 1, 0), LIMITS);
        assert!(path.complete);
        assert_walkable(&g, p(0, 1, 0), &path);
        assert!(path.nodes.iter().any(|n| n.z.abs() > end));
    }

    #[test]
    fn a_search_does_not_see_the_last_ones_nodes_or_blocks() {
        let open = Grid::new([-5, 0, -8], [12, 5, 8]).floor(0);
        let mut walled = open.clone();
        walled.fill([5, 1, -5], [5, 3, 5], BlockState::STONE);
        let (from, to) = (p(0, 1, 0), p(10, 1, 0));
        // On a thread of its own, the walled search starts from clean scratch.
        let fresh = {
            let walled = walled.clone();
            std::thread::spawn(move || find_path(&walled, from, to, LIMITS))
                .join()
                .unwrap()
        };
        find_path(&open, from, to, LIMITS);
        assert_eq!(find_path(&walled, from, to, LIMITS), fresh);
    }

    #[test]
    fn moves_from_column_facts_are_the_moves_block_by_block() {
        use rand::Rng;
        let mut rng = crate::random::generator(11);
        for drop in [1, 3, 16] {
            let limits = PathLimits {
                node_budget: 560,
                max_drop: drop,
            };
            // Rough ground: stone, water and open doors scattered through a box, with its
            // edges unloaded.
            let mut g = Grid::new([-2, -30, -2], [14, 40, 14]).floor(-30);
            let blocks = [
                BlockState::STONE,
                BlockState::WATER,
                BlockState::OAK_DOOR.set(PropName::Open, PropValue::True),
            ];
            for _ in 0..3000 {
                let at = [
                    rng.gen_range(-2..=14),
                    rng.gen_range(-29..=40),
                    rng.gen_range(-2..=14),
                ];
                g.set(at, blocks[rng.gen_range(0..blocks.len())]);
            }
            let mut scratch = Scratch::default();
            let mut area = Area::around(&g, p(2, 0, 2), p(4, 0, 3), limits, &mut scratch);
            let (mut from_facts, mut block_by_block) = (Vec::new(), Vec::new());
            for x in -4..=16 {
                for z in -4..=16 {
                    for y in -34..=44 {
                        area.moves(p(x, y, z), limits, &mut from_facts);
                        neighbours(&g, p(x, y, z), limits, &mut block_by_block);
                        assert_eq!(from_facts, block_by_block, "from {x} {y} {z}, drop {drop}");
                    }
                }
            }
        }
    }

    #[test]
    fn moves_pack_into_a_byte_and_back() {
        let at = p(7, 64, -3);
        for dx in -1..=1 {
            for dz in -1..=1 {
                for dy in -16..=1 {
                    let from = offset(at, -dx, -dy, -dz);
                    assert_eq!(Move::between(from, at).parent(at), Some(from));
                }
            }
        }
        assert_eq!(Move::default().parent(at), None);
    }

    #[test]
    fn waypoints_every_half_hop() {
        let g = Grid::new([-2, 0, -2], [20, 5, 2]).floor(0);
        let path = find_path(&g, p(0, 1, 0), p(10, 1, 0), LIMITS);
        let mut w = waypoints(p(0, 1, 0), &path.nodes, 1.68);
        let mut walked = Vec::new();
        while let Some(&next) = w.front() {
            walked.push(next);
            w.pop_front();
        }
        assert_eq!(
            walked,
            vec![p(2, 1, 0), p(4, 1, 0), p(6, 1, 0), p(8, 1, 0), p(10, 1, 0)]
        );
    }
}
