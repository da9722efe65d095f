//! Daylight: zombies whose eyes see the sky burn by day as vanilla's do (bright enough, by a
//! roll each tick; not when it rains on them or a thunderstorm hides the sun), helmets wear out
//! in their place, water and rain put fires out; the world's phase rises over time and from
//! `sun_immune_phase` the sun no longer hurts. By day an idle zombie walks to shade and dozes
//! until woken. Hunt zombies ([`Arena`]) are out of the sun's reach: a round's goal must not
//! hang on the hour it is played at. The sky and the brightness are read from the world's
//! [`Light`], as it stood at the end of the last tick.

pub mod rules;
mod save;

use bevy_ecs::query::Has;
use bevy_ecs::system::SystemParam;
use rand::Rng;
use rand_pcg::Pcg32;
use valence::entity::entity::Flags;
use valence::entity::{EntityId, EntityStatuses};
use valence::log::info;
use valence::prelude::*;

use crate::common::body::Dying;
use crate::config::Config;
use crate::schedule::ZombieSet;
use crate::time::WorldClock;
use crate::weather::{biome_rains, Weather};
use crate::world::light::Light;
use crate::world::{LayerVoxels, Overworld, Voxels};
use crate::zombie::attack::{hurt_effect, wound, Frames};
use crate::zombie::body::EYE_HEIGHT;
use crate::zombie::{
    staggered, Arena, Burning, Dozing, Equipment, Pursuing, Shade, Vitality, Zombie, ZombieStruck,
};
pub use rules::{sunlight, Exposure, Phase, Sunlight};

pub struct DaylightPlugin;

impl Plugin for DaylightPlugin {
    fn build(&self, app: &mut App) {
        // `WorldPhase` is not made here: `build_base` puts in the world's, from its save or
        // fresh from the seed.
        app.add_systems(
            Update,
            (advance_phase, sun_on_zombies, burn, wake_up, day_sleep)
                .chain()
                .in_set(crate::schedule::TickSet::Zombies)
                .before(ZombieSet::Classify),
        );
        save::register(app);
    }
}

/// The world's escalation phase.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorldPhase(pub Phase);

/// Index of `on_fire` in the 1.20.1 damage type registry.
const ON_FIRE: i32 = 28;

fn eye_block(pos: DVec3) -> BlockPos {
    BlockPos::from_pos(pos + DVec3::new(0.0, EYE_HEIGHT, 0.0))
}

fn advance_phase(mut phase: ResMut<WorldPhase>, clock: Res<WorldClock>, config: Res<Config>) {
    let d = &config.daylight;
    let mut next = phase.0;
    if next.advance(
        clock.age,
        config.server.seed,
        d.phase_interval_ticks,
        d.phase_jitter_ticks,
    ) {
        phase.0 = next;
        info!("the world reached phase {}", next.phase);
        if next.phase == d.sun_immune_phase {
            info!("zombies no longer burn in daylight");
        }
    }
}

/// Whether a block sees the sky, how bright it is and whether it gets the rain, as every
/// daylight system on zombies asks: the overworld's blocks and their light, the weather and
/// the biomes it rains in.
#[derive(SystemParam)]
struct Sky<'w, 's> {
    layers: Query<'w, 's, &'static ChunkLayer, With<Overworld>>,
    light: Res<'w, Light>,
    weather: Res<'w, Weather>,
    biomes: Res<'w, BiomeRegistry>,
}

impl Sky<'_, '_> {
    /// Whether `pos` sees the sky; an unlit chunk is shade.
    fn sees_sky(&self, pos: BlockPos) -> bool {
        self.light.sees_sky(pos) == Some(true)
    }
}

/// Where the day stands for zombies: the time of day, the world's phase (from
/// `sun_immune_phase` the sun spares them), the settings and the tick.
#[derive(SystemParam)]
struct Daytime<'w> {
    clock: Res<'w, WorldClock>,
    phase: Res<'w, WorldPhase>,
    config: Res<'w, Config>,
    server: Res<'w, Server>,
}

impl Daytime<'_> {
    /// The tick being played.
    fn now(&self) -> u64 {
        self.server.current_tick() as u64
    }

    /// Ticks a second.
    fn second(&self) -> u64 {
        self.server.tick_rate().get() as u64
    }
}

/// Once a second per zombie (staggered): the sun ignites it, wears its helmet, or not.
fn sun_on_zombies(
    mut zombies: Query<
        (Entity, &Position, &mut Equipment, &mut Burning),
        (With<Zombie>, Without<Dying>, Without<Arena>),
    >,
    sky: Sky,
    time: Daytime,
    mut rng: Local<Option<Pcg32>>,
) {
    let Ok(chunks) = sky.layers.get_single() else {
        return;
    };
    let layer = &LayerVoxels::new(chunks);
    let now = time.now();
    let second = time.second();
    let (d, phase) = (&time.config.daylight, time.phase.0);
    let day = sky.weather.sun_is_up(&time.clock);
    if !rules::sun_burns(day, phase.phase, d.sun_immune_phase) {
        return;
    }
    let burn_ticks = (d.burn_s * second as f64).round().min(u16::MAX as f64) as u16;
    let wear = u16::try_from(d.helmet_wear_per_s).unwrap_or(u16::MAX);
    let darken = sky.weather.sky.sky_darken(time.clock.vanilla_time());
    // The sun's rolls, a stream of their own from the seed.
    let rng = rng.get_or_insert_with(|| {
        crate::random::generator(time.config.server.seed as u64 ^ 0x0073_756e)
    });
    for (entity, pos, mut equipment, mut burning) in &mut zombies {
        if !staggered(entity, now, second) {
            continue;
        }
        let eye = eye_block(pos.0);
        let exposure = Exposure {
            day,
            sees_sky: sky.sees_sky(eye),
            // Vanilla: no brightness at all where the chunk is not loaded.
            brightness: sky.light.brightness(eye, darken).unwrap_or(0),
            in_water: layer.liquid(BlockPos::from_pos(pos.0)),
            raining: rained_on(&sky, layer, chunks, eye),
            ticks: second as u32,
            draw: rng.gen(),
        };
        match sunlight(
            exposure,
            phase.phase,
            d.sun_immune_phase,
            equipment.helmet.is_some(),
        ) {
            Sunlight::None => {}
            Sunlight::WearsHelmet => {
                let worn = equipment.helmet.map(|mut helmet| {
                    helmet.durability = helmet.durability.saturating_sub(wear);
                    helmet
                });
                equipment.helmet = worn.filter(|h| h.durability > 0);
            }
            Sunlight::Ignites => {
                if burning.ticks_left < burn_ticks {
                    burning.ticks_left = burn_ticks;
                }
            }
        }
    }
}

/// Fire: visible flag, damage once a second, out in water or rain or when it runs down.
fn burn(
    mut commands: Commands,
    mut zombies: Query<
        (
            Entity,
            &Position,
            &EntityId,
            &EntityLayerId,
            &mut Flags,
            &mut Vitality,
            &mut EntityStatuses,
            &mut Burning,
            &Frames,
        ),
        (With<Zombie>, Without<Dying>),
    >,
    mut entity_layers: Query<&mut EntityLayer>,
    sky: Sky,
    config: Res<Config>,
    server: Res<Server>,
) {
    let Ok(chunks) = sky.layers.get_single() else {
        return;
    };
    let voxels = &LayerVoxels::new(chunks);
    let now = server.current_tick() as u64;
    let second = server.tick_rate().get() as u16;
    for (entity, pos, id, layer, mut flags, mut vitality, mut statuses, mut fire, frames) in
        &mut zombies
    {
        let doused = || {
            let eye = eye_block(pos.0);
            voxels.liquid(BlockPos::from_pos(pos.0)) || rained_on(&sky, voxels, chunks, eye)
        };
        let lit = match fire.ticks_left {
            0 => false,
            _ if doused() => {
                fire.ticks_left = 0;
                false
            }
            _ => {
                fire.ticks_left -= 1;
                if fire.ticks_left % second == 0 {
                    if let Ok(mut entities) = entity_layers.get_mut(layer.0) {
                        hurt_effect(&mut entities, pos.0, id.get(), ON_FIRE, None);
                    }
                    wound(
                        &mut commands,
                        entity,
                        &mut vitality,
                        &mut statuses,
                        (config.daylight.burn_damage, frames.credited(now)),
                        now,
                    );
                }
                true
            }
        };
        if flags.on_fire() != lit {
            flags.set_on_fire(lit);
        }
    }
}

/// A dozing zombie wakes when struck or when it finds someone to chase.
fn wake_up(
    mut commands: Commands,
    mut struck: EventReader<ZombieStruck>,
    dozing: Query<(Entity, Has<Pursuing>), With<Dozing>>,
) {
    for blow in struck.iter() {
        if dozing.contains(blow.zombie) {
            commands.entity(blow.zombie).remove::<Dozing>();
        }
    }
    for (zombie, pursuing) in &dozing {
        if pursuing {
            commands.entity(zombie).remove::<Dozing>();
        }
    }
}

/// By day an idle zombie goes to shade (before immunity) and dozes; by night it wakes.
fn day_sleep(
    mut commands: Commands,
    mut zombies: Query<
        (Entity, &Position, Has<Pursuing>, Has<Dozing>, &mut Shade),
        (With<Zombie>, Without<Dying>, Without<Arena>),
    >,
    sky: Sky,
    time: Daytime,
) {
    let Ok(layer) = sky.layers.get_single() else {
        return;
    };
    let layer = &LayerVoxels::new(layer);
    let now = time.now();
    let second = time.second();
    let daylight = &time.config.daylight;
    let immune = time.phase.0.phase >= daylight.sun_immune_phase;
    let day = sky.weather.sun_is_up(&time.clock);
    for (entity, pos, pursuing, dozing, mut shade) in &mut zombies {
        if !staggered(entity, now, second) {
            continue;
        }
        if !day || pursuing {
            if dozing {
                commands.entity(entity).remove::<Dozing>();
            }
            if !day && shade.0.is_some() {
                shade.0 = None;
            }
            continue;
        }
        if dozing {
            continue;
        }
        let in_sun = sky.sees_sky(eye_block(pos.0));
        if immune || !in_sun {
            commands.entity(entity).insert(Dozing);
            if shade.0.is_some() {
                shade.0 = None;
            }
        } else if shade.0.is_none_or(|spot| sky.sees_sky(eye_block(spot))) {
            // None yet, or the world changed and the spot is in the sun now: look again.
            let sees_sky = |pos| sky.sees_sky(pos);
            shade.0 = find_shade(layer, sees_sky, pos.0, daylight.shade_radius);
        }
    }
}

/// Whether rain falls on the block `eye`: it rains, the sky is open above (the sun's blockers,
/// then what stops rain), in a biome where it rains. The column scans run only while it rains.
fn rained_on(sky: &Sky, voxels: &LayerVoxels, chunks: &ChunkLayer, eye: BlockPos) -> bool {
    sky.weather.sky.is_raining()
        && sky.sees_sky(eye)
        && open_above(voxels, eye)
        && rains_at(chunks, &sky.biomes, eye)
}

/// Whether nothing above `pos` stops rain: vanilla's motion-blocking heightmap, so glass,
/// fences and leaves keep it off though the sun shines through glass.
fn open_above(world: &impl Voxels, pos: BlockPos) -> bool {
    let top = crate::world::MIN_Y + crate::world::HEIGHT as i32;
    (pos.y + 1..top).all(|y| {
        let above = BlockPos::new(pos.x, y, pos.z);
        !world.solid(above) && !world.liquid(above)
    })
}

/// Whether the biome at `pos` gets rain (an unloaded spot counts as one that does).
fn rains_at(layer: &ChunkLayer, biomes: &BiomeRegistry, pos: BlockPos) -> bool {
    layer.biome(pos).is_none_or(|id| biome_rains(&biomes[id]))
}

/// `phase`: the world's phase and when it rises next.
pub fn phase_report(world: &mut World) -> String {
    let phase = world.resource::<WorldPhase>().0;
    let age = world.resource::<WorldClock>().age;
    let immune = world.resource::<Config>().daylight.sun_immune_phase;
    format!(
        "phase={} next_rise_in_ticks={} sun_immune_phase={immune} burning={}",
        phase.phase,
        (phase.next_rise - age).max(0),
        phase.phase < immune
    )
}

/// `phase set <N>`: an operator moves the escalation by hand (either way).
pub fn set_phase(world: &mut World, phase: u32) -> String {
    let old = std::mem::replace(&mut world.resource_mut::<WorldPhase>().0.phase, phase);
    info!("phase set from {old} to {phase}");
    phase_report(world)
}

/// The nearest standable spot within `radius` whose eyes do not see the sky, ring by ring.
pub fn find_shade(
    world: &impl Voxels,
    sees_sky: impl Fn(BlockPos) -> bool,
    from: DVec3,
    radius: i32,
) -> Option<DVec3> {
    let base = BlockPos::from_pos(from);
    for ring in 1..=radius {
        for dz in -ring..=ring {
            for dx in -ring..=ring {
                if dx.abs() != ring && dz.abs() != ring {
                    continue;
                }
                for dy in [0, 1, -1, 2, -2, 3, -3] {
                    let spot = BlockPos::new(base.x + dx, base.y + dy, base.z + dz);
                    if world.standable(spot) && !world.liquid(spot) {
                        let eye = BlockPos::new(spot.x, spot.y + 1, spot.z);
                        if !sees_sky(eye) {
                            return Some(DVec3::new(
                                spot.x as f64 + 0.5,
                                spot.y as f64,
                                spot.z as f64 + 0.5,
                            ));
                        }
                        break;
                    }
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Grid;

    #[test]
    fn shade_is_found_under_the_nearest_roof() {
        let top = crate::world::MIN_Y + crate::world::HEIGHT as i32 - 1;
        let mut g = Grid::new([-14, 0, -14], [14, top, 14]).floor(10);
        g.fill([5, 14, -2], [8, 14, 2], BlockState::STONE);
        let sky = |p: BlockPos| (p.y + 1..=top).all(|y| !g.solid(BlockPos::new(p.x, y, p.z)));
        let spot = find_shade(&g, sky, DVec3::new(0.5, 11.0, 0.5), 12).unwrap();
        assert_eq!(
            (spot.x, spot.y),
            (5.5, 11.0),
            "the roof's near edge, 5 blocks away"
        );
        assert!((-2.0..=2.5).contains(&spot.z));
        assert_eq!(find_shade(&g, sky, DVec3::new(0.5, 11.0, 0.5), 4), None);
    }
}
