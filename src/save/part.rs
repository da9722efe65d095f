//! The one interface between the save and the plugins whose state it keeps. Each plugin
//! registers its share in its `build`: a function that copies it off the world on the tick
//! (cheap), returning a [`SavePart`] that turns itself into entries of the save's files on the
//! writer's thread; and a function that reads its entries back at start. The files are shared
//! (`horde_world.dat` holds the clock, the phase, the weather and the lights), so a share is
//! made of entries: keys of a data file's root, entities of `entities/`, keys of a player's
//! file.

use std::path::Path;

use bevy_ecs::world::EntityMut;
use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

use super::{SaveFile, Saved};

/// Format versions of `horde_world.dat`, `horde_packs.dat` (2: random streams kept as seed
/// and draws) and `horde_items.dat`.
const WORLD_FORMAT: i32 = 1;
const PACKS_FORMAT: i32 = 2;
const ITEMS_FORMAT: i32 = 1;

/// A data file of the world save, under `data/`, as vanilla keeps its own `data/*.dat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataFile {
    /// `horde_world.dat`: the clock, the escalation phase, the weather, the lights placed.
    World,
    /// `horde_packs.dat`: the packs, the loose zombies, the running hunt.
    Packs,
    /// `horde_items.dat`: the items and experience orbs on the ground.
    Items,
}

impl DataFile {
    /// In the order a save writes them.
    pub const ALL: [DataFile; 3] = [DataFile::World, DataFile::Packs, DataFile::Items];

    pub fn name(self) -> &'static str {
        match self {
            DataFile::World => "horde_world.dat",
            DataFile::Packs => "horde_packs.dat",
            DataFile::Items => "horde_items.dat",
        }
    }

    /// The file's format version, raised when an entry changes in a way older readers
    /// would misread.
    fn format(self) -> i32 {
        match self {
            DataFile::World => WORLD_FORMAT,
            DataFile::Packs => PACKS_FORMAT,
            DataFile::Items => ITEMS_FORMAT,
        }
    }

    pub fn at(self, world_dir: &Path) -> SaveFile {
        SaveFile::new(world_dir.join("data").join(self.name()), self.format())
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One plugin's share of a save, copied off the world on the tick.
pub trait SavePart: Send {
    /// Writes the share's entries, on the writer's thread.
    fn write(&self, out: &mut SaveOut);
}

/// One plugin's share of a data file, read at start: every share of a file is read before any
/// is restored, so that a file one of them cannot read is set aside whole for its previous
/// copy.
pub trait RestorePart {
    fn restore(self: Box<Self>, world: &mut World);
}

/// One plugin's share of a player's `playerdata/<uuid>.dat`, copied on the tick.
pub trait PlayerPart: Send {
    fn write(&self, player: &mut Compound);
}

/// One plugin's share of a player's file, read as they join.
pub trait RestorePlayer: Send {
    fn restore(self: Box<Self>, player: &mut EntityMut);
}

/// Copies a share off the world.
pub type SnapshotPart = fn(&mut World) -> Box<dyn SavePart>;
/// Reads a share from its file's root; an error makes the whole file unreadable.
pub type ReadPart = fn(&Compound) -> Result<Box<dyn RestorePart>, String>;
/// Copies a player's share off them; `None` when they lack it, and then their file is not
/// written (a player half made is not saved).
pub type SnapshotPlayer = fn(EntityRef) -> Option<Box<dyn PlayerPart>>;
pub type ReadPlayer = fn(&Compound) -> Result<Box<dyn RestorePlayer>, String>;

/// What the plugins registered.
#[derive(Resource, Default)]
pub(super) struct SaveParts {
    pub snapshots: Vec<SnapshotPart>,
    pub readers: Vec<(DataFile, ReadPart)>,
    pub players: Vec<(SnapshotPlayer, ReadPlayer)>,
}

/// How a plugin registers its share.
pub trait SaveApp {
    fn add_save_part(&mut self, snapshot: SnapshotPart) -> &mut Self;
    fn add_load_part(&mut self, file: DataFile, read: ReadPart) -> &mut Self;
    fn add_player_part(&mut self, snapshot: SnapshotPlayer, read: ReadPlayer) -> &mut Self;
}

impl SaveApp for App {
    fn add_save_part(&mut self, snapshot: SnapshotPart) -> &mut Self {
        parts(self).snapshots.push(snapshot);
        self
    }

    fn add_load_part(&mut self, file: DataFile, read: ReadPart) -> &mut Self {
        parts(self).readers.push((file, read));
        self
    }

    fn add_player_part(&mut self, snapshot: SnapshotPlayer, read: ReadPlayer) -> &mut Self {
        parts(self).players.push((snapshot, read));
        self
    }
}

fn parts(app: &mut App) -> Mut<'_, SaveParts> {
    app.world.get_resource_or_insert_with(SaveParts::default)
}

/// A save on its way to disk: what the parts wrote, on the writer's thread.
#[derive(Default)]
pub struct SaveOut {
    roots: [Compound; DataFile::ALL.len()],
    /// horde's entities for `entities/`, where they are, each tagged [`super::entities::TAG`].
    pub(super) entities: Vec<(DVec3, Compound)>,
    /// What the save holds, for its report; parts count what they wrote.
    pub saved: Saved,
}

impl SaveOut {
    /// The root of `file`, for the part's keys.
    pub fn root(&mut self, file: DataFile) -> &mut Compound {
        &mut self.roots[file.index()]
    }

    /// The list of compounds at `key` in `file`, which several parts may fill (the items and
    /// orbs of `horde_items.dat`); made empty if no part has written it yet.
    pub fn list(&mut self, file: DataFile, key: &str) -> &mut Vec<Compound> {
        let root = self.root(file);
        if !matches!(root.get(key), Some(Value::List(List::Compound(_)))) {
            root.insert(key, Value::List(List::Compound(Vec::new())));
        }
        match root.get_mut(key) {
            Some(Value::List(List::Compound(list))) => list,
            _ => unreachable!("made a list of compounds above"),
        }
    }

    /// An entity for `entities/`, at `at`.
    pub fn entity(&mut self, at: DVec3, entity: Compound) {
        self.entities.push((at, entity));
    }
}

/// The entities of type `id` in the list at `key` of a root: how the plugins that share a list
/// each take their own.
pub fn entries_with_id<'a>(
    root: &'a Compound,
    key: &str,
    id: &'a str,
) -> impl Iterator<Item = &'a Compound> + 'a {
    let list = match root.get(key) {
        Some(Value::List(List::Compound(list))) => list.as_slice(),
        _ => &[],
    };
    list.iter()
        .filter(move |e| matches!(e.get("id"), Some(Value::String(s)) if s == id))
}

/// A resource that keeps its own keys of `horde_world.dat`'s root. The clock, the phase and
/// the weather are read by `build_base`, before any plugin; see [`super::load_world`].
pub trait WorldKeys {
    fn save(&self, root: &mut Compound);
    fn load(&mut self, root: &Compound);
}

/// A [`WorldKeys`] share: its keys, written on the tick (a handful of values).
struct Keys(Compound);

impl SavePart for Keys {
    fn write(&self, out: &mut SaveOut) {
        out.root(DataFile::World).append(&mut self.0.clone());
    }
}

/// The share of `horde_world.dat` that `keys` keep, copied now.
pub fn world_keys(keys: &dyn WorldKeys) -> Box<dyn SavePart> {
    let mut root = Compound::new();
    keys.save(&mut root);
    Box::new(Keys(root))
}

/// A [`WorldKeys`] resource's keys read at start, put back into it.
struct LoadedKeys<R>(Compound, std::marker::PhantomData<R>);

impl<R: Resource + WorldKeys> RestorePart for LoadedKeys<R> {
    fn restore(self: Box<Self>, world: &mut World) {
        if let Some(mut resource) = world.get_resource_mut::<R>() {
            resource.load(&self.0);
        }
    }
}

/// Reads the keys of resource `R` from `horde_world.dat`, for [`SaveApp::add_load_part`].
pub fn read_world_keys<R: Resource + WorldKeys>(
    root: &Compound,
) -> Result<Box<dyn RestorePart>, String> {
    Ok(Box::new(LoadedKeys::<R>(
        root.clone(),
        std::marker::PhantomData,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_share_a_list_and_find_their_own_entries() {
        let mut out = SaveOut::default();
        let entity = |id: &str| {
            let mut e = Compound::new();
            e.insert("id", id.to_string());
            e
        };
        out.list(DataFile::Items, "Items")
            .push(entity("minecraft:item"));
        out.list(DataFile::Items, "Items")
            .push(entity("minecraft:experience_orb"));
        out.list(DataFile::Items, "Items")
            .push(entity("minecraft:item"));
        let root = out.root(DataFile::Items).clone();
        assert_eq!(entries_with_id(&root, "Items", "minecraft:item").count(), 2);
        assert_eq!(entries_with_id(&root, "Other", "minecraft:item").count(), 0);
        assert!(out.root(DataFile::World).is_empty());
    }
}
