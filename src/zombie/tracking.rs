//! Who is sent which zombie. Valence sends a client every entity of its visible layers in its
//! chunk view (about 190 blocks at view distance 10); vanilla tracks monsters only to 128
//! blocks. So zombies live in entity layers of their own, one per chunk, and each client sees
//! the layers of the chunks within `lod.tracking_range` of it: moves and turns of zombies
//! beyond reach cost neither its bandwidth nor its own client's work. A chunk is the finest
//! grain, as Valence files entities by chunk. Valence spawns and despawns a zombie for a
//! client as it changes chunks or the client moves.

use rustc_hash::FxHashMap;
use valence::entity::EntityLayerId;
use valence::prelude::*;

use super::Zombie;
use crate::config::Config;

pub(super) struct TrackingPlugin;

impl Plugin for TrackingPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ChunkLayers>().add_systems(
            PostUpdate,
            // Layers are made by command; they must exist before clients are shown them and
            // before Valence files the zombies into them.
            (drop_empty_layers, file_zombies, apply_deferred, show_layers)
                .chain()
                .in_set(crate::schedule::BeforeLayersSet),
        );
    }
}

/// Ticks between sweeps for layers that have emptied.
const SWEEP_TICKS: i64 = 600;

/// The chunks with a point within `range` blocks (across) of `pos`.
fn chunks_within(pos: DVec3, range: f64) -> impl Iterator<Item = ChunkPos> {
    let (lo, hi) = (
        ChunkPos::from_pos(pos - range),
        ChunkPos::from_pos(pos + range),
    );
    (lo.x..=hi.x)
        .flat_map(move |x| (lo.z..=hi.z).map(move |z| ChunkPos::new(x, z)))
        .filter(move |&c| reaches(pos, range, c))
}

/// Whether chunk `c` has a point within `range` blocks (across) of `pos`.
fn reaches(pos: DVec3, range: f64, c: ChunkPos) -> bool {
    // The nearest point of the chunk to `pos`.
    let near = |p: f64, corner: i32| {
        let from = corner as f64 * 16.0;
        p.clamp(from, from + 16.0) - p
    };
    near(pos.x, c.x).hypot(near(pos.z, c.z)) <= range
}

/// The entity layer of each chunk that has held a zombie since the last sweep.
#[derive(Resource, Default)]
struct ChunkLayers {
    layers: FxHashMap<ChunkPos, Entity>,
    /// Chunks whose layers were made this tick: clients are shown them now, and zombies walk in
    /// from the next tick (see [`file_zombies`]).
    fresh: Vec<ChunkPos>,
    /// Zombies waiting a tick to enter a fresh layer.
    waiting: Vec<Entity>,
    /// Chunks whose layers were made or dropped this tick: the sight of each client in range
    /// of one is redone.
    changed: Vec<ChunkPos>,
}

/// The chunk whose layer holds a zombie.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct InChunk(ChunkPos);

/// The chunk layers a client sees, and the position and range they were chosen from.
#[derive(Component, Debug, Default)]
struct Sight {
    from: Option<(DVec3, f64)>,
    layers: Vec<Entity>,
}

/// Drops the layers of chunks that have held no zombie for a sweep, so wandering does not
/// leave layers behind. Runs before zombies are filed: a layer empty now was empty all the
/// last tick. A zombie waiting to enter a fresh layer is still in its old one, though it
/// stands outside that chunk: its old chunk is kept.
fn drop_empty_layers(
    mut commands: Commands,
    mut chunk_layers: ResMut<ChunkLayers>,
    layers: Query<&EntityLayer>,
    filed: Query<&InChunk>,
    server: Res<Server>,
) {
    chunk_layers.changed.clear();
    if server.current_tick() % SWEEP_TICKS != 0 {
        return;
    }
    let kept: Vec<ChunkPos> = chunk_layers
        .waiting
        .iter()
        .filter_map(|&zombie| filed.get(zombie).ok().map(|f| f.0))
        .collect();
    let empty: Vec<ChunkPos> = chunk_layers
        .layers
        .iter()
        .filter(|(chunk, &layer)| {
            !kept.contains(chunk)
                && layers
                    .get(layer)
                    .is_ok_and(|l| l.entities_at(**chunk).next().is_none())
        })
        .map(|(&chunk, _)| chunk)
        .collect();
    for chunk in empty {
        if let Some(layer) = chunk_layers.layers.remove(&chunk) {
            commands.entity(layer).insert(Despawned);
            chunk_layers.changed.push(chunk);
        }
    }
}

/// Puts each new or moved zombie into the layer of its chunk, making the layer if need be.
///
/// Valence despawns a zombie that changes layers for a client that did not see the new layer
/// on the tick before, and spawns it again when it does now: a real client would lose the
/// entity (and what it knew of it) for a new one. So a layer is shown to clients on the tick
/// it is made, and zombies walk into it from the next. A new zombie enters at once: it is
/// spawned either way.
fn file_zombies(
    mut commands: Commands,
    mut zombies: Query<
        (
            Entity,
            Ref<Position>,
            &mut EntityLayerId,
            Option<&mut InChunk>,
        ),
        (With<Zombie>, Without<Despawned>),
    >,
    mut chunk_layers: ResMut<ChunkLayers>,
    server: Res<Server>,
) {
    chunk_layers.fresh.clear();
    for zombie in std::mem::take(&mut chunk_layers.waiting) {
        if let Ok((_, pos, layer_id, filed)) = zombies.get_mut(zombie) {
            file(
                zombie,
                pos.0,
                layer_id,
                filed,
                &mut chunk_layers,
                &mut commands,
                &server,
            );
        }
    }
    for (zombie, pos, layer_id, filed) in &mut zombies {
        if pos.is_changed() {
            file(
                zombie,
                pos.0,
                layer_id,
                filed,
                &mut chunk_layers,
                &mut commands,
                &server,
            );
        }
    }
}

/// Files one zombie standing at `pos` (see [`file_zombies`]).
fn file(
    zombie: Entity,
    pos: DVec3,
    mut layer_id: Mut<EntityLayerId>,
    filed: Option<Mut<InChunk>>,
    chunk_layers: &mut ChunkLayers,
    commands: &mut Commands,
    server: &Server,
) {
    let chunk = ChunkPos::from_pos(pos);
    if filed.as_ref().is_some_and(|f| f.0 == chunk) {
        return;
    }
    let layer = match chunk_layers.layers.get(&chunk) {
        Some(&layer) => layer,
        None => {
            let layer = commands.spawn(EntityLayer::new(server)).id();
            chunk_layers.layers.insert(chunk, layer);
            chunk_layers.fresh.push(chunk);
            chunk_layers.changed.push(chunk);
            layer
        }
    };
    match filed {
        Some(_) if chunk_layers.fresh.contains(&chunk) => chunk_layers.waiting.push(zombie),
        Some(mut filed) => {
            filed.0 = chunk;
            layer_id.0 = layer;
        }
        None => {
            commands.entity(zombie).insert(InChunk(chunk));
            layer_id.0 = layer;
        }
    }
}

/// Blocks a client moves before the chunks in its range are chosen again: so much nearer the
/// range's edge a zombie may be and not yet be sent.
const SIGHT_SLACK: f64 = 1.0;

/// Shows each client the chunk layers within `lod.tracking_range`, when it moved a block or
/// more, the range changed, or layers were made or dropped within its range.
fn show_layers(
    mut commands: Commands,
    mut clients: Query<
        (
            Entity,
            &Position,
            &mut VisibleEntityLayers,
            Option<&mut Sight>,
        ),
        With<Client>,
    >,
    chunk_layers: Res<ChunkLayers>,
    config: Res<Config>,
) {
    let range = config.lod.tracking_range;
    for (client, pos, mut visible, sight) in &mut clients {
        let current = sight.as_ref().and_then(|s| s.from).is_some_and(|(at, r)| {
            r == range && (at.x - pos.0.x).hypot(at.z - pos.0.z) < SIGHT_SLACK
        });
        let near_change = || {
            chunk_layers
                .changed
                .iter()
                .any(|&c| reaches(pos.0, range, c))
        };
        if current && !near_change() {
            continue;
        }
        let from = Some((pos.0, range));
        let mut layers: Vec<Entity> = chunks_within(pos.0, range)
            .filter_map(|c| chunk_layers.layers.get(&c).copied())
            .collect();
        layers.sort_unstable();
        let Some(mut sight) = sight else {
            visible.0.extend(layers.iter().copied());
            commands.entity(client).insert(Sight { from, layers });
            continue;
        };
        sight.from = from;
        if sight.layers == layers {
            continue;
        }
        for gone in sight
            .layers
            .iter()
            .filter(|l| layers.binary_search(l).is_err())
        {
            visible.0.remove(gone);
        }
        visible.0.extend(layers.iter().copied());
        sight.layers = layers;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chunks_within_range_are_those_with_a_point_in_the_circle() {
        let at = DVec3::new(8.0, 70.0, 8.0);
        let seen: Vec<ChunkPos> = chunks_within(at, 64.0).collect();
        // Every block within range is in a seen chunk...
        for (dx, dz) in [(64.0, 0.0), (0.0, -64.0), (45.0, 45.0), (-63.5, 5.0)] {
            let p = at + DVec3::new(dx, 0.0, dz);
            assert!(seen.contains(&ChunkPos::from_pos(p)), "{dx} {dz}");
        }
        // ...and none is wholly out of it: its nearest point is no farther than the range.
        assert!(!seen.contains(&ChunkPos::from_pos(at + DVec3::new(80.0, 0.0, 0.0))));
        assert!(!seen.contains(&ChunkPos::from_pos(at + DVec3::new(60.0, 0.0, 60.0))));
        // The circle grown by a chunk's width: about (π·64² + 4·64·16 + 16²) / 16² = 67 chunks.
        assert!((64..=72).contains(&seen.len()), "{}", seen.len());
    }
}
