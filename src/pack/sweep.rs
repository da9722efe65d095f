//! The sweep: once per interval for each pack, its centroid, dissolving, migration and
//! errands for its members, and the visibility check that turns unseen packs into ghosts and
//! brings watched ghosts back.

use bevy_ecs::query::Has;
use valence::log::{info, warn};
use valence::prelude::*;

use crate::common::body::Dying;
use crate::config::{Config, ConfigChanged};
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
use super::{PackBrain, PackState, PackStats, Packs};
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

/// Once per sweep interval for each pack: centroid, dissolving, migration, and the
/// visibility sweep that turns unseen packs into ghosts and brings watched ghosts back; then
/// merging.
pub(super) fn update_packs(
    mut commands: Commands,
    mut zombies: Members,
    layers: Query<(Entity, &ChunkLayer), With<Overworld>>,
    mut packs: ResMut<Packs>,
    ticking_chunks: Res<EntityTicking>,
    mut ticking_news: Local<bool>,
    kinds: Res<ZombieKinds>,
    mut reloads: EventReader<ConfigChanged>,
    mut merged: EventWriter<PacksMerged>,
    clock: Res<WorldClock>,
    weather: Res<Weather>,
    config: Res<Config>,
    server: Res<Server>,
) {
    let rules = &config.pack;
    let now = server.current_tick() as u64;
    let tick_rate = server.tick_rate().get() as f64;
    let reloads: Vec<&ConfigChanged> = reloads.iter().collect();
    let new_types = reloads.iter().any(|c| c.touches("zombies.types"));
    let reloaded = new_types || reloads.iter().any(|c| c.touches("pack"));
    // A change to the entity-ticking chunks on a tick with no sweep is news for the next.
    *ticking_news |= ticking_chunks.is_changed();
    let Ok((layer_entity, layer)) = layers.get_single() else {
        return;
    };
    if now == 0 {
        return;
    }
    // Weather is the world's, like the clock: a storm that hides the sun is night to packs.
    let night = !clock.is_day() || (rules.migrate_in_storms && !weather.sun_is_up(&clock));
    let moving = rules.migrate_at_day || night;
    let due = packs.begin_sweep(
        now,
        moving,
        reloaded,
        std::mem::take(&mut *ticking_news).then(|| ticking_chunks.chunks()),
        rules,
        tick_rate,
    );

    if new_types {
        // New speeds reach ghost packs too (sleepers walked their missed sweeps first).
        for pack in packs.iter_mut() {
            pack.refresh_pace(&kinds);
        }
    }
    let ticking = |p: DVec3| ticking_chunks.contains_block(p);
    // A ghost comes back only a chunk inside the ticking area, so that one drifting along
    // its edge does not flicker in and out.
    let well_inside = |p: DVec3| {
        (-1..=1).all(|dz| {
            (-1..=1).all(|dx| ticking(p + DVec3::new(dx as f64 * 16.0, 0.0, dz as f64 * 16.0)))
        })
    };
    let packs = &mut *packs;
    let mut dissolved = Vec::new();
    // Packs that turned ghost, came back or moved their centroid, for the index of
    // materialised packs.
    let mut noted = Vec::new();

    // Each pack is updated once per sweep interval, packs spread over its ticks so that the
    // cost is even rather than a spike every interval; far ghosts sleep through some.
    let mut visited = Vec::with_capacity(due.len());
    // Counted apart while a pack is borrowed, added to the totals after.
    let mut tally = PackStats::default();
    for id in due {
        if !packs.is_due(id, now) {
            continue;
        }
        visited.push(id);
        let Some(pack) = packs.get_mut(id) else {
            continue;
        };
        match pack.state {
            PackState::Materialised => {
                // One look at each member: gone ones leave the list; the rest give the
                // formation (members not chasing anyone) and whether any is watched.
                let mut look = Formation::default();
                pack.members.retain(|m| look.add(&zombies, *m, ticking));
                // A lowered max_size (a reload) trims the pack by the leave rule: the members
                // farthest from the centroid leave; nobody is removed from the world.
                if pack.members.len() > rules.max_size as usize {
                    let c = pack.centroid;
                    let far = |m: &Entity| {
                        zombies
                            .get(*m)
                            .map_or(0.0, |(_, p, ..)| flat(p.0).distance(c))
                    };
                    pack.members.sort_by(|a, b| far(a).total_cmp(&far(b)));
                    for leaver in pack.members.split_off(rules.max_size as usize) {
                        if let Ok((_, _, _, mut march, _, mut brain, _, _)) =
                            zombies.get_mut(leaver)
                        {
                            brain.pack = None;
                            march.0 = None;
                        }
                    }
                    look = Formation::default();
                    for m in &pack.members {
                        look.add(&zombies, *m, ticking);
                    }
                }
                let Formation { in_formation, seen } = look;
                if !in_formation.is_empty() {
                    pack.centroid = centroid(in_formation.iter().map(|p| flat(*p)));
                    pack.y =
                        in_formation.iter().map(|p| p.y).sum::<f64>() / in_formation.len() as f64;
                    noted.push(id);
                }
                if pack.members.len() < rules.min_size as usize {
                    pack.below_min_since.get_or_insert(now);
                } else {
                    pack.below_min_since = None;
                }
                if dissolves(pack.members.len(), pack.below_min_since, now, rules) {
                    dissolved.push(pack.id);
                    continue;
                }
                // Unwatched members are frozen: their pack waits rather than counting as stuck.
                if moving && seen {
                    pack.migrate(now, rules);
                }
                let march_to = match (moving, pack.dwell_until) {
                    (true, None) => Some(waypoint(pack.centroid, pack.dest, rules)),
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

                // Visibility sweep.
                if unseen_long_enough(&mut pack.unticked_sweeps, seen, rules) {
                    let ghosts = pack
                        .members
                        .iter()
                        .filter_map(|m| zombies.get(*m).ok())
                        .map(|(zombie, _, vitality, _, _, _, fire, equipment)| {
                            ZombieRecord::capture(zombie, vitality, fire, equipment)
                        })
                        .collect();
                    pack.set_ghosts(ghosts, &kinds);
                    for member in pack.members.drain(..) {
                        commands.entity(member).insert(Despawned);
                    }
                    pack.ghosted_at = Some(now);
                    pack.unticked_sweeps = 0;
                    noted.push(id);
                    tally.dematerialised += 1;
                }
            }
            PackState::Ghost => {
                pack.ghost_walk(now, moving, rules, tick_rate);
                let here = DVec3::new(pack.centroid.x, pack.y, pack.centroid.y);
                if !well_inside(here) {
                    continue;
                }
                if restore(&mut commands, pack, layer_entity, layer, rules) {
                    noted.push(id);
                    tally.restores += 1;
                    let sweeps = pack
                        .ghosted_at
                        .map_or(u64::MAX, |at| (now - at) / rules.sweep_interval_ticks);
                    if sweeps <= FLAP_SWEEPS {
                        tally.flaps += 1;
                    }
                    pack.restore_failures = 0;
                } else {
                    tally.failed_restores += 1;
                    pack.restore_failures += 1;
                    if pack.restore_failures >= rules.restore_attempts {
                        warn!(
                                "pack {} gave up after {} failed restores: no ground for its {} members near x={:.0} z={:.0}",
                                pack.id,
                                pack.restore_failures,
                                pack.ghosts.len(),
                                pack.centroid.x,
                                pack.centroid.y
                            );
                        dissolved.push(pack.id);
                        tally.give_ups += 1;
                    }
                }
            }
        }
    }

    packs.stats.add(&tally);
    for id in noted {
        packs.note_state(id);
    }
    for id in visited {
        packs.schedule_next(id, now, rules, tick_rate);
    }
    for id in dissolved {
        if let Some(pack) = packs.remove(id) {
            if pack.state == PackState::Materialised {
                packs.stats.dissolved += 1;
            }
            for member in pack.members {
                if let Ok((_, _, _, mut march, _, mut brain, _, _)) = zombies.get_mut(member) {
                    brain.pack = None;
                    march.0 = None;
                }
            }
        }
    }

    if now.is_multiple_of(rules.sweep_interval_ticks) {
        let (merges, moved) = merge_packs(packs, rules);
        for (member, pack) in moved {
            if let Ok((.., mut brain, _, _)) = zombies.get_mut(member) {
                brain.pack = Some(pack);
            }
        }
        merged.send_batch(merges);
    }

    if now.is_multiple_of(rules.sweep_interval_ticks * 60) && !packs.is_empty() {
        info!("{}", packs.summary());
    }
}
