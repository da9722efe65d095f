//! Players change blocks, headless: survival digging within reach and no sooner than vanilla's
//! dig time, drops into the inventory, refusals that resend the true block, creative breaking,
//! placing turned as vanilla turns blocks and never inside someone, torches, ladders, doors
//! and beds, blocks that lose their support popping off, signs written on and kept, and the
//! light seeing a new roof the tick it is placed.

mod support;

use horde::world::block_entities::BlockEntities;
use horde::world::light::Light;
use horde::world::{BlocksChanged, Overworld};
use support::headless::{harness, Harness};
use valence::interact_block::InteractBlockEvent;
use valence::math::Vec3;
use valence::prelude::*;
use valence::protocol::packets::play::{
    BlockEntityUpdateS2c, BlockUpdateS2c, UpdateSignC2s, WorldEventS2c,
};
use valence::protocol::{Direction, Hand, Packet, Sound};
use valence::testing::{create_mock_client, MockClientHelper};

/// A flat stone floor with a grass block in it at `(o.x + 2, o.y - 1, o.z)`, the player
/// standing at the spawn block `o` in survival.
fn field(h: &mut Harness) -> BlockPos {
    let s = h.spawn_point();
    let (x, y, z) = (s.x.floor() as i32, s.y.floor() as i32, s.z.floor() as i32);
    h.run(&format!(
        "fill {} {} {} {} {} {} stone",
        x - 8,
        y - 3,
        z - 8,
        x + 8,
        y - 1,
        z + 8
    ));
    // Open sky above: nothing of the terrain (a tree) over the field.
    h.run(&format!(
        "fill {} {} {} {} {} {} air",
        x - 8,
        y,
        z - 8,
        x + 8,
        y + 24,
        z + 8
    ));
    h.run(&format!(
        "fill {} {} {} {} {} {} grass_block",
        x + 2,
        y - 1,
        z,
        x + 2,
        y - 1,
        z
    ));
    h.run(&format!(
        "fill {} {} {} {} {} {} bedrock",
        x - 2,
        y - 1,
        z,
        x - 2,
        y - 1,
        z
    ));
    h.run("time set midnight");
    let o = BlockPos::new(x, y, z);
    h.app.world.get_mut::<Position>(h.client).unwrap().0 =
        DVec3::new(x as f64 + 0.5, y as f64, z as f64 + 0.5);
    h.app.update();
    o
}

/// Whether the player was sent the block at `at` since the last look.
fn resent(h: &mut Harness, at: BlockPos) -> bool {
    h.helper
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == BlockUpdateS2c::ID)
        .any(|f| f.decode::<BlockUpdateS2c>().is_ok_and(|p| p.position == at))
}

#[test]
fn survival_digging_takes_vanillas_time_and_gives_the_drop() {
    let mut h = harness();
    let o = field(&mut h);
    let grass = BlockPos::new(o.x + 2, o.y - 1, o.z);
    // Bare hands dig a grass block in 0.9 s: 18 ticks (70% of them are accepted).
    h.dig(grass, DiggingState::Start);
    for _ in 0..5 {
        h.app.update();
    }
    h.helper.clear_received();
    h.dig(grass, DiggingState::Stop);
    assert_eq!(h.block(grass), BlockState::GRASS_BLOCK, "too soon: refused");
    assert!(resent(&mut h, grass), "and the true block sent back");
    assert_eq!(h.count(ItemKind::Dirt), 0);

    h.dig(grass, DiggingState::Start);
    for _ in 0..18 {
        h.app.update();
    }
    h.dig(grass, DiggingState::Stop);
    assert!(h.block(grass).is_air(), "dug");
    h.app.update();
    // A grass block drops dirt, on the ground; the player walks onto it after its delay.
    let dropped: Vec<(ItemKind, DVec3)> = h
        .app
        .world
        .query::<(&valence::entity::item::Stack, &Position)>()
        .iter(&h.app.world)
        .map(|(s, p)| (s.0.item, p.0))
        .collect();
    let [(ItemKind::Dirt, _)] = dropped[..] else {
        panic!("{dropped:?}");
    };
    assert_eq!(
        h.count(ItemKind::Dirt),
        0,
        "not straight into the inventory"
    );
    for _ in 0..20 {
        h.app.update();
    }
    // Where it came to rest: tossed up as vanilla tosses it, it may land beside the hole.
    let at = h
        .app
        .world
        .query_filtered::<&Position, With<valence::entity::item::Stack>>()
        .single(&h.app.world)
        .0;
    h.app.world.get_mut::<Position>(h.client).unwrap().0 = at;
    h.app.update();
    assert_eq!(h.count(ItemKind::Dirt), 1, "picked up");
}

#[test]
fn out_of_reach_and_unbreakable_blocks_are_refused_and_resent() {
    let mut h = harness();
    let o = field(&mut h);
    let bedrock = BlockPos::new(o.x - 2, o.y - 1, o.z);
    h.helper.clear_received();
    h.dig(bedrock, DiggingState::Start);
    assert_eq!(h.block(bedrock), BlockState::BEDROCK);
    assert!(resent(&mut h, bedrock));
    let far = BlockPos::new(o.x + 8, o.y - 1, o.z + 8);
    h.dig(far, DiggingState::Start);
    for _ in 0..200 {
        h.app.update();
    }
    h.dig(far, DiggingState::Stop);
    assert_eq!(h.block(far), BlockState::STONE, "11 blocks away");
    assert!(resent(&mut h, far));
}

#[test]
fn creative_breaks_at_once_and_keeps_nothing() {
    let mut h = harness();
    let o = field(&mut h);
    h.run("gamemode creative tester");
    let stone = BlockPos::new(o.x + 1, o.y - 1, o.z);
    h.dig(stone, DiggingState::Start);
    assert!(h.block(stone).is_air());
    assert_eq!(h.count(ItemKind::Cobblestone), 0);
}

fn place(h: &mut Harness, on: BlockPos, face: Direction, cursor_y: f32) {
    let client = h.client;
    h.app.world.send_event(InteractBlockEvent {
        client,
        hand: Hand::Main,
        position: on,
        face,
        cursor_pos: Vec3::new(0.5, cursor_y, 0.5),
        head_inside_block: false,
        sequence: 1,
    });
    h.app.update();
}

/// Puts `count` of `item` in the held hotbar slot.
fn hold(h: &mut Harness, item: ItemKind, count: u8) {
    let mut inventory = h.app.world.get_mut::<Inventory>(h.client).unwrap();
    inventory.set_slot(36, ItemStack::new(item, count, None));
    h.app.update();
}

#[test]
fn placing_spends_an_item_turns_logs_and_never_fills_a_player() {
    let mut h = harness();
    let o = field(&mut h);
    hold(&mut h, ItemKind::OakLog, 3);
    let floor = BlockPos::new(o.x + 1, o.y - 1, o.z);
    place(&mut h, floor, Direction::Up, 1.0);
    let log = h.block(BlockPos::new(o.x + 1, o.y, o.z));
    assert_eq!(log.to_kind(), BlockKind::OakLog);
    assert_eq!(
        log.get(PropName::Axis),
        Some(PropValue::Y),
        "placed on top: upright"
    );
    assert_eq!(h.count(ItemKind::OakLog), 2);
    // Against the log's east face: lying east-west.
    place(
        &mut h,
        BlockPos::new(o.x + 1, o.y, o.z),
        Direction::East,
        0.5,
    );
    let side = h.block(BlockPos::new(o.x + 2, o.y, o.z));
    assert_eq!(side.get(PropName::Axis), Some(PropValue::X));
    // Into the block the player stands in: refused, resent, nothing spent.
    h.helper.clear_received();
    place(&mut h, BlockPos::new(o.x, o.y - 1, o.z), Direction::Up, 1.0);
    assert!(h.block(o).is_air());
    assert!(resent(&mut h, o));
    assert_eq!(h.count(ItemKind::OakLog), 1);
}

/// The sounds a client was sent since the last look, and whether it saw a block break.
fn heard(helper: &mut MockClientHelper) -> (Vec<Sound>, bool) {
    let frames = helper.collect_received();
    let sounds = support::headless::sounds(&frames)
        .into_iter()
        .map(|(s, _)| s)
        .collect();
    let broke = frames
        .0
        .iter()
        .filter(|f| f.id == WorldEventS2c::ID)
        .any(|f| f.decode::<WorldEventS2c>().is_ok_and(|e| e.event == 2001));
    (sounds, broke)
}

#[test]
fn others_hear_a_block_placed_a_door_opened_and_see_a_block_broken_the_player_does_not() {
    let mut h = harness();
    let o = field(&mut h);
    let (bundle, mut watcher) = create_mock_client("watcher");
    let watcher_entity = h.app.world.spawn(bundle).id();
    h.app.update();
    h.app.world.get_mut::<Position>(watcher_entity).unwrap().0 =
        DVec3::new(o.x as f64 - 3.5, o.y as f64, o.z as f64 + 0.5);
    hold(&mut h, ItemKind::Cobblestone, 2);
    h.app.update();
    heard(&mut watcher);
    h.helper.clear_received();
    place(
        &mut h,
        BlockPos::new(o.x + 1, o.y - 1, o.z),
        Direction::Up,
        1.0,
    );
    assert_eq!(
        h.block(BlockPos::new(o.x + 1, o.y, o.z)),
        BlockState::COBBLESTONE
    );
    assert!(heard(&mut watcher).0.contains(&Sound::BlockStonePlace));
    assert!(
        !heard(&mut h.helper).0.contains(&Sound::BlockStonePlace),
        "the placer's own client plays it"
    );

    hold(&mut h, ItemKind::OakDoor, 1);
    place(
        &mut h,
        BlockPos::new(o.x + 2, o.y - 1, o.z + 2),
        Direction::Up,
        1.0,
    );
    heard(&mut watcher);
    place(
        &mut h,
        BlockPos::new(o.x + 2, o.y, o.z + 2),
        Direction::North,
        0.5,
    );
    assert!(heard(&mut watcher).0.contains(&Sound::BlockWoodenDoorOpen));

    h.run("gamemode creative tester");
    h.helper.clear_received();
    h.dig(BlockPos::new(o.x + 1, o.y, o.z), DiggingState::Start);
    assert!(h.block(BlockPos::new(o.x + 1, o.y, o.z)).is_air());
    assert!(heard(&mut watcher).1, "the watcher sees it break");
    assert!(!heard(&mut h.helper).1, "the digger's own client shows it");
}

#[test]
fn doors_take_two_blocks_open_together_and_go_together() {
    let mut h = harness();
    let o = field(&mut h);
    hold(&mut h, ItemKind::OakDoor, 1);
    let floor = BlockPos::new(o.x + 2, o.y - 1, o.z + 2);
    place(&mut h, floor, Direction::Up, 1.0);
    let (lower, upper) = (
        BlockPos::new(o.x + 2, o.y, o.z + 2),
        BlockPos::new(o.x + 2, o.y + 1, o.z + 2),
    );
    assert_eq!(h.block(lower).get(PropName::Half), Some(PropValue::Lower));
    assert_eq!(h.block(upper).get(PropName::Half), Some(PropValue::Upper));
    place(&mut h, upper, Direction::North, 0.5);
    for at in [lower, upper] {
        assert_eq!(h.block(at).get(PropName::Open), Some(PropValue::True));
    }
    place(&mut h, lower, Direction::North, 0.5);
    assert_eq!(h.block(upper).get(PropName::Open), Some(PropValue::False));
    h.run("gamemode creative tester");
    h.dig(upper, DiggingState::Start);
    assert!(h.block(lower).is_air() && h.block(upper).is_air());
}

#[test]
fn a_roof_shades_the_sky_the_tick_it_is_placed() {
    let mut h = harness();
    let o = field(&mut h);
    let eye = BlockPos::new(o.x + 3, o.y + 1, o.z + 3);
    let sees = |h: &mut Harness| h.app.world.resource::<Light>().sees_sky(eye).unwrap();
    assert!(sees(&mut h));
    // A stone block placed 3 above the eyes, against a pillar's side.
    h.run(&format!(
        "fill {} {} {} {} {} {} stone",
        o.x + 4,
        o.y,
        o.z + 3,
        o.x + 4,
        o.y + 4,
        o.z + 3
    ));
    h.app.update();
    assert!(sees(&mut h), "the pillar is beside, not above");
    hold(&mut h, ItemKind::Stone, 1);
    h.app.world.get_mut::<Position>(h.client).unwrap().0 =
        DVec3::new(o.x as f64 + 3.5, o.y as f64, o.z as f64 + 3.5);
    place(
        &mut h,
        BlockPos::new(o.x + 4, o.y + 4, o.z + 3),
        Direction::West,
        0.5,
    );
    assert_eq!(
        h.block(BlockPos::new(o.x + 3, o.y + 4, o.z + 3)),
        BlockState::STONE
    );
    assert!(!sees(&mut h), "the new roof shades it");
}

/// A glass room east of the player with a closed oak door in its west wall, a zombie inside;
/// returns the door's lower half and the zombie.
fn zombie_behind_a_door(h: &mut Harness) -> (BlockPos, Entity) {
    let o = field(h);
    let (x, y, z) = (o.x, o.y, o.z);
    h.run(&format!(
        "fill {} {y} {} {} {} {} glass",
        x + 1,
        z - 2,
        x + 5,
        y + 2,
        z + 2
    ));
    h.run(&format!(
        "fill {} {y} {} {} {} {} air",
        x + 2,
        z - 1,
        x + 4,
        y + 2,
        z + 1
    ));
    let door = BlockPos::new(x + 1, y, z);
    {
        let mut layer = h
            .app
            .world
            .query_filtered::<&mut ChunkLayer, With<Overworld>>()
            .single_mut(&mut h.app.world);
        let lower = BlockState::OAK_DOOR.set(PropName::Facing, PropValue::East);
        layer.set_block(door, lower);
        layer.set_block(
            BlockPos::new(x + 1, y + 1, z),
            lower.set(PropName::Half, PropValue::Upper),
        );
    }
    // Every edit is announced, as the server's own are.
    let top = BlockPos::new(x + 1, y + 1, z);
    h.app.world.send_event(BlocksChanged::between(door, top));
    h.app.world.get_mut::<Position>(h.client).unwrap().0 =
        DVec3::new(x as f64 - 2.5, y as f64, z as f64 + 0.5);
    let zombie = h.summon(BlockPos::new(x + 3, y, z));
    (door, zombie)
}

#[test]
fn a_chasing_zombie_breaks_a_wooden_door_in_twelve_seconds_showing_the_cracks() {
    let mut h = harness();
    let (door, zombie) = zombie_behind_a_door(&mut h);
    h.helper.clear_received();
    let mut broke_at = None;
    for tick in 0..600 {
        h.app.update();
        if h.block(door).is_air() {
            broke_at = Some(tick);
            break;
        }
    }
    let broke_at = broke_at.expect("the door was broken");
    assert!(
        broke_at >= 240,
        "not before vanilla's 240 ticks: {broke_at}"
    );
    assert!(
        h.block(door.get_in_direction(Direction::Up)).is_air(),
        "both halves"
    );
    let cracks = h
        .helper
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == valence::protocol::packets::play::BlockBreakingProgressS2c::ID)
        .count();
    assert!(
        cracks >= 10,
        "the cracks grew stage by stage: {cracks} packets"
    );
    // Out through the doorway and after the player.
    let player = h.app.world.get::<Position>(h.client).unwrap().0;
    let mut closest = f64::INFINITY;
    for _ in 0..400 {
        h.app.update();
        let at = h.app.world.get::<Position>(zombie).unwrap().0;
        closest = closest.min(at.distance(player));
    }
    assert!(
        closest < 2.5,
        "came out: {closest:.1} blocks at the closest"
    );
}

#[test]
fn without_break_doors_the_door_holds() {
    let mut config = horde::config::Config::default();
    config.spawning.enabled = false;
    config.zombies.break_doors = false;
    let mut h = support::headless::harness_with(config);
    let (door, _) = zombie_behind_a_door(&mut h);
    for _ in 0..400 {
        h.app.update();
    }
    assert_eq!(h.block(door).to_kind(), BlockKind::OakDoor);
}

/// A room built around the player goes dark and the client is told; a torch in it lights it
/// as vanilla's light does, and digging the torch takes that light away again.
#[test]
fn a_sealed_room_is_dark_and_a_torch_lights_it_for_the_client() {
    use horde::world::light::Light;
    use valence::protocol::packets::play::LightUpdateS2c;

    let mut h = harness();
    let o = h.stone_field();
    let light = |h: &Harness, at: BlockPos| {
        let light = h.app.world.resource::<Light>();
        (light.sky(at).unwrap(), light.block(at).unwrap())
    };
    let inside = BlockPos::new(o.x + 5, o.y, o.z);
    h.app.update();
    assert_eq!(light(&h, inside), (15, 0), "the open field");
    h.fill(
        BlockPos::new(o.x + 4, o.y - 1, o.z - 2),
        BlockPos::new(o.x + 10, o.y + 3, o.z + 2),
        "stone",
    );
    // Relit before the room is hollowed, as two commands a tick apart.
    h.app.update();
    h.fill(
        BlockPos::new(o.x + 5, o.y, o.z - 1),
        BlockPos::new(o.x + 9, o.y + 2, o.z + 1),
        "air",
    );
    h.helper.clear_received();
    h.app.update();
    assert_eq!(light(&h, inside), (0, 0), "the sealed room");
    let frames = h.helper.collect_received();
    let updates: Vec<LightUpdateS2c> = frames
        .0
        .iter()
        .filter(|f| f.id == LightUpdateS2c::ID)
        .map(|f| f.decode::<LightUpdateS2c>().unwrap())
        .collect();
    let chunk = ChunkPos::from_block_pos(inside);
    assert!(
        updates
            .iter()
            .any(|u| u.chunk_x.0 == chunk.x && u.chunk_z.0 == chunk.z && u.sky_light_mask[0] != 0),
        "the client is sent the room's new sky light"
    );

    h.fill(inside, inside, "torch");
    h.app.update();
    let row: Vec<u8> = (0..3)
        .map(|i| light(&h, BlockPos::new(inside.x + i, inside.y, inside.z)).1)
        .collect();
    assert_eq!(row, [14, 13, 12], "a step and two from the torch");
    h.fill(inside, inside, "air");
    h.app.update();
    assert_eq!(light(&h, inside), (0, 0), "the torch dug");
}

/// What lies on the ground, by kind.
fn lying(h: &mut Harness) -> Vec<ItemKind> {
    h.app
        .world
        .query::<&valence::entity::item::Stack>()
        .iter(&h.app.world)
        .map(|s| s.0.item)
        .collect()
}

#[test]
fn torches_and_ladders_hang_where_vanilla_hangs_them_and_pop_off_when_their_wall_goes() {
    let mut h = harness();
    let o = field(&mut h);
    // A stone pillar two blocks high, east of the player.
    let wall = BlockPos::new(o.x + 3, o.y, o.z);
    h.fill(wall, BlockPos::new(wall.x, wall.y + 1, wall.z), "stone");
    hold(&mut h, ItemKind::Torch, 4);
    // On the pillar's west face: a wall torch facing west; on its top, a standing torch.
    place(&mut h, wall, Direction::West, 0.5);
    let hung = BlockPos::new(wall.x - 1, wall.y, wall.z);
    assert_eq!(h.block(hung).to_kind(), BlockKind::WallTorch);
    assert_eq!(h.block(hung).get(PropName::Facing), Some(PropValue::West));
    let top = BlockPos::new(wall.x, wall.y + 2, wall.z);
    place(
        &mut h,
        BlockPos::new(wall.x, wall.y + 1, wall.z),
        Direction::Up,
        1.0,
    );
    assert_eq!(h.block(top), BlockState::TORCH);
    // Nothing under it and no wall: refused, the item kept.
    let air = BlockPos::new(o.x - 3, o.y + 2, o.z - 3);
    place(&mut h, air, Direction::Up, 1.0);
    assert!(h.block(air).is_air());
    assert_eq!(h.count(ItemKind::Torch), 2);
    hold(&mut h, ItemKind::Ladder, 1);
    place(
        &mut h,
        BlockPos::new(wall.x, wall.y + 1, wall.z),
        Direction::West,
        0.5,
    );
    let ladder = BlockPos::new(wall.x - 1, wall.y + 1, wall.z);
    assert_eq!(h.block(ladder).to_kind(), BlockKind::Ladder);

    // The pillar dug: the wall torch, the ladder and the torch on top pop off as items.
    h.run("gamemode creative tester");
    h.dig(
        BlockPos::new(wall.x, wall.y + 1, wall.z),
        DiggingState::Start,
    );
    h.app.update();
    assert!(h.block(ladder).is_air() && h.block(top).is_air());
    assert_eq!(
        h.block(hung).to_kind(),
        BlockKind::WallTorch,
        "its wall stands"
    );
    h.dig(wall, DiggingState::Start);
    h.app.update();
    assert!(h.block(hung).is_air());
    let mut dropped = lying(&mut h);
    dropped.sort_by_key(|k| k.to_raw());
    assert_eq!(
        dropped,
        vec![ItemKind::Torch, ItemKind::Torch, ItemKind::Ladder]
    );
}

#[test]
fn a_door_on_dug_ground_pops_off_once_and_a_bed_takes_and_loses_two_blocks() {
    let mut h = harness();
    let o = field(&mut h);
    hold(&mut h, ItemKind::OakDoor, 1);
    let ground = BlockPos::new(o.x + 2, o.y - 1, o.z + 2);
    place(&mut h, ground, Direction::Up, 1.0);
    let (lower, upper) = (
        BlockPos::new(ground.x, ground.y + 1, ground.z),
        BlockPos::new(ground.x, ground.y + 2, ground.z),
    );
    assert!(h.block(upper).get(PropName::Half) == Some(PropValue::Upper));
    h.run("gamemode creative tester");
    h.dig(ground, DiggingState::Start);
    for _ in 0..3 {
        h.app.update();
    }
    assert!(h.block(lower).is_air() && h.block(upper).is_air());
    assert_eq!(lying(&mut h), vec![ItemKind::OakDoor]);

    h.run("gamemode survival tester");
    hold(&mut h, ItemKind::RedBed, 1);
    h.app.world.get_mut::<Look>(h.client).unwrap().yaw = 0.0; // looking south
    let floor = BlockPos::new(o.x - 3, o.y - 1, o.z - 3);
    place(&mut h, floor, Direction::Up, 1.0);
    let (foot, head) = (
        BlockPos::new(floor.x, floor.y + 1, floor.z),
        BlockPos::new(floor.x, floor.y + 1, floor.z + 1),
    );
    assert_eq!(h.block(foot).get(PropName::Part), Some(PropValue::Foot));
    assert_eq!(h.block(head).get(PropName::Part), Some(PropValue::Head));
    assert_eq!(h.block(head).get(PropName::Facing), Some(PropValue::South));
    h.run("gamemode creative tester");
    h.dig(head, DiggingState::Start);
    assert!(h.block(foot).is_air() && h.block(head).is_air());
}

/// The sign editors the player was told to open since the last look: where, and whether on
/// the front (the 1.20.1 packet: a position, then the side).
fn editors(h: &mut Harness) -> Vec<(BlockPos, bool)> {
    use valence::protocol::Decode;
    h.helper
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == valence::protocol::packet_id::SIGN_EDITOR_OPEN_S2C)
        .map(|f| {
            let mut body = &f.body[..];
            let at = BlockPos::decode(&mut body).unwrap();
            let front = bool::decode(&mut body).unwrap();
            assert!(body.is_empty(), "nothing after the side");
            (at, front)
        })
        .collect()
}

/// The first line of a side of the sign's saved text, as JSON.
fn first_line(sign: &valence::nbt::Compound, side: &str) -> String {
    use valence::nbt::{List, Value};
    match sign.get(side) {
        Some(Value::Compound(text)) => match text.get("messages") {
            Some(Value::List(List::String(lines))) => lines[0].clone(),
            _ => panic!("{text:?}"),
        },
        _ => panic!("{sign:?}"),
    }
}

/// The player writes `first` as a sign's first line on one side.
fn write(h: &mut Harness, at: BlockPos, front: bool, first: &str) {
    h.helper.send(&UpdateSignC2s {
        position: at,
        is_front_text: front,
        lines: [first, "", "", ""],
    });
    h.app.update();
}

#[test]
fn a_placed_sign_opens_its_editor_and_its_text_is_shown_and_kept_as_vanillas() {
    let mut h = harness();
    let o = field(&mut h);
    hold(&mut h, ItemKind::OakSign, 2);
    h.helper.clear_received();
    // Looking south (yaw 0) at the floor two blocks ahead: a sign turned to the player.
    let at = BlockPos::new(o.x, o.y, o.z + 2);
    place(
        &mut h,
        BlockPos::new(at.x, at.y - 1, at.z),
        Direction::Up,
        1.0,
    );
    assert_eq!(h.block(at).to_kind(), BlockKind::OakSign);
    assert_eq!(h.block(at).get(PropName::Rotation), Some(PropValue::_8));
    assert_eq!(editors(&mut h), vec![(at, true)], "the placer writes on it");

    write(&mut h, at, true, "§cKeep out");
    let sign = |h: &Harness| h.app.world.resource::<BlockEntities>().get(at).cloned();
    assert_eq!(
        first_line(&sign(&h).unwrap(), "front_text"),
        r#"{"text":"Keep out"}"#
    );
    h.app.update();
    let shown: Vec<_> = h
        .helper
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == BlockEntityUpdateS2c::ID)
        .filter_map(|f| f.decode::<BlockEntityUpdateS2c>().ok())
        .filter(|p| p.position == at)
        .map(|p| first_line(&p.data, "front_text"))
        .collect();
    assert_eq!(
        shown,
        vec![r#"{"text":"Keep out"}"#],
        "everyone is shown it"
    );

    // Written again without the editor open: refused.
    write(&mut h, at, true, "Welcome");
    assert_eq!(
        first_line(&sign(&h).unwrap(), "front_text"),
        r#"{"text":"Keep out"}"#
    );

    // A right-click from behind it opens its back.
    h.put_player(BlockPos::new(at.x, at.y, at.z + 2));
    h.app.update();
    h.helper.clear_received();
    place(&mut h, at, Direction::South, 0.5);
    assert_eq!(editors(&mut h), vec![(at, false)]);
    assert_eq!(h.count(ItemKind::OakSign), 1, "nothing placed against it");
    write(&mut h, at, false, "Back");

    // Kept through a restart, in the region file as vanilla keeps it.
    let mut h = h.restarted();
    let kept = sign(&h).expect("the sign's entity is read back");
    assert_eq!(first_line(&kept, "front_text"), r#"{"text":"Keep out"}"#);
    assert_eq!(first_line(&kept, "back_text"), r#"{"text":"Back"}"#);
    let region = format!(
        "region/r.{}.{}.mca",
        at.x.div_euclid(512),
        at.z.div_euclid(512)
    );
    let saved = support::node_json("read-block-entities.js", &[h.world.path().join(region)]);
    let ours = saved
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            (e["x"].as_i64(), e["y"].as_i64(), e["z"].as_i64())
                == (Some(at.x.into()), Some(at.y.into()), Some(at.z.into()))
        })
        .expect("the sign is in the file");
    assert_eq!(ours["id"], "minecraft:sign");
    assert_eq!(
        ours["front_text"]["messages"][0], r#"{"text":"Keep out"}"#,
        "{ours}"
    );
    assert_eq!(ours["front_text"]["color"], "black");
    assert_eq!(ours["back_text"]["messages"][1], r#"{"text":""}"#);
    assert_eq!(ours["is_waxed"], 0);

    // Its floor dug: it pops off as its item, and its text goes with it.
    h.run("gamemode creative tester");
    h.dig(BlockPos::new(at.x, at.y - 1, at.z), DiggingState::Start);
    h.app.update();
    assert!(h.block(at).is_air());
    assert_eq!(lying(&mut h), vec![ItemKind::OakSign]);
    assert!(sign(&h).is_none());
}

#[test]
fn a_sign_clicked_on_a_wall_hangs_on_it_and_a_hanging_sign_hangs_under_a_block() {
    let mut h = harness();
    let o = field(&mut h);
    let wall = BlockPos::new(o.x + 3, o.y, o.z);
    h.fill(wall, BlockPos::new(wall.x, wall.y + 2, wall.z), "stone");
    hold(&mut h, ItemKind::SpruceSign, 1);
    place(&mut h, wall, Direction::West, 0.5);
    let hung = BlockPos::new(wall.x - 1, wall.y, wall.z);
    assert_eq!(h.block(hung).to_kind(), BlockKind::SpruceWallSign);
    assert_eq!(h.block(hung).get(PropName::Facing), Some(PropValue::West));
    hold(&mut h, ItemKind::OakHangingSign, 1);
    h.fill(
        BlockPos::new(o.x - 2, o.y + 2, o.z),
        BlockPos::new(o.x - 2, o.y + 2, o.z),
        "oak_planks",
    );
    place(
        &mut h,
        BlockPos::new(o.x - 2, o.y + 2, o.z),
        Direction::Down,
        0.0,
    );
    let under = BlockPos::new(o.x - 2, o.y + 1, o.z);
    assert_eq!(h.block(under).to_kind(), BlockKind::OakHangingSign);
    assert_eq!(
        h.block(under).get(PropName::Attached),
        Some(PropValue::False)
    );
    // Clicked on grass, which it replaces: placed there, its editor opened once.
    let tuft = BlockPos::new(o.x, o.y, o.z + 2);
    h.fill(tuft, tuft, "grass");
    hold(&mut h, ItemKind::BirchSign, 1);
    h.helper.clear_received();
    place(&mut h, tuft, Direction::Up, 0.2);
    assert_eq!(h.block(tuft).to_kind(), BlockKind::BirchSign);
    assert_eq!(editors(&mut h), vec![(tuft, true)]);

    let entities = h.app.world.resource::<BlockEntities>();
    let id = |at| entities.get(at).and_then(|e| e.get("id").cloned());
    assert_eq!(
        id(hung),
        Some(valence::nbt::Value::String("minecraft:sign".into()))
    );
    assert_eq!(
        id(under),
        Some(valence::nbt::Value::String("minecraft:hanging_sign".into()))
    );
}

#[test]
fn a_hoe_tills_grass_a_shovel_flattens_dirt_and_an_axe_strips_a_log_each_wearing_once() {
    use horde::player::armour::damage_of;
    let mut h = harness();
    let o = field(&mut h);
    let damage = |h: &Harness| {
        let inventory = h.app.world.get::<Inventory>(h.client).unwrap();
        inventory.slot(36).map(damage_of)
    };
    let grass = BlockPos::new(o.x + 2, o.y - 1, o.z);
    hold(&mut h, ItemKind::WoodenHoe, 1);
    place(&mut h, grass, Direction::Up, 1.0);
    h.app.update();
    assert_eq!(h.block(grass), BlockState::FARMLAND);
    assert_eq!(damage(&h), Some(1), "a hoe wears once a use");
    assert!(lying(&mut h).is_empty(), "nothing placed or dropped");

    h.fill(grass, grass, "dirt");
    hold(&mut h, ItemKind::StoneShovel, 1);
    place(&mut h, grass, Direction::Up, 1.0);
    h.app.update();
    assert_eq!(h.block(grass), BlockState::DIRT_PATH);
    assert_eq!(damage(&h), Some(1));

    let log = BlockPos::new(o.x + 2, o.y, o.z + 2);
    h.fill(log, log, "oak_log");
    hold(&mut h, ItemKind::IronAxe, 1);
    place(&mut h, log, Direction::West, 0.5);
    h.app.update();
    assert_eq!(h.block(log).to_kind(), BlockKind::StrippedOakLog);
    assert_eq!(damage(&h), Some(1));

    // In creative, tools never wear.
    h.run("gamemode creative tester");
    h.fill(grass, grass, "grass_block");
    hold(&mut h, ItemKind::WoodenHoe, 1);
    place(&mut h, grass, Direction::Up, 1.0);
    h.app.update();
    assert_eq!(h.block(grass), BlockState::FARMLAND);
    assert_eq!(damage(&h), Some(0));
}
