//! A zombie in the save: in `horde_packs.dat` as horde keeps it (a record with the type by
//! name, so that a save survives edits to the type list; where it stood; whether the hunt
//! spawned it), and in `entities/` as vanilla keeps one. The packs and the hunt save their
//! zombies through here; every zombie standing in the world goes to `entities/`.

use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

use super::gear::{ZombieWeapon, EQUIPMENT_DROP_CHANCE};
use super::{Body, Burning, Equipment, Helmet, Vitality, Zombie, ZombieKinds, ZombieRecord};
use crate::common::body::Dying;
use crate::common::entity::entity_header;
use crate::common::stacks::stack_to_nbt;
use crate::config::{ArmourTier, Config};
use crate::save::entities::{uuid_array, TAG};
use crate::save::keys::{int, string};
use crate::save::{SaveApp, SaveOut, SavePart};

/// Every zombie standing in the world goes to `entities/`.
pub(super) fn register(app: &mut App) {
    app.add_save_part(snapshot_standing);
}

/// One zombie as saved: its record with the type by name.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedZombie {
    pub record: ZombieRecord<String>,
    /// Where it stood (loose zombies; pack members come back around the centroid).
    pub pos: Option<DVec3>,
    /// Spawned by the running hunt.
    pub hunt: bool,
}

impl SavedZombie {
    pub fn to_nbt(&self) -> Compound {
        let mut c = Compound::new();
        let r = &self.record;
        c.insert("Type", r.kind.clone());
        c.insert("Health", r.health);
        c.insert("Fire", r.fire_ticks as i32);
        let e = &r.equipment;
        if let Some(helmet) = e.helmet {
            c.insert("Helmet", helmet.kind.name().to_string());
            c.insert("HelmetDurability", helmet.durability as i32);
        }
        if e.body.iter().any(Option::is_some) {
            // Chest, legs, feet; "" for an empty slot.
            let names = e.body.map(|t| t.map_or("", ArmourTier::name).to_string());
            c.insert("Armour", Value::List(List::String(names.to_vec())));
        }
        if let Some(weapon) = e.weapon {
            c.insert("Weapon", weapon.item().to_str().to_string());
        }
        if let Some(p) = self.pos {
            c.insert("Pos", Value::List(List::Double(vec![p.x, p.y, p.z])));
        }
        if self.hunt {
            c.insert("Hunt", true);
        }
        c
    }

    pub fn from_nbt(c: &Compound) -> Result<Self, String> {
        let helmet = match c.get("Helmet") {
            Some(Value::String(name)) => {
                let kind = ArmourTier::from_name(name).ok_or(format!("unknown helmet {name:?}"))?;
                Some(Helmet {
                    kind,
                    durability: short(int(c, "HelmetDurability")?),
                })
            }
            _ => None,
        };
        let mut body = [None; 3];
        match c.get("Armour") {
            Some(Value::List(List::String(names))) if names.len() == 3 => {
                for (slot, name) in body.iter_mut().zip(names) {
                    *slot = match name.as_str() {
                        "" => None,
                        name => Some(
                            ArmourTier::from_name(name)
                                .ok_or(format!("unknown armour {name:?}"))?,
                        ),
                    };
                }
            }
            Some(_) => return Err("Armour is not three names".into()),
            None => {}
        }
        let weapon = match c.get("Weapon") {
            Some(Value::String(name)) => Some(
                ItemKind::from_str(name)
                    .and_then(ZombieWeapon::of)
                    .ok_or(format!("unknown zombie weapon {name:?}"))?,
            ),
            Some(_) => return Err("Weapon is not a name".into()),
            None => None,
        };
        let pos = match c.get("Pos") {
            Some(Value::List(List::Double(v))) if v.len() == 3 => {
                Some(DVec3::new(v[0], v[1], v[2]))
            }
            Some(_) => return Err("Pos is not three doubles".into()),
            None => None,
        };
        let health = match c.get("Health") {
            Some(Value::Float(h)) if h.is_finite() => *h,
            _ => return Err("Health missing or not a float".into()),
        };
        Ok(Self {
            record: ZombieRecord {
                kind: string(c, "Type")?,
                health,
                fire_ticks: short(int(c, "Fire")?),
                equipment: Equipment {
                    helmet,
                    body,
                    weapon,
                },
            },
            pos,
            hunt: matches!(c.get("Hunt"), Some(Value::Byte(1))),
        })
    }
}

/// A saved count as records keep it, within `0..=u16::MAX`.
fn short(v: i32) -> u16 {
    v.clamp(0, u16::MAX as i32) as u16
}

/// The type of a saved zombie, by name. A type no longer configured is kept under its name
/// with the default type's stats, so the zombie is never saved back as another type.
fn saved_kind(kinds: &mut ZombieKinds, name: &str, config: &Config) -> usize {
    if let Some(kind) = kinds.named(name) {
        return kind;
    }
    valence::log::warn!(
        "saved zombie type {name:?} is no longer configured; its zombies keep the name with the stats of {}",
        config.zombies.default_type
    );
    let like = kinds.find(&config.zombies.default_type).unwrap_or(0);
    kinds.add_retired(name, like)
}

/// A saved zombie's record, its type looked up by name.
pub fn record_of(
    kinds: &mut ZombieKinds,
    saved: &ZombieRecord<String>,
    config: &Config,
) -> ZombieRecord {
    let kind = saved_kind(kinds, &saved.kind, config);
    saved
        .clone()
        .with_kind(u16::try_from(kind).unwrap_or(u16::MAX))
}

/// A record with its type by name, for the save.
pub fn named(kinds: &ZombieKinds, record: ZombieRecord) -> ZombieRecord<String> {
    record.with_kind(kinds.get(record.kind as usize).name.clone())
}

/// A living zombie as saved, with where it stands.
pub fn saved_zombie(
    kinds: &ZombieKinds,
    (zombie, pos, vitality, fire, equipment): LiveZombie,
) -> SavedZombie {
    SavedZombie {
        record: named(
            kinds,
            ZombieRecord::capture(zombie, vitality, fire, equipment),
        ),
        pos: Some(pos.0),
        hunt: false,
    }
}

/// What a living zombie's save is made of, as [`saved_zombie`] takes it.
pub type LiveZombie<'a> = (
    &'a Zombie,
    &'a Position,
    &'a Vitality,
    &'a Burning,
    &'a Equipment,
);

/// Puts a zombie saved where it stood back into `layer`; `index`, its place in the saved list,
/// seeds its wandering. One saved without a place is left out.
pub fn spawn_saved<'w, 's, 'a>(
    commands: &'a mut Commands<'w, 's>,
    layer: Entity,
    kinds: &mut ZombieKinds,
    config: &Config,
    (index, saved): &(usize, SavedZombie),
) -> Option<bevy_ecs::system::EntityCommands<'w, 's, 'a>> {
    let pos = saved.pos?;
    let record = record_of(kinds, &saved.record, config);
    let zombie = commands.spawn(record.bundle(layer, pos, *index as u64 ^ pos.x.to_bits()));
    Some(zombie)
}

/// A zombie in the world at save time.
#[derive(Debug, Clone, PartialEq)]
struct StandingZombie {
    pos: DVec3,
    yaw: f32,
    pitch: f32,
    uuid: uuid::Uuid,
    /// Its record, the type by name.
    record: ZombieRecord<String>,
    /// The type's full health.
    max_health: f32,
    on_ground: bool,
    breaks_doors: bool,
}

/// A zombie as vanilla 1.20.1 saves one (`Entity`, `LivingEntity`, `Mob` and `Zombie`'s
/// `addAdditionalSaveData`).
fn entity(z: &StandingZombie) -> Compound {
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

/// Every zombie in the world as `entities/` will hold it, where its body really is.
struct StandingZombies(Vec<StandingZombie>);

fn snapshot_standing(world: &mut World) -> Box<dyn SavePart> {
    let kinds = world.resource::<ZombieKinds>().clone();
    let breaks_doors = world.resource::<Config>().zombies.break_doors;
    let mut zombies = world.query_filtered::<(
        &Zombie,
        &Position,
        &Look,
        &UniqueId,
        &Vitality,
        &Burning,
        &Equipment,
        &Body,
    ), Without<Dying>>();
    let standing = zombies
        .iter(world)
        .map(
            |(zombie, pos, look, id, vitality, fire, equipment, body)| StandingZombie {
                pos: body.feet(pos.0),
                yaw: look.yaw,
                pitch: look.pitch,
                uuid: id.0,
                record: named(
                    &kinds,
                    ZombieRecord::capture(zombie, vitality, fire, equipment),
                ),
                max_health: kinds.get(zombie.kind).health,
                on_ground: body.on_ground(),
                breaks_doors,
            },
        )
        .collect();
    Box::new(StandingZombies(standing))
}

impl SavePart for StandingZombies {
    fn write(&self, out: &mut SaveOut) {
        for zombie in &self.0 {
            out.entity(zombie.pos, entity(zombie));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    use rand::RngCore;

    /// Deterministic pseudo-random values for property-style round trips.
    pub(crate) struct Gen(rand_pcg::Pcg32);

    impl Gen {
        pub(crate) fn new(seed: u64) -> Self {
            Self(crate::random::generator(seed))
        }
        pub(crate) fn next(&mut self) -> u64 {
            self.0.next_u64()
        }
        pub(crate) fn float(&mut self) -> f64 {
            (self.next() % 2_000_000) as f64 / 100.0 - 10_000.0
        }
        pub(crate) fn zombie(&mut self, with_pos: bool) -> SavedZombie {
            SavedZombie {
                record: ZombieRecord {
                    kind: ["zombie", "fast_zombie", "armored_zombie"][(self.next() % 3) as usize]
                        .into(),
                    health: (self.next() % 450) as f32 + 0.5,
                    fire_ticks: (self.next() % 200) as u16,
                    equipment: Equipment {
                        helmet: self.next().is_multiple_of(2).then(|| Helmet {
                            kind: ArmourTier::ALL[(self.next() % 6) as usize],
                            durability: (self.next() % 400) as u16,
                        }),
                        body: [0, 1, 2].map(|_| {
                            let n = (self.next() % 8) as usize;
                            ArmourTier::ALL.get(n).copied()
                        }),
                        weapon: ZombieWeapon::ALL.get((self.next() % 3) as usize).copied(),
                    },
                },
                pos: with_pos.then(|| DVec3::new(self.float(), self.float() / 100.0, self.float())),
                hunt: with_pos && self.next().is_multiple_of(3),
            }
        }
    }

    #[test]
    fn every_zombie_field_survives_a_round_trip_through_nbt_bytes() {
        let mut g = Gen::new(0x1234_5678_9ABC_DEF1);
        for case in 0..200 {
            let saved = g.zombie(case % 2 == 0);
            let mut bytes = Vec::new();
            saved.to_nbt().to_binary(&mut bytes, "").unwrap();
            let (back, _) = Compound::from_binary(&mut bytes.as_slice()).unwrap();
            assert_eq!(SavedZombie::from_nbt(&back).unwrap(), saved, "case {case}");
        }
    }

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
        assert!(crate::save::entities::is_ours(&e));
    }
}
