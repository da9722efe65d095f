//! Natural spawning: loose zombies appear in a band around players, in groups, so that packs
//! have something to form from, where vanilla 1.18+ lets a monster spawn (no block light, and
//! the darkened sky's brightness under a random test): under the open sky by night or in a
//! thunderstorm, never in a torch-lit base. The cap counts materialised zombies and
//! ghost pack members alike, so dematerialised packs never let the population grow unbounded.
//! A noisy place calls zombies too ([`HordeCall`]): they come from the edge of where zombies
//! act, drawn to the place.

use bevy_ecs::system::SystemParam;
use rand::Rng;
use rand_pcg::Pcg32;
use valence::prelude::*;

use crate::common::body::{huntable, Dead};
use crate::config::Config;
use crate::light::raw_brightness;
use crate::noise::{Curiosity, CuriosityRules, Curious, HordeCall};
use crate::pack::Packs;
use crate::time::WorldClock;
use crate::weather::Weather;
use crate::world::light::Light;
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

/// The most block light a monster spawns in: the overworld's `monster_spawn_block_light_limit`
/// (vanilla's `DimensionType`), so that any torch keeps a place free of spawns.
const BLOCK_LIGHT_LIMIT: i32 = 0;
/// The overworld's `monster_spawn_light_level`, uniform from 0 to this: the brightness a spawn
/// tolerates is drawn anew for each spot.
const LIGHT_TEST_MAX: u32 = 7;
/// The sky light is weighed against a draw below this (`Monster.isDarkEnoughToSpawn`): the open
/// sky turns away about half the spawns even at night.
const SKY_DRAW: u32 = 32;
/// How dark a thunderstorm makes the sky for spawns, whatever the hour (`isDarkEnoughToSpawn`
/// reads the brightness with this darkening in a storm).
const STORM_DARKEN: i32 = 10;

/// The sky darkening a spawn sees: the level's `skyDarken`, or a storm's.
pub fn spawn_darken(sky_darken: i32, thundering: bool) -> i32 {
    if thundering {
        STORM_DARKEN
    } else {
        sky_darken
    }
}

/// Whether block light this bright leaves room for a monster.
pub fn unlit(block: u8) -> bool {
    i32::from(block) <= BLOCK_LIGHT_LIMIT
}

/// Vanilla's `Monster.isDarkEnoughToSpawn` for a spot with `sky` and `block` light under a sky
/// darkened by `darken`, given its two draws: `sky_draw` below [`SKY_DRAW`] and `light_test`
/// up to [`LIGHT_TEST_MAX`].
pub fn dark_enough(sky: u8, block: u8, darken: i32, sky_draw: u32, light_test: u32) -> bool {
    u32::from(sky) <= sky_draw
        && unlit(block)
        && u32::from(raw_brightness(sky, block, darken)) <= light_test
}

/// How many more zombies the cap allows.
pub fn room(players: usize, per_player: u32, materialised: usize, ghosts: usize) -> usize {
    (players * per_player as usize).saturating_sub(materialised + ghosts)
}

/// What both spawners read: the zombies in the world and the packs' ghosts, which count
/// against the cap; the overworld they spawn in and its light; the zombie kinds; the
/// configuration and the server's tick.
#[derive(SystemParam)]
struct Spawner<'w, 's> {
    zombies: Query<'w, 's, (), With<Zombie>>,
    layers: Query<'w, 's, (Entity, &'static ChunkLayer), With<Overworld>>,
    light: Res<'w, Light>,
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

/// Each interval, a group round each hunted player, at a random spot of the spawn band: each
/// zombie of it where the ground is dark enough by vanilla's rule.
fn spawn_in_the_dark(
    mut commands: Commands,
    players: Query<(&Position, &GameMode), (With<Client>, Without<Dead>)>,
    spawner: Spawner,
    clock: Res<WorldClock>,
    weather: Res<Weather>,
    mut rng: Local<Option<Pcg32>>,
) {
    let Spawner {
        layers,
        light,
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
    // Players in a new order each attempt: when the cap leaves room for only some groups,
    // the first players in line would otherwise get every one of them.
    for i in (1..hunted.len()).rev() {
        hunted.swap(i, (rng.gen::<f64>() * (i + 1) as f64) as usize);
    }
    let kind = kinds.find(&config.zombies.default_type).unwrap_or(0);
    let darken = spawn_darken(
        weather.sky.sky_darken(clock.vanilla_time()),
        weather.sky.is_thundering(),
    );
    for player in hunted {
        let angle = rng.gen::<f64>() * std::f64::consts::TAU;
        let distance = s.min_distance + rng.gen::<f64>() * (s.max_distance - s.min_distance);
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
            if spot.distance(player) < s.min_distance {
                continue;
            }
            // Vanilla weighs the light where the feet go; unlit chunks spawn nothing.
            let feet = BlockPos::new(x, y, z);
            let (Some(sky), Some(block)) = (light.sky(feet), light.block(feet)) else {
                continue;
            };
            let (sky_draw, light_test) = (
                rng.gen_range(0..SKY_DRAW),
                rng.gen_range(0..=LIGHT_TEST_MAX),
            );
            if !dark_enough(sky, block, darken, sky_draw, light_test) {
                continue;
            }
            let seed = rng.gen::<u64>();
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
/// direction that no block light reaches (the distance shrinks a chunk at a time until such
/// ground is found), drawn to the place and given time to walk there. Within the mob cap, like
/// every natural spawn; they are sent whatever the sky, but never out of a lit base.
fn answer_calls(
    mut calls: EventReader<HordeCall>,
    mut commands: Commands,
    players: Query<&GameMode, (With<Client>, Without<Dead>)>,
    spawner: Spawner,
    mut rng: Local<Option<Pcg32>>,
) {
    let Spawner {
        layers,
        light,
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
                let ground = standable_top(layer, x, z)
                    .filter(|&y| light.block(BlockPos::new(x, y, z)).is_some_and(unlit));
                if let Some(y) = ground {
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
    use crate::weather::Sky;

    /// Noon and midnight, in vanilla's ticks of the day.
    const NOON: i64 = 6000;
    const MIDNIGHT: i64 = 18_000;

    fn storm() -> Sky {
        Sky {
            rain_level: 1.0,
            thunder_level: 1.0,
            ..Sky::default()
        }
    }

    /// How many of all the draws let a spot spawn, out of `SKY_DRAW * (LIGHT_TEST_MAX + 1)`.
    fn chances(sky: u8, block: u8, darken: i32) -> u32 {
        let draws = (0..SKY_DRAW).flat_map(|s| (0..=LIGHT_TEST_MAX).map(move |l| (s, l)));
        draws
            .filter(|&(s, l)| dark_enough(sky, block, darken, s, l))
            .count() as u32
    }

    #[test]
    fn spawns_follow_vanillas_darkness() {
        let clear = Sky::default();
        let midnight = spawn_darken(clear.sky_darken(MIDNIGHT), clear.is_thundering());
        assert_eq!(midnight, 11);
        // Open sky at midnight: brightness 15 - 11 = 4; the sky passes 17 draws of 32 (15 to
        // 31), the light test 4 of 8 (4 to 7).
        assert_eq!(chances(15, 0, midnight), 17 * 4);
        assert_eq!(chances(15, 1, midnight), 0, "a torch's faintest light");
        assert_eq!(chances(0, 0, midnight), 32 * 8, "a cave");
        let noon = spawn_darken(clear.sky_darken(NOON), clear.is_thundering());
        assert_eq!(noon, 0);
        assert_eq!(chances(15, 0, noon), 0, "open ground by day");
        assert_eq!(chances(12, 0, noon), 0, "shade by day is still too bright");
        assert_eq!(
            chances(7, 0, noon),
            25,
            "deep shade by day: only the top light test"
        );
        assert_eq!(chances(0, 0, noon), 32 * 8, "a cave by day");
        // A thunderstorm darkens the sky by 10 for spawns whatever its own darkening (5 at
        // noon): brightness 5, the light test passes 3 of 8.
        assert_eq!(storm().sky_darken(NOON), 5);
        let stormy_noon = spawn_darken(storm().sky_darken(NOON), storm().is_thundering());
        assert_eq!(chances(15, 0, stormy_noon), 17 * 3);
        assert_eq!(chances(15, 3, stormy_noon), 0);
    }

    #[test]
    fn the_cap_counts_ghosts() {
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
