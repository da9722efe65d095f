//! Noise and light, headless: a player digging behind a wall draws a zombie that cannot see
//! him and a quiet one does not; a torch at night draws one and a dim redstone torch does not;
//! a pack member drawn away is busy (`Pursuing`) while it looks; a hot place calls zombies from
//! afar by night and not with `summon_zombies = 0`. Each case waits a bounded number of ticks,
//! counted, never timed.

mod support;

use horde::noise::Curious;
use horde::pack::PackBrain;
use horde::zombie::{Destination, Lure, Pursuing, Target, Why, Zombie};
use support::headless::{harness_with, Harness};
use valence::interact_block::InteractBlockEvent;
use valence::prelude::*;
use valence::protocol::{Direction, Hand};

/// Zombies stroll no more than 2 blocks, so that each case's distances hold.
fn config() -> horde::config::Config {
    let mut config = horde::config::Config::default();
    config.spawning.enabled = false;
    config.server.spawn_protection = 0;
    config.zombies.wander_radius = 2.0;
    config
}

/// [`Harness::stone_field`] in clear weather, the player at the spawn block, which is
/// returned.
fn field(h: &mut Harness) -> BlockPos {
    h.run("weather clear");
    let o = h.stone_field();
    put_player(h, o);
    o
}

fn put_player(h: &mut Harness, at: BlockPos) {
    h.put_player(at);
    h.app.update();
}

fn centre(at: BlockPos) -> DVec3 {
    DVec3::new(at.x as f64 + 0.5, at.y as f64 + 0.5, at.z as f64 + 0.5)
}

fn lure(h: &Harness, zombie: Entity) -> Option<DVec3> {
    h.app.world.get::<Lure>(zombie).unwrap().0
}

fn chasing(h: &Harness, zombie: Entity) -> bool {
    h.app.world.get::<Target>(zombie).unwrap().player.is_some()
}

fn position(h: &Harness, zombie: Entity) -> DVec3 {
    h.app.world.get::<Position>(zombie).unwrap().0
}

fn flat_distance(a: DVec3, b: DVec3) -> f64 {
    (a.x - b.x).hypot(a.z - b.z)
}

/// A stone wall a block thick and 5 high across x = `x`, from z - `half` to z + `half`.
fn wall(h: &mut Harness, o: BlockPos, x: i32, half: i32) {
    h.fill(
        BlockPos::new(x, o.y, o.z - half),
        BlockPos::new(x, o.y + 4, o.z + half),
        "stone",
    );
}

/// What a zombie did while the player dug.
struct Heard {
    zombie: Entity,
    dirt: BlockPos,
    /// It saw or was drawn before the dig.
    saw: bool,
    /// Where it was drawn to, and why it headed there, the first tick it was.
    drawn: Option<(DVec3, Why, bool)>,
}

/// The player, behind a wall from a zombie 9 blocks off, digs a dirt block by his feet (or,
/// quiet, does not).
fn behind_a_wall(h: &mut Harness, digs: bool) -> Heard {
    let o = field(h);
    wall(h, o, o.x + 3, 4);
    let zombie = h.summon(BlockPos::new(o.x + 9, o.y, o.z));
    let dirt = BlockPos::new(o.x + 1, o.y, o.z);
    h.fill(dirt, dirt, "dirt");
    // It has not seen him, and nothing draws it.
    let saw = (0..40).any(|_| {
        h.app.update();
        chasing(h, zombie) || lure(h, zombie).is_some()
    });
    let mut drawn = None;
    let mut look = |h: &mut Harness| {
        if drawn.is_none() {
            drawn = lure(h, zombie).map(|to| {
                let why = h.app.world.get::<Destination>(zombie).unwrap().why;
                (to, why, h.app.world.get::<Pursuing>(zombie).is_some())
            });
        }
    };
    if digs {
        h.dig(dirt, DiggingState::Start);
        for _ in 0..30 {
            look(h);
            h.app.update();
        }
        h.dig(dirt, DiggingState::Stop);
    }
    for _ in 0..5 {
        look(h);
        h.app.update();
    }
    Heard {
        zombie,
        dirt,
        saw,
        drawn,
    }
}

#[test]
fn a_player_digging_behind_a_wall_draws_a_zombie_that_cannot_see_him() {
    let mut h = harness_with(config());
    let heard = behind_a_wall(&mut h, true);
    assert!(
        !heard.saw,
        "before the dig the zombie neither saw nor heard him"
    );
    assert!(h.block(heard.dirt).is_air(), "the dirt was dug");
    let (to, why, busy) = heard.drawn.expect("the dig drew it");
    assert!(
        to.distance(centre(heard.dirt)) < 0.01,
        "to the place, not the player"
    );
    assert_eq!(why, Why::Investigate);
    assert!(busy, "busy (Pursuing) while it goes to look");
    // It walks round the wall to the place, where it finds him.
    let zombie = heard.zombie;
    let found = chasing(&h, zombie)
        || (0..600).any(|_| {
            h.app.update();
            chasing(&h, zombie)
        });
    assert!(found, "it went to look and found him");
    assert!(lure(&h, zombie).is_none(), "the chase took over");
}

#[test]
fn a_quiet_player_behind_a_wall_draws_nobody() {
    let mut h = harness_with(config());
    let heard = behind_a_wall(&mut h, false);
    assert!(!heard.saw);
    let zombie = heard.zombie;
    let drawn = heard.drawn.is_some()
        || (0..200).any(|_| {
            h.app.update();
            lure(&h, zombie).is_some()
        });
    assert!(!drawn, "nothing to hear");
}

#[test]
fn a_noise_through_thick_walls_is_not_heard() {
    let mut h = harness_with(config());
    let o = field(&mut h);
    // Three walls of 4 take 12 of a dig's 16 blocks: 9 blocks off it is not heard.
    for x in 3..6 {
        wall(&mut h, o, o.x + x, 4);
    }
    let zombie = h.summon(BlockPos::new(o.x + 9, o.y, o.z));
    let dirt = BlockPos::new(o.x + 1, o.y, o.z);
    h.fill(dirt, dirt, "dirt");
    h.dig(dirt, DiggingState::Start);
    let drawn = (0..40).any(|_| {
        h.app.update();
        lure(&h, zombie).is_some()
    });
    assert!(!drawn);
}

fn place(h: &mut Harness, on: BlockPos, item: ItemKind) {
    let mut inventory = h.app.world.get_mut::<Inventory>(h.client).unwrap();
    inventory.set_slot(36, ItemStack::new(item, 1, None));
    h.app.update();
    let client = h.client;
    h.app.world.send_event(InteractBlockEvent {
        client,
        hand: Hand::Main,
        position: on,
        face: Direction::Up,
        cursor_pos: Vec3::new(0.5, 1.0, 0.5),
        head_inside_block: false,
        sequence: 1,
    });
    h.app.update();
}

/// The player places `item` on the ground by his feet, then walls himself in a stone box 14
/// blocks away; a zombie stands 18 blocks from the light. Returns the zombie and the light.
fn light_at_night(h: &mut Harness, item: ItemKind) -> (Entity, BlockPos) {
    let o = field(h);
    let ground = BlockPos::new(o.x + 1, o.y - 1, o.z);
    place(h, ground, item);
    let light = BlockPos::new(o.x + 1, o.y, o.z);
    assert_ne!(h.block(light), BlockState::AIR, "placed");
    let hide = BlockPos::new(o.x - 13, o.y, o.z);
    h.fill(
        BlockPos::new(hide.x - 1, hide.y - 1, hide.z - 1),
        BlockPos::new(hide.x + 1, hide.y + 2, hide.z + 1),
        "stone",
    );
    h.fill(hide, BlockPos::new(hide.x, hide.y + 1, hide.z), "air");
    put_player(h, hide);
    let zombie = h.summon(BlockPos::new(o.x + 19, o.y, o.z));
    (zombie, light)
}

#[test]
fn a_torch_at_night_draws_a_zombie_to_it() {
    let mut h = harness_with(config());
    let (zombie, light) = light_at_night(&mut h, ItemKind::Torch);
    let arrived = (0..600).any(|_| {
        h.app.update();
        flat_distance(position(&h, zombie), centre(light)) < 3.5
    });
    assert!(arrived, "the zombie walked to the torch");
    assert!(!chasing(&h, zombie), "the player is walled in");
    // It looks around, then goes back to its own errands.
    let left = (0..400).any(|_| {
        h.app.update();
        lure(&h, zombie).is_none()
    });
    assert!(left, "it gave up looking");
}

#[test]
fn a_dim_redstone_torch_draws_none() {
    let mut h = harness_with(config());
    let (zombie, _) = light_at_night(&mut h, ItemKind::RedstoneTorch);
    let drawn = (0..200).any(|_| {
        h.app.update();
        lure(&h, zombie).is_some()
    });
    assert!(!drawn, "light level 7 is below noise.light_min_level");
}

#[test]
fn a_pack_member_that_goes_to_look_is_busy_and_its_pack_blind() {
    let mut h = harness_with(config());
    let o = field(&mut h);
    // The player out of sight in a stone box; four zombies 15 blocks off form a pack.
    h.fill(
        BlockPos::new(o.x - 1, o.y - 1, o.z - 1),
        BlockPos::new(o.x + 1, o.y + 2, o.z + 1),
        "stone",
    );
    h.fill(o, BlockPos::new(o.x, o.y + 1, o.z), "air");
    let zombies: Vec<Entity> = (0..4)
        .map(|i| h.summon(BlockPos::new(o.x + 15 + i % 2, o.y, o.z + i / 2)))
        .collect();
    let in_pack = |h: &Harness| {
        zombies
            .iter()
            .filter(|z| h.app.world.get::<PackBrain>(**z).unwrap().pack.is_some())
            .count()
    };
    let formed = (0..400).any(|_| {
        h.app.update();
        in_pack(&h) >= 3
    });
    assert!(formed, "a pack formed");
    // A noise 6 blocks from where they are now (the pack may have set off).
    let members: Vec<DVec3> = zombies.iter().map(|z| position(&h, *z)).collect();
    let centroid = members.iter().copied().sum::<DVec3>() / members.len() as f64;
    let at = centroid + DVec3::new(0.0, 0.0, 6.0);
    h.run(&format!("noise {} {} {} 24 6", at.x, at.y, at.z));
    h.app.update();
    h.app.update();
    let drawn: Vec<&Entity> = zombies.iter().filter(|z| lure(&h, **z).is_some()).collect();
    assert!(!drawn.is_empty(), "the members heard it");
    for z in drawn {
        assert!(
            h.app.world.get::<Pursuing>(*z).is_some(),
            "busy while it looks"
        );
    }
}

fn count_zombies(h: &mut Harness) -> usize {
    h.app
        .world
        .query_filtered::<(), With<Zombie>>()
        .iter(&h.app.world)
        .count()
}

#[test]
fn a_hot_place_at_night_calls_zombies_from_afar() {
    let mut h = harness_with(config_with_spawns());
    let o = field(&mut h);
    let before = count_zombies(&mut h);
    let at = BlockPos::new(o.x + 2, o.y, o.z);
    h.run(&format!("noise {} {} {} 16 120", at.x, at.y, at.z));
    h.app.update();
    h.app.update();
    let called: Vec<(DVec3, Option<DVec3>)> = h
        .app
        .world
        .query_filtered::<(&Position, &Curious), With<Zombie>>()
        .iter(&h.app.world)
        .map(|(p, c)| (p.0, c.0.place()))
        .collect();
    assert_eq!(count_zombies(&mut h), before + 4, "noise.summon_zombies");
    for (pos, place) in called {
        assert!(flat_distance(pos, centre(at)) >= 23.0, "from afar: {pos}");
        let place = place.expect("drawn to the place");
        assert!(place.distance(DVec3::new(at.x as f64, at.y as f64, at.z as f64)) < 0.01);
    }
    // The place cooled: the same noise again calls nobody within the cooldown.
    h.run(&format!("noise {} {} {} 16 120", at.x, at.y, at.z));
    h.app.update();
    h.app.update();
    assert_eq!(count_zombies(&mut h), before + 4, "cooling down");
}

#[test]
fn no_zombies_are_called_with_summon_zombies_0_or_by_day() {
    let mut config = config_with_spawns();
    config.noise.summon_zombies = 0;
    let mut h = harness_with(config);
    let o = field(&mut h);
    h.run(&format!("noise {} {} {} 16 500", o.x, o.y, o.z));
    h.app.update();
    h.app.update();
    assert_eq!(count_zombies(&mut h), 0, "summon_zombies = 0");

    let mut h = harness_with(config_with_spawns());
    let o = field(&mut h);
    h.run("time set noon");
    h.run(&format!("noise {} {} {} 16 500", o.x, o.y, o.z));
    h.app.update();
    h.app.update();
    assert_eq!(count_zombies(&mut h), 0, "by day");
}

/// Natural spawning's cap on, its timer out of the way: only called zombies appear.
fn config_with_spawns() -> horde::config::Config {
    let mut config = config();
    config.spawning.enabled = true;
    config.spawning.interval_ticks = 72_000;
    config
}

#[test]
fn a_placed_torch_still_draws_after_a_restart() {
    let mut h = harness_with(config());
    let (zombie, light) = light_at_night(&mut h, ItemKind::Torch);
    h.app.world.despawn(zombie);
    let mut h = h.restarted();
    assert_ne!(
        h.block(light),
        BlockState::AIR,
        "the torch was saved with the world"
    );
    let o = BlockPos::new(light.x - 1, light.y, light.z);
    let hide = BlockPos::new(o.x - 13, o.y, o.z);
    put_player(&mut h, hide);
    let zombie = h.summon(BlockPos::new(o.x + 19, o.y, o.z));
    let drawn = (0..200).any(|_| {
        h.app.update();
        lure(&h, zombie).is_some_and(|to| to.distance(centre(light)) < 0.01)
    });
    assert!(drawn, "the light is known after the restart");
}
