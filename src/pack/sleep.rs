//! Sleeping ghosts. A ghost pack far from every entity-ticking chunk cannot come back for a
//! while, however it walks: it is swept only every few sweeps, and each visit first walks the
//! sweeps it slept through, tick for tick and with the day and night each of them had, so its
//! route and random draws are the same as if it had been swept every time. It wakes early
//! when an entity-ticking area appears near it. With a million ghost members, this is what
//! keeps the sweep from touching every pack every second.

use std::collections::{BTreeMap, VecDeque};

use rustc_hash::{FxHashMap, FxHashSet};
use valence::math::DVec2;
use valence::prelude::ChunkPos;

use super::PackId;

/// Side of a region of the sleep index, in blocks (16 × 16 chunks).
const REGION: f64 = 256.0;

/// Most sweeps a ghost sleeps through at once.
pub(super) const MAX_SLEEP_SWEEPS: u64 = 32;

/// Blocks a sleeping ghost may walk: half a region, so it stays among the regions next to the
/// one it fell asleep in.
const SLEEP_REACH: f64 = REGION / 2.0;

/// A square of `REGION` blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Region {
    x: i32,
    z: i32,
}

impl Region {
    pub(super) fn of(p: DVec2) -> Self {
        Self {
            x: (p.x / REGION).floor() as i32,
            z: (p.y / REGION).floor() as i32,
        }
    }

    fn of_chunk(c: ChunkPos) -> Self {
        let per = REGION as i32 / 16;
        Self {
            x: c.x.div_euclid(per),
            z: c.z.div_euclid(per),
        }
    }

    /// The regions within two of this one (5 × 5).
    fn around(self) -> impl Iterator<Item = Region> {
        (-2..=2).flat_map(move |dx| {
            (-2..=2).map(move |dz| Region {
                x: self.x + dx,
                z: self.z + dz,
            })
        })
    }
}

/// Sweeps a ghost walking `step` blocks a sweep may sleep through, or 0 (1 is no sleep).
/// Asleep in region `r`, it walks at most `SLEEP_REACH` and so stays within one region of
/// `r`; a ghost comes back only a chunk inside the entity-ticking area, so it can need waking
/// only if a region within two of `r` has an entity-ticking chunk, which wakes it.
pub(super) fn sleep_sweeps(step: f64) -> u64 {
    if step <= 0.0 {
        return MAX_SLEEP_SWEEPS;
    }
    ((SLEEP_REACH / step).floor() as u64).min(MAX_SLEEP_SWEEPS)
}

/// Sweeps pack `id` sleeps through: between half and all of [`sleep_sweeps`], by its id, so
/// that the packs that fell asleep on one tick do not all wake on one.
pub(super) fn sleep_for(step: f64, id: PackId) -> u64 {
    let most = sleep_sweeps(step);
    most - id % (most / 2).max(1)
}

/// The first tick at or after `from` on which pack `id` is due, when each pack is swept once
/// per `interval` ticks on the ticks with `(id + tick) % interval == 0`.
pub(super) fn next_due(from: u64, id: PackId, interval: u64) -> u64 {
    let phase = (interval - (id + from) % interval) % interval;
    from + phase
}

/// Whether packs migrated on each recent tick (night, or a storm, or by day if allowed), so
/// that a waking ghost walks the sweeps it slept through as they were.
#[derive(Debug, Default)]
struct MovingLog {
    /// The tick of `bits[0]`.
    first: u64,
    bits: VecDeque<bool>,
}

impl MovingLog {
    /// Ticks kept: enough for the longest sleep at the sweep interval in force.
    fn note(&mut self, now: u64, moving: bool, keep: usize) {
        if self.bits.is_empty() {
            self.first = now;
        }
        // Ticks the log did not see (none in a running server) count as this one.
        while self.first + (self.bits.len() as u64) <= now {
            self.bits.push_back(moving);
        }
        while self.bits.len() > keep {
            self.bits.pop_front();
            self.first += 1;
        }
    }

    fn at(&self, tick: u64) -> Option<bool> {
        let i = tick.checked_sub(self.first)?;
        self.bits.get(i as usize).copied()
    }
}

/// When each pack is next swept, which ghosts sleep where, and the recent days and nights.
#[derive(Debug, Default)]
pub(super) struct Timetable {
    /// Pack ids by the tick they are next due; an entry whose pack has another `next_due`
    /// (woken early) or is gone is skipped.
    due: BTreeMap<u64, Vec<PackId>>,
    /// Sleeping ghosts by the region they fell asleep in.
    sleepers: FxHashMap<Region, FxHashSet<PackId>>,
    /// Regions with an entity-ticking chunk.
    ticking: FxHashSet<Region>,
    moving: MovingLog,
    /// Packs added since the last tick, scheduled on the next.
    pub(super) added: Vec<PackId>,
}

impl Timetable {
    pub(super) fn schedule(&mut self, id: PackId, tick: u64) {
        self.due.entry(tick).or_default().push(id);
    }

    /// The packs due at `now` (and any left from earlier ticks).
    pub(super) fn take_due(&mut self, now: u64) -> Vec<PackId> {
        let mut out = Vec::new();
        while let Some(entry) = self.due.first_entry() {
            if *entry.key() > now {
                break;
            }
            out.append(&mut entry.remove());
        }
        out
    }

    pub(super) fn fall_asleep(&mut self, id: PackId, at: DVec2) -> Region {
        let region = Region::of(at);
        self.sleepers.entry(region).or_default().insert(id);
        region
    }

    /// A sleeper woke on its own turn, or is gone.
    pub(super) fn forget_sleeper(&mut self, id: PackId, region: Region) {
        if let Some(ids) = self.sleepers.get_mut(&region) {
            ids.remove(&id);
            if ids.is_empty() {
                self.sleepers.remove(&region);
            }
        }
    }

    /// Whether a ghost at `at` is far enough from every entity-ticking chunk to sleep.
    pub(super) fn may_sleep(&self, at: DVec2) -> bool {
        Region::of(at).around().all(|r| !self.ticking.contains(&r))
    }

    /// Takes the ticking chunks as they are now; returns the sleepers to wake, those near
    /// regions that have just begun ticking (each with the region it fell asleep in).
    pub(super) fn watch(
        &mut self,
        chunks: impl Iterator<Item = ChunkPos>,
    ) -> Vec<(PackId, Region)> {
        let now: FxHashSet<Region> = chunks.map(Region::of_chunk).collect();
        let mut woken = Vec::new();
        for new in now.difference(&self.ticking) {
            for near in new.around() {
                if let Some(ids) = self.sleepers.remove(&near) {
                    woken.extend(ids.into_iter().map(|id| (id, near)));
                }
            }
        }
        self.ticking = now;
        woken
    }

    /// Every sleeper, to wake them all (a reload).
    pub(super) fn wake_all(&mut self) -> Vec<(PackId, Region)> {
        self.sleepers
            .drain()
            .flat_map(|(region, ids)| ids.into_iter().map(move |id| (id, region)))
            .collect()
    }

    pub(super) fn note_moving(&mut self, now: u64, moving: bool, interval: u64) {
        let keep = ((MAX_SLEEP_SWEEPS + 1) * interval) as usize;
        self.moving.note(now, moving, keep);
    }

    /// Whether packs migrated at `tick`, if the log still holds it.
    pub(super) fn moving_at(&self, tick: u64) -> Option<bool> {
        self.moving.at(tick)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_are_due_on_their_own_phase() {
        for id in [0, 1, 7, 19, 20, 41] {
            for from in [0, 5, 19, 20, 1000] {
                let due = next_due(from, id, 20);
                assert!(due >= from && due < from + 20);
                assert_eq!((id + due) % 20, 0);
            }
        }
    }

    #[test]
    fn a_sleeper_walks_at_most_half_a_region() {
        assert_eq!(sleep_sweeps(0.92), 32);
        assert_eq!(sleep_sweeps(8.0), 16);
        assert_eq!(sleep_sweeps(200.0), 0);
        assert_eq!(sleep_sweeps(0.0), MAX_SLEEP_SWEEPS);
        for step in [0.5, 3.0, 10.0, 100.0] {
            assert!(sleep_sweeps(step) as f64 * step <= SLEEP_REACH);
        }
        // Packs sleep for different spans, so a crowd that fell asleep at once wakes spread.
        let spans: std::collections::BTreeSet<u64> =
            (0..100).map(|id| sleep_for(0.92, id)).collect();
        assert_eq!(spans.first().copied(), Some(17));
        assert_eq!(spans.last().copied(), Some(32));
        assert_eq!(spans.len(), 16);
    }

    #[test]
    fn sleepers_near_a_new_ticking_region_wake_and_no_others() {
        let mut t = Timetable::default();
        let far = DVec2::new(20_000.0, 0.0);
        let near = DVec2::new(700.0, 0.0);
        assert!(t.may_sleep(far) && t.may_sleep(near));
        t.fall_asleep(1, far);
        t.fall_asleep(2, near);
        // A player arrives at x = 1100 (region 4): region 2 (the near ghost's) is two away.
        let woken = t.watch([ChunkPos::new(1100 / 16, 0)].into_iter());
        assert_eq!(woken, vec![(2, Region::of(near))]);
        assert!(!t.may_sleep(near));
        assert!(t.may_sleep(far));
        // The same area ticking on wakes nobody.
        assert!(t
            .watch([ChunkPos::new(1100 / 16, 0)].into_iter())
            .is_empty());
    }

    #[test]
    fn the_log_keeps_recent_ticks() {
        let mut log = MovingLog::default();
        for tick in 100..200 {
            log.note(tick, tick >= 150, 40);
        }
        assert_eq!(log.at(160), Some(true));
        assert_eq!(log.at(199), Some(true));
        assert_eq!(log.at(159), None, "older than kept");
        assert_eq!(log.at(200), None, "not yet");
    }

    #[test]
    fn due_ticks_come_out_in_order_once() {
        let mut t = Timetable::default();
        t.schedule(1, 19);
        t.schedule(2, 39);
        t.schedule(3, 19);
        assert!(t.take_due(18).is_empty());
        assert_eq!(t.take_due(19), vec![1, 3]);
        assert!(t.take_due(19).is_empty());
        assert_eq!(t.take_due(45), vec![2]);
    }
}
