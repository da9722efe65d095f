//! horde's zombies and items in the world's `entities/` files, as Minecraft 1.17 and later keep
//! a chunk's entities: a vanilla reader, a map renderer or vanilla itself finds each zombie
//! standing where it stood, with its health, fire and helmet, and each item where it lay.
//! horde reads them back from `data/horde_packs.dat` and `data/horde_items.dat` and never from
//! here; each of its own carries the tag `horde`, so the next save replaces them and keeps
//! every other entity of the chunk.

use std::collections::{BTreeMap, BTreeSet};

use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

use crate::common::entity::entity_header;
use crate::common::stacks::stack_to_nbt;
use crate::common::stacks::ItemRecord;
use crate::experience::OrbRecord;
use crate::items::EQUIPMENT_DROP_CHANCE;
use crate::zombie::ZombieRecord;

/// The tag on every entity horde wrote.
pub const TAG: &str = "horde";

/// A zombie in the world at save time.
#[derive(Debug, Clone, PartialEq)]
pub struct StandingZombie {
    pub pos: DVec3,
    pub yaw: f32,
    pub pitch: f32,
    pub uuid: uuid::Uuid,
    /// Its record, the type by name.
    pub record: ZombieRecord<String>,
    /// The type's full health.
    pub max_health: f32,
    pub on_ground: bool,
    pub breaks_doors: bool,
}

/// Whether `entity` is one horde wrote.
pub fn is_ours(entity: &Compound) -> bool {
    matches!(entity.get("Tags"), Some(Value::List(List::String(tags))) if tags.iter().any(|t| t == TAG))
}

/// The entity chunks to write: the chunks that hold a zombie or something on the `ground`
/// (items and orbs, as compounds, where they are) now, with them, and the chunks that held
/// one at the last save (`before`), emptied of ours.
pub fn by_chunk(
    zombies: &[StandingZombie],
    ground: &[(DVec3, Compound)],
    before: &BTreeSet<ChunkPos>,
) -> BTreeMap<ChunkPos, Vec<Compound>> {
    let mut chunks: BTreeMap<ChunkPos, Vec<Compound>> =
        before.iter().map(|&pos| (pos, Vec::new())).collect();
    for zombie in zombies {
        chunks
            .entry(ChunkPos::from_pos(zombie.pos))
            .or_default()
            .push(entity(zombie));
    }
    for (at, entity) in ground {
        chunks
            .entry(ChunkPos::from_pos(*at))
            .or_default()
            .push(entity.clone());
    }
    chunks
}

/// An item on the ground as vanilla saves one, tagged as ours.
pub fn item_entity(item: &ItemRecord, uuid: uuid::Uuid) -> Compound {
    item.to_nbt(uuid_array(uuid), TAG)
}

/// An experience orb as vanilla saves one, tagged as ours.
pub fn orb_entity(orb: &OrbRecord, uuid: uuid::Uuid) -> Compound {
    orb.to_nbt(uuid_array(uuid), TAG)
}

/// A zombie as vanilla 1.20.1 saves one (`Entity`, `LivingEntity`, `Mob` and `Zombie`'s
/// `addAdditionalSaveData`).
pub fn entity(z: &StandingZombie) -> Compound {
    let r = &z.record;
    let mut e = entity_header(
        "minecraft:zombie",
        z.pos,
        DVec3::ZERO,
        [z.yaw, z.pitch],
        uuid_array(z.uuid),
    );
    e.insert("FallDistance", 0.0f32);
    e.insert("Fire", r.fire_ticks.min(i16::MAX as u16) as i16);
    e.insert("Air", 300i16);
    e.insert("OnGround", z.on_ground);
    e.insert("Invulnerable", false);
    e.insert("PortalCooldown", 0i32);
    e.insert(
        "Tags",
        List::String(vec![TAG.to_string(), format!("{TAG}:{}", r.kind)]),
    );
    e.insert("Health", r.health);
    e.insert("HurtTime", 0i16);
    e.insert("HurtByTimestamp", 0i32);
    e.insert("DeathTime", 0i16);
    e.insert("AbsorptionAmount", 0.0f32);
    e.insert("FallFlying", false);
    let mut max_health = Compound::new();
    max_health.insert("Name", "minecraft:generic.max_health");
    max_health.insert("Base", z.max_health as f64);
    e.insert("Attributes", List::Compound(vec![max_health]));
    let mut brain = Compound::new();
    brain.insert("memories", Compound::new());
    e.insert("Brain", brain);
    e.insert("CanPickUpLoot", false);
    e.insert("PersistenceRequired", false);
    e.insert("LeftHanded", false);
    let [head, chest, legs, feet, hand] = r
        .equipment
        .stacks()
        .map(|stack| stack.map_or_else(Compound::new, |s| stack_to_nbt(&s)));
    e.insert("ArmorItems", List::Compound(vec![feet, legs, chest, head]));
    e.insert("HandItems", List::Compound(vec![hand, Compound::new()]));
    e.insert(
        "ArmorDropChances",
        List::Float(vec![EQUIPMENT_DROP_CHANCE; 4]),
    );
    e.insert(
        "HandDropChances",
        List::Float(vec![EQUIPMENT_DROP_CHANCE; 2]),
    );
    e.insert("IsBaby", false);
    e.insert("CanBreakDoors", z.breaks_doors);
    e.insert("InWaterTime", -1i32);
    e.insert("DrownedConversionTime", -1i32);
    e
}

/// A UUID as vanilla's four big-endian ints.
fn uuid_array(uuid: uuid::Uuid) -> [i32; 4] {
    let b = uuid.as_bytes();
    std::array::from_fn(|i| {
        i32::from_be_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ArmourTier;
    use crate::zombie::gear::ZombieWeapon;
    use crate::zombie::{Equipment, Helmet};

    fn zombie(at: DVec3) -> StandingZombie {
        StandingZombie {
            pos: at,
            yaw: 90.0,
            pitch: 0.0,
            uuid: uuid::Uuid::from_u128(0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10),
            record: ZombieRecord {
                kind: "armored_zombie".to_string(),
                health: 12.5,
                fire_ticks: 30,
                equipment: Equipment {
                    helmet: Some(Helmet {
                        kind: ArmourTier::Iron,
                        durability: 160,
                    }),
                    body: [None, None, Some(ArmourTier::Leather)],
                    weapon: Some(ZombieWeapon::IronSword),
                },
            },
            max_health: 20.0,
            on_ground: true,
            breaks_doors: true,
        }
    }

    #[test]
    fn a_zombie_is_written_as_vanilla_keeps_one_and_tagged_ours() {
        let e = entity(&zombie(DVec3::new(1.5, 64.0, -3.25)));
        assert_eq!(e.get("id"), Some(&Value::String("minecraft:zombie".into())));
        assert_eq!(
            e.get("UUID"),
            Some(&Value::IntArray(vec![
                0x01020304, 0x05060708, 0x090a0b0c, 0x0d0e0f10
            ]))
        );
        assert_eq!(e.get("Health"), Some(&Value::Float(12.5)));
        assert_eq!(e.get("Fire"), Some(&Value::Short(30)));
        let Some(Value::List(List::Compound(armor))) = e.get("ArmorItems") else {
            panic!("no armour");
        };
        assert_eq!(
            armor[3].get("id"),
            Some(&Value::String("minecraft:iron_helmet".into()))
        );
        let Some(Value::Compound(tag)) = armor[3].get("tag") else {
            panic!("no damage");
        };
        assert_eq!(tag.get("Damage"), Some(&Value::Int(5)), "165 less 160 left");
        assert_eq!(
            armor[0].get("id"),
            Some(&Value::String("minecraft:leather_boots".into()))
        );
        assert_eq!(armor[1].get("id"), None, "no leggings: an empty compound");
        let Some(Value::List(List::Compound(hands))) = e.get("HandItems") else {
            panic!("no hands");
        };
        assert_eq!(
            hands[0].get("id"),
            Some(&Value::String("minecraft:iron_sword".into()))
        );
        assert!(is_ours(&e));
        assert!(!is_ours(&Compound::new()));
    }

    #[test]
    fn chunks_that_held_a_zombie_are_emptied_and_new_ones_filled() {
        let before = BTreeSet::from([ChunkPos::new(0, 0), ChunkPos::new(5, 5)]);
        let chunks = by_chunk(&[zombie(DVec3::new(-1.0, 64.0, 17.0))], &[], &before);
        assert_eq!(chunks.len(), 3);
        assert!(chunks[&ChunkPos::new(0, 0)].is_empty());
        assert_eq!(chunks[&ChunkPos::new(-1, 1)].len(), 1);
    }
}
