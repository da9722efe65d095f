//! A survival body, headless: falls, drowning, lava and fire, hunger and healing, armour, each
//! by vanilla 1.20.1's numbers. Each test counts ticks, never time.

mod support;

use horde::common::body::Dead;
use horde::common::events::{DamageCause, DamagePlayer};
use horde::config::Config;
use horde::player::effects::{Effect, Effects};
use horde::player::hunger::Food;
use horde::player::Health;
use support::headless::{harness_with, Harness};
use valence::entity::entity::{Air, Flags};
use valence::movement::MovementEvent;
use valence::prelude::*;
use valence::protocol::packets::play::{
    EntityAttributesS2c, EntityEquipmentUpdateS2c, EntityStatusEffectS2c,
    RemoveEntityStatusEffectS2c,
};
use valence::protocol::{Packet, Sound};

/// A harness whose player does not heal by itself, so that each blow can be read whole.
fn body() -> Harness {
    let mut config = Config::default();
    config.spawning.enabled = false;
    config.server.spawn_protection = 0;
    config.survival.natural_regeneration = false;
    harness_with(config)
}

fn health(h: &Harness) -> f32 {
    h.app.world.get::<Health>(h.client).unwrap().0
}

fn feet(h: &Harness) -> BlockPos {
    BlockPos::from_pos(h.app.world.get::<Position>(h.client).unwrap().0)
}

/// The client falls `height` blocks onto where it stands, in half-block steps as its moves
/// arrive, the last on the ground.
fn fall(h: &mut Harness, height: f64) {
    let ground = h.app.world.get::<Position>(h.client).unwrap().0;
    let step = |h: &mut Harness, from: DVec3, to: DVec3, on_ground: bool| {
        h.app.world.send_event(MovementEvent {
            client: h.client,
            position: to,
            old_position: from,
            look: Look::default(),
            old_look: Look::default(),
            on_ground,
            old_on_ground: false,
        });
        h.app.update();
    };
    let mut at = ground + DVec3::new(0.0, height, 0.0);
    // The climb up is a teleport, which no fall counts.
    step(h, ground, at, false);
    while at.y - 0.5 > ground.y {
        let next = at - DVec3::new(0.0, 0.5, 0.0);
        step(h, at, next, false);
        at = next;
    }
    step(h, at, ground, true);
    h.app.update();
}

#[test]
fn a_fall_hurts_its_height_less_three_and_water_and_slow_falling_break_it() {
    let mut h = body();
    fall(&mut h, 10.0);
    assert_eq!(health(&h), 13.0, "10 blocks: 7 damage");
    fall(&mut h, 3.0);
    assert_eq!(health(&h), 13.0, "3 blocks are safe");

    let at = feet(&h);
    h.fill(at, at, "water");
    fall(&mut h, 30.0);
    assert_eq!(health(&h), 13.0, "landing in water");

    h.fill(at, at, "air");
    // Slow falling: the client floats down and nothing counts, until the effect runs out.
    h.helper.clear_received();
    let given = h.run("effect give tester slow_falling 10");
    assert_eq!(
        given,
        "effect=slow_falling player=tester seconds=10 amplifier=0"
    );
    h.app.update();
    let shown = h.helper.collect_received().first::<EntityStatusEffectS2c>();
    assert_eq!((shown.effect_id.0, shown.duration.0), (28, 200));
    fall(&mut h, 30.0);
    assert_eq!(health(&h), 13.0, "falling slowly");
    h.helper.clear_received();
    for _ in 0..200 {
        h.app.update();
    }
    let gone = h
        .helper
        .collect_received()
        .first::<RemoveEntityStatusEffectS2c>();
    assert_eq!(gone.effect_id.0, 28, "the effect ran out");
    assert!(h
        .run("effect give tester levitation")
        .contains("no effect named levitation"));

    // Speed II: the client is told its movement speed with vanilla's modifier, +40 %.
    h.helper.clear_received();
    let given = h.run("effect give tester speed 5 1");
    assert!(given.starts_with("effect=speed "), "{given}");
    h.app.update();
    let received = h.helper.collect_received();
    let sent = received.first::<EntityAttributesS2c>();
    let speed = &sent.properties[0];
    assert_eq!(speed.key.as_str(), "minecraft:generic.movement_speed");
    assert!((speed.value - 0.1).abs() < 1e-9);
    assert!((speed.modifiers[0].amount - 0.4).abs() < 1e-9);
    // Regeneration II heals one point every 25 ticks.
    h.run("effect give tester regeneration 5 1");
    for _ in 0..100 {
        h.app.update();
    }
    assert_eq!(health(&h), 17.0, "four points in 100 ticks");
    h.run("effect clear tester");

    fall(&mut h, 40.0);
    assert!(
        h.app.world.get::<Dead>(h.client).is_some(),
        "40 blocks kill"
    );
}

#[test]
fn under_water_the_air_runs_out_in_300_ticks_then_drowning_hurts_two_a_second() {
    let mut h = body();
    let at = feet(&h);
    h.fill(
        at + BlockPos::new(-1, 0, -1),
        at + BlockPos::new(1, 2, 1),
        "water",
    );
    for _ in 0..100 {
        h.app.update();
    }
    let air = h.app.world.get::<Air>(h.client).unwrap().0;
    assert!((199..=201).contains(&air), "a bubble a tick: {air}");
    let mut ticks = 100;
    while health(&h) == 20.0 && ticks < 400 {
        h.app.update();
        ticks += 1;
    }
    assert!(
        (315..=325).contains(&ticks),
        "first blow after {ticks} ticks"
    );
    assert_eq!(health(&h), 18.0);
    for _ in 0..20 {
        h.app.update();
    }
    assert_eq!(health(&h), 16.0, "one more blow a second");

    // Out of the water the bubbles come back, four a tick.
    h.fill(
        at + BlockPos::new(-1, 0, -1),
        at + BlockPos::new(1, 2, 1),
        "air",
    );
    for _ in 0..75 {
        h.app.update();
    }
    assert_eq!(h.app.world.get::<Air>(h.client).unwrap().0, 300);
    assert_eq!(health(&h), 16.0);
}

#[test]
fn lava_burns_and_sets_alight_and_water_puts_the_fire_out() {
    let mut h = body();
    let at = feet(&h);
    h.fill(at, at, "lava");
    h.app.update();
    h.app.update();
    assert_eq!(health(&h), 16.0, "lava's 4");
    let flags = h.app.world.get::<Flags>(h.client).unwrap();
    assert!(flags.on_fire(), "alight, as every client sees");

    // Out of the lava the player burns on, a point a second.
    h.fill(at, at, "air");
    for _ in 0..60 {
        h.app.update();
    }
    let burnt = health(&h);
    assert!(burnt < 16.0, "burning: {burnt}");
    assert!(h.app.world.get::<Flags>(h.client).unwrap().on_fire());

    h.fill(at, at, "water");
    h.app.update();
    h.app.update();
    assert!(!h.app.world.get::<Flags>(h.client).unwrap().on_fire());
    let wet = health(&h);
    for _ in 0..60 {
        h.app.update();
    }
    assert_eq!(health(&h), wet, "put out");
}

#[test]
fn a_head_in_stone_suffocates() {
    let mut h = body();
    let at = feet(&h);
    h.fill(
        at + BlockPos::new(0, 1, 0),
        at + BlockPos::new(0, 1, 0),
        "stone",
    );
    for _ in 0..25 {
        h.app.update();
    }
    assert!(health(&h) <= 18.0, "a point each time the frames allow");
    h.fill(
        at + BlockPos::new(0, 1, 0),
        at + BlockPos::new(0, 1, 0),
        "glass",
    );
    let now = health(&h);
    for _ in 0..25 {
        h.app.update();
    }
    assert_eq!(health(&h), now, "glass does not suffocate");
}

#[test]
fn a_starving_player_is_hurt_down_to_one_on_normal() {
    let mut h = body();
    *h.app.world.get_mut::<Food>(h.client).unwrap() = Food {
        level: 0,
        saturation: 0.0,
        ..Food::default()
    };
    // A blow each 80 ticks: 19 blows to 1, then no more.
    for _ in 0..(80 * 25) {
        h.app.update();
    }
    assert_eq!(health(&h), 1.0);
    assert!(h.app.world.get::<Dead>(h.client).is_none());
}

#[test]
fn sprinting_ten_blocks_and_a_sprint_jump_tire_as_vanilla_walking_does_not() {
    let mut h = body();
    let mut at = h.app.world.get::<Position>(h.client).unwrap().0;
    let mut walk = |h: &mut Harness, blocks: usize, jump_at_end: bool| {
        for i in 0..blocks * 4 {
            let next = at + DVec3::new(0.25, 0.0, 0.0);
            let up = jump_at_end && i + 1 == blocks * 4;
            let to = next + DVec3::new(0.0, if up { 0.42 } else { 0.0 }, 0.0);
            h.app.world.send_event(MovementEvent {
                client: h.client,
                position: to,
                old_position: at,
                look: Look::default(),
                old_look: Look::default(),
                on_ground: !up,
                old_on_ground: true,
            });
            h.app.update();
            at = to;
        }
    };
    let exhaustion = |h: &Harness| h.app.world.get::<Food>(h.client).unwrap().exhaustion;
    walk(&mut h, 10, false);
    assert_eq!(exhaustion(&h), 0.0, "walking is free");
    h.app
        .world
        .get_mut::<Flags>(h.client)
        .unwrap()
        .set_sprinting(true);
    walk(&mut h, 10, true);
    // 39 sprinted quarter-blocks on the ground (0.1 a block) and one sprint jump (0.2).
    assert!(
        (exhaustion(&h) - (0.975 + 0.2)).abs() < 1e-4,
        "{}",
        exhaustion(&h)
    );
}

#[test]
fn a_fed_player_heals_and_pays_for_it_in_food_until_it_falls_below_eighteen() {
    let mut config = Config::default();
    config.spawning.enabled = false;
    config.server.spawn_protection = 0;
    let mut h = harness_with(config);
    h.app.world.get_mut::<Health>(h.client).unwrap().0 = 4.0;
    for _ in 0..3000 {
        h.app.update();
    }
    let food = *h.app.world.get::<Food>(h.client).unwrap();
    assert_eq!(food.level, 17, "healing ate the food down: {food:?}");
    let healed = health(&h);
    assert!(healed > 8.0, "healed: {healed}");
    for _ in 0..400 {
        h.app.update();
    }
    assert_eq!(health(&h), healed, "no healing below 18 food");
}

#[test]
fn iron_armour_stops_most_of_a_zombies_blow_and_wears() {
    let mut h = body();
    // Past the joining player's spawn protection.
    for _ in 0..60 {
        h.app.update();
    }
    let blow = |h: &mut Harness| {
        let before = health(h);
        h.app.world.send_event(DamagePlayer {
            player: h.client,
            amount: 3.0,
            cause: DamageCause::Mob(1),
        });
        h.app.update();
        // Past the invulnerability frames, for the next blow.
        for _ in 0..20 {
            h.app.update();
        }
        before - health(h)
    };
    assert_eq!(blow(&mut h), 3.0, "bare");
    for (slot, item) in [
        (5, ItemKind::IronHelmet),
        (6, ItemKind::IronChestplate),
        (7, ItemKind::IronLeggings),
        (8, ItemKind::IronBoots),
    ] {
        h.app
            .world
            .get_mut::<Inventory>(h.client)
            .unwrap()
            .set_slot(slot, ItemStack::new(item, 1, None));
    }
    // 15 armour points, no toughness: 3 * (1 - (15 - 3/2) / 25) = 1.38.
    let through = blow(&mut h);
    assert!((through - 1.38).abs() < 1e-3, "{through}");
    let inventory = h.app.world.get::<Inventory>(h.client).unwrap();
    for slot in 5..=8 {
        let worn = horde::player::armour::damage_of(inventory.slot(slot as u16).expect("worn"));
        assert_eq!(worn, 1, "slot {slot} wore by a point");
    }
}

/// Holds use with the item in the first hotbar slot, as a client does.
fn use_held(h: &mut Harness) {
    h.app
        .world
        .send_event(valence::interact_item::InteractItemEvent {
            client: h.client,
            hand: valence::protocol::Hand::Main,
            sequence: 0,
        });
}

#[test]
fn eating_bread_takes_32_ticks_and_gives_vanillas_food_and_saturation() {
    let mut h = body();
    *h.app.world.get_mut::<Food>(h.client).unwrap() = Food {
        level: 10,
        saturation: 0.0,
        ..Food::default()
    };
    h.run("give tester bread 2");
    use_held(&mut h);
    for _ in 0..20 {
        h.app.update();
    }
    assert_eq!(
        h.app.world.get::<Food>(h.client).unwrap().level,
        10,
        "still chewing"
    );
    for _ in 0..15 {
        h.app.update();
    }
    let food = *h.app.world.get::<Food>(h.client).unwrap();
    // Bread: 5 points, saturation modifier 0.6: 5 * 0.6 * 2 = 6.
    assert_eq!(food.level, 15);
    assert!((food.saturation - 6.0).abs() < 1e-4, "{food:?}");
    let inventory = h.app.world.get::<Inventory>(h.client).unwrap();
    assert_eq!(inventory.slot(36).map(|s| s.count()), Some(1), "one eaten");
}

#[test]
fn a_full_player_cannot_eat_bread_and_letting_go_stops_a_meal() {
    let mut h = body();
    h.run("give tester bread 1");
    use_held(&mut h);
    for _ in 0..40 {
        h.app.update();
    }
    let inventory = h.app.world.get::<Inventory>(h.client).unwrap();
    assert_eq!(
        inventory.slot(36).map(|s| s.count()),
        Some(1),
        "full: not eaten"
    );

    h.app.world.get_mut::<Food>(h.client).unwrap().level = 10;
    use_held(&mut h);
    for _ in 0..10 {
        h.app.update();
    }
    // Switching to another hotbar slot stops it.
    h.helper
        .send(&valence::protocol::packets::play::UpdateSelectedSlotC2s { slot: 1 });
    for _ in 0..40 {
        h.app.update();
    }
    assert_eq!(
        h.app
            .world
            .get::<valence::inventory::HeldItem>(h.client)
            .unwrap()
            .slot(),
        37
    );
    assert_eq!(h.app.world.get::<Food>(h.client).unwrap().level, 10);
}

#[test]
fn other_players_see_and_hear_the_armour_a_player_puts_on_and_are_not_flooded_with_it() {
    let mut h = body();
    let (bundle, mut watcher) = valence::testing::create_mock_client("watcher");
    h.app.world.spawn(bundle);
    for _ in 0..5 {
        h.app.update();
    }
    watcher.clear_received();
    h.app
        .world
        .get_mut::<Inventory>(h.client)
        .unwrap()
        .set_slot(5, ItemStack::new(ItemKind::IronHelmet, 1, None));
    h.app.update();
    let seen = watcher.collect_received();
    // Both hear it go on (`LivingEntity.onEquipItem`).
    let iron = (Sound::ItemArmorEquipIron, 1.0);
    assert!(support::headless::sounds(&seen).contains(&iron));
    assert!(support::headless::sounds(&h.helper.collect_received()).contains(&iron));
    let update = seen.first::<EntityEquipmentUpdateS2c>();
    let head = update.equipment.iter().find(|e| e.slot == 5).unwrap();
    assert_eq!(
        head.item.as_ref().map(|s| s.item),
        Some(ItemKind::IronHelmet)
    );
    // Then only the refresh every two seconds.
    for _ in 0..80 {
        h.app.update();
    }
    let again = watcher
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == EntityEquipmentUpdateS2c::ID)
        .count();
    assert!((1..=3).contains(&again), "{again} updates in 80 ticks");
}

#[test]
fn rotten_flesh_gives_hunger_shown_to_the_client_and_it_tires_as_vanillas() {
    let mut h = body();
    *h.app.world.get_mut::<Food>(h.client).unwrap() = Food {
        level: 4,
        saturation: 0.0,
        ..Food::default()
    };
    h.run("give tester rotten_flesh 5");
    h.helper.clear_received();
    // Four times in five: eaten one by one until it takes.
    let mut shown = None;
    for _ in 0..5 {
        use_held(&mut h);
        for _ in 0..35 {
            h.app.update();
        }
        let received = h.helper.collect_received();
        if let Some(effect) = received
            .0
            .iter()
            .filter(|f| f.id == EntityStatusEffectS2c::ID)
            .map(|f| f.decode::<EntityStatusEffectS2c>().unwrap())
            .find(|e| e.effect_id.0 == 17)
        {
            shown = Some((effect.amplifier, effect.duration.0));
            break;
        }
    }
    assert_eq!(shown, Some((0, 600)), "Hunger I for 30 s, on the client");
    let before = h.app.world.get::<Food>(h.client).unwrap().exhaustion;
    for _ in 0..100 {
        h.app.update();
    }
    let after = h.app.world.get::<Food>(h.client).unwrap().exhaustion;
    // HungerMobEffect: 0.005 a tick at level I.
    assert!((after - before - 0.5).abs() < 1e-3, "{before} -> {after}");

    // Kept in playerdata as vanilla's ActiveEffects, with what is left of it.
    let h = h.restarted();
    let effects = h.app.world.get::<Effects>(h.client).unwrap();
    assert_eq!(effects.amplifier(Effect::Hunger), Some(0), "{effects:?}");
}
