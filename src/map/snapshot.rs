//! What the page shows, as the tick sees it once per publish interval: cheap copies here, JSON
//! later on the map's own thread. The field names are the `/api/state` API.

use std::collections::{HashMap, HashSet, VecDeque};

use serde::Serialize;
use valence::math::DVec2;

use crate::config::PackConfig;
use crate::pack::{Pack, PackId, PackSummary};

#[derive(Serialize, Debug, Clone, Default)]
pub struct State {
    pub tick: i64,
    pub time: Time,
    pub phase: u32,
    pub weather: &'static str,
    pub players: Vec<Player>,
    pub packs: Vec<PackView>,
    pub merges: Vec<Merge>,
    pub counts: Counts,
    /// The noise heat map: each warm chunk and its heat, with the heat that calls zombies.
    pub heat: Vec<HeatCell>,
    pub summon_threshold: f32,
    /// Chunk load and unload latencies in ticks, as `chunks` prints them.
    pub chunks: String,
    /// The `[pack]` settings in force (a `reload` shows here).
    pub pack_config: Option<PackConfig>,
}

#[derive(Serialize, Debug, Clone, Default)]
pub struct Time {
    /// Vanilla-scale time of day, 0 to 24000.
    pub time_of_day: i64,
    pub day: i64,
    pub is_day: bool,
}

#[derive(Serialize, Debug, Clone)]
pub struct Player {
    pub name: String,
    pub x: f64,
    pub z: f64,
}

/// A pack on the map: what its `packs` line says, and its trail. The line itself is written
/// when the state is serialised, on the map's thread, not on the tick.
#[derive(Debug, Clone)]
pub struct PackView {
    pub pack: PackSummary,
    /// Centroids over the last night, oldest first.
    pub trail: Vec<[f64; 2]>,
}

impl PackView {
    pub fn of(pack: &Pack, trail: Option<&VecDeque<[f64; 2]>>) -> Self {
        Self {
            pack: pack.summary(),
            trail: trail
                .map(|t| t.iter().copied().collect())
                .unwrap_or_default(),
        }
    }
}

impl Serialize for PackView {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Json<'a> {
            #[serde(flatten)]
            pack: &'a PackSummary,
            trail: &'a [[f64; 2]],
            line: String,
        }
        Json {
            pack: &self.pack,
            trail: &self.trail,
            line: self.pack.to_string(),
        }
        .serialize(serializer)
    }
}

#[derive(Serialize, Debug, Clone, Copy)]
pub struct Merge {
    pub kept: PackId,
    pub gone: PackId,
    pub x: f64,
    pub z: f64,
    pub tick: i64,
}

/// A chunk of the noise heat map.
#[derive(Serialize, Debug, Clone, Copy)]
pub struct HeatCell {
    /// The chunk's coordinates (blocks / 16).
    pub chunk_x: i32,
    pub chunk_z: i32,
    pub heat: f32,
}

#[derive(Serialize, Debug, Clone, Default)]
pub struct Counts {
    pub packs: usize,
    pub ghost_packs: usize,
    pub ghost_members: usize,
    pub materialised_zombies: usize,
}

/// Each pack's centroid every trail interval, for the last night, to a tenth of a block: the
/// page draws a line through them, and every digit more is sent to every open page each
/// publish interval.
#[derive(Debug, Default)]
pub struct Trails {
    points: HashMap<PackId, VecDeque<[f64; 2]>>,
}

impl Trails {
    /// Adds each pack's point, keeps at most `keep` per pack, forgets packs that are gone.
    pub fn record(&mut self, centroids: impl Iterator<Item = (PackId, DVec2)>, keep: usize) {
        let tenth = |v: f64| (v * 10.0).round() / 10.0;
        let mut seen = HashSet::new();
        for (id, at) in centroids {
            let trail = self.points.entry(id).or_default();
            trail.push_back([tenth(at.x), tenth(at.y)]);
            while trail.len() > keep {
                trail.pop_front();
            }
            seen.insert(id);
        }
        self.points.retain(|id, _| seen.contains(id));
    }

    pub fn of(&self, id: PackId) -> Option<&VecDeque<[f64; 2]>> {
        self.points.get(&id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trail_keeps_its_last_points_to_a_tenth_and_goes_with_its_pack() {
        let mut trails = Trails::default();
        for i in 0..10 {
            let step = DVec2::new(i as f64 * 1.234_567, -(i as f64) / 3.0);
            trails.record([(1, step), (2, step * 2.0)].into_iter(), 4);
        }
        let one: Vec<_> = trails.of(1).unwrap().iter().copied().collect();
        assert_eq!(one, [[7.4, -2.0], [8.6, -2.3], [9.9, -2.7], [11.1, -3.0]]);
        trails.record([(2, DVec2::ZERO)].into_iter(), 4);
        assert!(trails.of(1).is_none(), "a pack gone takes its trail");
        assert_eq!(trails.of(2).unwrap().back(), Some(&[0.0, 0.0]));
    }
}
