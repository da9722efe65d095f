//! Packs, headless: summoned zombies form a pack; and a soak of a few thousand ticks with
//! hundreds of zombies, through forming, merging, straying, dematerialising and restoring,
//! that loses and duplicates nobody.

mod support;

use std::collections::HashSet;

use horde::common::body::Dying;
use horde::config::Config;
use horde::pack::{PackBrain, PackState, Packs};
use horde::world::{standable_top, Overworld};
use horde::zombie::Zombie;
use support::headless::{harness_with, Harness};
use valence::prelude::*;

fn config() -> Config {
    let mut config = Config::default();
    config.spawning.enabled = false;
    // Short grace and retention so that ghosts come and go within the test.
    config.pack.dematerialise_sweeps = 5;
    config.chunks.retention_ticks = 20;
    config
}

/// Summons `n` zombies on the ground, `spacing` blocks apart in rows of 8 around `(x, z)`.
fn summon_group(h: &mut Harness, x: i32, z: i32, n: usize, spacing: i32) {
    horde::headless::run_until_loaded(&mut h.app);
    // Dry ground only (the spawn is by a lake): scan rows outward until `n` are placed.
    let mut placed = 0;
    for i in 0..(n as i32 * 16) {
        if placed == n {
            break;
        }
        let (bx, bz) = (x + (i % 8 - 4) * spacing, z + (i / 8 - 4) * spacing);
        let layer = h
            .app
            .world
            .query_filtered::<&ChunkLayer, With<Overworld>>()
            .single(&h.app.world);
        let Some(y) = standable_top(layer, bx, bz) else {
            continue;
        };
        h.run(&format!(
            "summon zombie {} {y} {}",
            bx as f64 + 0.5,
            bz as f64 + 0.5
        ));
        placed += 1;
    }
}

fn living(h: &mut Harness) -> Vec<(Entity, Option<u64>)> {
    h.app
        .world
        .query_filtered::<(Entity, &PackBrain), (With<Zombie>, Without<Dying>)>()
        .iter(&h.app.world)
        .map(|(e, b)| (e, b.pack))
        .collect()
}

/// Nobody lost, nobody twice: every member listed once, in the pack its brain names.
fn check_books(h: &mut Harness, population: usize) {
    let zombies = living(h);
    let packs = h.app.world.resource::<Packs>();
    let ghosts = packs.ghost_members();
    assert_eq!(zombies.len() + ghosts, population, "population conserved");
    let mut seen = HashSet::new();
    for pack in packs.iter() {
        if pack.state == PackState::Ghost {
            assert!(pack.members.is_empty());
        }
        for member in &pack.members {
            assert!(seen.insert(*member), "{member:?} is in two packs");
            let brain = zombies.iter().find(|(e, _)| e == member).map(|(_, p)| *p);
            assert_eq!(
                brain,
                Some(Some(pack.id)),
                "member {member:?} of pack {}",
                pack.id
            );
        }
    }
    for (zombie, pack) in &zombies {
        if let Some(id) = pack {
            assert!(
                seen.contains(zombie),
                "{zombie:?} thinks it is in pack {id}"
            );
        }
    }
}

#[test]
fn six_zombies_near_each_other_form_one_pack() {
    let mut h = harness_with(config());
    *h.app.world.get_mut::<GameMode>(h.client).unwrap() = GameMode::Creative;
    h.run("time set midnight");
    let s = h.spawn_point();
    summon_group(&mut h, s.x as i32 + 8, s.z as i32, 6, 1);
    let mut formed = false;
    for _ in 0..400 {
        h.app.update();
        let packs = h.app.world.resource::<Packs>();
        if packs.iter().any(|p| p.members.len() == 6) {
            formed = true;
            break;
        }
    }
    let report = h.run("packs");
    assert!(formed, "{report}");
    assert!(
        report.contains("members=6 ghosts=0 state=materialised"),
        "{report}"
    );
    check_books(&mut h, 6);
}

#[test]
fn soak_hundreds_of_zombies_for_thousands_of_ticks_lose_and_duplicate_nobody() {
    let mut h = harness_with(config());
    *h.app.world.get_mut::<GameMode>(h.client).unwrap() = GameMode::Creative;
    h.run("time set 14000");
    let s = h.spawn_point();
    for (gx, gz) in [(-30, -30), (30, -30), (-30, 30), (30, 30), (0, 0)] {
        summon_group(&mut h, s.x as i32 + gx, s.z as i32 + gz, 60, 2);
    }
    h.app.update();
    let population = living(&mut h).len();
    assert!(population >= 250, "{population} summoned");
    let run = |h: &mut Harness, ticks: u32| {
        for tick in 0..ticks {
            h.app.update();
            if tick % 100 == 0 {
                check_books(h, population);
            }
        }
    };
    run(&mut h, 1000);
    // Walk away so packs dematerialise...
    h.run("tp tester ~5000 ~ ~");
    run(&mut h, 800);
    // ...then go and see where ghost packs have walked meanwhile, waiting each time for the
    // terrain there (however long the worker takes) and for the pack to come back.
    for _ in 0..3 {
        let ghost = h
            .app
            .world
            .resource::<Packs>()
            .iter()
            .filter(|p| p.state == PackState::Ghost)
            .min_by_key(|p| p.id)
            .map(|p| (p.id, p.centroid, p.y));
        let Some((id, at, y)) = ghost else {
            break;
        };
        // Night again for every visit: however long the visits take, no sunrise burns anyone.
        h.run("time set 14000");
        h.run(&format!("tp tester {} {} {}", at.x, y + 2.0, at.y));
        horde::headless::run_until_loaded(&mut h.app);
        for _ in 0..400 {
            run(&mut h, 20);
            let packs = h.app.world.resource::<Packs>();
            if packs.get(id).is_none_or(|p| p.state != PackState::Ghost) {
                break;
            }
        }
    }
    check_books(&mut h, population);
    let summary = h.run("packs");
    let stat = |key: &str| -> u64 {
        summary
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{key} in {summary}"))
    };
    assert!(stat("formed") >= 5, "{summary}");
    assert!(
        stat("dematerialised") >= 1,
        "packs went ghost when nobody watched: {summary}"
    );
    assert!(stat("restores") >= 1, "and came back: {summary}");
}
