//! `playerdata/<uuid>.dat`: one file a player, in vanilla's layout, made of the plugins'
//! shares ([`super::PlayerPart`]): written when they leave and at every save, read when they
//! join, so that a player keeps what they had across reconnects and restarts.

use std::path::Path;

use valence::log::{error, info, warn};
use valence::nbt::Compound;
use valence::prelude::*;

use super::part::{PlayerPart, SaveParts, SnapshotPlayer};
use super::SaveFile;
use crate::access::offline::{legacy_offline_uuid, offline_uuid};
use crate::world::WorldDir;

/// Format of `playerdata/*.dat`.
const PLAYER_FORMAT: i32 = 1;

/// `playerdata/<uuid>.dat`: one player's file.
pub fn player_file(world_dir: &Path, id: UniqueId) -> SaveFile {
    let name = format!("{}.dat", id.0.hyphenated());
    SaveFile::new(world_dir.join("playerdata").join(name), PLAYER_FORMAT)
}

fn snapshots(world: &World) -> Vec<SnapshotPlayer> {
    world
        .get_resource::<SaveParts>()
        .map(|parts| {
            parts
                .players
                .iter()
                .map(|(snapshot, _)| *snapshot)
                .collect()
        })
        .unwrap_or_default()
}

/// One player's shares, copied now; `None` when one is missing.
fn snapshot_player(
    world: &World,
    snapshots: &[SnapshotPlayer],
    player: Entity,
) -> Option<Vec<Box<dyn PlayerPart>>> {
    let player = world.get_entity(player)?;
    snapshots.iter().map(|snapshot| snapshot(player)).collect()
}

/// Every player online, for the save.
pub(super) fn snapshot_all(world: &mut World) -> Vec<(UniqueId, Vec<Box<dyn PlayerPart>>)> {
    let snapshots = snapshots(world);
    let online: Vec<(Entity, UniqueId)> = world
        .query_filtered::<(Entity, &UniqueId), With<Client>>()
        .iter(world)
        .map(|(entity, id)| (entity, *id))
        .collect();
    online
        .into_iter()
        .filter_map(|(entity, id)| Some((id, snapshot_player(world, &snapshots, entity)?)))
        .collect()
}

/// A player's file from their shares.
pub(super) fn player_nbt(parts: &[Box<dyn PlayerPart>]) -> Compound {
    let mut player = Compound::new();
    for part in parts {
        part.write(&mut player);
    }
    player
}

/// A joining player gets back what their file holds, every share of it, or, when one share
/// cannot read it (nor its previous copy), nothing: they start afresh. Put back as commands,
/// after what joining gave them this tick.
pub(super) fn restore_players(
    mut commands: Commands,
    joined: Query<(Entity, &UniqueId, &Username), Added<Client>>,
    parts: Option<Res<SaveParts>>,
    dir: Res<WorldDir>,
) {
    let Some(parts) = parts else {
        return;
    };
    for (entity, id, name) in &joined {
        adopt_legacy_file(&dir.0, *id, &name.0);
        let read = player_file(&dir.0, *id).load_as(|root| {
            parts
                .players
                .iter()
                .map(|(_, read)| read(root))
                .collect::<Result<Vec<_>, _>>()
        });
        let shares = match read {
            Ok(Some(shares)) => shares,
            Ok(None) => continue,
            Err(e) => {
                warn!(
                    "{}'s saved data is unusable, they start afresh: {e:#}",
                    name.0
                );
                continue;
            }
        };
        commands.add(move |world: &mut World| {
            if let Some(mut player) = world.get_entity_mut(entity) {
                for share in shares {
                    share.restore(&mut player);
                }
            }
        });
    }
}

/// A player without an account whose file an older horde kept under another UUID (see
/// [`crate::access::offline`]) finds it under vanilla's: moved on their first join, once.
fn adopt_legacy_file(world_dir: &Path, id: UniqueId, name: &str) {
    if id.0 != offline_uuid(name) {
        return;
    }
    let file = player_file(world_dir, id);
    let legacy = player_file(world_dir, UniqueId(legacy_offline_uuid(name)));
    if file.path().exists() || !legacy.path().exists() {
        return;
    }
    match legacy.move_to(&file) {
        Ok(()) => info!(
            "{name}'s playerdata moved to vanilla's offline UUID {}",
            id.0.hyphenated()
        ),
        Err(e) => warn!(
            "{name}'s playerdata under horde's old UUID cannot be moved to {}: {e}",
            file.path().display()
        ),
    }
}

/// A player who leaves is written to their file at once (off the tick).
pub(super) fn save_leaving_players(world: &World, mut left: RemovedComponents<Client>) {
    let snapshots = snapshots(world);
    for entity in left.iter() {
        let (Some(id), Some(parts)) = (
            world.get::<UniqueId>(entity),
            snapshot_player(world, &snapshots, entity),
        ) else {
            continue;
        };
        let file = player_file(&world.resource::<WorldDir>().0, *id);
        let written = std::thread::Builder::new()
            .name("playerdata".into())
            .spawn(move || {
                if let Err(e) = file.write(&player_nbt(&parts)) {
                    error!("saving a player who left failed: {e:#}");
                }
            });
        if let Err(e) = written {
            error!("saving a player who left failed: cannot start its thread: {e}");
        }
    }
}
