//! Hunts, headless: waves within the alive and total caps, a boss bar with the kill goal,
//! victory when the goal is met, time-out and `hunt stop` clearing the round.

mod support;

use horde::config::{Config, HuntPreset};
use horde::hunt::HuntZombie;
use horde::zombie::{Dying, Vitality};
use support::headless::{harness_with, Harness};
use valence::prelude::*;
use valence::protocol::packets::play::BossBarS2c;
use valence::protocol::Packet;

fn config(max_alive: u32, max_total: u32, round_time_s: f64) -> Config {
    let mut config = Config::default();
    config.spawning.enabled = false;
    config.hunt.presets = vec![HuntPreset {
        name: "trial".into(),
        types: vec!["zombie".into(), "fast_zombie".into()],
        max_spawn: 3,
        spawn_rate_s: 1.0,
        max_alive,
        max_total,
        round_time_s,
        spawn_points: vec![[3.0, 0.0], [0.0, 3.0]],
    }];
    config
}

fn hunt_zombies(h: &mut Harness) -> Vec<Entity> {
    h.app
        .world
        .query_filtered::<Entity, (With<HuntZombie>, Without<Dying>)>()
        .iter(&h.app.world)
        .collect()
}

fn field(line: &str, key: &str) -> u64 {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{key} in {line}"))
}

#[test]
fn waves_keep_within_both_caps_and_time_ends_the_round() {
    let mut h = harness_with(config(4, 7, 20.0));
    assert_eq!(h.run("hunt start trial"), "hunt=trial starting=true");
    assert!(
        h.run("hunt start trial").contains("error"),
        "one round at a time"
    );
    let (mut most_alive, mut spawned) = (0, 0);
    for tick in 0..300 {
        h.app.update();
        let alive = hunt_zombies(&mut h).len();
        most_alive = most_alive.max(alive);
        if tick % 20 == 5 {
            let status = h.run("hunt");
            spawned = field(&status, "spawned");
            // Free room under the alive cap by removing a zombie now and then.
            if let Some(&z) = hunt_zombies(&mut h).first() {
                h.app.world.entity_mut(z).insert(Despawned);
            }
        }
    }
    assert!(most_alive <= 4, "alive cap: {most_alive}");
    assert!(most_alive >= 3, "waves came: {most_alive}");
    assert_eq!(spawned, 7, "the total cap is reached and kept");
    for _ in 0..200 {
        h.app.update();
    }
    assert_eq!(h.run("hunt"), "hunt=none", "20 s are up");
    assert!(
        hunt_zombies(&mut h).is_empty(),
        "the round's zombies are cleared"
    );
}

#[test]
fn the_boss_bar_shows_the_goal_and_stop_clears_everything() {
    let mut h = harness_with(config(10, 10, 200.0));
    h.run("hunt start trial");
    for _ in 0..30 {
        h.app.update();
    }
    let frames = h.helper.collect_received();
    let bars = frames.0.iter().filter(|f| f.id == BossBarS2c::ID).count();
    assert!(bars >= 1, "the boss bar reached the player");
    assert!(!hunt_zombies(&mut h).is_empty());
    assert_eq!(h.run("hunt stop"), "stopping=true");
    h.app.update();
    h.app.update();
    assert!(hunt_zombies(&mut h).is_empty());
    assert_eq!(h.run("hunt"), "hunt=none");
}

#[test]
fn killing_the_goal_wins_the_round() {
    let mut h = harness_with(config(25, 40, 600.0));
    h.run("time set midnight");
    // Zombies leave creative players alone, so the player survives the swarm.
    *h.app.world.get_mut::<GameMode>(h.client).unwrap() = GameMode::Creative;
    h.run("give tester iron_sword");
    h.run("hunt start trial");
    let mut kills = 0;
    for _ in 0..4000 {
        h.app.update();
        if h.run("hunt") == "hunt=none" {
            break;
        }
        let Some(&z) = hunt_zombies(&mut h).first() else {
            continue;
        };
        // Stand next to the zombie and strike it.
        let at = h.app.world.get::<Position>(z).unwrap().0;
        h.app.world.get_mut::<Position>(h.client).unwrap().0 = at + DVec3::new(1.0, 0.0, 0.0);
        let health = h.app.world.get::<Vitality>(z).unwrap().0;
        h.app.world.send_event(InteractEntityEvent {
            client: h.client,
            entity: z,
            sneaking: false,
            interact: EntityInteraction::Attack,
        });
        h.app.update();
        if h.app.world.get::<Vitality>(z).is_some_and(|v| v.0 <= 0.0) && health > 0.0 {
            kills += 1;
        }
    }
    assert_eq!(h.run("hunt"), "hunt=none", "the round ended");
    assert_eq!(kills, 20, "20 kills for one player");
    let kills_of_player = h.app.world.get::<horde::zombie::Kills>(h.client).unwrap().0;
    assert_eq!(kills_of_player, 20);
}
