//! Moving: each tick a zombie picks where it heads (`destination`), plans its next hop when
//! something calls for it (`plan_hop`, the hop rule and the watchdog of `hop`), walks the
//! waypoints (`walk`), and shows clients its moves and posture every few ticks.

use std::f64::consts::TAU;

use bevy_ecs::query::Has;
use valence::prelude::*;

use super::body::Body;
use super::chase::{Chase, ChaseRules, ChaseStats};
use super::doors::BreakingDoor;
use super::hop::{hop_goal, Decision, HopEvent};
use super::lod::{Lod, Tier};
use super::look::{posture, turns, yaw_of};
use super::path::{find_path, straight_path, way_on, waypoints, Aside, Water};
use super::{Dying, Errand, Zombie, ZombieKinds};
use crate::world::{BlocksChanged, Nav, NavVoxels, Overworld, Voxels};

/// Hops a stroll may take: a stroll of up to `wander_radius` (8 blocks) takes three hops of
/// `hop_radius` on open ground; more means a detour round something in the way.
const MAX_STROLL_PLANS: u8 = 5;

pub(super) fn move_zombies(
    mut zombies: Query<
        (
            &Zombie,
            &mut Chase,
            &mut Errand,
            &mut Body,
            &mut Position,
            &mut Look,
            &mut HeadYaw,
            &Lod,
            Has<BreakingDoor>,
        ),
        (Without<Dying>, Without<Client>),
    >,
    players: Query<&Position, (With<Client>, Without<Zombie>)>,
    layers: Query<&ChunkLayer, With<Overworld>>,
    mut edits: EventReader<BlocksChanged>,
    nav: Res<Nav>,
    kinds: Res<ZombieKinds>,
    rules: Res<ChaseRules>,
    mut stats: ResMut<ChaseStats>,
    server: Res<Server>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    // Plans and bodies read the walkability facts, current here: every edit made before this
    // point in the tick, or after it in the last, is patched in.
    let world = &NavVoxels::new(&nav, layer);
    let edits: Vec<BlocksChanged> = edits.iter().copied().collect();
    let now = server.current_tick() as u64;
    for (zombie, mut chase, mut errand, mut body, mut position, mut look, mut head, lod, at_door) in
        &mut zombies
    {
        let steps = lod.steps(now);
        if steps == 0 {
            continue;
        }
        let kind = kinds.get(zombie.kind);
        let watchdog = rules.hop.watchdog_ticks(kind.speed);
        let chase = &mut *chase;
        let mut pos = body.at.unwrap_or(position.0);
        let target = chase.target.and_then(|t| players.get(t).ok()).map(|p| p.0);

        // Close enough to strike, or hammering at a door: stand; the attack and door systems
        // do the rest (and a zombie at a door does not give its target up).
        let holding = at_door || target.is_some_and(|t| t.distance(pos) <= kind.reach * 0.8);
        match destination(chase, errand.0, target, pos, now, &rules) {
            Some(dest) if !holding => {
                let hop = Hop {
                    dest,
                    chasing: target.is_some(),
                    far: lod.tier >= Tier::Half,
                    watchdog,
                    edits: &edits,
                };
                plan_hop(chase, &mut errand, hop, pos, now, world, &rules, &mut stats);
            }
            _ => {
                chase.waypoints.clear();
                chase.planner.hold(now, watchdog);
            }
        }

        let per_tick = kind.speed / rules.hop.tick_rate;
        let heading;
        (pos, heading) = walk(chase, &mut body, world, pos, per_tick, steps);
        body.at = Some(pos);
        // Clients hear of moves every few ticks (sooner for a big jump), not every tick.
        let sync = lod.syncs(now, &rules.lod) || position.0.distance(pos) > 2.0;
        if sync && position.0 != pos {
            position.0 = pos;
        }

        // Walking, the body faces where its hop leads rather than each zig-zag waypoint: the
        // same look on screen, and one turn sent a hop instead of one at every step.
        let body_yaw = heading.map_or(look.yaw, |step| chase.facing.unwrap_or(yaw_of(step)));
        if sync {
            let posture = posture(body_yaw, pos, target, chase.dozing, holding);
            let (turn, head_turn) = turns(posture, lod.tier, *look, head.0);
            if let Some(turn) = turn {
                *look = turn;
            }
            if let Some(yaw) = head_turn {
                head.0 = yaw;
            }
        }
    }
}

/// Where the zombie heads: its target, else (unless resting boxed in) its errand, else (awake)
/// a stroll it sets out on when its rest is over.
fn destination(
    chase: &mut Chase,
    errand: Option<DVec3>,
    target: Option<DVec3>,
    pos: DVec3,
    now: u64,
    rules: &ChaseRules,
) -> Option<DVec3> {
    match (target, errand) {
        (Some(t), _) => Some(t),
        (None, _) if now < chase.boxed_in_until => None,
        (None, Some(errand)) => Some(errand),
        (None, None) if chase.dozing => None,
        (None, None) => {
            if chase.stroll.is_none() && now >= chase.rest_until {
                let angle = chase.next_random() * TAU;
                let dist = rules.wander_radius * (0.3 + 0.7 * chase.next_random());
                chase.stroll = Some(pos + DVec3::new(angle.cos() * dist, 0.0, angle.sin() * dist));
                chase.stroll_plans = 0;
                chase.retarget = true;
            }
            chase.stroll
        }
    }
}

/// The hop being walked: where to, whether after a player, whether far from every player
/// (beyond `lod.full_radius`), the watchdog's countdown, and the blocks changed this tick.
struct Hop<'a> {
    dest: DVec3,
    chasing: bool,
    far: bool,
    watchdog: u64,
    edits: &'a [BlocksChanged],
}

/// Plans the next hop when something calls for it: a new destination, the watchdog or the
/// end of a back-off, a blocked way, or the last waypoint reached. A stroll or errand that is
/// done ends in a rest instead; a target that several plans in a row brought no closer is
/// given up for a while.
fn plan_hop(
    chase: &mut Chase,
    errand: &mut Errand,
    hop: Hop<'_>,
    pos: DVec3,
    now: u64,
    world: &impl Voxels,
    rules: &ChaseRules,
    stats: &mut ChaseStats,
) {
    // A block put in the way (or taken from under it) is seen at once near players: the next
    // waypoint is looked at again when an edit this tick came within reach of where the body
    // would stand there. Far from players the body finds it by bumping into it
    // (`blocked_ticks`). Either way an untouched path costs no block read.
    let next_blocked = !hop.far
        && !hop.edits.is_empty()
        && chase.waypoints.front().is_some_and(|&w| {
            hop.edits.iter().any(|edit| edit.reaches(w, 2)) && !world.standable(w)
        });
    let event = if std::mem::take(&mut chase.retarget) {
        Some(HopEvent::Retarget)
    } else if let Some(due) = chase.planner.due(now) {
        Some(due)
    } else if next_blocked || chase.blocked_ticks >= 10 {
        Some(HopEvent::Blocked)
    } else if chase.waypoints.is_empty() {
        Some(HopEvent::Reached)
    } else {
        None
    };
    let Some(event) = event else {
        return;
    };
    let strolled_enough = chase.stroll.is_some() && chase.stroll_plans >= MAX_STROLL_PLANS;
    if event == HopEvent::Reached
        && !hop.chasing
        && (hop.dest.distance(pos) < 1.5 || strolled_enough)
    {
        // The stroll or errand is done (or the stroll's spot is out of reach).
        rest(chase, errand, now);
        return;
    }
    if event == HopEvent::Watchdog {
        stats.watchdog_fires += 1;
    }
    let Decision::Plan { jump } = chase
        .planner
        .request(event, now, pos, &rules.hop, hop.watchdog)
    else {
        return;
    };
    if !hop.chasing && chase.planner.boxed_in(&rules.hop) {
        // Plan after plan has not moved it (a pit, ledges too high all round): it rests, and
        // takes no errand either until the rest is over, rather than plan every step it
        // cannot take. Then it tries again. (A stroll ends after `MAX_STROLL_PLANS` anyway.)
        rest(chase, errand, now);
        chase.boxed_in_until = chase.rest_until;
        return;
    }
    // A hop after a player ended: the nearest player is picked again before the next one.
    chase.hop_ended |= event == HopEvent::Reached && hop.chasing;
    let goal = hop_goal(pos, hop.dest, rules.hop.radius);
    let start = BlockPos::from_pos(pos);
    let end = standable_near(world, goal);
    // A hop that ends where nobody stands (in a hill, a tree) cannot be reached: a stroll or
    // errand looks for the nearest block in the square the hop spans, not the whole budget.
    let limits = if hop.chasing || world.standable(end) {
        rules.limits
    } else {
        rules.hop_square_limits
    };
    // A chase always searches, round whatever the player hides behind. A stroll or an errand
    // (a pack on the march) takes the straight way when the ground allows it: the same path
    // on open ground for a tenth of the block reads. Far from every player it walks (or
    // swims) on as far as the straight way goes, or turns aside (keeping to one side), and
    // when no way makes a step searches the square its hop spans only: nobody watches it
    // pick its way round a tree, and the next hop turns aside again.
    let path = if hop.chasing {
        find_path(world, start, end, limits)
    } else if hop.far {
        match way_on(world, start, end, limits, chase.aside) {
            Some((way, side)) => {
                chase.aside = side;
                way
            }
            None => {
                chase.aside = Aside::Either;
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
    stats.plans += 1;
    stats.expanded_nodes += path.expanded as u64;
    if chase.stroll.is_some() {
        chase.stroll_plans = chase.stroll_plans.saturating_add(1);
    }
    chase.waypoints = waypoints(start, &path.nodes, rules.hop.radius / 2.0);
    chase.goal = Some(goal);
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
    chase.facing = (ahead.length() > 1.0).then(|| yaw_of(ahead));
    chase.jump |= jump;
    chase.blocked_ticks = 0;
    let Some(target) = chase.target.filter(|_| hop.chasing) else {
        return;
    };
    if chase
        .planner
        .note_progress(hop.dest.distance(pos), &rules.hop)
    {
        stats.give_ups += 1;
        chase.ignored = Some((target, now + rules.give_up_ticks));
        chase.set_target(None);
        chase.waypoints.clear();
    }
}

/// Ends a stroll or errand with a rest before the next, 2 to 10 s, 6 on average like vanilla's
/// stroll.
fn rest(chase: &mut Chase, errand: &mut Errand, now: u64) {
    chase.stroll = None;
    errand.0 = None;
    chase.goal = None;
    chase.waypoints.clear();
    chase.planner.reset_progress();
    chase.rest_until = now + 40 + (chase.next_random() * 160.0) as u64;
}

/// Walks the waypoints for `steps` ticks at `per_tick` blocks a tick; returns where the body
/// ends and the way it last walked.
fn walk(
    chase: &mut Chase,
    body: &mut Body,
    world: &impl Voxels,
    mut pos: DVec3,
    per_tick: f64,
    steps: u64,
) -> (DVec3, Option<DVec3>) {
    let mut heading = None;
    // Ticks on level footing merge into one stride of at most a block (a body 0.6 wide cannot
    // pass a whole block in less than 1.6): a slow tier walks as far for fewer block reads,
    // and clients never see its steps between the moves they are sent.
    let stride = ((1.0 / per_tick).floor() as u64).max(1);
    let mut left = steps;
    while left > 0 {
        let steady =
            body.on_ground && body.vel_y == 0.0 && body.knockback == DVec3::ZERO && !chase.jump;
        let mut ticks = if steady { left.min(stride) } else { 1 };
        let mut wish = DVec2::ZERO;
        while let Some(&w) = chase.waypoints.front() {
            let to = DVec2::new(w.x as f64 + 0.5 - pos.x, w.z as f64 + 0.5 - pos.z);
            let rise = w.y as f64 - pos.y;
            if to.length() < 0.3 {
                if rise.abs() < 1.2 {
                    chase.waypoints.pop_front();
                    continue;
                }
                // Right below the waypoint: jump for it (above it: fall).
                chase.jump |= rise > 0.0;
            }
            // A jump is a tick's step, its arc tick by tick; a stride ends at the waypoint, and
            // the ticks left go on to the next one.
            if chase.jump {
                ticks = 1;
            }
            ticks = ticks.min(((to.length() / per_tick).ceil() as u64).max(1));
            wish = to.normalize_or_zero() * (per_tick * ticks as f64).min(to.length());
            if wish != DVec2::ZERO {
                heading = Some(DVec3::new(to.x, 0.0, to.y));
            }
            break;
        }
        let jump = std::mem::take(&mut chase.jump);
        let before = (ticks > 1).then(|| (body.clone(), pos));
        pos = body.step(world, pos, wish, jump);
        if let Some(before) = before.filter(|_| body.blocked) {
            // A stride that hits something is walked again as one tick's step, which slides
            // up to the wall or round the corner as stepping tick by tick does.
            (*body, pos) = before;
            wish = wish.clamp_length_max(per_tick);
            ticks = 1;
            pos = body.step(world, pos, wish, jump);
        }
        chase.blocked_ticks = if body.blocked {
            chase.blocked_ticks + ticks as u32
        } else {
            0
        };
        left -= ticks;
    }
    (pos, heading)
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

    /// Walks `ticks` ticks in activations of `steps` from the middle of (0, 1, 0) towards
    /// `waypoints`; returns where the body ends and how many ticks it was blocked.
    fn walked(world: &Grid, waypoints: &[BlockPos], steps: u64, ticks: u64) -> (DVec3, u32) {
        let mut chase = Chase::new(1);
        chase.waypoints = waypoints.iter().copied().collect();
        let mut body = Body::default();
        let mut pos = DVec3::new(0.5, 1.0, 0.5);
        for _ in 0..ticks / steps {
            pos = walk(&mut chase, &mut body, world, pos, 0.115, steps).0;
        }
        (pos, chase.blocked_ticks)
    }

    #[test]
    fn a_slow_tiers_strides_walk_as_far_as_its_ticks_would() {
        let mut ground = Grid::new([-4, 0, -4], [12, 6, 12]).floor(0);
        ground.set([6, 1, 4], BlockState::STONE);
        // Round a corner, up a step and on.
        let way = [
            BlockPos::new(2, 1, 0),
            BlockPos::new(4, 1, 2),
            BlockPos::new(6, 2, 4),
            BlockPos::new(9, 1, 4),
        ];
        for ticks in [8, 20, 40] {
            let (tick_by_tick, _) = walked(&ground, &way, 1, ticks);
            let (in_strides, _) = walked(&ground, &way, 4, ticks);
            // Tick by tick it turns for the next waypoint 0.3 short of one; a stride ends on it.
            assert!(
                tick_by_tick.distance(in_strides) < 0.2,
                "{ticks} ticks: {tick_by_tick} and {in_strides}"
            );
        }
        let end = DVec3::new(9.5, 1.0, 4.5);
        for steps in [1, 4] {
            let (at, _) = walked(&ground, &way, steps, 100);
            assert!(at.distance(end) <= 0.3, "arrived in steps of {steps}: {at}");
        }
        // Into a wall: it walks up to the wall, and every tick against it counts.
        let mut walled = Grid::new([-4, 0, -4], [12, 6, 4]).floor(0);
        walled.fill([3, 1, -4], [3, 2, 4], BlockState::STONE);
        let into = [BlockPos::new(8, 1, 0)];
        let (stopped, blocked) = walked(&walled, &into, 4, 80);
        assert!((stopped.x - 2.7).abs() < 0.12, "at the wall: {stopped}");
        let tick_by_tick = walked(&walled, &into, 1, 80).1;
        assert!(
            blocked.abs_diff(tick_by_tick) < 4 && blocked > 50,
            "blocked {blocked} ticks in strides, {tick_by_tick} tick by tick"
        );
    }
}
