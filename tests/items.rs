//! Items on the ground, headless: dug blocks, thrown stacks and a dead player's things lie in
//! the world as item entities, fall, merge, are picked up on touch, despawn at 6000 ticks and
//! come back after a restart. Counted in ticks.

mod support;

use horde::common::body::Dead;
use horde::common::events::DropItem;
use horde::common::stacks::ItemRecord;
use horde::items::GroundItem;
use support::headless::{harness, Harness};
use valence::entity::item::Stack;
use valence::inventory::DropItemStackEvent;
use valence::prelude::*;
use valence::protocol::packets::play::ItemPickupAnimationS2c;

fn items(h: &mut Harness) -> Vec<(Entity, DVec3, ItemStack, GroundItem)> {
    h.app
        .world
        .query::<(Entity, &Position, &Stack, &GroundItem)>()
        .iter(&h.app.world)
        .map(|(e, p, s, g)| (e, p.0, s.0.clone(), *g))
        .collect()
}

fn drop_at(h: &mut Harness, item: ItemKind, count: u8, pos: DVec3) {
    h.app.world.send_event(DropItem(ItemRecord {
        stack: ItemStack::new(item, count, None),
        pos,
        velocity: DVec3::new(0.0, 0.2, 0.0),
        age: 0,
        pickup_delay: 10,
    }));
    h.app.update();
}

fn feet(h: &Harness) -> DVec3 {
    h.app.world.get::<Position>(h.client).unwrap().0
}

#[test]
fn a_dropped_item_falls_to_the_ground_and_a_player_who_touches_it_picks_it_up() {
    let mut h = harness();
    let at = feet(&h);
    let away = at + DVec3::new(4.0, 3.0, 0.0);
    h.fill(
        BlockPos::from_pos(away) - BlockPos::new(1, 6, 1),
        BlockPos::from_pos(away) + BlockPos::new(1, 3, 1),
        "air",
    );
    h.fill(
        BlockPos::from_pos(away) - BlockPos::new(1, 6, 1),
        BlockPos::from_pos(away) - BlockPos::new(-1, 6, -1),
        "stone",
    );
    drop_at(&mut h, ItemKind::Dirt, 3, away);
    for _ in 0..60 {
        h.app.update();
    }
    let [(item, pos, ref stack, ground)] = items(&mut h)[..] else {
        panic!("one item: {:?}", items(&mut h));
    };
    assert_eq!(stack.count(), 3);
    assert_eq!(pos.y, (away.y.floor() - 5.0), "on the stone");
    assert_eq!(ground.velocity, DVec3::ZERO, "at rest");
    assert_eq!(h.count(ItemKind::Dirt), 0, "out of reach");

    // The player walks up to it.
    h.helper.clear_received();
    h.app.world.get_mut::<Position>(h.client).unwrap().0 = pos + DVec3::new(0.8, 0.0, 0.0);
    h.app.update();
    h.app.update();
    assert_eq!(h.count(ItemKind::Dirt), 3);
    assert!(h.app.world.get_entity(item).is_none() || items(&mut h).is_empty());
    let seen = h.helper.collect_received();
    let pickup = seen.first::<ItemPickupAnimationS2c>();
    assert_eq!(pickup.pickup_item_count.0, 3);
    assert_eq!(pickup.collector_entity_id.0, 0, "the client's own id");
}

#[test]
fn items_of_a_kind_lying_together_merge_and_others_do_not() {
    let mut h = harness();
    let spot = feet(&h) + DVec3::new(5.0, 1.0, 5.0);
    drop_at(&mut h, ItemKind::Cobblestone, 10, spot);
    drop_at(
        &mut h,
        ItemKind::Cobblestone,
        20,
        spot + DVec3::new(0.3, 0.0, 0.0),
    );
    drop_at(&mut h, ItemKind::OakLog, 1, spot);
    for _ in 0..100 {
        h.app.update();
    }
    let mut kinds: Vec<(ItemKind, u8)> = items(&mut h)
        .into_iter()
        .map(|(_, _, s, _)| (s.item, s.count()))
        .collect();
    kinds.sort_by_key(|(k, _)| k.to_raw());
    let mut want = vec![(ItemKind::Cobblestone, 30), (ItemKind::OakLog, 1)];
    want.sort_by_key(|(k, _)| k.to_raw());
    assert_eq!(kinds, want);
}

#[test]
fn an_item_despawns_after_six_thousand_ticks() {
    let mut h = harness();
    h.app.world.send_event(DropItem(ItemRecord {
        stack: ItemStack::new(ItemKind::Stick, 1, None),
        pos: feet(&h) + DVec3::new(6.0, 0.0, 0.0),
        velocity: DVec3::ZERO,
        age: 5990,
        pickup_delay: 0,
    }));
    for _ in 0..5 {
        h.app.update();
    }
    assert_eq!(items(&mut h).len(), 1);
    for _ in 0..10 {
        h.app.update();
    }
    assert!(items(&mut h).is_empty(), "gone at 6000");
}

#[test]
fn a_thrown_stack_lands_ahead_and_cannot_be_picked_up_at_once() {
    let mut h = harness();
    h.app.world.get_mut::<Look>(h.client).unwrap().yaw = -90.0; // Facing +x.
    h.app.world.send_event(DropItemStackEvent {
        client: h.client,
        from_slot: Some(36),
        stack: ItemStack::new(ItemKind::Bread, 2, None),
    });
    h.app.update();
    let [(_, pos, _, ground)] = items(&mut h)[..] else {
        panic!("thrown: {:?}", items(&mut h));
    };
    assert!(ground.pickup_delay > 30, "vanilla's 40 ticks");
    assert!(
        (pos.y - feet(&h).y - 1.32).abs() < 1e-6,
        "from the eyes, 0.3 down"
    );
    for _ in 0..20 {
        h.app.update();
    }
    assert_eq!(h.count(ItemKind::Bread), 0, "not within its delay");
    let (_, pos, _, _) = items(&mut h)[0].clone();
    assert!(pos.x - feet(&h).x > 1.0, "thrown a block or more: {pos}");
}

#[test]
fn a_dead_player_drops_everything_and_respawns_empty_handed() {
    let mut h = harness();
    h.run("give tester dirt 100");
    h.run("give tester iron_sword 1");
    h.run("kill tester");
    h.app.update();
    h.app.update();
    assert!(h.app.world.get::<Dead>(h.client).is_some());
    assert_eq!(h.count(ItemKind::Dirt), 0);
    let on_ground: Vec<(ItemKind, u32)> = items(&mut h)
        .into_iter()
        .map(|(_, _, s, _)| (s.item, s.count() as u32))
        .collect();
    let dirt: u32 = on_ground
        .iter()
        .filter(|(k, _)| *k == ItemKind::Dirt)
        .map(|(_, n)| n)
        .sum();
    assert_eq!(dirt, 100);
    assert!(on_ground.iter().any(|(k, _)| *k == ItemKind::IronSword));
}

#[test]
fn a_dug_block_drops_its_item_on_the_ground_not_into_the_inventory() {
    let mut h = harness();
    // A torch breaks at once by hand, and drops itself.
    let at = BlockPos::from_pos(feet(&h)) + BlockPos::new(1, 0, 0);
    h.fill(at, at, "torch");
    h.app.world.send_event(DiggingEvent {
        client: h.client,
        position: at,
        direction: valence::protocol::Direction::Up,
        state: DiggingState::Start,
    });
    h.app.update();
    h.app.update();
    assert_eq!(h.block(at), BlockState::AIR);
    let dropped: Vec<ItemKind> = items(&mut h)
        .into_iter()
        .map(|(_, _, s, _)| s.item)
        .collect();
    assert_eq!(dropped, [ItemKind::Torch]);
    assert_eq!(
        h.count(ItemKind::Torch),
        0,
        "not yet: it lies there for 10 ticks"
    );
    for _ in 0..40 {
        h.app.update();
    }
    // Tossed up, it may have slid out of reach: the player steps onto it.
    if let Some((_, pos, _, _)) = items(&mut h).first().cloned() {
        h.app.world.get_mut::<Position>(h.client).unwrap().0 = pos;
        h.app.update();
    }
    assert_eq!(h.count(ItemKind::Torch), 1, "picked up");
    assert!(items(&mut h).is_empty());
}

#[test]
fn items_on_the_ground_come_back_after_a_restart() {
    let mut h = harness();
    let spot = feet(&h) + DVec3::new(3.0, 0.0, 3.0);
    drop_at(&mut h, ItemKind::Diamond, 5, spot);
    for _ in 0..40 {
        h.app.update();
    }
    let [(_, pos, _, before)] = items(&mut h)[..] else {
        panic!("{:?}", items(&mut h));
    };
    let mut h = h.restarted();
    let back = items(&mut h);
    let [(_, back_pos, ref stack, ground)] = back[..] else {
        panic!("{back:?}");
    };
    assert_eq!((stack.item, stack.count()), (ItemKind::Diamond, 5));
    assert!(back_pos.distance(pos) < 1e-6);
    assert!(ground.age >= before.age, "its age kept");
}
