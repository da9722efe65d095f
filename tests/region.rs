//! The world save holds the terrain, headless: a changed chunk is kept loaded until a save has
//! written it and comes back from the region file; a corrupt chunk is reported, its region
//! file kept aside, the chunk regenerated, and nothing else in the file lost.

mod support;

use fastanvil::Region;
use horde::world::{ChunkLifecycle, Overworld, SPAWN_CHUNK_RADIUS};
use valence::prelude::*;

fn loaded(app: &mut App, pos: ChunkPos) -> bool {
    app.world
        .query_filtered::<&ChunkLayer, With<Overworld>>()
        .single(&app.world)
        .chunk(pos)
        .is_some()
}

#[test]
fn a_changed_chunk_stays_loaded_until_saved_and_is_read_back_from_the_region_file() {
    let mut config = horde::config::Config::default();
    config.spawning.enabled = false;
    config.chunks.retention_ticks = 5;
    let mut h = support::headless::harness_with(config);
    let s = h.spawn_point();
    // Two loaded chunks outside the spawn chunks (which never unload).
    let mut outside: Vec<ChunkPos> = h
        .app
        .world
        .query_filtered::<&ChunkLayer, With<Overworld>>()
        .single(&h.app.world)
        .chunks()
        .map(|(pos, _)| pos)
        .filter(|pos| pos.x.abs() > SPAWN_CHUNK_RADIUS || pos.z.abs() > SPAWN_CHUNK_RADIUS)
        .collect();
    outside.sort_by_key(|p| (p.x, p.z));
    let (edited, plain) = (outside[0], outside[1]);
    let at = BlockPos::new(edited.x * 16 + 1, s.y as i32 + 40, edited.z * 16 + 1);
    let answer = h.run(&format!(
        "fill {} {} {} {0} {1} {2} glowstone",
        at.x, at.y, at.z
    ));
    assert!(answer.starts_with("filled=1 "), "{answer}");

    // The player goes far away: the plain chunk goes, the changed one waits for a save.
    h.app.world.get_mut::<Position>(h.client).unwrap().0 = DVec3::new(3000.5, 200.0, 3000.5);
    horde::headless::run_until(&mut h.app, "the plain chunk is dropped", |app| {
        !loaded(app, plain)
    });
    for _ in 0..20 {
        h.app.update();
    }
    assert!(
        loaded(&mut h.app, edited),
        "a chunk with unsaved changes is kept"
    );
    let saved = h.run("save-all");
    assert!(saved.contains(" chunks=1 "), "{saved}");
    horde::headless::run_until(&mut h.app, "the saved chunk is dropped", |app| {
        !loaded(app, edited)
    });

    // Back again: the chunk comes from the region file, glowstone and all.
    h.app.world.get_mut::<Position>(h.client).unwrap().0 = s;
    horde::headless::run_until_loaded(&mut h.app);
    assert_eq!(h.block(at), BlockState::GLOWSTONE);
    assert_eq!(
        h.app
            .world
            .resource::<ChunkLifecycle>()
            .report()
            .split(' ')
            .nth(3),
        Some("failed=0")
    );
}

/// The vanilla fixture region with chunk 1 0's compressed data overwritten; returns the world
/// folder and the original file.
fn world_with_a_corrupt_chunk() -> (support::TempDir, std::path::PathBuf) {
    let dir = support::TempDir::new("corrupt-chunk");
    let region = dir.path().join("region");
    std::fs::create_dir_all(&region).unwrap();
    let fixture = support::needs::vanilla_region("1.19.4");
    let mut bytes = std::fs::read(&fixture).unwrap();
    let slot = 4; // chunk x=1 z=0
    let sector = u32::from_be_bytes([0, bytes[slot], bytes[slot + 1], bytes[slot + 2]]) as usize;
    assert!(sector >= 2, "the fixture has chunk 1 0");
    // Past the 4-byte length and the compression byte: the zlib stream.
    bytes[sector * 4096 + 5..sector * 4096 + 105].fill(0xAB);
    std::fs::write(region.join("r.0.0.mca"), bytes).unwrap();
    (dir, fixture)
}

fn chunk_nbt(path: &std::path::Path, x: usize, z: usize) -> Option<Vec<u8>> {
    let mut region = Region::from_stream(std::fs::File::open(path).unwrap()).unwrap();
    region.read_chunk(x, z).ok().flatten()
}

#[test]
fn a_corrupt_chunk_is_reported_kept_aside_and_regenerated_and_its_neighbours_survive_a_save() {
    let (dir, fixture) = world_with_a_corrupt_chunk();
    let mut config = horde::config::Config::default();
    config.spawning.enabled = false;
    let mut app = horde::headless::start(config, dir.path()).unwrap();
    horde::headless::run_until(&mut app, "the spawn chunks are in", |app| {
        (-SPAWN_CHUNK_RADIUS..=SPAWN_CHUNK_RADIUS).all(|x| {
            (-SPAWN_CHUNK_RADIUS..=SPAWN_CHUNK_RADIUS).all(|z| loaded(app, ChunkPos::new(x, z)))
        })
    });
    let report = app.world.resource::<ChunkLifecycle>().report();
    assert!(report.contains(" failed=1 "), "{report}");
    let region = dir.path().join("region/r.0.0.mca");
    let aside = dir.path().join("region/r.0.0.mca.corrupt");
    assert_eq!(
        std::fs::read(&aside).unwrap(),
        std::fs::read(&region).unwrap()
    );

    // An edit in the regenerated chunk is saved over the corrupt one; its neighbours, vanilla's
    // chunks, are byte for byte what they were.
    let answer = horde::console::execute(
        &mut app.world,
        horde::console::command::parse("fill 20 100 4 20 100 4 glowstone").unwrap(),
    );
    assert!(answer.starts_with("filled=1 "), "{answer}");
    let saved = horde::console::execute(
        &mut app.world,
        horde::console::command::parse("save-all").unwrap(),
    );
    assert!(saved.contains(" chunks=1 "), "{saved}");
    assert!(
        chunk_nbt(&region, 1, 0).is_some(),
        "the chunk is readable now"
    );
    for (x, z) in [(0, 0), (0, 1), (1, 1), (2, 0)] {
        assert_eq!(
            chunk_nbt(&region, x, z),
            chunk_nbt(&fixture, x, z),
            "chunk {x} {z}"
        );
    }
}
