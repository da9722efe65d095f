//! One experience orb as a record, for saves, written as vanilla 1.20.1 writes an
//! `ExperienceOrb` (`minecraft:experience_orb` with `Value`, `Count`, `Age`), so that the same
//! compound serves horde's own file and the world's `entities/` regions.

use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

use super::rules::LIFETIME;
use crate::common::entity::{entity_header, pos_and_motion};

/// An orb in the world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbRecord {
    pub value: u32,
    pub pos: DVec3,
    /// Blocks a tick.
    pub velocity: DVec3,
    pub age: u32,
}

/// The entity id vanilla gives orbs in saves.
pub const ID: &str = "minecraft:experience_orb";

impl OrbRecord {
    /// Vanilla's compound, with `tag` marking it as one of horde's.
    pub fn to_nbt(&self, uuid: [i32; 4], tag: &str) -> Compound {
        let mut e = entity_header(ID, self.pos, self.velocity, [0.0; 2], uuid);
        e.insert("OnGround", self.velocity.y == 0.0);
        e.insert("Tags", List::String(vec![tag.to_string()]));
        e.insert("Health", 5i16);
        e.insert("Age", self.age.min(i16::MAX as u32) as i16);
        e.insert("Value", self.value.min(i16::MAX as u32) as i16);
        e.insert("Count", 1i32);
        e
    }

    /// Reads one back; a position that is not three finite numbers or a value that is not
    /// positive is refused.
    pub fn from_nbt(e: &Compound) -> Result<Self, String> {
        let (pos, velocity) = pos_and_motion(e)?;
        let value = match e.get("Value") {
            Some(Value::Short(v)) if *v > 0 => *v as u32,
            _ => return Err("Value missing or not positive".into()),
        };
        let age = match e.get("Age") {
            Some(Value::Short(v)) => (*v).max(0) as u32,
            _ => 0,
        };
        Ok(Self {
            value,
            pos,
            velocity,
            age: age.min(LIFETIME),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_orb_survives_a_round_trip_in_vanillas_layout() {
        let orb = OrbRecord {
            value: 17,
            pos: DVec3::new(3.5, 64.0, -2.25),
            velocity: DVec3::new(0.01, 0.0, 0.0),
            age: 321,
        };
        let nbt = orb.to_nbt([1, 2, 3, 4], "horde");
        let mut bytes = Vec::new();
        nbt.to_binary(&mut bytes, "").unwrap();
        let (back, _) = Compound::from_binary(&mut bytes.as_slice()).unwrap();
        assert_eq!(OrbRecord::from_nbt(&back).unwrap(), orb);
        assert_eq!(back.get("id"), Some(&Value::String(ID.into())));
        assert_eq!(back.get("Value"), Some(&Value::Short(17)));
        let mut broken = back.clone();
        broken.insert("Value", 0i16);
        assert!(OrbRecord::from_nbt(&broken).is_err());
    }
}
