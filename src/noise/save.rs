//! The lights players placed, kept in `horde_world.dat` (`PlacedLights`: x, y, z of each; none
//! in an older save).

use valence::nbt::{Compound, Value};
use valence::prelude::*;

use super::Lights;
use crate::save::{read_world_keys, world_keys, DataFile, SaveApp, WorldKeys};

pub fn register(app: &mut App) {
    app.add_save_part(|world| world_keys(world.resource::<Lights>()))
        .add_load_part(DataFile::World, read_world_keys::<Lights>);
}

impl WorldKeys for Lights {
    fn save(&self, root: &mut Compound) {
        root.insert("PlacedLights", Value::IntArray(self.to_ints()));
    }

    fn load(&mut self, root: &Compound) {
        if let Some(Value::IntArray(ints)) = root.get("PlacedLights") {
            *self = Lights::from_ints(ints);
        }
    }
}
