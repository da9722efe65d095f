//! The sweep: once per interval for each pack, its centroid, dissolving, migration and
//! errands for its members, and the visibility check that turns unseen packs into ghosts and
//! brings watched ghosts back.

use bevy_ecs::query::Has;
use bevy_ecs::system::SystemParam;
use valence::log::{info, warn};
use valence::prelude::*;

use crate::common::body::Dying;
use crate::config::{Config, ConfigChanged, PackConfig};
use crate::time::WorldClock;
use crate::weather::Weather;
use crate::world::chunks::EntityTicking;
use crate::world::Overworld;
use crate::zombie::{
    Burning, Equipment, March, Pursuing, Vitality, Zombie, ZombieKinds, ZombieRecord,
};

use super::merge::merge_packs;
use super::migration::waypoint;
use super::restore::restore;
use super::rules::{centroid, dissolves, unseen_long_enough};
use super::PacksMerged;
use super::{Pack, PackBrain, PackId, PackState, PackStats, Packs};
use crate::grid::flat;

/// A restore this many sweeps or fewer after dematerialising counts as a flap.
const FLAP_SWEEPS: u64 = 5;

/// What the pack update reads and writes of each living zombie.
type Members<'w, 's> = Query<
    'w,
    's,
    (
        &'static Zombie,
        &'static Position,
        &'static Vitality,
        &'static mut March,
        Has<Pursuing>,
        &'static mut PackBrain,
        &'static Burning,
        &'static Equipment,
    ),
    Without<Dying>,
>;

/// The world as the sweep reads it: the overworld, where ghosts come back; the clock and the
/// weather, which make night for packs; the zombie kinds, which set a ghost's pace; and the
/// configuration with this tick's reloads of it.
#[derive(SystemParam)]
pub(super) struct SweepWorld<'w, 's> {
    layers: Query<'w, 's, (Entity, &'static ChunkLayer), With<Overworld>>,
    kinds: Res<'w, ZombieKinds>,
    clock: Res<'w, WorldClock>,
    weather: Res<'w, Weather>,
    config: Res<'w, Config>,
    reloads: EventReader<'w, 's, ConfigChanged>,
    server: Res<'w, Server>,
}

/// Which chunks are entity-ticking, and whether they changed since the last sweep: a change
/// on a tick with no sweep is news for the next.
#[derive(SystemParam)]
pub(super) struct TickingNews<'w, 's> {
    chunks: Res<'w, EntityTicking>,
    news: Local<'s, bool>,
}

/// What a sweep sees of a materialised pack's members.
#[derive(Default)]
struct Formation {
    /// Where the members not chasing anyone stand.
    in_formation: Vec<DVec3>,
    /// Whether any member stands in an entity-ticking chunk.
    seen: bool,
}

impl Formation {
    /// Counts `member` in if it still lives; returns whether it does.
    fn add(&mut self, zombies: &Members, member: Entity, ticking: impl Fn(DVec3) -> bool) -> bool {
        let Ok((_, pos, _, _, pursuing, ..)) = zombies.get(member) else {
            return false;
        };
        self.seen |= ticking(pos.0);
        if !pursuing {
            self.in_formation.push(pos.0);
        }
        true
    }
}

/// What every pack's turn in one sweep shares.
struct Sweep<'a> {
    now: u64,
    tick_rate: f64,
    /// Whether packs migrate now: by night, or by day too if the rules say so.
    moving: bool,
    rules: &'a PackConfig,
    ticking: &'a EntityTicking,
    kinds: &'a ZombieKinds,
    /// The overworld's entity and layer, where a ghost comes back.
    layer: (Entity, &'a ChunkLayer),
}

/// What the turns of one sweep found, gathered while each pack is borrowed and applied to
/// the packs after.
#[derive(Default)]
struct Outcome {
    /// The packs that had their turn, to be given their next.
    visited: Vec<PackId>,
    /// Packs that turned ghost, came back or moved their centroid, for the index of
    /// materialised packs.
    noted: Vec<PackId>,
    /// Packs too small for too long, and ghosts that gave up finding ground.
    dissolved: Vec<PackId>,
    /// Counted apart while a pack is borrowed, added to the totals after.
    tally: PackStats,
}

/// Once per sweep interval for each pack: centroid, dissolving, migration, and the
/// visibility sweep that turns unseen packs into ghosts and brings watched ghosts back; then
/// merging.
pub(super) fn update_packs(
    mut commands: Commands,
    mut zombies: Members,
    mut packs: ResMut<Packs>,
    mut ticking: TickingNews,
    mut world: SweepWorld,
    mut merged: EventWriter<PacksMerged>,
) {
    let rules = &world.config.pack;
    let now = world.server.current_tick() as u64;
    let tick_rate = world.server.tick_rate().get() as f64;
    let (new_types, reloaded) = reloads(&mut world.reloads);
    // A change to the entity-ticking chunks on a tick with no sweep is news for the next.
    *ticking.news |= ticking.chunks.is_changed();
    let Ok((layer_entity, layer)) = world.layers.get_single() else {
        return;
    };
    if now == 0 {
        return;
    }
    // Weather is the world's, like the clock: a storm that hides the sun is night to packs.
    let night = !world.clock.is_day()
        || (rules.migrate_in_storms && !world.weather.sun_is_up(&world.clock));
    let moving = rules.migrate_at_day || night;
    let due = packs.begin_sweep(
        now,
        moving,
        reloaded,
        std::mem::take(&mut *ticking.news).then(|| ticking.chunks.chunks()),
        rules,
        tick_rate,
    );

    if new_types {
        // New speeds reach ghost packs too (sleepers walked their missed sweeps first).
        for pack in packs.iter_mut() {
            pack.refresh_pace(&world.kinds);
        }
    }
    let sweep = Sweep {
        now,
        tick_rate,
        moving,
        rules,
        ticking: &ticking.chunks,
        kinds: &world.kinds,
        layer: (layer_entity, layer),
    };
    let outcome = sweep.turns(&mut packs, due, &mut zombies, &mut commands);
    sweep.settle(&mut packs, outcome, &mut zombies);

    if now.is_multiple_of(rules.sweep_interval_ticks) {
        merge(&mut packs, rules, &mut zombies, &mut merged);
    }

    if now.is_multiple_of(rules.sweep_interval_ticks * 60) && !packs.is_empty() {
        info!("{}", packs.summary());
    }
}

/// This tick's reloads: whether they changed the zombie types, and whether they changed
/// those or the pack rules.
fn reloads(reloads: &mut EventReader<ConfigChanged>) -> (bool, bool) {
    let reloads: Vec<&ConfigChanged> = reloads.iter().collect();
    let new_types = reloads.iter().any(|c| c.touches("zombies.types"));
    let reloaded = new_types || reloads.iter().any(|c| c.touches("pack"));
    (new_types, reloaded)
}

impl Sweep<'_> {
    /// The due packs' turns. Each pack is updated once per sweep interval, packs spread over
    /// its ticks so that the cost is even rather than a spike every interval; far ghosts
    /// sleep through some.
    fn turns(
        &self,
        packs: &mut Packs,
        due: Vec<PackId>,
        zombies: &mut Members,
        commands: &mut Commands,
    ) -> Outcome {
        let mut outcome = Outcome {
            visited: Vec::with_capacity(due.len()),
            ..Outcome::default()
        };
        for id in due {
            if !packs.is_due(id, self.now) {
                continue;
            }
            outcome.visited.push(id);
            let Some(pack) = packs.get_mut(id) else {
                continue;
            };
            match pack.state {
                PackState::Materialised => self.materialised(pack, zombies, commands, &mut outcome),
                PackState::Ghost => self.ghost(pack, commands, &mut outcome),
            }
        }
        outcome
    }

    /// A materialised pack's turn: its centroid follows its members; then it dissolves, or
    /// marches on and, unseen long enough, turns ghost.
    fn materialised(
        &self,
        pack: &mut Pack,
        zombies: &mut Members,
        commands: &mut Commands,
        outcome: &mut Outcome,
    ) {
        let Formation { in_formation, seen } = self.look(pack, zombies);
        if !in_formation.is_empty() {
            pack.centroid = centroid(in_formation.iter().map(|p| flat(*p)));
            pack.y = in_formation.iter().map(|p| p.y).sum::<f64>() / in_formation.len() as f64;
            outcome.noted.push(pack.id);
        }
        if self.too_small_too_long(pack) {
            outcome.dissolved.push(pack.id);
            return;
        }
        self.march(pack, seen, zombies);
        // Visibility sweep.
        if unseen_long_enough(&mut pack.unticked_sweeps, seen, self.rules) {
            self.dematerialise(pack, zombies, commands);
            outcome.noted.push(pack.id);
            outcome.tally.dematerialised += 1;
        }
    }

    /// One look at each member: gone ones leave the list; the rest give the formation
    /// (members not chasing anyone) and whether any is watched.
    fn look(&self, pack: &mut Pack, zombies: &mut Members) -> Formation {
        let ticking = |p: DVec3| self.ticking.contains_block(p);
        let mut look = Formation::default();
        pack.members.retain(|m| look.add(zombies, *m, ticking));
        // A lowered max_size (a reload) trims the pack by the leave rule: the members
        // farthest from the centroid leave; nobody is removed from the world.
        if pack.members.len() > self.rules.max_size as usize {
            let c = pack.centroid;
            let far = |m: &Entity| {
                zombies
                    .get(*m)
                    .map_or(0.0, |(_, p, ..)| flat(p.0).distance(c))
            };
            pack.members.sort_by(|a, b| far(a).total_cmp(&far(b)));
            for leaver in pack.members.split_off(self.rules.max_size as usize) {
                set_loose(zombies, leaver);
            }
            look = Formation::default();
            for m in &pack.members {
                look.add(zombies, *m, ticking);
            }
        }
        look
    }

    /// Whether the pack has had fewer than `min_size` members long enough to dissolve (the
    /// time it fell below is noted, and forgotten once it is back).
    fn too_small_too_long(&self, pack: &mut Pack) -> bool {
        if pack.members.len() < self.rules.min_size as usize {
            pack.below_min_since.get_or_insert(self.now);
        } else {
            pack.below_min_since = None;
        }
        dissolves(
            pack.members.len(),
            pack.below_min_since,
            self.now,
            self.rules,
        )
    }

    /// The pack's errand: while packs move it migrates, and its members march to its next
    /// waypoint; while it dwells or packs rest, they stand.
    fn march(&self, pack: &mut Pack, seen: bool, zombies: &mut Members) {
        // Unwatched members are frozen: their pack waits rather than counting as stuck.
        if self.moving && seen {
            pack.migrate(self.now, self.rules);
        }
        let march_to = match (self.moving, pack.dwell_until) {
            (true, None) => Some(waypoint(pack.centroid, pack.dest, self.rules)),
            _ => None,
        };
        let to = march_to.map(|w| DVec3::new(w.x, pack.y, w.y));
        for member in &pack.members {
            if let Ok((_, _, _, mut march, ..)) = zombies.get_mut(*member) {
                if march.0 != to {
                    march.0 = to;
                }
            }
        }
    }

    /// An unseen pack turns ghost: its members become records and leave the world.
    fn dematerialise(&self, pack: &mut Pack, zombies: &Members, commands: &mut Commands) {
        let ghosts = pack
            .members
            .iter()
            .filter_map(|m| zombies.get(*m).ok())
            .map(|(zombie, _, vitality, _, _, _, fire, equipment)| {
                ZombieRecord::capture(zombie, vitality, fire, equipment)
            })
            .collect();
        pack.set_ghosts(ghosts, self.kinds);
        for member in pack.members.drain(..) {
            commands.entity(member).insert(Despawned);
        }
        pack.ghosted_at = Some(self.now);
        pack.unticked_sweeps = 0;
    }

    /// A ghost's turn: it walks on coarsely and, well inside the watched area, comes back to
    /// the world; one that finds no ground for its members too many times in a row dissolves.
    fn ghost(&self, pack: &mut Pack, commands: &mut Commands, outcome: &mut Outcome) {
        pack.ghost_walk(self.now, self.moving, self.rules, self.tick_rate);
        let here = DVec3::new(pack.centroid.x, pack.y, pack.centroid.y);
        if !self.well_inside(here) {
            return;
        }
        let (layer_entity, layer) = self.layer;
        let tally = &mut outcome.tally;
        if restore(commands, pack, layer_entity, layer, self.rules) {
            outcome.noted.push(pack.id);
            tally.restores += 1;
            let sweeps = pack.ghosted_at.map_or(u64::MAX, |at| {
                (self.now - at) / self.rules.sweep_interval_ticks
            });
            if sweeps <= FLAP_SWEEPS {
                tally.flaps += 1;
            }
            pack.restore_failures = 0;
        } else {
            tally.failed_restores += 1;
            pack.restore_failures += 1;
            if pack.restore_failures >= self.rules.restore_attempts {
                warn!(
                    "pack {} gave up after {} failed restores: no ground for its {} members near x={:.0} z={:.0}",
                    pack.id,
                    pack.restore_failures,
                    pack.ghosts.len(),
                    pack.centroid.x,
                    pack.centroid.y
                );
                outcome.dissolved.push(pack.id);
                tally.give_ups += 1;
            }
        }
    }

    /// A ghost comes back only a chunk inside the ticking area, so that one drifting along
    /// its edge does not flicker in and out.
    fn well_inside(&self, p: DVec3) -> bool {
        (-1..=1).all(|dz| {
            (-1..=1).all(|dx| {
                self.ticking
                    .contains_block(p + DVec3::new(dx as f64 * 16.0, 0.0, dz as f64 * 16.0))
            })
        })
    }

    /// After the turns: the tally into the totals, the noted packs into the index of
    /// materialised packs, the visited ones' next turns; then the dissolved packs go.
    fn settle(&self, packs: &mut Packs, outcome: Outcome, zombies: &mut Members) {
        packs.stats.add(&outcome.tally);
        for id in outcome.noted {
            packs.note_state(id);
        }
        for id in outcome.visited {
            packs.schedule_next(id, self.now, self.rules, self.tick_rate);
        }
        for id in outcome.dissolved {
            if let Some(pack) = packs.remove(id) {
                if pack.state == PackState::Materialised {
                    packs.stats.dissolved += 1;
                }
                for member in pack.members {
                    set_loose(zombies, member);
                }
            }
        }
    }
}

/// A member out of its pack: no pack, and no march.
fn set_loose(zombies: &mut Members, member: Entity) {
    if let Ok((_, _, _, mut march, _, mut brain, _, _)) = zombies.get_mut(member) {
        brain.pack = None;
        march.0 = None;
    }
}

/// Fuses close packs heading the same way; the members of each pack gone follow it into the
/// pack kept.
fn merge(
    packs: &mut Packs,
    rules: &PackConfig,
    zombies: &mut Members,
    merged: &mut EventWriter<PacksMerged>,
) {
    let (merges, moved) = merge_packs(packs, rules);
    for (member, pack) in moved {
        if let Ok((.., mut brain, _, _)) = zombies.get_mut(member) {
            brain.pack = Some(pack);
        }
    }
    merged.send_batch(merges);
}
