//! Pack benchmark, headless: the pack systems' cost per tick with 10,000 materialised zombies
//! in packs, and with 1,000,000 ghost members on top (the 400 ticks after they appear, and 400
//! more once they have settled into their sleep); memory per active zombie (everything the
//! server keeps for one: its entity, chase, pack membership) and per ghost member.
//! Run with `cargo bench --bench packs` (or `scripts/bench.sh`).

use rand::RngCore;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use horde::config::Config;
use horde::pack::Packs;
use horde::world::{standable_top, Overworld, WorldSpawn};
use horde::zombie::record::new_zombie;
use horde::zombie::{ZombieKinds, ZombieRecord};
use valence::math::DVec2;
use valence::prelude::*;
use valence::testing::create_mock_client;

const ZOMBIES: usize = 10_000;
const GHOST_MEMBERS: usize = 1_000_000;
const MEASURED_TICKS: usize = 400;
/// Ticks between the two measurements with ghosts: past the longest sleep (32 sweeps).
const SETTLE_TICKS: usize = 400;

/// Counts the bytes live on the heap, to measure what ghosts cost exactly (resident memory
/// moves with what the allocator keeps around).
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed straight to the system allocator with the caller's layout; the
// counter is only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

fn main() {
    let dir = std::env::temp_dir().join(format!("horde-bench-packs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut config = Config::default();
    config.spawning.enabled = false;
    let rules = config.pack.clone();
    let seed = config.server.seed;
    let mut app = horde::headless::start(config, &dir).unwrap();
    // Creative watchers: zombies act around them but do not chase them.
    let spawn = app.world.resource::<WorldSpawn>().pos.unwrap();
    let mut watchers = Vec::new();
    for i in 0..4 {
        let (mut bundle, _) = create_mock_client(format!("watcher{i}"));
        bundle.view_distance = ViewDistance::new(8);
        watchers.push(app.world.spawn(bundle).id());
    }
    app.update();
    let centres: Vec<DVec3> = (0..4)
        .map(|i| spawn + DVec3::new((i % 2) as f64 * 96.0, 0.0, (i / 2) as f64 * 96.0))
        .collect();
    for (w, c) in watchers.iter().zip(&centres) {
        *app.world.get_mut::<GameMode>(*w).unwrap() = GameMode::Creative;
        app.world.get_mut::<Position>(*w).unwrap().0 = *c;
    }
    horde::headless::run_until_loaded(&mut app);
    horde::console::execute(
        &mut app.world,
        horde::console::command::parse("time set 14000").unwrap(),
    );
    let kinds = app.world.resource::<ZombieKinds>().clone();
    let overworld = app
        .world
        .query_filtered::<Entity, With<Overworld>>()
        .single(&app.world);
    let mut stream = horde::random::generator(1);
    let before_zombies = live_bytes();
    let mut placed = 0;
    while placed < ZOMBIES {
        let rng = stream.next_u64();
        let c = centres[placed % 4];
        let (x, z) = (
            c.x as i32 + (rng % 90) as i32 - 45,
            c.z as i32 + ((rng >> 16) % 90) as i32 - 45,
        );
        let layer = app
            .world
            .query_filtered::<&ChunkLayer, With<Overworld>>()
            .single(&app.world);
        if let Some(y) = standable_top(layer, x, z) {
            let pos = DVec3::new(x as f64 + 0.5, y as f64, z as f64 + 0.5);
            app.world.spawn(new_zombie(overworld, pos, 0, &kinds, rng));
            placed += 1;
        }
    }
    // Let packs form.
    for _ in 0..400 {
        app.update();
    }
    let bytes_per_zombie = live_bytes().saturating_sub(before_zombies) as f64 / ZOMBIES as f64;
    app.world.resource_mut::<Packs>().clear_cost();
    for _ in 0..MEASURED_TICKS {
        app.update();
    }
    let packs = app.world.resource::<Packs>();
    let in_packs: usize = packs.iter().map(|p| p.members.len()).sum();
    let (mean, p99) = packs.cost().summary();
    println!(
        "scenario=packs zombies={ZOMBIES} in_packs={in_packs} packs={} ghost_members={} ticks={MEASURED_TICKS} pack_mean_ms={mean:.3} pack_p99_ms={p99:.3} bytes_per_zombie={bytes_per_zombie:.0}",
        packs.len(),
        packs.ghost_members()
    );

    // A million ghost members, in packs of 24 scattered far from everyone.
    let before = live_bytes();
    {
        let mut packs = app.world.resource_mut::<Packs>();
        let member = ZombieRecord::fresh(0, &kinds);
        for i in 0..GHOST_MEMBERS / 24 {
            let at = DVec2::new(
                20_000.0 + (i % 200) as f64 * 50.0,
                20_000.0 + (i / 200) as f64 * 50.0,
            );
            packs.adopt_ghost(at, 64.0, vec![member; 24], seed, &kinds, &rules);
        }
    }
    let bytes_per_ghost = live_bytes().saturating_sub(before) as f64 / GHOST_MEMBERS as f64;
    // The first ticks sweep every new ghost once (as after a restart, when every saved pack
    // comes back a ghost); from then on ghosts this far from everyone mostly sleep.
    for (when, skipped) in [("appeared", 0), ("settled", SETTLE_TICKS)] {
        for _ in 0..skipped {
            app.update();
        }
        app.world.resource_mut::<Packs>().clear_cost();
        for _ in 0..MEASURED_TICKS {
            app.update();
        }
        let packs = app.world.resource::<Packs>();
        let (mean, p99) = packs.cost().summary();
        println!(
            "scenario=packs_and_ghosts when={when} zombies={ZOMBIES} ghost_members={} packs={} ticks={MEASURED_TICKS} pack_mean_ms={mean:.3} pack_p99_ms={p99:.3} bytes_per_ghost_member={bytes_per_ghost:.1} ghost_record_bytes={}",
            packs.ghost_members(),
            packs.len(),
            std::mem::size_of::<ZombieRecord>()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
