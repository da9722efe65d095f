//! Membership: each zombie's pack counters, and the decisions of loose zombies (join the
//! nearest pack with room, or form one) and of members (stray away), on their activations.

use std::sync::{Mutex, MutexGuard};

use bevy_ecs::query::Has;
use rustc_hash::{FxHashMap, FxHashSet};
use valence::math::DVec2;
use valence::prelude::*;

use crate::common::body::Dying;
use crate::config::{Config, ConfigChanged, PackConfig};
use crate::world::chunks::EntityTicking;
use crate::zombie::{Arena, March, Pursuing, Zombie};

use super::rules::{
    centroid, considers_packs, forms_pack, pack_to_join, Candidate, Counters, Step,
};
use super::{PackId, Packs};
use crate::grid::{flat, SpatialGrid};

/// A zombie's pack state: which pack, and its activation counters.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PackBrain {
    pub pack: Option<PackId>,
    counters: Counters,
}

impl PackBrain {
    /// A zombie (re)appearing in `pack`, or loose, with fresh counters.
    pub(super) fn of(pack: Option<PackId>) -> Self {
        Self {
            pack,
            counters: Counters::default(),
        }
    }

    fn join(&mut self, pack: PackId) {
        self.pack = Some(pack);
        self.counters.joined();
    }
}

pub(super) fn give_brains(
    mut commands: Commands,
    zombies: Query<Entity, (With<Zombie>, Without<PackBrain>, Without<Arena>)>,
) {
    for zombie in &zombies {
        commands.entity(zombie).insert(PackBrain::default());
    }
}

/// What membership reads and writes of each living zombie.
type Zombies<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static Position,
        Has<Pursuing>,
        &'static mut PackBrain,
        &'static mut March,
    ),
    (With<Zombie>, Without<Dying>),
>;

/// Spatial indexes, so one decision looks at a bounded neighbourhood: every zombie (for
/// counting neighbours), the loose ones free to form a pack, and materialised packs by
/// centroid.
pub(super) struct DecisionGrids {
    /// Only a decision counts neighbours: filled on a tick someone decides, at most once per
    /// `decision_divisor` ticks (a zombie moves a fraction of a block a tick), and not at
    /// all while every zombie is in a pack.
    everyone: SpatialGrid<Entity>,
    everyone_at: Option<u64>,
    /// These two are filled only on a tick someone decides.
    loose: SpatialGrid<Entity>,
    packs: SpatialGrid<PackId>,
    /// The materialised packs' centroids, copied from their index into a hash map: every
    /// member looks its pack up here each tick.
    centroids: FxHashMap<PackId, DVec2>,
    /// What one decision found near the zombie.
    nearby: Vec<(Entity, DVec2)>,
    near_packs: Vec<(PackId, DVec2)>,
}

/// The zombies of one walk that leave their pack, and those whose turn it is to decide.
#[derive(Default)]
struct Turns {
    leavers: Vec<(Entity, PackId)>,
    deciders: Vec<(Entity, DVec2)>,
}

/// What the deciders chose: packs to join, and groups to form packs.
#[derive(Default)]
struct Choices {
    joins: Vec<(Entity, PackId)>,
    forming: Vec<Vec<Entity>>,
}

/// The walk's gatherings (a panic elsewhere in the walk leaves them as they were).
fn lock(turns: &Mutex<Turns>) -> MutexGuard<'_, Turns> {
    turns
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Each zombie in an entity-ticking chunk is activated once a tick: a member that strays past
/// the break radius for `stray_activations` in a row leaves; a loose one considers packs once
/// per `decision_divisor` activations, if it has `min_neighbours` within the cohesion radius,
/// and joins the nearest pack with room or forms one with the loose zombies around it.
pub(super) fn member_decisions(
    mut zombies: Zombies,
    mut packs: ResMut<Packs>,
    ticking: Res<EntityTicking>,
    mut reloads: EventReader<ConfigChanged>,
    mut grids: Local<Option<DecisionGrids>>,
    config: Res<Config>,
    server: Res<Server>,
) {
    let rules = &config.pack;
    let now = server.current_tick() as u64;
    // The grids' cells are as wide as the cohesion radius, which a reload may change.
    if reloads.iter().any(|c| c.touches("pack.cohesion_radius")) {
        *grids = None;
    }
    let grids = grids.get_or_insert_with(|| DecisionGrids::new(rules.cohesion_radius));
    grids.centroids.clear();
    grids.centroids.extend(packs.materialised_centroids());
    let Turns {
        leavers,
        mut deciders,
    } = activate(&mut zombies, &grids.centroids, &packs, &ticking, rules);
    for (entity, id) in leavers {
        if let Some(pack) = packs.get_mut(id) {
            pack.members.retain(|m| *m != entity);
        }
    }
    if deciders.is_empty() {
        return;
    }
    // In entity order: the cores gathered them in any order, and who decides first claims
    // the loose zombies round it.
    deciders.sort_unstable_by_key(|(entity, _)| *entity);
    grids.fill(&zombies, &packs, now, rules);
    let Choices { joins, forming } = grids.decide(deciders, &packs, rules);
    admit(joins, &mut packs, &mut zombies, rules);
    form_packs(forming, &mut packs, &mut zombies, config.server.seed, rules);
}

/// One walk over every zombie runs the counters, on every core: each zombie's counters are
/// its own. The few that leave their pack or whose turn it is to decide are gathered.
fn activate(
    zombies: &mut Zombies,
    centroids: &FxHashMap<PackId, DVec2>,
    packs: &Packs,
    ticking: &EntityTicking,
    rules: &PackConfig,
) -> Turns {
    let turns = Mutex::new(Turns::default());
    zombies
        .par_iter_mut()
        .for_each_mut(|(entity, pos, pursuing, mut brain, mut march)| {
            // A zombie acts only in entity-ticking chunks; elsewhere it is frozen.
            if !ticking.contains_block(pos.0) {
                return;
            }
            let at = flat(pos.0);
            let from_centroid = match brain.pack {
                Some(id) => match centroids.get(&id).copied().or_else(|| {
                    // Not materialised: the pack is gone, or a ghost (which has no members).
                    packs.get(id).map(|p| p.centroid)
                }) {
                    Some(centroid) => Some(at.distance(centroid)),
                    None => {
                        brain.pack = None;
                        return;
                    }
                },
                None => None,
            };
            // A chasing zombie is out of formation, not out of its pack, and decides nothing.
            if pursuing {
                return;
            }
            match brain.counters.activate(from_centroid, rules) {
                Step::Wait => {}
                Step::Leave => {
                    if let Some(id) = brain.pack.take() {
                        lock(&turns).leavers.push((entity, id));
                    }
                    march.0 = None;
                }
                Step::Decide => lock(&turns).deciders.push((entity, at)),
            }
        });
    turns
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl DecisionGrids {
    fn new(cohesion_radius: f64) -> Self {
        Self {
            everyone: SpatialGrid::new(cohesion_radius),
            everyone_at: None,
            loose: SpatialGrid::new(cohesion_radius),
            packs: SpatialGrid::new(cohesion_radius),
            centroids: FxHashMap::default(),
            nearby: Vec::new(),
            near_packs: Vec::new(),
        }
    }

    /// Fills the grids for this tick's decisions: the loose zombies and the materialised
    /// packs now, every zombie if it is `decision_divisor` ticks since it last was.
    fn fill(&mut self, zombies: &Zombies, packs: &Packs, now: u64, rules: &PackConfig) {
        self.loose.clear();
        for (entity, pos, pursuing, brain, _) in zombies {
            if brain.pack.is_none() && !pursuing {
                self.loose.insert(entity, flat(pos.0));
            }
        }
        let divisor = rules.decision_divisor as u64;
        if self.everyone_at.is_none_or(|at| now >= at + divisor) {
            self.everyone.clear();
            for (entity, pos, ..) in zombies {
                self.everyone.insert(entity, flat(pos.0));
            }
            self.everyone_at = Some(now);
        }
        self.packs.clear();
        for (id, centroid) in packs.materialised_centroids() {
            self.packs.insert(id, centroid);
        }
    }

    /// The deciders' choices, in turn: one with neighbours enough joins the nearest pack with
    /// room, or else forms one with the loose zombies round it that no one before claimed.
    fn decide(
        &mut self,
        deciders: Vec<(Entity, DVec2)>,
        packs: &Packs,
        rules: &PackConfig,
    ) -> Choices {
        let scan = rules.scan_cap as usize;
        let mut choices = Choices::default();
        let mut claimed = FxHashSet::default();
        for (entity, at) in deciders {
            if claimed.contains(&entity) {
                continue;
            }
            let nearby = &mut self.nearby;
            self.everyone.near(at, rules.cohesion_radius, scan, nearby);
            let neighbours = nearby.iter().filter(|(e, _)| *e != entity).count();
            if !considers_packs(neighbours, rules) {
                continue;
            }
            self.packs
                .near(at, rules.cohesion_radius, scan, &mut self.near_packs);
            let candidates: Vec<Candidate> = self
                .near_packs
                .iter()
                .filter_map(|&(id, centroid)| {
                    let size = packs.get(id)?.members.len();
                    Some(Candidate { id, centroid, size })
                })
                .collect();
            if let Some(id) = pack_to_join(at, &candidates, rules) {
                choices.joins.push((entity, id));
                claimed.insert(entity);
                continue;
            }
            self.loose.near(at, rules.cohesion_radius, scan, nearby);
            let loose: Vec<Entity> = nearby
                .iter()
                .map(|(e, _)| *e)
                .filter(|e| *e != entity && !claimed.contains(e))
                .collect();
            if forms_pack(loose.len(), rules) {
                let mut group = vec![entity];
                group.extend(loose.into_iter().take(rules.max_size as usize - 1));
                claimed.extend(group.iter().copied());
                choices.forming.push(group);
            }
        }
        choices
    }
}

/// Each pack takes in the zombies that chose it while it has room.
fn admit(
    joins: Vec<(Entity, PackId)>,
    packs: &mut Packs,
    zombies: &mut Zombies,
    rules: &PackConfig,
) {
    for (entity, id) in joins {
        let Some(pack) = packs.get_mut(id) else {
            continue;
        };
        if pack.members.len() < rules.max_size as usize {
            pack.members.push(entity);
            if let Ok((.., mut brain, _)) = zombies.get_mut(entity) {
                brain.join(id);
            }
        }
    }
}

/// Each group forms a new pack at its centroid.
fn form_packs(
    forming: Vec<Vec<Entity>>,
    packs: &mut Packs,
    zombies: &mut Zombies,
    world_seed: i64,
    rules: &PackConfig,
) {
    for group in forming {
        let points: Vec<(DVec2, f64)> = group
            .iter()
            .filter_map(|e| zombies.get(*e).ok().map(|(_, p, ..)| (flat(p.0), p.0.y)))
            .collect();
        let at = centroid(points.iter().map(|(p, _)| *p));
        let y = points.first().map_or(64.0, |(_, y)| *y);
        let id = packs.create(at, y, world_seed, rules);
        packs.stats.formed += 1;
        for entity in group {
            if let Ok((.., mut brain, _)) = zombies.get_mut(entity) {
                brain.join(id);
                if let Some(pack) = packs.get_mut(id) {
                    pack.members.push(entity);
                }
            }
        }
    }
}
