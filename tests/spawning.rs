//! Natural spawning, headless: at night a torch-lit area gets no zombies over hundreds of
//! spawn attempts while the dark ground beside it gets many, as vanilla's light rule has it.
//! Counted in ticks, never timed.

mod support;

use horde::world::light::Light;
use horde::zombie::Zombie;
use support::headless::{harness_with, Harness};
use valence::prelude::*;

/// Spawning every other tick in a band 8 to 24 blocks round the player (within the mock
/// client's loaded chunks), clear skies, no hot place calling zombies.
fn config() -> horde::config::Config {
    let mut config = horde::config::Config::default();
    config.server.spawn_protection = 0;
    config.weather.enabled = false;
    config.noise.summon_zombies = 0;
    config.spawning.enabled = true;
    config.spawning.interval_ticks = 2;
    config.spawning.min_distance = 8.0;
    config.spawning.max_distance = 24.0;
    config
}

/// The field's half width: the band and its groups' spread fit in it.
const HALF: i32 = 30;
/// The lit area starts this far east of the player; its light fades out 14 blocks west of
/// there.
const LIT_FROM: i32 = 8;
/// The dark ground: this far west of the player and beyond, no torch light reaches.
const DARK_TO: i32 = -6;

/// At midnight, a flat stone field round the player open to the sky, its east part lit by
/// torches 4 blocks apart (no floor block farther than 4 steps from one). Returns the
/// player's block.
fn lit_and_dark_field(h: &mut Harness) -> BlockPos {
    let s = h.spawn_point();
    let o = BlockPos::new(s.x.floor() as i32, s.y.floor() as i32, s.z.floor() as i32);
    h.run("time set midnight");
    h.fill(
        BlockPos::new(o.x - HALF, o.y - 4, o.z - HALF),
        BlockPos::new(o.x + HALF, o.y - 1, o.z + HALF),
        "stone",
    );
    // In slices, within `fill`'s limit.
    for x in (o.x - HALF..=o.x + HALF).step_by(8) {
        h.fill(
            BlockPos::new(x, o.y, o.z - HALF),
            BlockPos::new((x + 7).min(o.x + HALF), o.y + 30, o.z + HALF),
            "air",
        );
    }
    for x in (o.x + LIT_FROM..=o.x + HALF).step_by(4) {
        for z in (o.z - HALF..=o.z + HALF).step_by(4) {
            let torch = BlockPos::new(x, o.y, z);
            h.fill(torch, torch, "torch");
        }
    }
    h.put_player(o);
    h.app.update();
    // Spawning ran while the field was being made: what came then does not count.
    let early: Vec<Entity> = h
        .app
        .world
        .query_filtered::<Entity, (With<Zombie>, Without<Despawned>)>()
        .iter(&h.app.world)
        .collect();
    for zombie in early {
        h.app.world.entity_mut(zombie).insert(Despawned);
    }
    h.app.update();
    o
}

#[test]
fn a_torch_lit_area_gets_no_spawns_while_the_dark_beside_it_does() {
    let mut h = harness_with(config());
    let o = lit_and_dark_field(&mut h);
    {
        let light = h.app.world.resource::<Light>();
        for z in o.z - HALF..=o.z + HALF {
            for x in o.x + LIT_FROM..=o.x + HALF {
                let floor = BlockPos::new(x, o.y, z);
                assert!(light.block(floor).unwrap() > 0, "lit at {floor:?}");
            }
            for x in o.x - HALF..=o.x + DARK_TO {
                let floor = BlockPos::new(x, o.y, z);
                assert_eq!(light.block(floor), Some(0), "dark at {floor:?}");
                assert_eq!(light.sky(floor), Some(15), "open sky at {floor:?}");
            }
        }
    }
    let (mut lit, mut dark) = (0, 0);
    for _ in 0..600 {
        h.app.update();
        // Each new zombie is counted where it stands and taken away, so the cap never fills.
        let spawned: Vec<(Entity, DVec3)> = h
            .app
            .world
            .query_filtered::<(Entity, &Position), (With<Zombie>, Without<Despawned>)>()
            .iter(&h.app.world)
            .map(|(e, p)| (e, p.0))
            .collect();
        for (zombie, at) in spawned {
            // Groups spread: one may stand beyond the field, on the terrain around it.
            let (x, z) = (at.x.floor() as i32 - o.x, at.z.floor() as i32 - o.z);
            let on_field = x.abs() <= HALF && z.abs() <= HALF;
            if on_field && x >= LIT_FROM {
                lit += 1;
            } else if on_field && x <= DARK_TO {
                dark += 1;
            }
            h.app.world.entity_mut(zombie).insert(Despawned);
        }
    }
    assert_eq!(lit, 0, "no zombie spawns in the torch-lit area");
    assert!(dark >= 10, "zombies spawn in the dark beside it: {dark}");
}
