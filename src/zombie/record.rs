//! A zombie as a record and back: what a ghost pack keeps of each member and what the save
//! writes of every zombie. Taken from a living zombie by [`ZombieRecord::capture`] and made
//! into one again by [`ZombieRecord::bundle`], the one place either happens, so that a zombie
//! comes back from a ghost pack or a restart exactly as it went.

use valence::entity::zombie::ZombieEntityBundle;
use valence::prelude::*;

use super::{
    Attack, Body, Burning, Destination, Equipment, Helmet, HopGoal, Lod, March, Shade, Target,
    Vitality, Walker, Zombie, ZombieKinds,
};

/// What survives of one zombie out of the world: its type (an index into [`ZombieKinds`]
/// while the server runs, its name in a save), health, fire and equipment. Sixteen bytes with
/// an index, so a million ghost members fit in a few megabytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZombieRecord<K = u16> {
    pub kind: K,
    pub health: f32,
    /// Ticks of fire left.
    pub fire_ticks: u16,
    pub equipment: Equipment,
}

impl ZombieRecord {
    /// A new zombie of type `kind`: full health, not burning, its type's helmet (the rest of its
    /// outfit is drawn the tick after it is made, by `gear`).
    pub fn fresh(kind: usize, kinds: &ZombieKinds) -> Self {
        let stats = kinds.get(kind);
        Self {
            kind: kind_index(kind),
            health: stats.health,
            fire_ticks: 0,
            equipment: Equipment {
                helmet: stats.helmet.map(Helmet::new),
                ..Default::default()
            },
        }
    }

    /// The record of a living zombie.
    pub fn capture(
        zombie: &Zombie,
        vitality: &Vitality,
        fire: &Burning,
        equipment: &Equipment,
    ) -> Self {
        Self {
            kind: kind_index(zombie.kind),
            health: vitality.0,
            fire_ticks: fire.ticks_left,
            equipment: *equipment,
        }
    }

    /// Everything the zombie needs to walk the world again at `pos` in `layer`; `seed` makes
    /// its wandering reproducible.
    pub fn bundle(&self, layer: Entity, pos: DVec3, seed: u64) -> impl Bundle {
        (
            ZombieEntityBundle {
                layer: EntityLayerId(layer),
                position: Position(pos),
                ..Default::default()
            },
            (
                Zombie {
                    kind: self.kind as usize,
                },
                Vitality(self.health),
                Burning {
                    ticks_left: self.fire_ticks,
                },
                self.equipment,
            ),
            (
                Body::default(),
                Target::default(),
                Destination::default(),
                super::errand::Wander::new(seed),
                Walker::default(),
                HopGoal::default(),
                super::siege::Siege::default(),
                super::SiegeRequest::default(),
                March::default(),
                super::Lure::default(),
                Shade::default(),
                Attack::default(),
                super::attack::Frames::default(),
                super::voice::Stride::default(),
                Lod::new(seed),
            ),
        )
    }
}

impl<K> ZombieRecord<K> {
    /// The same record with its type named another way (by name in a save).
    pub fn with_kind<L>(self, kind: L) -> ZombieRecord<L> {
        ZombieRecord {
            kind,
            health: self.health,
            fire_ticks: self.fire_ticks,
            equipment: self.equipment,
        }
    }
}

/// A type index as records keep it. The table of types only grows by reloads, never near
/// 65,536 entries (config.toml's list is bounded far below).
fn kind_index(kind: usize) -> u16 {
    u16::try_from(kind).unwrap_or(u16::MAX)
}

/// A new zombie of type `kind` at `pos`, as [`ZombieRecord::fresh`] makes it.
pub fn new_zombie(
    layer: Entity,
    pos: DVec3,
    kind: usize,
    kinds: &ZombieKinds,
    seed: u64,
) -> impl Bundle {
    (
        ZombieRecord::fresh(kind, kinds).bundle(layer, pos, seed),
        super::gear::Fresh,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ArmourTier, ZombiesConfig};

    #[test]
    fn a_record_is_small_and_a_fresh_zombie_wears_its_types_helmet() {
        assert_eq!(std::mem::size_of::<ZombieRecord>(), 16);
        let kinds = ZombieKinds::new(&ZombiesConfig::default().types);
        let armored = kinds.find("armored_zombie").unwrap();
        let fresh = ZombieRecord::fresh(armored, &kinds);
        assert_eq!(fresh.health, kinds.get(armored).health);
        assert_eq!(fresh.equipment.helmet, Some(Helmet::new(ArmourTier::Iron)));
        let plain = ZombieRecord::fresh(kinds.find("zombie").unwrap(), &kinds);
        assert_eq!(plain.equipment.helmet, None);
    }

    #[test]
    fn capture_keeps_worn_and_missing_helmets_as_they_are() {
        let zombie = Zombie { kind: 3 };
        let worn = Equipment {
            helmet: Some(Helmet {
                kind: ArmourTier::Iron,
                durability: 7,
            }),
            body: [None, Some(ArmourTier::Golden), None],
            weapon: Some(super::super::gear::ZombieWeapon::IronShovel),
        };
        let record =
            ZombieRecord::capture(&zombie, &Vitality(11.5), &Burning { ticks_left: 40 }, &worn);
        assert_eq!(
            record,
            ZombieRecord {
                kind: 3,
                health: 11.5,
                fire_ticks: 40,
                equipment: worn
            }
        );
        let bare = ZombieRecord::capture(
            &zombie,
            &Vitality(3.0),
            &Burning::default(),
            &Equipment::default(),
        );
        assert_eq!(bare.equipment.helmet, None, "a helmet worn out stays gone");
    }
}
