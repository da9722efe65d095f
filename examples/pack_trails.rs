//! Records pack trails over one simulated night (headless, seeded) and draws them as an SVG
//! map: solid lines where a pack walked in the world, dashed where it went on as a ghost, dots
//! at its leg destinations, crosses where it merged into another. Run through
//! `scripts/pack-trails.sh [OUT.svg]`.

use rand::RngCore;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use horde::config::Config;
use horde::pack::{PackState, Packs};
use horde::world::{standable_top, Overworld, WorldSpawn};
use valence::math::DVec2;
use valence::prelude::*;
use valence::testing::create_mock_client;

/// One sample of a pack: where, whether a ghost, where it was heading.
struct Sample {
    at: DVec2,
    ghost: bool,
    dest: DVec2,
}

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "pack-trails.svg".into());
    let dir = std::env::temp_dir().join(format!("horde-trails-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut config = Config::default();
    config.spawning.enabled = false;
    let mut app = horde::headless::start(config, &dir).unwrap();
    // A watcher in creative at the spawn: zombies near it act, the rest go on as ghosts.
    let (mut bundle, _) = create_mock_client("watcher");
    bundle.view_distance = ViewDistance::new(10);
    bundle.game_mode = GameMode::Creative;
    let watcher = app.world.spawn(bundle).id();
    horde::headless::run_until_loaded(&mut app);
    *app.world.get_mut::<GameMode>(watcher).unwrap() = GameMode::Creative;
    let spawn = app.world.resource::<WorldSpawn>().pos.unwrap();
    let summon = |app: &mut App, x: i32, z: i32| {
        let layer = app
            .world
            .query_filtered::<&ChunkLayer, With<Overworld>>()
            .single(&app.world);
        standable_top(layer, x, z).map(|y| format!("summon zombie {x}.5 {y} {z}.5"))
    };
    let mut placed = 0;
    let mut stream = horde::random::generator(7);
    while placed < 240 {
        let seed = stream.next_u64();
        let angle = (seed % 6283) as f64 / 1000.0;
        let r = 10.0 + (seed >> 20) as f64 % 90.0;
        let (x, z) = (
            (spawn.x + angle.cos() * r) as i32,
            (spawn.z + angle.sin() * r) as i32,
        );
        if let Some(line) = summon(&mut app, x, z) {
            let command = horde::console::command::parse(&line).unwrap();
            horde::console::execute(&mut app.world, command);
            placed += 1;
        }
    }
    horde::console::execute(
        &mut app.world,
        horde::console::command::parse("time set 13000").unwrap(),
    );

    let mut trails: BTreeMap<u64, Vec<Sample>> = BTreeMap::new();
    let mut merged_at: Vec<DVec2> = Vec::new();
    for tick in 0..10_000 {
        app.update();
        if tick % 100 != 0 {
            continue;
        }
        let packs = app.world.resource::<Packs>();
        for (id, trail) in &trails {
            if packs.get(*id).is_none() && trail.last().is_some_and(|s| !s.ghost) {
                if let Some(last) = trail.last() {
                    if !merged_at.contains(&last.at) {
                        merged_at.push(last.at);
                    }
                }
            }
        }
        for pack in packs.iter() {
            trails.entry(pack.id).or_default().push(Sample {
                at: pack.centroid,
                ghost: pack.state == PackState::Ghost,
                dest: pack.dest,
            });
        }
    }
    let summary = app.world.resource::<Packs>().summary();
    std::fs::write(&out, draw(&trails, &merged_at, &summary)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    println!("wrote {out}: {} packs; {summary}", trails.len());
}

fn draw(trails: &BTreeMap<u64, Vec<Sample>>, merged: &[DVec2], summary: &str) -> String {
    let points = trails.values().flatten().map(|s| s.at);
    let (mut min, mut max) = (DVec2::splat(f64::MAX), DVec2::splat(f64::MIN));
    for p in points {
        min = min.min(p);
        max = max.max(p);
    }
    let span = (max - min).max_element().max(1.0);
    let size = 900.0;
    let pad = 40.0;
    let map = |p: DVec2| {
        (
            pad + (p.x - min.x) / span * (size - 2.0 * pad),
            pad + (p.y - min.y) / span * (size - 2.0 * pad),
        )
    };
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{}" font-family="sans-serif" font-size="13">"#,
        size + 40.0
    );
    let _ = writeln!(
        svg,
        r##"<rect width="100%" height="100%" fill="#10141c"/>"##
    );
    for (i, (id, trail)) in trails.iter().enumerate() {
        let hue = (i * 137) % 360;
        let colour = format!("hsl({hue},70%,62%)");
        // One polyline per stretch in the world or as a ghost.
        let mut start = 0;
        while start + 1 < trail.len() {
            let ghost = trail[start + 1].ghost;
            let mut end = start + 1;
            while end + 1 < trail.len() && trail[end + 1].ghost == ghost {
                end += 1;
            }
            let points: Vec<String> = trail[start..=end]
                .iter()
                .map(|s| {
                    let (x, y) = map(s.at);
                    format!("{x:.0},{y:.0}")
                })
                .collect();
            let dash = if ghost {
                r#" stroke-dasharray="5 4""#
            } else {
                ""
            };
            let _ = writeln!(
                svg,
                r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>"#,
                points.join(" ")
            );
            start = end;
        }
        let mut dests: Vec<DVec2> = trail.iter().map(|s| s.dest).collect();
        dests.dedup();
        for d in dests
            .into_iter()
            .filter(|d| d.cmpge(min).all() && d.cmple(max).all())
        {
            let (x, y) = map(d);
            let _ = writeln!(
                svg,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="none" stroke="{colour}"/>"#
            );
        }
        if let Some(first) = trail.first() {
            let (x, y) = map(first.at);
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" fill="{colour}">{id}</text>"#,
                x + 4.0,
                y - 4.0
            );
        }
    }
    for m in merged {
        let (x, y) = map(*m);
        let _ = writeln!(
            svg,
            r#"<path d="M{:.1} {:.1}l8 8m0 -8l-8 8" stroke="white" stroke-width="2"/>"#,
            x - 4.0,
            y - 4.0
        );
    }
    let _ = writeln!(
        svg,
        r##"<text x="{pad}" y="{:.0}" fill="#eeeeee">One night, 240 zombies, seed-driven legs. Solid: in the world; dashed: ghost; circles: leg destinations; crosses: merges. {:.0} blocks across.</text>"##,
        size + 10.0,
        span
    );
    let _ = writeln!(
        svg,
        r##"<text x="{pad}" y="{:.0}" fill="#9aa">{summary}</text>"##,
        size + 28.0
    );
    svg.push_str("</svg>\n");
    svg
}
