//! Experience, headless: a zombie a player kills drops orbs worth vanilla's reward, they fly to
//! the player and fill the bar; a dead player drops seven points a level and respawns with
//! none; an orb nobody takes despawns at 6000 ticks and outlasts a restart. Counted in ticks.

mod support;

use horde::common::events::DropExperience;
use horde::experience::{Experience, Levels, Orb};
use horde::zombie::{Equipment, Vitality};
use support::headless::{harness, Harness};
use valence::interact_entity::{EntityInteraction, InteractEntityEvent};
use valence::prelude::*;
use valence::protocol::packets::play::{ExperienceBarUpdateS2c, ItemPickupAnimationS2c};
use valence::protocol::Packet;

fn orbs(h: &mut Harness) -> Vec<(DVec3, u32)> {
    h.app
        .world
        .query_filtered::<(&Position, &Orb), Without<Despawned>>()
        .iter(&h.app.world)
        .map(|(p, o)| (p.0, o.value))
        .collect()
}

fn experience(h: &Harness) -> Levels {
    h.app.world.get::<Experience>(h.client).unwrap().0
}

#[test]
fn a_zombie_a_player_kills_gives_its_reward_in_orbs_that_fly_to_the_player() {
    let mut h = harness();
    h.run("time set midnight");
    // A creative player is no prey, and still takes orbs.
    *h.app.world.get_mut::<GameMode>(h.client).unwrap() = GameMode::Creative;
    h.run("give tester diamond_sword");
    let feet = h.app.world.get::<Position>(h.client).unwrap().0;
    let zombie = h.summon(BlockPos::from_pos(feet + DVec3::new(2.0, 0.0, 0.0)));
    h.app.update();
    let worn = h.app.world.get::<Equipment>(zombie).unwrap().stacks();
    let worn = worn.iter().flatten().count() as u32;
    let mut killed = false;
    for _ in 0..40 {
        let at = h.app.world.get::<Position>(zombie).unwrap().0;
        h.app.world.get_mut::<Position>(h.client).unwrap().0 = at + DVec3::new(1.5, 0.0, 0.0);
        h.app.world.send_event(InteractEntityEvent {
            client: h.client,
            entity: zombie,
            sneaking: false,
            interact: EntityInteraction::Attack,
        });
        // A full charge between blows: a sword's 20 / 1.6 ticks.
        for _ in 0..13 {
            h.app.update();
        }
        if h.app
            .world
            .get::<Vitality>(zombie)
            .is_none_or(|v| v.0 <= 0.0)
        {
            killed = true;
            break;
        }
    }
    assert!(killed, "the zombie died");
    let dropped: u32 = orbs(&mut h).iter().map(|(_, v)| v).sum();
    let taken = experience(&h).total;
    let reward = dropped + taken;
    assert!(
        (5 + worn..=5 + 3 * worn).contains(&reward),
        "5 and 1 to 3 for each of {worn} worn: {reward}"
    );
    // They come to the player, one every 2 ticks, and the bar shows them.
    let mut ticks = 0;
    while !orbs(&mut h).is_empty() {
        h.app.update();
        ticks += 1;
        assert!(ticks < 400, "orbs left: {:?}", orbs(&mut h));
    }
    let levels = experience(&h);
    let mut expected = Levels::default();
    expected.add(reward);
    assert_eq!((levels.level, levels.total), (expected.level, reward));
    assert!((levels.progress - expected.progress).abs() < 1e-5);
    let seen = h.helper.collect_received();
    let bar = seen
        .0
        .iter()
        .rev()
        .find(|f| f.id == ExperienceBarUpdateS2c::ID);
    let bar = bar.expect("the bar was sent");
    let bar = bar.decode::<ExperienceBarUpdateS2c>().unwrap();
    assert_eq!(
        (bar.level.0, bar.total_xp.0, bar.bar),
        (levels.level as i32, reward as i32, levels.progress)
    );
    assert!(seen.first::<ItemPickupAnimationS2c>().collector_entity_id.0 == 0);
}

#[test]
fn a_dead_player_drops_seven_points_a_level_and_comes_back_with_none() {
    let mut h = harness();
    h.app.world.get_mut::<Experience>(h.client).unwrap().0 = Levels {
        level: 3,
        progress: 0.5,
        total: 40,
    };
    h.run("kill tester");
    h.app.update();
    h.app.update();
    let dropped: Vec<u32> = orbs(&mut h).iter().map(|(_, v)| *v).collect();
    assert_eq!(dropped.iter().sum::<u32>(), 21, "{dropped:?}");
    assert_eq!(dropped, [17, 3, 1], "vanilla's orb sizes");
    assert_eq!(experience(&h), Levels::default());
}

#[test]
fn an_orb_nobody_takes_lies_where_it_fell_and_despawns_after_six_thousand_ticks() {
    let mut h = harness();
    let feet = h.app.world.get::<Position>(h.client).unwrap().0;
    let away = feet + DVec3::new(12.0, 2.0, 0.0);
    h.fill(
        BlockPos::from_pos(away) - BlockPos::new(1, 4, 1),
        BlockPos::from_pos(away) + BlockPos::new(1, 3, 1),
        "air",
    );
    h.fill(
        BlockPos::from_pos(away) - BlockPos::new(1, 4, 1),
        BlockPos::from_pos(away) - BlockPos::new(-1, 4, -1),
        "stone",
    );
    h.app.world.send_event(DropExperience {
        at: away,
        amount: 3,
    });
    // The tick it appears, then 99 of its own.
    for _ in 0..100 {
        h.app.update();
    }
    let [(at, 3)] = orbs(&mut h)[..] else {
        panic!("one orb of 3: {:?}", orbs(&mut h));
    };
    assert_eq!(at.y, away.y.floor() - 3.0, "on the stone");
    // The stone under it dug away, it falls to the next.
    let under = BlockPos::from_pos(at) - BlockPos::new(0, 1, 0);
    h.fill(under, under, "air");
    for _ in 0..20 {
        h.app.update();
    }
    let [(fallen, 3)] = orbs(&mut h)[..] else {
        panic!("the orb: {:?}", orbs(&mut h));
    };
    assert!(fallen.y < at.y, "{fallen} under {at}");
    for _ in 119..5999 {
        h.app.update();
    }
    assert_eq!(orbs(&mut h).len(), 1, "still there at tick 5999");
    h.app.update();
    assert!(orbs(&mut h).is_empty(), "gone at 6000");
    assert_eq!(experience(&h), Levels::default());
}

#[test]
fn an_orb_on_the_ground_comes_back_after_a_restart_as_it_was() {
    let mut h = harness();
    let feet = h.app.world.get::<Position>(h.client).unwrap().0;
    h.app.world.send_event(DropExperience {
        at: feet + DVec3::new(12.0, 0.0, 3.0),
        amount: 17,
    });
    for _ in 0..60 {
        h.app.update();
    }
    let [(at, 17)] = orbs(&mut h)[..] else {
        panic!("one orb of 17: {:?}", orbs(&mut h));
    };
    let mut h = h.restarted();
    let [(back, 17)] = orbs(&mut h)[..] else {
        panic!("the orb of 17 back: {:?}", orbs(&mut h));
    };
    assert!(back.distance(at) < 1e-6, "{back} vs {at}");
}
