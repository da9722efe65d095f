//! The items on the ground in the save: in `horde_items.dat`'s `Items` list, which the
//! experience orbs share, and in `entities/`, both in vanilla's item entity layout. Read back
//! from the first at start, and dropped again once the overworld exists.

use valence::entity::item::Stack;
use valence::log::{info, warn};
use valence::nbt::Compound;
use valence::prelude::*;

use super::GroundItem;
use crate::common::events::DropItem;
use crate::common::stacks::ItemRecord;
use crate::save::entities::{uuid_array, TAG};
use crate::save::{entries_with_id, DataFile, RestorePart, SaveApp, SaveOut, SavePart};
use crate::schedule::TickSet;
use crate::world::Overworld;

pub fn register(app: &mut App) {
    app.add_save_part(snapshot)
        .add_load_part(DataFile::Items, read)
        .add_systems(Update, restore_items.in_set(TickSet::World));
}

/// The items on the ground, with their entity's UUID.
struct GroundItems(Vec<(uuid::Uuid, ItemRecord)>);

fn snapshot(world: &mut World) -> Box<dyn SavePart> {
    let items = world
        .query_filtered::<(&Position, &Stack, &GroundItem, &UniqueId), Without<Despawned>>()
        .iter(world)
        .map(|(pos, stack, item, id)| {
            let record = ItemRecord {
                stack: stack.0.clone(),
                pos: pos.0,
                velocity: item.velocity,
                age: item.age,
                pickup_delay: item.pickup_delay,
            };
            (id.0, record)
        })
        .collect();
    Box::new(GroundItems(items))
}

impl SavePart for GroundItems {
    fn write(&self, out: &mut SaveOut) {
        out.list(DataFile::Items, "Items");
        for (uuid, item) in &self.0 {
            let entity = item.to_nbt(uuid_array(*uuid), TAG);
            out.list(DataFile::Items, "Items").push(entity.clone());
            out.entity(item.pos, entity);
        }
    }
}

/// Items read from the save, dropped again once the overworld exists.
#[derive(Resource, Debug)]
struct PendingItems(Vec<ItemRecord>);

/// An item that cannot be read is left out with a warning.
fn read(root: &Compound) -> Result<Box<dyn RestorePart>, String> {
    let items = entries_with_id(root, "Items", ItemRecord::ID)
        .filter_map(|entry| match ItemRecord::from_nbt(entry) {
            Ok(item) => Some(item),
            Err(e) => {
                warn!("an item in {} is left out: {e}", DataFile::Items.name());
                None
            }
        })
        .collect();
    Ok(Box::new(PendingItems(items)))
}

impl RestorePart for PendingItems {
    fn restore(self: Box<Self>, world: &mut World) {
        info!("{} items on the ground", self.0.len());
        world.insert_resource(*self);
    }
}

fn restore_items(
    mut commands: Commands,
    pending: Option<ResMut<PendingItems>>,
    layers: Query<(), With<Overworld>>,
    mut drops: EventWriter<DropItem>,
) {
    let (Some(mut pending), false) = (pending, layers.is_empty()) else {
        return;
    };
    drops.send_batch(pending.0.drain(..).map(DropItem));
    commands.remove_resource::<PendingItems>();
}
