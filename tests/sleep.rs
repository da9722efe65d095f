//! Beds, headless: a bed placed and clicked sets the respawn point, by day it refuses with
//! vanilla's message, at night beside a zombie too; at night alone the player lies down, and
//! after 100 ticks the night is skipped to the next sunrise (the rain stopped, the world's age
//! and phase unmoved) and the player wakes; a blow wakes a sleeper too. The point is saved, a
//! death respawns at the bed, and a broken bed sends the player to the world spawn with
//! vanilla's message.

mod support;

use horde::common::body::{Dead, RespawnPoint};
use horde::sleep::Sleeping;
use horde::time::WorldClock;
use support::headless::{harness, Harness};
use valence::entity::entity::Pose;
use valence::prelude::*;
use valence::protocol::packets::play::game_state_change_s2c::GameEventKind;
use valence::protocol::packets::play::GameMessageS2c;
use valence::protocol::Packet;
use valence::status::RequestRespawnEvent;

/// The translation keys of the chat (`false`) and action bar (`true`) messages since the last
/// look.
fn messages(h: &mut Harness) -> Vec<(bool, String)> {
    h.helper
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == GameMessageS2c::ID)
        .filter_map(|f| f.decode::<GameMessageS2c>().ok())
        .map(|m| (m.overlay, format!("{:?}", m.chat)))
        .collect()
}

fn said(h: &mut Harness, overlay: bool, key: &str) -> bool {
    messages(h)
        .iter()
        .any(|(o, text)| *o == overlay && text.contains(key))
}

/// A red bed on a stone field, its foot at `o + (2, 0, 0)` and its head south of it; the
/// player beside it.
fn bed(h: &mut Harness) -> (BlockPos, BlockPos) {
    let o = h.stone_field();
    h.put_player(o);
    h.app.world.get_mut::<Look>(h.client).unwrap().yaw = 0.0; // looking south
    h.app
        .world
        .get_mut::<Inventory>(h.client)
        .unwrap()
        .set_slot(36, ItemStack::new(ItemKind::RedBed, 1, None));
    h.app.update();
    h.use_on(BlockPos::new(o.x + 2, o.y - 1, o.z));
    let (foot, head) = (
        BlockPos::new(o.x + 2, o.y, o.z),
        BlockPos::new(o.x + 2, o.y, o.z + 1),
    );
    assert_eq!(h.block(head).get(PropName::Part), Some(PropValue::Head));
    (foot, head)
}

fn asleep(h: &Harness) -> bool {
    h.app.world.get::<Sleeping>(h.client).is_some()
}

#[test]
fn a_bed_sets_the_spawn_refuses_by_day_and_beside_a_zombie_and_skips_the_night() {
    let mut h = harness();
    let (foot, head) = bed(&mut h);
    h.run("time set noon");
    h.helper.clear_received();
    h.use_on(foot);
    assert!(!asleep(&h));
    let said_now = messages(&mut h);
    assert!(
        said_now
            .iter()
            .any(|(o, t)| !*o && t.contains("block.minecraft.set_spawn")),
        "{said_now:?}"
    );
    assert!(
        said_now
            .iter()
            .any(|(o, t)| *o && t.contains("block.minecraft.bed.no_sleep")),
        "{said_now:?}"
    );
    assert_eq!(
        h.app.world.get::<RespawnPoint>(h.client),
        Some(&RespawnPoint::bed(head))
    );

    // At night, a zombie six blocks off keeps the player up.
    h.run("time set midnight");
    let zombie = h.summon(BlockPos::new(head.x + 6, head.y, head.z));
    h.helper.clear_received();
    h.use_on(head);
    assert!(!asleep(&h));
    assert!(said(&mut h, true, "block.minecraft.bed.not_safe"));
    h.app.world.entity_mut(zombie).insert(Despawned);
    h.app.update();

    // Alone at night in the rain: the player lies down, and the night passes.
    h.run("weather rain");
    let clock = h.app.world.resource::<WorldClock>().clone();
    let phase_of = |h: &mut Harness| h.run("phase").split_whitespace().next().map(str::to_owned);
    let phase = phase_of(&mut h);
    h.helper.clear_received();
    h.use_on(head);
    assert!(asleep(&h));
    assert!(
        said(&mut h, true, "sleep.skipping_night"),
        "the only player asleep: the action bar says the night is slept through"
    );
    assert_eq!(
        h.app.world.get::<Pose>(h.client).map(|p| p.0),
        Some(valence::entity::Pose::Sleeping)
    );
    assert_eq!(h.block(head).get(PropName::Occupied), Some(PropValue::True));
    let mut ticks = 0;
    while asleep(&h) {
        h.app.update();
        ticks += 1;
        assert!(ticks < 200, "the night was not skipped");
    }
    assert!(ticks >= 99, "slept {ticks} ticks");
    h.app.update(); // The clock hears of it the next tick.
    let now = h.app.world.resource::<WorldClock>().clone();
    assert!(
        now.vanilla_time() < 200,
        "sunrise: {} after {ticks} ticks, day {} from {}",
        now.vanilla_time(),
        now.day,
        clock.day
    );
    assert_eq!(now.day, clock.day + 1);
    assert!(now.age - clock.age < 200, "the world's age runs on");
    assert_eq!(
        phase_of(&mut h),
        phase,
        "the escalation phase counts the world's age"
    );
    let weather = h.run("weather");
    assert!(weather.contains("raining=false"), "{weather}");
    assert_eq!(
        h.block(head).get(PropName::Occupied),
        Some(PropValue::False)
    );

    // A blow wakes a sleeper.
    h.run("time set midnight");
    h.use_on(head);
    assert!(asleep(&h));
    h.run("damage tester 1");
    h.app.update();
    assert!(!asleep(&h), "hurt, the player gets up");
    assert_eq!(
        h.block(head).get(PropName::Occupied),
        Some(PropValue::False)
    );

    // The point outlasts a restart; a death respawns beside the bed: the bed's head points
    // south, so vanilla's first try is west of the head (`BedBlock.findStandUpPosition`).
    let mut h = h.restarted();
    assert_eq!(
        h.app.world.get::<RespawnPoint>(h.client),
        Some(&RespawnPoint::bed(head))
    );
    h.run("kill tester");
    h.app
        .world
        .send_event(RequestRespawnEvent { client: h.client });
    h.app.update();
    let at = h.app.world.get::<Position>(h.client).unwrap().0;
    assert!(
        at.distance(DVec3::new(
            head.x as f64 - 0.5,
            head.y as f64,
            head.z as f64 + 0.5
        )) < 0.1,
        "respawned beside the bed: {at}"
    );

    // The bed broken, the next death respawns at the world spawn, with vanilla's word.
    h.fill(foot, head, "air");
    h.run("kill tester");
    h.helper.clear_received();
    h.app
        .world
        .send_event(RequestRespawnEvent { client: h.client });
    h.app.update();
    let told = h.game_events();
    assert!(
        told.contains(&GameEventKind::NoRespawnBlockAvailable),
        "the client is told the bed is gone: {told:?}"
    );
    assert!(h.app.world.get::<RespawnPoint>(h.client).is_none());
    let spawn = h.spawn_point();
    let at = h.app.world.get::<Position>(h.client).unwrap().0;
    assert!(at.distance(spawn) < 1.0, "at the spawn: {at} {spawn}");
}

#[test]
fn an_operators_spawnpoint_needs_no_bed_and_outlasts_a_restart() {
    let mut h = harness();
    h.app.update();
    let spawn = h.spawn_point();
    let floor = h.stone_field();
    let point = BlockPos::new(floor.x + 6, floor.y + 1, floor.z + 2);
    let answer = h.run(&format!(
        "spawnpoint tester {} {} {}",
        point.x, point.y, point.z
    ));
    assert!(answer.starts_with("spawnpoint=true"), "{answer}");
    h.app.update();
    assert_eq!(
        h.app.world.get::<RespawnPoint>(h.client),
        Some(&RespawnPoint {
            at: point,
            forced: true
        })
    );
    let mut h = h.restarted();
    assert_eq!(
        h.app.world.get::<RespawnPoint>(h.client).map(|p| p.forced),
        Some(true),
        "kept"
    );
    assert_eq!(h.block(point), BlockState::AIR);
    die_and_respawn(&mut h);
    let at = h.app.world.get::<Position>(h.client).unwrap().0;
    let on_point = DVec3::new(
        point.x as f64 + 0.5,
        point.y as f64 + 0.1,
        point.z as f64 + 0.5,
    );
    assert!(at.distance(on_point) < 0.05, "on the point, no bed: {at}");

    // Walled in, the point is no place to stand: the world spawn, with vanilla's word.
    h.fill(point, BlockPos::new(point.x, point.y + 1, point.z), "stone");
    die_and_respawn(&mut h);
    let at = h.app.world.get::<Position>(h.client).unwrap().0;
    assert!(at.distance(spawn) < 1.0, "at the spawn: {at} {spawn}");
}

/// The player killed, then back from the death screen.
fn die_and_respawn(h: &mut Harness) {
    h.run("kill tester");
    h.app.update();
    assert!(h.app.world.get::<Dead>(h.client).is_some());
    h.app
        .world
        .send_event(RequestRespawnEvent { client: h.client });
    h.app.update();
}

#[test]
fn an_operators_world_spawn_is_where_players_come_back_and_outlasts_a_restart() {
    let mut h = harness();
    h.app.update();
    let floor = h.stone_field();
    let point = BlockPos::new(floor.x + 4, floor.y + 1, floor.z - 3);
    let answer = h.run(&format!(
        "setworldspawn {} {} {} 90",
        point.x, point.y, point.z
    ));
    assert_eq!(
        answer,
        format!(
            "spawn=true x={} y={} z={} angle=90.0",
            point.x, point.y, point.z
        )
    );
    h.app.update();
    let centre = DVec3::new(point.x as f64 + 0.5, point.y as f64, point.z as f64 + 0.5);
    assert_eq!(h.spawn_point(), centre);
    let compass = valence::spawn::RespawnPosition {
        pos: point,
        yaw: 90.0,
    };
    assert_eq!(
        h.app.world.get::<valence::spawn::RespawnPosition>(h.client),
        Some(&compass),
        "the client's compass points there"
    );
    let mut h = h.restarted();
    assert_eq!(h.spawn_point(), centre, "kept in the save");
    die_and_respawn(&mut h);
    let at = h.app.world.get::<Position>(h.client).unwrap().0;
    assert!(at.distance(centre) < 0.05, "back at the set spawn: {at}");
    assert!(h.run("setworldspawn 0 400 0").starts_with("error="));
}
