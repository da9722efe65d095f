//! The siege's search: A* for a 2-high body that may also dig through what is in its way, climb
//! ladders and vines, stack a block under itself and bridge a gap of one or two blocks. Costs
//! are in ticks (a quarter tick's precision): walking a block, vanilla's dig time of each
//! block broken, placing and jumping, so a zombie digs where digging beats walking round and
//! builds where building beats both. Unlike the chase's search it reads block states (dig
//! times, ladders), and it runs only for a chaser whose target its ordinary search cannot reach.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use valence::prelude::*;

use super::rules::{falls, SiegeRules};
use crate::world::{is_solid, Voxels};

/// Fixed point: a quarter of a tick.
const SCALE: u32 = 4;
/// Placing a block, on top of the move: a second, as Baritone prices a placement to spend
/// blocks only where they pay.
const PLACE_TICKS: u32 = 20;
/// A jump's extra time over a step.
const JUMP_TICKS: u32 = 2;
/// Each dug block's extra, over its dig time: turning to it.
const DIG_EXTRA_TICKS: u32 = 2;
/// Climbing a block of ladder: vanilla's 0.1176 blocks a tick.
const CLIMB_TICKS: u32 = 9;
/// Falling a block.
const DROP_TICKS: u32 = 1;
/// The longest drop a siege path takes, as the chase's.
const MAX_DROP: i32 = 3;
/// How much longer than the straight line, flat, a siege's way may be, in blocks. The zombie
/// asked because walking did not get it there: the search goes at the target and does not
/// spend its budget on the open ground all round, which a dig of ten seconds would otherwise
/// make it cross block by block before it digs (a cobblestone shelter costs as much as
/// walking eighty blocks).
const DETOUR: f64 = 8.0;

/// What a zombie does to take one step of a siege.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Where its feet end.
    pub to: BlockPos,
    /// The blocks it digs first, in order.
    pub breaks: SmallVec<[BlockPos; 3]>,
    /// The block it places (under itself for a pillar, under `to` for a bridge).
    pub place: Option<BlockPos>,
    pub how: How,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    Walk,
    Climb,
    /// Jumps and places the block it stood in under itself.
    Pillar,
    /// Places the floor of the next block, then walks on it.
    Bridge,
}

/// Ticks a zombie of `speed` (blocks a second) takes to walk a block: [`Ground::walk_ticks`].
pub fn walk_ticks(speed: f64) -> u32 {
    (20.0 / speed.max(0.1)).ceil() as u32
}

/// The search's view of the world.
pub struct Ground<'a, V> {
    pub world: &'a V,
    pub rules: &'a SiegeRules,
    /// Ticks the zombie takes to walk a block.
    pub walk_ticks: u32,
    /// Blocks nobody but operators changes (spawn protection).
    pub protected: &'a dyn Fn(BlockPos) -> bool,
}

impl<V: Voxels> Ground<'_, V> {
    fn state(&self, p: BlockPos) -> Option<BlockState> {
        self.world.block(p)
    }

    /// Loaded, free and dry by the walkability facts (unloaded counts as solid): neither a
    /// floor nor lava, known without reading its state. Most blocks a search looks at are.
    fn open(&self, p: BlockPos) -> bool {
        !self.world.solid(p) && !self.world.liquid(p)
    }

    /// What it costs to have `p` free for a body (ticks), `None` if it cannot be: free
    /// already, or dug (not next to a block that would fall, not protected). Lava is never
    /// walked into.
    fn clear(&self, p: BlockPos) -> Option<u32> {
        if self.open(p) {
            return Some(0);
        }
        let state = self.state(p)?;
        if state.to_kind() == BlockKind::Lava {
            return None;
        }
        if !is_solid(state) {
            return Some(0);
        }
        if (self.protected)(p) {
            return None;
        }
        let above = self.state(BlockPos::new(p.x, p.y + 1, p.z))?;
        if falls(above.to_kind()) {
            return None;
        }
        self.rules.break_ticks(state).map(|t| t + DIG_EXTRA_TICKS)
    }

    fn floor(&self, p: BlockPos) -> bool {
        self.world.solid(p) && self.world.loaded(p)
    }

    /// Whether a body with its feet at `p` is held up: a floor, water, a ladder.
    fn held(&self, p: BlockPos) -> bool {
        self.floor(BlockPos::new(p.x, p.y - 1, p.z))
            || self.world.liquid(p)
            || self.world.climbable(p)
    }

    /// Whether a block may be put at `p`: open, loaded, not protected.
    fn placeable(&self, p: BlockPos) -> bool {
        if self.open(p) {
            return !(self.protected)(p);
        }
        self.state(p)
            .is_some_and(|s| !is_solid(s) && s.to_kind() != BlockKind::Lava)
            && !(self.protected)(p)
    }
}

fn at(p: BlockPos, dx: i32, dy: i32, dz: i32) -> BlockPos {
    BlockPos::new(p.x + dx, p.y + dy, p.z + dz)
}

const SIDES: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

/// A move out of a block: one step, or a pillar of this many blocks stacked where it stands
/// (its steps, one a block, are spelt out only for the way taken: [`Move::steps`]).
enum Move {
    Step(Step),
    Pillar(i32),
}

impl Move {
    fn to(&self, from: BlockPos) -> BlockPos {
        match self {
            Move::Step(step) => step.to,
            Move::Pillar(height) => at(from, 0, *height, 0),
        }
    }

    fn steps<V: Voxels>(self, g: &Ground<'_, V>, from: BlockPos) -> Vec<Step> {
        match self {
            Move::Step(step) => vec![step],
            Move::Pillar(height) => (1..=height)
                .map_while(|level| pillar_level(g, from, level).map(|(step, _)| step))
                .collect(),
        }
    }
}

/// The `level`th block of a pillar stacked from `from` (1 the block it stands in) and the
/// ticks it takes, or `None` where the pillar stops: its head hits what cannot be dug or
/// the block would go where nobody builds.
fn pillar_level<V: Voxels>(g: &Ground<'_, V>, from: BlockPos, level: i32) -> Option<(Step, u32)> {
    let (base, head) = (at(from, 0, level - 1, 0), at(from, 0, level + 1, 0));
    let t = g.clear(head).filter(|_| !(g.protected)(base))?;
    let step = Step {
        to: at(base, 0, 1, 0),
        breaks: (t > 0).then_some(head).into_iter().collect(),
        place: Some(base),
        how: How::Pillar,
    };
    Some((step, PLACE_TICKS + JUMP_TICKS + t))
}

/// The moves out of `from`, each with its cost in scaled ticks; a pillar rises at most
/// `siege.max_build_height` above `start`. The same blocks give the same moves in the same
/// order, so that a search keeps only which of them it took.
fn moves<V: Voxels>(
    g: &Ground<'_, V>,
    from: BlockPos,
    start: BlockPos,
    out: &mut Vec<(Move, u32)>,
) {
    out.clear();
    let walk = g.walk_ticks;
    let step = |to, breaks: &[(BlockPos, u32)], place, how, ticks: u32| {
        let dig: u32 = breaks.iter().map(|(_, t)| t).sum();
        let breaks = breaks
            .iter()
            .filter(|(_, t)| *t > 0)
            .map(|(p, _)| *p)
            .collect();
        let step = Step {
            to,
            breaks,
            place,
            how,
        };
        (Move::Step(step), (ticks + dig) * SCALE)
    };
    for (dx, dz) in SIDES {
        let side = at(from, dx, 0, dz);
        // Up onto the side block, if it is a floor: room above it and above our head.
        if g.floor(side) {
            let up = at(side, 0, 1, 0);
            if let (Some(a), Some(b), Some(c)) = (
                g.clear(at(from, 0, 2, 0)),
                g.clear(up),
                g.clear(at(up, 0, 1, 0)),
            ) {
                let breaks = [(at(from, 0, 2, 0), a), (up, b), (at(up, 0, 1, 0), c)];
                out.push(step(up, &breaks, None, How::Walk, walk + JUMP_TICKS));
            }
        }
        let (Some(feet), Some(head)) = (g.clear(side), g.clear(at(side, 0, 1, 0))) else {
            continue;
        };
        let breaks = [(side, feet), (at(side, 0, 1, 0), head)];
        if g.held(side) {
            out.push(step(side, &breaks, None, How::Walk, walk));
            // Down through the side's floor too, when a floor lies under it.
            let below = at(side, 0, -1, 0);
            if let Some(t) = g.clear(below).filter(|_| g.floor(at(below, 0, -1, 0))) {
                let down = [breaks[0], breaks[1], (below, t)];
                if t > 0 {
                    out.push(step(below, &down, None, How::Walk, walk + DROP_TICKS));
                }
            }
            continue;
        }
        // Nothing under the side: a short drop, or a bridge over a gap of one or two blocks.
        let landing = (1..=MAX_DROP).find_map(|d| {
            let p = at(side, 0, -d, 0);
            (!g.floor(p))
                .then_some(())
                .and_then(|_| g.held(p).then_some((p, d)))
        });
        let open_fall = |d: i32| (1..=d).all(|i| !g.floor(at(side, 0, -i, 0)));
        if let Some((p, d)) = landing.filter(|(_, d)| feet == 0 && head == 0 && open_fall(*d)) {
            out.push(step(p, &[], None, How::Walk, walk + DROP_TICKS * d as u32));
            continue;
        }
        let floor = at(side, 0, -1, 0);
        let ground_ahead = (1..=2).any(|n| g.floor(at(floor, dx * n, 0, dz * n)));
        if ground_ahead && g.placeable(floor) {
            out.push(step(
                side,
                &breaks,
                Some(floor),
                How::Bridge,
                walk + PLACE_TICKS,
            ));
        }
    }
    // Straight up: a ladder or vine, or a pillar of the build block.
    let up = at(from, 0, 1, 0);
    let above_head = at(from, 0, 2, 0);
    let climbing = g.world.climbable(from);
    if climbing {
        if let Some(0) = g.clear(above_head) {
            out.push(step(up, &[], None, How::Climb, CLIMB_TICKS));
        }
    } else if g.floor(at(from, 0, -1, 0)) {
        // A pillar of one block or more at once: the search knows the floor only of blocks
        // already there, so a pillar's blocks are one move (each placed block a step).
        let mut ticks = 0;
        let most = g.rules.max_build_height - (from.y - start.y);
        for level in 1..=most {
            let Some((_, t)) = pillar_level(g, from, level) else {
                break;
            };
            ticks += t;
            out.push((Move::Pillar(level), ticks * SCALE));
        }
    }
    // Straight down through the floor.
    let below = at(from, 0, -1, 0);
    if !climbing && g.floor(at(below, 0, -1, 0)) {
        if let Some(t) = g.clear(below).filter(|t| *t > 0) {
            out.push(step(below, &[(below, t)], None, How::Walk, DROP_TICKS));
        }
    }
}

/// Whether a zombie with its feet at `feet` strikes a player at `target` (the attack's rule:
/// flat distance within reach, less than 2 blocks up or down).
fn strikes(feet: BlockPos, target: DVec3, reach: f64) -> bool {
    let centre = DVec2::new(feet.x as f64 + 0.5, feet.z as f64 + 0.5);
    centre.distance(DVec2::new(target.x, target.z)) <= reach
        && (target.y - feet.y as f64).abs() < 2.0
}

/// A lower bound on the ticks left from `p`: the flat way to within reach, at the walk.
fn estimate(p: BlockPos, target: DVec3, reach: f64, walk_ticks: u32) -> u32 {
    let flat = DVec2::new(p.x as f64 + 0.5 - target.x, p.z as f64 + 0.5 - target.z).length();
    ((flat - reach - 1.0).max(0.0) * walk_ticks as f64) as u32 * SCALE
}

/// The siege from `start` (feet) to a spot from which a zombie of `reach` strikes the player at
/// `target`: every step with what it breaks and places. When the budget runs out first, the
/// way to the spot nearest the target, if that is nearer than the start; `None` otherwise.
pub fn siege_path<V: Voxels>(
    g: &Ground<'_, V>,
    start: BlockPos,
    target: DVec3,
    reach: f64,
) -> Option<Vec<Step>> {
    let h = |p| estimate(p, target, reach, g.walk_ticks);
    let flat = |p: BlockPos| DVec2::new(p.x as f64 + 0.5 - target.x, p.z as f64 + 0.5 - target.z);
    let from = flat(start);
    let straight = from.length();
    let on_the_way = |p| (flat(p) - from).length() + flat(p).length() <= straight + DETOUR;
    // Each reached block's best cost, and the block it was reached from with the index of
    // the move taken there: the steps are found again along the way at the end, not kept
    // for every block the search touched.
    let mut best: FxHashMap<BlockPos, (u32, Option<(BlockPos, u16)>)> = FxHashMap::default();
    let mut open = BinaryHeap::new();
    best.insert(start, (0, None));
    open.push(Reverse((h(start), 0u32, start.x, start.y, start.z)));
    let (mut closest, mut closest_h) = (start, h(start));
    let mut found = None;
    let mut expanded = 0;
    let mut out = Vec::with_capacity(12);
    while let Some(Reverse((_, cost, x, y, z))) = open.pop() {
        let node = BlockPos::new(x, y, z);
        if best.get(&node).is_some_and(|(c, _)| *c < cost) {
            continue;
        }
        if strikes(node, target, reach) {
            found = Some(node);
            break;
        }
        if expanded >= g.rules.node_budget {
            break;
        }
        expanded += 1;
        moves(g, node, start, &mut out);
        for (index, (step, price)) in out.iter().enumerate() {
            let to = step.to(node);
            let next = cost + price;
            if on_the_way(to) && best.get(&to).is_none_or(|(c, _)| next < *c) {
                let estimate = h(to);
                if estimate < closest_h {
                    (closest, closest_h) = (to, estimate);
                }
                best.insert(to, (next, Some((node, index as u16))));
                open.push(Reverse((next + estimate, next, to.x, to.y, to.z)));
            }
        }
    }
    let end = found.or((closest != start).then_some(closest))?;
    let mut taken = Vec::new();
    let mut at = end;
    while let Some(&(_, Some((parent, index)))) = best.get(&at) {
        taken.push((parent, index));
        at = parent;
    }
    let mut steps = Vec::new();
    for (from, index) in taken.into_iter().rev() {
        moves(g, from, start, &mut out);
        steps.extend(out.swap_remove(index as usize).0.steps(g, from));
    }
    Some(steps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SiegeConfig;
    use crate::world::Grid;

    fn rules() -> SiegeRules {
        SiegeRules::new(&SiegeConfig::default())
    }

    fn search(
        g: &Grid,
        start: [i32; 3],
        target: [f64; 3],
        rules: &SiegeRules,
    ) -> Option<Vec<Step>> {
        let ground = Ground {
            world: g,
            rules,
            walk_ticks: 9,
            protected: &|_| false,
        };
        let [x, y, z] = target;
        siege_path(
            &ground,
            BlockPos::new(start[0], start[1], start[2]),
            DVec3::new(x, y, z),
            1.6,
        )
    }

    fn breaks(steps: &[Step]) -> Vec<BlockPos> {
        steps.iter().flat_map(|s| s.breaks.clone()).collect()
    }

    fn flat(size: i32) -> Grid {
        Grid::new([-size, 0, -size], [size, 20, size]).floor(0)
    }

    #[test]
    fn a_wall_is_walked_round_when_that_is_cheaper_and_dug_through_when_not() {
        let mut g = flat(12);
        // A dirt post 4 high: round it is shorter than digging (17 ticks a block, two blocks).
        g.fill([3, 1, 0], [3, 4, 0], BlockState::DIRT);
        let round = search(&g, [0, 1, 0], [6.5, 1.0, 0.5], &rules()).unwrap();
        assert!(breaks(&round).is_empty(), "{round:?}");
        // A wall across the whole arena, too high to build over: dug, the feet and the head.
        g.fill([3, 1, -12], [3, 4, 12], BlockState::DIRT);
        let through = search(&g, [0, 1, 0], [6.5, 1.0, 0.5], &rules()).unwrap();
        let dug = breaks(&through);
        assert_eq!(dug.len(), 2, "{through:?}");
        assert!(dug.iter().all(|p| p.x == 3));
    }

    /// A box of `block` on open ground `size` blocks each way from the zombie at (0, 1, 0),
    /// and the player in the room cleared inside it.
    fn sealed_box(size: i32, block: BlockState) -> (Grid, [f64; 3]) {
        let mut g = flat(size);
        g.fill([4, 1, -2], [8, 4, 2], block);
        g.fill([5, 1, -1], [7, 2, 1], BlockState::AIR);
        (g, [6.5, 1.0, 0.5])
    }

    #[test]
    fn a_sealed_dirt_box_is_dug_into_and_an_obsidian_one_is_not() {
        let (g, player) = sealed_box(10, BlockState::DIRT);
        let dug = search(&g, [0, 1, 0], player, &rules()).unwrap();
        assert!(!breaks(&dug).is_empty());
        let last = dug.last().unwrap().to;
        assert!(strikes(last, DVec3::from_array(player), 1.6), "{last:?}");

        let (g, player) = sealed_box(10, BlockState::OBSIDIAN);
        let blocked = search(&g, [0, 1, 0], player, &rules());
        // At best it walks up to the box: nothing of it is dug.
        assert!(blocked.as_deref().is_none_or(|s| breaks(s).is_empty()));
        assert!(blocked
            .as_ref()
            .and_then(|s| s.last())
            .is_none_or(|s| !strikes(s.to, DVec3::from_array(player), 1.6)));
    }

    #[test]
    fn a_cobblestone_box_on_open_ground_is_dug_into_within_the_budget() {
        // Ten seconds a block: an unbounded search would first walk every block of open
        // ground within forty blocks, beyond its budget, and find nothing.
        let (g, player) = sealed_box(60, BlockState::COBBLESTONE);
        let dug = search(&g, [0, 1, 0], player, &rules()).unwrap();
        assert_eq!(breaks(&dug).len(), 2, "{dug:?}");
        let last = dug.last().unwrap().to;
        assert!(strikes(last, DVec3::from_array(player), 1.6), "{last:?}");
    }

    #[test]
    fn a_player_on_a_pillar_is_reached_by_stacking_blocks() {
        let mut g = flat(8);
        g.fill([4, 1, 0], [4, 4, 0], BlockState::COBBLESTONE);
        let player = [4.5, 5.0, 0.5];
        let steps = search(&g, [0, 1, 0], player, &rules()).unwrap();
        let pillars = steps.iter().filter(|s| s.how == How::Pillar).count();
        assert!(pillars >= 2, "{steps:?}");
        assert!(steps
            .iter()
            .all(|s| s.how != How::Pillar || s.place == Some(at(s.to, 0, -1, 0))));
        let low = SiegeRules::new(&SiegeConfig {
            max_build_height: 1,
            ..SiegeConfig::default()
        });
        let steps = search(&g, [0, 1, 0], player, &low);
        assert!(
            steps.is_none_or(|s| s.iter().filter(|s| s.how == How::Pillar).count() <= 1),
            "one block at most"
        );
    }

    #[test]
    fn a_two_wide_ditch_is_bridged_and_a_three_wide_one_is_not() {
        let mut g = Grid::new([-10, 0, -10], [10, 20, 10]).floor(5);
        let ditch = |g: &mut Grid, wide: i32| {
            g.fill([2, 0, -10], [1 + wide, 5, 10], BlockState::AIR);
        };
        ditch(&mut g, 2);
        let steps = search(&g, [0, 6, 0], [6.5, 6.0, 0.5], &rules()).unwrap();
        let bridged: Vec<_> = steps.iter().filter(|s| s.how == How::Bridge).collect();
        assert_eq!(bridged.len(), 2, "{steps:?}");
        let mut wide = Grid::new([-10, 0, -10], [10, 20, 10]).floor(5);
        ditch(&mut wide, 3);
        let steps = search(&wide, [0, 6, 0], [8.5, 6.0, 0.5], &rules());
        assert!(steps.is_none_or(|s| s.iter().all(|s| s.how != How::Bridge)));
    }

    #[test]
    fn ladders_are_climbed_without_digging() {
        let mut g = flat(6);
        g.fill([3, 1, -6], [3, 6, 6], BlockState::STONE);
        g.fill([2, 1, 0], [2, 5, 0], BlockState::LADDER);
        g.fill([2, 6, 0], [2, 6, 0], BlockState::AIR);
        // The player on top of the wall.
        let steps = search(&g, [0, 1, 0], [3.5, 7.0, 0.5], &rules()).unwrap();
        assert!(steps.iter().any(|s| s.how == How::Climb), "{steps:?}");
        assert!(breaks(&steps).is_empty() && steps.iter().all(|s| s.place.is_none()));
    }

    #[test]
    fn protected_blocks_and_blocks_under_sand_are_left() {
        let mut g = flat(12);
        g.fill([3, 1, -12], [3, 2, 12], BlockState::DIRT);
        let r = rules();
        let ground = Ground {
            world: &g,
            rules: &r,
            walk_ticks: 9,
            protected: &|p: BlockPos| p.x == 3,
        };
        let target = DVec3::new(6.5, 1.0, 0.5);
        let steps = siege_path(&ground, BlockPos::new(0, 1, 0), target, 1.6);
        assert!(steps.is_none_or(|s| breaks(&s).is_empty()));
        g.fill([3, 3, -12], [3, 3, 12], BlockState::SAND);
        let steps = search(&g, [0, 1, 0], [6.5, 1.0, 0.5], &rules()).unwrap();
        assert!(
            !breaks(&steps).contains(&BlockPos::new(3, 2, 0)),
            "sand would float"
        );
    }
}
