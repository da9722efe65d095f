//! No zombie stands still forever: zombies put where paths fail keep re-planning and, with the
//! siege off (tests/siege.rs has it on), give up a target they cannot reach; a target across water is reached, the watchdog re-launching hops
//! that swimming makes too slow; at the end of a hop a chaser turns to a clearly nearer player.
//! Headless, on a stone arena built with `fill` around the spawn point.

mod support;

use horde::zombie::errand::MAX_REST_TICKS;
use horde::zombie::ChaseRules;
use horde::zombie::{
    Body, ChaseStats, Destination, Dozing, Lod, March, Target, Tier, Why, Zombie, ZombieKinds,
};
use support::headless::{harness, harness_with, Harness};
use valence::prelude::*;
use valence::protocol::Sound;
use valence::testing::create_mock_client;

/// Clears a flat stone arena around the spawn point and puts the player at `player`
/// (offsets from the spawn block); returns the spawn block.
fn arena(h: &mut Harness, player: [i32; 3]) -> BlockPos {
    let s = h.spawn_point();
    let (x, y, z) = (s.x.floor() as i32, s.y.floor() as i32, s.z.floor() as i32);
    // At night: the sun would burn these zombies before the test ends.
    h.run("time set midnight");
    h.run(&format!(
        "fill {} {} {} {} {} {} stone",
        x - 12,
        y - 6,
        z - 12,
        x + 12,
        y - 1,
        z + 12
    ));
    h.run(&format!(
        "fill {} {} {} {} {} {} air",
        x - 12,
        y,
        z - 12,
        x + 12,
        y + 6,
        z + 12
    ));
    let at = DVec3::new(
        (x + player[0]) as f64 + 0.5,
        (y + player[1]) as f64,
        (z + player[2]) as f64 + 0.5,
    );
    h.app.world.get_mut::<Position>(h.client).unwrap().0 = at;
    BlockPos::new(x, y, z)
}

/// A harness whose zombies neither dig nor build: where no walk reaches, they give up.
fn without_siege() -> Harness {
    let mut config = horde::config::Config::default();
    config.spawning.enabled = false;
    config.server.spawn_protection = 0;
    config.siege.enabled = false;
    harness_with(config)
}

fn zombie(h: &mut Harness) -> Entity {
    h.app
        .world
        .query_filtered::<Entity, With<Zombie>>()
        .single(&h.app.world)
}

fn stats(h: &Harness) -> ChaseStats {
    h.app.world.resource::<ChaseStats>().clone()
}

/// The longest a zombie may go without a plan: the last hop of a stroll, which the watchdog
/// bounds, then the rest before the next stroll (after it gave a target up), at most
/// `MAX_REST_TICKS` like vanilla's; one more tick either side for where the counting starts.
fn quiet_limit(h: &mut Harness) -> usize {
    let z = zombie(h);
    let kind = h.app.world.get::<Zombie>(z).unwrap().kind;
    let speed = h.app.world.resource::<ZombieKinds>().get(kind).speed;
    // Near the player its strolls hop R at a time.
    let rules = h.app.world.resource::<ChaseRules>();
    let watchdog = rules.hop.watchdog_ticks(rules.hop_reach(false), speed);
    MAX_REST_TICKS as usize + watchdog as usize + 2
}

/// Runs ticks, recording whether the zombie ever chased and the longest stretch without a plan.
fn watch(h: &mut Harness, ticks: usize) -> (bool, usize) {
    let (mut chased, mut quiet, mut longest) = (false, 0, 0);
    let mut plans = stats(h).plans;
    for _ in 0..ticks {
        h.app.update();
        let z = zombie(h);
        chased |= h.app.world.get::<Target>(z).unwrap().player.is_some();
        let now = stats(h).plans;
        quiet = if now == plans { quiet + 1 } else { 0 };
        longest = longest.max(quiet);
        plans = now;
    }
    (chased, longest)
}

#[test]
fn a_walking_zombie_is_heard_stepping_at_vanillas_volume() {
    let mut h = harness();
    let o = arena(&mut h, [8, 0, 0]);
    h.run(&format!(
        "summon zombie {} {} {}",
        o.x as f64 - 6.5,
        o.y,
        o.z as f64 + 0.5
    ));
    h.helper.clear_received();
    let mut steps = 0;
    for _ in 0..200 {
        h.app.update();
        let frames = h.helper.collect_received();
        steps += support::headless::sounds(&frames)
            .iter()
            .filter(|s| **s == (Sound::EntityZombieStep, 0.15))
            .count();
        if steps >= 2 {
            break;
        }
    }
    assert!(steps >= 2, "the chaser's steps were heard: {steps}");
}

#[test]
fn a_zombie_sealed_in_a_glass_box_keeps_trying_then_gives_up() {
    let mut h = without_siege();
    let o = arena(&mut h, [6, 0, 0]);
    // Glass lets it see the player; nothing lets it out.
    h.run(&format!(
        "fill {} {} {} {} {} {} glass",
        o.x - 2,
        o.y,
        o.z - 2,
        o.x + 2,
        o.y + 3,
        o.z + 2
    ));
    h.run(&format!(
        "fill {} {} {} {} {} {} air",
        o.x - 1,
        o.y,
        o.z - 1,
        o.x + 1,
        o.y + 2,
        o.z + 1
    ));
    h.run(&format!(
        "summon zombie {} {} {}",
        o.x as f64 + 0.5,
        o.y,
        o.z as f64 + 0.5
    ));
    let before = stats(&h);
    let (chased, longest) = watch(&mut h, 1200);
    let after = stats(&h);
    assert!(chased, "the zombie saw the player through the glass");
    assert!(
        after.plans > before.plans + 50,
        "kept re-planning: {after:?}"
    );
    assert!(
        after.give_ups > before.give_ups,
        "gave up an unreachable target: {after:?}"
    );
    assert!(
        longest <= quiet_limit(&mut h),
        "went {longest} ticks without planning"
    );
    let z = zombie(&mut h);
    let pos = h.app.world.get::<Position>(z).unwrap().0;
    assert!(
        (pos.x - (o.x as f64 + 0.5)).abs() < 1.5,
        "still in the box: {pos}"
    );
}

#[test]
fn a_zombie_in_a_pit_relaunches_and_gives_up() {
    let mut h = without_siege();
    let o = arena(&mut h, [2, 0, 0]);
    // A pit 4 deep: a zombie climbs one block at a time, so it cannot get out.
    h.run(&format!(
        "fill {} {} {} {} {} {} air",
        o.x - 1,
        o.y - 4,
        o.z - 1,
        o.x + 1,
        o.y - 1,
        o.z + 1
    ));
    h.run(&format!(
        "summon zombie {} {} {}",
        o.x as f64 + 0.5,
        o.y - 4,
        o.z as f64 + 0.5
    ));
    let before = stats(&h);
    let (chased, longest) = watch(&mut h, 1200);
    let after = stats(&h);
    assert!(chased);
    assert!(
        after.plans > before.plans + 50,
        "kept re-planning: {after:?}"
    );
    assert!(after.give_ups > before.give_ups, "{after:?}");
    assert!(
        longest <= quiet_limit(&mut h),
        "went {longest} ticks without planning"
    );
}

#[test]
fn a_target_across_water_is_reached_by_swimming() {
    let mut h = harness();
    let o = arena(&mut h, [11, 0, 0]);
    // A channel 7 wide and 3 deep across the whole arena: wider than two hops, so that at
    // least one hop is swum from end to end, however the hops fall.
    h.run(&format!(
        "fill {} {} {} {} {} {} water",
        o.x + 2,
        o.y - 3,
        o.z - 12,
        o.x + 8,
        o.y - 1,
        o.z + 12
    ));
    h.run(&format!(
        "summon zombie {} {} {}",
        o.x as f64 + 0.5,
        o.y,
        o.z as f64 + 0.5
    ));
    let player = h.app.world.get::<Position>(h.client).unwrap().0;
    let before = stats(&h);
    let mut closest = f64::INFINITY;
    for _ in 0..1200 {
        h.app.update();
        let z = zombie(&mut h);
        let pos = h.app.world.get::<Position>(z).unwrap().0;
        closest = closest.min(pos.distance(player));
        if closest < 2.0 {
            break;
        }
    }
    assert!(closest < 2.0, "the zombie got no closer than {closest:.2}");
    // Swimming at half speed, a hop outlasts tau = k R / v: the watchdog re-launches it.
    assert!(
        stats(&h).watchdog_fires > before.watchdog_fires,
        "{:?}",
        stats(&h)
    );
}

#[test]
fn at_the_end_of_a_hop_a_chaser_turns_to_a_clearly_nearer_player() {
    let mut h = harness();
    let o = arena(&mut h, [12, 0, 0]);
    let (bundle, _helper) = create_mock_client("second");
    let second = h.app.world.spawn(bundle).id();
    h.app.update();
    // The second player waits in creative just west of where the zombie will stand.
    *h.app.world.get_mut::<GameMode>(second).unwrap() = GameMode::Creative;
    h.app.world.get_mut::<Position>(second).unwrap().0 =
        DVec3::new(o.x as f64 - 1.0, o.y as f64, o.z as f64 + 0.5);
    h.run(&format!(
        "summon zombie {} {} {}",
        o.x as f64 + 0.5,
        o.y,
        o.z as f64 + 0.5
    ));
    let target = |h: &mut Harness| {
        let z = zombie(h);
        h.app.world.get::<Target>(z).unwrap().player
    };
    for _ in 0..40 {
        h.app.update();
        if target(&mut h).is_some() {
            break;
        }
    }
    assert_eq!(
        target(&mut h),
        Some(h.client),
        "the only player it may hunt"
    );
    // The second player turns huntable: behind the zombie and well nearer than the first.
    *h.app.world.get_mut::<GameMode>(second).unwrap() = GameMode::Survival;
    let mut switched = false;
    for _ in 0..100 {
        h.app.update();
        if target(&mut h) == Some(second) {
            switched = true;
            break;
        }
    }
    assert!(switched, "the target was picked again at a hop's end");
}

/// Glass round the arena: a zombie strolls while it has given up, and must not wander off
/// into the terrain out of sight.
fn fence(h: &mut Harness, o: BlockPos) {
    for (x1, z1, x2, z2) in [
        (-12, -12, 12, -12),
        (-12, 12, 12, 12),
        (-12, -12, -12, 12),
        (12, -12, 12, 12),
    ] {
        h.run(&format!(
            "fill {} {} {} {} {} {} glass",
            o.x + x1,
            o.y,
            o.z + z1,
            o.x + x2,
            o.y + 3,
            o.z + z2
        ));
    }
}

/// Waits until the zombie chases the player again.
fn chased_again(h: &mut Harness, z: Entity) -> bool {
    for _ in 0..1200 {
        h.app.update();
        if h.app.world.get::<Target>(z).unwrap().player == Some(h.client) {
            return true;
        }
    }
    false
}

#[test]
fn a_player_who_walls_themselves_in_mid_chase_is_given_up_on_then_chased_again() {
    let mut h = without_siege();
    let o = arena(&mut h, [6, 0, 0]);
    fence(&mut h, o);
    let z = h.summon(BlockPos::new(o.x - 5, o.y, o.z));
    // The chase is on before the walls go up.
    let mut chasing = false;
    for _ in 0..200 {
        h.app.update();
        if h.app.world.get::<Target>(z).unwrap().player == Some(h.client) {
            chasing = true;
            break;
        }
    }
    assert!(chasing, "the zombie went for the player");
    // A stone cell round the player, roofed, the player's two blocks free inside.
    h.run(&format!(
        "fill {} {} {} {} {} {} stone",
        o.x + 5,
        o.y,
        o.z - 1,
        o.x + 7,
        o.y + 2,
        o.z + 1
    ));
    h.run(&format!(
        "fill {} {} {} {} {} {} air",
        o.x + 6,
        o.y,
        o.z,
        o.x + 6,
        o.y + 1,
        o.z
    ));
    let health = |h: &Harness| {
        h.app
            .world
            .get::<horde::player::Health>(h.client)
            .unwrap()
            .0
    };
    let walled = health(&h);
    let before = stats(&h);
    let (_, longest) = watch(&mut h, 1200);
    let after = stats(&h);
    assert!(after.give_ups > before.give_ups, "it gave up: {after:?}");
    assert!(
        longest <= quiet_limit(&mut h),
        "never stood still: {longest} ticks without a plan"
    );
    assert_eq!(health(&h), walled, "no blow through the wall");

    // The player takes the cell down: the chase is on again.
    h.run(&format!(
        "fill {} {} {} {} {} {} air",
        o.x + 5,
        o.y,
        o.z - 1,
        o.x + 7,
        o.y + 2,
        o.z + 1
    ));
    assert!(chased_again(&mut h, z), "{:?}", stats(&h));
}

#[test]
fn a_player_on_a_pillar_is_given_up_on_then_chased_again_when_they_come_down() {
    let mut h = without_siege();
    let o = arena(&mut h, [6, 3, 0]);
    fence(&mut h, o);
    // A pillar three blocks high under the player.
    h.run(&format!(
        "fill {} {} {} {} {} {} stone",
        o.x + 6,
        o.y,
        o.z,
        o.x + 6,
        o.y + 2,
        o.z
    ));
    h.summon(BlockPos::new(o.x - 5, o.y, o.z));
    let before = stats(&h);
    let (chased, longest) = watch(&mut h, 1200);
    let after = stats(&h);
    assert!(chased, "the zombie went for the player");
    assert!(after.give_ups > before.give_ups, "and gave up: {after:?}");
    assert!(
        longest <= quiet_limit(&mut h),
        "never stood still: {longest} ticks without a plan"
    );
    let z = zombie(&mut h);
    let at = h.app.world.get::<Position>(z).unwrap().0;
    assert!(at.y < (o.y + 3) as f64, "it stayed below the top: {at}");

    // The pillar goes and the player is on the ground: once the give-up is over, the chase
    // is on again.
    h.run(&format!(
        "fill {} {} {} {} {} {} air",
        o.x + 6,
        o.y,
        o.z,
        o.x + 6,
        o.y + 2,
        o.z
    ));
    h.app.world.get_mut::<Position>(h.client).unwrap().0 =
        DVec3::new(o.x as f64 + 6.5, o.y as f64, o.z as f64 + 0.5);
    assert!(
        chased_again(&mut h, z),
        "chased the player on the ground: zombie at {:?}, {:?}",
        h.app.world.get::<Position>(z).unwrap().0,
        stats(&h)
    );
}

#[test]
fn a_wall_built_across_a_chase_is_walked_around_and_a_hole_dropped_into() {
    let mut h = harness();
    let o = arena(&mut h, [10, 0, 0]);
    h.summon(BlockPos::new(o.x - 9, o.y, o.z));
    for _ in 0..20 {
        h.app.update();
    }
    // A wall three high across the arena between them, open at its south end.
    h.run(&format!(
        "fill {} {} {} {} {} {} stone",
        o.x + 2,
        o.y,
        o.z - 12,
        o.x + 2,
        o.y + 2,
        o.z + 8
    ));
    let player = h.app.world.get::<Position>(h.client).unwrap().0;
    let z = zombie(&mut h);
    let mut closest = f64::INFINITY;
    for _ in 0..1200 {
        h.app.update();
        let at = h.app.world.get::<Position>(z).unwrap().0;
        closest = closest.min(at.distance(player));
        if closest < 2.0 {
            break;
        }
    }
    assert!(closest < 2.0, "around the wall to the player: {closest:.1}");

    // A hole opened under it: it falls.
    let at = h.app.world.get::<Position>(z).unwrap().0;
    let (x, y, zz) = (
        at.x.floor() as i32,
        at.y.floor() as i32,
        at.z.floor() as i32,
    );
    h.run(&format!(
        "fill {} {} {} {} {} {} air",
        x - 1,
        y - 3,
        zz - 1,
        x + 1,
        y - 1,
        zz + 1
    ));
    for _ in 0..20 {
        h.app.update();
    }
    let fell = h.app.world.get::<Position>(z).unwrap().0;
    assert!(fell.y < at.y - 1.0, "fell into the hole: {at} -> {fell}");
}

#[test]
fn clients_are_sent_a_zombies_turns_only_when_it_turns() {
    use std::collections::HashMap;
    use valence::protocol::packets::play::{
        EntitySetHeadYawS2c, EntitySpawnS2c, MoveRelativeS2c, RotateAndMoveRelativeS2c, RotateS2c,
    };
    use valence::protocol::{ByteAngle, Packet};

    let mut h = harness();
    let o = arena(&mut h, [0, 0, 0]);
    for (dx, dz) in [(-10, -10), (10, -10), (-10, 10), (10, 10)] {
        h.summon(BlockPos::new(o.x + dx, o.y, o.z + dz));
    }
    h.helper.clear_received();
    // Each zombie's look and head yaw as the client last heard them.
    let (mut looks, mut heads) = (HashMap::new(), HashMap::new());
    let (mut plain_moves, mut turns, mut head_turns) = (0, 0, 0);
    let mut turn = |looks: &mut HashMap<i32, _>, id: i32, look: (ByteAngle, ByteAngle)| {
        let last = looks.insert(id, look);
        assert_ne!(last, Some(look), "zombie {id} was sent the look it had");
        turns += 1;
    };
    for _ in 0..200 {
        h.app.update();
        for frame in h.helper.collect_received().0 {
            match frame.id {
                EntitySpawnS2c::ID => {
                    let p = frame.decode::<EntitySpawnS2c>().unwrap();
                    looks.insert(p.entity_id.0, (p.yaw, p.pitch));
                    heads.insert(p.entity_id.0, p.head_yaw);
                }
                MoveRelativeS2c::ID => plain_moves += 1,
                RotateAndMoveRelativeS2c::ID => {
                    let p = frame.decode::<RotateAndMoveRelativeS2c>().unwrap();
                    turn(&mut looks, p.entity_id.0, (p.yaw, p.pitch));
                }
                RotateS2c::ID => {
                    let p = frame.decode::<RotateS2c>().unwrap();
                    turn(&mut looks, p.entity_id.0, (p.yaw, p.pitch));
                }
                EntitySetHeadYawS2c::ID => {
                    let p = frame.decode::<EntitySetHeadYawS2c>().unwrap();
                    let last = heads.insert(p.entity_id.0, p.head_yaw);
                    assert_ne!(last, Some(p.head_yaw), "zombie {} head", p.entity_id.0);
                    head_turns += 1;
                }
                _ => {}
            }
        }
    }
    // They closed in on the player, turning as they came, and walked straight between turns.
    assert!(
        turns > 0 && head_turns > 0,
        "{turns} turns, {head_turns} head turns"
    );
    assert!(
        plain_moves > turns,
        "{plain_moves} moves without a turn, {turns} with"
    );
}

#[test]
fn a_crowd_round_a_player_is_tiered_by_rank_and_its_back_rows_sent_less_often() {
    use std::collections::HashMap;
    use valence::entity::EntityId;
    use valence::protocol::packets::play::{MoveRelativeS2c, RotateAndMoveRelativeS2c};
    use valence::protocol::Packet;

    let mut config = horde::config::Config::default();
    config.spawning.enabled = false;
    config.weather.enabled = false;
    // Caps below 8 keep no margin: a zombie at a cap has no held tier.
    config.lod.near_crowd = 4;
    config.lod.full_crowd = 7;
    let mut h = harness_with(config);
    // The player at the arena's west end, in creative so that nobody chases them; east of
    // them a row of 16 zombies 2 to 17 blocks off, one in each block of distance. By day past
    // the immune phase they doze where they stand.
    let o = arena(&mut h, [-11, 0, -8]);
    h.run("gamemode creative tester");
    h.run("time set noon");
    h.run("phase set 5");
    let row: Vec<Entity> = (0..16)
        .map(|i| h.summon(BlockPos::new(o.x - 9 + i, o.y, o.z - 8)))
        .collect();
    for &z in &row {
        h.app.world.entity_mut(z).insert(Dozing);
    }
    // Rounds of classification: the one they came in (a partial count), one that counts them
    // all, and one that tiers them by its ranks.
    for _ in 0..3 * 8 {
        h.app.update();
    }
    let tiers = |h: &Harness| -> Vec<Tier> {
        row.iter()
            .map(|&z| h.app.world.get::<Lod>(z).unwrap().tier)
            .collect()
    };
    let ranks: Vec<Tier> = (0..16)
        .map(|i| match i {
            0..4 => Tier::Near,
            4..7 => Tier::Full,
            _ => Tier::Half,
        })
        .collect();
    // By distance alone all would be near: within 16 blocks, or 17 by the tiers' margin.
    assert_eq!(tiers(&h), ranks);
    let report = h.run("zombies");
    assert!(report.contains(" lod_crowded=12 "), "{report}");

    // Slid south a little each tick, the row keeps its ranks, and each zombie's moves reach
    // the client at its rank's rate.
    let ids: Vec<i32> = row
        .iter()
        .map(|&z| h.app.world.get::<EntityId>(z).unwrap().get())
        .collect();
    h.helper.clear_received();
    let mut moves: HashMap<i32, usize> = HashMap::new();
    const TICKS: usize = 96;
    for _ in 0..TICKS {
        for &z in &row {
            let mut body = h.app.world.get_mut::<Body>(z).unwrap();
            if let Some(at) = body.at() {
                body.place(at + DVec3::new(0.0, 0.0, 0.02));
            }
        }
        h.app.update();
        for frame in h.helper.collect_received().0 {
            let id = match frame.id {
                MoveRelativeS2c::ID => frame.decode::<MoveRelativeS2c>().unwrap().entity_id.0,
                RotateAndMoveRelativeS2c::ID => {
                    frame
                        .decode::<RotateAndMoveRelativeS2c>()
                        .unwrap()
                        .entity_id
                        .0
                }
                _ => continue,
            };
            *moves.entry(id).or_default() += 1;
        }
    }
    assert_eq!(tiers(&h), ranks);
    let sync_ticks = |tier| match tier {
        Tier::Near => 3,
        Tier::Full => 4,
        _ => 16,
    };
    for (i, (id, tier)) in ids.iter().zip(&ranks).enumerate() {
        let n = moves.get(id).copied().unwrap_or(0);
        let every = sync_ticks(*tier);
        assert!(
            n.abs_diff(TICKS / every) <= 1,
            "zombie {} blocks off: {n} moves in {TICKS} ticks, expected one every {every}",
            i + 2
        );
    }
}

/// Summons a zombie at `at` on an errand to the middle of block `x`, `z` at its own height.
fn on_errand(h: &mut Harness, at: BlockPos, x: i32, z: i32) -> Entity {
    let zombie = h.summon(at);
    let to = DVec3::new(x as f64 + 0.5, at.y as f64, z as f64 + 0.5);
    h.app.world.get_mut::<March>(zombie).unwrap().0 = Some(to);
    zombie
}

#[test]
fn an_errand_ending_inside_a_hill_costs_a_hops_worth_of_nodes_a_plan() {
    let mut h = harness();
    let o = arena(&mut h, [0, 0, 0]);
    // Nobody to chase; a block of stone 7 high east of the zombie, its errand's end inside.
    h.run("gamemode creative tester");
    h.fill(
        BlockPos::new(o.x + 4, o.y, o.z - 3),
        BlockPos::new(o.x + 10, o.y + 6, o.z + 3),
        "stone",
    );
    let zombie = on_errand(&mut h, BlockPos::new(o.x - 8, o.y, o.z), o.x + 7, o.z);
    let before = stats(&h);
    for _ in 0..200 {
        h.app.update();
    }
    let after = stats(&h);
    let (plans, nodes) = (
        after.plans - before.plans,
        after.expanded_nodes - before.expanded_nodes,
    );
    // R = 3.36: a hop spans a square of 8 blocks, 64 nodes, where the budget is 560.
    assert!(plans >= 5, "{plans} plans");
    assert!(nodes <= plans * 64, "{nodes} nodes in {plans} plans");
    // And it went as near as the stone lets it.
    let x = h.app.world.get::<Position>(zombie).unwrap().0.x;
    assert!(x > (o.x + 2) as f64 && x < (o.x + 4) as f64, "at x = {x}");
}

/// An arena with the player 45 blocks off, in the half tier's range: far enough that nobody
/// watches a zombie there pick its way, near enough that it acts. The player is in creative,
/// so no zombie chases them.
fn far_arena(h: &mut Harness) -> BlockPos {
    let o = arena(h, [0, 0, -45]);
    h.run("gamemode creative tester");
    h.view(7);
    o
}

#[test]
fn a_walker_far_from_players_goes_round_a_wall_by_turning_aside_without_a_search() {
    let mut h = harness();
    let o = far_arena(&mut h);
    // A wall two high and seven wide between the zombie and its errand.
    h.fill(
        BlockPos::new(o.x + 2, o.y, o.z - 3),
        BlockPos::new(o.x + 2, o.y + 1, o.z + 3),
        "stone",
    );
    let zombie = on_errand(&mut h, BlockPos::new(o.x - 4, o.y, o.z), o.x + 8, o.z);
    let errand = h.app.world.get::<March>(zombie).unwrap().0.unwrap();
    let before = stats(&h);
    let mut arrived = false;
    for _ in 0..600 {
        h.app.update();
        let at = h.app.world.get::<Body>(zombie).unwrap().at().unwrap();
        if at.x > errand.x - 1.5 {
            arrived = true;
            break;
        }
    }
    let after = stats(&h);
    assert_eq!(
        h.app.world.get::<Lod>(zombie).unwrap().tier,
        Tier::Half,
        "classified far"
    );
    assert!(arrived, "round the wall: {after:?}");
    assert!(after.plans > before.plans + 2, "hop by hop: {after:?}");
    assert_eq!(
        after.expanded_nodes, before.expanded_nodes,
        "the straight way and turning aside, no search"
    );
}

#[test]
fn a_walker_boxed_in_rests_instead_of_planning_every_step_it_cannot_take() {
    let mut h = harness();
    // It acts every 8th tick, and could plan at each.
    let o = far_arena(&mut h);
    // A shaft one block wide and three deep: no step out, and no jump clears it.
    h.fill(
        BlockPos::new(o.x - 1, o.y, o.z - 1),
        BlockPos::new(o.x + 1, o.y + 2, o.z + 1),
        "stone",
    );
    h.fill(o, BlockPos::new(o.x, o.y + 2, o.z), "air");
    let zombie = on_errand(&mut h, o, o.x + 10, o.z);
    let before = stats(&h);
    let mut gave_up = false;
    for _ in 0..400 {
        h.app.update();
        gave_up |= h.app.world.get::<Destination>(zombie).unwrap().why == Why::Nowhere;
        // A plan that finds it stuck jumps on the spot: where its body really is, not the
        // position clients were last sent, stays in the shaft's column below the rim.
        let sent = h.app.world.get::<Position>(zombie).unwrap().0;
        let at = h.app.world.get::<Body>(zombie).unwrap().feet(sent);
        let block = BlockPos::from_pos(at);
        assert!(
            (block.x, block.z) == (o.x, o.z) && block.y < o.y + 3,
            "out of the shaft at {at}"
        );
    }
    let plans = stats(&h).plans - before.plans;
    assert!(gave_up, "the errand was given up");
    // Without the rests it plans at nearly every one of its 200 activations.
    assert!(plans <= 60, "{plans} plans in 400 ticks");
}

#[test]
fn a_zombie_at_rest_falls_when_the_ground_under_it_is_dug_away_near_a_player_or_far() {
    for far in [false, true] {
        let mut h = harness();
        let o = if far {
            far_arena(&mut h)
        } else {
            let o = arena(&mut h, [0, 0, 0]);
            h.run("gamemode creative tester");
            o
        };
        let zombie = h.summon(BlockPos::new(o.x + 4, o.y, o.z));
        // Its first stroll, then the rest after it: standing, with nowhere to go.
        let resting = |h: &Harness| {
            let body = h.app.world.get::<Body>(zombie).unwrap();
            body.on_ground() && h.app.world.get::<Destination>(zombie).unwrap().to.is_none()
        };
        let mut still = 0;
        for _ in 0..400 {
            h.app.update();
            still = if resting(&h) { still + 1 } else { 0 };
            if still == 5 {
                break;
            }
        }
        assert_eq!(still, 5, "far {far}: never came to rest");
        let feet = h.app.world.get::<Position>(zombie).unwrap().0;
        let under = BlockPos::from_pos(feet);
        h.fill(
            BlockPos::new(under.x - 1, under.y - 3, under.z - 1),
            BlockPos::new(under.x + 1, under.y - 1, under.z + 1),
            "air",
        );
        for _ in 0..30 {
            h.app.update();
            let to = h.app.world.get::<Destination>(zombie).unwrap().to;
            assert!(
                to.is_none(),
                "far {far}: it fell while resting, not on a stroll"
            );
        }
        let landed = h.app.world.get::<Position>(zombie).unwrap().0;
        assert!(
            (landed.y - (feet.y - 3.0)).abs() < 1e-6,
            "far {far}: from {feet} to {landed}"
        );
    }
}
