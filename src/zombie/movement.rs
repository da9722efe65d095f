//! Moving: the hop ([`plan`]) and the walk ([`walk`]). A zombie plans its next hop towards its
//! [`Destination`] when something calls for it (the hop rule and the watchdog of `hop`, the
//! paths of `path`), and its body walks the waypoints tick by tick. The planner reports what
//! the errands module needs to know ([`Outcome`]) and what the chase does (hops ended, a
//! target given up), in [`Walker`]; it writes nothing else of theirs.

use std::sync::atomic::{AtomicU64, Ordering};

use valence::prelude::*;

use super::body::{snap, stands_free, Body};
use super::hop::{hop_goal, Decision, HopEvent, HopPlanner};
use super::look::yaw_of;
use super::path::{find_path, straight_path, way_on, waypoints, Aside, Water, Waypoints};
use super::rules::ChaseRules;
use super::siege::Order;
use super::{Destination, Why};
use crate::config::ZombieType;
use crate::world::{BlocksChanged, Voxels};

/// Hops a stroll may take: a stroll of up to `wander_radius` (8 blocks) takes three hops of
/// `hop_radius` on open ground; more means a detour round something in the way.
const MAX_STROLL_PLANS: u8 = 5;

/// What the planner tells the errands module after a plan was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The errand or stroll is done (or its spot is out of reach).
    Arrived,
    /// Plan after plan has not moved the zombie (a pit, ledges too high all round).
    BoxedIn,
}

/// Totals since start, for `zombies` and the benchmark.
#[derive(Resource, Debug, Clone, Default, PartialEq, Eq)]
pub struct ChaseStats {
    pub plans: u64,
    pub expanded_nodes: u64,
    pub watchdog_fires: u64,
    pub give_ups: u64,
}

/// One tick's counts towards [`ChaseStats`], added to by every thread that plans.
#[derive(Debug, Default)]
pub(super) struct Tally {
    plans: AtomicU64,
    expanded_nodes: AtomicU64,
    watchdog_fires: AtomicU64,
    give_ups: AtomicU64,
}

impl Tally {
    fn count(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    /// Adds the tick's counts to the totals.
    pub(super) fn add_to(self, stats: &mut ChaseStats) {
        stats.plans += self.plans.into_inner();
        stats.expanded_nodes += self.expanded_nodes.into_inner();
        stats.watchdog_fires += self.watchdog_fires.into_inner();
        stats.give_ups += self.give_ups.into_inner();
    }
}

/// A zombie's hop: the plan, its waypoints and the walk along them.
#[derive(Component, Debug, Clone, Default)]
pub struct Walker {
    /// The current hop's goal.
    goal: Option<DVec3>,
    /// The body's yaw while walking this hop: towards its goal as planned.
    facing: Option<f32>,
    waypoints: Waypoints,
    planner: HopPlanner,
    /// What the destination was for at the last plan: a new reason starts over.
    planned_for: Why,
    /// The reason changed since the last plan: plan at once.
    retarget: bool,
    /// Plans since the reason changed; a stroll that needs too many is over.
    plans: u8,
    /// News for the errands module from this activation's plan.
    outcome: Option<Outcome>,
    /// Hops after a player ended so far: at each the chase looks for a nearer player.
    chase_hops: u32,
    /// The player plan after plan brought the zombie no closer to.
    gave_up_on: Option<Entity>,
    jump: bool,
    blocked_ticks: u32,
    /// The side a far walker turned to at what blocked its way, kept while it is blocked.
    aside: Aside,
    /// Standing: in reach of its target, or hammering at a door.
    holding: bool,
    /// A chase's last plan found no way to its hop's goal and brought it no closer.
    stuck: bool,
    /// Following a siege's orders.
    sieging: bool,
    /// The way the body walked on its last activation.
    heading: Option<DVec3>,
}

impl Walker {
    /// What the last plan reported, on the activation it was made.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Hops after a player ended so far.
    pub fn chase_hops(&self) -> u32 {
        self.chase_hops
    }

    /// The player plan after plan brought the zombie no closer to, until the next reason.
    pub fn gave_up_on(&self) -> Option<Entity> {
        self.gave_up_on
    }

    pub(super) fn facing(&self) -> Option<f32> {
        self.facing
    }

    pub(super) fn heading(&self) -> Option<DVec3> {
        self.heading
    }

    pub(super) fn holding(&self) -> bool {
        self.holding
    }

    /// The current hop's goal.
    pub(super) fn goal(&self) -> Option<DVec3> {
        self.goal
    }
}

/// What a zombie acts on in one activation: what it is after, where its body stands, and for
/// how many ticks.
pub(super) struct Turn<'a> {
    pub(super) dest: &'a Destination,
    pub(super) kind: &'a ZombieType,
    pub(super) pos: DVec3,
    /// Beyond `lod.full_radius` of every player, or in a crowd's back rows.
    pub(super) far: bool,
    /// No client sees it closely (see [`glide`]).
    pub(super) glides: bool,
    pub(super) at_door: bool,
    pub(super) siege: Option<Order>,
    /// The ticks the activation stands for (8 or 16 in the far tiers).
    pub(super) steps: u64,
}

/// One activation: the plan ([`plan`]), then the walk ([`walk`]). A hop that ends before the
/// activation does is followed at once by the next, walked for the ticks left, so a far
/// walker keeps its pace over hop ends (it stood still for the rest of each such activation,
/// a tenth to a fifth of its speed); not when it planned this very tick (a second plan would
/// collapse into a back-off), nor on news for the errands module. Returns where the body
/// ends, and the player to besiege.
pub(super) fn act(
    walker: &mut Walker,
    body: &mut Body,
    turn: &Turn<'_>,
    ground: &Ground<'_, impl Voxels>,
    tally: &Tally,
) -> (DVec3, Option<Entity>) {
    let per_tick = turn.kind.speed / ground.rules.hop.tick_rate;
    let step = |walker: &mut Walker, body: &mut Body, turn: &Turn<'_>| {
        let asks = plan(walker, turn, ground, tally);
        let (pos, idle) = walk(
            walker,
            body,
            ground.world,
            turn.pos,
            per_tick,
            turn.steps,
            turn.glides,
        );
        (pos, idle, asks)
    };
    let (pos, idle, asks) = step(walker, body, turn);
    // It walked to the end of a hop planned before this tick, and has somewhere to go.
    let walks_on = idle > 0
        && !walker.planner.recent(ground.now, &ground.rules.hop)
        && turn.dest.to.is_some()
        && walker.waypoints.is_empty()
        && walker.outcome.is_none()
        && !(walker.sieging || walker.holding);
    if !walks_on {
        return (pos, asks);
    }
    // The rest of the activation, from where the body stands now.
    let rest = Turn {
        pos,
        steps: idle,
        ..*turn
    };
    let (pos, _, asks) = step(walker, body, &rest);
    (pos, asks)
}

/// A zombie's plan on one of its activations: a new hop when something calls for one, or a
/// stand in reach of its target or at a door (the attack and door systems do the rest, and a
/// zombie at a door does not give its target up); during a siege, the siege's order. Returns
/// the player to besiege, for a chaser whose hops bring it no closer.
fn plan(
    walker: &mut Walker,
    turn: &Turn<'_>,
    ground: &Ground<'_, impl Voxels>,
    tally: &Tally,
) -> Option<Entity> {
    let Turn {
        dest,
        kind,
        pos,
        far,
        at_door,
        siege,
        ..
    } = *turn;
    let reach = ground.rules.hop_reach(far && !dest.chasing());
    let watchdog = ground.rules.hop.watchdog_ticks(reach, kind.speed);
    walker.outcome = None;
    if let Some(order) = siege.filter(|_| dest.chasing()) {
        // The siege leads: walk to its next block, jump for its pillar, or stand and work.
        walker.sieging = true;
        walker.holding = order.walk_to.is_none();
        walker.waypoints = order.walk_to.into_iter().collect();
        walker.jump |= order.jump;
        walker.planner.hold(ground.now, watchdog);
        walker.planner.reset_progress();
        return None;
    }
    if std::mem::take(&mut walker.sieging) {
        // Its siege is over: a fresh plan from where it stands.
        walker.retarget = true;
    }
    if dest.why != walker.planned_for {
        walker.planned_for = dest.why;
        walker.retarget = true;
        walker.plans = 0;
        walker.gave_up_on = None;
        walker.planner.reset_progress();
    }
    let chasing = dest.chasing();
    walker.holding =
        at_door || (chasing && dest.to.is_some_and(|t| t.distance(pos) <= kind.reach * 0.8));
    match dest.to {
        Some(to) if !walker.holding => {
            let hop = Hop {
                dest: to,
                why: dest.why,
                far,
                reach,
                watchdog,
            };
            plan_hop(walker, hop, pos, ground, tally);
        }
        _ => {
            walker.waypoints.clear();
            walker.planner.hold(ground.now, watchdog);
            walker.stuck = false;
        }
    }
    match dest.why {
        Why::Chase(player) if walker.stuck => Some(player),
        _ => None,
    }
}

/// What every zombie's plan reads on a tick: the walkability facts (every edit made before
/// this point in the tick, or after it in the last, patched in), this tick's edits, the rules.
pub(super) struct Ground<'a, W> {
    pub(super) world: &'a W,
    pub(super) edits: &'a [BlocksChanged],
    pub(super) rules: &'a ChaseRules,
    pub(super) now: u64,
}

/// The hop being walked: where to and why, whether far from every player (beyond
/// `lod.full_radius`), how far it goes ([`ChaseRules::hop_reach`]) and the watchdog's
/// countdown.
struct Hop {
    dest: DVec3,
    why: Why,
    far: bool,
    reach: f64,
    watchdog: u64,
}

/// Plans the next hop when something calls for it: a new reason to go, the watchdog or the
/// end of a back-off, a blocked way, or the last waypoint reached. A stroll or errand that is
/// done, or a walker boxed in, is reported instead (see [`Outcome`]); a target that several
/// plans in a row brought no closer is given up.
fn plan_hop(
    walker: &mut Walker,
    hop: Hop,
    pos: DVec3,
    ground: &Ground<'_, impl Voxels>,
    tally: &Tally,
) {
    let (world, rules, now) = (ground.world, ground.rules, ground.now);
    // A block put in the way (or taken from under it) is seen at once near players: the next
    // waypoint is looked at again when an edit this tick came within reach of where the body
    // would stand there. Far from players the body finds it by bumping into it
    // (`blocked_ticks`). Either way an untouched path costs no block read.
    let next_blocked = !hop.far
        && !ground.edits.is_empty()
        && walker.waypoints.front().is_some_and(|&w| {
            ground.edits.iter().any(|edit| edit.reaches(w, 2)) && !world.standable(w)
        });
    let event = if std::mem::take(&mut walker.retarget) {
        Some(HopEvent::Retarget)
    } else if let Some(due) = walker.planner.due(now) {
        Some(due)
    } else if next_blocked || walker.blocked_ticks >= 10 {
        Some(HopEvent::Blocked)
    } else if walker.waypoints.is_empty() {
        Some(HopEvent::Reached)
    } else {
        None
    };
    let Some(event) = event else {
        return;
    };
    let chasing = matches!(hop.why, Why::Chase(_));
    let strolled_enough = hop.why == Why::Stroll && walker.plans >= MAX_STROLL_PLANS;
    if event == HopEvent::Reached && !chasing && (hop.dest.distance(pos) < 1.5 || strolled_enough) {
        walker.stop(Outcome::Arrived);
        return;
    }
    if event == HopEvent::Watchdog {
        Tally::count(&tally.watchdog_fires, 1);
    }
    let Decision::Plan { jump } = walker
        .planner
        .request(event, now, pos, &rules.hop, hop.watchdog)
    else {
        return;
    };
    if !chasing && walker.planner.boxed_in(&rules.hop) {
        // Plan after plan has not moved it: it rests, and takes no errand either until the
        // rest is over, rather than plan every step it cannot take. Then it tries again. (A
        // stroll ends after `MAX_STROLL_PLANS` anyway.)
        walker.stop(Outcome::BoxedIn);
        return;
    }
    // A hop after a player ended: the nearest player is picked again before the next one.
    if event == HopEvent::Reached && chasing {
        walker.chase_hops = walker.chase_hops.wrapping_add(1);
    }
    let goal = hop_goal(pos, hop.dest, hop.reach);
    let start = BlockPos::from_pos(pos);
    let end = standable_near(world, goal);
    // A hop that ends where nobody stands (in a hill, a tree) cannot be reached: a stroll or
    // errand looks for the nearest block in the square the hop spans, not the whole budget.
    let limits = if chasing || world.standable(end) {
        rules.limits
    } else {
        rules.hop_square_limits
    };
    // A chase always searches, round whatever the player hides behind. A stroll or an errand
    // (a pack on the march) takes the straight way when the ground allows it: the same path
    // on open ground for a tenth of the block reads. Far from every player it walks (or
    // swims) on as far as the straight way goes, or turns aside (keeping to one side), and
    // when no way makes a step searches the square a hop of R spans only: nobody watches it
    // pick its way round a tree, and the next hop turns aside again.
    let path = if chasing {
        find_path(world, start, end, limits)
    } else if hop.far {
        match way_on(world, start, end, limits, walker.aside) {
            Some((way, side)) => {
                walker.aside = side;
                way
            }
            None => {
                walker.aside = Aside::Either;
                find_path(world, start, end, rules.hop_square_limits)
            }
        }
    } else {
        let line = straight_path(world, start, end, limits, Water::Shun);
        if line.complete {
            line
        } else {
            find_path(world, start, end, limits)
        }
    };
    Tally::count(&tally.plans, 1);
    Tally::count(&tally.expanded_nodes, path.expanded as u64);
    walker.stuck = chasing && !path.complete && walker.planner.stalled();
    walker.plans = walker.plans.saturating_add(1);
    // Every half hop a waypoint (and at every change of height): a far hop's few stay inline.
    walker.waypoints = waypoints(start, &path.nodes, hop.reach / 2.0);
    walker.goal = Some(goal);
    // The body faces the hop's goal, steady from hop to hop; a hop that leads well aside of
    // it (a far walker turning aside, a detour) faces where it leads, not sideways.
    let flat = |p: DVec3| DVec3::new(p.x - pos.x, 0.0, p.z - pos.z);
    let mut ahead = flat(goal);
    if let Some(last) = path.nodes.last() {
        let leads = flat(DVec3::new(last.x as f64 + 0.5, 0.0, last.z as f64 + 0.5));
        if leads.length() > 1.0 && leads.angle_between(ahead) > std::f64::consts::FRAC_PI_8 {
            ahead = leads;
        }
    }
    walker.facing = (ahead.length() > 1.0).then(|| yaw_of(ahead));
    walker.jump |= jump;
    walker.blocked_ticks = 0;
    let Why::Chase(target) = hop.why else {
        return;
    };
    if walker
        .planner
        .note_progress(hop.dest.distance(pos), &rules.hop)
    {
        Tally::count(&tally.give_ups, 1);
        walker.gave_up_on = Some(target);
        walker.waypoints.clear();
    }
}

impl Walker {
    /// Adds `ticks` to the ticks the walk has been blocked, or starts the count again.
    fn count_blocked(&mut self, blocked: bool, ticks: u64) {
        self.blocked_ticks = if blocked {
            self.blocked_ticks + ticks as u32
        } else {
            0
        };
    }

    /// Ends the errand or stroll with `outcome`: the hop is dropped and the errands module
    /// decides what comes next.
    fn stop(&mut self, outcome: Outcome) {
        self.outcome = Some(outcome);
        self.goal = None;
        self.waypoints.clear();
        self.planner.reset_progress();
    }
}

/// Walks the waypoints for `steps` ticks at `per_tick` blocks a tick (the ticks of one
/// activation); returns where the body ends, and the ticks it stood at the end of its hop.
/// `glides`: no client sees the body closely (see [`glide`]).
fn walk(
    walker: &mut Walker,
    body: &mut Body,
    world: &impl Voxels,
    pos: DVec3,
    per_tick: f64,
    steps: u64,
    glides: bool,
) -> (DVec3, u64) {
    let (pos, glided, left) = if glides {
        let (pos, glided, blocks_left) = glide(walker, body, world, pos, per_tick * steps as f64);
        let left = (blocks_left / per_tick).round() as u64;
        if left == 0 {
            walker.count_blocked(body.blocked, steps);
        }
        (pos, glided, left)
    } else {
        (pos, None, steps)
    };
    let (pos, heading, idle) = walk_steps(walker, body, world, pos, per_tick, left);
    walker.heading = heading.or(glided);
    (pos, idle)
}

/// A body on the ground that no client sees closely glides along its waypoints instead of
/// stepping: each waypoint is a block it could stand on when planned, and where the
/// activation ends between two it is placed at the height it left or the one it goes to,
/// whichever it fits and stands at, or else back on the last waypoint it reached (blocked:
/// the next plan starts from there). Its clients see it at most on its turns (every 8 ticks
/// or more; `lod.half_sync_ticks`, 16 by default), the straight line between where it was
/// sent, so the steps between cost block reads for nothing: a glide reads the blocks where
/// it ends, a walk those of every stride. A waypoint in water, or more than a block up or
/// down, ends the glide; the body swims, climbs or falls the rest.
/// Goes up to `blocks`; returns where it is, the way it went, and the blocks left to walk.
fn glide(
    walker: &mut Walker,
    body: &mut Body,
    world: &impl Voxels,
    mut pos: DVec3,
    blocks: f64,
) -> (DVec3, Option<DVec3>, f64) {
    if !steady(walker, body) {
        return (pos, None, blocks);
    }
    let (mut left, mut heading, mut reached) = (blocks, None, pos);
    while let Some(&w) = walker.waypoints.front() {
        let node = DVec3::new(w.x as f64 + 0.5, w.y as f64, w.z as f64 + 0.5);
        // Water, a climb or a drop of more than a block: the walk's physics take over.
        if (node.y - pos.y).abs() > 1.0 || world.liquid(w) {
            body.blocked = false;
            return (pos, heading, left);
        }
        let to = DVec2::new(node.x - pos.x, node.z - pos.z);
        if to != DVec2::ZERO {
            heading = Some(DVec3::new(to.x, 0.0, to.y));
        }
        if to.length() <= left {
            left -= to.length();
            (pos, reached) = (node, node);
            walker.waypoints.pop_front();
            continue;
        }
        let part = to.normalize() * left;
        let (x, z) = (snap(pos.x + part.x), snap(pos.z + part.y));
        let between = [pos.y, node.y]
            .into_iter()
            .map(|y| DVec3::new(x, y, z))
            .find(|&at| stands_free(world, at));
        body.blocked = between.is_none();
        return (between.unwrap_or(reached), heading, 0.0);
    }
    // Its last waypoint reached: the blocks left are the walk's, which rests.
    body.blocked = false;
    (pos, heading, left)
}

/// How near the middle of a waypoint's block a body counts as there. A besieger stands well
/// inside the block its step names (a body is 0.6 wide): 0.3 off the middle its shoulder is
/// under the block beside, where a ledge stops a pillar's jump.
fn arrival(walker: &Walker) -> f64 {
    if walker.sieging {
        0.1
    } else {
        0.3
    }
}

/// On the ground, still and not about to jump: its ticks can be taken in one go.
fn steady(walker: &Walker, body: &Body) -> bool {
    body.on_ground && body.vel_y == 0.0 && body.knockback == DVec3::ZERO && !walker.jump
}

/// The walk: where the body ends, the way it last walked, and the ticks it then stood with
/// nowhere to go.
fn walk_steps(
    walker: &mut Walker,
    body: &mut Body,
    world: &impl Voxels,
    mut pos: DVec3,
    per_tick: f64,
    steps: u64,
) -> (DVec3, Option<DVec3>, u64) {
    let mut heading = None;
    // Ticks on level footing merge into one stride of at most a block (a body 0.6 wide cannot
    // pass a whole block in less than 1.6): a slow tier walks as far for fewer block reads,
    // and clients never see its steps between the moves they are sent.
    let stride = ((1.0 / per_tick).floor() as u64).max(1);
    let mut left = steps;
    while left > 0 {
        let steady = steady(walker, body);
        let mut ticks = if steady { left.min(stride) } else { 1 };
        let mut wish = DVec2::ZERO;
        while let Some(&w) = walker.waypoints.front() {
            let to = DVec2::new(w.x as f64 + 0.5 - pos.x, w.z as f64 + 0.5 - pos.z);
            let rise = w.y as f64 - pos.y;
            if to.length() < arrival(walker) {
                if rise.abs() < 1.2 {
                    walker.waypoints.pop_front();
                    continue;
                }
                // Right below the waypoint: jump for it (above it: fall).
                walker.jump |= rise > 0.0;
            }
            // A jump is a tick's step, its arc tick by tick; a stride ends at the waypoint, and
            // the ticks left go on to the next one.
            if walker.jump {
                ticks = 1;
            }
            ticks = ticks.min(((to.length() / per_tick).ceil() as u64).max(1));
            wish = to.normalize_or_zero() * (per_tick * ticks as f64).min(to.length());
            if wish != DVec2::ZERO {
                heading = Some(DVec3::new(to.x, 0.0, to.y));
            }
            break;
        }
        if steady && wish == DVec2::ZERO && !walker.jump {
            // At rest with nowhere to go (fighting, idle, at work: most bodies near players),
            // a step would only read the blocks round the body to learn that it stays. An
            // edit beside a resting body wakes it (`move_zombies`).
            body.blocked = false;
            walker.blocked_ticks = 0;
            break;
        }
        let jump = std::mem::take(&mut walker.jump);
        let before = (ticks > 1).then(|| (body.clone(), pos));
        pos = body.step(world, pos, wish, jump);
        if let Some(before) = before.filter(|_| body.blocked || !body.on_ground) {
            // A stride that hits something, or steps off a ledge, is walked again as one
            // tick's step, which slides up to the wall or round the corner, or starts the fall
            // on the tick it would, as stepping tick by tick does.
            (*body, pos) = before;
            wish = wish.clamp_length_max(per_tick);
            ticks = 1;
            pos = body.step(world, pos, wish, jump);
        }
        walker.count_blocked(body.blocked, ticks);
        left -= ticks;
    }
    (pos, heading, left)
}

/// Snaps a point to the nearest standable block within a small neighbourhood.
fn standable_near(world: &impl Voxels, p: DVec3) -> BlockPos {
    let base = BlockPos::from_pos(p);
    for dy in [0, 1, -1, 2, -2, 3, -3] {
        for (dx, dz) in [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)] {
            let c = BlockPos::new(base.x + dx, base.y + dy, base.z + dz);
            if world.standable(c) {
                return c;
            }
        }
    }
    base
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Grid;
    use crate::zombie::siege::path::{How, Step};

    /// Walks (or glides) `ticks` ticks in activations of `steps` from the middle of (0, 1, 0)
    /// towards `waypoints`; returns where the body ends and how many ticks it was blocked.
    fn moved(
        world: &Grid,
        waypoints: &[BlockPos],
        steps: u64,
        ticks: u64,
        glides: bool,
    ) -> (DVec3, u32) {
        let mut walker = Walker {
            waypoints: waypoints.iter().copied().collect(),
            ..Walker::default()
        };
        let mut body = Body::default();
        let mut pos = DVec3::new(0.5, 1.0, 0.5);
        for _ in 0..ticks / steps {
            pos = walk(&mut walker, &mut body, world, pos, 0.115, steps, glides).0;
            if glides && body.on_ground {
                assert!(stands_free(world, pos), "glided into {pos}");
            }
        }
        (pos, walker.blocked_ticks)
    }

    fn walked(world: &Grid, waypoints: &[BlockPos], steps: u64, ticks: u64) -> (DVec3, u32) {
        moved(world, waypoints, steps, ticks, false)
    }

    /// Round a corner, up a step and on.
    fn way_round_a_corner() -> (Grid, [BlockPos; 4]) {
        let mut ground = Grid::new([-4, 0, -4], [12, 6, 12]).floor(0);
        ground.set([6, 1, 4], BlockState::STONE);
        let way = [
            BlockPos::new(2, 1, 0),
            BlockPos::new(4, 1, 2),
            BlockPos::new(6, 2, 4),
            BlockPos::new(9, 1, 4),
        ];
        (ground, way)
    }

    /// The default chase rules at 20 ticks a second, and the first default zombie type.
    fn defaults() -> (ChaseRules, ZombieType) {
        let config = crate::config::Config::default();
        let kind = config.zombies.types[0].clone();
        (ChaseRules::new(&config, 20.0), kind)
    }

    #[test]
    fn far_from_players_a_stroll_is_one_hop_and_a_chase_still_hops_r() {
        let (rules, kind) = defaults();
        let kind = &kind;
        let world = Grid::new([-16, 0, -16], [16, 4, 16]).floor(0);
        let ground = Ground {
            world: &world,
            edits: &[],
            rules: &rules,
            now: 100,
        };
        let from = DVec3::new(0.5, 1.0, 0.5);
        let stroll = Destination {
            to: Some(DVec3::new(7.5, 1.0, 0.5)),
            why: Why::Stroll,
        };
        let chase = Destination {
            to: Some(DVec3::new(12.5, 1.0, 0.5)),
            why: Why::Chase(Entity::from_raw(1)),
        };
        let hop = |dest: &Destination, far: bool| {
            let mut walker = Walker::default();
            let turn = Turn {
                dest,
                kind,
                pos: from,
                far,
                glides: false,
                at_door: false,
                siege: None,
                steps: 1,
            };
            plan(&mut walker, &turn, &ground, &Tally::default());
            let goal = walker.goal.expect("planned");
            let mut last = None;
            while let Some(&w) = walker.waypoints.front() {
                last = Some(w);
                walker.waypoints.pop_front();
            }
            (goal.distance(from), last.expect("a way"))
        };
        let r = rules.hop.radius;
        // Near a player every hop is R; far from all of them a stroll goes all the way.
        assert!((hop(&stroll, false).0 - r).abs() < 1e-9);
        let (far_stroll, last) = hop(&stroll, true);
        assert!((far_stroll - 7.0).abs() < 1e-9, "{far_stroll}");
        assert_eq!(last, BlockPos::new(7, 1, 0), "walks to the stroll's end");
        // A chase keeps the hop rule wherever it is.
        for far in [false, true] {
            assert!((hop(&chase, far).0 - r).abs() < 1e-9);
        }
        // The watchdog gives the longer hop its time: k * reach / v.
        assert!(
            rules.hop.watchdog_ticks(rules.hop_reach(true), kind.speed)
                > 2 * rules.hop.watchdog_ticks(rules.hop_reach(false), kind.speed)
        );
    }

    #[test]
    fn a_far_walker_keeps_its_pace_over_hop_ends() {
        let (rules, kind) = defaults();
        let kind = &kind;
        let world = Grid::new([-4, 0, -4], [160, 4, 4]).floor(0);
        let march = Destination {
            to: Some(DVec3::new(150.5, 1.0, 0.5)),
            why: Why::March,
        };
        let ticks = 640;
        let expected = kind.speed / 20.0 * ticks as f64;
        // The half and quarter tiers' activations, gliding and walking.
        for (steps, glides) in [(8, true), (16, true), (16, false)] {
            let (mut walker, mut body) = (Walker::default(), Body::default());
            let mut pos = DVec3::new(0.5, 1.0, 0.5);
            for turn in 0..ticks / steps {
                let ground = Ground {
                    world: &world,
                    edits: &[],
                    rules: &rules,
                    now: 1000 + turn * steps,
                };
                let turn = Turn {
                    dest: &march,
                    kind,
                    pos,
                    far: true,
                    glides,
                    at_door: false,
                    siege: None,
                    steps,
                };
                pos = act(&mut walker, &mut body, &turn, &ground, &Tally::default()).0;
            }
            let walked = pos.x - 0.5;
            assert!(
                walked > 0.97 * expected && walked < expected + 0.1,
                "{steps} ticks a turn: {walked:.2} blocks of {expected:.2}"
            );
        }
    }

    #[test]
    fn a_pillar_is_jumped_from_the_middle_of_its_block() {
        let (rules, kind) = defaults();
        // A ledge over the next block, two above the feet: a body off the middle of its own
        // block has a shoulder under it and cannot jump.
        let mut world = Grid::new([-4, 0, -4], [4, 6, 4]).floor(0);
        world.fill([-4, 3, -1], [4, 4, -1], BlockState::STONE);
        let base = BlockPos::new(0, 1, 0);
        let siege = Order::of(&Step {
            to: BlockPos::new(0, 2, 0),
            breaks: Default::default(),
            place: Some(base),
            how: How::Pillar,
        });
        let chase = Destination {
            to: Some(DVec3::new(0.5, 4.0, 3.5)),
            why: Why::Chase(Entity::from_raw(1)),
        };
        // From 0.39 and 0.25 off the middle, towards the ledge.
        for z in [0.11, 0.25] {
            let (mut walker, mut body) = (Walker::default(), Body::default());
            let mut pos = DVec3::new(0.5, 1.0, z);
            let mut highest = pos.y;
            for now in 100..120 {
                let ground = Ground {
                    world: &world,
                    edits: &[],
                    rules: &rules,
                    now,
                };
                let turn = Turn {
                    dest: &chase,
                    kind: &kind,
                    pos,
                    far: false,
                    glides: false,
                    at_door: false,
                    siege: Some(siege),
                    steps: 1,
                };
                pos = act(&mut walker, &mut body, &turn, &ground, &Tally::default()).0;
                highest = highest.max(pos.y);
            }
            // High enough for the block to go in under it (`work_sieges`).
            assert!(
                highest >= base.y as f64 + 1.0,
                "from z {z}: rose to {highest:.2}"
            );
        }
    }

    #[test]
    fn a_slow_tiers_strides_walk_as_far_as_its_ticks_would() {
        let (ground, way) = way_round_a_corner();
        // The half and quarter tiers' activations, 8 and 16 ticks each.
        for (steps, ticks) in [(8, 8), (8, 24), (8, 40), (16, 16), (16, 48), (16, 80)] {
            let (tick_by_tick, _) = walked(&ground, &way, 1, ticks);
            let (in_strides, _) = walked(&ground, &way, steps, ticks);
            // Tick by tick it turns for the next waypoint 0.3 short of one; a stride ends on it.
            assert!(
                tick_by_tick.distance(in_strides) < 0.2,
                "{ticks} ticks in activations of {steps}: {tick_by_tick} and {in_strides}"
            );
        }
        let end = DVec3::new(9.5, 1.0, 4.5);
        for steps in [1, 8, 16] {
            let (at, _) = walked(&ground, &way, steps, 128);
            assert!(at.distance(end) <= 0.3, "arrived in steps of {steps}: {at}");
        }
        // Into a wall: it walks up to the wall, and every tick against it counts.
        let mut walled = Grid::new([-4, 0, -4], [12, 6, 4]).floor(0);
        walled.fill([3, 1, -4], [3, 2, 4], BlockState::STONE);
        let into = [BlockPos::new(8, 1, 0)];
        let tick_by_tick = walked(&walled, &into, 1, 80).1;
        for steps in [8, 16] {
            let (stopped, blocked) = walked(&walled, &into, steps, 80);
            assert!((stopped.x - 2.7).abs() < 0.12, "at the wall: {stopped}");
            assert!(
                blocked.abs_diff(tick_by_tick) < 4 && blocked > 50,
                "blocked {blocked} ticks in activations of {steps}, {tick_by_tick} tick by tick"
            );
        }
    }

    #[test]
    fn a_glide_ends_where_a_walk_would_and_only_where_a_body_stands() {
        let (ground, way) = way_round_a_corner();
        for steps in [8, 16] {
            for ticks in (1..=8).map(|n| n * steps) {
                let (walked_to, _) = moved(&ground, &way, steps, ticks, false);
                let (glided_to, blocked) = moved(&ground, &way, steps, ticks, true);
                assert!(
                    walked_to.distance(glided_to) < 0.35,
                    "{ticks} ticks in activations of {steps}: walked to {walked_to}, glided to \
                     {glided_to}"
                );
                assert_eq!(blocked, 0);
            }
        }
        // A wall put across the way after the plan: the glide stays on this side, blocked.
        let (mut walled, way) = way_round_a_corner();
        walled.fill([3, 1, -4], [3, 2, 11], BlockState::STONE);
        let (at, blocked) = moved(&walled, &way, 16, 160, true);
        assert!(
            at.x <= 2.7 && stands_free(&walled, at),
            "through the wall: {at}"
        );
        assert!(blocked > 100, "blocked {blocked} ticks");
        // Water ahead: the body swims it, step by step.
        let (mut wet, way) = way_round_a_corner();
        wet.fill([3, 1, -4], [5, 1, 11], BlockState::WATER);
        let (swum, _) = moved(&wet, &way, 16, 160, true);
        let (walked, _) = moved(&wet, &way, 16, 160, false);
        assert!(
            swum.distance(walked) < 0.35,
            "swum to {swum}, walked to {walked}"
        );
        // A way on over the top of a pillar three blocks high (a ladder, once): no glide up it.
        let mut pillar = Grid::new([-4, 0, -4], [12, 8, 12]).floor(0);
        pillar.fill([3, 1, 0], [3, 3, 0], BlockState::STONE);
        let up = [BlockPos::new(2, 1, 0), BlockPos::new(3, 4, 0)];
        let (at, _) = moved(&pillar, &up, 16, 64, true);
        assert!(at.y < 2.0 && at.x < 2.8, "up the pillar: {at}");
    }
}
