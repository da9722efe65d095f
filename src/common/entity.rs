//! The fields every entity vanilla 1.20.1 saves begins with (`Entity.saveWithoutId`'s `Pos`,
//! `Motion`, `Rotation`, `UUID`, after the `id`), written and read in one place for items,
//! orbs and zombies alike.

use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

/// A saved entity's compound with its `id`, position, motion (blocks a tick), rotation (yaw
/// and pitch) and UUID (as vanilla's four ints); the caller adds its kind's own fields.
pub fn entity_header(
    id: &str,
    pos: DVec3,
    motion: DVec3,
    rotation: [f32; 2],
    uuid: [i32; 4],
) -> Compound {
    let mut e = Compound::new();
    e.insert("id", id);
    e.insert("Pos", List::Double(vec![pos.x, pos.y, pos.z]));
    e.insert("Motion", List::Double(vec![motion.x, motion.y, motion.z]));
    e.insert("Rotation", List::Float(rotation.to_vec()));
    e.insert("UUID", Value::IntArray(uuid.to_vec()));
    e
}

/// A saved entity's `Pos` (three finite numbers, or it is refused) and `Motion` (none if
/// missing, at most 10 blocks a tick).
pub fn pos_and_motion(e: &Compound) -> Result<(DVec3, DVec3), String> {
    let three = |key| match e.get(key) {
        Some(Value::List(List::Double(v))) if v.len() == 3 && v.iter().all(|v| v.is_finite()) => {
            Some(DVec3::new(v[0], v[1], v[2]))
        }
        _ => None,
    };
    let pos = three("Pos").ok_or("Pos missing or not three numbers")?;
    let motion = three("Motion").map_or(DVec3::ZERO, |m| m.clamp_length_max(10.0));
    Ok((pos, motion))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_reads_back() {
        let e = entity_header(
            "minecraft:zombie",
            DVec3::new(1.5, 64.0, -2.5),
            DVec3::new(0.0, -0.08, 0.0),
            [90.0, 0.0],
            [1, 2, 3, 4],
        );
        assert_eq!(
            pos_and_motion(&e),
            Ok((DVec3::new(1.5, 64.0, -2.5), DVec3::new(0.0, -0.08, 0.0)))
        );
        assert_eq!(e.get("UUID"), Some(&Value::IntArray(vec![1, 2, 3, 4])));
        let mut bad = e.clone();
        bad.insert("Pos", List::Double(vec![f64::NAN, 0.0, 0.0]));
        assert!(pos_and_motion(&bad).is_err());
    }
}
