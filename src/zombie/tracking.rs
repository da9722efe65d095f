//! Who is sent which zombie. Valence sends a client every entity of its visible layers in its
//! chunk view (about 190 blocks at view distance 10); vanilla tracks monsters only to 128
//! blocks. So zombies live in entity layers of their own, one per 32-block square area, and
//! each client sees the layers of the areas within `lod.tracking_range` of it: moves and
//! turns of zombies beyond reach no longer cost its bandwidth. Valence spawns and despawns a
//! zombie for a client as it changes areas or the client moves.

use rustc_hash::FxHashMap;
use valence::entity::EntityLayerId;
use valence::layer::UpdateLayersPreClientSet;
use valence::prelude::*;

use super::Zombie;
use crate::config::Config;

pub(super) struct TrackingPlugin;

impl Plugin for TrackingPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<AreaLayers>().add_systems(
            PostUpdate,
            // Layers are made by command; they must exist before clients are shown them and
            // before Valence files the zombies into them.
            (drop_empty_areas, file_zombies, apply_deferred, show_areas)
                .chain()
                .before(UpdateLayersPreClientSet),
        );
    }
}

/// Side of an area, in blocks (2 × 2 chunks): clients see zombies at most this far past their
/// range, diagonally 1.41 times it.
const AREA_SIZE: i32 = 32;

/// Ticks between sweeps for areas that have emptied.
const SWEEP_TICKS: i64 = 600;

/// A square of `AREA_SIZE` blocks, by its corner divided by the size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Area {
    x: i32,
    z: i32,
}

impl Area {
    fn of(pos: DVec3) -> Self {
        Self {
            x: (pos.x.floor() as i32).div_euclid(AREA_SIZE),
            z: (pos.z.floor() as i32).div_euclid(AREA_SIZE),
        }
    }

    /// The areas with a point within `range` blocks (across) of `pos`.
    fn within(pos: DVec3, range: f64) -> impl Iterator<Item = Area> {
        let size = AREA_SIZE as f64;
        let (lo, hi) = (Area::of(pos - range), Area::of(pos + range));
        (lo.x..=hi.x)
            .flat_map(move |x| (lo.z..=hi.z).map(move |z| Area { x, z }))
            .filter(move |a| {
                // The nearest point of the square to `pos`.
                let near = |p: f64, corner: i32| {
                    let from = corner as f64 * size;
                    p.clamp(from, from + size) - p
                };
                near(pos.x, a.x).hypot(near(pos.z, a.z)) <= range
            })
    }

    /// The chunks the area covers.
    fn chunks(self) -> impl Iterator<Item = ChunkPos> {
        let per = AREA_SIZE / 16;
        (0..per).flat_map(move |dx| {
            (0..per).map(move |dz| ChunkPos::new(self.x * per + dx, self.z * per + dz))
        })
    }
}

/// The entity layer of each area that has held a zombie since the last sweep.
#[derive(Resource, Default)]
struct AreaLayers {
    layers: FxHashMap<Area, Entity>,
    /// Areas whose layers were made this tick: clients are shown them now, and zombies walk in
    /// from the next tick (see [`file_zombies`]).
    fresh: Vec<Area>,
    /// Zombies waiting a tick to enter a fresh layer.
    waiting: Vec<Entity>,
    /// Whether layers were made or dropped this tick: every client's sight is then redone.
    changed: bool,
}

/// The area whose layer holds a zombie.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct InArea(Area);

/// The area layers a client sees, and the area and range they were chosen from.
#[derive(Component, Debug, Default)]
struct Sight {
    from: Option<(Area, f64)>,
    layers: Vec<Entity>,
}

/// Drops the layers of areas that have held no zombie for a sweep, so wandering does not
/// leave layers behind. Runs before zombies are filed: a layer empty now was empty all the
/// last tick. A zombie waiting to enter a fresh layer is still in its old one, though it
/// stands outside that area: its old area is kept.
fn drop_empty_areas(
    mut commands: Commands,
    mut areas: ResMut<AreaLayers>,
    layers: Query<&EntityLayer>,
    filed: Query<&InArea>,
    server: Res<Server>,
) {
    areas.changed = false;
    if server.current_tick() % SWEEP_TICKS != 0 {
        return;
    }
    let kept: Vec<Area> = areas
        .waiting
        .iter()
        .filter_map(|&zombie| filed.get(zombie).ok().map(|f| f.0))
        .collect();
    let empty: Vec<Area> = areas
        .layers
        .iter()
        .filter(|(area, &layer)| {
            !kept.contains(area)
                && layers
                    .get(layer)
                    .is_ok_and(|l| area.chunks().all(|c| l.entities_at(c).next().is_none()))
        })
        .map(|(&area, _)| area)
        .collect();
    for area in empty {
        if let Some(layer) = areas.layers.remove(&area) {
            commands.entity(layer).insert(Despawned);
            areas.changed = true;
        }
    }
}

/// Puts each new or moved zombie into the layer of its area, making the layer if need be.
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
            Option<&mut InArea>,
        ),
        (With<Zombie>, Without<Despawned>),
    >,
    mut areas: ResMut<AreaLayers>,
    server: Res<Server>,
) {
    areas.fresh.clear();
    for zombie in std::mem::take(&mut areas.waiting) {
        if let Ok((_, pos, layer_id, filed)) = zombies.get_mut(zombie) {
            file(
                zombie,
                pos.0,
                layer_id,
                filed,
                &mut areas,
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
                &mut areas,
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
    filed: Option<Mut<InArea>>,
    areas: &mut AreaLayers,
    commands: &mut Commands,
    server: &Server,
) {
    let area = Area::of(pos);
    if filed.as_ref().is_some_and(|f| f.0 == area) {
        return;
    }
    let layer = match areas.layers.get(&area) {
        Some(&layer) => layer,
        None => {
            let layer = commands.spawn(EntityLayer::new(server)).id();
            areas.layers.insert(area, layer);
            areas.fresh.push(area);
            areas.changed = true;
            layer
        }
    };
    match filed {
        Some(_) if areas.fresh.contains(&area) => areas.waiting.push(zombie),
        Some(mut filed) => {
            filed.0 = area;
            layer_id.0 = layer;
        }
        None => {
            commands.entity(zombie).insert(InArea(area));
            layer_id.0 = layer;
        }
    }
}

/// Shows each client the area layers within `lod.tracking_range`, when it moved to another
/// area, the range changed, or layers were made or dropped.
fn show_areas(
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
    areas: Res<AreaLayers>,
    config: Res<Config>,
) {
    let range = config.lod.tracking_range;
    for (client, pos, mut visible, sight) in &mut clients {
        let from = Some((Area::of(pos.0), range));
        if !areas.changed && sight.as_ref().is_some_and(|s| s.from == from) {
            continue;
        }
        let mut layers: Vec<Entity> = Area::within(pos.0, range)
            .filter_map(|a| areas.layers.get(&a).copied())
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
    fn areas_are_32_block_squares_below_and_left_inclusive() {
        assert_eq!(Area::of(DVec3::new(0.0, 64.0, 31.9)), Area { x: 0, z: 0 });
        assert_eq!(Area::of(DVec3::new(-0.1, 64.0, 32.0)), Area { x: -1, z: 1 });
        assert_eq!(
            Area::of(DVec3::new(-32.0, 0.0, -33.0)),
            Area { x: -1, z: -2 }
        );
        let chunks: Vec<_> = Area { x: -1, z: 2 }.chunks().collect();
        assert_eq!(
            chunks,
            [(-2, 4), (-2, 5), (-1, 4), (-1, 5)].map(|(x, z)| ChunkPos::new(x, z))
        );
    }

    #[test]
    fn the_areas_within_range_are_those_with_a_point_in_the_circle() {
        let at = DVec3::new(16.0, 70.0, 16.0);
        let seen: Vec<Area> = Area::within(at, 128.0).collect();
        // Every block within range is in a seen area...
        for (dx, dz) in [(128.0, 0.0), (0.0, -128.0), (90.0, 90.0), (-127.0, 5.0)] {
            let p = at + DVec3::new(dx, 0.0, dz);
            assert!(seen.contains(&Area::of(p)), "{dx} {dz}");
        }
        // ...and none is wholly out of it: its nearest point is no farther than the range.
        assert!(!seen.contains(&Area::of(at + DVec3::new(150.0, 0.0, 0.0))));
        assert!(!seen.contains(&Area::of(at + DVec3::new(130.0, 0.0, 130.0))));
        // A circle of 128 over squares of 32: about π·(128 + 16)² / 32² of them.
        assert!((60..=70).contains(&seen.len()), "{}", seen.len());
    }
}
