//! Terrain save benchmark, headless: what writing changed chunks to the region folder costs,
//! on the tick (encoding the changed sections) and on the saving thread (rewriting the region
//! files), per changed chunk, with the bytes written. Three cases:
//! - `whole`: chunks horde generated, written whole the first time they change;
//! - `patched`: the same chunks changed again in one section, patched into what is on disk;
//! - `one_in_full_region`: one changed chunk in a region file already holding the others, the
//!   atomic rewrite's worst case per chunk.
//!
//! Run with `cargo bench --bench save` (or `scripts/bench.sh`); prints the median of
//! `HORDE_BENCH_RUNS` runs (default 5) with the slowest and fastest.

use std::time::Instant;

use horde::config::Config;
use horde::world::{snapshot_terrain, Overworld, WorldSpawn};
use valence::prelude::*;
use valence::testing::create_mock_client;

/// Timings of one save: ms on the tick, ms writing, bytes written, chunks written.
struct Sample {
    encode_ms: f64,
    write_ms: f64,
    bytes: u64,
    chunks: usize,
}

fn save(app: &mut App) -> Sample {
    let start = Instant::now();
    let save = snapshot_terrain(&mut app.world);
    let encoded = start.elapsed();
    let start = Instant::now();
    let outcome = save.write();
    let written = start.elapsed();
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    assert_eq!(outcome.written.chunks, save.chunks());
    app.update();
    Sample {
        encode_ms: encoded.as_secs_f64() * 1e3,
        write_ms: written.as_secs_f64() * 1e3,
        bytes: outcome.written.bytes,
        chunks: outcome.written.chunks,
    }
}

/// Sets one block in each chunk; `y` picks the section.
fn edit(app: &mut App, chunks: &[ChunkPos], y: i32, block: &str) {
    for pos in chunks {
        let (x, z) = (pos.x * 16 + 7, pos.z * 16 + 7);
        let line = format!("fill {x} {y} {z} {x} {y} {z} {block}");
        let answer = horde::console::execute(
            &mut app.world,
            horde::console::command::parse(&line).unwrap(),
        );
        assert!(answer.starts_with("filled=1 "), "{answer}");
    }
}

fn run() -> [Sample; 3] {
    let dir = std::env::temp_dir().join(format!(
        "horde-bench-save-{}-{}",
        std::process::id(),
        Instant::now().elapsed().as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut config = Config::default();
    config.spawning.enabled = false;
    let mut app = horde::headless::start(config, &dir).unwrap();
    let (mut bundle, _helper) = create_mock_client("builder");
    bundle.view_distance = ViewDistance::new(8);
    let spawn = app.world.resource::<WorldSpawn>().pos.unwrap();
    bundle.player.position = Position(spawn);
    app.world.spawn(bundle);
    app.update();
    horde::headless::run_until_loaded(&mut app);
    // The loaded chunks of region 0 0, so every save rewrites one region file.
    let mut chunks: Vec<ChunkPos> = app
        .world
        .query_filtered::<&ChunkLayer, With<Overworld>>()
        .single(&app.world)
        .chunks()
        .map(|(pos, _)| pos)
        .filter(|pos| (0..32).contains(&pos.x) && (0..32).contains(&pos.z))
        .collect();
    chunks.sort_by_key(|p| (p.x, p.z));

    edit(&mut app, &chunks, 100, "glowstone");
    let whole = save(&mut app);
    edit(&mut app, &chunks, 100, "stone");
    let patched = save(&mut app);
    edit(&mut app, &chunks[..1], 100, "glowstone");
    let one = save(&mut app);
    std::fs::remove_dir_all(&dir).unwrap();
    [whole, patched, one]
}

fn main() {
    let runs: usize = std::env::var("HORDE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let samples: Vec<[Sample; 3]> = (0..runs).map(|_| run()).collect();
    for (i, name) in ["whole", "patched", "one_in_full_region"]
        .iter()
        .enumerate()
    {
        let per_chunk = |f: &dyn Fn(&Sample) -> f64| {
            let mut v: Vec<f64> = samples
                .iter()
                .map(|s| f(&s[i]) / s[i].chunks as f64)
                .collect();
            v.sort_by(f64::total_cmp);
            (v[v.len() / 2], v[0], v[v.len() - 1])
        };
        let (encode, encode_min, encode_max) = per_chunk(&|s| s.encode_ms);
        let (write, write_min, write_max) = per_chunk(&|s| s.write_ms);
        let last = &samples[runs - 1][i];
        println!(
            "scenario=save_{name} runs={runs} chunks={} tick_ms_per_chunk={encode:.3} tick_min={encode_min:.3} tick_max={encode_max:.3} write_ms_per_chunk={write:.3} write_min={write_min:.3} write_max={write_max:.3} region_bytes={}",
            last.chunks, last.bytes
        );
    }
}
