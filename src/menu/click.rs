//! Vanilla 1.20.1's window clicks, computed by the server from its own slots as vanilla's
//! `AbstractContainerMenu.doClick` computes them: pick up and put down (left, right), shift-
//! moves (`quickMoveStack`, routed per window), number-key swaps, middle-click copies in
//! creative, throws, drags that spread a stack (`QUICK_CRAFT`) and double-click gathers. The
//! client's own guess at the outcome is never trusted; where it differs, the caller sends the
//! slots back.
//!
//! A crafting window's result slot follows vanilla's `ResultSlot`: nothing is put in, taking
//! takes it whole and uses one of each ingredient, and a shift-click crafts as many as fit.

use std::ops::Range;

use valence::prelude::*;
use valence::protocol::packets::play::click_slot_c2s::ClickMode;

use super::recipes::{craft, remainder};
use super::smelting::{burn_ticks, smelts, Oven};
use crate::common::stacks::new_stack;

/// The window a player has open, which sets its slots and where shift-clicks send a stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuKind {
    /// The player's own (window 0): result, 2x2 grid, armour, 27 main, hotbar, off hand.
    Inventory,
    /// A crafting table: result, 3x3 grid, then the player's 27 and hotbar.
    Crafting,
    /// A chest, a double chest or a barrel: `rows` of 9, then the player's 27 and hotbar.
    Chest { rows: u8 },
    /// A furnace, smoker or blast furnace: input, fuel, output, then the player's.
    Furnace(Oven),
}

impl MenuKind {
    /// The window's own slots, before the player's 27 main slots.
    pub fn own(self) -> usize {
        match self {
            MenuKind::Inventory => 9,
            MenuKind::Crafting => 10,
            MenuKind::Chest { rows } => usize::from(rows) * 9,
            MenuKind::Furnace(_) => 3,
        }
    }

    /// Where the player's 27 main slots begin.
    fn main(self) -> usize {
        self.own()
    }

    /// Where the player's hotbar begins.
    fn hotbar(self) -> usize {
        self.main() + 27
    }

    /// Every slot of the window.
    pub fn slot_count(self) -> usize {
        match self {
            MenuKind::Inventory => 46,
            _ => self.own() + 36,
        }
    }

    /// The crafting grid's slots and its side, in windows that craft.
    fn grid(self) -> Option<(Range<usize>, usize)> {
        match self {
            MenuKind::Inventory => Some((1..5, 2)),
            MenuKind::Crafting => Some((1..10, 3)),
            MenuKind::Chest { .. } | MenuKind::Furnace(_) => None,
        }
    }

    /// The result slot of a window that crafts.
    const RESULT: usize = 0;
}

/// A furnace window's fuel and output slots.
const FURNACE_FUEL: usize = 1;
const FURNACE_OUTPUT: usize = 2;

/// The armour slots of the player's own window, head to feet, and its off hand.
const ARMOUR: Range<usize> = 5..9;
const OFF_HAND: usize = 45;
/// The player inventory's index of the off hand (`Inventory.SLOT_OFFHAND`), as number-key
/// swaps name it.
const OFF_HAND_KEY: usize = 40;

/// The window a click acts on: its slots, in the window's numbering, and what the player
/// carries on the cursor.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub kind: MenuKind,
    pub slots: Vec<Option<ItemStack>>,
    pub carried: Option<ItemStack>,
    /// The player's off hand, where the window does not show it (any but the player's own):
    /// a number-key swap with the off-hand key reaches it.
    pub off_hand: Option<ItemStack>,
}

/// Who clicks.
#[derive(Clone, Copy, Debug)]
pub struct Clicker {
    pub creative: bool,
    /// The selected hotbar slot, 0-8: where items given back go first.
    pub selected: usize,
}

/// A drag in progress (`quickcraftStatus`, `quickcraftType`, `quickcraftSlots`): it spans a
/// start packet, one per slot passed over and an end packet.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Drag {
    status: u8,
    kind: u8,
    slots: Vec<usize>,
}

/// What a click did beyond the window's slots.
#[derive(Debug, Default, PartialEq)]
pub struct Clicked {
    /// Stacks thrown out of the window, to land in front of the player.
    pub thrown: Vec<ItemStack>,
    /// Items taken from a result slot.
    pub crafted: u32,
    /// Items taken from a furnace's output, which pay out its experience.
    pub smelted: u32,
}

fn same(a: &ItemStack, b: &ItemStack) -> bool {
    a.item == b.item && a.nbt == b.nbt
}

fn max_stack(stack: &ItemStack) -> u8 {
    stack.item.max_stack().max(1)
}

/// Splits `n` off `stack`, leaving the rest (possibly none).
fn split(stack: &mut Option<ItemStack>, n: u8) -> Option<ItemStack> {
    let s = stack.as_mut()?;
    let n = n.min(s.count());
    if n == 0 {
        return None;
    }
    let taken = s.clone().with_count(n);
    let left = s.count() - n;
    if left == 0 {
        *stack = None;
    } else {
        s.set_count(left);
    }
    Some(taken)
}

/// The slot an item is worn in when shift-clicked (`Mob.getEquipmentSlotForItem`).
fn equipment_slot(item: ItemKind) -> Option<usize> {
    if let Some((slot, ..)) = crate::player::armour::piece(item) {
        return Some(slot as usize);
    }
    let name = item.to_str();
    match item {
        ItemKind::Elytra => Some(6),
        ItemKind::Shield => Some(OFF_HAND),
        ItemKind::CarvedPumpkin => Some(5),
        _ if name.ends_with("_head") || name.ends_with("_skull") => Some(5),
        _ => None,
    }
}

impl Window {
    /// An empty window of `kind`.
    pub fn new(kind: MenuKind) -> Self {
        Self {
            kind,
            slots: vec![None; kind.slot_count()],
            carried: None,
            off_hand: None,
        }
    }

    fn get(&self, slot: usize) -> Option<&ItemStack> {
        self.slots.get(slot)?.as_ref()
    }

    /// Sets a slot, the crafting result following a change to the grid.
    fn set(&mut self, slot: usize, stack: Option<ItemStack>) {
        self.slots[slot] = stack.filter(|s| s.count() > 0);
        if self
            .kind
            .grid()
            .is_some_and(|(grid, _)| grid.contains(&slot))
        {
            self.refresh_result();
        }
    }

    /// Whether the crafting grid holds other than it did in `before`.
    pub fn grid_changed(&self, before: &Window) -> bool {
        self.kind
            .grid()
            .is_some_and(|(grid, _)| self.slots[grid.clone()] != before.slots[grid])
    }

    /// The result slot shows what the grid makes (`CraftingMenu.slotChangedCraftingGrid`).
    pub fn refresh_result(&mut self) {
        let Some((grid, side)) = self.kind.grid() else {
            return;
        };
        let cells: Vec<Option<ItemKind>> = self.slots[grid]
            .iter()
            .map(|s| s.as_ref().map(|s| s.item))
            .collect();
        self.slots[MenuKind::RESULT] = craft(&cells, side);
    }

    fn is_result(&self, slot: usize) -> bool {
        slot == MenuKind::RESULT && self.kind.grid().is_some()
    }

    /// Whether `stack` may be put in `slot` (`Slot.mayPlace`).
    fn may_place(&self, slot: usize, stack: &ItemStack) -> bool {
        if self.is_result(slot) {
            return false;
        }
        if let MenuKind::Furnace(_) = self.kind {
            // The output takes nothing; the fuel slot fuel, or a bucket for lava.
            match slot {
                FURNACE_OUTPUT => return false,
                FURNACE_FUEL => {
                    return burn_ticks(stack.item) > 0 || stack.item == ItemKind::Bucket
                }
                _ => {}
            }
        }
        if self.kind == MenuKind::Inventory && ARMOUR.contains(&slot) {
            return equipment_slot(stack.item) == Some(slot);
        }
        true
    }

    /// How many of `stack` `slot` holds (`Slot.getMaxStackSize(stack)`): armour slots one.
    fn room(&self, slot: usize, stack: &ItemStack) -> u8 {
        self.slot_limit(slot).min(max_stack(stack))
    }

    /// `Slot.getMaxStackSize()`.
    fn slot_limit(&self, slot: usize) -> u8 {
        if self.kind == MenuKind::Inventory && ARMOUR.contains(&slot) {
            1
        } else {
            64
        }
    }

    /// The window slot showing player inventory index `index` (0-8 hotbar, 9-35 main,
    /// 40 off hand), or `None` for the off hand where the window does not show it.
    fn inventory_slot(&self, index: usize) -> Option<usize> {
        match index {
            0..=8 => Some(self.kind.hotbar() + index),
            9..=35 => Some(self.kind.main() + index - 9),
            OFF_HAND_KEY if self.kind == MenuKind::Inventory => Some(OFF_HAND),
            _ => None,
        }
    }

    fn inventory_get(&self, index: usize) -> Option<ItemStack> {
        match self.inventory_slot(index) {
            Some(slot) => self.slots[slot].clone(),
            None => self.off_hand.clone(),
        }
    }

    fn inventory_set(&mut self, index: usize, stack: Option<ItemStack>) {
        match self.inventory_slot(index) {
            Some(slot) => self.set(slot, stack),
            None => self.off_hand = stack.filter(|s| s.count() > 0),
        }
    }

    /// Puts `stack` into the player's inventory as vanilla's `Inventory.add` does: onto the
    /// selected slot's, the off hand's, then any stack of it with room, then into the first
    /// free slot, the hotbar first. Returns what did not fit.
    pub fn give_back(&mut self, mut stack: ItemStack, who: Clicker) -> Option<ItemStack> {
        let max = max_stack(&stack);
        loop {
            let room = |s: &Option<ItemStack>| {
                s.as_ref()
                    .is_some_and(|s| same(s, &stack) && max > 1 && s.count() < max)
            };
            let index = std::iter::once(who.selected)
                .chain(std::iter::once(OFF_HAND_KEY))
                .chain(0..36)
                .find(|&i| room(&self.inventory_get(i)))
                .or_else(|| (0..36).find(|&i| self.inventory_get(i).is_none()));
            let Some(index) = index else {
                return Some(stack);
            };
            let had = self.inventory_get(index).map_or(0, |h| h.count());
            let moved = stack.count().min(max - had);
            self.inventory_set(index, Some(stack.clone().with_count(had + moved)));
            if moved == stack.count() {
                return None;
            }
            stack.set_count(stack.count() - moved);
        }
    }

    /// Closing the window (`AbstractContainerMenu.removed`, `clearContainer`): the cursor's
    /// stack, then the grid's, go back into the player's inventory; what does not fit is
    /// returned, to be thrown.
    pub fn close(&mut self, who: Clicker) -> Vec<ItemStack> {
        let back = self.spill();
        back.into_iter()
            .filter_map(|stack| self.give_back(stack, who))
            .collect()
    }

    /// Empties the cursor and the grid, for a player no longer there to take them back.
    pub fn spill(&mut self) -> Vec<ItemStack> {
        let mut out: Vec<ItemStack> = self.carried.take().into_iter().collect();
        if let Some((grid, _)) = self.kind.grid() {
            out.extend(self.slots[grid].iter_mut().filter_map(Option::take));
            self.slots[MenuKind::RESULT] = None;
        }
        out
    }

    /// `Slot.safeInsert`: up to `n` of `stack` into `slot`.
    fn insert(&mut self, slot: usize, stack: &mut Option<ItemStack>, n: u8) {
        let Some(s) = stack.as_ref() else {
            return;
        };
        if !self.may_place(slot, s) {
            return;
        }
        let here = self.get(slot).cloned();
        let room = self.room(slot, s);
        let n = n
            .min(s.count())
            .min(room.saturating_sub(here.as_ref().map_or(0, |h| h.count())));
        match here {
            None => {
                let put = split(stack, n);
                self.set(slot, put);
            }
            Some(mut h) if same(&h, s) => {
                split(stack, n);
                h.set_count(h.count() + n);
                self.set(slot, Some(h));
            }
            Some(_) => {}
        }
    }

    /// `Slot.tryRemove`: `n` from `slot`, the whole stack from a result slot, nothing from a
    /// result slot when `limit` is less than it holds.
    fn try_remove(&mut self, slot: usize, n: u8, limit: u8) -> Option<ItemStack> {
        let here = self.get(slot)?.clone();
        if self.is_result(slot) {
            if limit < here.count() {
                return None;
            }
            self.slots[slot] = None;
            return Some(here);
        }
        let mut s = Some(here);
        let taken = split(&mut s, n.min(limit));
        self.set(slot, s);
        taken
    }

    /// `Slot.safeTake`: [`Self::try_remove`], then what taking does.
    fn take(
        &mut self,
        slot: usize,
        n: u8,
        limit: u8,
        who: Clicker,
        out: &mut Clicked,
    ) -> Option<ItemStack> {
        let taken = self.try_remove(slot, n, limit)?;
        self.on_take(slot, taken.count(), who, out);
        Some(taken)
    }

    /// `Slot.onTake`, after `made` items left `slot`: taking a result uses one of each
    /// ingredient (`ResultSlot.onTake`), an ingredient's remainder (a milk bucket's bucket)
    /// staying in its cell or going to the inventory.
    fn on_take(&mut self, slot: usize, made: u8, who: Clicker, out: &mut Clicked) {
        if matches!(self.kind, MenuKind::Furnace(_)) && slot == FURNACE_OUTPUT {
            out.smelted += u32::from(made);
            return;
        }
        if !self.is_result(slot) {
            return;
        }
        out.crafted += u32::from(made);
        let Some((grid, _)) = self.kind.grid() else {
            return;
        };
        for cell in grid {
            let Some(mut here) = self.slots[cell].take() else {
                continue;
            };
            let left = remainder(here.item).map(|r| new_stack(r, 1, None));
            if here.count() > 1 {
                here.set_count(here.count() - 1);
                self.slots[cell] = Some(here);
            }
            let Some(left) = left else {
                continue;
            };
            match self.slots[cell].as_mut() {
                None => self.slots[cell] = Some(left),
                Some(h) if same(h, &left) && h.count() < max_stack(h) => h.set_count(h.count() + 1),
                Some(_) => out.thrown.extend(self.give_back(left, who)),
            }
        }
        self.refresh_result();
    }

    /// `AbstractContainerMenu.moveItemStackTo`: onto stacks of it in `range` with room, then
    /// into the first empty slot that takes it; backwards when `reverse`. What is left of
    /// `stack` stays in it (`None` when all moved); whether any moved.
    fn move_to(
        &mut self,
        stack: &mut Option<ItemStack>,
        range: Range<usize>,
        reverse: bool,
    ) -> bool {
        let Some(moving) = stack.clone() else {
            return false;
        };
        let order: Vec<usize> = if reverse {
            range.rev().collect()
        } else {
            range.collect()
        };
        let mut left = moving.count();
        let max = max_stack(&moving);
        let mut moved = false;
        if max > 1 {
            for &i in &order {
                if left == 0 {
                    break;
                }
                let Some(here) = self.get(i).cloned() else {
                    continue;
                };
                if !same(&here, &moving) || here.count() >= max {
                    continue;
                }
                let n = left.min(max - here.count());
                self.set(i, Some(here.clone().with_count(here.count() + n)));
                left -= n;
                moved = true;
            }
        }
        if left > 0 {
            for &i in &order {
                if self.get(i).is_none() && self.may_place(i, &moving) {
                    let n = left.min(self.slot_limit(i));
                    self.set(i, Some(moving.clone().with_count(n)));
                    left -= n;
                    moved = true;
                    break;
                }
            }
        }
        *stack = (left > 0).then(|| moving.with_count(left));
        moved
    }

    /// `quickMoveStack`, routed as the window's kind routes it. The stack that was there when
    /// something moved.
    fn quick_move(&mut self, slot: usize, who: Clicker, out: &mut Clicked) -> Option<ItemStack> {
        let before = self.get(slot)?.clone();
        let mut moving = Some(before.clone());
        let (main, hotbar) = (self.kind.main(), self.kind.hotbar());
        let end = hotbar + 9;
        let moved = match self.kind {
            MenuKind::Inventory => {
                let worn = equipment_slot(before.item).filter(|&s| self.get(s).is_none());
                if slot == MenuKind::RESULT {
                    self.move_to(&mut moving, main..end, true)
                } else if slot < main {
                    self.move_to(&mut moving, main..end, false)
                } else if let Some(worn) = worn {
                    self.move_to(&mut moving, worn..worn + 1, false)
                } else if slot < hotbar {
                    self.move_to(&mut moving, hotbar..end, false)
                } else if slot < end {
                    self.move_to(&mut moving, main..hotbar, false)
                } else {
                    self.move_to(&mut moving, main..end, false)
                }
            }
            MenuKind::Crafting => {
                let grid = 1..10;
                if slot == MenuKind::RESULT {
                    self.move_to(&mut moving, main..end, true)
                } else if slot >= main {
                    self.move_to(&mut moving, grid, false)
                        || if slot < hotbar {
                            self.move_to(&mut moving, hotbar..end, false)
                        } else {
                            self.move_to(&mut moving, main..hotbar, false)
                        }
                } else {
                    self.move_to(&mut moving, main..end, false)
                }
            }
            MenuKind::Chest { .. } => {
                if slot < main {
                    self.move_to(&mut moving, main..end, true)
                } else {
                    self.move_to(&mut moving, 0..main, false)
                }
            }
            MenuKind::Furnace(oven) => {
                // `AbstractFurnaceMenu.quickMoveStack`: the output and the furnace's slots to
                // the inventory; from the inventory what smelts to the input, fuel to the fuel,
                // the rest between main and hotbar.
                if slot < main {
                    self.move_to(&mut moving, main..end, slot == FURNACE_OUTPUT)
                } else if smelts(oven, before.item).is_some() {
                    self.move_to(&mut moving, 0..1, false)
                } else if burn_ticks(before.item) > 0 {
                    self.move_to(&mut moving, 1..2, false)
                } else if slot < hotbar {
                    self.move_to(&mut moving, hotbar..end, false)
                } else {
                    self.move_to(&mut moving, main..hotbar, false)
                }
            }
        };
        if !moved {
            return None;
        }
        let left = moving.as_ref().map_or(0, |m| m.count());
        if self.is_result(slot) {
            self.slots[slot] = moving.clone();
        } else {
            self.set(slot, moving.clone());
        }
        if left == before.count() {
            return None;
        }
        self.on_take(slot, before.count(), who, out);
        if self.is_result(slot) {
            // What was crafted and did not fit (`quickMoveStack`'s `player.drop`).
            out.thrown.extend(moving);
        }
        Some(before)
    }

    /// One click, as vanilla's server plays it. `slot` is -999 outside the window.
    pub fn click(
        &mut self,
        drag: &mut Drag,
        slot: i16,
        button: i8,
        mode: ClickMode,
        who: Clicker,
    ) -> Clicked {
        let mut out = Clicked::default();
        let index = usize::try_from(slot).ok().filter(|&i| i < self.slots.len());
        if mode == ClickMode::Drag {
            self.drag(drag, index, button, who, &mut out);
            return out;
        }
        if drag.status != 0 {
            // Any other click ends a drag, and does nothing more.
            *drag = Drag::default();
            return out;
        }
        let primary = button == 0;
        match mode {
            ClickMode::Click | ClickMode::ShiftClick if button == 0 || button == 1 => {
                if slot == -999 {
                    let n = if primary { u8::MAX } else { 1 };
                    out.thrown.extend(split(&mut self.carried, n));
                } else if let Some(i) = index {
                    if mode == ClickMode::ShiftClick {
                        let mut moved = self.quick_move(i, who, &mut out);
                        while let Some(m) = moved {
                            if self.get(i).is_some_and(|s| s.item == m.item) {
                                moved = self.quick_move(i, who, &mut out);
                            } else {
                                break;
                            }
                        }
                    } else {
                        self.pick_up(i, primary, who, &mut out);
                    }
                }
            }
            ClickMode::Hotbar => {
                let key = button as usize;
                if let (Some(i), true) = (index, key < 9 || key == OFF_HAND_KEY) {
                    self.swap(i, key, who, &mut out);
                }
            }
            ClickMode::CreativeMiddleClick => {
                if let (Some(i), true, None) = (index, who.creative, &self.carried) {
                    if let Some(s) = self.get(i) {
                        self.carried = Some(s.clone().with_count(max_stack(s)));
                    }
                }
            }
            ClickMode::DropKey => {
                if let (Some(i), None) = (index, &self.carried) {
                    let n = if primary { 1 } else { u8::MAX };
                    if let Some(t) = self.take(i, n, u8::MAX, who, &mut out) {
                        out.thrown.push(t);
                    }
                }
            }
            ClickMode::DoubleClick => {
                if let Some(i) = index {
                    self.gather(i, primary);
                }
            }
            _ => {}
        }
        out
    }

    /// A left or right click on a slot (`ClickType.PICKUP`).
    fn pick_up(&mut self, i: usize, primary: bool, who: Clicker, out: &mut Clicked) {
        let here = self.get(i).cloned();
        let mut carried = self.carried.take();
        match (here, carried.clone()) {
            (None, Some(c)) => {
                let n = if primary { c.count() } else { 1 };
                self.insert(i, &mut carried, n);
            }
            (Some(h), None) => {
                let n = if primary {
                    h.count()
                } else {
                    h.count().div_ceil(2)
                };
                carried = self.take(i, n, u8::MAX, who, out);
            }
            (Some(h), Some(c)) if self.may_place(i, &c) => {
                if same(&h, &c) {
                    let n = if primary { c.count() } else { 1 };
                    self.insert(i, &mut carried, n);
                } else if c.count() <= self.room(i, &c) {
                    carried = Some(h);
                    self.set(i, Some(c));
                }
            }
            (Some(h), Some(mut c)) if same(&h, &c) => {
                // A result onto the same item held: all of it, if it all fits.
                if let Some(t) = self.try_remove(i, h.count(), max_stack(&c) - c.count()) {
                    c.set_count(c.count() + t.count());
                    carried = Some(c);
                    self.on_take(i, t.count(), who, out);
                }
            }
            _ => {}
        }
        self.carried = carried;
    }

    /// A number key over a slot (`ClickType.SWAP`): the slot and hotbar slot `key` (or the
    /// off hand, key 40) change places.
    fn swap(&mut self, i: usize, key: usize, who: Clicker, out: &mut Clicked) {
        let held = self.inventory_get(key);
        let here = self.get(i).cloned();
        match (held, here) {
            (None, Some(h)) => {
                self.inventory_set(key, Some(h.clone()));
                if self.is_result(i) {
                    self.slots[i] = None;
                } else {
                    self.set(i, None);
                }
                self.on_take(i, h.count(), who, out);
            }
            (Some(v), None) if self.may_place(i, &v) => {
                let mut held = Some(v.clone());
                let put = split(&mut held, self.room(i, &v));
                self.inventory_set(key, held);
                self.set(i, put);
            }
            (Some(v), Some(h)) if self.may_place(i, &v) => {
                let room = self.room(i, &v);
                if v.count() > room {
                    let mut held = Some(v.clone());
                    let put = split(&mut held, room);
                    self.inventory_set(key, held);
                    self.set(i, put);
                    self.on_take(i, h.count(), who, out);
                    out.thrown.extend(self.give_back(h, who));
                } else {
                    self.inventory_set(key, Some(h.clone()));
                    self.set(i, Some(v));
                    self.on_take(i, h.count(), who, out);
                }
            }
            _ => {}
        }
    }

    /// A double click (`ClickType.PICKUP_ALL`): the cursor's stack gathers the same item from
    /// every slot but results, part stacks first.
    fn gather(&mut self, i: usize, primary: bool) {
        let Some(mut carried) = self.carried.take() else {
            return;
        };
        if self.get(i).is_none() {
            let max = max_stack(&carried);
            let order: Vec<usize> = if primary {
                (0..self.slots.len()).collect()
            } else {
                (0..self.slots.len()).rev().collect()
            };
            for pass in 0..2 {
                for &k in &order {
                    if carried.count() >= max {
                        break;
                    }
                    if self.is_result(k) {
                        continue;
                    }
                    let Some(s) = self.get(k).cloned() else {
                        continue;
                    };
                    if !same(&s, &carried) || (pass == 0 && s.count() == max_stack(&s)) {
                        continue;
                    }
                    let mut here = Some(s);
                    let taken = split(&mut here, max - carried.count());
                    self.set(k, here);
                    carried.set_count(carried.count() + taken.map_or(0, |t| t.count()));
                }
            }
        }
        self.carried = Some(carried);
    }

    /// A drag's packets (`ClickType.QUICK_CRAFT`): a start naming how the stack spreads
    /// (evenly, one each, or a full stack each in creative), each slot passed over, and the end
    /// that spreads it.
    fn drag(
        &mut self,
        drag: &mut Drag,
        slot: Option<usize>,
        button: i8,
        who: Clicker,
        out: &mut Clicked,
    ) {
        let previous = drag.status;
        let status = (button & 3) as u8;
        drag.status = status;
        let reset = |drag: &mut Drag| *drag = Drag::default();
        if (previous != 1 || status != 2) && previous != status {
            return reset(drag);
        }
        let Some(carried) = self.carried.clone() else {
            return reset(drag);
        };
        match status {
            0 => {
                drag.kind = ((button >> 2) & 3) as u8;
                let valid = drag.kind < 2 || (drag.kind == 2 && who.creative);
                if valid {
                    drag.status = 1;
                    drag.slots.clear();
                } else {
                    reset(drag);
                }
            }
            1 => {
                let Some(i) = slot else {
                    return;
                };
                if self.may_drag(i, &carried)
                    && (drag.kind == 2 || usize::from(carried.count()) > drag.slots.len())
                    && !drag.slots.contains(&i)
                {
                    drag.slots.push(i);
                }
            }
            2 => {
                let slots = std::mem::take(&mut drag.slots);
                let kind = drag.kind;
                reset(drag);
                if slots.len() == 1 {
                    self.pick_up(slots[0], kind == 0, who, out);
                    return;
                }
                let count = usize::from(carried.count());
                let mut left = count;
                for &i in &slots {
                    if !(self.may_drag(i, &carried) && (kind == 2 || count >= slots.len())) {
                        continue;
                    }
                    let had = self.get(i).map_or(0, |s| usize::from(s.count()));
                    let cap = usize::from(self.room(i, &carried));
                    let each = match kind {
                        0 => count / slots.len(),
                        1 => 1,
                        _ => usize::from(max_stack(&carried)),
                    };
                    let now = (each + had).min(cap);
                    left = left.saturating_sub(now.saturating_sub(had));
                    self.set(i, (now > 0).then(|| carried.clone().with_count(now as u8)));
                }
                self.carried = (left > 0).then(|| carried.with_count(left as u8));
            }
            _ => reset(drag),
        }
    }

    /// Whether a drag may spread `stack` over `slot` (`canItemQuickReplace`, `mayPlace`,
    /// `canDragTo`: never a result slot).
    fn may_drag(&self, slot: usize, stack: &ItemStack) -> bool {
        !self.is_result(slot)
            && self.may_place(slot, stack)
            && self
                .get(slot)
                .is_none_or(|s| same(s, stack) && s.count() <= max_stack(stack))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ItemKind::*;

    const WHO: Clicker = Clicker {
        creative: false,
        selected: 0,
    };

    fn stack(item: ItemKind, count: u8) -> Option<ItemStack> {
        Some(new_stack(item, count, None))
    }

    fn count(window: &Window, slot: usize) -> Option<(ItemKind, u8)> {
        window.get(slot).map(|s| (s.item, s.count()))
    }

    fn left(window: &mut Window, drag: &mut Drag, slot: i16) -> Clicked {
        window.click(drag, slot, 0, ClickMode::Click, WHO)
    }

    /// The player's own window with `log` logs in the first main slot.
    fn with_logs(logs: u8) -> Window {
        let mut w = Window::new(MenuKind::Inventory);
        w.slots[9] = stack(OakLog, logs);
        w
    }

    #[test]
    fn a_log_put_in_the_grid_shows_planks_and_taking_them_uses_the_log() {
        let (mut w, mut d) = (with_logs(3), Drag::default());
        left(&mut w, &mut d, 9); // all three logs on the cursor
        w.click(&mut d, 1, 1, ClickMode::Click, WHO); // one into the grid
        assert_eq!(count(&w, 1), Some((OakLog, 1)));
        assert_eq!(count(&w, 0), Some((OakPlanks, 4)));
        left(&mut w, &mut d, 9); // the other two back down
        let out = left(&mut w, &mut d, 0);
        assert_eq!(out.crafted, 4);
        assert_eq!(
            w.carried.as_ref().map(|c| (c.item, c.count())),
            Some((OakPlanks, 4))
        );
        assert_eq!(count(&w, 1), None, "the log is used");
        assert_eq!(count(&w, 0), None, "and nothing is left to make");
    }

    #[test]
    fn a_result_joins_the_same_item_held_only_when_it_all_fits() {
        let mut w = with_logs(0);
        w.slots[1] = stack(OakLog, 2);
        w.refresh_result();
        w.carried = stack(OakPlanks, 61);
        left(&mut w, &mut Drag::default(), 0);
        assert_eq!(
            count(&w, 1),
            Some((OakLog, 2)),
            "61 + 4 > 64: nothing taken"
        );
        w.carried = stack(OakPlanks, 10);
        left(&mut w, &mut Drag::default(), 0);
        assert_eq!(w.carried.as_ref().map(|c| c.count()), Some(14));
        assert_eq!(count(&w, 1), Some((OakLog, 1)));
        // Nothing is ever put into the result slot.
        w.carried = stack(Dirt, 5);
        left(&mut w, &mut Drag::default(), 0);
        assert_eq!(count(&w, 0), Some((OakPlanks, 4)));
    }

    #[test]
    fn a_shift_click_on_the_result_crafts_as_many_as_the_grid_allows() {
        let mut w = Window::new(MenuKind::Crafting);
        w.slots[1] = stack(OakPlanks, 5);
        w.slots[4] = stack(OakPlanks, 3);
        w.refresh_result();
        assert_eq!(count(&w, 0), Some((Stick, 4)));
        let out = w.click(&mut Drag::default(), 0, 0, ClickMode::ShiftClick, WHO);
        assert_eq!(out.crafted, 12, "three crafts: the lower cell runs out");
        assert_eq!(count(&w, 1), Some((OakPlanks, 2)));
        assert_eq!(count(&w, 4), None);
        assert_eq!(
            count(&w, 0),
            Some((OakButton, 1)),
            "what the last plank makes"
        );
        // Into the hotbar's last slot first, as vanilla fills from the end.
        assert_eq!(count(&w, 45), Some((Stick, 12)));
        assert!(out.thrown.is_empty());
    }

    #[test]
    fn a_shift_craft_with_no_room_drops_what_it_made_once_and_stops() {
        let mut w = Window::new(MenuKind::Crafting);
        for slot in 10..46 {
            w.slots[slot] = stack(Dirt, 64);
        }
        w.slots[45] = stack(Stick, 62);
        w.slots[1] = stack(OakPlanks, 4);
        w.slots[4] = stack(OakPlanks, 4);
        w.refresh_result();
        let out = w.click(&mut Drag::default(), 0, 0, ClickMode::ShiftClick, WHO);
        assert_eq!(count(&w, 45), Some((Stick, 64)));
        assert_eq!(out.crafted, 4);
        assert_eq!(
            out.thrown.iter().map(|s| s.count()).sum::<u8>(),
            2,
            "two fitted, two fell"
        );
        assert_eq!(count(&w, 1), Some((OakPlanks, 3)), "one craft, not four");
    }

    #[test]
    fn a_milk_bucket_leaves_its_bucket_in_the_cell() {
        let mut w = Window::new(MenuKind::Crafting);
        for slot in 1..4 {
            w.slots[slot] = stack(MilkBucket, 1);
        }
        w.slots[4] = stack(Sugar, 1);
        w.slots[5] = stack(Egg, 1);
        w.slots[6] = stack(Sugar, 1);
        for slot in 7..10 {
            w.slots[slot] = stack(Wheat, 1);
        }
        w.refresh_result();
        assert_eq!(count(&w, 0), Some((Cake, 1)));
        left(&mut w, &mut Drag::default(), 0);
        assert_eq!(count(&w, 1), Some((Bucket, 1)));
        assert_eq!(count(&w, 5), None);
    }

    #[test]
    fn shift_clicks_route_as_vanillas_windows_do() {
        // The player's window: an iron helmet goes on the head, dirt from the hotbar to main.
        let mut w = Window::new(MenuKind::Inventory);
        w.slots[36] = stack(IronHelmet, 1);
        w.slots[37] = stack(Dirt, 10);
        let mut d = Drag::default();
        w.click(&mut d, 36, 0, ClickMode::ShiftClick, WHO);
        assert_eq!(count(&w, 5), Some((IronHelmet, 1)));
        w.click(&mut d, 37, 0, ClickMode::ShiftClick, WHO);
        assert_eq!(count(&w, 9), Some((Dirt, 10)));
        // At the table: from the inventory into the grid first.
        let mut t = Window::new(MenuKind::Crafting);
        t.slots[20] = stack(OakLog, 2);
        t.click(&mut d, 20, 0, ClickMode::ShiftClick, WHO);
        assert_eq!(count(&t, 1), Some((OakLog, 2)));
        assert_eq!(count(&t, 0), Some((OakPlanks, 4)));
    }

    #[test]
    fn only_what_is_worn_there_goes_in_an_armour_slot() {
        let mut w = Window::new(MenuKind::Inventory);
        let mut d = Drag::default();
        w.carried = stack(Dirt, 1);
        left(&mut w, &mut d, 5);
        assert_eq!(count(&w, 5), None);
        w.carried = stack(IronHelmet, 1);
        left(&mut w, &mut d, 6);
        assert_eq!(count(&w, 6), None, "a helmet is not a chestplate");
        left(&mut w, &mut d, 5);
        assert_eq!(count(&w, 5), Some((IronHelmet, 1)));
    }

    #[test]
    fn a_drag_spreads_the_stack_evenly_or_one_each() {
        let mut w = Window::new(MenuKind::Inventory);
        w.carried = stack(Cobblestone, 10);
        let mut d = Drag::default();
        w.click(&mut d, -999, 0, ClickMode::Drag, WHO); // start, left: evenly
        for slot in [9, 10, 11] {
            w.click(&mut d, slot, 1, ClickMode::Drag, WHO);
        }
        w.click(&mut d, -999, 2, ClickMode::Drag, WHO);
        for slot in [9, 10, 11] {
            assert_eq!(count(&w, slot), Some((Cobblestone, 3)));
        }
        assert_eq!(w.carried.as_ref().map(|c| c.count()), Some(1));
        // Right: one each.
        w.carried = stack(Cobblestone, 5);
        w.click(&mut d, -999, 4, ClickMode::Drag, WHO);
        for slot in [12, 13] {
            w.click(&mut d, slot, 5, ClickMode::Drag, WHO);
        }
        w.click(&mut d, -999, 6, ClickMode::Drag, WHO);
        assert_eq!(count(&w, 12), Some((Cobblestone, 1)));
        assert_eq!(w.carried.as_ref().map(|c| c.count()), Some(3));
        // A full stack each is for creative players only.
        w.click(&mut d, -999, 8, ClickMode::Drag, WHO);
        w.click(&mut d, 14, 9, ClickMode::Drag, WHO);
        w.click(&mut d, 15, 9, ClickMode::Drag, WHO);
        w.click(&mut d, -999, 10, ClickMode::Drag, WHO);
        assert_eq!(count(&w, 14), None);
    }

    #[test]
    fn a_number_key_swaps_a_slot_with_the_hotbar() {
        let mut w = Window::new(MenuKind::Crafting);
        w.slots[12] = stack(Torch, 8);
        w.click(&mut Drag::default(), 12, 2, ClickMode::Hotbar, WHO);
        assert_eq!(count(&w, 12), None);
        assert_eq!(count(&w, 37 + 2), Some((Torch, 8)));
        // The off-hand key reaches the off hand the table's window does not show.
        w.click(&mut Drag::default(), 39, 40, ClickMode::Hotbar, WHO);
        assert_eq!(w.off_hand.as_ref().map(|s| s.item), Some(Torch));
        // Swapping the result out of the grid crafts.
        w.slots[1] = stack(OakLog, 1);
        w.refresh_result();
        let out = w.click(&mut Drag::default(), 0, 0, ClickMode::Hotbar, WHO);
        assert_eq!(out.crafted, 4);
        assert_eq!(count(&w, 37), Some((OakPlanks, 4)));
        assert_eq!(count(&w, 1), None);
    }

    #[test]
    fn throws_and_clicks_outside_drop_items() {
        let mut w = with_logs(5);
        let mut d = Drag::default();
        let out = w.click(&mut d, 9, 0, ClickMode::DropKey, WHO);
        assert_eq!(out.thrown.iter().map(|s| s.count()).sum::<u8>(), 1);
        let out = w.click(&mut d, 9, 1, ClickMode::DropKey, WHO);
        assert_eq!(out.thrown.iter().map(|s| s.count()).sum::<u8>(), 4);
        w.carried = stack(Dirt, 7);
        let out = w.click(&mut d, -999, 1, ClickMode::Click, WHO);
        assert_eq!(out.thrown[0].count(), 1);
        let out = w.click(&mut d, -999, 0, ClickMode::Click, WHO);
        assert_eq!(out.thrown[0].count(), 6);
        assert_eq!(w.carried, None);
        // Throwing the result throws all of it and crafts.
        w.slots[1] = stack(OakLog, 1);
        w.refresh_result();
        let out = w.click(&mut d, 0, 0, ClickMode::DropKey, WHO);
        assert_eq!(out.thrown[0].count(), 4);
        assert_eq!(count(&w, 1), None);
    }

    #[test]
    fn a_double_click_gathers_part_stacks_first_never_from_the_result() {
        let mut w = Window::new(MenuKind::Inventory);
        w.slots[1] = stack(OakLog, 1);
        w.refresh_result(); // four planks in the result
        w.slots[9] = stack(OakPlanks, 64);
        w.slots[10] = stack(OakPlanks, 20);
        w.carried = stack(OakPlanks, 30);
        w.click(&mut Drag::default(), 11, 0, ClickMode::DoubleClick, WHO);
        assert_eq!(w.carried.as_ref().map(|c| c.count()), Some(64));
        assert_eq!(count(&w, 10), None, "the part stack went first");
        assert_eq!(count(&w, 9), Some((OakPlanks, 50)));
        assert_eq!(count(&w, 0), Some((OakPlanks, 4)));
    }

    #[test]
    fn closing_gives_the_grid_and_cursor_back_and_throws_what_does_not_fit() {
        let mut w = Window::new(MenuKind::Crafting);
        w.slots[1] = stack(OakPlanks, 3);
        w.carried = stack(Stick, 2);
        w.refresh_result();
        let thrown = w.close(WHO);
        assert!(thrown.is_empty());
        assert_eq!(count(&w, 37), Some((Stick, 2)), "the selected slot first");
        assert_eq!(count(&w, 38), Some((OakPlanks, 3)));
        assert_eq!(
            (count(&w, 0), count(&w, 1), w.carried.clone()),
            (None, None, None)
        );
        let mut full = Window::new(MenuKind::Crafting);
        for slot in 10..46 {
            full.slots[slot] = stack(Dirt, 64);
        }
        full.slots[5] = stack(Cobblestone, 9);
        assert_eq!(full.close(WHO).len(), 1);
    }

    #[test]
    fn any_other_click_ends_a_drag_and_does_nothing() {
        let mut w = with_logs(4);
        w.carried = stack(Dirt, 4);
        let mut d = Drag::default();
        w.click(&mut d, -999, 0, ClickMode::Drag, WHO);
        let before = w.clone();
        left(&mut w, &mut d, 9);
        assert_eq!(w, before);
        assert_eq!(d, Drag::default());
    }
}
