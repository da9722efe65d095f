//! Chasing: a zombie's pursuit state, the rules it follows, and who it chases: the nearest
//! player it may hunt, picked again when a hop ends (`takes_over`), kept while in range. How
//! it then moves is in `movement`; the hop rule and A* in `hop` and `path`.

use bevy_ecs::query::Has;
use rand::Rng;
use rand_pcg::Pcg32;
use valence::prelude::*;

use super::body;
use super::hop::{HopPlanner, HopRules};
use super::path::{Aside, PathLimits, Waypoints};
use super::{staggered, Arena, Dying, Pursuing, Zombie};
use crate::config::{Config, ConfigChanged, LodConfig};
use crate::player::{self, Dead};
use crate::world::{LayerVoxels, Overworld, Voxels};
use crate::TickSet;

/// Order of the zombie systems within [`TickSet::Zombies`]: tiers by distance, then targets,
/// then moves, then blows. Daylight runs before `Classify`; packs between `Classify` and
/// `Move`, so members walk the errand their pack gives them the same tick.
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
                    .chain()
                    .in_set(TickSet::Zombies)
                    // Plans read walkability facts: this tick's edits go in first.
                    .after(crate::world::patch_nav),
            )
            .add_systems(
                Update,
                (choose_targets, mark_pursuers)
                    .chain()
                    .in_set(ZombieSet::Target),
            )
            .add_systems(
                Update,
                super::movement::move_zombies.in_set(ZombieSet::Move),
            )
            .add_systems(Update, rebuild_rules.in_set(TickSet::Config));
    }
}

/// Chase settings in the units the systems use.
#[derive(Resource, Debug, Clone)]
pub struct ChaseRules {
    pub hop: HopRules,
    pub limits: PathLimits,
    /// A stroll's or errand's search when its hop ends where nobody stands: the nodes of the
    /// square the hop spans, which find the nearest block as well as the whole budget would.
    pub hop_square_limits: PathLimits,
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
        let hop_span = (2.0 * chase.hop_radius).ceil() as usize + 1;
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
            hop_square_limits: PathLimits {
                node_budget: (chase.node_budget as usize).min(hop_span * hop_span),
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
    pub(super) ignored: Option<(Entity, u64)>,
    /// The current hop's goal.
    pub goal: Option<DVec3>,
    /// The body's yaw while walking this hop: towards its goal as planned.
    pub(super) facing: Option<f32>,
    /// A hop towards the target ended: the nearest player is picked again.
    pub(super) hop_ended: bool,
    /// Asleep by day: still, head down, woken by a close player or a blow.
    pub dozing: bool,
    /// Where a wandering zombie strolls to.
    pub(super) stroll: Option<DVec3>,
    /// Paths planned for the current stroll; a stroll that needs too many is given up.
    pub(super) stroll_plans: u8,
    pub(super) rest_until: u64,
    /// Boxed in, the zombie rests until this tick, errands or not.
    pub(super) boxed_in_until: u64,
    pub(super) waypoints: Waypoints,
    pub(super) planner: HopPlanner,
    pub(super) retarget: bool,
    pub(super) jump: bool,
    pub(super) blocked_ticks: u32,
    /// The side a far walker turned to at what blocked its way, kept while it is blocked.
    pub(super) aside: Aside,
    /// The zombie's own strolls, reproducible from its seed.
    pub(super) rng: Pcg32,
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
            boxed_in_until: 0,
            waypoints: Waypoints::default(),
            planner: HopPlanner::default(),
            retarget: false,
            jump: false,
            blocked_ticks: 0,
            aside: Aside::Either,
            rng: crate::random::generator(seed),
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

    /// A uniform value in `0.0..1.0` from the zombie's own stream.
    pub(super) fn next_random(&mut self) -> f64 {
        self.rng.gen()
    }
}

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
        // Read before written: a write marks the zombie changed, and most are not due.
        if !chase.hop_ended && !staggered(entity, now, rules.retarget_ticks) {
            continue;
        }
        let hop_ended = std::mem::take(&mut chase.hop_ended);
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
        let eye = pos.0 + DVec3::new(0.0, body::EYE_HEIGHT, 0.0);
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
            if !needs_sight
                || line_of_sight(layer, eye, at + DVec3::new(0.0, player::EYE_HEIGHT, 0.0))
            {
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

#[cfg(test)]
mod tests {
    use super::*;

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
