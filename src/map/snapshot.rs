//! What the page shows, as the tick sees it once per publish interval: cheap copies here, JSON
//! later on the map's own thread. The field names are the `/api/state` API.

use std::collections::{HashMap, VecDeque};

use serde::Serialize;

use crate::config::PackConfig;
use crate::pack::{Pack, PackId, PackState};

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

#[derive(Serialize, Debug, Clone)]
pub struct PackView {
    pub id: PackId,
    pub state: &'static str,
    pub members: usize,
    pub ghosts: usize,
    pub x: f64,
    pub z: f64,
    /// Degrees, as `packs` prints it: 0 towards +x, 90 towards +z.
    pub heading: f64,
    pub dest_x: f64,
    pub dest_z: f64,
    /// Centroids over the last night, oldest first.
    pub trail: Vec<[f64; 2]>,
    /// The pack's `packs` line.
    pub line: String,
}

impl PackView {
    pub fn of(pack: &Pack, trail: Option<&VecDeque<[f64; 2]>>) -> Self {
        let (state, members, ghosts) = match pack.state {
            PackState::Materialised => ("materialised", pack.members.len(), 0),
            PackState::Ghost => ("ghost", 0, pack.ghosts.len()),
        };
        Self {
            id: pack.id,
            state,
            members,
            ghosts,
            x: pack.centroid.x,
            z: pack.centroid.y,
            heading: pack.heading.y.atan2(pack.heading.x).to_degrees(),
            dest_x: pack.dest.x,
            dest_z: pack.dest.y,
            trail: trail
                .map(|t| t.iter().copied().collect())
                .unwrap_or_default(),
            line: pack.report(),
        }
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

#[derive(Serialize, Debug, Clone, Default)]
pub struct Counts {
    pub packs: usize,
    pub ghost_packs: usize,
    pub ghost_members: usize,
    pub materialised_zombies: usize,
}

/// Each pack's centroid every trail interval, for the last night.
#[derive(Debug, Default)]
pub struct Trails {
    points: HashMap<PackId, VecDeque<[f64; 2]>>,
}

impl Trails {
    /// Adds each pack's point, keeps at most `keep` per pack, forgets packs that are gone.
    pub fn record<'a>(&mut self, packs: impl Iterator<Item = &'a Pack>, keep: usize) {
        let mut seen = Vec::new();
        for pack in packs {
            let trail = self.points.entry(pack.id).or_default();
            trail.push_back([pack.centroid.x, pack.centroid.y]);
            while trail.len() > keep {
                trail.pop_front();
            }
            seen.push(pack.id);
        }
        self.points.retain(|id, _| seen.contains(id));
    }

    pub fn of(&self, id: PackId) -> Option<&VecDeque<[f64; 2]>> {
        self.points.get(&id)
    }
}
