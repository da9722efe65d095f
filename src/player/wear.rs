//! Tools, weapons and armour wear as vanilla's do (`ItemStack.hurtAndBreak`): what a use costs
//! an item (`Item.mineBlock`, `Item.hurtEnemy`), Unbreaking's chance to spare it
//! (`DigDurabilityEnchantment.shouldIgnoreDurabilityDrop`), and a worn-out item breaking with
//! vanilla's sound and crumbs (the entity event each slot has). Creative players' items never
//! wear.
//!
//! Who used an item says so with [`WearItem`]; this module alone changes the stack.

use rand::Rng;
use valence::entity::{EntityId, EntityStatuses};
use valence::prelude::*;
use valence::protocol::packets::play::EntityStatusS2c;
use valence::protocol::WritePacket;

use super::armour::{damage_of, with_damage, ARMOUR_SLOTS};
use super::OFF_HAND;
use crate::combat::enchantment;
use crate::common::body::Dead;

/// `amount` of wear for the item of kind `item` in inventory slot `slot`: a tool that dug, a
/// weapon that struck. Nothing happens if the slot no longer holds that item.
#[derive(Event, Debug, Clone, Copy, PartialEq, Eq)]
pub struct WearItem {
    pub player: Entity,
    pub slot: u16,
    pub item: ItemKind,
    pub amount: u16,
}

fn is_digger(item: ItemKind) -> bool {
    let name = item.to_str();
    ["_pickaxe", "_axe", "_shovel", "_hoe"]
        .iter()
        .any(|t| name.ends_with(t))
}

fn is_sword(item: ItemKind) -> bool {
    item.to_str().ends_with("_sword")
}

/// What digging a block of this hardness costs the item dug with (`mineBlock`): a tool 1, a
/// sword or trident 2 (they are not made for it), shears 1; nothing for a block that breaks
/// at once.
pub fn from_digging(item: ItemKind, hardness: f32) -> u16 {
    if item == ItemKind::Shears {
        return 1; // Shears wear on anything but fire, which is never dug.
    }
    if hardness == 0.0 {
        return 0;
    }
    if is_digger(item) {
        1
    } else if is_sword(item) || item == ItemKind::Trident {
        2
    } else {
        0
    }
}

/// What a blow that lands costs the weapon (`hurtEnemy`): a sword or trident 1, a tool 2.
pub fn from_a_blow(item: ItemKind) -> u16 {
    if is_sword(item) || item == ItemKind::Trident {
        1
    } else if is_digger(item) {
        2
    } else {
        0
    }
}

/// `stack` after `amount` of wear drawn against its Unbreaking: `None` when it broke. Each
/// point is spared with chance `level / (level + 1)`, for armour only 40 % of that
/// (`shouldIgnoreDurabilityDrop`).
pub fn worn(stack: &ItemStack, amount: u16, rng: &mut impl Rng) -> Option<ItemStack> {
    let max = stack.item.max_durability();
    if max == 0 || amount == 0 {
        return Some(stack.clone());
    }
    let level = enchantment(stack, "unbreaking");
    let armour = super::armour::piece(stack.item).is_some();
    let spared = (0..amount)
        .filter(|_| {
            level > 0 && !(armour && rng.gen::<f32>() < 0.6) && rng.gen_range(0..level + 1) > 0
        })
        .count() as u16;
    let damage = damage_of(stack) + (amount - spared);
    (damage < max).then(|| with_damage(stack.clone(), damage))
}

/// The entity event a break in `slot` plays (`LivingEntity.entityEventForEquipmentBreak`):
/// the hotbar's is the main hand's.
fn break_event(slot: u16) -> EntityStatus {
    match slot {
        5 => EntityStatus::BreakHead,
        6 => EntityStatus::BreakChest,
        7 => EntityStatus::BreakLegs,
        8 => EntityStatus::BreakFeet,
        OFF_HAND => EntityStatus::BreakOffhand,
        _ => EntityStatus::BreakMainhand,
    }
}

/// Wears the items players used; what breaks is gone, and everyone sees and hears it.
pub(super) fn wear_items(
    mut used: EventReader<WearItem>,
    mut players: Query<
        (
            &mut Client,
            &mut Inventory,
            &mut EntityStatuses,
            &GameMode,
            &EntityId,
        ),
        Without<Dead>,
    >,
    server: Res<Server>,
) {
    for use_ in used.iter() {
        let Ok((mut client, mut inventory, mut statuses, mode, id)) = players.get_mut(use_.player)
        else {
            continue;
        };
        if *mode == GameMode::Creative {
            continue;
        }
        let Some(stack) = inventory.slot(use_.slot).filter(|s| s.item == use_.item) else {
            continue;
        };
        // Drawn from the player, the slot and the tick: the same use wears the same.
        let draw =
            (id.get() as u64) << 32 ^ u64::from(use_.slot) << 16 ^ server.current_tick() as u64;
        let mut rng = crate::random::generator(crate::random::mix(draw));
        let after = worn(stack, use_.amount, &mut rng);
        let broke = after.is_none();
        inventory.set_slot(use_.slot, after);
        if broke {
            let event = break_event(use_.slot);
            // The player's own client knows itself as entity 0; others are sent the event by
            // Valence.
            client.write_packet(&EntityStatusS2c {
                entity_id: 0,
                entity_status: event as u8,
            });
            statuses.trigger(event);
        }
    }
}

/// Wears each armour piece a player wears by `loss` (a blow's), as [`wear_items`] does.
pub fn wear_armour(
    player: Entity,
    inventory: &Inventory,
    loss: u16,
    used: &mut EventWriter<WearItem>,
) {
    for slot in ARMOUR_SLOTS {
        let Some(stack) = inventory.slot(slot) else {
            continue;
        };
        if super::armour::piece(stack.item).is_some() {
            used.send(WearItem {
                player,
                slot,
                item: stack.item,
                amount: loss,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::stacks::new_stack;
    use valence::nbt::{compound, List};

    #[test]
    fn tools_wear_by_vanillas_costs() {
        assert_eq!(from_digging(ItemKind::IronPickaxe, 1.5), 1);
        assert_eq!(
            from_digging(ItemKind::IronPickaxe, 0.0),
            0,
            "a torch breaks at once"
        );
        assert_eq!(
            from_digging(ItemKind::IronSword, 0.5),
            2,
            "a sword is not for digging"
        );
        assert_eq!(from_digging(ItemKind::Shears, 0.2), 1);
        assert_eq!(from_digging(ItemKind::Stick, 2.0), 0);
        assert_eq!(from_a_blow(ItemKind::DiamondSword), 1);
        assert_eq!(from_a_blow(ItemKind::StoneAxe), 2, "an axe is a tool first");
        assert_eq!(from_a_blow(ItemKind::Dirt), 0);
    }

    #[test]
    fn a_tool_breaks_at_its_durability() {
        let mut rng = crate::random::generator(1);
        let pick = new_stack(ItemKind::WoodenPickaxe, 1, None); // 59 uses
        let nearly = with_damage(pick.clone(), 57);
        let worn_once = worn(&nearly, 1, &mut rng).unwrap();
        assert_eq!(damage_of(&worn_once), 58);
        assert!(
            worn(&worn_once, 1, &mut rng).is_none(),
            "the 59th use breaks it"
        );
        assert_eq!(
            worn(&new_stack(ItemKind::Dirt, 1, None), 5, &mut rng).map(|s| s.item),
            Some(ItemKind::Dirt)
        );
    }

    #[test]
    fn unbreaking_spares_as_vanilla_draws_it() {
        let mut rng = crate::random::generator(7);
        let mut pick = new_stack(ItemKind::DiamondPickaxe, 1, None);
        let unbreaking = compound! { "id" => "minecraft:unbreaking", "lvl" => 3i16 };
        pick.nbt
            .as_mut()
            .unwrap()
            .insert("Enchantments", List::Compound(vec![unbreaking]));
        let after = worn(&pick, 4000, &mut rng).unwrap();
        // Unbreaking III: a point taken one time in four.
        let taken = damage_of(&after) as f64 / 4000.0;
        assert!((taken - 0.25).abs() < 0.03, "{taken}");
    }
}
