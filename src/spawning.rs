//! Natural night spawning: loose zombies appear in the dark in a band around players, in
//! groups, so that packs have something to form from. The cap counts materialised zombies and
//! ghost pack members alike, so dematerialised packs never let the population grow unbounded.
//! A noisy place calls zombies too ([`HordeCall`]): they come from the edge of where zombies
//! act, drawn to the place.

use bevy_ecs::system::SystemParam;
use rand::Rng;
use rand_pcg::Pcg32;
use valence::prelude::*;

use crate::common::body::{huntable, Dead};
use crate::config::Config;
use crate::daylight::SkyMap;
use crate::noise::{Curiosity, CuriosityRules, Curious, HordeCall};
use crate::pack::Packs;
use crate::time::WorldClock;
use crate::weather::Weather;
use crate::world::{standable_top, Overworld};
use crate::zombie::record::new_zombie;
use crate::zombie::{Zombie, ZombieKinds};

pub struct SpawningPlugin;

impl Plugin for SpawningPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            Update,
            (spawn_in_the_dark, answer_calls)
                .in_set(crate::schedule::TickSet::Zombies)
                .before(crate::schedule::ZombieSet::Classify),
        );
    }
}

/// Whether a spot is dark enough to spawn in: at night (or in a thunderstorm that hides the
/// sun) anywhere, by day only out of the sky.
pub fn dark(night: bool, sees_sky: bool) -> bool {
    night || !sees_sky
}

/// How many more zombies the cap allows.
pub fn room(players: usize, per_player: u32, materialised: usize, ghosts: usize) -> usize {
    (players * per_player as usize).saturating_sub(materialised + ghosts)
}

/// What both spawners read: the zombies in the world and the packs' ghosts, which count
/// against the cap; the overworld they spawn in; the zombie kinds; the configuration and the
/// server's tick.
#[derive(SystemParam)]
struct Spawner<'w, 's> {
    zombies: Query<'w, 's, (), With<Zombie>>,
    layers: Query<'w, 's, (Entity, &'static ChunkLayer), With<Overworld>>,
    packs: Res<'w, Packs>,
    kinds: Res<'w, ZombieKinds>,
    config: Res<'w, Config>,
    server: Res<'w, Server>,
}

impl Spawner<'_, '_> {
    /// How many more zombies the cap allows with `hunted` players to hunt.
    fn room_for(&self, hunted: usize) -> usize {
        room(
            hunted,
            self.config.spawning.mob_cap_per_player,
            self.zombies.iter().count(),
            self.packs.ghost_members(),
        )
    }
}

/// What tells a dark spot: whether it sees the sky, and whether the sun is up (the clock, and
/// the weather that may hide it).
#[derive(SystemParam)]
struct Darkness<'w> {
    sky: ResMut<'w, SkyMap>,
    clock: Res<'w, WorldClock>,
    weather: Res<'w, Weather>,
}

fn spawn_in_the_dark(
    mut commands: Commands,
    players: Query<(&Position, &GameMode), (With<Client>, Without<Dead>)>,
    spawner: Spawner,
    mut darkness: Darkness,
    mut rng: Local<Option<Pcg32>>,
) {
    let Spawner {
        layers,
        kinds,
        config,
        server,
        ..
    } = &spawner;
    let s = &config.spawning;
    let tick = server.current_tick() as u64;
    if !s.enabled || tick == 0 || !tick.is_multiple_of(s.interval_ticks) {
        return;
    }
    let Ok((layer_entity, layer)) = layers.get_single() else {
        return;
    };
    let mut hunted: Vec<DVec3> = players
        .iter()
        .filter(|(_, mode)| matches!(mode, GameMode::Survival | GameMode::Adventure))
        .map(|(p, _)| p.0)
        .collect();
    let mut room = spawner.room_for(hunted.len());
    if room == 0 {
        return;
    }
    let rng = rng.get_or_insert_with(|| crate::random::generator(config.server.seed as u64));
    let mut random = || rng.gen::<f64>();
    // Players in a new order each attempt: when the cap leaves room for only some groups,
    // the first players in line would otherwise get every one of them.
    for i in (1..hunted.len()).rev() {
        hunted.swap(i, (random() * (i + 1) as f64) as usize);
    }
    let kind = kinds.find(&config.zombies.default_type).unwrap_or(0);
    for player in hunted {
        let angle = random() * std::f64::consts::TAU;
        let distance = s.min_distance + random() * (s.max_distance - s.min_distance);
        let centre = player + DVec3::new(angle.cos() * distance, 0.0, angle.sin() * distance);
        for i in 0..s.group_size {
            if room == 0 {
                return;
            }
            let (x, z) = (
                centre.x.floor() as i32 + (i % 2) as i32 * 2,
                centre.z.floor() as i32 + (i / 2) as i32 * 2,
            );
            let Some(y) = standable_top(layer, x, z) else {
                continue;
            };
            let spot = DVec3::new(x as f64 + 0.5, y as f64, z as f64 + 0.5);
            // Not too close to any hunted player after all (the group spreads).
            let eye = BlockPos::new(x, y + 1, z);
            if spot.distance(player) < s.min_distance
                || !dark(
                    !darkness.weather.sun_is_up(&darkness.clock),
                    darkness.sky.sees_sky(layer, eye),
                )
            {
                continue;
            }
            let seed = (random() * u64::MAX as f64) as u64;
            commands.spawn(new_zombie(layer_entity, spot, kind, kinds, seed));
            room -= 1;
        }
    }
}

/// How far from a calling place its zombies come: from the edge of the players' view, but
/// no farther than the quarter tier's radius, beyond which zombies do not act; never nearer
/// than `spawning.min_distance`.
pub fn call_distance(view_distance: u8, quarter_radius: f64, min_distance: f64) -> f64 {
    let view_edge = (view_distance as f64 - 1.0) * 16.0;
    view_edge.min(quarter_radius - 16.0).max(min_distance)
}

/// Sends the zombies a hot place calls, each from the farthest loaded ground in a random
/// direction (the distance shrinks a chunk at a time until ground is found), drawn to the
/// place and given time to walk there. Within the mob cap, like every natural spawn.
fn answer_calls(
    mut calls: EventReader<HordeCall>,
    mut commands: Commands,
    players: Query<&GameMode, (With<Client>, Without<Dead>)>,
    spawner: Spawner,
    mut rng: Local<Option<Pcg32>>,
) {
    let Spawner {
        layers,
        kinds,
        config,
        server,
        ..
    } = &spawner;
    let Ok((layer_entity, layer)) = layers.get_single() else {
        return;
    };
    let s = &config.spawning;
    if !s.enabled {
        calls.clear();
        return;
    }
    let hunted = players.iter().filter(|mode| huntable(mode)).count();
    let mut room = spawner.room_for(hunted);
    let rng = rng.get_or_insert_with(|| crate::random::generator(!config.server.seed as u64));
    let now = server.current_tick() as u64;
    let tick_rate = server.tick_rate().get() as f64;
    let kind = kinds.find(&config.zombies.default_type).unwrap_or(0);
    let farthest = call_distance(
        config.server.view_distance,
        config.lod.quarter_radius,
        s.min_distance,
    );
    let rules = CuriosityRules::new(&config.noise);
    for call in calls.iter() {
        for _ in 0..call.zombies {
            if room == 0 {
                return;
            }
            let angle = rng.gen::<f64>() * std::f64::consts::TAU;
            let mut distance = farthest;
            let spot = loop {
                let (x, z) = (
                    (call.at.x + angle.cos() * distance).floor() as i32,
                    (call.at.z + angle.sin() * distance).floor() as i32,
                );
                if let Some(y) = standable_top(layer, x, z) {
                    break Some(DVec3::new(x as f64 + 0.5, y as f64, z as f64 + 0.5));
                }
                if distance <= s.min_distance {
                    break None;
                }
                distance = (distance - 16.0).max(s.min_distance);
            };
            let Some(spot) = spot else {
                continue;
            };
            let walk = spot.distance(call.at) / kinds.get(kind).speed * tick_rate;
            let mut lure = rules;
            lure.investigate_ticks += walk.ceil() as u64;
            let seed = rng.gen::<u64>();
            commands.spawn((
                new_zombie(layer_entity, spot, kind, kinds, seed),
                Curious(Curiosity::drawn_to(call.at, call.strength, now, &lure)),
            ));
            room -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn darkness_and_the_cap_counting_ghosts() {
        assert!(dark(true, true));
        assert!(dark(false, false), "a cave by day");
        assert!(!dark(false, true));
        assert_eq!(room(2, 70, 100, 30), 10);
        assert_eq!(
            room(2, 70, 100, 60),
            0,
            "ghost members count against the cap"
        );
        assert_eq!(room(0, 70, 0, 0), 0, "nobody online, nobody spawns");
    }

    #[test]
    fn a_call_comes_from_the_view_edge_within_the_acting_tiers() {
        assert_eq!(
            call_distance(10, 128.0, 24.0),
            112.0,
            "the quarter tier bounds it"
        );
        assert_eq!(call_distance(6, 128.0, 24.0), 80.0, "the view edge");
        assert_eq!(
            call_distance(2, 128.0, 24.0),
            24.0,
            "never nearer than spawning's"
        );
    }
}
