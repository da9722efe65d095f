//! Chasing: whom a zombie chases. The nearest player it may hunt, picked again when a hop
//! ends (`takes_over`) and kept while in range; a player who strikes it; and a target the
//! planner could not close on, given up for a while. Where it then heads is the errands
//! module's and how it gets there the planner's; this module writes only [`Target`] and the
//! [`Pursuing`] mark.

use bevy_ecs::query::Has;
use rustc_hash::FxHashMap;
use valence::prelude::*;

use super::body;
use super::movement::Walker;
use super::rules::ChaseRules;
use super::{staggered, Arena, Dozing, Lure, Pursuing, Target, Zombie, ZombieStruck};
use crate::common::body::Dying;
use crate::common::body::{huntable, Dead};
use crate::grid::{flat, may_reach, SpatialGrid};
use crate::world::{LayerVoxels, Overworld, Voxels};

/// Whether no opaque block lies between two points (sampled every 0.25 blocks): zombies see
/// through glass, leaves and bars, not through stone.
pub fn line_of_sight(world: &impl Voxels, from: DVec3, to: DVec3) -> bool {
    let steps = (from.distance(to) / 0.25).ceil() as usize;
    // Several samples fall in one block: each block is read once, on its first.
    let mut last = None;
    (1..steps).all(|i| {
        let at = BlockPos::from_pos(from.lerp(to, i as f64 / steps as f64));
        if last == Some(at) {
            return true;
        }
        last = Some(at);
        world.block(at).is_some_and(|b| !b.is_opaque())
    })
}

/// The side of the cells players are filed in for target choice: the follow range (35 by
/// default) and the wake radius reach no farther than the cells round a zombie's own, nine in
/// all (a hunt's longer range reads more).
const PLAYER_CELL: f64 = 64.0;

/// Whether a player `candidate` blocks away becomes the target of a zombie chasing one
/// `current` blocks away (or nobody): it must be within `range` and, to take over, `margin`
/// closer than the current target.
pub fn takes_over(current: Option<f64>, candidate: f64, range: f64, margin: f64) -> bool {
    candidate <= range && current.is_none_or(|d| candidate < d - margin)
}

/// Picks targets: a target the planner could not close on is given up for `give_up_s`;
/// every `retarget_ticks` a zombie checks that its target is still in range and, if it has
/// none, looks for one; when a hop ends it looks for a nearer one, as the seed does.
/// Open-world zombies notice players they see within `follow_range`, dozing ones those within
/// `wake_radius` seen or not, hunt zombies the round's players within `hunt_range`.
pub fn choose_targets(
    mut zombies: Query<
        (
            Entity,
            &mut Target,
            &Walker,
            &Position,
            Has<Arena>,
            Has<Dozing>,
        ),
        (With<Zombie>, Without<Dying>),
    >,
    players: Query<
        (Entity, &Position, &GameMode, &UniqueId),
        (With<Client>, Without<Dead>, Without<Zombie>),
    >,
    layers: Query<&ChunkLayer, With<Overworld>>,
    mut filed: Local<Option<SpatialGrid<usize>>>,
    rules: Res<ChaseRules>,
    server: Res<Server>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let now = server.current_tick() as u64;
    let mut candidates: Vec<(Entity, DVec3, UniqueId)> = players
        .iter()
        .filter(|(_, _, mode, _)| huntable(mode))
        .map(|(e, p, _, id)| (e, p.0, *id))
        .collect();
    // Equal distances are broken by UUID, the same way on every run.
    candidates.sort_by_key(|(_, _, id)| id.0);
    // Filed by where they stand, so that a zombie measures the players round it, not all of
    // them; and by entity, for the one it chases.
    let filed = filed.get_or_insert_with(|| SpatialGrid::new(PLAYER_CELL));
    filed.clear();
    for (i, (_, at, _)) in candidates.iter().enumerate() {
        filed.insert(i, flat(*at));
    }
    let filed = &*filed;
    let by_entity: FxHashMap<Entity, usize> = candidates
        .iter()
        .enumerate()
        .map(|(i, (player, ..))| (*player, i))
        .collect();
    // Each zombie's choice reads the players and the blocks and writes only its own target.
    zombies
        .par_iter_mut()
        .for_each_mut(|(entity, mut target, walker, pos, arena, dozing)| {
            if target.player.is_some() && walker.gave_up_on() == target.player {
                let player = target.player.take();
                target.ignored = player.map(|p| (p, now + rules.give_up_ticks));
            }
            let hop_ended = walker.chase_hops() != target.hops_seen;
            // Read before written: a write marks the zombie changed, and most are not due.
            if !hop_ended && !staggered(entity, now, rules.retarget_ticks) {
                return;
            }
            let target = &mut *target;
            target.hops_seen = walker.chase_hops();
            if target.ignored.is_some_and(|(_, until)| now >= until) {
                target.ignored = None;
            }
            let keep_range = if arena {
                rules.hunt_range
            } else {
                rules.follow_range
            };
            let current = target.player.and_then(|player| {
                let (_, at, _) = candidates[*by_entity.get(&player)?];
                Some(at.distance(pos.0)).filter(|d| *d <= keep_range)
            });
            if current.is_some() && !hop_ended {
                return;
            }
            let (range, needs_sight) = match (arena, dozing) {
                (true, _) => (rules.hunt_range, false),
                (false, true) => (rules.wake_radius, false),
                (false, false) => (rules.follow_range, true),
            };
            let ignored = target.ignored.map(|(e, _)| e);
            // Those who may take over, nearest first (equal distances in UUID order): sight is
            // tested until one is seen, and that one is chased.
            let mut takers: Vec<(f64, usize)> = filed
                .filed_round(flat(pos.0), range)
                .map(|&(i, _)| (i, candidates[i]))
                .filter(|(_, (player, at, _))| {
                    Some(*player) != ignored
                        && Some(*player) != target.player
                        && may_reach(at.distance_squared(pos.0), range)
                })
                .map(|(i, (_, at, _))| (at.distance(pos.0), i))
                .filter(|&(d, _)| takes_over(current, d, range, rules.retarget_margin))
                .collect();
            takers.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let world = LayerVoxels::new(layer);
            let eye = pos.0 + DVec3::new(0.0, body::EYE_HEIGHT, 0.0);
            let best = takers
                .into_iter()
                .map(|(_, i)| candidates[i])
                .find(|&(_, at, _)| {
                    !needs_sight
                        || line_of_sight(
                            &world,
                            eye,
                            at + DVec3::new(0.0, crate::common::body::EYE_HEIGHT, 0.0),
                        )
                });
            match best {
                Some((player, ..)) => target.set(Some(player)),
                None if current.is_none() => target.set(None),
                None => {}
            }
        });
}

/// A struck zombie with nobody to chase turns on the striker, if it may hunt them.
pub(super) fn turn_on_strikers(
    mut struck: EventReader<ZombieStruck>,
    mut zombies: Query<&mut Target, (With<Zombie>, Without<Dying>)>,
    players: Query<&GameMode, (With<Client>, Without<Dead>)>,
) {
    for blow in struck.iter() {
        let Ok(mut target) = zombies.get_mut(blow.zombie) else {
            continue;
        };
        if target.player.is_none() && players.get(blow.by).is_ok_and(huntable) {
            target.set(Some(blow.by));
        }
    }
}

/// Marks the zombies that chase someone or go where they heard or saw something
/// ([`Pursuing`]), for modules that must not know whom or what.
pub fn mark_pursuers(
    mut commands: Commands,
    zombies: Query<(Entity, &Target, &Lure, Has<Pursuing>), With<Zombie>>,
) {
    for (entity, target, lure, marked) in &zombies {
        match (target.chasing() || lure.0.is_some(), marked) {
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

    /// A world that counts its block reads.
    struct Counted<'a>(&'a Grid, std::cell::Cell<usize>);

    impl Voxels for Counted<'_> {
        fn block(&self, pos: BlockPos) -> Option<BlockState> {
            self.1.set(self.1.get() + 1);
            self.0.block(pos)
        }
    }

    #[test]
    fn sight_reads_each_block_on_the_line_once() {
        let g = Grid::new([-40, 0, -40], [40, 10, 40]).floor(0);
        let world = Counted(&g, Default::default());
        // 30 blocks east and 10 north: 40 blocks crossed at most, 127 samples.
        let (a, b) = (DVec3::new(0.5, 2.5, 0.5), DVec3::new(30.5, 2.5, -9.5));
        assert!(line_of_sight(&world, a, b));
        assert!(world.1.get() <= 41, "{} reads", world.1.get());
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
