//! Reading a saved compound's keys strictly: a key missing or of another type is an error
//! naming it, for the parts whose file is unreadable without it; and leniently, as vanilla
//! reads a player's file: a key missing or odd counts as none.

use valence::nbt::{Compound, List, Value};

pub fn int(c: &Compound, key: &str) -> Result<i32, String> {
    match c.get(key) {
        Some(Value::Int(v)) => Ok(*v),
        _ => Err(format!("{key} missing or not an int")),
    }
}

pub fn long(c: &Compound, key: &str) -> Result<i64, String> {
    match c.get(key) {
        Some(Value::Long(v)) => Ok(*v),
        _ => Err(format!("{key} missing or not a long")),
    }
}

pub fn double(c: &Compound, key: &str) -> Result<f64, String> {
    match c.get(key) {
        Some(Value::Double(v)) if v.is_finite() => Ok(*v),
        _ => Err(format!("{key} missing or not a number")),
    }
}

pub fn string(c: &Compound, key: &str) -> Result<String, String> {
    match c.get(key) {
        Some(Value::String(v)) => Ok(v.clone()),
        _ => Err(format!("{key} missing or not a string")),
    }
}

pub fn compounds<'a>(c: &'a Compound, key: &str) -> Result<&'a [Compound], String> {
    match c.get(key) {
        Some(Value::List(List::Compound(v))) => Ok(v),
        Some(Value::List(List::End)) => Ok(&[]),
        _ => Err(format!("{key} missing or not a list of compounds")),
    }
}

/// A list of compounds to save at a key.
pub fn list(items: Vec<Compound>) -> Value {
    Value::List(List::Compound(items))
}

/// Draws taken from a saved random stream (`Draws`); none in a format-1 `horde_packs.dat`,
/// which kept a generator's state (`Rng`) instead, so its stream starts over from its seed.
pub fn draws(c: &Compound) -> Result<u64, String> {
    match c.get("Draws") {
        None if c.contains_key("Rng") => Ok(0),
        _ => Ok(long(c, "Draws")? as u64),
    }
}

/// An int (or a short, as older files have some) at `key`, leniently.
pub fn int_or_none(c: &Compound, key: &str) -> Option<i32> {
    match c.get(key) {
        Some(Value::Int(v)) => Some(*v),
        Some(Value::Short(v)) => Some(*v as i32),
        _ => None,
    }
}

/// A finite float at `key`, leniently.
pub fn float_or_none(c: &Compound, key: &str) -> Option<f32> {
    match c.get(key) {
        Some(Value::Float(v)) if v.is_finite() => Some(*v),
        _ => None,
    }
}
