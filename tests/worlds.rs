//! Real vanilla worlds, none of them made by horde: every chunk horde serves from them holds,
//! section by section and block by block, what a third-party Anvil reader
//! (prismarine-provider-anvil, `scripts/e2e/region-digest.js`) reads from the same file, and
//! the heightmaps vanilla saved there. horde's zombies are saved in `entities/` where a
//! third-party reader finds them, beside a vanilla world's own entities, which are kept.

mod support;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use horde::world::anvil::heightmap::{self, Heightmap};
use horde::world::anvil::{BiomeNames, Loaded};
use sha2::{Digest, Sha256};
use support::TempDir;
use valence::layer::chunk::{Chunk, UnloadedChunk};
use valence::nbt::{Compound, Value};
use valence::prelude::*;

/// One chunk as the third-party reader saw it.
struct Seen {
    pos: ChunkPos,
    status: String,
    /// SHA-256 of each section's blocks, by section Y.
    sections: HashMap<i32, String>,
}

fn digest_script() -> PathBuf {
    support::repo().join("scripts/e2e/region-digest.js")
}

/// The third-party reader's digests of every chunk of `region`.
fn third_party(region: &Path) -> Vec<Seen> {
    let out = Command::new("node")
        .arg(digest_script())
        .arg(region)
        .current_dir(support::repo().join("scripts"))
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            Seen {
                pos: ChunkPos::new(
                    v["x"].as_i64().unwrap() as i32,
                    v["z"].as_i64().unwrap() as i32,
                ),
                status: v["status"].as_str().unwrap_or_default().to_string(),
                sections: v["sections"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(y, h)| (y.parse().unwrap(), h.as_str().unwrap().to_string()))
                    .collect(),
            }
        })
        .collect()
}

/// One section's blocks as the third-party reader writes them, for a failure message.
fn third_party_section(region: &Path, pos: ChunkPos, sy: i32) -> Vec<String> {
    let out = Command::new("node")
        .arg(digest_script())
        .arg(region)
        .args([
            "--section",
            &pos.x.to_string(),
            &pos.z.to_string(),
            &sy.to_string(),
        ])
        .current_dir(support::repo().join("scripts"))
        .output()
        .expect("run node");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// A block as the digest script writes it: `name[key=value,...]`, keys sorted.
fn block_name(state: BlockState) -> String {
    let kind = state.to_kind();
    let mut props: Vec<(&str, &str)> = kind
        .props()
        .iter()
        .filter_map(|&p| Some((p.to_str(), state.get(p)?.to_str())))
        .collect();
    props.sort();
    let props: Vec<String> = props.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{}[{}]", kind.to_str(), props.join(","))
}

/// Section `sy`'s blocks (sections counted from the world's bottom at -4), YZX order.
fn section_blocks(chunk: &UnloadedChunk, sy: i32) -> Vec<String> {
    let base = ((sy + 4) * 16) as u32;
    let mut out = Vec::with_capacity(4096);
    for y in 0..16 {
        for z in 0..16 {
            for x in 0..16 {
                out.push(block_name(chunk.block_state(x, base + y, z)));
            }
        }
    }
    out
}

fn sha(blocks: &[String]) -> String {
    let digest = Sha256::digest(blocks.join("\n").as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A region file of a real world: name, path, the region it is (`r.X.Z.mca`), fewest chunks
/// horde must serve from it.
fn worlds() -> Vec<(&'static str, PathBuf, &'static str, usize)> {
    let prismarine = |version: &str| support::needs::vanilla_region(version);
    vec![
        // Deep ocean.
        ("vanilla 1.18.2", prismarine("1.18.2"), "r.0.0.mca", 55),
        // Forests, a mineshaft with spawners and chests, a bee nest.
        ("vanilla 1.19.4", prismarine("1.19.4"), "r.0.0.mca", 196),
        // Ocean with a shipwreck, ruins and a ruined portal: the fastanvil crate's own test
        // file, in cargo's copy of the crate.
        (
            "fastanvil's 1.19.4",
            support::needs::crate_file("fastanvil", "resources/1.19.4.mca"),
            "r.0.0.mca",
            289,
        ),
        // A village and a ruined portal (tests/fixtures/worlds/README.md).
        (
            "vanilla 1.20.1",
            support::repo().join("tests/fixtures/worlds/1.20.1/r.-1.-2.mca"),
            "r.-1.-2.mca",
            66,
        ),
    ]
}

/// Checks that the heightmaps horde computes for the full chunks it served are vanilla's own,
/// saved in the same file; returns the columns compared.
fn heightmaps_match_vanillas(
    name: &str,
    region: &Path,
    seen: &[Seen],
    read: &HashMap<ChunkPos, Loaded>,
) -> usize {
    let mut file = fastanvil::Region::from_stream(std::fs::File::open(region).unwrap()).unwrap();
    let mut columns = 0;
    for chunk in seen
        .iter()
        .filter(|c| c.status.trim_start_matches("minecraft:") == "full")
    {
        let Loaded::Chunk(found) = &read[&chunk.pos] else {
            continue;
        };
        let blocks = &found.blocks;
        let (x, z) = (
            chunk.pos.x.rem_euclid(32) as usize,
            chunk.pos.z.rem_euclid(32) as usize,
        );
        let bytes = file.read_chunk(x, z).unwrap().unwrap();
        let (root, _) = Compound::from_binary(&mut bytes.as_slice()).unwrap();
        let Some(Value::Compound(saved)) = root.get("Heightmaps") else {
            panic!("{name}: chunk {x} {z} has no heightmaps");
        };
        for map in Heightmap::SAVED {
            let Some(Value::LongArray(data)) = saved.get(map.key()) else {
                continue;
            };
            let vanilla = heightmap::unpack(data).expect("vanilla's packing");
            let ours = heightmap::heights(blocks, map);
            let wrong: Vec<String> = (0..256)
                .filter(|&i| ours[i] != vanilla[i])
                .take(5)
                .map(|i| {
                    let (cx, cz) = ((i % 16) as u32, (i / 16) as u32);
                    let y = ours[i].max(vanilla[i]).saturating_sub(1);
                    format!(
                        "({cx} {cz}) horde {} vanilla {} near {:?}",
                        ours[i],
                        vanilla[i],
                        blocks.block_state(cx, y, cz)
                    )
                })
                .collect();
            assert!(
                wrong.is_empty(),
                "{name}: chunk {x} {z} {}: {wrong:?}",
                map.key()
            );
            columns += 256;
        }
    }
    columns
}

/// Vanilla's generation steps from `surface` on, when a chunk holds its terrain.
fn has_its_blocks(status: &str) -> bool {
    let step = status.strip_prefix("minecraft:").unwrap_or(status);
    [
        "surface",
        "carvers",
        "liquid_carvers",
        "features",
        "initialize_light",
        "light",
        "spawn",
        "heightmaps",
        "full",
    ]
    .contains(&step)
}

#[test]
fn every_block_of_real_vanilla_worlds_is_served_as_a_third_party_reader_reads_it() {
    support::needs::test_clients();
    let world = TempDir::new("biomes");
    let app = horde::headless::start(horde::config::Config::default(), world.path()).unwrap();
    let biomes = BiomeNames::new(app.world.resource::<BiomeRegistry>());
    for (name, source, file, fewest) in worlds() {
        let dir = TempDir::new("vanilla-world");
        std::fs::create_dir_all(dir.path().join("region")).unwrap();
        let region = dir.path().join("region").join(file);
        std::fs::copy(source, &region).unwrap();
        let seen = third_party(&region);
        let positions: Vec<ChunkPos> = seen.iter().map(|s| s.pos).collect();
        let read = support::horde_reads(dir.path(), &biomes, &positions);
        let (mut served, mut blocks) = (0, 0);
        for chunk in &seen {
            match &read[&chunk.pos] {
                Loaded::Chunk(found) => {
                    let blocks_read = &found.blocks;
                    assert!(
                        has_its_blocks(&chunk.status),
                        "{name}: chunk {} {} ({}) is still being shaped, yet served",
                        chunk.pos.x,
                        chunk.pos.z,
                        chunk.status
                    );
                    served += 1;
                    for (sy, want) in &chunk.sections {
                        let got = section_blocks(blocks_read, *sy);
                        blocks += got.len();
                        if sha(&got) != *want {
                            let theirs = third_party_section(&region, chunk.pos, *sy);
                            let first: Vec<String> = (0..4096)
                                .filter(|&i| theirs.get(i) != got.get(i))
                                .take(5)
                                .map(|i| {
                                    let (x, y, z) = (i % 16, i / 256, i / 16 % 16);
                                    format!(
                                        "({x} {} {z}): horde {} reader {}",
                                        sy * 16 + y as i32,
                                        got[i],
                                        theirs.get(i).map_or("-", |s| s.as_str())
                                    )
                                })
                                .collect();
                            panic!(
                                "{name}: chunk {} {} ({}) section {sy} differs: {first:?}",
                                chunk.pos.x, chunk.pos.z, chunk.status
                            );
                        }
                    }
                }
                Loaded::Missing => assert!(
                    !has_its_blocks(&chunk.status),
                    "{name}: chunk {} {} ({}) was not served",
                    chunk.pos.x,
                    chunk.pos.z,
                    chunk.status
                ),
                Loaded::Unreadable(e, _) => {
                    panic!(
                        "{name}: chunk {} {} unreadable: {e:#}",
                        chunk.pos.x, chunk.pos.z
                    )
                }
            }
        }
        let columns = heightmaps_match_vanillas(name, &region, &seen, &read);
        eprintln!(
            "{name}: {served} of {} chunks served, {blocks} blocks compared, heightmaps of \
             {columns} columns",
            seen.len()
        );
        assert!(served >= fewest, "{name}: only {served} chunks served");
    }
}

/// `read-entities.js`' view of the entity chunks `chunks` of the folder `dir`.
fn entity_chunks(dir: &Path, chunks: &[ChunkPos]) -> Vec<serde_json::Value> {
    let mut args = vec![dir.as_os_str().to_owned()];
    args.extend(chunks.iter().map(|c| format!("{},{}", c.x, c.z).into()));
    let chunks = support::node_json("read-entities.js", &args);
    chunks.as_array().unwrap().clone()
}

fn tagged(entity: &serde_json::Value) -> bool {
    entity["Tags"]
        .as_array()
        .is_some_and(|tags| tags.iter().any(|t| t == "horde"))
}

#[test]
fn zombies_are_saved_in_entities_where_they_stand_and_a_vanilla_worlds_own_entities_kept() {
    support::needs::test_clients();
    // A vanilla 1.18 world's entities (its terrain is horde's here).
    let world = TempDir::new("entities");
    let entities = world.path().join("entities");
    std::fs::create_dir_all(&entities).unwrap();
    let fixture = support::repo().join("tests/fixtures/worlds/1.18/entities/r.0.0.mca");
    std::fs::copy(&fixture, entities.join("r.0.0.mca")).unwrap();
    let mut config = horde::config::Config::default();
    config.spawning.enabled = false;
    let mut h = support::headless::harness_in(config, world);
    h.run("gamemode creative tester");
    h.run("time set midnight");
    // Chunk 19 29 holds vanilla's own zombie and drowned; chunk 19 21 a cow and a minecart.
    let (crowded, untouched) = (ChunkPos::new(19, 29), ChunkPos::new(19, 21));
    let before = entity_chunks(&entities, &[crowded, untouched]);
    h.run("tp tester 312 200 472");
    h.app.update();
    horde::headless::run_until_loaded(&mut h.app);
    let ground = {
        let layer = h
            .app
            .world
            .query_filtered::<&ChunkLayer, With<horde::world::Overworld>>()
            .single(&h.app.world);
        horde::world::standable_top(layer, 312, 472).expect("ground")
    };
    h.summon(BlockPos::new(312, ground, 472));
    h.summon(BlockPos::new(313, ground, 473));
    assert!(h.run("save-all").starts_with("saved=true "));

    let after = entity_chunks(&entities, &[crowded, untouched]);
    let theirs = |chunk: &serde_json::Value| -> Vec<serde_json::Value> {
        let all = chunk["entities"].as_array().unwrap();
        all.iter().filter(|e| !tagged(e)).cloned().collect()
    };
    assert_eq!(
        theirs(&after[0]),
        theirs(&before[0]),
        "vanilla's zombie and drowned kept"
    );
    assert_eq!(
        after[1], before[1],
        "a chunk without horde's zombies is left as it was"
    );
    let ours: Vec<&serde_json::Value> = after[0]["entities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| tagged(e))
        .collect();
    assert_eq!(ours.len(), 2, "{}", after[0]);
    for zombie in &ours {
        assert_eq!(zombie["id"], "minecraft:zombie");
        assert_eq!(zombie["Health"], 20.0);
        let pos = zombie["Pos"].as_array().unwrap();
        assert!((pos[0].as_f64().unwrap() - 312.5).abs() < 2.0, "{zombie}");
        assert_eq!(zombie["UUID"].as_array().map(|u| u.len()), Some(4));
    }
    assert_eq!(
        after[0]["dataVersion"], 2855,
        "vanilla's own entities keep their version"
    );

    // Gone from the world, gone from the file; vanilla's stay.
    for zombie in h
        .app
        .world
        .query_filtered::<Entity, With<horde::zombie::Zombie>>()
        .iter(&h.app.world)
        .collect::<Vec<_>>()
    {
        h.app.world.entity_mut(zombie).insert(Despawned);
    }
    h.app.update();
    h.app.update();
    assert!(h.run("save-all").starts_with("saved=true "));
    let emptied = entity_chunks(&entities, &[crowded]);
    let all = emptied[0]["entities"].as_array().unwrap();
    assert!(all.iter().all(|e| !tagged(e)), "{}", emptied[0]);
    assert_eq!(theirs(&emptied[0]), theirs(&before[0]));
}

/// The top-level keys vanilla 1.20.1 writes in a full chunk (`ChunkSerializer.write`).
const VANILLA_CHUNK_KEYS: [&str; 15] = [
    "DataVersion",
    "Heightmaps",
    "InhabitedTime",
    "LastUpdate",
    "PostProcessing",
    "Status",
    "block_entities",
    "block_ticks",
    "fluid_ticks",
    "isLightOn",
    "sections",
    "structures",
    "xPos",
    "yPos",
    "zPos",
];

#[test]
fn every_chunk_horde_writes_opens_in_a_third_party_reader_with_every_key_vanilla_writes() {
    support::needs::test_clients();
    // Generated chunks edited across a chunk border, and a vanilla chunk edited.
    let mut h = support::headless::harness_on_region(
        &support::needs::vanilla_region("1.19.4"),
        "r.0.0.mca",
    );
    let s = h.spawn_point();
    let (x, z) = (s.x.floor() as i32, s.z.floor() as i32);
    h.fill(
        BlockPos::new(x - 20, 100, z - 20),
        BlockPos::new(x + 20, 101, z + 20),
        "glass",
    );
    h.fill(BlockPos::new(-3, 90, -3), BlockPos::new(2, 90, 2), "stone");
    let saved = h.run("save-all");
    assert!(saved.starts_with("saved=true "), "{saved}");
    let chunks = support::node_json("region-keys.js", &[h.world.path().join("region")]);
    // The chunks the two boxes touch, which horde wrote.
    let touched = |a: BlockPos, b: BlockPos| {
        let (from, to) = (ChunkPos::from_block_pos(a), ChunkPos::from_block_pos(b));
        (from.x..=to.x).flat_map(move |x| (from.z..=to.z).map(move |z| ChunkPos::new(x, z)))
    };
    let written: Vec<ChunkPos> = touched(
        BlockPos::new(x - 20, 0, z - 20),
        BlockPos::new(x + 20, 0, z + 20),
    )
    .chain(touched(BlockPos::new(-3, 0, -3), BlockPos::new(2, 0, 2)))
    .collect();
    let chunks = chunks.as_array().unwrap();
    let mut checked = 0;
    for chunk in chunks {
        let at = ChunkPos::new(
            chunk["x"].as_i64().unwrap() as i32,
            chunk["z"].as_i64().unwrap() as i32,
        );
        let keys: Vec<&str> = chunk["keys"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|k| k.as_str())
            .collect();
        let heightmaps: Vec<&str> = chunk["heightmaps"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|k| k.as_str())
            .collect();
        assert_eq!(chunk["loads"], true, "{chunk}");
        if !written.contains(&at) {
            continue;
        }
        for key in VANILLA_CHUNK_KEYS {
            assert!(
                keys.contains(&key),
                "chunk {}: no {key} in {keys:?}",
                chunk["x"]
            );
        }
        for map in Heightmap::SAVED {
            assert!(heightmaps.contains(&map.key()), "{chunk}");
        }
        checked += 1;
    }
    let written: usize = saved
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix("chunks="))
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(written >= 9, "{saved}");
    assert!(
        checked >= written,
        "{checked} full chunks checked, {written} written"
    );
}
