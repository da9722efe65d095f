//! Furnaces at work: every loaded furnace with a fire or with fuel and something to smelt
//! ticks as vanilla's (`smelting::tick`) whether anyone looks in or not. Its fire lights the
//! block (`lit`, light 13), its arrows are shown to those looking in (the window's four
//! properties), and its items, fire and the experience it owes are kept in its block entity
//! (`Items`, `BurnTime`, `CookTime`, `CookTimeTotal`, and `HordeExperience`: vanilla keeps
//! that as the recipes used, which horde does not name).

use std::borrow::Cow;

use bevy_ecs::system::SystemParam;
use rustc_hash::FxHashMap;
use valence::inventory::{ClientInventoryState, OpenInventory};
use valence::nbt::{Compound, Value};
use valence::prelude::*;
use valence::protocol::packets::play::{
    ScreenHandlerPropertyUpdateS2c, ScreenHandlerSlotUpdateS2c,
};
use valence::protocol::{VarInt, WritePacket};

use super::smelting::{burn_ticks, payout, tick, Fire, Oven};
use crate::common::events::DropExperience;
use crate::world::block_entities::{items_of, with_items, BlockEntities};
use crate::world::surface::ChunkArrived;
use crate::world::{BlocksChanged, Overworld};

/// The furnaces that may be working, and their fire.
#[derive(Resource, Debug, Default)]
pub(super) struct Burning(pub FxHashMap<BlockPos, Fire>);

/// The draws for the fraction of a point a furnace pays.
#[derive(Resource)]
pub(super) struct PayRng(pub rand_pcg::Pcg32);

/// What taking a furnace's output touches: its block entity, its fire and the experience it
/// owes.
#[derive(SystemParam)]
pub(super) struct Ovens<'w> {
    pub(super) entities: ResMut<'w, BlockEntities>,
    burning: ResMut<'w, Burning>,
    experience: EventWriter<'w, DropExperience>,
    rng: ResMut<'w, PayRng>,
}

impl Ovens<'_> {
    /// A furnace's window was clicked: it works from now on, and if `smelted` items were
    /// taken from its output, it pays all the experience it owes at `by`
    /// (`AbstractFurnaceBlockEntity.awardUsedRecipesAndPopExperience`).
    pub(super) fn clicked(&mut self, at: BlockPos, id: &str, smelted: u32, by: DVec3) {
        let Some(entity) = self.entities.get(at).cloned() else {
            return;
        };
        self.burning.0.entry(at).or_insert_with(|| fire_of(&entity));
        if smelted == 0 {
            return;
        }
        let amount = payout(owed(&entity), &mut self.rng.0);
        if amount > 0 {
            self.experience.send(DropExperience { at: by, amount });
        }
        self.entities.set(at, id, owing(entity, 0.0));
    }
}

/// The key horde keeps a furnace's owed experience under.
const EXPERIENCE: &str = "HordeExperience";

fn short(entity: &Compound, key: &str) -> u16 {
    match entity.get(key) {
        Some(Value::Short(v)) => (*v).max(0) as u16,
        Some(Value::Int(v)) => (*v).clamp(0, i32::from(u16::MAX)) as u16,
        _ => 0,
    }
}

/// A furnace's fire as its block entity keeps it; the whole burn of the fuel comes from the
/// fuel in its slot, as vanilla's `load` does.
pub(super) fn fire_of(entity: &Compound) -> Fire {
    let fuel = items_of(entity)
        .into_iter()
        .find(|(slot, _)| *slot == 1)
        .map_or(0, |(_, s)| burn_ticks(s.item));
    Fire {
        burning: short(entity, "BurnTime"),
        fuel_ticks: fuel,
        progress: short(entity, "CookTime"),
        total: short(entity, "CookTimeTotal"),
    }
}

/// The experience a furnace owes whoever takes its output (or breaks it).
pub fn owed(entity: &Compound) -> f32 {
    match entity.get(EXPERIENCE) {
        Some(Value::Float(v)) => v.max(0.0),
        _ => 0.0,
    }
}

/// `entity` owing `xp`.
fn owing(mut entity: Compound, xp: f32) -> Compound {
    entity.insert(EXPERIENCE, xp);
    entity
}

/// A furnace that arrives with its chunk works on if it has a fire or fuel and something to
/// smelt.
pub(super) fn wake_arrivals(
    mut arrived: EventReader<ChunkArrived>,
    entities: Res<BlockEntities>,
    mut burning: ResMut<Burning>,
) {
    for chunk in arrived.iter() {
        for (at, entity) in entities.in_chunk(chunk.pos) {
            let oven = crate::world::block_entities::id_of(entity)
                .and_then(|id| Oven::of(BlockKind::from_str(id)?));
            if oven.is_none() {
                continue;
            }
            let fire = fire_of(entity);
            let items = items_of(entity);
            let has = |slot| items.iter().any(|(s, _)| *s == slot);
            if fire.lit() || fire.progress > 0 || (has(0) && has(1)) {
                burning.0.insert(at, fire);
            }
        }
    }
}

/// One tick of every working furnace.
#[allow(clippy::type_complexity)]
pub(super) fn work(
    mut burning: ResMut<Burning>,
    mut entities: ResMut<BlockEntities>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    open: Res<super::chests::OpenContainers>,
    mut windows: Query<&mut Inventory, With<super::chests::ContainerWindow>>,
    mut viewers: Query<(&mut Client, &ClientInventoryState, &OpenInventory)>,
    mut changed: EventWriter<BlocksChanged>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    let mut idle = Vec::new();
    for (&at, fire) in burning.0.iter_mut() {
        let state = layer.block(at).map(|b| b.state);
        let (Some(state), Some(entity)) = (state, entities.get(at)) else {
            idle.push(at);
            continue;
        };
        let Some(oven) = Oven::of(state.to_kind()) else {
            idle.push(at);
            continue;
        };
        let mut slots: [Option<ItemStack>; 3] = Default::default();
        for (slot, stack) in items_of(entity) {
            if let Some(s) = slots.get_mut(usize::from(slot)) {
                *s = Some(stack);
            }
        }
        let before = *fire;
        let ticked = tick(oven, fire, &mut slots);
        if !ticked.changed && before == *fire {
            if !fire.lit() && fire.progress == 0 {
                idle.push(at);
            }
            continue;
        }
        let xp = owed(entity) + ticked.experience;
        let mut kept = with_items(entity.clone(), &slots);
        kept.insert("BurnTime", fire.burning as i16);
        kept.insert("CookTime", fire.progress as i16);
        kept.insert("CookTimeTotal", fire.total as i16);
        entities.set(at, oven.id(), owing(kept, xp));
        let lit = if fire.lit() {
            PropValue::True
        } else {
            PropValue::False
        };
        if state.get(PropName::Lit) != Some(lit) {
            layer.set_block(
                at,
                Block {
                    state: state.set(PropName::Lit, lit),
                    nbt: Some(Compound::new()),
                },
            );
            changed.send(BlocksChanged::between(at, at));
        }
        // Everyone looking in sees the slots that changed and the arrows. Valence would send
        // a shared window's changed slots to its first viewer only, so they are sent here.
        let Some(&(window, _)) = open.0.get(&at) else {
            continue;
        };
        let mut moved = Vec::new();
        if let Ok(mut shown) = windows.get_mut(window) {
            for (i, stack) in slots.iter().enumerate() {
                if shown.slot(i as u16) != stack.as_ref() {
                    shown.set_slot(i as u16, stack.clone());
                    moved.push(i);
                }
            }
            shown.changed = 0;
        }
        let values = [fire.burning, fire.fuel_ticks, fire.progress, fire.total];
        for (mut client, state, open) in &mut viewers {
            if open.entity != window {
                continue;
            }
            for &i in &moved {
                client.write_packet(&ScreenHandlerSlotUpdateS2c {
                    window_id: state.window_id() as i8,
                    state_id: VarInt(state.state_id().0),
                    slot_idx: i as i16,
                    slot_data: Cow::Borrowed(&slots[i]),
                });
            }
            for (property, value) in values.iter().enumerate() {
                client.write_packet(&ScreenHandlerPropertyUpdateS2c {
                    window_id: state.window_id(),
                    property: property as i16,
                    value: *value as i16,
                });
            }
        }
    }
    for at in idle {
        burning.0.remove(&at);
    }
}
