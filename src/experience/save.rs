//! Experience in the save: each player's levels in their `playerdata` file, with vanilla's
//! `XpLevel`, `XpP` and `XpTotal`; the orbs on the ground in `horde_items.dat`'s `Items` list,
//! which the items share, and in `entities/`, as vanilla keeps orbs, put back once the
//! overworld exists.

use bevy_ecs::world::EntityMut;
use valence::log::{info, warn};
use valence::nbt::Compound;
use valence::prelude::*;

use super::record::ID;
use super::rules::MAX_LEVEL;
use super::{Experience, Levels, Orb, OrbRecord, PlaceOrb};
use crate::save::entities::{uuid_array, TAG};
use crate::save::{
    entries_with_id, keys, DataFile, PlayerPart, RestorePart, RestorePlayer, SaveApp, SaveOut,
    SavePart,
};
use crate::schedule::TickSet;
use crate::world::Overworld;

pub fn register(app: &mut App) {
    app.add_save_part(snapshot_orbs)
        .add_load_part(DataFile::Items, read_orbs)
        .add_player_part(snapshot_levels, read_levels)
        .add_systems(Update, restore_orbs.in_set(TickSet::World));
}

impl Levels {
    fn write(&self, c: &mut Compound) {
        c.insert("XpLevel", self.level.min(i32::MAX as u32) as i32);
        c.insert("XpP", self.progress);
        c.insert("XpTotal", self.total.min(i32::MAX as u32) as i32);
    }

    /// Read leniently, as vanilla does: a missing or odd key counts as none, and each is held
    /// to its range.
    fn read(c: &Compound) -> Self {
        let int = |key| keys::int_or_none(c, key);
        let float = |key| keys::float_or_none(c, key);
        Self {
            level: int("XpLevel").map_or(0, |v| (v.max(0) as u32).min(MAX_LEVEL)),
            // Vanilla's bar is below 1; a full one would be a level it was never given.
            progress: float("XpP").map_or(0.0, |v| v.clamp(0.0, 0.999_999)),
            total: int("XpTotal").map_or(0, |v| v.max(0) as u32),
        }
    }
}

impl PlayerPart for Levels {
    fn write(&self, player: &mut Compound) {
        Levels::write(self, player);
    }
}

impl RestorePlayer for Levels {
    fn restore(self: Box<Self>, player: &mut EntityMut) {
        if *self != Levels::default() {
            player.insert(Experience(*self));
        }
    }
}

fn snapshot_levels(player: EntityRef) -> Option<Box<dyn PlayerPart>> {
    let levels = player.get::<Experience>().map(|e| e.0).unwrap_or_default();
    Some(Box::new(levels))
}

fn read_levels(player: &Compound) -> Result<Box<dyn RestorePlayer>, String> {
    Ok(Box::new(Levels::read(player)))
}

/// The orbs on the ground, with their entity's UUID.
struct GroundOrbs(Vec<(uuid::Uuid, OrbRecord)>);

fn snapshot_orbs(world: &mut World) -> Box<dyn SavePart> {
    let orbs = world
        .query_filtered::<(&Position, &Orb, &UniqueId), Without<Despawned>>()
        .iter(world)
        .map(|(pos, orb, id)| {
            let record = OrbRecord {
                value: orb.value,
                pos: pos.0,
                velocity: orb.velocity,
                age: orb.age,
            };
            (id.0, record)
        })
        .collect();
    Box::new(GroundOrbs(orbs))
}

impl SavePart for GroundOrbs {
    fn write(&self, out: &mut SaveOut) {
        for (uuid, orb) in &self.0 {
            let entity = orb.to_nbt(uuid_array(*uuid), TAG);
            out.list(DataFile::Items, "Items").push(entity.clone());
            out.entity(orb.pos, entity);
        }
    }
}

/// Orbs read from the save, put back once the overworld exists.
#[derive(Resource, Debug)]
struct PendingOrbs(Vec<OrbRecord>);

/// An orb that cannot be read is left out with a warning.
fn read_orbs(root: &Compound) -> Result<Box<dyn RestorePart>, String> {
    let orbs = entries_with_id(root, "Items", ID)
        .filter_map(|entry| match OrbRecord::from_nbt(entry) {
            Ok(orb) => Some(orb),
            Err(e) => {
                warn!("an orb in {} is left out: {e}", DataFile::Items.name());
                None
            }
        })
        .collect();
    Ok(Box::new(PendingOrbs(orbs)))
}

impl RestorePart for PendingOrbs {
    fn restore(self: Box<Self>, world: &mut World) {
        info!("{} experience orbs on the ground", self.0.len());
        world.insert_resource(*self);
    }
}

fn restore_orbs(
    mut commands: Commands,
    pending: Option<ResMut<PendingOrbs>>,
    layers: Query<(), With<Overworld>>,
    mut orbs: EventWriter<PlaceOrb>,
) {
    let (Some(mut pending), false) = (pending, layers.is_empty()) else {
        return;
    };
    orbs.send_batch(pending.0.drain(..).map(PlaceOrb));
    commands.remove_resource::<PendingOrbs>();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_survive_a_round_trip_and_odd_keys_are_held_to_range() {
        let levels = Levels {
            level: 17,
            progress: 0.25,
            total: 420,
        };
        let mut player = Compound::new();
        levels.write(&mut player);
        assert_eq!(Levels::read(&player), levels);
        player.insert("XpP", 1.5f32);
        player.insert("XpLevel", -3);
        player.insert("XpTotal", "lots".to_string());
        let back = Levels::read(&player);
        assert!(back.progress < 1.0, "a full bar is not kept");
        assert_eq!((back.level, back.total), (0, 0));
    }
}
