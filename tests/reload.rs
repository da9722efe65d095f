//! Reloads, headless: each plugin takes its part of a reload, by name. Removing the running
//! hunt's preset leaves the round as it began; reordering and removing zombie types changes
//! no zombie's type, alive, in a ghost pack, or saved and loaded again.

mod support;

use std::collections::BTreeMap;

use horde::config::{Config, ConfigPath};
use horde::pack::Packs;
use horde::zombie::{Zombie, ZombieKinds, ZombieRecord};
use support::headless::{harness_with, Harness};
use valence::math::DVec2;
use valence::prelude::*;
use valence::protocol::packets::play::game_state_change_s2c::GameEventKind;

fn quiet_config() -> Config {
    let mut config = Config::default();
    config.spawning.enabled = false;
    config
}

/// A harness whose `reload` reads `config.toml` in its world folder.
fn reloadable(config: Config) -> Harness {
    let mut h = harness_with(config.clone());
    let path = h.world.path().join("config.toml");
    write(&path, &config);
    h.app.insert_resource(ConfigPath(Some(path)));
    h
}

fn write(path: &std::path::Path, config: &Config) {
    std::fs::write(path, toml::to_string(config).unwrap()).unwrap();
}

fn reload_with(h: &mut Harness, config: &Config) -> String {
    let path = h.world.path().join("config.toml");
    write(&path, config);
    h.run("reload")
}

#[test]
fn removing_the_running_hunts_preset_leaves_the_round_as_it_began() {
    let mut h = reloadable(quiet_config());
    *h.app.world.get_mut::<GameMode>(h.client).unwrap() = GameMode::Creative;
    assert_eq!(
        h.run("hunt start colosseum"),
        "hunt=colosseum starting=true"
    );
    for _ in 0..200 {
        h.app.update();
    }
    let mut edited = quiet_config();
    edited.hunt.presets.retain(|p| p.name != "colosseum");
    let answer = reload_with(&mut h, &edited);
    assert!(answer.starts_with("reloaded=true"), "{answer}");
    for _ in 0..400 {
        h.app.update();
    }
    let status = h.run("hunt");
    assert!(status.starts_with("hunt=colosseum "), "{status}");
    assert!(!status.contains("spawned=0 "), "waves go on: {status}");

    // Through a restart too: the save holds the preset as the round began.
    assert!(h.run("save-all").starts_with("saved=true "));
    let mut restarted = horde::headless::start(edited.clone(), h.world.path()).unwrap();
    restarted.update();
    let resumed = horde::console::execute(
        &mut restarted.world,
        horde::console::command::parse("hunt").unwrap(),
    );
    assert!(resumed.starts_with("hunt=colosseum "), "{resumed}");
    drop(restarted);

    assert_eq!(h.run("hunt stop"), "stopping=true");
    h.app.update();
    assert_eq!(h.run("hunt"), "hunt=none");
    assert!(
        h.run("hunt start colosseum")
            .starts_with("error=\"no hunt preset colosseum\""),
        "the next round follows the new file"
    );
}

/// Every zombie's type name, alive or in a ghost pack, counted.
fn type_names(app: &mut App) -> BTreeMap<String, usize> {
    let kinds = app.world.resource::<ZombieKinds>().clone();
    let mut names = BTreeMap::new();
    for zombie in app.world.query::<&Zombie>().iter(&app.world) {
        *names
            .entry(kinds.get(zombie.kind).name.clone())
            .or_default() += 1;
    }
    for pack in app.world.resource::<Packs>().iter() {
        for ghost in &pack.ghosts {
            *names
                .entry(kinds.get(ghost.kind as usize).name.clone())
                .or_default() += 1;
        }
    }
    names
}

#[test]
fn reordered_and_removed_types_keep_every_zombies_name_through_save_and_load() {
    let config = quiet_config();
    let mut h = reloadable(config.clone());
    *h.app.world.get_mut::<GameMode>(h.client).unwrap() = GameMode::Creative;
    h.run("time set midnight");
    let types: Vec<String> = config
        .zombies
        .types
        .iter()
        .map(|t| t.name.clone())
        .collect();
    for (i, name) in types.iter().enumerate() {
        let answer = h.run(&format!("summon zombie ~{} ~ ~{} {name}", 3 + i, i % 3));
        assert!(answer.starts_with("summoned="), "{answer}");
    }
    // A ghost pack far from everyone with one member of each type.
    let kinds = h.app.world.resource::<ZombieKinds>().clone();
    let ghosts: Vec<ZombieRecord> = types
        .iter()
        .map(|name| ZombieRecord::fresh(kinds.find(name).unwrap(), &kinds))
        .collect();
    let far = DVec2::new(5000.0, 5000.0);
    h.app.world.resource_mut::<Packs>().adopt_ghost(
        far,
        64.0,
        ghosts,
        config.server.seed,
        &kinds,
        &config.pack,
    );
    for _ in 0..20 {
        h.app.update();
    }
    let before = type_names(&mut h.app);
    assert_eq!(before.values().sum::<usize>(), 2 * types.len());

    // Types reversed, one removed (and taken out of its hunt preset).
    let mut edited = config.clone();
    edited.zombies.types.reverse();
    edited.zombies.types.retain(|t| t.name != "slow_zombie");
    for preset in &mut edited.hunt.presets {
        preset.types.retain(|t| t != "slow_zombie");
    }
    let answer = reload_with(&mut h, &edited);
    assert!(answer.contains("zombies.types"), "{answer}");
    for _ in 0..20 {
        h.app.update();
    }
    assert_eq!(type_names(&mut h.app), before, "after the reload");
    let answer = h.run("summon zombie ~ ~ ~ slow_zombie");
    assert!(
        answer.starts_with("error=\"no zombie type slow_zombie\""),
        "{answer}"
    );

    assert!(h.run("save-all").starts_with("saved=true "));
    let mut loaded = horde::headless::start(edited, h.world.path()).unwrap();
    for _ in 0..20 {
        loaded.update();
    }
    assert_eq!(type_names(&mut loaded), before, "after a restart");
}

#[test]
fn turning_the_weather_cycle_off_keeps_the_sky_as_it_is_until_it_is_back() {
    // A storm of one second, then the cycle off (vanilla's doWeatherCycle): it outlasts its
    // time; with the cycle back it ends, and the client hears the rain stop.
    let mut h = reloadable(quiet_config());
    assert!(h.run("weather thunder 1").starts_with("weather="));
    h.app.update();
    let mut off = quiet_config();
    off.weather.enabled = false;
    let answer = reload_with(&mut h, &off);
    assert!(answer.contains("weather.enabled"), "{answer}");
    for _ in 0..120 {
        h.app.update();
    }
    let weather = h.run("weather");
    assert!(weather.starts_with("weather=thunder "), "{weather}");
    h.helper.collect_received();
    reload_with(&mut h, &quiet_config());
    for _ in 0..120 {
        h.app.update();
    }
    let weather = h.run("weather");
    assert!(!weather.starts_with("weather=thunder "), "{weather}");
    // vanilla's "stop raining" (id 2, Valence's `BeginRaining`).
    let told = h.game_events();
    assert!(
        told.contains(&GameEventKind::BeginRaining),
        "the client hears the rain stop: {told:?}"
    );
}

/// How many ticks found the chase rules rebuilt.
#[derive(Resource, Default)]
struct Rebuilt(u32);

fn count_rebuilds(rules: Res<horde::zombie::ChaseRules>, mut rebuilt: ResMut<Rebuilt>) {
    if rules.is_changed() {
        rebuilt.0 += 1;
    }
}

#[test]
fn a_reload_rebuilds_the_chase_rules_only_when_their_keys_change() {
    let config = quiet_config();
    let mut h = reloadable(config.clone());
    h.app.insert_resource(Rebuilt::default()).add_systems(
        Update,
        count_rebuilds.after(horde::schedule::TickSet::Config),
    );
    h.app.update();
    h.app.world.resource_mut::<Rebuilt>().0 = 0;
    let mut edited = config.clone();
    edited.pack.max_size = 12;
    assert!(reload_with(&mut h, &edited).contains("changed=pack.max_size "));
    h.app.update();
    assert_eq!(h.app.world.resource::<Rebuilt>().0, 0, "packs only");
    edited.chase.hop_radius = 5.0;
    assert!(reload_with(&mut h, &edited).contains("changed=chase.hop_radius "));
    h.app.update();
    assert_eq!(
        h.app.world.resource::<Rebuilt>().0,
        1,
        "the chase's own key"
    );
    let rules = h.app.world.resource::<horde::zombie::ChaseRules>();
    assert_eq!(rules.hop.radius, 5.0);
}
