//! Crafting, headless: window clicks on the player's 2x2 grid and at a crafting table's 3x3,
//! played by the server from its own slots whatever the client guessed; a shift-click that
//! crafts as many as the grid allows; grids emptied back into the inventory when the window
//! closes or the player walks away.

mod support;

use support::headless::{harness, Harness};
use valence::inventory::{CursorItem, OpenInventory};
use valence::prelude::*;
use valence::protocol::packets::play::click_slot_c2s::{ClickMode, SlotChange};
use valence::protocol::packets::play::{
    ClickSlotC2s, CloseHandledScreenC2s, InventoryS2c, OpenScreenS2c,
};
use valence::protocol::{Packet, VarInt};

/// The client clicks `slot` of window `window`, guessing `changes` and `carried`; a tick runs.
fn click(
    h: &mut Harness,
    window: u8,
    (slot, button, mode): (i16, i8, ClickMode),
    changes: &[(i16, Option<(ItemKind, u8)>)],
    carried: Option<(ItemKind, u8)>,
) {
    let stack = |s: Option<(ItemKind, u8)>| s.map(|(item, n)| ItemStack::new(item, n, None));
    h.helper.send(&ClickSlotC2s {
        window_id: window,
        state_id: VarInt(0),
        slot_idx: slot,
        button,
        mode,
        slot_changes: changes
            .iter()
            .map(|&(idx, item)| SlotChange {
                idx,
                item: stack(item),
            })
            .collect(),
        carried_item: stack(carried),
    });
    h.app.update();
}

fn left(slot: i16) -> (i16, i8, ClickMode) {
    (slot, 0, ClickMode::Click)
}

fn right(slot: i16) -> (i16, i8, ClickMode) {
    (slot, 1, ClickMode::Click)
}

/// What the player's inventory holds in `slot`.
fn slot(h: &Harness, slot: u16) -> Option<(ItemKind, u8)> {
    let inventory = h.app.world.get::<Inventory>(h.client).unwrap();
    inventory.slot(slot).map(|s| (s.item, s.count()))
}

fn cursor(h: &Harness) -> Option<(ItemKind, u8)> {
    let cursor = h.app.world.get::<CursorItem>(h.client).unwrap();
    cursor.0.as_ref().map(|s| (s.item, s.count()))
}

/// Puts `count` of `item` in the player's inventory slot `at`, and lets a tick see it.
fn give(h: &mut Harness, at: u16, item: ItemKind, count: u8) {
    let stack = horde::common::stacks::new_stack(item, count, None);
    h.app
        .world
        .get_mut::<Inventory>(h.client)
        .unwrap()
        .set_slot(at, stack);
    h.app.update();
}

/// The whole windows the player was sent since the last look.
fn windows_sent(h: &mut Harness) -> Vec<Vec<Option<ItemKind>>> {
    h.helper
        .collect_received()
        .0
        .iter()
        .filter(|f| f.id == InventoryS2c::ID)
        .filter_map(|f| f.decode::<InventoryS2c>().ok())
        .map(|p| p.slots.iter().map(|s| s.as_ref().map(|s| s.item)).collect())
        .collect()
}

#[test]
fn a_log_in_the_2x2_grid_makes_planks_and_taking_them_uses_it() {
    let mut h = harness();
    give(&mut h, 36, ItemKind::OakLog, 2);
    click(
        &mut h,
        0,
        left(36),
        &[(36, None)],
        Some((ItemKind::OakLog, 2)),
    );
    assert_eq!(cursor(&h), Some((ItemKind::OakLog, 2)));
    click(
        &mut h,
        0,
        right(1),
        &[(1, Some((ItemKind::OakLog, 1)))],
        Some((ItemKind::OakLog, 1)),
    );
    assert_eq!(
        slot(&h, 0),
        Some((ItemKind::OakPlanks, 4)),
        "the result shows"
    );
    click(
        &mut h,
        0,
        left(36),
        &[(36, Some((ItemKind::OakLog, 1)))],
        None,
    );
    h.helper.clear_received();
    // A vanilla client without the recipes guesses the log stays: it is used all the same.
    click(
        &mut h,
        0,
        left(0),
        &[(0, None)],
        Some((ItemKind::OakPlanks, 4)),
    );
    assert_eq!(cursor(&h), Some((ItemKind::OakPlanks, 4)));
    assert_eq!((slot(&h, 0), slot(&h, 1)), (None, None));
    assert_eq!(slot(&h, 36), Some((ItemKind::OakLog, 1)));
    let sent = windows_sent(&mut h);
    assert!(
        sent.iter().any(|w| w.len() == 46 && w[1].is_none()),
        "the client is sent the grid it got wrong: {sent:?}"
    );
}

#[test]
fn a_client_that_claims_a_result_without_crafting_gets_nothing_free() {
    let mut h = harness();
    give(&mut h, 1, ItemKind::OakLog, 1);
    assert_eq!(slot(&h, 0), Some((ItemKind::OakPlanks, 4)));
    // A number-key swap of the result into the hotbar, which keeps the count of items the
    // same and so passes Valence's own check: it crafts, and uses the log.
    click(
        &mut h,
        0,
        (0, 3, ClickMode::Hotbar),
        &[(0, None), (39, Some((ItemKind::OakPlanks, 4)))],
        None,
    );
    assert_eq!(slot(&h, 39), Some((ItemKind::OakPlanks, 4)));
    assert_eq!((slot(&h, 0), slot(&h, 1)), (None, None));
    // Dirt "swapped" into the result slot for the planks: refused, nothing moves.
    give(&mut h, 1, ItemKind::OakLog, 1);
    give(&mut h, 40, ItemKind::Dirt, 1);
    click(
        &mut h,
        0,
        left(40),
        &[(40, None)],
        Some((ItemKind::Dirt, 1)),
    );
    click(
        &mut h,
        0,
        left(0),
        &[(0, Some((ItemKind::Dirt, 1)))],
        Some((ItemKind::OakPlanks, 4)),
    );
    assert_eq!(cursor(&h), Some((ItemKind::Dirt, 1)));
    assert_eq!(slot(&h, 0), Some((ItemKind::OakPlanks, 4)));
    assert_eq!(slot(&h, 1), Some((ItemKind::OakLog, 1)));
}

#[test]
fn closing_the_inventory_gives_back_what_lay_in_its_grid() {
    let mut h = harness();
    give(&mut h, 2, ItemKind::Stick, 3);
    h.helper.send(&CloseHandledScreenC2s { window_id: 0 });
    h.app.update();
    assert_eq!(slot(&h, 2), None);
    assert_eq!(
        slot(&h, 36),
        Some((ItemKind::Stick, 3)),
        "into the selected slot"
    );
}

/// A stone field with a crafting table two blocks east of the player, who holds `planks`.
fn at_a_table(h: &mut Harness, planks: u8) -> BlockPos {
    let o = h.stone_field();
    h.put_player(o);
    let table = BlockPos::new(o.x + 2, o.y, o.z);
    h.fill(table, table, "crafting_table");
    give(h, 36, ItemKind::OakPlanks, planks);
    table
}

/// The player right-clicks the table's top; the window's id once it opens.
fn open(h: &mut Harness, table: BlockPos) -> u8 {
    h.helper.clear_received();
    h.use_on(table);
    let frames = h.helper.collect_received();
    let opened = frames
        .0
        .iter()
        .filter(|f| f.id == OpenScreenS2c::ID)
        .find_map(|f| f.decode::<OpenScreenS2c>().ok())
        .expect("the table's window opens");
    opened.window_id.0 as u8
}

#[test]
fn a_crafting_table_opens_its_grid_and_a_shift_click_crafts_all_it_can() {
    let mut h = harness();
    let table = at_a_table(&mut h, 10);
    let w = open(&mut h, table);
    let above = BlockPos::new(table.x, table.y + 1, table.z);
    assert!(h.block(above).is_air(), "nothing is placed on a table used");
    // The table's window: result 0, grid 1-9, the player's 27 from 10, hotbar from 37.
    click(&mut h, w, left(37), &[], None);
    click(&mut h, w, left(1), &[], None);
    click(&mut h, w, right(1), &[], None);
    click(&mut h, w, left(4), &[], None);
    let grid = h.app.world.get::<OpenInventory>(h.client).unwrap().entity;
    let result = |h: &Harness| {
        let grid = h.app.world.get::<Inventory>(grid).unwrap();
        grid.slot(0).map(|s| (s.item, s.count()))
    };
    assert_eq!(result(&h), Some((ItemKind::Stick, 4)));
    click(&mut h, w, (0, 0, ClickMode::ShiftClick), &[], None);
    assert_eq!(
        h.count(ItemKind::Stick),
        20,
        "five crafts, into the inventory"
    );
    assert_eq!(result(&h), None);
    // A stick left in the grid comes back when the window closes.
    let sticks = (0..46u16)
        .find(|&s| slot(&h, s).is_some_and(|(i, _)| i == ItemKind::Stick))
        .unwrap();
    let in_window = (sticks - 9 + 10) as i16;
    click(&mut h, w, left(in_window), &[], None);
    click(&mut h, w, right(5), &[], None);
    click(&mut h, w, left(in_window), &[], None);
    assert_eq!(h.count(ItemKind::Stick), 19);
    h.helper.send(&CloseHandledScreenC2s { window_id: w as i8 });
    h.app.update();
    h.app.update();
    assert_eq!(h.count(ItemKind::Stick), 20);
    assert!(h.app.world.get::<OpenInventory>(h.client).is_none());
    assert!(h.app.world.get_entity(grid).is_none(), "the grid is gone");
}

#[test]
fn walking_away_from_the_table_shuts_it_and_the_grid_comes_back() {
    let mut h = harness();
    let table = at_a_table(&mut h, 3);
    let w = open(&mut h, table);
    click(&mut h, w, left(37), &[], None);
    click(&mut h, w, left(5), &[], None);
    assert_eq!(h.count(ItemKind::OakPlanks), 0);
    h.put_player(BlockPos::new(table.x - 10, table.y, table.z));
    h.app.update();
    h.app.update();
    assert!(h.app.world.get::<OpenInventory>(h.client).is_none());
    assert_eq!(h.count(ItemKind::OakPlanks), 3);
}
