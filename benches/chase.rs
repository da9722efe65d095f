//! Chase benchmark, headless and in one process: N zombies chasing M moving (mock) players on
//! generated terrain. One logfmt line per scenario:
//! - `scenario=hop`: the hop rule at R = 3.36, 6 and 12 blocks, 100 / 1000 / 5000 zombies: tick
//!   time, paths per zombie per second, nodes per path, lag (goal to target distance);
//! - `scenario=every_tick`: the same chase plus what re-planning every tick straight to the
//!   target would add (the seed's 1,800-paths-per-second alternative);
//! - `scenario=astar`: our A* against the `pathfinding` crate's on the same terrain;
//! - `scenario=siege`: the siege's search, from the surface to a player buried a few blocks
//!   down within reach of a siege: time and nodes per search.
//!
//! Run with `cargo bench --bench chase` (or `scripts/bench.sh`); `HORDE_BENCH_QUICK=1` runs
//! only the smallest scenarios, and a name after `--` only the scenarios that contain it.

use rand::{Rng, RngCore};
use rand_pcg::Pcg32;
use std::time::{Duration, Instant};

use horde::common::body::Dead;
use horde::config::Config;
use horde::player::Health;
use horde::world::{
    standable_top, ChunkLifecycle, LayerVoxels, Nav, NavVoxels, Overworld, WorldSpawn,
};
use horde::zombie::path::{find_path, heuristic, neighbours, PathLimits};
use horde::zombie::record::new_zombie;
use horde::zombie::siege::path::{siege_path, walk_ticks, Ground};
use horde::zombie::siege::SiegeRules;
use horde::zombie::{ChaseStats, HopGoal, Target, Zombie, ZombieKinds};
use valence::prelude::*;
use valence::testing::{create_mock_client, MockClientHelper};

const PLAYERS: usize = 4;
const WARMUP_TICKS: usize = 40;
const MEASURED_TICKS: usize = 200;
const TICK_RATE: f64 = 20.0;
/// Players walk in circles at vanilla walking speed.
const PLAYER_SPEED: f64 = 4.3;
const CIRCLE: f64 = 12.0;
/// The A* comparison's rounds, each side's best counted.
const ASTAR_ROUNDS: usize = 5;

struct Sim {
    app: App,
    players: Vec<Entity>,
    /// The first player's connection, to count what a client receives.
    watcher: MockClientHelper,
    centres: Vec<DVec3>,
    tick: usize,
    _dir: TempDir,
}

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A uniform value in `0.0..1.0`.
fn rng(stream: &mut Pcg32) -> f64 {
    stream.gen()
}

fn layer(app: &mut App) -> &ChunkLayer {
    app.world
        .query_filtered::<&ChunkLayer, With<Overworld>>()
        .single(&app.world)
}

/// Block reads through the chunk-caching reader, and as the server's path searches make
/// them: from the walkability facts.
fn readers(app: &mut App) -> (LayerVoxels<'_>, NavVoxels<'_>) {
    let overworld = app
        .world
        .query_filtered::<Entity, With<Overworld>>()
        .single(&app.world);
    let world = &app.world;
    let chunks = world.get::<ChunkLayer>(overworld).expect("the overworld");
    let facts = NavVoxels::new(world.resource::<Nav>(), chunks);
    (LayerVoxels::new(chunks), facts)
}

impl Sim {
    fn new(radius: f64, zombies: usize) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "horde-bench-{}-{zombies}-{radius}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let mut config = Config::default();
        config.chase.hop_radius = radius;
        config.spawning.enabled = false;
        let mut app = horde::headless::start(config, &dir).unwrap();
        let spawn = app.world.resource::<WorldSpawn>().pos.unwrap();
        let centres: Vec<DVec3> = (0..PLAYERS)
            .map(|i| spawn + DVec3::new((i % 2) as f64 * 64.0, 0.0, (i / 2) as f64 * 64.0))
            .collect();
        let mut helpers = Vec::new();
        let players = centres
            .iter()
            .enumerate()
            .map(|(i, _)| {
                let (mut bundle, helper) = create_mock_client(format!("runner{i}"));
                helpers.push(helper);
                bundle.view_distance = ViewDistance::new(6);
                app.world.spawn(bundle).id()
            })
            .collect::<Vec<_>>();
        // Joining puts players at spawn; then each goes to its own circle.
        app.update();
        for (&player, centre) in players.iter().zip(&centres) {
            app.world.get_mut::<Position>(player).unwrap().0 = *centre;
        }
        // Wait until the terrain around every player is loaded.
        horde::headless::run_until(
            &mut app,
            "the terrain around the players is loaded",
            |app| {
                let pending = app.world.resource::<ChunkLifecycle>().pending();
                let l = layer(app);
                pending == 0
                    && centres
                        .iter()
                        .all(|c| standable_top(l, c.x as i32 + 40, c.z as i32 + 40).is_some())
            },
        );
        let mut sim = Sim {
            app,
            players,
            watcher: helpers.swap_remove(0),
            centres,
            tick: 0,
            _dir: TempDir(dir),
        };
        // Night: zombies chase rather than burn.
        let night = horde::console::command::parse("time set 14000").unwrap();
        horde::console::execute(&mut sim.app.world, night);
        sim.spawn_zombies(zombies);
        sim
    }

    fn spawn_zombies(&mut self, count: usize) {
        let kinds = self.app.world.resource::<ZombieKinds>().clone();
        let kind = kinds.find("zombie").unwrap();
        let overworld = self
            .app
            .world
            .query_filtered::<Entity, With<Overworld>>()
            .single(&self.app.world);
        let mut seed = horde::random::generator(1);
        let mut spawned = 0;
        while spawned < count {
            let centre = self.centres[spawned % PLAYERS];
            let angle = rng(&mut seed) * std::f64::consts::TAU;
            let dist = 6.0 + rng(&mut seed) * 24.0;
            let (x, z) = (
                (centre.x + angle.cos() * dist) as i32,
                (centre.z + angle.sin() * dist) as i32,
            );
            let Some(y) = standable_top(layer(&mut self.app), x, z) else {
                continue;
            };
            let pos = DVec3::new(x as f64 + 0.5, y as f64, z as f64 + 0.5);
            self.app
                .world
                .spawn(new_zombie(overworld, pos, kind, &kinds, seed.next_u64()));
            spawned += 1;
        }
    }

    /// Moves the players one tick along their circles, on the ground. They are healed every
    /// tick so the chase goes on for the whole measurement.
    fn move_players(&mut self) {
        for &player in &self.players {
            self.app
                .world
                .entity_mut(player)
                .remove::<Dead>()
                .insert(Health(20.0));
        }
        let angle = self.tick as f64 * PLAYER_SPEED / TICK_RATE / CIRCLE;
        for i in 0..PLAYERS {
            let c = self.centres[i];
            let (x, z) = (c.x + CIRCLE * angle.cos(), c.z + CIRCLE * angle.sin());
            let y = standable_top(layer(&mut self.app), x.floor() as i32, z.floor() as i32)
                .unwrap_or(c.y as i32);
            self.app
                .world
                .get_mut::<Position>(self.players[i])
                .unwrap()
                .0 = DVec3::new(x, y as f64, z);
        }
        self.tick += 1;
    }

    /// Bytes of entity packets (moves, looks, metadata, spawns...) the first player received
    /// since last asked: the zombie traffic, without terrain.
    fn received_bytes(&mut self) -> usize {
        use valence::protocol::packets::play::*;
        use valence::protocol::Packet;
        let entity_packets = [
            MoveRelativeS2c::ID,
            RotateAndMoveRelativeS2c::ID,
            RotateS2c::ID,
            EntityPositionS2c::ID,
            EntitySetHeadYawS2c::ID,
            EntityTrackerUpdateS2c::ID,
            EntitySpawnS2c::ID,
            EntitiesDestroyS2c::ID,
            EntityDamageS2c::ID,
            EntityAnimationS2c::ID,
            EntityStatusS2c::ID,
            EntityEquipmentUpdateS2c::ID,
            EntityVelocityUpdateS2c::ID,
        ];
        self.watcher
            .collect_received()
            .0
            .iter()
            .filter(|f| entity_packets.contains(&f.id))
            .map(|f| f.body.len() + 2)
            .sum()
    }

    fn step(&mut self) -> Duration {
        self.move_players();
        let start = Instant::now();
        self.app.update();
        start.elapsed()
    }

    /// Mean distance between each chasing zombie's goal and its target.
    fn lag(&mut self) -> Option<f64> {
        let targets: Vec<(Option<Entity>, Option<DVec3>)> = self
            .app
            .world
            .query::<(&Target, &HopGoal)>()
            .iter(&self.app.world)
            .map(|(t, g)| (t.player, g.0))
            .collect();
        let gaps: Vec<f64> = targets
            .into_iter()
            .filter_map(|(t, g)| Some(self.app.world.get::<Position>(t?)?.0.distance(g?)))
            .collect();
        assert!(gaps.iter().all(|g| g.is_finite()), "a goal is not a number");
        (!gaps.is_empty()).then(|| gaps.iter().sum::<f64>() / gaps.len() as f64)
    }

    /// The cost of planning every chasing zombie's full path to its target, once; and the
    /// goals planned for, by target.
    fn plan_everyone_to_target(
        &mut self,
        limits: PathLimits,
    ) -> (Duration, u64, Vec<(Entity, DVec3)>) {
        let jobs: Vec<(BlockPos, BlockPos, Entity, DVec3)> = {
            let world = &mut self.app.world;
            let chasers: Vec<(DVec3, Entity)> = world
                .query::<(&Position, &Target)>()
                .iter(world)
                .filter_map(|(p, t)| Some((p.0, t.player?)))
                .collect();
            chasers
                .into_iter()
                .filter_map(|(p, t)| {
                    let to = world.get::<Position>(t)?.0;
                    Some((BlockPos::from_pos(p), BlockPos::from_pos(to), t, to))
                })
                .collect()
        };
        let plans = &readers(&mut self.app).1;
        let start = Instant::now();
        let nodes = jobs
            .iter()
            .map(|&(a, b, ..)| find_path(plans, a, b, limits).expanded as u64)
            .sum();
        let goals = jobs.iter().map(|&(.., t, to)| (t, to)).collect();
        (start.elapsed(), nodes, goals)
    }

    /// Mean distance between the goals planned a tick ago and where their targets are now.
    fn lag_behind(&mut self, goals: &[(Entity, DVec3)]) -> Option<f64> {
        let gaps: Vec<f64> = goals
            .iter()
            .filter_map(|(t, g)| Some(self.app.world.get::<Position>(*t)?.0.distance(*g)))
            .collect();
        (!gaps.is_empty()).then(|| gaps.iter().sum::<f64>() / gaps.len() as f64)
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn summary(times: &mut [f64]) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    let p99 = times[((times.len() as f64 * 0.99).ceil() as usize).clamp(1, times.len()) - 1];
    (mean, p99)
}

fn chase_scenario(zombies: usize, radius: f64, every_tick: bool) {
    let mut sim = Sim::new(radius, zombies);
    for _ in 0..WARMUP_TICKS {
        sim.step();
    }
    let before = sim.app.world.resource::<ChaseStats>().clone();
    sim.received_bytes();
    let mut bytes = 0;
    let limits = PathLimits {
        node_budget: 560,
        max_drop: 3,
    };
    let (mut times, mut lags) = (Vec::new(), Vec::new());
    let (mut extra_nodes, mut extra_paths) = (0u64, 0u64);
    // Planning everyone every tick is slow by nature: fewer ticks show its cost just as well.
    let ticks = if every_tick {
        MEASURED_TICKS / 5
    } else {
        MEASURED_TICKS
    };
    // Planning every tick, the goal is the target itself when planned; the lag is how far the
    // target has moved by the next tick.
    let mut planned: Vec<(Entity, DVec3)> = Vec::new();
    for _ in 0..ticks {
        let mut took = sim.step();
        if every_tick {
            if let Some(lag) = sim.lag_behind(&planned) {
                lags.push(lag);
            }
            let (t, nodes, goals) = sim.plan_everyone_to_target(limits);
            planned = goals;
            took += t;
            extra_nodes += nodes;
            extra_paths += sim
                .app
                .world
                .query::<&Target>()
                .iter(&sim.app.world)
                .filter(|t| t.chasing())
                .count() as u64;
        }
        times.push(ms(took));
        bytes += sim.received_bytes();
        if !every_tick {
            if let Some(lag) = sim.lag() {
                lags.push(lag);
            }
        }
    }
    let after = sim.app.world.resource::<ChaseStats>().clone();
    let seconds = ticks as f64 / TICK_RATE;
    let alive = sim
        .app
        .world
        .query::<&Zombie>()
        .iter(&sim.app.world)
        .count();
    let (paths, nodes) = if every_tick {
        (extra_paths, extra_nodes)
    } else {
        (
            after.plans - before.plans,
            after.expanded_nodes - before.expanded_nodes,
        )
    };
    let (mean, p99) = summary(&mut times);
    let lag = lags.iter().sum::<f64>() / lags.len().max(1) as f64;
    println!(
        "scenario={} zombies={zombies} players={PLAYERS} R={radius} ticks={ticks} tick_mean_ms={mean:.3} tick_p99_ms={p99:.3} paths_per_zombie_s={:.2} nodes_per_path={:.1} lag_blocks={lag:.2} zombie_kb_per_client_s={:.1}",
        if every_tick { "every_tick" } else { "hop" },
        paths as f64 / alive.max(1) as f64 / seconds,
        nodes as f64 / paths.max(1) as f64,
        bytes as f64 / 1000.0 / seconds,
    );
}

fn astar_scenario(pairs: usize) {
    let mut sim = Sim::new(3.36, 0);
    let limits = PathLimits {
        node_budget: 100_000,
        max_drop: 3,
    };
    let mut seed = horde::random::generator(12345);
    let centre = sim.centres[0];
    let mut jobs = Vec::new();
    while jobs.len() < pairs {
        let mut pick = |seed: &mut Pcg32| {
            let (x, z) = (
                centre.x + (rng(seed) - 0.5) * 48.0,
                centre.z + (rng(seed) - 0.5) * 48.0,
            );
            standable_top(layer(&mut sim.app), x as i32, z as i32)
                .map(|y| BlockPos::new(x as i32, y, z as i32))
        };
        if let (Some(a), Some(b)) = (pick(&mut seed), pick(&mut seed)) {
            jobs.push((a, b));
        }
    }
    // Each reads blocks as it would in a server: ours the walkability facts the server keeps
    // beside its chunks, the crate's through the chunk-caching reader. Rounds alternate, and
    // each side's best round counts: the first round warms the caches.
    let (chunks, bytes) = sim.app.world.resource::<Nav>().size();
    let (l, facts) = &readers(&mut sim.app);
    let (mut ours_time, mut theirs_time) = (Duration::MAX, Duration::MAX);
    let (mut ours, mut theirs, mut expanded) = (Vec::new(), Vec::new(), 0);
    let mut moves = Vec::with_capacity(8);
    for _ in 0..ASTAR_ROUNDS {
        let start = Instant::now();
        (ours, expanded) = jobs
            .iter()
            .fold((Vec::new(), 0), |(mut costs, n), &(a, b)| {
                let p = find_path(facts, a, b, limits);
                costs.push(p.complete.then_some(p.cost));
                (costs, n + p.expanded)
            });
        ours_time = ours_time.min(start.elapsed());
        let start = Instant::now();
        theirs = jobs
            .iter()
            .map(|&(a, b)| {
                pathfinding::directed::astar::astar(
                    &a,
                    |&p| {
                        neighbours(l, p, limits, &mut moves);
                        moves.clone()
                    },
                    |&p| heuristic(p, b),
                    |&p| p == b,
                )
                .map(|(_, cost)| cost)
            })
            .collect();
        theirs_time = theirs_time.min(start.elapsed());
    }
    let found = ours.iter().filter(|c| c.is_some()).count();
    let agree = ours.iter().zip(&theirs).filter(|(a, b)| a == b).count();
    println!(
        "scenario=astar pairs={pairs} found={found} same_cost={agree} nodes_per_path={:.0} ours_us_per_path={:.1} pathfinding_us_per_path={:.1} ratio={:.2}",
        expanded as f64 / pairs as f64,
        ours_time.as_secs_f64() * 1e6 / pairs as f64,
        theirs_time.as_secs_f64() * 1e6 / pairs as f64,
        ours_time.as_secs_f64() / theirs_time.as_secs_f64(),
    );
    println!(
        "scenario=nav chunks={chunks} kib_per_chunk={:.1}",
        bytes as f64 / 1024.0 / chunks as f64
    );
}

fn siege_scenario(searches: usize) {
    let mut sim = Sim::new(3.36, 0);
    let kinds = sim.app.world.resource::<ZombieKinds>().clone();
    let kind = kinds.get(kinds.find("zombie").unwrap());
    let config = Config::default();
    let rules = SiegeRules::new(&config.siege);
    let mut seed = horde::random::generator(777);
    let centre = sim.centres[0];
    let mut jobs = Vec::new();
    while jobs.len() < searches {
        let (x, z) = (
            (centre.x + (rng(&mut seed) - 0.5) * 48.0) as i32,
            (centre.z + (rng(&mut seed) - 0.5) * 48.0) as i32,
        );
        // The player 2 to 6 blocks under the surface, 4 to 16 blocks off, flat.
        let angle = rng(&mut seed) * std::f64::consts::TAU;
        let off = 4.0 + rng(&mut seed) * 12.0;
        let (tx, tz) = (x as f64 + angle.cos() * off, z as f64 + angle.sin() * off);
        let depth = 2 + (rng(&mut seed) * 5.0) as i32;
        let l = layer(&mut sim.app);
        if let (Some(y), Some(ty)) = (
            standable_top(l, x, z),
            standable_top(l, tx.floor() as i32, tz.floor() as i32),
        ) {
            let target = DVec3::new(tx, (ty - depth) as f64, tz);
            jobs.push((BlockPos::new(x, y, z), target));
        }
    }
    let (_, facts) = &readers(&mut sim.app);
    let ground = Ground {
        world: facts,
        rules: &rules,
        walk_ticks: walk_ticks(kind.speed),
        protected: &|_| false,
    };
    let (mut best, mut times) = (Duration::MAX, Vec::new());
    let (mut found, mut steps) = (0, 0);
    for _ in 0..ASTAR_ROUNDS {
        let round = Instant::now();
        let mut these = Vec::with_capacity(jobs.len());
        (found, steps) = (0, 0);
        for &(start, target) in &jobs {
            let one = Instant::now();
            let way = siege_path(&ground, start, target, kind.reach * 0.8);
            these.push(ms(one.elapsed()) * 1000.0);
            if let Some(way) = way {
                found += 1;
                steps += way.len();
            }
        }
        if round.elapsed() < best {
            (best, times) = (round.elapsed(), these);
        }
    }
    let (mean, p99) = summary(&mut times);
    println!(
        "scenario=siege searches={searches} found={found} steps_per_way={:.1} us_per_search={mean:.0} p99_us={p99:.0} max_us={:.0}",
        steps as f64 / found.max(1) as f64,
        times.last().copied().unwrap_or(0.0),
    );
}

fn main() {
    let quick = std::env::var_os("HORDE_BENCH_QUICK").is_some();
    // `cargo bench --bench chase -- astar` runs only the scenarios whose name has "astar".
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let wanted = |scenario: &str| filter.as_deref().is_none_or(|f| scenario.contains(f));
    let sizes: &[usize] = if quick { &[100] } else { &[100, 1000, 5000] };
    let radii: &[f64] = if quick { &[3.36] } else { &[3.36, 6.0, 12.0] };
    if wanted("astar") {
        astar_scenario(if quick { 50 } else { 500 });
    }
    if wanted("siege") {
        siege_scenario(if quick { 20 } else { 200 });
    }
    for &zombies in sizes {
        if wanted("hop") {
            for &radius in radii {
                chase_scenario(zombies, radius, false);
            }
        }
        if wanted("every_tick") {
            chase_scenario(zombies, 3.36, true);
        }
    }
}
