//! Light benchmark, beside generation in the same run: what lighting costs the terrain worker
//! for a chunk it generated (from the chunk's own blocks, then joined to its loaded neighbours),
//! what relighting costs the tick after one block placed or dug, and Starlight's stress case:
//! a platform high in the sky over one at the bottom, a block of the top one broken and put
//! back.
//!
//! Run with `cargo bench --bench light`; prints the median of `HORDE_BENCH_RUNS` runs (default
//! 5) with the fastest and slowest.

use std::time::Instant;

use horde::config::Config;
use horde::light::{light_chunk, HeldChunks};
use horde::world::{Terrain, MIN_Y};
use valence::layer::chunk::{Chunk, UnloadedChunk};
use valence::prelude::*;

/// The median, fastest and slowest of some runs.
fn spread(mut runs: Vec<f64>) -> String {
    runs.sort_by(f64::total_cmp);
    format!(
        "{:.3} min={:.3} max={:.3}",
        runs[runs.len() / 2],
        runs[0],
        runs[runs.len() - 1]
    )
}

/// Four places of the shipped seed (the spawn's hills and lake, a river, cliffs, far out),
/// 4 by 4 chunks each.
fn places() -> Vec<Vec<ChunkPos>> {
    [(0, 0), (-40, 25), (90, -130), (3000, 3000)]
        .into_iter()
        .map(|(x, z)| {
            (0..16)
                .map(|i| ChunkPos::new(x + i % 4, z + i / 4))
                .collect()
        })
        .collect()
}

struct Chunked {
    generate_ms: f64,
    light_ms: f64,
    join_ms: f64,
    /// Bytes of light a chunk holds, joined.
    light_kib: f64,
}

/// Generates, lights and joins every chunk of the places, timing each step apart.
fn chunk_run(terrain: &Terrain) -> Chunked {
    let (mut generate, mut light, mut join, mut chunks, mut bytes) = (0.0, 0.0, 0.0, 0, 0);
    for place in places() {
        let mut held = HeldChunks::new();
        for &pos in &place {
            let start = Instant::now();
            let made = terrain.generate(pos);
            let generated = Instant::now();
            let lit = light_chunk(|x, y, z| made.chunk.block_state(x, y, z));
            let lighted = Instant::now();
            held.insert_lit(pos, made.chunk, lit);
            let joined = Instant::now();
            generate += (generated - start).as_secs_f64();
            light += (lighted - generated).as_secs_f64();
            join += (joined - lighted).as_secs_f64();
            chunks += 1;
        }
        bytes += place
            .iter()
            .filter_map(|&pos| held.light(pos))
            .map(|l| l.heap_bytes())
            .sum::<usize>();
    }
    let ms = |s: f64| s * 1e3 / chunks as f64;
    Chunked {
        generate_ms: ms(generate),
        light_ms: ms(light),
        join_ms: ms(join),
        light_kib: bytes as f64 / 1024.0 / chunks as f64,
    }
}

/// The place's 16 chunks, generated and lit.
fn held_place(terrain: &Terrain, place: &[ChunkPos]) -> HeldChunks<UnloadedChunk> {
    let mut held = HeldChunks::new();
    for &pos in place {
        held.insert(pos, terrain.generate(pos).chunk);
    }
    held
}

/// Mean µs to relight after a block placed on the ground, and after it is dug again, over the
/// inner chunks of each place.
fn relight_run(terrain: &Terrain) -> (f64, f64) {
    let (mut place_s, mut dig_s, mut changes) = (0.0, 0.0, 0);
    for place in places() {
        let mut held = held_place(terrain, &place);
        let origin = place[0];
        for i in 0..64 {
            let (x, z) = (
                origin.x * 16 + 16 + i % 32,
                origin.z * 16 + 16 + (i * 7) % 32,
            );
            let chunk = held.blocks(ChunkPos::new(x >> 4, z >> 4)).expect("held");
            let top = (0..chunk.height())
                .rev()
                .find(|&y| {
                    !chunk
                        .block_state((x & 15) as u32, y, (z & 15) as u32)
                        .is_air()
                })
                .unwrap_or(0) as i32;
            let at = BlockPos::new(x, top + 1 + MIN_Y, z);
            let start = Instant::now();
            held.set_block(at, BlockState::STONE);
            let placed = Instant::now();
            held.set_block(at, BlockState::AIR);
            dig_s += placed.elapsed().as_secs_f64();
            place_s += (placed - start).as_secs_f64();
            changes += 1;
        }
    }
    let us = |s: f64| s * 1e6 / changes as f64;
    (us(place_s), us(dig_s))
}

/// Starlight's stress case on 5 by 5 chunks: ms to relight after the top platform's middle
/// block is broken, and after it is put back.
fn stress_run() -> (f64, f64) {
    let mut held = HeldChunks::new();
    let (top, bottom) = (300, MIN_Y + 4);
    for cx in 0..5 {
        for cz in 0..5 {
            let mut chunk = UnloadedChunk::with_height(384);
            for x in 0..16 {
                for z in 0..16 {
                    for y in [top, bottom] {
                        chunk.set_block_state(x, (y - MIN_Y) as u32, z, BlockState::STONE);
                    }
                }
            }
            held.insert(ChunkPos::new(cx, cz), chunk);
        }
    }
    let hole = BlockPos::new(40, top, 40);
    let start = Instant::now();
    held.set_block(hole, BlockState::AIR);
    let broken = Instant::now();
    held.set_block(hole, BlockState::STONE);
    let placed = broken.elapsed();
    (
        (broken - start).as_secs_f64() * 1e3,
        placed.as_secs_f64() * 1e3,
    )
}

fn main() {
    let runs: usize = std::env::var("HORDE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let terrain = Terrain::new(Config::default().server.seed);
    let chunked: Vec<Chunked> = (0..runs).map(|_| chunk_run(&terrain)).collect();
    let ratio = |c: &Chunked| (c.light_ms + c.join_ms) / c.generate_ms;
    println!(
        "scenario=light_new_chunk runs={runs} generate_ms={} light_ms={} join_ms={} light_over_generate={} light_kib_per_chunk={}",
        spread(chunked.iter().map(|c| c.generate_ms).collect()),
        spread(chunked.iter().map(|c| c.light_ms).collect()),
        spread(chunked.iter().map(|c| c.join_ms).collect()),
        spread(chunked.iter().map(ratio).collect()),
        spread(chunked.iter().map(|c| c.light_kib).collect()),
    );
    let relit: Vec<(f64, f64)> = (0..runs).map(|_| relight_run(&terrain)).collect();
    println!(
        "scenario=light_one_block runs={runs} place_us={} dig_us={}",
        spread(relit.iter().map(|r| r.0).collect()),
        spread(relit.iter().map(|r| r.1).collect()),
    );
    let stress: Vec<(f64, f64)> = (0..runs).map(|_| stress_run()).collect();
    println!(
        "scenario=light_starlight_stress runs={runs} break_ms={} place_ms={}",
        spread(stress.iter().map(|r| r.0).collect()),
        spread(stress.iter().map(|r| r.1).collect()),
    );
}
