//! Armour as vanilla 1.20.1 has it: what each piece is worth (`ArmorMaterials`), how much of a
//! blow it stops (`CombatRules.getDamageAfterAbsorb`), and how it wears (`Inventory.hurtArmor`).
//! A player wears it in the inventory's armour slots, 5 (head) to 8 (feet).

use bevy_ecs::world::Ref;
use valence::entity::EntityId;
use valence::inventory::HeldItem;
use valence::layer::Layer;
use valence::prelude::*;
use valence::protocol::packets::play::entity_equipment_update_s2c::EquipmentEntry;
use valence::protocol::packets::play::EntityEquipmentUpdateS2c;
use valence::protocol::sound::SoundCategory;
use valence::protocol::{Sound, VarInt, WritePacket};

use crate::config::ArmourTier;
use crate::world::Overworld;

/// The player inventory's armour slots: head, chest, legs, feet.
pub const ARMOUR_SLOTS: [u16; 4] = [5, 6, 7, 8];

/// Defense points and toughness of an armour piece, and the slot it goes in (`ArmorMaterials`;
/// minecraft.wiki, Armor).
pub fn piece(item: ItemKind) -> Option<(u16, f32, f32)> {
    use ItemKind::*;
    let (slot, defense, toughness) = match item {
        LeatherHelmet => (5, 1, 0.0),
        LeatherChestplate => (6, 3, 0.0),
        LeatherLeggings => (7, 2, 0.0),
        LeatherBoots => (8, 1, 0.0),
        ChainmailHelmet => (5, 2, 0.0),
        ChainmailChestplate => (6, 5, 0.0),
        ChainmailLeggings => (7, 4, 0.0),
        ChainmailBoots => (8, 1, 0.0),
        IronHelmet => (5, 2, 0.0),
        IronChestplate => (6, 6, 0.0),
        IronLeggings => (7, 5, 0.0),
        IronBoots => (8, 2, 0.0),
        GoldenHelmet => (5, 2, 0.0),
        GoldenChestplate => (6, 5, 0.0),
        GoldenLeggings => (7, 3, 0.0),
        GoldenBoots => (8, 1, 0.0),
        DiamondHelmet => (5, 3, 2.0),
        DiamondChestplate => (6, 8, 2.0),
        DiamondLeggings => (7, 6, 2.0),
        DiamondBoots => (8, 3, 2.0),
        NetheriteHelmet => (5, 3, 3.0),
        NetheriteChestplate => (6, 8, 3.0),
        NetheriteLeggings => (7, 6, 3.0),
        NetheriteBoots => (8, 3, 3.0),
        TurtleHelmet => (5, 2, 0.0),
        _ => return None,
    };
    Some((slot, defense as f32, toughness))
}

/// The armour points and toughness a player wears: each armour slot's piece, if it is one
/// for that slot.
pub fn worn(inventory: &Inventory) -> (f32, f32) {
    ARMOUR_SLOTS
        .iter()
        .filter_map(|&slot| {
            let stack = inventory.slot(slot)?;
            piece(stack.item).filter(|(s, ..)| *s == slot)
        })
        .fold((0.0, 0.0), |(p, t), (_, defense, toughness)| {
            (p + defense, t + toughness)
        })
}

/// What of `damage` gets through `armour` points of `toughness`: vanilla's
/// `damage × (1 − min(20, max(armour / 5, armour − damage / (2 + toughness / 4))) / 25)`.
pub fn after_armour(damage: f32, armour: f32, toughness: f32) -> f32 {
    let t = 2.0 + toughness / 4.0;
    let effective = (armour - damage / t).clamp(armour * 0.2, 20.0);
    damage * (1.0 - effective / 25.0)
}

/// Durability each worn piece loses to a blow of `damage` before armour: `max(1, damage / 4)`.
pub fn wear(damage: f32) -> u16 {
    ((damage / 4.0) as u16).max(1)
}

/// The durability an item has lost, kept as vanilla keeps it (its `Damage` tag).
pub fn damage_of(stack: &ItemStack) -> u16 {
    match stack.nbt.as_ref().and_then(|n| n.get("Damage")) {
        Some(valence::nbt::Value::Int(d)) => (*d).clamp(0, u16::MAX as i32) as u16,
        _ => 0,
    }
}

/// `stack` with `damage` lost.
pub fn with_damage(mut stack: ItemStack, damage: u16) -> ItemStack {
    let nbt = stack.nbt.get_or_insert_with(valence::nbt::Compound::new);
    nbt.insert("Damage", damage as i32);
    stack
}

/// The inventory slots others see, in the equipment packet's order (main hand, off hand,
/// feet, legs, chest, head).
fn shown_slots(held: &HeldItem) -> [u16; 6] {
    [held.slot(), super::OFF_HAND, 8, 7, 6, 5]
}

/// What others see a player hold and wear.
fn equipment(inventory: &Inventory, held: &HeldItem) -> Vec<EquipmentEntry> {
    shown_slots(held)
        .into_iter()
        .enumerate()
        .map(|(slot, from)| EquipmentEntry {
            slot: slot as i8,
            item: inventory.slot(from).cloned(),
        })
        .collect()
}

/// Clients learn what another player wears and holds only from a packet, which Valence never
/// sends: it goes out when the inventory or the held slot changes, and every two seconds for
/// a player with anything to show, so that players who come into view see it too.
pub(super) fn show_equipment(
    players: Query<(Entity, Ref<Inventory>, Ref<HeldItem>, &Position, &EntityId), With<Client>>,
    mut layers: Query<&mut EntityLayer, With<Overworld>>,
    server: Res<Server>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    let resend = server.current_tick() % (2 * server.tick_rate().get() as i64) == 0;
    for (player, inventory, held, pos, id) in &players {
        let changed = inventory.is_changed() || held.is_changed();
        let shows = || {
            shown_slots(&held)
                .iter()
                .any(|&s| inventory.slot(s).is_some())
        };
        if !(changed || (resend && shows())) {
            continue;
        }
        layer
            .view_except_writer(ChunkPos::from_pos(pos.0), player)
            .write_packet(&EntityEquipmentUpdateS2c {
                entity_id: VarInt(id.get()),
                equipment: equipment(&inventory, &held),
            });
    }
}

/// What a player wore in each armour slot when last looked at; unknown until the tick after
/// they joined, when their saved inventory is in.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct Worn(Option<[Option<ItemKind>; 4]>);

/// The sound of putting `item` on (`ArmorMaterials`' equip sounds, `Equipable`).
fn equip_sound(item: ItemKind) -> Option<Sound> {
    Some(match ArmourTier::of(item) {
        Some((ArmourTier::Leather, _)) => Sound::ItemArmorEquipLeather,
        Some((ArmourTier::Golden, _)) => Sound::ItemArmorEquipGold,
        Some((ArmourTier::Chainmail, _)) => Sound::ItemArmorEquipChain,
        Some((ArmourTier::Iron, _)) => Sound::ItemArmorEquipIron,
        Some((ArmourTier::Diamond, _)) => Sound::ItemArmorEquipDiamond,
        Some((ArmourTier::Netherite, _)) => Sound::ItemArmorEquipNetherite,
        None => match item {
            ItemKind::TurtleHelmet => Sound::ItemArmorEquipTurtle,
            ItemKind::Elytra => Sound::ItemArmorEquipElytra,
            _ if piece(item).is_some() => Sound::ItemArmorEquipGeneric,
            _ => return None,
        },
    })
}

/// A piece put on sounds for everyone near, the wearer too (`LivingEntity.onEquipItem`).
pub(super) fn equip_sounds(
    mut players: Query<(Ref<Client>, Ref<Inventory>, &mut Worn, &Position, &GameMode)>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    server: Res<Server>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    for (client, inventory, mut worn, pos, mode) in &mut players {
        if client.is_added() || !(inventory.is_changed() || worn.0.is_none()) {
            continue;
        }
        let now = ARMOUR_SLOTS.map(|s| inventory.slot(s).map(|i| i.item));
        let Some(before) = worn.0.replace(now) else {
            continue;
        };
        if *mode == GameMode::Spectator {
            continue;
        }
        for (new, old) in now.into_iter().zip(before) {
            if let Some(sound) = new.filter(|n| Some(*n) != old).and_then(equip_sound) {
                crate::world::sound::play(
                    &mut layer,
                    sound,
                    SoundCategory::Player,
                    pos.0,
                    (1.0, 1.0),
                    server.current_tick(),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn armour_stops_what_vanillas_formula_says() {
        // minecraft.wiki, Armor: 20 points, no toughness, a 10 damage blow: the points less
        // 10 / 2 stop 15/25 of it.
        assert!((after_armour(10.0, 20.0, 0.0) - 4.0).abs() < 1e-5);
        // Full iron (15) against a zombie's 3: 3 × (1 − 13.5/25) = 1.38.
        assert!((after_armour(3.0, 15.0, 0.0) - 1.38).abs() < 1e-5);
        // Diamond (20, toughness 8) against 20: the cap at 20 points holds.
        assert!((after_armour(20.0, 20.0, 8.0) - 20.0 * (1.0 - 15.0 / 25.0)).abs() < 1e-4);
        assert_eq!(after_armour(5.0, 0.0, 0.0), 5.0);
        assert_eq!((wear(3.0), wear(8.0), wear(17.9)), (1, 2, 4));
    }

    #[test]
    fn pieces_count_in_their_own_slot_and_break_when_worn_out() {
        let mut inventory = Inventory::new(InventoryKind::Player);
        inventory.set_slot(5, ItemStack::new(ItemKind::IronHelmet, 1, None));
        inventory.set_slot(6, ItemStack::new(ItemKind::IronChestplate, 1, None));
        inventory.set_slot(7, ItemStack::new(ItemKind::IronHelmet, 1, None));
        assert_eq!(
            worn(&inventory),
            (8.0, 0.0),
            "a helmet in the legs slot counts nothing"
        );
        let worn_helmet = with_damage(ItemStack::new(ItemKind::IronHelmet, 1, None), 163);
        let mut rng = crate::random::generator(3);
        assert!(
            super::super::wear::worn(&worn_helmet, 2, &mut rng).is_none(),
            "165 durability: it breaks"
        );
    }

    #[test]
    fn each_material_sounds_as_it_goes_on() {
        assert_eq!(
            equip_sound(ItemKind::IronChestplate),
            Some(Sound::ItemArmorEquipIron)
        );
        assert_eq!(
            equip_sound(ItemKind::GoldenBoots),
            Some(Sound::ItemArmorEquipGold)
        );
        assert_eq!(
            equip_sound(ItemKind::TurtleHelmet),
            Some(Sound::ItemArmorEquipTurtle)
        );
        assert_eq!(equip_sound(ItemKind::Dirt), None);
    }
}
