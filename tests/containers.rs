//! Chests and barrels, headless: placed facing the player, two chests side by side making a
//! double chest, opened into a shared window whose moves are kept as vanilla's block entity,
//! the lid's block event, the items still there after a save and a restart, and falling where
//! the chest stood when it is dug.

mod support;

use horde::world::block_entities::{items_of, BlockEntities};
use support::headless::{harness, Harness};
use valence::prelude::*;
use valence::protocol::packets::play::click_slot_c2s::ClickMode;
use valence::protocol::packets::play::{
    BlockEventS2c, ClickSlotC2s, CloseHandledScreenC2s, OpenScreenS2c,
};
use valence::protocol::{Packet, VarInt};

fn give(h: &mut Harness, at: u16, item: ItemKind, count: u8) {
    h.app
        .world
        .get_mut::<Inventory>(h.client)
        .unwrap()
        .set_slot(at, ItemStack::new(item, count, None));
    h.app.update();
}

fn click(h: &mut Harness, window: u8, slot: i16, mode: ClickMode) {
    h.helper.send(&ClickSlotC2s {
        window_id: window,
        state_id: VarInt(0),
        slot_idx: slot,
        button: 0,
        mode,
        slot_changes: Vec::new(),
        carried_item: None,
    });
    h.app.update();
}

fn stored(h: &Harness, at: BlockPos) -> Vec<(u8, ItemKind, u8)> {
    let entities = h.app.world.resource::<BlockEntities>();
    let entity = entities.get(at).expect("a block entity");
    items_of(entity)
        .into_iter()
        .map(|(slot, s)| (slot, s.item, s.count()))
        .collect()
}

/// A stone field; the player at its middle looking south, a chest placed on the floor east of
/// them, then another beside it to the west of that... returns the two chests.
fn two_chests(h: &mut Harness) -> (BlockPos, BlockPos) {
    let o = h.stone_field();
    h.put_player(o);
    h.app.update();
    // Looking south (yaw 0): chests face north, and pair east-west.
    let a = BlockPos::new(o.x + 1, o.y, o.z + 2);
    let b = BlockPos::new(o.x, o.y, o.z + 2);
    give(h, 36, ItemKind::Chest, 2);
    h.use_on(BlockPos::new(a.x, a.y - 1, a.z));
    assert_eq!(h.block(a).to_kind(), BlockKind::Chest, "placed");
    assert_eq!(h.block(a).get(PropName::Facing), Some(PropValue::North));
    h.use_on(BlockPos::new(b.x, b.y - 1, b.z));
    (a, b)
}

/// Opens the chest at `at`; the window's id and type.
fn open(h: &mut Harness, at: BlockPos) -> (u8, String) {
    h.helper.clear_received();
    h.use_on(at);
    let frames = h.helper.collect_received();
    let opened = frames
        .0
        .iter()
        .filter(|f| f.id == OpenScreenS2c::ID)
        .find_map(|f| f.decode::<OpenScreenS2c>().ok())
        .expect("the chest opens");
    (
        opened.window_id.0 as u8,
        format!("{:?}", opened.window_type),
    )
}

#[test]
fn two_chests_side_by_side_open_as_one_double_chest_that_keeps_its_items() {
    let mut h = harness();
    let (a, b) = two_chests(&mut h);
    let (ta, tb) = (
        h.block(a).get(PropName::Type),
        h.block(b).get(PropName::Type),
    );
    assert_eq!((ta, tb), (Some(PropValue::Right), Some(PropValue::Left)));
    give(&mut h, 37, ItemKind::Torch, 20);
    give(&mut h, 38, ItemKind::OakLog, 5);
    let (w, shape) = open(&mut h, b);
    assert_eq!(shape, "Generic9x6");
    // The window's player part starts after 54; the hotbar at 54 + 27.
    click(&mut h, w, 81 + 1, ClickMode::ShiftClick);
    click(&mut h, w, 81 + 2, ClickMode::ShiftClick);
    // Shift-clicked into the first free slots: the right half's.
    assert_eq!(
        stored(&h, a),
        vec![(0, ItemKind::Torch, 20), (1, ItemKind::OakLog, 5)]
    );
    assert!(stored(&h, b).is_empty());
    h.helper.clear_received();
    h.helper.send(&CloseHandledScreenC2s { window_id: w as i8 });
    h.app.update();
    h.app.update();
    let lid = h
        .helper
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == BlockEventS2c::ID)
        .filter_map(|f| f.decode::<BlockEventS2c>().ok())
        .map(|e| (e.action_id, e.action_parameter))
        .collect::<Vec<_>>();
    assert!(lid.contains(&(1, 0)), "the lid shuts: {lid:?}");

    // Saved and read back after a restart, as vanilla's block entity.
    let mut h = h.restarted();
    assert_eq!(
        stored(&h, a),
        vec![(0, ItemKind::Torch, 20), (1, ItemKind::OakLog, 5)]
    );

    // Dug, the chest's items fall where it stood; the other half is a single chest.
    h.put_player(BlockPos::new(a.x, a.y, a.z - 2));
    h.app.update();
    h.run("gamemode creative tester");
    h.dig(a, DiggingState::Start);
    h.app.update();
    assert!(h.block(a).is_air());
    assert_eq!(h.block(b).get(PropName::Type), Some(PropValue::Single));
    let items: Vec<ItemKind> = h
        .app
        .world
        .query::<&valence::entity::item::Stack>()
        .iter(&h.app.world)
        .map(|s| s.0.item)
        .collect();
    assert!(
        items.contains(&ItemKind::Torch) && items.contains(&ItemKind::OakLog),
        "{items:?}"
    );
}

#[test]
fn a_chest_under_a_solid_block_stays_shut_a_barrel_does_not() {
    let mut h = harness();
    let o = h.stone_field();
    h.put_player(o);
    let chest = BlockPos::new(o.x + 1, o.y, o.z + 1);
    h.fill(chest, chest, "chest");
    h.fill(
        BlockPos::new(chest.x, chest.y + 1, chest.z),
        BlockPos::new(chest.x, chest.y + 1, chest.z),
        "stone",
    );
    h.helper.clear_received();
    h.use_on(chest);
    let opened = h
        .helper
        .collect_received()
        .0
        .iter()
        .any(|f| f.id == OpenScreenS2c::ID);
    assert!(!opened, "a chest under stone does not open");
    let barrel = BlockPos::new(o.x - 1, o.y, o.z + 1);
    h.fill(barrel, barrel, "barrel");
    h.fill(
        BlockPos::new(barrel.x, barrel.y + 1, barrel.z),
        BlockPos::new(barrel.x, barrel.y + 1, barrel.z),
        "stone",
    );
    let (_, shape) = open(&mut h, barrel);
    assert_eq!(shape, "Generic9x3");
    assert_eq!(h.block(barrel).get(PropName::Open), Some(PropValue::True));
}

/// A chest of a vanilla village (an unopened one, its `LootTable` still in it) opens from the
/// world's own block entity; what is put in is saved back where vanilla keeps it, beside the
/// keys horde does not model, as a third-party reader reads it.
#[test]
fn a_vanilla_villages_chest_opens_and_keeps_what_is_put_in_it_for_vanilla() {
    let mut h = support::headless::harness_on_region(
        &support::repo().join("tests/fixtures/worlds/1.20.1/r.-1.-2.mca"),
        "r.-1.-2.mca",
    );
    let chest = BlockPos::new(-350, 64, -590);
    h.run("tp tester -349.5 64 -588.5");
    h.app.update();
    horde::headless::run_until_loaded(&mut h.app);
    assert_eq!(h.block(chest).to_kind(), BlockKind::Chest);
    let loot = |h: &Harness| {
        let entities = h.app.world.resource::<BlockEntities>();
        entities
            .get(chest)
            .and_then(|e| e.get("LootTable").cloned())
    };
    assert!(
        loot(&h).is_some(),
        "the village's chest is read with its loot table"
    );
    give(&mut h, 36, ItemKind::Torch, 9);
    let (w, shape) = open(&mut h, chest);
    assert_eq!(shape, "Generic9x3");
    click(&mut h, w, 54, ClickMode::ShiftClick);
    assert_eq!(stored(&h, chest), vec![(0, ItemKind::Torch, 9)]);
    let saved = h.run("save-all");
    assert!(saved.starts_with("saved=true "), "{saved}");
    let saved = support::node_json(
        "read-block-entities.js",
        &[h.world.path().join("region/r.-1.-2.mca")],
    );
    let chests: Vec<_> = saved
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["id"].as_str().is_some_and(|id| id.ends_with("chest")))
        .collect();
    let ours = chests
        .iter()
        .find(|c| {
            (c["x"].as_i64(), c["y"].as_i64(), c["z"].as_i64())
                == (Some(-350), Some(64), Some(-590))
        })
        .expect("the chest is in the file");
    assert_eq!(ours["id"], "minecraft:chest");
    assert_eq!(ours["Items"][0]["id"], "minecraft:torch", "{ours}");
    assert_eq!(ours["Items"][0]["Count"], 9);
    assert_eq!(ours["Items"][0]["Slot"], 0);
    assert_eq!(
        ours["LootTable"],
        "minecraft:chests/village/village_plains_house"
    );
    assert_eq!(chests.len(), 6, "the other chests are kept: {chests:?}");
}

/// A furnace smelts raw iron with coal as vanilla's does, whoever looks in: lit while it
/// burns (its block's `lit`, so it lights the room), ten seconds an ingot, the arrows shown to
/// the player, the experience paid out to whoever takes the ingots; its fire and items kept in
/// its block entity.
#[test]
fn a_furnace_smelts_raw_iron_with_coal_and_pays_its_experience_to_the_taker() {
    let mut h = harness();
    let o = h.stone_field();
    h.put_player(o);
    let furnace = BlockPos::new(o.x + 1, o.y, o.z + 1);
    h.fill(furnace, furnace, "furnace");
    give(&mut h, 36, ItemKind::RawIron, 2);
    give(&mut h, 37, ItemKind::Coal, 1);
    let (w, shape) = open(&mut h, furnace);
    assert_eq!(shape, "Furnace");
    // Shift-clicks send what smelts to the input and what burns to the fuel slot, where the
    // coal is lit at once.
    click(&mut h, w, 30, ClickMode::ShiftClick);
    assert_eq!(stored(&h, furnace), vec![(0, ItemKind::RawIron, 2)]);
    click(&mut h, w, 31, ClickMode::ShiftClick);
    assert_eq!(
        stored(&h, furnace),
        vec![(0, ItemKind::RawIron, 2)],
        "the coal burns"
    );
    assert_eq!(h.count(ItemKind::Coal), 0);
    h.helper.clear_received();
    h.app.update();
    assert_eq!(h.block(furnace).get(PropName::Lit), Some(PropValue::True));
    let arrows = h
        .helper
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == valence::protocol::packets::play::ScreenHandlerPropertyUpdateS2c::ID)
        .count();
    assert!(arrows >= 4, "the fire and progress are shown: {arrows}");
    for _ in 0..400 {
        h.app.update();
    }
    assert_eq!(
        stored(&h, furnace),
        vec![(2, ItemKind::IronIngot, 2)],
        "both smelted, the coal burning on"
    );
    // Taking the ingots pays 1.4 points: one or two, in orbs the player soon takes.
    click(&mut h, w, 2, ClickMode::ShiftClick);
    assert_eq!(h.count(ItemKind::IronIngot), 2);
    let points = |h: &mut Harness| {
        let orbs: u32 = h
            .app
            .world
            .query::<&horde::experience::Orb>()
            .iter(&h.app.world)
            .map(|o| o.value)
            .sum();
        let taken = h
            .app
            .world
            .get::<horde::experience::Experience>(h.client)
            .map_or(0, |e| e.0.total);
        orbs + taken
    };
    h.app.update();
    let paid = points(&mut h);
    assert!((1..=2).contains(&paid), "{paid}");
    let entities = h.app.world.resource::<BlockEntities>();
    let entity = entities.get(furnace).unwrap();
    assert!(matches!(entity.get("BurnTime"), Some(valence::nbt::Value::Short(t)) if *t > 0));

    // Two more smelted on the same coal and left in it: broken, the furnace drops the ingots
    // and pays what it owes (`AbstractFurnaceBlock.onRemove`).
    give(&mut h, 36, ItemKind::RawIron, 2);
    click(&mut h, w, 30, ClickMode::ShiftClick);
    for _ in 0..400 {
        h.app.update();
    }
    assert_eq!(stored(&h, furnace), vec![(2, ItemKind::IronIngot, 2)]);
    for _ in 0..40 {
        h.app.update(); // the first payment's orbs are taken
    }
    let before = points(&mut h);
    h.run("gamemode creative tester");
    h.dig(furnace, DiggingState::Start);
    h.app.update();
    let paid = points(&mut h) - before;
    assert!((1..=2).contains(&paid), "breaking it paid {paid}");
}

/// Two players look into one furnace: the first's moves show in the second's window, and so
/// do the furnace's own as it smelts (Valence alone would show a shared window's changes to
/// one of them).
#[test]
fn two_players_looking_into_one_furnace_both_see_its_slots_move() {
    use valence::protocol::packets::play::{
        InventoryS2c, PlayerInteractBlockC2s, ScreenHandlerSlotUpdateS2c,
    };
    use valence::protocol::{Direction, Hand};
    use valence::testing::PacketFrames;
    let mut h = harness();
    let o = h.stone_field();
    h.put_player(o);
    let furnace = BlockPos::new(o.x + 1, o.y, o.z + 1);
    h.fill(furnace, furnace, "furnace");
    let (bundle, mut other) = valence::testing::create_mock_client("second");
    let second = h.app.world.spawn(bundle).id();
    h.app.update();
    h.app.update();
    h.app.world.get_mut::<Position>(second).unwrap().0 =
        DVec3::new(o.x as f64 + 2.5, o.y as f64, o.z as f64 + 0.5);
    h.app.update();
    other.send(&PlayerInteractBlockC2s {
        hand: Hand::Main,
        position: furnace,
        face: Direction::Up,
        cursor_pos: Vec3::new(0.5, 1.0, 0.5),
        head_inside_block: false,
        sequence: VarInt(1),
    });
    h.app.update();
    h.app.update();
    give(&mut h, 36, ItemKind::RawIron, 1);
    give(&mut h, 37, ItemKind::Coal, 1);
    let (w, _) = open(&mut h, furnace);
    other.clear_received();
    click(&mut h, w, 30, ClickMode::ShiftClick);
    let seen = other.collect_received();
    let raw_iron_shown = seen
        .0
        .iter()
        .filter(|f| f.id == InventoryS2c::ID)
        .filter_map(|f| f.decode::<InventoryS2c>().ok())
        .any(|p| {
            p.slots[0]
                .as_ref()
                .is_some_and(|s| s.item == ItemKind::RawIron)
        });
    assert!(raw_iron_shown, "the second player sees the raw iron put in");
    click(&mut h, w, 31, ClickMode::ShiftClick);
    other.clear_received();
    h.helper.clear_received();
    for _ in 0..210 {
        h.app.update();
    }
    let ingot_shown = |frames: PacketFrames| {
        frames
            .0
            .iter()
            .filter(|f| f.id == ScreenHandlerSlotUpdateS2c::ID)
            .filter_map(|f| f.decode::<ScreenHandlerSlotUpdateS2c>().ok())
            .any(|p| {
                p.slot_idx == 2
                    && p.slot_data.as_ref().as_ref().map(|s| s.item) == Some(ItemKind::IronIngot)
            })
    };
    assert!(
        ingot_shown(h.helper.collect_received()),
        "the first player sees the ingot come out"
    );
    assert!(ingot_shown(other.collect_received()), "so does the second");
    assert_eq!(stored(&h, furnace), vec![(2, ItemKind::IronIngot, 1)]);
}
