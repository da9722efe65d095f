//! Item stacks as vanilla makes, stores and saves them, and one item on the ground as a record,
//! for drops and saves alike, written as vanilla 1.20.1 writes an `ItemEntity`
//! (`minecraft:item` with `Item`, `Age`, `PickupDelay`), so that the same compound serves
//! horde's own file and the world's `entities/` regions.

use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

use super::entity::{entity_header, pos_and_motion};

/// Ticks an item lies before it despawns (`ItemEntity.LIFETIME`).
pub const LIFETIME: u32 = 6000;

/// Player inventory slots: the hotbar, then the rest, as vanilla fills them.
pub const HOTBAR: std::ops::Range<u16> = 36..45;
const MAIN: std::ops::Range<u16> = 9..36;

/// An item on the ground.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemRecord {
    pub stack: ItemStack,
    pub pos: DVec3,
    /// Blocks a tick.
    pub velocity: DVec3,
    /// Ticks it has lain.
    pub age: u32,
    /// Ticks before anyone may pick it up.
    pub pickup_delay: u32,
}

impl ItemRecord {
    /// The entity id vanilla gives items in saves.
    pub const ID: &'static str = "minecraft:item";

    /// Vanilla's compound, with `tag` marking it as one of horde's.
    pub fn to_nbt(&self, uuid: [i32; 4], tag: &str) -> Compound {
        let mut e = entity_header(Self::ID, self.pos, self.velocity, [0.0; 2], uuid);
        e.insert("FallDistance", 0.0f32);
        e.insert("Fire", -1i16);
        e.insert("Air", 300i16);
        e.insert("OnGround", self.velocity.y == 0.0);
        e.insert("Invulnerable", false);
        e.insert("PortalCooldown", 0i32);
        e.insert("Tags", List::String(vec![tag.to_string()]));
        e.insert("Health", 5i16);
        e.insert("Age", self.age.min(i16::MAX as u32) as i16);
        e.insert("PickupDelay", self.pickup_delay.min(i16::MAX as u32) as i16);
        e.insert("Item", stack_to_nbt(&self.stack));
        e
    }

    /// Reads one back; an unknown item, an empty stack or a position that is not three
    /// finite numbers is refused.
    pub fn from_nbt(e: &Compound) -> Result<Self, String> {
        let (pos, velocity) = pos_and_motion(e)?;
        let short = |key| match e.get(key) {
            Some(Value::Short(v)) => (*v).max(0) as u32,
            _ => 0,
        };
        let Some(Value::Compound(item)) = e.get("Item") else {
            return Err("Item missing".into());
        };
        let stack = stack_from_nbt(item)?;
        let most = stack.item.max_stack().max(1);
        Ok(Self {
            stack: stack.clone().with_count(stack.count().min(most)),
            pos,
            velocity,
            age: short("Age").min(LIFETIME),
            pickup_delay: short("PickupDelay"),
        })
    }
}

/// A stack as vanilla saves one anywhere (`ItemStack.save`): `id`, `Count` and its `tag`.
pub fn stack_to_nbt(stack: &ItemStack) -> Compound {
    let mut item = Compound::new();
    item.insert("id", format!("minecraft:{}", stack.item.to_str()));
    item.insert("Count", stack.count() as i8);
    if let Some(tag) = &stack.nbt {
        item.insert("tag", tag.clone());
    }
    item
}

/// A stack read back; an unknown item, air or a count that is not positive is refused.
pub fn stack_from_nbt(item: &Compound) -> Result<ItemStack, String> {
    let kind = match item.get("id") {
        Some(Value::String(id)) => ItemKind::from_str(id.strip_prefix("minecraft:").unwrap_or(id))
            .filter(|k| *k != ItemKind::Air)
            .ok_or_else(|| format!("unknown item {id}"))?,
        _ => return Err("item id missing".into()),
    };
    let count = match item.get("Count") {
        Some(Value::Byte(n)) if *n > 0 => *n as u8,
        _ => return Err("item Count missing or not positive".into()),
    };
    let tag = match item.get("tag") {
        Some(Value::Compound(tag)) => Some(tag.clone()),
        _ => None,
    };
    Ok(new_stack(kind, count, tag))
}

/// A stack as vanilla's `ItemStack` constructor makes it: an item that wears carries its
/// `Damage` tag, 0 when new. Clients add the tag to any such stack they are sent without it,
/// and Valence's inventory clicks compare tags, so a stack sent bare could never be moved.
pub fn new_stack(kind: ItemKind, count: u8, tag: Option<Compound>) -> ItemStack {
    let mut stack = ItemStack::new(kind, count, tag);
    if kind.max_durability() > 0 {
        let tag = stack.nbt.get_or_insert_with(Compound::new);
        if !tag.contains_key("Damage") {
            tag.insert("Damage", 0);
        }
    }
    stack
}

/// Puts `stack` into a player's inventory as vanilla's `Inventory.add` does: onto stacks of
/// the same item with room, then into free slots, the hotbar first. Returns what did not fit.
pub fn insert(inventory: &mut Inventory, stack: &ItemStack) -> u8 {
    let max = stack.item.max_stack().max(1);
    let mut left = stack.count();
    for slot in HOTBAR.chain(MAIN) {
        if left == 0 {
            return 0;
        }
        let Some(here) = inventory.slot(slot) else {
            continue;
        };
        if here.item == stack.item && here.nbt == stack.nbt && here.count() < max {
            let moved = left.min(max - here.count());
            let count = here.count() + moved;
            inventory.set_slot_amount(slot, count);
            left -= moved;
        }
    }
    for slot in HOTBAR.chain(MAIN) {
        if left == 0 {
            return 0;
        }
        if inventory.slot(slot).is_none() {
            let moved = left.min(max);
            inventory.set_slot(slot, stack.clone().with_count(moved));
            left -= moved;
        }
    }
    left
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_survives_a_round_trip_in_vanillas_layout() {
        let mut tag = Compound::new();
        tag.insert("Damage", 12i32);
        let record = ItemRecord {
            stack: ItemStack::new(ItemKind::IronSword, 1, Some(tag)),
            pos: DVec3::new(1.5, 64.0, -7.25),
            velocity: DVec3::new(0.0, -0.04, 0.0),
            age: 1234,
            pickup_delay: 7,
        };
        let nbt = record.to_nbt([1, 2, 3, 4], "horde");
        let mut bytes = Vec::new();
        nbt.to_binary(&mut bytes, "").unwrap();
        let (back, _) = Compound::from_binary(&mut bytes.as_slice()).unwrap();
        assert_eq!(ItemRecord::from_nbt(&back).unwrap(), record);
        assert_eq!(
            back.get("id"),
            Some(&Value::String("minecraft:item".into()))
        );
        assert_eq!(back.get("Age"), Some(&Value::Short(1234)));
    }

    #[test]
    fn a_broken_item_is_refused() {
        assert!(ItemRecord::from_nbt(&Compound::new()).is_err());
        let mut nbt = ItemRecord {
            stack: ItemStack::new(ItemKind::Dirt, 3, None),
            pos: DVec3::ZERO,
            velocity: DVec3::ZERO,
            age: 0,
            pickup_delay: 0,
        }
        .to_nbt([0; 4], "horde");
        let mut item = Compound::new();
        item.insert("id", "minecraft:no_such_thing");
        item.insert("Count", 1i8);
        nbt.insert("Item", item);
        assert!(ItemRecord::from_nbt(&nbt).is_err());
    }

    #[test]
    fn what_wears_carries_its_damage_as_vanillas_stacks_do() {
        let damage = |s: &ItemStack| s.nbt.as_ref().and_then(|t| t.get("Damage").cloned());
        assert_eq!(
            damage(&new_stack(ItemKind::IronHelmet, 1, None)),
            Some(Value::Int(0))
        );
        let mut worn = Compound::new();
        worn.insert("Damage", 40i32);
        assert_eq!(
            damage(&new_stack(ItemKind::IronSword, 1, Some(worn))),
            Some(Value::Int(40))
        );
        assert_eq!(new_stack(ItemKind::Dirt, 3, None).nbt, None);
    }
}
