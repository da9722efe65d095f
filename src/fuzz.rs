//! The doors through which bytes from outside come in, one entry point each for the fuzz
//! targets in `fuzz/` (`scripts/fuzz.sh`): each hands its input to the code the server runs on
//! such bytes, the way the server meets them. Whatever the bytes, none may panic, hang or
//! allocate without bound; the server's own error paths (a refusal, a file kept aside) are
//! fine.

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

use crate::config::Config;
use crate::light::ChunkLight;
use crate::world::anvil::{self, BiomeNames, ChunkEdit, EntityRegions, Regions, SectionEdit};

/// A folder of this process's own under the temp dir, emptied for each input.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("horde-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    dir
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().expect("a file in a folder")).expect("writable");
    std::fs::write(path, bytes).expect("writable");
}

/// `region/r.0.0.mca` and `entities/r.0.0.mca`: every chunk read and decoded as the loader
/// does, then a save writing a changed chunk and entities into the same files.
pub fn region_file(data: &[u8]) {
    let dir = scratch();
    write(&dir.join("region/r.0.0.mca"), data);
    write(&dir.join("entities/r.0.0.mca"), data);
    let regions = Regions::new(&dir);
    let biomes = BiomeNames::default();
    for i in 0..1024 {
        let _ = anvil::load(
            &regions,
            &biomes,
            ChunkPos::new(i % 32, i / 32),
            valence::protocol::CompressionThreshold::default(),
        );
    }
    let section = |index| {
        let palette = |name: &str| {
            let mut entry = Compound::new();
            entry.insert("Name", name);
            entry
        };
        let mut block_states = Compound::new();
        block_states.insert("palette", List::Compound(vec![palette("minecraft:stone")]));
        let mut biomes = Compound::new();
        biomes.insert("palette", List::String(vec!["minecraft:plains".into()]));
        SectionEdit {
            index,
            block_states,
            biomes,
        }
    };
    // A chunk patched (one section, over what the file holds) and one written whole.
    let _ = regions.write(&[
        ChunkEdit {
            pos: ChunkPos::new(0, 0),
            sections: vec![section(4)],
            whole: false,
            heightmaps: Compound::new(),
            light: Some(ChunkLight::dark()),
            kept: Vec::new(),
        },
        ChunkEdit {
            pos: ChunkPos::new(1, 0),
            sections: (0..anvil::SECTIONS).map(section).collect(),
            whole: true,
            heightmaps: Compound::new(),
            light: Some(ChunkLight::dark()),
            kept: Vec::new(),
        },
    ]);
    let mut zombie = Compound::new();
    zombie.insert("id", "minecraft:zombie");
    let entities = BTreeMap::from([
        (ChunkPos::new(0, 0), vec![zombie]),
        (ChunkPos::new(2, 0), Vec::new()),
    ]);
    let _ = EntityRegions::new(&dir).write(
        &entities,
        |e| matches!(e.get("id"), Some(Value::String(id)) if id == "minecraft:zombie"),
    );
}

/// The world save's `data/horde_world.dat`, `horde_packs.dat` and `horde_items.dat` (each given
/// the same bytes), read as at start.
pub fn world_data(data: &[u8]) {
    let dir = scratch();
    for name in ["horde_world.dat", "horde_packs.dat", "horde_items.dat"] {
        write(&dir.join("data").join(name), data);
    }
    let config = Config::default();
    let mut clock = crate::time::WorldClock::new(config.time.day_length_ticks, 0);
    let mut phase = crate::daylight::Phase::new(0, 24_000, 0);
    let mut weather = crate::weather::Weather::new(0);
    let _ = crate::save::load_world(&dir, &mut [&mut clock, &mut phase, &mut weather]);
    let mut app = App::new();
    app.insert_resource(crate::zombie::ZombieKinds::new(&config.zombies.types))
        .insert_resource(crate::pack::Packs::default())
        .insert_resource(crate::hunt::Hunts::default())
        .init_resource::<crate::noise::Lights>()
        .insert_resource(config);
    crate::pack::save::register(&mut app);
    crate::hunt::save::register(&mut app);
    crate::items::save::register(&mut app);
    crate::experience::save::register(&mut app);
    crate::noise::save::register(&mut app);
    let _ = crate::save::load(&dir, &mut app);
}

/// A player's `playerdata/<uuid>.dat`, read as when the player joins.
pub fn player_data(data: &[u8]) {
    let dir = scratch();
    let id = UniqueId::default();
    let file = crate::save::player_file(&dir, id);
    write(file.path(), data);
    let _ = file.load_as(crate::player::save::SavedPlayer::from_nbt);
}

/// The access lists (`whitelist.json`, `ops.json`, `banned-players.json`, `banned-ips.json`):
/// the input split at 0xFF bytes (which UTF-8 never holds) into up to four files, read at
/// start and written back as an edit would.
pub fn access_lists(data: &[u8]) {
    use crate::access::lists::{AccessLists, ListFile};
    let dir = scratch();
    let mut parts = data.split(|b| *b == 0xFF);
    for file in ListFile::ALL {
        write(&dir.join(file.name()), parts.next().unwrap_or_default());
    }
    if let Ok(lists) = AccessLists::load(&dir, true) {
        for file in ListFile::ALL {
            let _ = lists.json(file);
        }
    }
}

/// `config.toml`, read at start and by `reload`.
pub fn config(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = Config::parse(text);
    }
}

/// What an RCON client sends: frames read until the stream ends or one is refused, each body
/// answered back (split into frames on character bounds, as a long answer is).
pub fn rcon(data: &[u8]) {
    use crate::console::rcon::{responses, Frame};
    let mut stream = Cursor::new(data);
    while let Ok(Some(frame)) = Frame::read(&mut stream) {
        for answer in responses(frame.id, &frame.body.repeat(4)) {
            let _ = answer.encode();
        }
    }
}

/// One UDP packet to the query port.
pub fn query(data: &[u8]) {
    let _ = crate::status::query::parse(data);
}

/// What a client sends the door in front of the game's listener before its login is judged.
pub fn proxy_login(data: &[u8]) {
    crate::access::proxy::fuzz_login(data);
}

/// One console or RCON command line.
pub fn console_line(data: &[u8]) {
    if let Ok(line) = std::str::from_utf8(data) {
        let _ = crate::console::command::parse(line);
    }
}
