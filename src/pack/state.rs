//! The packs themselves: each pack's state and migration step, the table of all packs with
//! their counters, and what the pack systems cost.

use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use valence::math::DVec2;
use valence::prelude::*;

use crate::config::PackConfig;
use crate::random::Stream;
use crate::zombie::{ZombieKinds, ZombieRecord};

use super::ghost::{drift, ghost_step, glide, Glide};
use super::migration::{arrived, dwell_ticks, next_leg};
use super::sleep::{next_due, sleep_for, Region, Timetable};
use super::PackId;

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
    pub ghosts: Vec<ZombieRecord>,
    /// Walking speed of the slowest ghost member, blocks per second.
    pub(super) slowest_speed: f64,
    pub centroid: DVec2,
    /// Feet height near the centroid, for restoring.
    pub y: f64,
    pub heading: DVec2,
    pub dest: DVec2,
    /// Legs walked so far.
    pub leg: u32,
    /// Resting until this tick after arriving.
    pub dwell_until: Option<u64>,
    /// The pack's own random stream (legs, dwell, where members come back), saved with it.
    pub rng: Stream,
    pub(super) stuck: u32,
    pub(super) best_distance: f64,
    pub(super) below_min_since: Option<u64>,
    pub(super) unticked_sweeps: u32,
    /// Failed restores in a row.
    pub restore_failures: u32,
    pub(super) ghosted_at: Option<u64>,
    /// The tick of the next sweep of this pack.
    pub(super) next_due: u64,
    /// The tick of the last sweep walked (`None` before the first).
    pub(super) swept_at: Option<u64>,
    /// Asleep (a ghost far from everyone), in this region of the sleep index.
    pub(super) asleep_in: Option<Region>,
}

impl Pack {
    pub(super) fn new(
        id: PackId,
        at: DVec2,
        y: f64,
        seed: u64,
        rules: &crate::config::PackConfig,
    ) -> Self {
        let mut rng = Stream::new(seed);
        let heading = DVec2::from_angle(rng.unit() * std::f64::consts::TAU);
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
            rng,
            stuck: 0,
            best_distance: f64::INFINITY,
            below_min_since: None,
            unticked_sweeps: 0,
            restore_failures: 0,
            ghosted_at: None,
            next_due: 0,
            swept_at: None,
            asleep_in: None,
        }
    }

    /// Makes the pack a ghost of these members.
    pub(super) fn set_ghosts(&mut self, ghosts: Vec<ZombieRecord>, kinds: &ZombieKinds) {
        self.ghosts = ghosts;
        self.state = PackState::Ghost;
        self.refresh_pace(kinds);
    }

    /// Takes the slowest ghost member's walking speed from the types (again after a reload).
    pub(super) fn refresh_pace(&mut self, kinds: &ZombieKinds) {
        let slowest = self
            .ghosts
            .iter()
            .map(|g| kinds.get(g.kind as usize).speed)
            .fold(f64::INFINITY, f64::min);
        self.slowest_speed = if slowest.is_finite() { slowest } else { 0.0 };
    }

    pub fn size(&self) -> usize {
        match self.state {
            PackState::Materialised => self.members.len(),
            PackState::Ghost => self.ghosts.len(),
        }
    }

    /// Picks the next leg from where the pack stands.
    pub(super) fn new_leg(&mut self, rules: &crate::config::PackConfig) {
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

    /// A ghost's sweep at `tick`: when packs migrate, it drifts towards its destination
    /// (unless resting) and takes its migration step.
    pub(super) fn ghost_walk(
        &mut self,
        tick: u64,
        moving: bool,
        rules: &crate::config::PackConfig,
        tick_rate: f64,
    ) {
        if moving {
            if self.dwell_until.is_none() {
                let step = ghost_step(self.slowest_speed, rules, tick_rate);
                self.centroid = drift(self.centroid, self.dest, step);
            }
            self.migrate(tick, rules);
        }
        self.swept_at = Some(tick);
    }

    /// Walks a straight stretch (see [`glide`]) at once.
    fn glide(&mut self, stretch: Glide, step: f64) {
        let heading = (self.dest - self.centroid).normalize();
        self.centroid += heading * (step * stretch.sweeps as f64);
        self.best_distance = stretch.best_distance;
        self.stuck = stretch.stuck;
    }

    /// One migration step at `now`: dwell, arrive, or check headway. `moving` is false by day
    /// (unless packs migrate by day).
    pub(super) fn migrate(&mut self, now: u64, rules: &crate::config::PackConfig) {
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

    /// What the `packs` line says of this pack, as plain data.
    pub fn summary(&self) -> PackSummary {
        let (state, members, ghosts) = match self.state {
            PackState::Materialised => ("materialised", self.members.len(), 0),
            PackState::Ghost => ("ghost", 0, self.ghosts.len()),
        };
        PackSummary {
            id: self.id,
            members,
            ghosts,
            state,
            x: self.centroid.x,
            z: self.centroid.y,
            heading: self.heading.y.atan2(self.heading.x).to_degrees(),
            dest_x: self.dest.x,
            dest_z: self.dest.y,
            leg: self.leg,
            dwell: self.dwell_until.is_some(),
        }
    }

    /// `packs` line (logfmt).
    pub fn report(&self) -> String {
        self.summary().to_string()
    }

    /// What the save keeps of the pack at `now`, members aside.
    pub fn record(&self, now: u64) -> PackRecord {
        PackRecord {
            id: self.id,
            centroid: self.centroid,
            y: self.y,
            heading: self.heading,
            dest: self.dest,
            leg: self.leg,
            dwell_left: self.dwell_until.map(|u| u.saturating_sub(now)),
            seed: self.rng.seed(),
            draws: self.rng.draws(),
            restore_failures: self.restore_failures,
        }
    }
}

/// A pack as the save keeps it, members aside: its id, where it stands and goes, its rest,
/// its random stream (seed and draws taken) and its failed restores.
#[derive(Debug, Clone, PartialEq)]
pub struct PackRecord {
    pub id: PackId,
    pub centroid: DVec2,
    pub y: f64,
    pub heading: DVec2,
    pub dest: DVec2,
    pub leg: u32,
    /// Ticks of rest left (the tick counter starts over after a restart).
    pub dwell_left: Option<u64>,
    pub seed: u64,
    pub draws: u64,
    pub restore_failures: u32,
}

/// One pack as `packs` prints it; copied cheaply, formatted where it is shown.
#[derive(serde::Serialize, Debug, Clone, Copy, PartialEq)]
pub struct PackSummary {
    pub id: PackId,
    pub members: usize,
    pub ghosts: usize,
    pub state: &'static str,
    pub x: f64,
    pub z: f64,
    /// Degrees: 0 towards +x, 90 towards +z.
    pub heading: f64,
    pub dest_x: f64,
    pub dest_z: f64,
    /// Legs walked so far.
    pub leg: u32,
    /// Resting after arriving.
    pub dwell: bool,
}

impl std::fmt::Display for PackSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "id={} members={} ghosts={} state={} x={:.1} z={:.1} heading={:.0} dest_x={:.1} dest_z={:.1} leg={} dwell={}",
            self.id,
            self.members,
            self.ghosts,
            self.state,
            self.x,
            self.z,
            self.heading,
            self.dest_x,
            self.dest_z,
            self.leg,
            self.dwell
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

impl PackStats {
    /// Adds the counts of `more`.
    pub(super) fn add(&mut self, more: &PackStats) {
        self.formed += more.formed;
        self.merged += more.merged;
        self.dissolved += more.dissolved;
        self.dematerialised += more.dematerialised;
        self.restores += more.restores;
        self.failed_restores += more.failed_restores;
        self.give_ups += more.give_ups;
        self.flaps += more.flaps;
    }
}

/// Every pack, by id. Packs are added and removed only through [`Packs`]' methods, which keep
/// two indexes: when each pack is next swept, so that a tick finds the packs due without
/// walking every ghost in the world (and far ghosts sleep, see [`super::sleep`]), and which
/// packs are materialised, with their centroids, for what looks only at those (membership
/// copies the centroids each tick from this small map rather than from the map of every
/// pack). Whatever moves a materialised pack's centroid calls [`Packs::note_state`] after.
#[derive(Resource, Debug, Default)]
pub struct Packs {
    packs: FxHashMap<PackId, Pack>,
    next_id: PackId,
    pub(super) stats: PackStats,
    /// What the pack systems cost per tick, over the last minute.
    cost: CostWindow,
    timetable: Timetable,
    /// The rules and tick rate sweeps walk by, kept to walk a sleeper's missed sweeps as they
    /// would have been, a reload notwithstanding.
    walked_by: Option<(PackConfig, f64)>,
    materialised: BTreeMap<PackId, DVec2>,
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

pub(super) fn start_clock(mut packs: ResMut<Packs>) {
    packs.cost.started = Some(std::time::Instant::now());
}

pub(super) fn stop_clock(mut packs: ResMut<Packs>) {
    if let Some(start) = packs.cost.started.take() {
        let cost = &mut packs.cost;
        if cost.samples.len() == CostWindow::LEN {
            cost.samples.pop_front();
        }
        cost.samples
            .push_back(start.elapsed().as_secs_f64() * 1000.0);
    }
}

impl Packs {
    /// Every pack, in no order.
    pub fn iter(&self) -> impl Iterator<Item = &Pack> {
        self.packs.values()
    }

    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = &mut Pack> {
        self.packs.values_mut()
    }

    pub fn get(&self, id: PackId) -> Option<&Pack> {
        self.packs.get(&id)
    }

    pub(super) fn get_mut(&mut self, id: PackId) -> Option<&mut Pack> {
        self.packs.get_mut(&id)
    }

    pub fn len(&self) -> usize {
        self.packs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packs.is_empty()
    }

    /// The id the next new pack gets, less one (saved, so ids are never reused).
    pub fn next_id(&self) -> PackId {
        self.next_id
    }

    pub fn stats(&self) -> &PackStats {
        &self.stats
    }

    /// What the pack systems cost per tick, over the last minute.
    pub fn cost(&self) -> &CostWindow {
        &self.cost
    }

    /// Starts the cost window afresh (a benchmark's measured stretch).
    pub fn clear_cost(&mut self) {
        self.cost.clear();
    }

    fn index(&mut self, id: PackId) {
        self.timetable.added.push(id);
        self.note_state(id);
    }

    /// Keeps the materialised index in step after a pack's state or centroid may have
    /// changed.
    pub(super) fn note_state(&mut self, id: PackId) {
        match self.packs.get(&id).map(|p| (p.state, p.centroid)) {
            Some((PackState::Materialised, centroid)) => {
                self.materialised.insert(id, centroid);
            }
            _ => {
                self.materialised.remove(&id);
            }
        }
    }

    /// Removes a pack; its entries in the timetable are skipped from then on.
    pub(super) fn remove(&mut self, id: PackId) -> Option<Pack> {
        let pack = self.packs.remove(&id)?;
        if let Some(region) = pack.asleep_in {
            self.timetable.forget_sleeper(id, region);
        }
        self.materialised.remove(&id);
        Some(pack)
    }

    /// Begins tick `now`'s sweep: notes whether packs migrate; after a reload of the pack
    /// rules or zombie types, walks every sleeper's missed sweeps by the rules they missed them
    /// under and wakes it; wakes the sleepers near regions that just began entity-ticking
    /// (`ticking`, given when the entity-ticking chunks changed); and returns the packs due.
    pub(super) fn begin_sweep(
        &mut self,
        now: u64,
        moving: bool,
        reloaded: bool,
        ticking: Option<impl Iterator<Item = ChunkPos>>,
        rules: &PackConfig,
        tick_rate: f64,
    ) -> Vec<PackId> {
        let mut woken = Vec::new();
        if reloaded {
            // Walked by the rules they slept under, before those change below.
            woken = self.timetable.wake_all();
            for &(id, _) in &woken {
                self.wake(id, now);
            }
        }
        if reloaded || self.walked_by.is_none() {
            self.walked_by = Some((rules.clone(), tick_rate));
        }
        let interval = rules.sweep_interval_ticks;
        self.timetable.note_moving(now, moving, interval);
        if let Some(chunks) = ticking {
            woken.extend(self.timetable.watch(chunks));
        }
        let added = std::mem::take(&mut self.timetable.added);
        for id in woken.into_iter().map(|(id, _)| id).chain(added) {
            self.wake(id, now);
            if let Some(pack) = self.packs.get_mut(&id) {
                // On its own rhythm: the first of its sweeps from now on.
                pack.next_due = match pack.swept_at {
                    Some(last) => {
                        last + interval * (now.saturating_sub(last)).div_ceil(interval).max(1)
                    }
                    None => next_due(now, id, interval),
                };
                self.timetable.schedule(id, pack.next_due);
            }
        }
        let mut due = self.timetable.take_due(now);
        // A pack woken onto this tick may also have had it as its own.
        due.sort_unstable();
        due.dedup();
        for &id in &due {
            // A sleeper's turn came: it walks what it slept through first.
            if self.packs.get(&id).is_some_and(|p| p.next_due <= now) {
                self.wake(id, now);
            }
        }
        due
    }

    /// Wakes pack `id` if it sleeps: it walks the sweeps it missed before `now` and leaves the
    /// sleep index.
    fn wake(&mut self, id: PackId, now: u64) {
        self.walk_missed(id, now);
        if let Some(region) = self.packs.get_mut(&id).and_then(|p| p.asleep_in.take()) {
            self.timetable.forget_sleeper(id, region);
        }
    }

    /// Whether pack `id` is due at `now` (an entry of the timetable may be stale: the pack was
    /// woken and rescheduled, or is already swept this tick).
    pub(super) fn is_due(&self, id: PackId, now: u64) -> bool {
        self.packs
            .get(&id)
            .is_some_and(|p| p.next_due <= now && p.swept_at != Some(now))
    }

    /// Schedules pack `id`'s next sweep after the one at `now`: the next interval, or a few
    /// later for a ghost far from every entity-ticking chunk.
    pub(super) fn schedule_next(
        &mut self,
        id: PackId,
        now: u64,
        rules: &PackConfig,
        tick_rate: f64,
    ) {
        let Some(pack) = self.packs.get_mut(&id) else {
            return;
        };
        pack.swept_at = Some(now);
        let sweeps = if pack.state == PackState::Ghost && self.timetable.may_sleep(pack.centroid) {
            sleep_for(ghost_step(pack.slowest_speed, rules, tick_rate), id)
        } else {
            1
        };
        if sweeps >= 2 {
            pack.asleep_in = Some(self.timetable.fall_asleep(id, pack.centroid));
        }
        pack.next_due = now + sweeps.max(1) * rules.sweep_interval_ticks;
        self.timetable.schedule(id, pack.next_due);
    }

    /// Walks the sweeps sleeping ghost `id` missed before `before`, by the rules in force.
    fn walk_missed(&mut self, id: PackId, before: u64) {
        let (Some(pack), Some((rules, tick_rate))) = (self.packs.get_mut(&id), &self.walked_by)
        else {
            return;
        };
        if pack.state != PackState::Ghost || pack.asleep_in.is_none() {
            return;
        }
        let interval = rules.sweep_interval_ticks;
        let Some(mut tick) = pack.swept_at.map(|t| t + interval) else {
            return;
        };
        // The log outlasts the longest sleep; a tick it lost counts as still.
        let moving = |tick: u64| self.timetable.moving_at(tick).unwrap_or(false);
        let step = ghost_step(pack.slowest_speed, rules, *tick_rate);
        while tick < before {
            if moving(tick) && pack.dwell_until.is_none() {
                // Straight stretches at once: the sweeps by day in between change nothing.
                let migrating = (tick..before)
                    .step_by(interval as usize)
                    .filter(|t| moving(*t))
                    .count() as u64;
                let stretch = glide(
                    pack.centroid.distance(pack.dest),
                    step,
                    pack.best_distance,
                    pack.stuck,
                    migrating,
                    rules,
                );
                if stretch.sweeps > 0 {
                    let mut left = stretch.sweeps;
                    while left > 0 {
                        left -= u64::from(moving(tick));
                        tick += interval;
                    }
                    pack.glide(stretch, step);
                    pack.swept_at = Some(tick - interval);
                    continue;
                }
            }
            pack.ghost_walk(tick, moving(tick), rules, *tick_rate);
            tick += interval;
        }
    }

    /// Walks every sleeping ghost up to `now`, for what reads them (`packs`, the save); they
    /// sleep on.
    pub fn catch_up_sleepers(&mut self, now: u64) {
        let sleepers: Vec<PackId> = self
            .packs
            .values()
            .filter(|p| p.asleep_in.is_some())
            .map(|p| p.id)
            .collect();
        for id in sleepers {
            self.walk_missed(id, now);
        }
    }

    /// The materialised packs.
    pub fn materialised(&self) -> impl Iterator<Item = &Pack> {
        self.materialised.keys().filter_map(|id| self.packs.get(id))
    }

    /// The materialised packs' centroids, as of their last sweep.
    pub(super) fn materialised_centroids(&self) -> impl Iterator<Item = (PackId, DVec2)> + '_ {
        self.materialised.iter().map(|(id, c)| (*id, *c))
    }

    pub fn ghost_members(&self) -> usize {
        self.packs
            .values()
            .filter(|p| p.state == PackState::Ghost)
            .map(|p| p.ghosts.len())
            .sum()
    }

    /// The summary line of `packs` (logfmt), with what the pack systems cost a tick over the
    /// last minute.
    pub fn summary(&self) -> String {
        let s = &self.stats;
        let ghosts = self
            .packs
            .values()
            .filter(|p| p.state == PackState::Ghost)
            .count();
        let (cost_mean, cost_p99) = self.cost.summary();
        format!(
            "packs={} ghost_packs={ghosts} ghost_members={} formed={} merged={} dissolved={} dematerialised={} restores={} failed_restores={} give_ups={} flaps={} cost_mean_ms={cost_mean:.3} cost_p99_ms={cost_p99:.3}",
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
    /// watched yet, and members come back where someone is. Later packs get later ids.
    pub fn insert_saved(
        &mut self,
        saved: PackRecord,
        ghosts: Vec<ZombieRecord>,
        kinds: &ZombieKinds,
        rules: &PackConfig,
    ) {
        let id = saved.id;
        let mut pack = Pack::new(id, saved.centroid, saved.y, saved.seed, rules);
        pack.set_ghosts(ghosts, kinds);
        pack.heading = saved.heading;
        pack.dest = saved.dest;
        pack.leg = saved.leg;
        pack.dwell_until = saved.dwell_left;
        pack.rng = Stream::resume(saved.seed, saved.draws);
        pack.restore_failures = saved.restore_failures;
        self.next_id = self.next_id.max(id);
        self.packs.insert(id, pack);
        self.index(id);
    }

    /// Ids up to `id` are taken (a save's count, which may exceed its packs' ids).
    pub fn reserve_ids(&mut self, id: PackId) {
        self.next_id = self.next_id.max(id);
    }

    /// Adds a new ghost pack at `at` with these members: a benchmark's or a test's crowd out
    /// of sight.
    pub fn adopt_ghost(
        &mut self,
        at: DVec2,
        y: f64,
        ghosts: Vec<ZombieRecord>,
        world_seed: i64,
        kinds: &ZombieKinds,
        rules: &PackConfig,
    ) -> PackId {
        let id = self.create(at, y, world_seed, rules);
        let pack = self.packs.get_mut(&id).expect("just created");
        pack.set_ghosts(ghosts, kinds);
        self.note_state(id);
        id
    }

    pub(super) fn create(
        &mut self,
        at: DVec2,
        y: f64,
        world_seed: i64,
        rules: &crate::config::PackConfig,
    ) -> PackId {
        self.next_id += 1;
        let id = self.next_id;
        let seed = crate::random::mix(world_seed as u64 ^ crate::random::mix(id));
        self.packs.insert(id, Pack::new(id, at, y, seed, rules));
        self.index(id);
        id
    }
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

    #[test]
    fn a_sleeping_ghost_walks_the_route_of_one_swept_every_time() {
        let rules = PackConfig::default();
        let kinds = ZombieKinds::new(&crate::config::ZombiesConfig::default().types);
        let member = ZombieRecord::fresh(0, &kinds);
        let (interval, tick_rate) = (rules.sweep_interval_ticks, 20.0);
        // Night and day by turns, 1,000 ticks each, and a player far away the whole time.
        let moving = |tick: u64| (tick / 1000).is_multiple_of(2);
        let far = [ChunkPos::new(0, 0)];
        let chunk_at = |p: DVec2| ChunkPos::new((p.x / 16.0) as i32, (p.y / 16.0) as i32);
        let mut sleepy = Packs::default();
        let id = sleepy.adopt_ghost(
            DVec2::new(30_000.0, 0.0),
            64.0,
            vec![member; 24],
            7,
            &kinds,
            &rules,
        );
        let mut awake = sleepy.packs[&id].clone();
        let mut slept = 0;
        for now in 1..20_000 {
            // A player comes near at 7,000 (waking it) and leaves at 9,000; at 13,000 a
            // reload wakes every sleeper.
            let near = [chunk_at(
                sleepy.packs[&id].centroid + DVec2::new(300.0, 0.0),
            )];
            let was_asleep = sleepy.packs[&id].asleep_in.is_some();
            let ticking = match now {
                1 | 9_000 => Some(far.to_vec()),
                7_000 => Some(near.to_vec()),
                _ => None,
            };
            let reload = now == 13_000;
            let due = sleepy.begin_sweep(
                now,
                moving(now),
                reload,
                ticking.map(|c| c.into_iter()),
                &rules,
                tick_rate,
            );
            if now == 7_000 || reload {
                assert!(
                    was_asleep && sleepy.packs[&id].asleep_in.is_none(),
                    "woken at {now}"
                );
            }
            for due in due {
                if sleepy.is_due(due, now) {
                    let pack = sleepy.packs.get_mut(&due).unwrap();
                    pack.ghost_walk(now, moving(now), &rules, tick_rate);
                    sleepy.schedule_next(due, now, &rules, tick_rate);
                    slept += (sleepy.packs[&due].next_due - now) / interval - 1;
                }
            }
            if (id + now).is_multiple_of(interval) {
                awake.ghost_walk(now, moving(now), &rules, tick_rate);
            }
        }
        assert!(slept > 500, "it slept through {slept} sweeps");
        sleepy.catch_up_sleepers(20_000);
        let (a, b) = (&sleepy.packs[&id], &awake);
        // Straight stretches are walked at once: the same route, to within rounding.
        assert!(a.centroid.distance(b.centroid) < 1e-6, "{a:?}\n{b:?}");
        assert!(a.dest.distance(b.dest) < 1e-6);
        assert_eq!(
            (a.leg, a.dwell_until, a.rng.draws()),
            (b.leg, b.dwell_until, b.rng.draws())
        );
        assert!(a.leg > 1, "the route had several legs");
    }

    #[test]
    fn a_ghost_pack_keeps_the_pace_of_its_slowest_member() {
        let rules = PackConfig::default();
        let kinds = ZombieKinds::new(&crate::config::ZombiesConfig::default().types);
        let member = |name: &str| ZombieRecord::fresh(kinds.find(name).unwrap(), &kinds);
        let mut pack = Pack::new(1, DVec2::ZERO, 64.0, 42, &rules);
        pack.set_ghosts(vec![member("fast_zombie"), member("zombie")], &kinds);
        assert_eq!(
            pack.slowest_speed, 2.3,
            "the vanilla-like zombie, not the fast one"
        );
        assert_eq!(pack.state, PackState::Ghost);
    }
}
