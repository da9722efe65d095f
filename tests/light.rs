//! Vanilla's stored light is the oracle: every chunk of real vanilla worlds is read as horde
//! reads it, lit by horde's engine from its blocks alone and joined to its neighbours, and its
//! light compared, block for block, with the `SkyLight` and `BlockLight` vanilla saved for it;
//! and the light horde serves a chunk with is that light.

mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use horde::light::{light_chunk, ChunkLight, HeldChunks, Kind, SECTIONS};
use horde::world::anvil::{BiomeNames, Loaded};
use horde::world::MIN_Y;
use support::TempDir;
use valence::layer::chunk::{Chunk, UnloadedChunk};
use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

/// The lowest light section's `Y`, the one below the world.
const LOW_SECTION: i32 = MIN_Y / 16 - 1;

/// The block at `x`, `y`, `z` of the chunks held, if its chunk is.
fn block(held: &HeldChunks<UnloadedChunk>, x: i32, y: i32, z: i32) -> Option<BlockState> {
    let chunk = held.blocks(ChunkPos::new(x >> 4, z >> 4))?;
    let from_bottom = u32::try_from(y - MIN_Y)
        .ok()
        .filter(|&y| y < chunk.height());
    Some(from_bottom.map_or(BlockState::AIR, |y| {
        chunk.block_state((x & 15) as u32, y, (z & 15) as u32)
    }))
}

/// A region file of a real vanilla world: name, path, the region it is (x, z).
fn worlds() -> Vec<(&'static str, PathBuf, (i32, i32))> {
    let prismarine = |version: &str| support::needs::vanilla_region(version);
    vec![
        ("vanilla 1.18.2", prismarine("1.18.2"), (0, 0)),
        ("vanilla 1.19.4", prismarine("1.19.4"), (0, 0)),
        (
            "fastanvil's 1.19.4",
            support::needs::crate_file("fastanvil", "resources/1.19.4.mca"),
            (0, 0),
        ),
        (
            "vanilla 1.20.1",
            support::repo().join("tests/fixtures/worlds/1.20.1/r.-1.-2.mca"),
            (-1, -2),
        ),
    ]
}

/// Every chunk's NBT in the region file at `path`, by position.
fn saved_chunks(path: &Path, region: (i32, i32)) -> HashMap<ChunkPos, Compound> {
    let file = std::fs::File::open(path).unwrap();
    let mut file = fastanvil::Region::from_stream(file).unwrap();
    let mut chunks = HashMap::new();
    for x in 0..32 {
        for z in 0..32 {
            let Some(bytes) = file.read_chunk(x, z).unwrap() else {
                continue;
            };
            let (root, _) = Compound::from_binary(&mut bytes.as_slice()).unwrap();
            let pos = ChunkPos::new(region.0 * 32 + x as i32, region.1 * 32 + z as i32);
            chunks.insert(pos, root);
        }
    }
    chunks
}

fn is_full(root: &Compound) -> bool {
    matches!(root.get("Status"), Some(Value::String(s)) if s.trim_start_matches("minecraft:") == "full")
}

fn is_lit(root: &Compound) -> bool {
    matches!(root.get("isLightOn"), Some(Value::Byte(1)))
}

/// Each saved light array of a chunk: its kind, its section's index among the light's, and
/// its bytes.
fn saved_light(root: &Compound) -> Vec<(Kind, usize, Vec<u8>)> {
    let Some(Value::List(List::Compound(sections))) = root.get("sections") else {
        return Vec::new();
    };
    let mut arrays = Vec::new();
    for section in sections {
        let Some(Value::Byte(y)) = section.get("Y") else {
            continue;
        };
        let s = i32::from(*y) - LOW_SECTION;
        if !(0..SECTIONS as i32).contains(&s) {
            continue;
        }
        for (kind, key) in [(Kind::Sky, "SkyLight"), (Kind::Block, "BlockLight")] {
            if let Some(Value::ByteArray(bytes)) = section.get(key) {
                assert_eq!(bytes.len(), 2048, "a {key} array of {} bytes", bytes.len());
                arrays.push((kind, s as usize, bytes.iter().map(|&b| b as u8).collect()));
            }
        }
    }
    arrays
}

/// Counts of one world's comparison, sky then block.
#[derive(Default, Debug)]
struct Tally {
    chunks: usize,
    sections: [usize; 2],
    blocks: [usize; 2],
    differing: [usize; 2],
    /// Differing blocks darker in vanilla's file than in horde's light but no darker than the
    /// light of their own chunk's blocks: light that did not cross a chunk border there.
    not_crossed: [usize; 2],
    /// The first differences, described.
    first: Vec<String>,
    /// Blocks of the same chunks as horde serves them, with the light vanilla saved (joined to
    /// their neighbours as on the tick), compared with the light horde computes: every light
    /// section, both kinds, and the sky's reach down each column.
    kept_blocks: usize,
    kept_differing: usize,
    kept_first: Vec<String>,
}

/// Lights every chunk horde serves from the region file `path` and compares the light of
/// each finished chunk amid finished neighbours with what vanilla saved.
fn compare(path: &Path, region: (i32, i32)) -> Tally {
    let dir = TempDir::new("light-world");
    std::fs::create_dir_all(dir.path().join("region")).unwrap();
    let file = format!("r.{}.{}.mca", region.0, region.1);
    std::fs::copy(path, dir.path().join("region").join(file)).unwrap();
    let saved = saved_chunks(path, region);
    let mut positions: Vec<ChunkPos> = saved.keys().copied().collect();
    positions.sort_by_key(|p| (p.x, p.z));
    // Lit by horde, and as served.
    let (mut world, mut served) = (HeldChunks::new(), HeldChunks::new());
    let mut read = support::horde_reads(dir.path(), &BiomeNames::default(), &positions);
    for pos in &positions {
        if let Some(Loaded::Chunk(found)) = read.remove(pos) {
            world.insert(*pos, found.blocks.clone());
            served.insert_lit(*pos, found.blocks, found.light);
        }
    }
    let finished = |p: &ChunkPos| saved.get(p).is_some_and(|r| is_full(r) && is_lit(r));
    let amid_finished = |pos: &ChunkPos| {
        (-1..=1)
            .flat_map(|dx| (-1..=1).map(move |dz| ChunkPos::new(pos.x + dx, pos.z + dz)))
            .all(|p| finished(&p))
    };
    let mut tally = Tally::default();
    for &pos in positions.iter().filter(|p| amid_finished(p)) {
        let (Some(light), Some(blocks)) = (world.light(pos), world.blocks(pos)) else {
            panic!("chunk {} {} is full yet not served", pos.x, pos.z);
        };
        let alone = light_chunk(|x, y, z| blocks.block_state(x, y, z));
        tally.chunks += 1;
        for (kind, s, bytes) in saved_light(&saved[&pos]) {
            let k = kind as usize;
            tally.sections[k] += 1;
            tally.blocks[k] += 4096;
            let (ours, own) = (&light.layer(kind)[s], &alone.layer(kind)[s]);
            for i in 0..4096 {
                let vanilla = bytes[i >> 1] >> ((i & 1) * 4) & 0xF;
                let got = ours.get(i);
                if got == vanilla {
                    continue;
                }
                tally.differing[k] += 1;
                if (own.get(i)..got).contains(&vanilla) {
                    tally.not_crossed[k] += 1;
                    continue;
                }
                if tally.first.len() < 10 {
                    let (x, z) = (
                        pos.x * 16 + (i & 15) as i32,
                        pos.z * 16 + (i >> 4 & 15) as i32,
                    );
                    let y = (s as i32 + LOW_SECTION) * 16 + (i >> 8) as i32;
                    tally.first.push(format!(
                        "{kind:?} light at {x} {y} {z}: horde {got} vanilla {vanilla}, in {:?}",
                        block(&world, x, y, z)
                    ));
                }
            }
        }
    }
    for &pos in positions.iter().filter(|p| amid_finished(p)) {
        let (Some(served), Some(ours)) = (served.light(pos), world.light(pos)) else {
            continue;
        };
        let mut differ = |what: String| {
            tally.kept_differing += 1;
            if tally.kept_first.len() < 10 {
                tally.kept_first.push(what);
            }
        };
        for kind in [Kind::Sky, Kind::Block] {
            for (s, (a, b)) in served.layer(kind).iter().zip(ours.layer(kind)).enumerate() {
                tally.kept_blocks += 4096;
                for i in (0..4096).filter(|&i| a.get(i) != b.get(i)) {
                    let y = (s as i32 + LOW_SECTION) * 16 + (i >> 8) as i32;
                    differ(format!(
                        "{kind:?} light at {} {y} {}: served {} computed {}",
                        pos.x * 16 + (i & 15) as i32,
                        pos.z * 16 + (i >> 4 & 15) as i32,
                        a.get(i),
                        b.get(i)
                    ));
                }
            }
        }
        for (x, z) in (0..16).flat_map(|x| (0..16).map(move |z| (x, z))) {
            let (a, b) = (served.source_y(x, z), ours.source_y(x, z));
            if a != b {
                differ(format!("sky reach at {x} {z}: served {a} computed {b}"));
            }
        }
    }
    tally
}

/// The light horde computes is vanilla 1.20.1's to the block. Worlds saved by 1.18 and 1.19,
/// whose light engine vanilla replaced in 1.20, differ in one known way: block light that world
/// generation placed beside a chunk border (glow lichen, amethyst, lava in caves) did not
/// always cross into the neighbouring chunk, which the old engine had lit before. There
/// vanilla's file is darker than horde's light, yet never darker than the light of the
/// chunk's own blocks; anything else is a difference. Served as horde serves them (with the
/// light vanilla saved since 1.20, lit again before) and joined, the same chunks hold horde's
/// light exactly, in every section and down every column.
#[test]
fn horde_lights_real_vanilla_worlds_as_vanilla_saved_them() {
    for (name, path, region) in worlds() {
        let t = compare(&path, region);
        eprintln!(
            "{name}: {} chunks; sky: {} sections, {} blocks, {} differing; block: {} sections, \
             {} blocks, {} differing ({} of them light the old engine did not carry across a \
             chunk border)",
            t.chunks,
            t.sections[0],
            t.blocks[0],
            t.differing[0],
            t.sections[1],
            t.blocks[1],
            t.differing[1],
            t.not_crossed[1],
        );
        eprintln!(
            "{name}: served with vanilla's light, {} blocks and 256 columns a chunk compared \
             with horde's, {} differing: {:#?}",
            t.kept_blocks, t.kept_differing, t.kept_first
        );
        assert!(t.chunks > 0, "{name}: no chunk to compare");
        assert!(t.first.is_empty(), "{name}: {:#?}", t.first);
        if name.contains("1.20.1") {
            assert_eq!(t.differing, [0, 0], "{name}");
        }
        assert_eq!(t.kept_differing, 0, "{name}: {:#?}", t.kept_first);
    }
}

/// A chunk of the 1.20.1 world whose saved sky light of section `y` 4 is made all `level`, in
/// a region file of its own; with its position.
fn tampered(dir: &Path, level: u8, data_version: i32) -> ChunkPos {
    let path = support::repo().join("tests/fixtures/worlds/1.20.1/r.-1.-2.mca");
    let saved = saved_chunks(&path, (-1, -2));
    let pos = ChunkPos::new(-24, -36);
    let mut root = saved[&pos].clone();
    root.insert("DataVersion", data_version);
    let Some(Value::List(List::Compound(sections))) = root.get_mut("sections") else {
        panic!("no sections");
    };
    let section = sections
        .iter_mut()
        .find(|s| s.get("Y") == Some(&Value::Byte(4)))
        .expect("section 4");
    section.insert("SkyLight", vec![(level * 17) as i8; 2048]);
    let mut bytes = Vec::new();
    root.to_binary(&mut bytes, "").unwrap();
    std::fs::create_dir_all(dir.join("region")).unwrap();
    let file = std::fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(dir.join("region/r.-1.-2.mca"))
        .unwrap();
    let mut region = fastanvil::Region::create(file).unwrap();
    let (x, z) = (pos.x.rem_euclid(32) as usize, pos.z.rem_euclid(32) as usize);
    region.write_chunk(x, z, &bytes).unwrap();
    pos
}

/// The sky light at the middle of section 4 of the chunk horde serves at `pos` of `dir`, and
/// as horde lights the chunk's blocks.
fn served_sky(dir: &Path, pos: ChunkPos) -> (u8, u8) {
    let Some(Loaded::Chunk(found)) =
        support::horde_reads(dir, &BiomeNames::default(), &[pos]).remove(&pos)
    else {
        panic!("not served");
    };
    let (chunk, light) = (found.blocks, found.light);
    let lit = light_chunk(|x, y, z| chunk.block_state(x, y, z));
    let at = |light: &ChunkLight| light.get(Kind::Sky, 8, 4 * 16 + 8, 8);
    (at(&light), at(&lit))
}

/// A chunk vanilla 1.20 finished and lit is served with the light it saved, whatever it is;
/// one saved before 1.20's light engine is lit again, as vanilla does.
#[test]
fn a_finished_chunk_is_served_with_the_light_vanilla_saved_since_1_20() {
    let dir = TempDir::new("light-saved");
    let pos = tampered(dir.path(), 3, 3465);
    let (served, lit) = served_sky(dir.path(), pos);
    assert_eq!(served, 3);
    assert_ne!(lit, 3);
    let dir = TempDir::new("light-old");
    let pos = tampered(dir.path(), 3, 3337);
    let (served, lit) = served_sky(dir.path(), pos);
    assert_eq!(served, lit);
}

/// Each of `chunks` as horde reads it back from the world folder of `h` is served with the
/// light it holds now.
fn assert_served_as_held(h: &support::headless::Harness, chunks: &[ChunkPos]) {
    let mut read = support::horde_reads(h.world.path(), &BiomeNames::default(), chunks);
    let held = h.app.world.resource::<horde::world::light::Light>();
    for pos in chunks {
        let Some(Loaded::Chunk(found)) = read.remove(pos) else {
            panic!("chunk {} {} is not served from the file", pos.x, pos.z);
        };
        let served = found.light;
        let now = held.chunk(*pos).expect("loaded");
        for kind in [Kind::Sky, Kind::Block] {
            for (s, (a, b)) in served.layer(kind).iter().zip(now.layer(kind)).enumerate() {
                if let Some(i) = (0..4096).find(|&i| a.get(i) != b.get(i)) {
                    let y = (s as i32 + LOW_SECTION) * 16 + (i >> 8) as i32;
                    panic!(
                        "chunk {} {}: {kind:?} light at {} {y} {} served {} held {}",
                        pos.x,
                        pos.z,
                        pos.x * 16 + (i & 15) as i32,
                        pos.z * 16 + (i >> 4 & 15) as i32,
                        a.get(i),
                        b.get(i)
                    );
                }
            }
        }
        for (x, z) in (0..16).flat_map(|x| (0..16).map(move |z| (x, z))) {
            assert_eq!(served.source_y(x, z), now.source_y(x, z), "at {x} {z}");
        }
    }
}

fn save(h: &mut support::headless::Harness) {
    // The light follows the blocks at the end of the tick.
    h.app.update();
    let saved = h.run("save-all");
    assert!(saved.starts_with("saved=true "), "{saved}");
}

/// Chunks horde writes carry the light it serves them with: a chunk it generated, written
/// whole; a vanilla chunk a lamp is hung in, patched; its neighbour, whose blocks are the same
/// but whose light the lamp reaches; and both again once the lamp is gone, so that no stale
/// light is left beside it.
#[test]
fn chunks_read_back_are_served_with_the_light_horde_saved() {
    let mut h = support::headless::harness_on_region(
        &support::repo().join("tests/fixtures/worlds/1.20.1/r.-1.-2.mca"),
        "r.-1.-2.mca",
    );
    let s = h.spawn_point();
    let by_spawn = BlockPos::new(
        s.x.floor() as i32,
        s.y.floor() as i32 + 3,
        s.z.floor() as i32,
    );
    h.fill(by_spawn, by_spawn, "glowstone");
    h.run("tp tester -369 100 -568");
    h.app.update();
    horde::headless::run_until_loaded(&mut h.app);
    // In the air over the village, at the east edge of chunk -24 -36.
    let lamp = BlockPos::new(-369, 100, -568);
    let (lit, beside) = (ChunkPos::new(-24, -36), ChunkPos::new(-23, -36));
    h.fill(lamp, lamp, "glowstone");
    save(&mut h);
    assert_served_as_held(&h, &[ChunkPos::from_block_pos(by_spawn), lit, beside]);
    let light = h.app.world.resource::<horde::world::light::Light>();
    assert_eq!(light.block(BlockPos::new(-368, 100, -568)), Some(14));

    h.fill(lamp, lamp, "air");
    save(&mut h);
    assert_served_as_held(&h, &[lit, beside]);
    let light = h.app.world.resource::<horde::world::light::Light>();
    assert_eq!(light.block(BlockPos::new(-368, 100, -568)), Some(0));
}
