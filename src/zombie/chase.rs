//! Chasing: choosing a target, planning hops to it with A*, walking the waypoints, and
//! wandering when there is nobody to chase. The decisions live in `hop` and `path`; this is the
//! glue that feeds them the world and applies their answers.

use std::collections::VecDeque;

use bevy_ecs::query::Has;
use valence::prelude::*;

use super::body::Body;
use super::hop::{hop_goal, Decision, HopEvent, HopPlanner, HopRules};
use super::lod::{Lod, Tier};
use super::path::{find_path, waypoints, PathLimits};
use super::{staggered, Arena, Dying, Errand, Pursuing, Zombie, ZombieKinds};
use crate::config::{Config, ConfigChanged, LodConfig};
use crate::player::Dead;
use crate::world::{LayerVoxels, Overworld, Voxels};

/// Order of the zombie systems within a tick.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ZombieSet {
    Classify,
    Target,
    Move,
    Attack,
}

pub struct ChasePlugin;

impl Plugin for ChasePlugin {
    fn build(&self, app: &mut App) {
        let tick_rate = app.world.resource::<Server>().tick_rate().get() as f64;
        let rules = ChaseRules::new(app.world.resource::<Config>(), tick_rate);
        app.insert_resource(rules)
            .insert_resource(ChaseStats::default())
            .configure_sets(
                Update,
                (
                    ZombieSet::Classify,
                    ZombieSet::Target,
                    ZombieSet::Move,
                    ZombieSet::Attack,
                )
                    .chain(),
            )
            .add_systems(
                Update,
                (choose_targets, mark_pursuers)
                    .chain()
                    .in_set(ZombieSet::Target),
            )
            .add_systems(Update, move_zombies.in_set(ZombieSet::Move))
            .add_systems(Update, rebuild_rules.before(ZombieSet::Classify));
    }
}

/// Chase settings in the units the systems use.
#[derive(Resource, Debug, Clone)]
pub struct ChaseRules {
    pub hop: HopRules,
    pub limits: PathLimits,
    pub follow_range: f64,
    /// How far hunt zombies look for the round's players.
    pub hunt_range: f64,
    pub retarget_ticks: u64,
    pub retarget_margin: f64,
    pub give_up_ticks: u64,
    pub wander_radius: f64,
    pub wake_radius: f64,
    /// Tier radii and how often each tier's moves are sent.
    pub lod: LodConfig,
}

impl ChaseRules {
    pub fn new(config: &Config, tick_rate: f64) -> Self {
        let chase = &config.chase;
        let ticks = |s: f64| (s * tick_rate).ceil() as u64;
        Self {
            hop: HopRules {
                radius: chase.hop_radius,
                stuck_distance: chase.stuck_distance,
                collapse_ticks: ticks(chase.replan_collapse_s).max(1),
                backoff_ticks: ticks(chase.backoff_s).max(1),
                watchdog_k: chase.watchdog_k,
                give_up_plans: chase.give_up_plans,
                tick_rate,
            },
            limits: PathLimits {
                node_budget: chase.node_budget as usize,
                max_drop: chase.max_drop,
            },
            follow_range: config.zombies.follow_range,
            hunt_range: config.hunt.target_range,
            retarget_margin: chase.retarget_margin,
            lod: config.lod.clone(),
            retarget_ticks: chase.retarget_ticks,
            give_up_ticks: ticks(chase.give_up_s),
            wander_radius: config.zombies.wander_radius,
            wake_radius: config.daylight.wake_radius,
        }
    }
}

/// After a `reload`: the chase rules from the new values.
fn rebuild_rules(
    mut changed: EventReader<ConfigChanged>,
    mut rules: ResMut<ChaseRules>,
    config: Res<Config>,
    server: Res<Server>,
) {
    if changed.iter().next().is_some() {
        *rules = ChaseRules::new(&config, server.tick_rate().get() as f64);
    }
}

/// Totals since start, for `zombies` and the benchmark.
#[derive(Resource, Debug, Clone, Default, PartialEq, Eq)]
pub struct ChaseStats {
    pub plans: u64,
    pub expanded_nodes: u64,
    pub watchdog_fires: u64,
    pub give_ups: u64,
}

/// A zombie's pursuit or stroll.
#[derive(Component, Debug, Clone)]
pub struct Chase {
    /// The player being chased.
    pub target: Option<Entity>,
    /// A player given up on, and the tick until which it is ignored.
    ignored: Option<(Entity, u64)>,
    /// The current hop's goal.
    pub goal: Option<DVec3>,
    /// The body's yaw while walking this hop: towards its goal as planned.
    facing: Option<f32>,
    /// A hop towards the target ended: the nearest player is picked again.
    hop_ended: bool,
    /// Asleep by day: still, head down, woken by a close player or a blow.
    pub dozing: bool,
    /// Where a wandering zombie strolls to.
    stroll: Option<DVec3>,
    /// Paths planned for the current stroll; a stroll that needs too many is given up.
    stroll_plans: u8,
    rest_until: u64,
    waypoints: VecDeque<BlockPos>,
    planner: HopPlanner,
    retarget: bool,
    jump: bool,
    blocked_ticks: u32,
    rng: u64,
}

impl Chase {
    pub fn new(seed: u64) -> Self {
        Self {
            target: None,
            ignored: None,
            goal: None,
            facing: None,
            hop_ended: false,
            dozing: false,
            stroll: None,
            stroll_plans: 0,
            rest_until: 0,
            waypoints: VecDeque::new(),
            planner: HopPlanner::default(),
            retarget: false,
            jump: false,
            blocked_ticks: 0,
            rng: seed | 1,
        }
    }

    /// Chases `target` from now on (or stops chasing).
    pub fn set_target(&mut self, target: Option<Entity>) {
        if self.target != target {
            if target.is_some() {
                self.dozing = false;
            }
            self.target = target;
            self.retarget = true;
            self.stroll = None;
            self.planner.reset_progress();
        }
    }

    /// Whether the zombie is after someone (without saying whom).
    pub fn chasing(&self) -> bool {
        self.target.is_some()
    }

    /// Whether the zombie is strolling rather than standing.
    pub fn wandering(&self) -> bool {
        self.target.is_none() && self.stroll.is_some()
    }

    /// xorshift64: a zombie's own reproducible random numbers.
    fn next_random(&mut self) -> f64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng >> 11) as f64 / (1u64 << 53) as f64
    }
}

const EYE_HEIGHT: f64 = 1.74;
const PLAYER_EYE: f64 = 1.62;

/// Whether no opaque block lies between two points (sampled every 0.25 blocks): zombies see
/// through glass, leaves and bars, not through stone.
pub fn line_of_sight(world: &impl Voxels, from: DVec3, to: DVec3) -> bool {
    let steps = (from.distance(to) / 0.25).ceil() as usize;
    (1..steps).all(|i| {
        let p = from.lerp(to, i as f64 / steps as f64);
        let at = BlockPos::from_pos(p);
        world.block(at).is_some_and(|b| !b.is_opaque())
    })
}

/// Players zombies may hunt: alive and in survival or adventure.
pub fn huntable(mode: &GameMode) -> bool {
    matches!(mode, GameMode::Survival | GameMode::Adventure)
}

/// Whether a player `candidate` blocks away becomes the target of a zombie chasing one
/// `current` blocks away (or nobody): it must be within `range` and, to take over, `margin`
/// closer than the current target.
pub fn takes_over(current: Option<f64>, candidate: f64, range: f64, margin: f64) -> bool {
    candidate <= range && current.is_none_or(|d| candidate < d - margin)
}

/// Picks targets: every `retarget_ticks` a zombie checks that its target is still in range
/// and, if it has none, looks for one; when a hop ends it looks for a nearer one, as the seed
/// does. Open-world zombies notice players they see within `follow_range`, dozing ones those
/// within `wake_radius` seen or not, hunt zombies the round's players within `hunt_range`.
fn choose_targets(
    mut zombies: Query<(Entity, &mut Chase, &Position, Has<Arena>), (With<Zombie>, Without<Dying>)>,
    players: Query<
        (Entity, &Position, &GameMode, &UniqueId),
        (With<Client>, Without<Dead>, Without<Zombie>),
    >,
    layers: Query<&ChunkLayer, With<Overworld>>,
    rules: Res<ChaseRules>,
    server: Res<Server>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let layer = &LayerVoxels::new(layer);
    let now = server.current_tick() as u64;
    let mut candidates: Vec<(Entity, DVec3, UniqueId)> = players
        .iter()
        .filter(|(_, _, mode, _)| huntable(mode))
        .map(|(e, p, _, id)| (e, p.0, *id))
        .collect();
    // Equal distances are broken by UUID, the same way on every run.
    candidates.sort_by_key(|(_, _, id)| id.0);
    for (entity, mut chase, pos, arena) in &mut zombies {
        let hop_ended = std::mem::take(&mut chase.hop_ended);
        if !hop_ended && !staggered(entity, now, rules.retarget_ticks) {
            continue;
        }
        if chase.ignored.is_some_and(|(_, until)| now >= until) {
            chase.ignored = None;
        }
        let keep_range = if arena {
            rules.hunt_range
        } else {
            rules.follow_range
        };
        let current = chase.target.and_then(|target| {
            candidates
                .iter()
                .find(|(e, ..)| *e == target)
                .map(|(_, p, _)| p.distance(pos.0))
                .filter(|d| *d <= keep_range)
        });
        if current.is_some() && !hop_ended {
            continue;
        }
        let (range, needs_sight) = match (arena, chase.dozing) {
            (true, _) => (rules.hunt_range, false),
            (false, true) => (rules.wake_radius, false),
            (false, false) => (rules.follow_range, true),
        };
        let eye = pos.0 + DVec3::new(0.0, EYE_HEIGHT, 0.0);
        let ignored = chase.ignored.map(|(e, _)| e);
        let mut best: Option<(f64, Entity)> = None;
        for &(player, at, _) in &candidates {
            let d = at.distance(pos.0);
            if Some(player) == ignored
                || Some(player) == chase.target
                || !takes_over(current, d, range, rules.retarget_margin)
                || best.is_some_and(|(b, _)| d >= b)
            {
                continue;
            }
            if !needs_sight || line_of_sight(layer, eye, at + DVec3::new(0.0, PLAYER_EYE, 0.0)) {
                best = Some((d, player));
            }
        }
        match best {
            Some((_, player)) => chase.set_target(Some(player)),
            None if current.is_none() => chase.set_target(None),
            None => {}
        }
    }
}

/// Marks the zombies that chase someone ([`Pursuing`]), for modules that must not know whom.
fn mark_pursuers(
    mut commands: Commands,
    zombies: Query<(Entity, &Chase, Has<Pursuing>), With<Zombie>>,
) {
    for (entity, chase, marked) in &zombies {
        match (chase.chasing(), marked) {
            (true, false) => {
                commands.entity(entity).insert(Pursuing);
            }
            (false, true) => {
                commands.entity(entity).remove::<Pursuing>();
            }
            _ => {}
        }
    }
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

/// Yaw in degrees facing along `d` (0 faces +z, -90 faces +x).
/// Hops a stroll may take: a stroll of up to `wander_radius` (8 blocks) takes three hops of
/// `hop_radius` on open ground; more means a detour round something in the way.
const MAX_STROLL_PLANS: u8 = 5;

/// Steps of 1/256 turn a zombie beyond `lod.full_radius` must turn before clients are told
/// (11.25°).
const FAR_TURN_STEPS: u8 = 8;

/// Whether the angle from `sent` to `now` is at least `steps` of the protocol's 256 to the
/// turn, either way round.
fn turned(sent: f32, now: f32, steps: u8) -> bool {
    let step = |degrees: f32| (degrees.rem_euclid(360.0) / 360.0 * 256.0).round() as i32 as u8;
    let d = step(now).wrapping_sub(step(sent));
    d.min(d.wrapping_neg()) >= steps
}

fn yaw_of(d: DVec3) -> f32 {
    (-d.x).atan2(d.z).to_degrees() as f32
}

fn move_zombies(
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
        ),
        (Without<Dying>, Without<Client>),
    >,
    players: Query<&Position, (With<Client>, Without<Zombie>)>,
    layers: Query<&ChunkLayer, With<Overworld>>,
    kinds: Res<ZombieKinds>,
    rules: Res<ChaseRules>,
    mut stats: ResMut<ChaseStats>,
    server: Res<Server>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let layer = &LayerVoxels::new(layer);
    let now = server.current_tick() as u64;
    for (zombie, mut chase, mut errand, mut body, mut position, mut look, mut head, lod) in
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

        // Close enough to strike: stand and face the target; the attack system does the rest.
        let holding = target.is_some_and(|t| t.distance(pos) <= kind.reach * 0.8);
        let destination = match (target, errand.0) {
            (Some(t), _) => Some(t),
            (None, Some(errand)) => Some(errand),
            (None, None) if chase.dozing => None,
            (None, None) => {
                if chase.stroll.is_none() && now >= chase.rest_until {
                    let angle = chase.next_random() * std::f64::consts::TAU;
                    let dist = rules.wander_radius * (0.3 + 0.7 * chase.next_random());
                    chase.stroll =
                        Some(pos + DVec3::new(angle.cos() * dist, 0.0, angle.sin() * dist));
                    chase.stroll_plans = 0;
                    chase.retarget = true;
                }
                chase.stroll
            }
        };

        if holding || destination.is_none() {
            chase.waypoints.clear();
            chase.planner.hold(now, watchdog);
        } else if let Some(dest) = destination {
            let next_blocked = chase
                .waypoints
                .front()
                .is_some_and(|w| !layer.standable(*w));
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
            let strolled_enough = chase.stroll.is_some() && chase.stroll_plans >= MAX_STROLL_PLANS;
            if event == Some(HopEvent::Reached)
                && target.is_none()
                && (dest.distance(pos) < 1.5 || strolled_enough)
            {
                // The stroll or errand is done (or the stroll's spot is out of reach): rest a
                // while before the next one, 2 to 10 s, 6 on average like vanilla's stroll.
                chase.stroll = None;
                errand.0 = None;
                chase.goal = None;
                chase.rest_until = now + 40 + (chase.next_random() * 160.0) as u64;
            } else if let Some(event) = event {
                chase.hop_ended |= event == HopEvent::Reached && target.is_some();
                if event == HopEvent::Watchdog {
                    stats.watchdog_fires += 1;
                }
                if let Decision::Plan { jump } =
                    chase.planner.request(event, now, pos, &rules.hop, watchdog)
                {
                    let goal = hop_goal(pos, dest, rules.hop.radius);
                    let start = BlockPos::from_pos(pos);
                    let path = find_path(layer, start, standable_near(layer, goal), rules.limits);
                    stats.plans += 1;
                    if chase.stroll.is_some() {
                        chase.stroll_plans = chase.stroll_plans.saturating_add(1);
                    }
                    stats.expanded_nodes += path.expanded as u64;
                    chase.waypoints = waypoints(start, &path.nodes, rules.hop.radius / 2.0).into();
                    chase.goal = Some(goal);
                    let ahead = DVec3::new(goal.x - pos.x, 0.0, goal.z - pos.z);
                    chase.facing = (ahead.length() > 1.0).then(|| yaw_of(ahead));
                    chase.jump |= jump;
                    chase.blocked_ticks = 0;
                    let gave_up = match chase.target {
                        Some(t) => chase
                            .planner
                            .note_progress(dest.distance(pos), &rules.hop)
                            .then_some(t),
                        None => None,
                    };
                    if let Some(t) = gave_up {
                        stats.give_ups += 1;
                        chase.ignored = Some((t, now + rules.give_up_ticks));
                        chase.set_target(None);
                        chase.waypoints.clear();
                    }
                }
            }
        }

        // Walk the waypoints.
        let per_tick = kind.speed / rules.hop.tick_rate;
        let mut heading = None;
        for _ in 0..steps {
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
                wish = to.normalize_or_zero() * per_tick.min(to.length());
                if wish != DVec2::ZERO {
                    heading = Some(DVec3::new(to.x, 0.0, to.y));
                }
                break;
            }
            pos = body.step(layer, pos, wish, std::mem::take(&mut chase.jump));
            chase.blocked_ticks = if body.blocked {
                chase.blocked_ticks + 1
            } else {
                0
            };
        }
        body.at = Some(pos);
        // Clients hear of moves every few ticks (sooner for a big jump), not every tick.
        let sync = lod.syncs(now, &rules.lod) || position.0.distance(pos) > 2.0;
        if sync && position.0 != pos {
            position.0 = pos;
        }

        // Body faces where it walks; the head follows a target in front, else droops 30°.
        // Walking, the body faces where its hop leads rather than each zig-zag waypoint: the
        // same look on screen, and one turn sent a hop instead of one at every step.
        let body_yaw = heading.map_or(look.yaw, |step| chase.facing.unwrap_or(yaw_of(step)));
        let (head_yaw, pitch) = match target {
            Some(t) => {
                let to =
                    t + DVec3::new(0.0, PLAYER_EYE, 0.0) - (pos + DVec3::new(0.0, EYE_HEIGHT, 0.0));
                let facing = DVec3::new(
                    -(body_yaw.to_radians() as f64).sin(),
                    0.0,
                    (body_yaw.to_radians() as f64).cos(),
                );
                if facing.dot(to) > 0.0 || holding {
                    let flat = (to.x * to.x + to.z * to.z).sqrt();
                    (yaw_of(to), (-to.y).atan2(flat).to_degrees() as f32)
                } else {
                    (body_yaw, 30.0)
                }
            }
            // Dozing zombies hang their heads low.
            None if chase.dozing => (body_yaw, 60.0),
            None => (body_yaw, 30.0),
        };
        let body_yaw = if holding { head_yaw } else { body_yaw };
        // Only turns a client can see are sent: a step of its 1/256 turn angles up close, a
        // few steps farther out where nobody can tell.
        let min_turn = if lod.tier == Tier::Full {
            1
        } else {
            FAR_TURN_STEPS
        };
        if sync && (turned(look.yaw, body_yaw, min_turn) || turned(look.pitch, pitch, min_turn)) {
            look.yaw = body_yaw;
            look.pitch = pitch;
        }
        if sync && turned(head.0, head_yaw, min_turn) {
            head.0 = head_yaw;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_count_in_protocol_steps_either_way_round() {
        assert!(!turned(10.0, 10.5, 1), "under half a step");
        assert!(turned(10.0, 11.5, 1));
        assert!(!turned(10.0, 20.0, FAR_TURN_STEPS), "7 steps");
        assert!(turned(10.0, 22.0, FAR_TURN_STEPS));
        assert!(
            turned(354.375, 5.625, 8) && !turned(354.375, 5.625, 9),
            "8 steps across north"
        );
        assert!(turned(-90.0, 90.0, 128), "half a turn");
        assert!(!turned(0.0, 360.0, 1) && !turned(-180.0, 180.0, 1));
    }
    use crate::world::Grid;

    #[test]
    fn sight_is_blocked_by_walls_only() {
        let mut g = Grid::new([-10, 0, -10], [10, 10, 10]).floor(0);
        let a = DVec3::new(0.5, 2.7, 0.5);
        let b = DVec3::new(8.5, 2.6, 0.5);
        assert!(line_of_sight(&g, a, b));
        g.fill([4, 1, -3], [4, 4, 3], BlockState::STONE);
        assert!(!line_of_sight(&g, a, b));
        g.fill([4, 1, -3], [4, 4, 3], BlockState::GLASS);
        assert!(line_of_sight(&g, a, b), "glass hides no one");
    }

    #[test]
    fn yaw_convention() {
        assert_eq!(yaw_of(DVec3::new(0.0, 0.0, 1.0)), 0.0);
        assert_eq!(yaw_of(DVec3::new(1.0, 0.0, 0.0)), -90.0);
    }

    #[test]
    fn a_new_target_must_be_in_range_and_clearly_nearer() {
        assert!(takes_over(None, 30.0, 35.0, 2.0), "anyone in range");
        assert!(!takes_over(None, 36.0, 35.0, 2.0));
        assert!(takes_over(Some(10.0), 7.9, 35.0, 2.0), "2 blocks nearer");
        assert!(!takes_over(Some(10.0), 8.5, 35.0, 2.0), "not by the margin");
        assert!(
            !takes_over(Some(10.0), 10.0, 35.0, 0.0),
            "a tie keeps the target"
        );
    }
}
