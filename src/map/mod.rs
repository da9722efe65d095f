//! The live web map: packs at their centroids with heading, destination and trail over the last
//! night, ghosts drawn apart, merges, players by name, the noise heat map and the terrain
//! underneath, served by
//! this process for the operator who tunes migration (`[map]`, `GET /api/state`).
//!
//! The tick's share is a snapshot of cheap copies once per `map.publish_interval_ticks` and
//! the surfaces of chunks as they arrive; the HTTP side (`server`) has its own thread.

mod server;
pub mod snapshot;
pub mod tiles;

use std::net::SocketAddr;
use std::sync::Arc;

use bevy_ecs::system::SystemParam;
use valence::prelude::*;

use crate::config::Config;
use crate::daylight::WorldPhase;
use crate::pack::{PackState, Packs, PacksMerged};
use crate::time::WorldClock;
use crate::weather::Weather;
use crate::world::surface::{column_top, ChunkArrived};
use crate::world::{BlocksChanged, ChunkLifecycle, Overworld};
use crate::zombie::Zombie;
use snapshot::{Counts, HeatCell, Merge, PackView, Player, State, Time, Trails};
use tiles::TileUpdate;

/// Merges kept on the map.
const MERGES_SHOWN: usize = 64;
/// An edit wider than this many columns is not redrawn on the map (each column is a scan of up
/// to the world's height on the tick; a `fill` of a whole area is rare and shows when its
/// chunks load again).
const EDIT_COLUMNS: i64 = 1024;

/// Serves the map at `address`; [`MapPlugin::start`] binds it.
pub struct MapPlugin {
    feed: std::sync::Mutex<Option<server::Feed>>,
}

impl MapPlugin {
    /// Binds the map's listener (port 0 picks a free one) and starts its thread; returns the
    /// plugin and the address it serves on.
    pub fn start(address: SocketAddr, max_connections: u32) -> anyhow::Result<(Self, SocketAddr)> {
        let (feed, bound) = server::start(address, max_connections)?;
        Ok((
            Self {
                feed: std::sync::Mutex::new(Some(feed)),
            },
            bound,
        ))
    }
}

impl Plugin for MapPlugin {
    fn build(&self, app: &mut App) {
        let Some(feed) = self.feed.lock().ok().and_then(|mut f| f.take()) else {
            return;
        };
        // A server without packs (the load harness's floor) has no merges to show.
        app.add_event::<PacksMerged>()
            .insert_resource(MapFeed(feed))
            .insert_resource(MapTrails::default())
            .insert_resource(RecentMerges::default())
            .add_systems(
                Update,
                (pass_on_terrain, note_merges, publish)
                    .chain()
                    .after(crate::schedule::TickSet::Hunts),
            );
    }
}

#[derive(Resource)]
struct MapFeed(server::Feed);

#[derive(Resource, Default)]
struct MapTrails(Trails);

#[derive(Resource, Default)]
struct RecentMerges(std::collections::VecDeque<Merge>);

/// New chunks' surfaces, and the columns edits changed, to the map's thread.
fn pass_on_terrain(
    mut arrived: EventReader<ChunkArrived>,
    mut edits: EventReader<BlocksChanged>,
    layers: Query<&ChunkLayer, With<Overworld>>,
    feed: Res<MapFeed>,
) {
    let send = |update| {
        // The map's thread lives as long as the server.
        let _ = feed.0.tiles.send(update);
    };
    for chunk in arrived.iter() {
        send(TileUpdate::Chunk(chunk.pos, chunk.surface.clone()));
    }
    let Ok(layer) = layers.get_single() else {
        return;
    };
    for edit in edits.iter() {
        let columns = (edit.max.x as i64 - edit.min.x as i64 + 1)
            * (edit.max.z as i64 - edit.min.z as i64 + 1);
        if columns > EDIT_COLUMNS {
            continue;
        }
        for x in edit.min.x..=edit.max.x {
            for z in edit.min.z..=edit.max.z {
                if let Some(top) = column_top(layer, x, z) {
                    send(TileUpdate::Column { x, z, top });
                }
            }
        }
    }
}

fn note_merges(
    mut merged: EventReader<PacksMerged>,
    mut recent: ResMut<RecentMerges>,
    server: Res<Server>,
) {
    for m in merged.iter() {
        recent.0.push_back(Merge {
            kept: m.kept,
            gone: m.gone,
            x: m.at.x,
            z: m.at.y,
            tick: server.current_tick(),
        });
        if recent.0.len() > MERGES_SHOWN {
            recent.0.pop_front();
        }
    }
}

/// The map's own resources: the feed to its thread, the packs' trails and the recent merges.
#[derive(SystemParam)]
struct MapResources<'w> {
    feed: Res<'w, MapFeed>,
    trails: ResMut<'w, MapTrails>,
    recent: Res<'w, RecentMerges>,
}

/// What the map shows of the game: packs and the noise heat map (either may be absent, as on
/// the load harness's floor), players, and the zombies standing in the world.
#[derive(SystemParam)]
struct GameShown<'w, 's> {
    packs: Option<Res<'w, Packs>>,
    heat: Option<Res<'w, crate::noise::HeatMap>>,
    players: Query<'w, 's, (&'static Username, &'static Position), With<Client>>,
    zombies: Query<'w, 's, (), With<Zombie>>,
}

/// The world's facts the map shows: clock, phase, weather and chunk latencies, with the
/// configuration and the server's tick.
#[derive(SystemParam)]
struct WorldFacts<'w> {
    clock: Res<'w, WorldClock>,
    phase: Res<'w, WorldPhase>,
    weather: Res<'w, Weather>,
    chunks: Res<'w, ChunkLifecycle>,
    config: Res<'w, Config>,
    server: Res<'w, Server>,
}

/// Every publish interval: the state, copied for the page; every trail interval, a trail point.
fn publish(mut map: MapResources, game: GameShown, world: WorldFacts) {
    let tick = world.server.current_tick();
    let intervals = &world.config.map;
    if (tick as u64).is_multiple_of(intervals.trail_interval_ticks) {
        if let Some(packs) = game.packs.as_deref() {
            // The last night: half a day of points.
            let keep = (world.clock.day_length as u64 / 2 / intervals.trail_interval_ticks).max(1)
                as usize;
            map.trails
                .0
                .record(packs.iter().map(|p| (p.id, p.centroid)), keep);
        }
    }
    if !(tick as u64).is_multiple_of(intervals.publish_interval_ticks) {
        return;
    }
    let state = snapshot(&map, &game, &world);
    map.feed.0.state.send_replace(Arc::new(state));
}

/// The state the page shows, copied at this tick.
fn snapshot(map: &MapResources, game: &GameShown, world: &WorldFacts) -> State {
    let WorldFacts {
        clock,
        phase,
        weather,
        chunks,
        config,
        server,
    } = world;
    let tick = server.current_tick();
    let packs = game.packs.as_deref();
    let pack_views = packs
        .map(|p| {
            let mut views: Vec<PackView> = p
                .iter()
                .map(|pack| PackView::of(pack, map.trails.0.of(pack.id)))
                .collect();
            views.sort_by_key(|v| v.pack.id);
            views
        })
        .unwrap_or_default();
    let counts = Counts {
        packs: pack_views.len(),
        ghost_packs: packs.map_or(0, |p| {
            p.iter().filter(|p| p.state == PackState::Ghost).count()
        }),
        ghost_members: packs.map_or(0, |p| p.ghost_members()),
        materialised_zombies: game.zombies.iter().count(),
    };
    State {
        tick,
        time: Time {
            time_of_day: clock.vanilla_time(),
            day: clock.day,
            is_day: weather.sun_is_up(clock),
        },
        phase: phase.0.phase,
        weather: weather.sky.name(),
        players: game
            .players
            .iter()
            .map(|(name, pos)| Player {
                name: name.0.clone(),
                x: pos.0.x,
                z: pos.0.z,
            })
            .collect(),
        packs: pack_views,
        merges: map.recent.0.iter().copied().collect(),
        counts,
        heat: game
            .heat
            .iter()
            .flat_map(|h| h.cells(tick as u64, config.noise.heat_half_life_ticks))
            .map(|(chunk, heat)| HeatCell {
                chunk_x: chunk.x,
                chunk_z: chunk.z,
                heat,
            })
            .collect(),
        summon_threshold: config.noise.summon_threshold,
        chunks: format!(
            "{} {}",
            chunks.load_latency.logfmt("load"),
            chunks.unload_latency.logfmt("unload")
        ),
        pack_config: packs.map(|_| config.pack.clone()),
    }
}
