//! Noise and light: what draws a zombie that cannot see a player. Digging, placing, blows,
//! deaths, doors, sprinting, jumping and a player hurt make a [`Noise`] with a loudness and a
//! range (`[noise]`); walls on the straight line damp it. By night a bright block a player
//! placed is seen from `noise.light_range`. A loose or strolling zombie that hears or sees one
//! goes to *the place* ([`Lure`]), looks around and goes back to its errand; if it sees a
//! player there, the chase takes over. Noise also warms a heat map: a chunk hot enough by
//! night calls zombies from afar ([`HordeCall`], answered by the spawner).
//!
//! Packs hear nothing: this module works on zombies, and a pack member drawn away is marked
//! busy (`Pursuing`) by the chase module, as a chaser is. (Terrain noise is `world::noise`.)
//!
//! Noises are bucketed by chunk for the few ticks every acting zombie needs to have its turn:
//! each noise is filed under every chunk within its range, so a zombie's hearing is one
//! lookup of its own chunk; lights likewise.

pub mod heat;
mod lights;
pub mod rules;
pub mod save;

use std::collections::hash_map::Entry;
use std::collections::VecDeque;

use bevy_ecs::query::Has;
use bevy_ecs::system::SystemParam;
use rand::Rng;
use rustc_hash::FxHashMap;
use valence::entity::entity::Flags;
use valence::log::info;
use valence::movement::MovementEvent;
use valence::prelude::*;

use crate::common::body::Dead;
use crate::common::body::Dying;
use crate::common::events::{DamageCause, DamagePlayer};
use crate::common::events::{Noise, NoiseKind};
use crate::config::Config;
use crate::random::{generator, mix};
use crate::schedule::ZombieSet;
use crate::time::WorldClock;
use crate::weather::Weather;
use crate::world::{LayerVoxels, Overworld};
use crate::zombie::chase::line_of_sight;
use crate::zombie::{
    body, staggered, Arena, Body, Dozing, Lod, Lure, Target, Zombie, ZombieStruck,
};
pub use heat::HeatMap;
pub use lights::Lights;
pub use rules::{Curiosity, CuriosityRules, Voice};

pub struct NoisePlugin;

impl Plugin for NoisePlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Soundscape>()
            .init_resource::<HeatMap>()
            .init_resource::<Lights>()
            .add_event::<Noise>()
            .add_event::<HordeCall>()
            .add_systems(Update, make_curious.in_set(ZombieSet::Classify))
            .add_systems(
                Update,
                (players_make_noise, gather, lights::track, listen)
                    .chain()
                    .in_set(ZombieSet::Sense),
            );
        save::register(app);
    }
}

/// A chunk's heat passed `noise.summon_threshold` by night: the spawner sends `zombies` from
/// afar, each drawn to `at` as by a noise of `strength`.
#[derive(Event, Debug, Clone, Copy, PartialEq)]
pub struct HordeCall {
    pub at: DVec3,
    pub zombies: u32,
    pub strength: f32,
}

/// Ticks a noise stays in the buckets: every zombie that acts at all has a turn to hear it,
/// the longest wait between two turns being the slowest tier's, then a change of tier and
/// the first turn in the new one.
const HEARD_FOR: u64 = 2 * crate::zombie::Tier::SLOWEST_PERIOD;
/// A zombie looks about for lights once a second.
const LOOK_TICKS: u64 = 20;
/// Cold heat map cells are swept out this often.
const PRUNE_TICKS: u64 = 200;

/// A noise as zombies hear it: where, how loud and how far, and the tick it was made.
#[derive(Debug, Clone, Copy)]
struct Sound {
    at: DVec3,
    voice: Voice,
    made: u64,
}

impl Sound {
    /// Whether a zombie whose last turn was `since_turn` ticks before `now` hears it now: on
    /// its first turn after the noise, and only then, as a sound is heard once.
    fn new_to(&self, now: u64, since_turn: u64) -> bool {
        now - self.made < since_turn
    }
}

/// The noises of the last few ticks, and for each chunk those loud enough to reach it. Noises
/// are filed in the order they are made, so those heard out are the oldest: they leave from
/// the front, and the rest stay where they are filed.
#[derive(Resource, Default)]
struct Soundscape {
    sounds: VecDeque<Sound>,
    /// The number of `sounds[0]` in the order of filing; the buckets hold these numbers.
    first: u64,
    by_chunk: FxHashMap<ChunkPos, VecDeque<u64>>,
}

impl Soundscape {
    fn file(&mut self, sound: Sound) {
        let number = self.first + self.sounds.len() as u64;
        self.sounds.push_back(sound);
        for chunk in chunks_within(ChunkPos::from_pos(sound.at), sound.voice.range) {
            self.by_chunk.entry(chunk).or_default().push_back(number);
        }
    }

    /// Forgets the noises heard out: the front of the list and of each of their buckets.
    fn expire(&mut self, now: u64) {
        while let Some(sound) = self.sounds.front().filter(|s| now - s.made >= HEARD_FOR) {
            for chunk in chunks_within(ChunkPos::from_pos(sound.at), sound.voice.range) {
                if let Entry::Occupied(mut bucket) = self.by_chunk.entry(chunk) {
                    bucket.get_mut().pop_front();
                    if bucket.get().is_empty() {
                        bucket.remove();
                    }
                }
            }
            self.sounds.pop_front();
            self.first += 1;
        }
    }

    fn near(&self, chunk: ChunkPos) -> impl Iterator<Item = &Sound> {
        self.by_chunk
            .get(&chunk)
            .into_iter()
            .flatten()
            .map(|&number| &self.sounds[(number - self.first) as usize])
    }
}

/// The chunks a zombie could stand in within `range` blocks of some point of `centre`: the
/// square of chunks round it, wide enough for the range.
fn chunks_within(centre: ChunkPos, range: f32) -> impl Iterator<Item = ChunkPos> {
    let r = (range as f64 / 16.0).ceil() as i32;
    (centre.x - r..=centre.x + r)
        .flat_map(move |x| (centre.z - r..=centre.z + r).map(move |z| ChunkPos::new(x, z)))
}

/// Every zombie gets its curiosity when it first acts (a zombie the spawner sent already has
/// one, drawn to the place that called it).
fn make_curious(mut commands: Commands, zombies: Query<Entity, (With<Zombie>, Without<Curious>)>) {
    for zombie in &zombies {
        commands.entity(zombie).insert(Curious::default());
    }
}

/// A zombie's [`Curiosity`], as a component.
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct Curious(pub Curiosity);

/// The world's facts hearing and seeing hang on: whether the sun is up (the clock, and the
/// weather that may hide it), the noise rules, and the tick.
#[derive(SystemParam)]
struct WorldFacts<'w> {
    clock: Res<'w, WorldClock>,
    weather: Res<'w, Weather>,
    config: Res<'w, Config>,
    server: Res<'w, Server>,
}

impl WorldFacts<'_> {
    fn now(&self) -> u64 {
        self.server.current_tick() as u64
    }

    fn sun_is_up(&self) -> bool {
        self.weather.sun_is_up(&self.clock)
    }
}

/// This tick's events that may be heard: players' moves, players hurt, zombies struck.
#[derive(SystemParam)]
struct Deeds<'w, 's> {
    moves: EventReader<'w, 's, MovementEvent>,
    hurt: EventReader<'w, 's, DamagePlayer>,
    struck: EventReader<'w, 's, ZombieStruck>,
}

/// What players do that is heard: sprinting (every half second), jumping, being hurt, blows
/// either way, deaths.
fn players_make_noise(
    mut deeds: Deeds,
    flags: Query<&Flags, (With<Client>, Without<Dead>)>,
    positions: Query<&Position>,
    died: Query<&Position, Or<(Added<Dead>, Added<Dying>)>>,
    mut noises: EventWriter<Noise>,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    let mut make = |at: DVec3, kind| noises.send(Noise { at, kind });
    for step in deeds.moves.iter() {
        let Ok(flags) = flags.get(step.client) else {
            continue;
        };
        let delta = step.position - step.old_position;
        if delta.length() > 8.0 {
            continue; // A teleport.
        }
        if step.old_on_ground && !step.on_ground && delta.y > 0.0 {
            make(step.position, NoiseKind::Jump);
        } else if flags.sprinting() && step.on_ground && staggered(step.client, now, 10) {
            make(step.position, NoiseKind::Sprint);
        }
    }
    for event in deeds.hurt.iter() {
        let Ok(at) = positions.get(event.player) else {
            continue;
        };
        make(at.0, NoiseKind::Hurt);
        if matches!(event.cause, DamageCause::Mob(_)) {
            make(at.0, NoiseKind::Fight);
        }
    }
    for blow in deeds.struck.iter() {
        if let Ok(at) = positions.get(blow.zombie) {
            make(at.0, NoiseKind::Fight);
        }
    }
    for at in &died {
        make(at.0, NoiseKind::Death);
    }
}

/// Files this tick's noises for the zombies to hear and adds them to the heat map; a chunk
/// that grows hot enough by night calls zombies from afar.
fn gather(
    mut noises: EventReader<Noise>,
    mut soundscape: ResMut<Soundscape>,
    mut heat: ResMut<HeatMap>,
    mut calls: EventWriter<HordeCall>,
    facts: WorldFacts,
) {
    let n = &facts.config.noise;
    let now = facts.now();
    soundscape.expire(now);
    if !n.enabled {
        noises.clear();
        return;
    }
    let night = !facts.sun_is_up();
    for noise in noises.iter() {
        let voice = noise.kind.voice(n);
        if voice.range > 0.0 && voice.loudness > 0.0 {
            soundscape.file(Sound {
                at: noise.at,
                voice,
                made: now,
            });
        }
        let chunk = ChunkPos::from_pos(noise.at);
        let half_life = n.heat_half_life_ticks;
        heat.add(chunk, voice.loudness, now, half_life);
        if night
            && n.summon_zombies > 0
            && heat.call(
                chunk,
                n.summon_threshold,
                now,
                half_life,
                n.summon_cooldown_ticks,
            )
        {
            info!(
                "noise at {:.0} {:.0} {:.0} calls {} zombies",
                noise.at.x, noise.at.y, noise.at.z, n.summon_zombies
            );
            calls.send(HordeCall {
                at: noise.at,
                zombies: n.summon_zombies,
                strength: voice.loudness,
            });
        }
    }
    if now.is_multiple_of(PRUNE_TICKS) {
        heat.prune(now, n.heat_half_life_ticks);
    }
}

/// Each acting zombie that is awake and after nobody listens (one lookup of its chunk's
/// noises) and, by night, looks about for lights once a second; the strongest it notices may
/// draw it ([`Curiosity::notice`]); then its [`Lure`] is where its curiosity takes it. A
/// zombie that found a player to chase forgets the place.
fn listen(
    mut zombies: Query<
        (
            Entity,
            &Target,
            &Position,
            &Body,
            &Lod,
            Has<Dozing>,
            Has<Arena>,
            &mut Curious,
            &mut Lure,
        ),
        (With<Zombie>, Without<Dying>),
    >,
    layers: Query<&ChunkLayer, With<Overworld>>,
    soundscape: Res<Soundscape>,
    mut lights: ResMut<Lights>,
    facts: WorldFacts,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let n = &facts.config.noise;
    let rules = &CuriosityRules::new(n);
    let now = facts.now();
    let look = n.enabled && n.light_range > 0.0 && !facts.sun_is_up();
    if look {
        lights.file(n.light_range);
    }
    let lights = &*lights;
    let quiet = soundscape.sounds.is_empty() && (!look || lights.is_empty());
    // Each zombie hears and looks for itself: the crowd is shared among the cores.
    zombies.par_iter_mut().for_each_mut(
        |(entity, target, position, body, lod, dozing, arena, mut curious, mut lure)| {
            // A dozing zombie neither hears nor keeps an errand: a glance left from before it
            // dozed would lure it, mark it a pursuer and wake it.
            if target.chasing() || arena || dozing || !n.enabled {
                if curious.0.busy() {
                    curious.0.drop_errand();
                }
                if lure.0.is_some() {
                    lure.0 = None;
                }
                return;
            }
            let since_turn = lod.steps(now);
            if since_turn == 0 || (quiet && !curious.0.busy()) {
                return;
            }
            let world = &LayerVoxels::new(layer);
            let pos = body.feet(position.0);
            let eye = pos + DVec3::new(0.0, body::EYE_HEIGHT, 0.0);
            let chunk = ChunkPos::from_pos(pos);
            let mut best: Option<(DVec3, f32)> = None;
            for sound in soundscape.near(chunk).filter(|s| s.new_to(now, since_turn)) {
                let d = eye.distance(sound.at);
                let voice = sound.voice;
                if d >= voice.range as f64 || best.is_some_and(|(_, s)| s >= voice.loudness) {
                    continue;
                }
                let cap = rules::walls_that_matter(voice, d, n.wall_damping);
                let walls = rules::solid_between(world, eye, sound.at, cap);
                if let Some(s) = rules::heard(voice, d, walls, n.wall_damping) {
                    if best.is_none_or(|(_, b)| s > b) {
                        best = Some((sound.at, s));
                    }
                }
            }
            // Once in every LOOK_TICKS, on one of its own activations whatever its tier.
            let turn = (now + entity.index() as u64) % LOOK_TICKS;
            if look && turn < lod.tier.period().unwrap_or(1) {
                for &light in lights.near(chunk) {
                    let centre = DVec3::new(
                        light.x as f64 + 0.5,
                        light.y as f64 + 0.5,
                        light.z as f64 + 0.5,
                    );
                    let d = eye.distance(centre);
                    let Some(s) = rules::seen(n.light_loudness, n.light_range, d) else {
                        continue;
                    };
                    // Seen at the face towards the zombie: the light's own block hides nothing.
                    let face = centre + (eye - centre).normalize_or_zero() * 0.6;
                    if best.is_none_or(|(_, b)| s > b) && line_of_sight(world, eye, face) {
                        best = Some((centre, s));
                    }
                }
            }
            if let Some((place, strength)) = best {
                curious.0.notice(place, strength, now, rules);
            }
            let seed = entity.to_bits();
            let heading = curious.0.heading(pos, now, rules, |turn| {
                generator(mix(seed ^ turn)).gen::<f64>()
            });
            if lure.0 != heading {
                lure.0 = heading;
            }
        },
    );
}

/// A loud noise made by an operator: `noise <x> <y> <z> <radius> [loudness]`, for tests and
/// events. Its loudness is a quarter of its radius unless told (a dug block: 16 blocks, 4).
pub fn command(world: &mut World, at: DVec3, radius: f32, loudness: Option<f32>) -> String {
    let loudness = loudness.unwrap_or(radius / 4.0);
    world.send_event(Noise {
        at,
        kind: NoiseKind::Made {
            range: radius,
            loudness,
        },
    });
    format!(
        "noise x={:.1} y={:.1} z={:.1} radius={radius} loudness={loudness}",
        at.x, at.y, at.z
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zombie::Tier;

    #[test]
    fn the_oldest_noises_leave_and_the_rest_are_found_where_they_were_filed() {
        let voice = |range| Voice {
            loudness: 4.0,
            range,
        };
        let mut soundscape = Soundscape::default();
        let made = [(0.0, 16.0, 100), (40.0, 40.0, 104), (0.0, 16.0, 110)];
        for (x, range, made) in made {
            soundscape.file(Sound {
                at: DVec3::new(x, 64.0, 3.0),
                voice: voice(range),
                made,
            });
        }
        let heard = |s: &Soundscape, chunk| s.near(chunk).map(|s| s.made).collect::<Vec<_>>();
        let (home, beyond) = (ChunkPos::new(-1, 0), ChunkPos::new(5, 0));
        assert_eq!(heard(&soundscape, home), [100, 104, 110]);
        soundscape.expire(100 + HEARD_FOR);
        assert_eq!(heard(&soundscape, home), [104, 110]);
        assert_eq!(heard(&soundscape, beyond), [104]);
        soundscape.expire(104 + HEARD_FOR);
        assert_eq!(heard(&soundscape, home), [110]);
        assert_eq!(heard(&soundscape, beyond), Vec::<u64>::new());
        soundscape.expire(110 + HEARD_FOR);
        assert!(soundscape.sounds.is_empty() && soundscape.by_chunk.is_empty());
    }

    #[test]
    fn every_zombie_that_acts_hears_a_noise_once() {
        let voice = Voice {
            loudness: 4.0,
            range: 16.0,
        };
        for tier in [Tier::Near, Tier::Full, Tier::Half, Tier::Quarter] {
            let period = tier.period().unwrap();
            // Each turn a zombie of the tier may have (its bucket).
            for turn in 0..period {
                let mut soundscape = Soundscape::default();
                soundscape.file(Sound {
                    at: DVec3::new(3.0, 64.0, 3.0),
                    voice,
                    made: 100,
                });
                let heard = (100..140)
                    .filter(|&now| {
                        soundscape.expire(now);
                        (now + turn).is_multiple_of(period)
                            && soundscape
                                .near(ChunkPos::new(0, 0))
                                .any(|s| s.new_to(now, period))
                    })
                    .count();
                assert_eq!(heard, 1, "{tier:?}, turn {turn}");
                assert!(
                    soundscape.sounds.is_empty() && soundscape.by_chunk.is_empty(),
                    "heard out and forgotten"
                );
            }
        }
    }
}
