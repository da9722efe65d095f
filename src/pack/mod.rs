//! Packs: loose zombies clump into packs that migrate by night on their own errand; a pack
//! nobody can see becomes a ghost record and walks on coarsely until its area is watched again.
//!
//! **Player-blind by construction.** This module's inputs are zombie state, pack state,
//! terrain, which chunks are entity-ticking (how a pack learns it is unseen), whether a member
//! is busy ([`Pursuing`], without whom), the clock and a seeded RNG per pack. It reads no
//! player: `tests/pack_blind.rs` checks what every system here really accesses.

pub mod ghost;
pub mod grid;
pub mod migration;
pub mod rules;

use std::collections::BTreeMap;

use bevy_ecs::query::Has;
use valence::log::{info, warn};
use valence::math::DVec2;
use valence::prelude::*;

use crate::config::{Config, ConfigChanged};
use crate::daylight::{Burning, Helmet};
use crate::time::WorldClock;
use crate::world::chunks::EntityTicking;
use crate::world::ChunkLifecycle;
use crate::world::{standable_top, Overworld};
use crate::zombie::chase::ZombieSet;
use crate::zombie::{zombie_bundle, Arena, Dying, Errand, Pursuing, Vitality, Zombie, ZombieKinds};
use ghost::{drift, rejoins, scatter, GhostMember};
use grid::SpatialGrid;
use migration::{arrived, dwell_ticks, next_leg, waypoint, PackRng};
use rules::{
    centroid, considers_packs, dissolves, forms_pack, merges, pack_to_join, unseen_long_enough,
    Candidate, Counters, Step,
};

pub type PackId = u64;

pub struct PackPlugin;

impl Plugin for PackPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(Packs::default()).add_systems(
            Update,
            (
                start_clock,
                give_brains,
                member_decisions,
                update_packs,
                stop_clock,
            )
                .chain()
                .after(ZombieSet::Classify)
                .after(crate::world::chunks::mark_entity_ticking)
                .before(ZombieSet::Move),
        );
    }
}

/// A zombie's pack state: which pack, and its activation counters.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PackBrain {
    pub pack: Option<PackId>,
    counters: Counters,
}

impl PackBrain {
    fn join(&mut self, pack: PackId) {
        self.pack = Some(pack);
        self.counters.joined();
    }
}

/// Whether a pack has bodies in the world or only records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackState {
    Materialised,
    Ghost,
}

/// One pack.
#[derive(Debug, Clone)]
pub struct Pack {
    pub id: PackId,
    pub state: PackState,
    /// Member entities (materialised).
    pub members: Vec<Entity>,
    /// Member records (ghost).
    pub ghosts: Vec<GhostMember>,
    /// Walking speed of the slowest ghost member, blocks per second.
    slowest_speed: f64,
    pub centroid: DVec2,
    /// Feet height near the centroid, for restoring.
    pub y: f64,
    pub heading: DVec2,
    pub dest: DVec2,
    /// Legs walked so far.
    pub leg: u32,
    /// Resting until this tick after arriving.
    pub dwell_until: Option<u64>,
    pub seed: u64,
    pub rng: PackRng,
    stuck: u32,
    best_distance: f64,
    below_min_since: Option<u64>,
    unticked_sweeps: u32,
    /// Failed restores in a row.
    pub restore_failures: u32,
    ghosted_at: Option<u64>,
    /// The waypoint last handed to members.
    waypoint: Option<DVec2>,
}

impl Pack {
    fn new(id: PackId, at: DVec2, y: f64, seed: u64, rules: &crate::config::PackConfig) -> Self {
        let mut rng = PackRng::new(seed);
        let heading = DVec2::from_angle(rng.next_unit() * std::f64::consts::TAU);
        let (dest, heading) = next_leg(at, heading, &mut rng, rules, rules.border_radius);
        Self {
            id,
            state: PackState::Materialised,
            members: Vec::new(),
            ghosts: Vec::new(),
            slowest_speed: 0.0,
            centroid: at,
            y,
            heading,
            dest,
            leg: 1,
            dwell_until: None,
            seed,
            rng,
            stuck: 0,
            best_distance: f64::INFINITY,
            below_min_since: None,
            unticked_sweeps: 0,
            restore_failures: 0,
            ghosted_at: None,
            waypoint: None,
        }
    }

    /// Makes the pack a ghost of these members.
    fn set_ghosts(&mut self, ghosts: Vec<GhostMember>, kinds: &ZombieKinds) {
        self.slowest_speed = ghosts
            .iter()
            .map(|g| kinds.get(g.kind as usize).speed)
            .fold(f64::INFINITY, f64::min);
        if !self.slowest_speed.is_finite() {
            self.slowest_speed = 0.0;
        }
        self.ghosts = ghosts;
        self.state = PackState::Ghost;
    }

    pub fn size(&self) -> usize {
        match self.state {
            PackState::Materialised => self.members.len(),
            PackState::Ghost => self.ghosts.len(),
        }
    }

    /// Picks the next leg from where the pack stands.
    fn new_leg(&mut self, rules: &crate::config::PackConfig) {
        let (dest, heading) = next_leg(
            self.centroid,
            self.heading,
            &mut self.rng,
            rules,
            rules.border_radius,
        );
        self.dest = dest;
        self.heading = heading;
        self.leg += 1;
        self.stuck = 0;
        self.best_distance = f64::INFINITY;
        self.dwell_until = None;
    }

    /// One migration step at `now`: dwell, arrive, or check headway. `moving` is false by day
    /// (unless packs migrate by day).
    fn migrate(&mut self, now: u64, rules: &crate::config::PackConfig) {
        if let Some(until) = self.dwell_until {
            if now >= until {
                self.new_leg(rules);
            }
            return;
        }
        if arrived(self.centroid, self.dest, rules) {
            self.dwell_until = Some(now + dwell_ticks(&mut self.rng, rules));
            return;
        }
        let distance = self.centroid.distance(self.dest);
        if distance < self.best_distance - 1.0 {
            self.best_distance = distance;
            self.stuck = 0;
        } else {
            self.stuck += 1;
            if self.stuck >= rules.stuck_activations {
                self.new_leg(rules);
            }
        }
    }

    /// `packs` line (logfmt).
    pub fn report(&self) -> String {
        let (state, members, ghosts) = match self.state {
            PackState::Materialised => ("materialised", self.members.len(), 0),
            PackState::Ghost => ("ghost", 0, self.ghosts.len()),
        };
        format!(
            "id={} members={members} ghosts={ghosts} state={state} x={:.1} z={:.1} heading={:.0} dest_x={:.1} dest_z={:.1} leg={} dwell={}",
            self.id,
            self.centroid.x,
            self.centroid.y,
            self.heading.y.atan2(self.heading.x).to_degrees(),
            self.dest.x,
            self.dest.y,
            self.leg,
            self.dwell_until.is_some()
        )
    }
}

/// Counters since start, for `packs` and the log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackStats {
    pub formed: u64,
    pub merged: u64,
    pub dissolved: u64,
    pub dematerialised: u64,
    pub restores: u64,
    pub failed_restores: u64,
    pub give_ups: u64,
    /// Restored within a few sweeps of dematerialising (the grace was too short).
    pub flaps: u64,
}

/// Every pack, by id.
#[derive(Resource, Debug, Default)]
pub struct Packs {
    pub packs: BTreeMap<PackId, Pack>,
    pub next_id: PackId,
    pub stats: PackStats,
    /// What the pack systems cost per tick, over the last minute.
    pub cost: CostWindow,
}

/// Milliseconds per tick of the pack systems over a sliding window.
#[derive(Debug, Default, Clone)]
pub struct CostWindow {
    started: Option<std::time::Instant>,
    samples: std::collections::VecDeque<f64>,
}

impl CostWindow {
    const LEN: usize = 1200;

    /// `(mean, p99)` in milliseconds.
    pub fn summary(&self) -> (f64, f64) {
        if self.samples.is_empty() {
            return (0.0, 0.0);
        }
        let mut sorted: Vec<f64> = self.samples.iter().copied().collect();
        sorted.sort_by(f64::total_cmp);
        let mean = sorted.iter().sum::<f64>() / sorted.len() as f64;
        let p99 = crate::metrics::percentile(&sorted, 0.99).unwrap_or_default();
        (mean, p99)
    }

    pub fn clear(&mut self) {
        self.samples.clear();
    }
}

fn start_clock(mut packs: ResMut<Packs>) {
    packs.cost.started = Some(std::time::Instant::now());
}

fn stop_clock(mut packs: ResMut<Packs>) {
    if let Some(start) = packs.cost.started.take() {
        let cost = &mut packs.cost;
        if cost.samples.len() == CostWindow::LEN {
            cost.samples.pop_front();
        }
        cost.samples
            .push_back(start.elapsed().as_secs_f64() * 1000.0);
    }
}

/// A restore this many sweeps or fewer after dematerialising counts as a flap.
const FLAP_SWEEPS: u64 = 5;

impl Packs {
    pub fn ghost_members(&self) -> usize {
        self.packs
            .values()
            .filter(|p| p.state == PackState::Ghost)
            .map(|p| p.ghosts.len())
            .sum()
    }

    /// The summary line of `packs` (logfmt).
    pub fn summary(&self) -> String {
        let s = &self.stats;
        let ghosts = self
            .packs
            .values()
            .filter(|p| p.state == PackState::Ghost)
            .count();
        format!(
            "packs={} ghost_packs={ghosts} ghost_members={} formed={} merged={} dissolved={} dematerialised={} restores={} failed_restores={} give_ups={} flaps={}",
            self.packs.len(),
            self.ghost_members(),
            s.formed,
            s.merged,
            s.dissolved,
            s.dematerialised,
            s.restores,
            s.failed_restores,
            s.give_ups,
            s.flaps
        )
    }

    /// Puts back a saved pack as a ghost under its own id: after a restart no chunk is
    /// watched yet, and members come back where someone is.
    #[allow(clippy::too_many_arguments)]
    pub fn insert_saved(
        &mut self,
        id: PackId,
        at: DVec2,
        y: f64,
        heading: DVec2,
        dest: DVec2,
        leg: u32,
        dwell_until: Option<u64>,
        seed: u64,
        rng: PackRng,
        restore_failures: u32,
        ghosts: Vec<GhostMember>,
        kinds: &ZombieKinds,
        rules: &crate::config::PackConfig,
    ) {
        let mut pack = Pack::new(id, at, y, seed, rules);
        pack.set_ghosts(ghosts, kinds);
        pack.heading = heading;
        pack.dest = dest;
        pack.leg = leg;
        pack.dwell_until = dwell_until;
        pack.rng = rng;
        pack.restore_failures = restore_failures;
        self.next_id = self.next_id.max(id);
        self.packs.insert(id, pack);
    }

    /// Adds a ghost pack at `at` with these members (a saved pack, or a benchmark's).
    pub fn adopt_ghost(
        &mut self,
        at: DVec2,
        y: f64,
        ghosts: Vec<GhostMember>,
        world_seed: i64,
        kinds: &ZombieKinds,
        rules: &crate::config::PackConfig,
    ) -> PackId {
        let id = self.create(at, y, world_seed, rules);
        let pack = self.packs.get_mut(&id).expect("just created");
        pack.set_ghosts(ghosts, kinds);
        id
    }

    fn create(
        &mut self,
        at: DVec2,
        y: f64,
        world_seed: i64,
        rules: &crate::config::PackConfig,
    ) -> PackId {
        self.next_id += 1;
        let id = self.next_id;
        let seed = (world_seed as u64) ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.packs.insert(id, Pack::new(id, at, y, seed, rules));
        id
    }
}

/// `packs`: one line per pack, then the counters and the chunk latencies the grace must
/// outlast.
pub fn report(world: &mut World) -> String {
    let packs = world.resource::<Packs>();
    let chunks = world.resource::<ChunkLifecycle>();
    let mut lines: Vec<String> = packs.packs.values().map(|p| p.report()).collect();
    lines.push(format!(
        "{} {} {}",
        packs.summary(),
        chunks.load_latency.logfmt("chunk_load"),
        chunks.unload_latency.logfmt("chunk_unload")
    ));
    lines.join("\n")
}

fn flat(p: DVec3) -> DVec2 {
    DVec2::new(p.x, p.z)
}

fn give_brains(
    mut commands: Commands,
    zombies: Query<Entity, (With<Zombie>, Without<PackBrain>, Without<Arena>)>,
) {
    for zombie in &zombies {
        commands.entity(zombie).insert(PackBrain::default());
    }
}

/// Spatial indexes rebuilt each tick: zombies (and whether each may join or form a pack), and
/// materialised packs by centroid, so one decision looks at a bounded neighbourhood.
struct DecisionGrids {
    zombies: SpatialGrid<(Entity, bool)>,
    packs: SpatialGrid<Candidate>,
    /// What one decision found near the zombie.
    nearby: Vec<((Entity, bool), DVec2)>,
    near_packs: Vec<(Candidate, DVec2)>,
}

/// Each zombie in an entity-ticking chunk is activated once a tick: a member that strays past
/// the break radius for `stray_activations` in a row leaves; a loose one considers packs once
/// per `decision_divisor` activations, if it has `min_neighbours` within the cohesion radius,
/// and joins the nearest pack with room or forms one with the loose zombies around it.
fn member_decisions(
    mut zombies: Query<
        (Entity, &Position, Has<Pursuing>, &mut PackBrain),
        (With<Zombie>, Without<Dying>),
    >,
    mut packs: ResMut<Packs>,
    ticking: Res<EntityTicking>,
    mut reloads: EventReader<ConfigChanged>,
    mut grids: Local<Option<DecisionGrids>>,
    config: Res<Config>,
) {
    let rules = &config.pack;
    // The grids' cells are as wide as the cohesion radius, which a reload may change.
    if reloads.iter().any(|c| c.touches("pack.cohesion_radius")) {
        *grids = None;
    }
    let grids = grids.get_or_insert_with(|| DecisionGrids {
        zombies: SpatialGrid::new(rules.cohesion_radius),
        packs: SpatialGrid::new(rules.cohesion_radius),
        nearby: Vec::new(),
        near_packs: Vec::new(),
    });
    grids.zombies.clear();
    for (entity, pos, pursuing, brain) in &zombies {
        let joinable = brain.pack.is_none() && !pursuing;
        grids.zombies.insert((entity, joinable), flat(pos.0));
    }
    grids.packs.clear();
    for p in packs
        .packs
        .values()
        .filter(|p| p.state == PackState::Materialised)
    {
        let candidate = Candidate {
            id: p.id,
            centroid: p.centroid,
            size: p.members.len(),
        };
        grids.packs.insert(candidate, p.centroid);
    }
    let scan = rules.scan_cap as usize;
    let mut joins: Vec<(Entity, PackId)> = Vec::new();
    let mut forming: Vec<Vec<Entity>> = Vec::new();
    let mut claimed = std::collections::HashSet::new();
    for (entity, pos, pursuing, mut brain) in &mut zombies {
        // A zombie acts only in entity-ticking chunks; elsewhere it is frozen.
        if !ticking.contains_block(pos.0) {
            continue;
        }
        let at = flat(pos.0);
        let from_centroid = match brain.pack {
            Some(id) => match packs.packs.get(&id) {
                Some(pack) => Some(at.distance(pack.centroid)),
                None => {
                    brain.pack = None;
                    continue;
                }
            },
            None => None,
        };
        // A chasing zombie is out of formation, not out of its pack, and decides nothing.
        if pursuing {
            continue;
        }
        match brain.counters.activate(from_centroid, rules) {
            Step::Wait => {}
            Step::Leave => {
                if let Some(pack) = brain.pack.take().and_then(|id| packs.packs.get_mut(&id)) {
                    pack.members.retain(|m| *m != entity);
                }
            }
            Step::Decide if !claimed.contains(&entity) => {
                let nearby = &mut grids.nearby;
                grids.zombies.near(at, rules.cohesion_radius, scan, nearby);
                let neighbours = nearby.iter().filter(|((e, _), _)| *e != entity).count();
                if !considers_packs(neighbours, rules) {
                    continue;
                }
                grids
                    .packs
                    .near(at, rules.cohesion_radius, scan, &mut grids.near_packs);
                let candidates: Vec<Candidate> = grids.near_packs.iter().map(|(c, _)| *c).collect();
                if let Some(id) = pack_to_join(at, &candidates, rules) {
                    joins.push((entity, id));
                    claimed.insert(entity);
                    continue;
                }
                let loose: Vec<Entity> = nearby
                    .iter()
                    .filter(|((e, joinable), _)| *joinable && *e != entity && !claimed.contains(e))
                    .map(|((e, _), _)| *e)
                    .collect();
                if forms_pack(loose.len(), rules) {
                    let mut group = vec![entity];
                    group.extend(loose.into_iter().take(rules.max_size as usize - 1));
                    claimed.extend(group.iter().copied());
                    forming.push(group);
                }
            }
            Step::Decide => {}
        }
    }
    for (entity, id) in joins {
        let Some(pack) = packs.packs.get_mut(&id) else {
            continue;
        };
        if pack.members.len() < rules.max_size as usize {
            pack.members.push(entity);
            if let Ok((.., mut brain)) = zombies.get_mut(entity) {
                brain.join(id);
            }
        }
    }
    for group in forming {
        let points: Vec<(DVec2, f64)> = group
            .iter()
            .filter_map(|e| zombies.get(*e).ok().map(|(_, p, ..)| (flat(p.0), p.0.y)))
            .collect();
        let at = centroid(points.iter().map(|(p, _)| *p));
        let y = points.first().map_or(64.0, |(_, y)| *y);
        let id = packs.create(at, y, config.server.seed, rules);
        packs.stats.formed += 1;
        for entity in group {
            if let Ok((.., mut brain)) = zombies.get_mut(entity) {
                brain.join(id);
                if let Some(pack) = packs.packs.get_mut(&id) {
                    pack.members.push(entity);
                }
            }
        }
    }
}

/// What the pack update reads and writes of each living zombie.
type Members<'w, 's> = Query<
    'w,
    's,
    (
        &'static Zombie,
        &'static Position,
        &'static Vitality,
        &'static mut Errand,
        Has<Pursuing>,
        &'static mut PackBrain,
        Option<&'static Burning>,
        Option<&'static Helmet>,
    ),
    Without<Dying>,
>;

/// Once per sweep interval for each pack: centroid, dissolving, migration, and the
/// visibility sweep that turns unseen packs into ghosts and brings watched ghosts back; then
/// merging.
#[allow(clippy::too_many_arguments)]
fn update_packs(
    mut commands: Commands,
    mut zombies: Members,
    layers: Query<(Entity, &ChunkLayer), With<Overworld>>,
    mut packs: ResMut<Packs>,
    ticking_chunks: Res<EntityTicking>,
    kinds: Res<ZombieKinds>,
    clock: Res<WorldClock>,
    config: Res<Config>,
    server: Res<Server>,
) {
    let rules = &config.pack;
    let now = server.current_tick() as u64;
    let tick_rate = server.tick_rate().get() as f64;
    if now == 0 {
        return;
    }
    let Ok((layer_entity, layer)) = layers.get_single() else {
        return;
    };
    let ticking = |p: DVec3| ticking_chunks.contains_block(p);
    // A ghost comes back only a chunk inside the ticking area, so that one drifting along
    // its edge does not flicker in and out.
    let well_inside = |p: DVec3| {
        (-1..=1).all(|dz| {
            (-1..=1).all(|dx| ticking(p + DVec3::new(dx as f64 * 16.0, 0.0, dz as f64 * 16.0)))
        })
    };
    let moving = rules.migrate_at_day || !clock.is_day();
    let packs = &mut *packs;
    let mut dissolved = Vec::new();

    for pack in packs.packs.values_mut() {
        // Each pack is updated once per sweep interval, packs spread over its ticks so that
        // the cost is even rather than a spike every interval.
        if !(pack.id + now).is_multiple_of(rules.sweep_interval_ticks) {
            continue;
        }
        match pack.state {
            PackState::Materialised => {
                pack.members.retain(|m| zombies.get(*m).is_ok());
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
                        if let Ok((.., mut brain, _, _)) = zombies.get_mut(leaver) {
                            brain.pack = None;
                        }
                    }
                }
                let in_formation: Vec<DVec3> = pack
                    .members
                    .iter()
                    .filter_map(|m| zombies.get(*m).ok())
                    .filter(|(_, _, _, _, pursuing, ..)| !pursuing)
                    .map(|(_, p, ..)| p.0)
                    .collect();
                if !in_formation.is_empty() {
                    pack.centroid = centroid(in_formation.iter().map(|p| flat(*p)));
                    pack.y =
                        in_formation.iter().map(|p| p.y).sum::<f64>() / in_formation.len() as f64;
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
                let seen = pack
                    .members
                    .iter()
                    .any(|m| zombies.get(*m).is_ok_and(|(_, p, ..)| ticking(p.0)));
                if moving && seen {
                    pack.migrate(now, rules);
                }
                let march_to = match (moving, pack.dwell_until) {
                    (true, None) => Some(waypoint(pack.centroid, pack.dest, rules)),
                    _ => None,
                };
                for member in &pack.members {
                    if let Ok((_, _, _, mut errand, ..)) = zombies.get_mut(*member) {
                        match march_to {
                            Some(w) => errand.0 = Some(DVec3::new(w.x, pack.y, w.y)),
                            // Resting or daytime: drop only the errand the pack gave.
                            None if errand.0.map(flat) == pack.waypoint => errand.0 = None,
                            None => {}
                        }
                    }
                }
                pack.waypoint = march_to;

                // Visibility sweep.
                if unseen_long_enough(&mut pack.unticked_sweeps, seen, rules) {
                    let ghosts = pack
                        .members
                        .iter()
                        .filter_map(|m| zombies.get(*m).ok())
                        .map(|(zombie, _, vitality, _, _, _, fire, helmet)| GhostMember {
                            kind: zombie.kind as u16,
                            health: vitality.0,
                            fire_ticks: fire
                                .map_or(0, |f| f.ticks_left.min(u16::MAX as u64) as u16),
                            helmet: helmet
                                .map(|h| (h.kind, h.durability.min(u16::MAX as u32) as u16)),
                        })
                        .collect();
                    pack.set_ghosts(ghosts, &kinds);
                    for member in pack.members.drain(..) {
                        commands.entity(member).insert(Despawned);
                    }
                    pack.ghosted_at = Some(now);
                    pack.unticked_sweeps = 0;
                    packs.stats.dematerialised += 1;
                }
            }
            PackState::Ghost => {
                if moving {
                    if pack.dwell_until.is_none() {
                        let step = rules.ghost_speed_fraction
                            * pack.slowest_speed
                            * rules.sweep_interval_ticks as f64
                            / tick_rate;
                        pack.centroid = drift(pack.centroid, pack.dest, step);
                    }
                    pack.migrate(now, rules);
                }
                let here = DVec3::new(pack.centroid.x, pack.y, pack.centroid.y);
                if !well_inside(here) {
                    continue;
                }
                if restore(&mut commands, pack, layer_entity, layer, &kinds, rules) {
                    packs.stats.restores += 1;
                    let sweeps = pack
                        .ghosted_at
                        .map_or(u64::MAX, |at| (now - at) / rules.sweep_interval_ticks);
                    if sweeps <= FLAP_SWEEPS {
                        packs.stats.flaps += 1;
                    }
                    pack.restore_failures = 0;
                } else {
                    packs.stats.failed_restores += 1;
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
                        packs.stats.give_ups += 1;
                    }
                }
            }
        }
    }

    for id in dissolved {
        if let Some(pack) = packs.packs.remove(&id) {
            if pack.state == PackState::Materialised {
                packs.stats.dissolved += 1;
            }
            for member in pack.members {
                if let Ok((.., mut errand, _, mut brain, _, _)) = zombies.get_mut(member) {
                    brain.pack = None;
                    if errand.0.map(flat) == pack.waypoint {
                        errand.0 = None;
                    }
                }
            }
        }
    }
    if now.is_multiple_of(rules.sweep_interval_ticks) {
        merge_packs(packs, &mut zombies, rules);
    }
    if now.is_multiple_of(rules.sweep_interval_ticks * 60) && !packs.packs.is_empty() {
        info!("{}", packs.summary());
    }
}

/// Fuses packs whose centroids are close and whose headings agree, smaller into larger.
fn merge_packs(packs: &mut Packs, zombies: &mut Members, rules: &crate::config::PackConfig) {
    let mut centroids = SpatialGrid::new(rules.merge_radius);
    for p in packs
        .packs
        .values()
        .filter(|p| p.state == PackState::Materialised)
    {
        centroids.insert(p.id, p.centroid);
    }
    let ids: Vec<PackId> = packs.packs.keys().copied().collect();
    let mut near = Vec::new();
    for id in ids {
        let Some(a) = packs
            .packs
            .get(&id)
            .filter(|p| p.state == PackState::Materialised)
        else {
            continue;
        };
        centroids.near(
            a.centroid,
            rules.merge_radius,
            rules.scan_cap as usize,
            &mut near,
        );
        let other = near.iter().map(|(o, _)| *o).find(|o| {
            *o != id
                && packs.packs.get(o).is_some_and(|b| {
                    b.state == PackState::Materialised
                        && a.members.len() + b.members.len() <= rules.max_size as usize
                        && merges(a.centroid, a.heading, b.centroid, b.heading, rules)
                })
        });
        let Some(other) = other else {
            continue;
        };
        let (keep, gone) = if packs.packs[&id].members.len() >= packs.packs[&other].members.len() {
            (id, other)
        } else {
            (other, id)
        };
        let gone = packs.packs.remove(&gone).expect("found above");
        for member in &gone.members {
            if let Ok((.., mut brain, _, _)) = zombies.get_mut(*member) {
                brain.pack = Some(keep);
            }
        }
        packs
            .packs
            .get_mut(&keep)
            .expect("found above")
            .members
            .extend(gone.members);
        packs.stats.merged += 1;
    }
}

/// Brings a ghost pack's members back, scattered on standable ground; false if a member finds
/// no ground within the search radius. Members that find ground beyond the rejoin radius come
/// back loose.
fn restore(
    commands: &mut Commands,
    pack: &mut Pack,
    layer_entity: Entity,
    layer: &ChunkLayer,
    kinds: &ZombieKinds,
    rules: &crate::config::PackConfig,
) -> bool {
    let ground = |p: DVec2| {
        let (x, z) = (p.x.floor() as i32, p.y.floor() as i32);
        standable_top(layer, x, z).map(|y| DVec3::new(x as f64 + 0.5, y as f64, z as f64 + 0.5))
    };
    let mut spots = Vec::with_capacity(pack.ghosts.len());
    for i in 0..pack.ghosts.len() {
        let near = ground(pack.centroid + scatter(i, rules.restore_scatter));
        // No ground there: look further out, ring by ring every 8 blocks or so.
        let reach = (rules.restore_search_radius - rules.restore_scatter).max(0.0);
        let rings = (reach / 8.0).ceil().max(1.0) as u32;
        let spot = near.or_else(|| {
            (1..=rings).find_map(|ring| {
                let r = rules.restore_scatter + reach * ring as f64 / rings as f64;
                (0..16).find_map(|k| {
                    ground(
                        pack.centroid
                            + DVec2::from_angle(k as f64 * std::f64::consts::FRAC_PI_8) * r,
                    )
                })
            })
        });
        match spot {
            Some(s) => spots.push(s),
            None => return false,
        }
    }
    for (ghost, spot) in pack.ghosts.drain(..).zip(spots) {
        let kind = ghost.kind as usize;
        let seed = pack.rng.next_unit().to_bits();
        let mut entity = commands.spawn(zombie_bundle(layer_entity, spot, kind, kinds, seed));
        let rejoins = rejoins(flat(spot), pack.centroid, rules);
        entity.insert((
            Vitality(ghost.health),
            PackBrain {
                pack: rejoins.then_some(pack.id),
                ..Default::default()
            },
        ));
        if ghost.fire_ticks > 0 {
            entity.insert(Burning {
                ticks_left: ghost.fire_ticks as u64,
            });
        }
        if let Some((kind, durability)) = ghost.helmet {
            entity.insert(Helmet {
                kind,
                durability: durability as u32,
            });
        }
        if rejoins {
            pack.members.push(entity.id());
        }
    }
    pack.state = PackState::Materialised;
    pack.unticked_sweeps = 0;
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PackConfig;

    #[test]
    fn stuck_packs_pick_a_new_leg_after_eight_updates() {
        let rules = PackConfig::default();
        let mut pack = Pack::new(1, DVec2::ZERO, 64.0, 42, &rules);
        let first = pack.dest;
        pack.migrate(0, &rules); // Sets the best distance.
        for i in 1..rules.stuck_activations {
            pack.migrate(i as u64, &rules);
            assert_eq!(pack.dest, first, "still on the first leg after {i}");
        }
        pack.migrate(100, &rules);
        assert_ne!(pack.dest, first, "a new leg");
        assert_eq!(pack.leg, 2);
    }

    #[test]
    fn arrival_dwells_then_moves_on() {
        let rules = PackConfig::default();
        let mut pack = Pack::new(1, DVec2::ZERO, 64.0, 42, &rules);
        pack.centroid = pack.dest + DVec2::new(3.0, 0.0);
        pack.migrate(1000, &rules);
        let until = pack.dwell_until.expect("dwelling");
        assert!((1200..=1300).contains(&until));
        pack.migrate(until - 1, &rules);
        assert_eq!(pack.leg, 1);
        pack.migrate(until, &rules);
        assert_eq!(pack.leg, 2);
        assert!(pack.dwell_until.is_none());
    }
}
