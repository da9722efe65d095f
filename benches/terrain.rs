//! Terrain benchmark: what the terrain worker spends on one chunk the world folder lacks,
//! generating it and taking its surface (for the map) and walkability facts (for paths).
//! Chunks from four places of the shipped seed: the spawn's hills and lake, a river, cliffs,
//! and far out.
//!
//! Run with `cargo bench --bench terrain`; prints the median of `HORDE_BENCH_RUNS` runs
//! (default 5) with the fastest and slowest, in ms a chunk.

use std::time::Instant;

use horde::config::Config;
use horde::world::Terrain;
use valence::prelude::*;

fn main() {
    let runs: usize = std::env::var("HORDE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let terrain = Terrain::new(Config::default().server.seed);
    let chunks: Vec<ChunkPos> = [(0, 0), (-40, 25), (90, -130), (3000, 3000)]
        .into_iter()
        .flat_map(|(x, z)| (0..16).map(move |i| ChunkPos::new(x + i % 4, z + i / 4)))
        .collect();
    let mut per_chunk: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            for &pos in &chunks {
                std::hint::black_box(terrain.generate(pos));
            }
            start.elapsed().as_secs_f64() * 1e3 / chunks.len() as f64
        })
        .collect();
    per_chunk.sort_by(f64::total_cmp);
    println!(
        "scenario=terrain runs={runs} chunks={} ms_per_chunk={:.3} min={:.3} max={:.3}",
        chunks.len(),
        per_chunk[runs / 2],
        per_chunk[0],
        per_chunk[runs - 1]
    );
}
