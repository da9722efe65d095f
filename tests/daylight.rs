//! Daylight, headless: at noon a zombie in the open burns (visible flag, lost health; vanilla's
//! roll each tick passes within a second about half the time, so each case waits 10 seconds, the
//! zombie penned in glass so that it does not walk into the shade meanwhile)
//! while one under a roof does not; water puts fire out; from the immune phase nobody burns; an idle
//! zombie walks to shade and dozes, and wakes only for a player within the wake radius; hunt
//! zombies neither burn nor doze. Weather: rain puts a burning zombie out and keeps the sun off
//! it, the sun lights one again once the rain is over; a thunderstorm lets zombies stand in the
//! open at noon. A helmet comes back out of a ghost pack or a save as it went in.

mod support;

use horde::config::ArmourTier;
use horde::pack::Packs;
use horde::weather::Weather;
use horde::zombie::{
    Arena, Burning, Dozing, Equipment, Helmet, Shade, Target, Vitality, Zombie, ZombieKinds,
    ZombieRecord,
};
use support::headless::{harness, Harness};
use valence::entity::entity::Flags;
use valence::math::DVec2;
use valence::prelude::*;

/// A stone arena around spawn with a roof over its west side; the player watches in
/// creative (zombies leave it alone). Returns the spawn block.
fn arena(h: &mut Harness) -> BlockPos {
    let s = h.spawn_point();
    let (x, y, z) = (s.x.floor() as i32, s.y.floor() as i32, s.z.floor() as i32);
    h.run(&format!(
        "fill {} {} {} {} {} {} stone",
        x - 14,
        y - 4,
        z - 8,
        x + 14,
        y - 1,
        z + 8
    ));
    h.run(&format!(
        "fill {} {} {} {} {} {} air",
        x - 14,
        y,
        z - 8,
        x + 14,
        y + 12,
        z + 8
    ));
    h.run(&format!(
        "fill {} {} {} {} {} {} stone",
        x - 14,
        y + 4,
        z - 8,
        x - 4,
        y + 4,
        z + 8
    ));
    *h.app.world.get_mut::<GameMode>(h.client).unwrap() = GameMode::Creative;
    h.run("time set noon");
    BlockPos::new(x, y, z)
}

/// A glass pen two blocks high round block `at`, open to the sky: a zombie in it stays where
/// it is put rather than walk to the shade before the sun's roll has passed.
fn pen(h: &mut Harness, at: BlockPos) {
    h.fill(
        BlockPos::new(at.x - 1, at.y, at.z - 1),
        BlockPos::new(at.x + 1, at.y + 1, at.z + 1),
        "glass",
    );
    h.fill(at, BlockPos::new(at.x, at.y + 1, at.z), "air");
}

fn on_fire(h: &Harness, zombie: Entity) -> bool {
    h.app
        .world
        .get::<Flags>(zombie)
        .is_some_and(|f| f.on_fire())
}

#[test]
fn the_sun_burns_the_open_not_the_roofed_and_not_the_immune() {
    let mut h = harness();
    let o = arena(&mut h);
    pen(&mut h, BlockPos::new(o.x + 8, o.y, o.z));
    let open = h.summon(BlockPos::new(o.x + 8, o.y, o.z));
    let roofed = h.summon(BlockPos::new(o.x - 10, o.y, o.z));
    let (mut open_burned, mut roofed_burned) = (false, false);
    for _ in 0..200 {
        h.app.update();
        open_burned |= on_fire(&h, open);
        roofed_burned |= on_fire(&h, roofed);
    }
    assert!(open_burned, "the zombie in the open caught fire");
    assert!(!roofed_burned, "the zombie under the roof did not");
    assert!(
        h.app.world.get::<Vitality>(open).unwrap().0 < 20.0,
        "fire hurts"
    );
    assert_eq!(h.app.world.get::<Vitality>(roofed).unwrap().0, 20.0);

    assert!(h.run("phase set 5").starts_with("phase=5 "));
    let immune = h.summon(BlockPos::new(o.x + 10, o.y, o.z + 4));
    for _ in 0..100 {
        h.app.update();
        assert!(!on_fire(&h, immune), "no burning from the immune phase");
    }
}

/// Runs ticks until `done` holds, at most `limit`; whether it did.
fn within(h: &mut Harness, limit: usize, mut done: impl FnMut(&Harness) -> bool) -> bool {
    (0..limit).any(|_| {
        h.app.update();
        done(h)
    })
}

fn sky(h: &Harness) -> horde::weather::Sky {
    h.app.world.resource::<Weather>().sky
}

#[test]
fn rain_puts_a_burning_zombie_out_and_after_the_rain_the_sun_burns_again() {
    let mut h = harness();
    let o = arena(&mut h);
    pen(&mut h, BlockPos::new(o.x + 8, o.y, o.z));
    pen(&mut h, BlockPos::new(o.x - 10, o.y, o.z));
    let open = h.summon(BlockPos::new(o.x + 8, o.y, o.z));
    let roofed = h.summon(BlockPos::new(o.x - 10, o.y, o.z));
    assert!(
        within(&mut h, 200, |h| on_fire(h, open)),
        "the sun lights it"
    );

    assert!(h.run("weather rain").starts_with("weather="));
    assert!(within(&mut h, 100, |h| sky(h).is_raining()), "it rains");
    assert!(
        within(&mut h, 40, |h| !on_fire(h, open)),
        "the rain puts it out"
    );
    for _ in 0..100 {
        h.app.update();
        assert!(!on_fire(&h, open), "no fire in the rain, even at noon");
    }

    // The rain ends and the roof over the zombie that sheltered under it goes: the rain
    // left it nothing, the sun lights it.
    assert!(h.run("weather clear").starts_with("weather=rain"));
    assert!(
        within(&mut h, 100, |h| !sky(h).is_raining()),
        "the rain stops"
    );
    assert!(!on_fire(&h, roofed));
    h.run(&format!(
        "fill {} {} {} {} {} {} air",
        o.x - 14,
        o.y + 4,
        o.z - 8,
        o.x - 4,
        o.y + 4,
        o.z + 8
    ));
    assert!(
        within(&mut h, 200, |h| on_fire(h, roofed)),
        "in the sun after the rain, it burns"
    );
}

#[test]
fn rain_does_not_reach_under_glass_where_the_sun_does() {
    let mut h = harness();
    let o = arena(&mut h);
    // A glass pen, so that the zombie stays under the glass rather than walk to the shade.
    h.fill(
        BlockPos::new(o.x + 4, o.y, o.z - 3),
        BlockPos::new(o.x + 10, o.y + 3, o.z + 3),
        "glass",
    );
    h.fill(
        BlockPos::new(o.x + 5, o.y, o.z - 2),
        BlockPos::new(o.x + 9, o.y + 2, o.z + 2),
        "air",
    );
    assert!(h.run("weather rain").starts_with("weather="));
    assert!(within(&mut h, 100, |h| sky(h).is_raining()), "it rains");
    let under_glass = h.summon(BlockPos::new(o.x + 7, o.y, o.z));
    // The rain dims noon to light 12, whose roll passes within a second 1 time in 8.
    assert!(
        within(&mut h, 1200, |h| on_fire(h, under_glass)),
        "the sun through the glass lights it; the rain does not reach it"
    );
}

#[test]
fn a_thunderstorm_lets_zombies_stand_in_the_open_at_noon() {
    let mut h = harness();
    let o = arena(&mut h);
    assert!(h.run("weather thunder 600").starts_with("weather="));
    assert!(
        within(&mut h, 200, |h| sky(h).is_thundering()),
        "the storm builds: {:?}",
        sky(&h)
    );
    let out = h.summon(BlockPos::new(o.x + 8, o.y, o.z));
    for _ in 0..200 {
        h.app.update();
        assert!(!on_fire(&h, out), "no sun in a thunderstorm");
        // It may stroll anywhere, but never on an errand to shade nor dozing as by day.
        assert_eq!(h.app.world.get::<Shade>(out).unwrap().0, None, "no shade");
        assert!(h.app.world.get::<Dozing>(out).is_none(), "awake");
    }
    assert_eq!(h.app.world.get::<Vitality>(out).unwrap().0, 20.0);
}

#[test]
fn water_puts_the_fire_out() {
    let mut h = harness();
    let o = arena(&mut h);
    h.run(&format!(
        "fill {} {} {} {} {} {} water",
        o.x + 6,
        o.y - 2,
        o.z - 2,
        o.x + 10,
        o.y,
        o.z + 2
    ));
    let wet = h.summon(BlockPos::new(o.x + 8, o.y - 1, o.z));
    for _ in 0..60 {
        h.app.update();
        assert!(!on_fire(&h, wet), "a zombie in water does not burn");
    }
    // A burning zombie pushed into water goes out.
    h.app.world.get_mut::<Burning>(wet).unwrap().ticks_left = 160;
    h.app.update();
    h.app.update();
    assert!(!on_fire(&h, wet));
    assert_eq!(h.app.world.get::<Burning>(wet).unwrap().ticks_left, 0);
}

#[test]
fn an_idle_zombie_walks_into_shade_and_dozes() {
    let mut h = harness();
    let o = arena(&mut h);
    let zombie = h.summon(BlockPos::new(o.x - 1, o.y, o.z));
    let mut dozed = false;
    for _ in 0..600 {
        h.app.update();
        if h.app.world.get::<Dozing>(zombie).is_some() {
            dozed = true;
            break;
        }
    }
    assert!(dozed, "it dozed off");
    let pos = h.app.world.get::<Position>(zombie).unwrap().0;
    assert!(pos.x < (o.x - 3) as f64, "under the roof: {pos}");
    // Any fire caught on the way runs out in the shade.
    for _ in 0..200 {
        h.app.update();
    }
    assert!(!on_fire(&h, zombie));
    assert!(h.app.world.get::<Dozing>(zombie).is_some(), "still dozing");
}

#[test]
fn a_dozing_zombie_wakes_only_for_a_player_within_the_wake_radius() {
    let mut h = harness();
    let o = arena(&mut h);
    let zombie = h.summon(BlockPos::new(o.x - 8, o.y, o.z));
    let dozing = |h: &Harness| h.app.world.get::<Dozing>(zombie).is_some();
    for _ in 0..600 {
        h.app.update();
        if dozing(&h) {
            break;
        }
    }
    assert!(dozing(&h), "it dozed off under the roof");
    let at = h.app.world.get::<Position>(zombie).unwrap().0;
    // A survival player in plain view, 12 blocks off in the open: within the follow range,
    // beyond the wake radius of 8.
    h.run("gamemode survival tester");
    h.app.world.get_mut::<Position>(h.client).unwrap().0 = at + DVec3::new(12.0, 0.0, 0.0);
    for _ in 0..100 {
        h.app.update();
        assert!(dozing(&h), "a player beyond the wake radius lets it sleep");
    }
    // Within 8 blocks it wakes and chases.
    h.app.world.get_mut::<Position>(h.client).unwrap().0 = at + DVec3::new(0.0, 0.0, 6.0);
    let mut woke = false;
    for _ in 0..40 {
        h.app.update();
        if !dozing(&h) {
            woke = true;
            break;
        }
    }
    assert!(woke, "a player within the wake radius wakes it");
    assert_eq!(
        h.app.world.get::<Target>(zombie).unwrap().player,
        Some(h.client)
    );
}

#[test]
fn hunt_zombies_are_out_of_the_suns_reach() {
    let mut h = harness();
    let o = arena(&mut h);
    let fighter = h.summon(BlockPos::new(o.x + 8, o.y, o.z));
    h.app.world.entity_mut(fighter).insert(Arena);
    for _ in 0..200 {
        h.app.update();
        assert!(!on_fire(&h, fighter), "a hunt zombie does not burn");
        assert!(h.app.world.get::<Dozing>(fighter).is_none(), "nor doze");
    }
    assert_eq!(h.app.world.get::<Vitality>(fighter).unwrap().0, 20.0);
}

/// The helmets of the armored zombies in the world, sorted (none for a bare head).
fn helmets(app: &mut App) -> Vec<Option<u16>> {
    let mut worn: Vec<Option<u16>> = app
        .world
        .query_filtered::<&Equipment, With<horde::zombie::Zombie>>()
        .iter(&app.world)
        .map(|e| e.helmet.map(|h| h.durability))
        .collect();
    worn.sort();
    worn
}

#[test]
fn a_worn_helmet_comes_back_worn_and_one_the_sun_wore_out_stays_gone() {
    let mut h = harness();
    let o = arena(&mut h);
    h.run("time set midnight");
    let kinds = h.app.world.resource::<ZombieKinds>().clone();
    let armored = kinds.find("armored_zombie").unwrap();
    let worn = Helmet {
        kind: ArmourTier::Iron,
        durability: 7,
    };
    for (i, helmet) in [Some(worn), None].into_iter().enumerate() {
        let answer = h.run(&format!(
            "summon zombie {} {} {} armored_zombie",
            o.x + 2 * i as i32,
            o.y,
            o.z
        ));
        assert!(answer.starts_with("summoned="), "{answer}");
        h.app.update();
        let zombie = h
            .app
            .world
            .query_filtered::<(Entity, &Zombie), With<Zombie>>()
            .iter(&h.app.world)
            .filter(|(_, z)| z.kind == armored)
            .map(|(e, _)| e)
            .max()
            .unwrap();
        h.app.world.get_mut::<Equipment>(zombie).unwrap().helmet = helmet;
    }
    assert_eq!(helmets(&mut h.app), [None, Some(7)]);

    // Loose zombies through a restart.
    assert!(h.run("save-all").starts_with("saved=true "));
    let config = h.app.world.resource::<horde::config::Config>().clone();
    let mut restarted = horde::headless::start(config, h.world.path()).unwrap();
    for _ in 0..5 {
        restarted.update();
    }
    assert_eq!(helmets(&mut restarted), [None, Some(7)], "after a restart");
    drop(restarted);

    // Members of a ghost pack, restored where the player stands.
    let records = [Some(worn), None].map(|helmet| ZombieRecord {
        equipment: Equipment {
            helmet,
            ..Default::default()
        },
        ..ZombieRecord::fresh(armored, &kinds)
    });
    let at = DVec2::new(o.x as f64 + 0.5, o.z as f64 + 4.5);
    let rules = h.app.world.resource::<horde::config::Config>().pack.clone();
    h.app.world.resource_mut::<Packs>().adopt_ghost(
        at,
        o.y as f64,
        records.to_vec(),
        7,
        &kinds,
        &rules,
    );
    let mut restored = false;
    for _ in 0..100 {
        h.app.update();
        if h.app.world.resource::<Packs>().ghost_members() == 0 {
            restored = true;
            break;
        }
    }
    assert!(restored, "the ghost pack came back");
    h.app.update();
    assert_eq!(
        helmets(&mut h.app),
        [None, None, Some(7), Some(7)],
        "out of a ghost pack"
    );
}

fn clock_field(h: &mut Harness, key: &str) -> i64 {
    let line = h.run("time query");
    line.split(' ')
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in {line}"))
}

#[test]
fn without_their_cycles_the_sun_and_the_weather_stand_still() {
    let mut h = harness();
    h.run("time set noon");
    let rule = h.run("gamerule doDaylightCycle false");
    assert!(
        rule.starts_with("rule=doDaylightCycle value=false"),
        "{rule}"
    );
    let (daytime, age) = (
        clock_field(&mut h, "daytime"),
        clock_field(&mut h, "gametime"),
    );
    for _ in 0..100 {
        h.app.update();
    }
    assert_eq!(clock_field(&mut h, "daytime"), daytime, "the sun stands");
    assert!(
        clock_field(&mut h, "gametime") >= age + 100,
        "the world ages"
    );

    // A rain of one second, without the weather's cycle, does not end.
    assert!(h
        .run("gamerule doWeatherCycle false")
        .starts_with("rule=doWeatherCycle"));
    assert!(h.run("weather rain 1").starts_with("weather="));
    assert!(within(&mut h, 100, |h| sky(h).is_raining()), "it rains");
    for _ in 0..100 {
        h.app.update();
        assert!(sky(&h).is_raining(), "the rain stays");
    }
    h.run("gamerule doWeatherCycle true");
    h.run("gamerule doDaylightCycle true");
    assert!(
        within(&mut h, 100, |h| !sky(h).is_raining()),
        "with the cycle back the rain ends"
    );
    assert!(
        clock_field(&mut h, "daytime") > daytime,
        "and the sun moves"
    );
}
