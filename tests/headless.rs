//! The server's systems in Valence's headless harness: a mock client in a deterministic app,
//! no network. `ScenarioSingleClient` brings its own flat layer, so the app is built the same
//! way around horde's plugins and a mock client from `valence::testing`.

mod support;

use horde::common::events::{DamageCause, DamagePlayer};
use horde::player::Health;
use horde::time::WorldClock;
use horde::world::{
    ChunkLifecycle, LayerVoxels, Nav, NavVoxels, Voxels, WorldSpawn, SPAWN_CHUNK_RADIUS,
};
use horde::zombie::{Dozing, March};
use support::headless::{harness, harness_with, Harness};
use valence::entity::{EntityId, EntityLayerId};
use valence::prelude::*;
use valence::protocol::packets::play::{
    ChunkDataS2c, EntitiesDestroyS2c, EntityDamageS2c, EntitySpawnS2c, GameJoinS2c,
    HealthUpdateS2c, PlayerRespawnS2c, WorldTimeUpdateS2c,
};
use valence::protocol::Packet;
use valence::status::RequestRespawnEvent;
use valence::testing::PacketFrames;

fn count<P: Packet>(frames: &PacketFrames) -> usize {
    frames.0.iter().filter(|f| f.id == P::ID).count()
}

#[test]
fn join_sends_game_join_chunks_health_and_time() {
    let mut h = harness();
    h.app.update();
    let frames = h.helper.collect_received();
    frames.assert_count::<GameJoinS2c>(1);
    assert!(count::<WorldTimeUpdateS2c>(&frames) >= 1, "no time on join");
    let health = frames.first::<HealthUpdateS2c>();
    assert_eq!(health.health, 20.0);
    assert_eq!(health.food.0, 20);
    assert!(count::<ChunkDataS2c>(&frames) > 0, "no chunk sent");
    let spawn = h.app.world.resource::<WorldSpawn>().pos.unwrap();
    assert_eq!(h.app.world.get::<Position>(h.client).unwrap().0, spawn);
}

#[test]
fn time_is_sent_once_a_second_and_advances_one_per_tick() {
    let mut h = harness();
    h.helper.clear_received();
    let age = h.app.world.resource::<WorldClock>().age;
    for _ in 0..40 {
        h.app.update();
    }
    assert_eq!(h.app.world.resource::<WorldClock>().age, age + 40);
    let frames = h.helper.collect_received();
    frames.assert_count::<WorldTimeUpdateS2c>(2);
    let sent = frames.first::<WorldTimeUpdateS2c>();
    assert_eq!(sent.world_age % 20, 0);
}

#[test]
fn damage_sends_health_and_hurt_effect_then_death_and_respawn() {
    let mut h = harness();
    h.app.update();
    h.helper.clear_received();

    h.app.world.send_event(DamagePlayer {
        player: h.client,
        amount: 5.0,
        cause: DamageCause::Command,
    });
    h.app.update();
    let frames = h.helper.collect_received();
    assert_eq!(frames.first::<HealthUpdateS2c>().health, 15.0);
    assert_eq!(frames.first::<EntityDamageS2c>().entity_id.0, 0);

    h.app.world.send_event(DamagePlayer {
        player: h.client,
        amount: 100.0,
        cause: DamageCause::Void,
    });
    h.app.update();
    let frames = h.helper.collect_received();
    assert_eq!(frames.first::<HealthUpdateS2c>().health, 0.0);
    assert_eq!(h.app.world.get::<Health>(h.client), Some(&Health(0.0)));

    h.app
        .world
        .send_event(RequestRespawnEvent { client: h.client });
    h.app.update();
    let frames = h.helper.collect_received();
    frames.assert_order::<(PlayerRespawnS2c, HealthUpdateS2c)>();
    assert_eq!(frames.first::<HealthUpdateS2c>().health, 20.0);
}

#[test]
fn falling_into_the_void_kills() {
    let mut h = harness();
    h.app.world.get_mut::<Position>(h.client).unwrap().0.y = -200.0;
    // Vanilla 1.20.1: 4 points a tick, held off by the 10-tick frames of the last blow, so
    // 20 health lasts five blows, six with what a full belly heals meanwhile.
    let mut ticks = 0;
    while h.app.world.get::<Health>(h.client) != Some(&Health(0.0)) && ticks < 100 {
        h.app.update();
        ticks += 1;
    }
    assert!((40..=60).contains(&ticks), "died after {ticks} ticks");
}

#[test]
fn absurd_console_input_is_refused_without_a_hang_or_panic() {
    let mut h = harness();
    let huge = h.run("fill -3000000000 0 0 3000000000 1 1 stone");
    assert!(huge.starts_with("error="), "{huge}");
    assert!(h.run("fill 0 0 0 1 1 1 not_a_block").starts_with("error="));
    assert!(h.run("summon zombie 1 2 3 dragon").starts_with("error="));
    assert!(h.run("give tester not_an_item").starts_with("error="));
    assert!(h.run("tp nobody 0 0 0").starts_with("error="));
    assert!(h.run("time set 99999999999999").starts_with("usage:"));
    let beyond = h.run("tp tester 1e9 64 -1e9");
    assert_eq!(beyond, "error=\"Invalid position for teleport\"");
    // The far edge of the world is allowed, and costs no hang.
    let far = h.run("tp tester 29999999 64 -29999999");
    assert!(far.starts_with("teleported=tester"), "{far}");
    for _ in 0..5 {
        h.app.update();
    }
}

#[test]
fn cached_block_reads_and_walkability_facts_match_the_layer() {
    let mut h = harness();
    horde::headless::run_until_loaded(&mut h.app);
    let spawn = BlockPos::from_pos(h.spawn_point());
    // Every read agrees with the layer: the block, and the facts paths read (solid, water,
    // loaded) from the terrain threads' walkability bits.
    let check =
        |h: &mut Harness, xs: std::ops::Range<i32>, zs: std::ops::Range<i32>, ys: &[i32]| {
            let mut layers = h.app.world.query::<&ChunkLayer>();
            let layer = layers.single(&h.app.world);
            let cached = LayerVoxels::new(layer);
            let nav = NavVoxels::new(h.app.world.resource::<Nav>(), layer);
            let (mut loaded, mut unloaded) = (0, 0);
            for x in xs.clone() {
                for z in zs.clone() {
                    for &y in ys {
                        let pos = BlockPos::new(x, y, z);
                        let expected = layer.block(pos).map(|b| b.state);
                        assert_eq!(cached.block(pos), expected, "at {pos:?}");
                        let solid = expected.is_none_or(horde::world::is_solid);
                        let liquid = expected.is_some_and(|b| b.is_liquid());
                        assert_eq!(nav.solid(pos), solid, "solid at {pos:?}");
                        assert_eq!(nav.liquid(pos), liquid, "liquid at {pos:?}");
                        assert_eq!(nav.loaded(pos), expected.is_some(), "loaded at {pos:?}");
                        let column = nav.column(x, z, y, 3);
                        assert_eq!(column, cached.column(x, z, y, 3), "column at {pos:?}");
                        match expected {
                            Some(_) => loaded += 1,
                            None => unloaded += 1,
                        }
                    }
                }
            }
            (loaded, unloaded)
        };
    // Across chunk borders, negative coordinates, below and above the world, and out past the
    // loaded area.
    let ys = [
        -70, -65, -64, -1, 0, 15, 16, 62, 63, 64, 100, 318, 319, 320, 400,
    ];
    let xs = ((spawn.x - 300)..(spawn.x + 300)).step_by(7);
    let (loaded, unloaded) = xs.fold((0, 0), |(l, u), x| {
        let (dl, du) = check(&mut h, x..x + 1, spawn.z - 300..spawn.z + 300, &ys);
        (l + dl, u + du)
    });
    assert!(
        loaded > 1000 && unloaded > 1000,
        "{loaded} loaded, {unloaded} not"
    );

    // An edit reaches the facts by the next tick: water, then stone, then air again.
    let (lo, hi) = (
        BlockPos::new(spawn.x - 3, spawn.y - 2, spawn.z - 3),
        BlockPos::new(spawn.x + 3, spawn.y + 2, spawn.z + 3),
    );
    for block in ["water", "stone", "air"] {
        let filled = h.run(&format!(
            "fill {} {} {} {} {} {} {block}",
            lo.x, lo.y, lo.z, hi.x, hi.y, hi.z
        ));
        assert!(filled.starts_with("filled=245"), "{filled}");
        h.app.update();
        let ys: Vec<i32> = (lo.y - 1..=hi.y + 1).collect();
        check(&mut h, lo.x - 1..hi.x + 2, lo.z - 1..hi.z + 2, &ys);
        let mut layers = h.app.world.query::<&ChunkLayer>();
        let nav = NavVoxels::new(h.app.world.resource::<Nav>(), layers.single(&h.app.world));
        assert_eq!(nav.liquid(spawn), block == "water", "{block}");
    }
}

#[test]
fn a_departed_players_chunks_go_when_their_retention_ends_and_the_spawn_chunks_stay() {
    let mut config = horde::config::Config::default();
    config.spawning.enabled = false;
    config.chunks.retention_ticks = 5;
    let mut h = harness_with(config);
    let loaded = |app: &mut App| {
        let mut layers = app.world.query::<&ChunkLayer>();
        let mut chunks: Vec<ChunkPos> =
            layers.single(&app.world).chunks().map(|(p, _)| p).collect();
        chunks.sort_by_key(|p| (p.x, p.z));
        chunks
    };
    let spawn_chunks: Vec<ChunkPos> = (-SPAWN_CHUNK_RADIUS..=SPAWN_CHUNK_RADIUS)
        .flat_map(|x| (-SPAWN_CHUNK_RADIUS..=SPAWN_CHUNK_RADIUS).map(move |z| ChunkPos::new(x, z)))
        .collect();
    h.view(6);
    assert!(loaded(&mut h.app).len() > spawn_chunks.len() + 100);
    // Its connection closes: Valence takes the client away and its view with it.
    h.app.world.entity_mut(h.client).remove::<Client>();
    horde::headless::run_until(&mut h.app, "only the spawn chunks are left", |app| {
        loaded(app) == spawn_chunks
    });
    let report = h.app.world.resource::<ChunkLifecycle>().report();
    assert!(
        report.starts_with(&format!("loaded={} ", spawn_chunks.len())),
        "{report}"
    );
    assert!(
        report.contains(" unload_p50=5 "),
        "dropped at the end of the retention: {report}"
    );
}

#[test]
fn the_server_base_alone_answers_game_commands_as_not_available() {
    // The load harness's floor runs the base without zombies, packs, hunts or saving.
    let dir = support::TempDir::new("base");
    let mut app = horde::build_base(horde::Launch {
        config: horde::config::Config::default(),
        config_path: None,
        world_dir: dir.path().to_path_buf(),
        network: false,
        stdin: false,
    })
    .unwrap();
    app.update();
    let mut run = |line: &str| {
        let command = horde::console::command::parse(line).unwrap();
        horde::console::execute(&mut app.world, command)
    };
    for line in [
        "zombies",
        "packs",
        "hunt",
        "hunt start colosseum",
        "hunt stop",
        "summon zombie ~ ~ ~",
    ] {
        assert_eq!(
            run(line),
            "error=\"not available on this server\"",
            "{line}"
        );
    }
    assert!(run("save-all").starts_with("saved=false error="));
    assert!(run("time query").starts_with("daytime="));
    assert!(run("phase").starts_with("phase=0 "));
}

/// The entity ids of the entities spawned and destroyed for the client in `frames`.
fn spawned_and_destroyed(frames: &PacketFrames) -> (Vec<i32>, Vec<i32>) {
    let (mut spawned, mut destroyed) = (Vec::new(), Vec::new());
    for frame in &frames.0 {
        if frame.id == EntitySpawnS2c::ID {
            spawned.push(frame.decode::<EntitySpawnS2c>().unwrap().entity_id.0);
        } else if frame.id == EntitiesDestroyS2c::ID {
            let ids = frame.decode::<EntitiesDestroyS2c>().unwrap().entity_ids;
            destroyed.extend(ids.iter().map(|id| id.0));
        }
    }
    (spawned, destroyed)
}

#[test]
fn a_player_is_sent_the_zombies_within_tracking_range_only() {
    let mut config = horde::config::Config::default();
    config.spawning.enabled = false;
    config.lod.tracking_range = 64.0;
    let mut h = harness_with(config);
    // The mock client asks for a small view; a vanilla one's sees past the tracking range.
    h.app
        .world
        .get_mut::<ViewDistance>(h.client)
        .unwrap()
        .set(10);
    horde::headless::run_until_loaded(&mut h.app);
    let spawn = h.spawn_point();
    // Dry ground at x in `xs`, on the player's row.
    let ground = |h: &mut Harness, xs: std::ops::Range<i32>| {
        let z = spawn.z.floor() as i32;
        let layer = h
            .app
            .world
            .query_filtered::<&ChunkLayer, With<horde::world::Overworld>>()
            .single(&h.app.world);
        xs.clone()
            .find_map(|x| horde::world::standable_top(layer, x, z).map(|y| BlockPos::new(x, y, z)))
            .unwrap_or_else(|| panic!("no dry ground at x in {xs:?}"))
    };
    // Zombies are filed by chunk and the player is at x = 0.5: the near zombie's chunk starts
    // 31.5 blocks away, the far one's 95.5, and the one past the range's 79.5 (as a 32-block
    // area it would start at 63.5, within range).
    let near_at = ground(&mut h, 35..45);
    let (past_at, far_at) = (ground(&mut h, 82..94), ground(&mut h, 97..111));
    let edge_at = ground(&mut h, 68..76);
    let near = h.summon(near_at);
    // Nothing takes it off before it is sent home below, or it could cross into the next
    // chunk first: no stroll or walk to shade (it dozes), and no chase (the player is in
    // creative; at x = 15 the player would be within its follow range).
    h.app.world.entity_mut(near).insert(Dozing);
    h.run("gamemode creative tester");
    let past = h.summon(past_at);
    let edge = h.summon(edge_at);
    let far = h.summon(far_at);
    let id = |h: &Harness, e: Entity| h.app.world.get::<EntityId>(e).unwrap().get();
    let step = |h: &mut Harness| {
        h.app.update();
        h.app.update();
        spawned_and_destroyed(&h.helper.collect_received())
    };
    let (spawned, _) = step(&mut h);
    // Entity ids are given out on the tick after a summon.
    let (near_id, far_id) = (id(&h, near), id(&h, far));
    assert!(spawned.contains(&near_id), "{spawned:?}");
    assert!(!spawned.contains(&id(&h, past)), "{spawned:?}");
    assert!(!spawned.contains(&far_id), "{spawned:?}");

    // 60 blocks out, the far one is in range; back home, it is out again.
    let moved = |h: &mut Harness, dx: f64| {
        h.app.world.get_mut::<Position>(h.client).unwrap().0 = spawn + DVec3::new(dx, 0.0, 0.0);
    };
    moved(&mut h, 60.0);
    let (spawned, _) = step(&mut h);
    assert!(spawned.contains(&far_id), "{spawned:?}");
    moved(&mut h, 0.0);
    let (_, destroyed) = step(&mut h);
    assert!(destroyed.contains(&far_id), "{destroyed:?}");

    // With a narrower range (a reload), 60 blocks out is not close enough.
    let mut config = h.app.world.resource::<horde::config::Config>().clone();
    config.lod.tracking_range = 16.0;
    h.app.world.insert_resource(config);
    moved(&mut h, 60.0);
    let (spawned, _) = step(&mut h);
    assert!(!spawned.contains(&far_id), "{spawned:?}");

    // Within one chunk a player's walk still brings zombies into range: the chunks are chosen
    // from where it stands. At range 60 the edge zombie's chunk starts 63.5 blocks from
    // x = 0.5, and 48.5 from x = 15.5, in the same chunk.
    let mut config = h.app.world.resource::<horde::config::Config>().clone();
    config.lod.tracking_range = 60.0;
    h.app.world.insert_resource(config);
    moved(&mut h, 0.0);
    let (_, destroyed) = step(&mut h);
    let edge_id = id(&h, edge);
    assert!(destroyed.contains(&edge_id), "{destroyed:?}");
    moved(&mut h, 15.0);
    let (spawned, _) = step(&mut h);
    assert!(spawned.contains(&edge_id), "{spawned:?}");

    // Walking into a chunk no zombie was in, a zombie is neither despawned nor spawned again
    // for the player who sees both: a real client would lose the entity.
    let mut config = h.app.world.resource::<horde::config::Config>().clone();
    config.lod.tracking_range = 64.0;
    h.app.world.insert_resource(config);
    moved(&mut h, 0.0);
    step(&mut h);
    let layer_of = |h: &Harness| h.app.world.get::<EntityLayerId>(near).unwrap().0;
    let first_layer = layer_of(&h);
    let layers_before: Vec<Entity> = h
        .app
        .world
        .query_filtered::<Entity, With<EntityLayer>>()
        .iter(&h.app.world)
        .collect();
    h.run("time set 14000");
    h.app.world.get_mut::<March>(near).unwrap().0 = Some(spawn);
    let (mut spawned, mut destroyed) = (Vec::new(), Vec::new());
    for _ in 0..1200 {
        let (s, d) = step(&mut h);
        spawned.extend(s);
        destroyed.extend(d);
        if layer_of(&h) != first_layer {
            break;
        }
    }
    assert_ne!(
        layer_of(&h),
        first_layer,
        "the zombie did not walk to the next chunk"
    );
    assert!(
        !layers_before.contains(&layer_of(&h)),
        "the next chunk had a layer already: this crossing does not test a fresh one"
    );
    let (s, d) = step(&mut h);
    spawned.extend(s);
    destroyed.extend(d);
    assert!(!destroyed.contains(&near_id), "{destroyed:?}");
    assert!(!spawned.contains(&near_id), "{spawned:?}");
}

#[test]
fn a_player_hears_a_zombie_groan_now_and_then() {
    use valence::protocol::packets::play::PlaySoundS2c;
    use valence::protocol::sound::SoundId;
    use valence::protocol::Sound;
    let mut h = harness();
    h.run("time set midnight");
    h.run("gamemode creative tester");
    let at = BlockPos::from_pos(h.spawn_point()) + BlockPos::new(6, 0, 0);
    h.summon(at);
    let groan = Sound::EntityZombieAmbient.to_raw() as i32;
    let mut heard = 0;
    for _ in 0..600 {
        h.app.update();
        for frame in h.helper.collect_received().0 {
            if frame.id != PlaySoundS2c::ID {
                continue;
            }
            if let Ok(PlaySoundS2c {
                id: SoundId::Reference { id },
                ..
            }) = frame.decode::<PlaySoundS2c>()
            {
                heard += usize::from(id.0 == groan);
            }
        }
    }
    // About one every 120 ticks.
    assert!((2..=10).contains(&heard), "{heard} groans in 600 ticks");
}
