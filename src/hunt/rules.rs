//! The arithmetic of a hunt, kept apart from the ECS so it can be checked on its own.
//!
//! The seed asks 20 + 7 (n - 1) kills of n players but spawns the same zombies for any n, so
//! from a few players on its goal could not be met. Here a round grows with its goal: for n
//! players waves and the total cap are the one-player figures times `goal(n) / goal(1)`,
//! rounded up, and the goal never asks more than the round has spawned plus what its waves
//! still to come surely bring. A round is sized for the most players it has had: players who
//! join late raise the goal only as far as the waves left allow, and players who leave lower
//! neither the goal (no victory handed out) nor the waves (so the goal stays within reach).

use crate::config::HuntPreset;

/// Kills the seed asks of `players` players: 20 + 7 (n - 1).
pub(super) fn seed_goal(players: u32) -> u32 {
    20 + 7 * players.max(1).saturating_sub(1)
}

/// How much bigger a round for `players` is than a round for one.
fn growth(players: u32) -> f64 {
    seed_goal(players) as f64 / seed_goal(1) as f64
}

/// `n` zombies of a one-player round, grown for `players`.
fn grown(n: u32, players: u32) -> u32 {
    (n as f64 * growth(players)).ceil() as u32
}

/// Zombies a round for `players` may spawn in all.
pub(super) fn total_cap(preset: &HuntPreset, players: u32) -> u32 {
    grown(preset.max_total, players)
}

/// Waves that come before the round's time is up, one every `spawn_rate_s` from the start.
pub(super) fn waves_in_round(preset: &HuntPreset, tick_rate: f64) -> u32 {
    let every = wave_ticks(preset, tick_rate);
    let round = (preset.round_time_s * tick_rate).ceil() as u64;
    (round.saturating_sub(1) / every) as u32
}

/// Waves still to come after `elapsed` ticks of the round.
fn waves_left(preset: &HuntPreset, elapsed: u64, tick_rate: f64) -> u32 {
    let came = (elapsed / wave_ticks(preset, tick_rate)) as u32;
    waves_in_round(preset, tick_rate).saturating_sub(came)
}

/// Ticks between waves.
pub(super) fn wave_ticks(preset: &HuntPreset, tick_rate: f64) -> u64 {
    (preset.spawn_rate_s * tick_rate).round().max(1.0) as u64
}

/// Where a round stands: ticks run, zombies spawned, and the goal set so far (0 at first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Progress {
    pub(super) elapsed: u64,
    pub(super) spawned: u32,
    pub(super) goal: u32,
}

/// The kill goal for `players` now: the seed's, but never more than the zombies the round may
/// spawn, nor more than it has spawned plus what its smallest waves still to come surely
/// bring; and never below the goal already set.
pub(super) fn kill_goal(
    preset: &HuntPreset,
    players: u32,
    progress: Progress,
    tick_rate: f64,
) -> u32 {
    let smallest_wave = grown(1, players).min(preset.max_alive);
    let to_come = waves_left(preset, progress.elapsed, tick_rate).saturating_mul(smallest_wave);
    let surely = progress.spawned.saturating_add(to_come);
    let goal = seed_goal(players)
        .min(total_cap(preset, players))
        .min(surely)
        .max(1);
    goal.max(progress.goal)
}

/// Index drawn by roulette on `weights` with `r` in `0.0..1.0`; all-zero weights draw evenly.
pub(super) fn roulette(weights: &[u32], r: f64) -> usize {
    let total: u64 = weights.iter().map(|&w| w as u64).sum();
    if total == 0 {
        return ((r * weights.len() as f64) as usize).min(weights.len().saturating_sub(1));
    }
    let mut ball = r * total as f64;
    for (i, &w) in weights.iter().enumerate() {
        if ball < w as f64 {
            return i;
        }
        ball -= w as f64;
    }
    weights.len() - 1
}

/// Zombies in the next wave for `players`: 1..=max_spawn drawn by `r` and grown with the goal,
/// cut so that neither the alive cap nor the round's total cap is passed (the seed counted the
/// dead as alive and overshot both).
pub(super) fn wave_size(
    preset: &HuntPreset,
    players: u32,
    alive: u32,
    spawned: u32,
    r: f64,
) -> u32 {
    let drawn = 1 + ((r * preset.max_spawn as f64) as u32).min(preset.max_spawn - 1);
    let room_alive = preset.max_alive.saturating_sub(alive);
    let room_total = total_cap(preset, players).saturating_sub(spawned);
    grown(drawn, players).min(room_alive).min(room_total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, HuntConfig};

    #[test]
    fn the_seed_goal_grows_with_players() {
        assert_eq!(seed_goal(1), 20);
        assert_eq!(seed_goal(6), 55);
        assert_eq!(seed_goal(0), 20);
    }

    /// A round where every wave is as small as it can be and players kill each zombie before
    /// the next wave: what it spawns in its time.
    fn unlucky_round(preset: &HuntPreset, players: u32, tick_rate: f64) -> u32 {
        let mut spawned = 0;
        for _ in 0..waves_in_round(preset, tick_rate) {
            spawned += wave_size(preset, players, 0, spawned, 0.0);
        }
        spawned
    }

    fn goal_at_start(preset: &HuntPreset, players: u32) -> u32 {
        kill_goal(preset, players, Progress::default(), 20.0)
    }

    #[test]
    fn every_goal_can_be_met_for_every_number_of_players() {
        let config = Config::default();
        for preset in &config.hunt.presets {
            for players in 1..=config.server.max_players {
                let goal = goal_at_start(preset, players);
                assert_eq!(
                    goal,
                    seed_goal(players),
                    "{} keeps the seed's goal at {players}",
                    preset.name
                );
                assert!(goal <= total_cap(preset, players));
                assert!(
                    unlucky_round(preset, players, 20.0) >= goal,
                    "{} at {players} players",
                    preset.name
                );
            }
        }
        // The seed's cap: Colosseum could not be won from 5 players, Mystery Forest from 9.
        let colosseum = &config.hunt.presets[1];
        assert_eq!(colosseum.max_total, 41);
        assert!(seed_goal(5) > colosseum.max_total);
        assert!(unlucky_round(colosseum, 5, 20.0) >= seed_goal(5));
    }

    #[test]
    fn a_short_round_asks_only_what_it_surely_spawns() {
        let mut preset = HuntConfig::default().presets[1].clone();
        preset.round_time_s = 30.0; // Waves at 7, 14, 21 and 28 s.
        assert_eq!(waves_in_round(&preset, 20.0), 4);
        for players in [1, 2, 10, 500, 10_000] {
            let goal = goal_at_start(&preset, players);
            assert!(goal <= unlucky_round(&preset, players, 20.0), "{players}");
        }
        assert_eq!(goal_at_start(&preset, 1), 4, "four waves of one");
    }

    #[test]
    fn late_players_raise_the_goal_only_as_far_as_the_waves_left_and_leavers_never_lower_it() {
        let preset = HuntConfig::default().presets[1].clone();
        let every = wave_ticks(&preset, 20.0);
        let end = (preset.round_time_s * 20.0) as u64;
        // One player, the smallest waves, everything slain at once; eight more join near the
        // end (and stay counted if they leave again).
        let mut progress = Progress::default();
        for tick in 1..end {
            // The round is sized for the most players it has had.
            let players = match tick * 10 / end {
                0..=7 => 1,
                _ => 9,
            };
            let goal = kill_goal(&preset, players, progress, 20.0);
            assert!(goal >= progress.goal, "the goal fell at tick {tick}");
            progress.goal = goal;
            progress.elapsed = tick;
            if tick % every == 0 {
                progress.spawned += wave_size(&preset, players, 0, progress.spawned, 0.0);
            }
        }
        assert!(progress.goal > seed_goal(1), "the late players raised it");
        assert!(
            progress.goal < seed_goal(9),
            "but only as far as the waves left"
        );
        assert!(progress.goal <= progress.spawned, "and it could be met");
    }

    #[test]
    fn the_first_wave_comes_after_the_spawn_rate() {
        let preset = HuntConfig::default().presets[0].clone();
        assert_eq!(wave_ticks(&preset, 20.0), 100);
        // 225 s: waves at 5, 10, ..., 220 s; the round is over at 225.
        assert_eq!(waves_in_round(&preset, 20.0), 44);
    }

    #[test]
    fn roulette_follows_rarity() {
        let weights = [45, 30, 20, 5];
        let mut counts = [0; 4];
        for i in 0..10_000 {
            counts[roulette(&weights, (i as f64 + 0.5) / 10_000.0)] += 1;
        }
        assert_eq!(counts, [4500, 3000, 2000, 500]);
        assert_eq!(roulette(&[0, 0], 0.7), 1);
    }

    #[test]
    fn waves_respect_alive_and_total_caps_apart() {
        let forest = HuntConfig::default().presets[0].clone();
        assert_eq!(wave_size(&forest, 1, 0, 0, 0.0), 1);
        assert_eq!(wave_size(&forest, 1, 0, 0, 0.999), 7);
        assert_eq!(wave_size(&forest, 1, 38, 40, 0.999), 2, "alive cap");
        assert_eq!(wave_size(&forest, 1, 5, 73, 0.999), 2, "total cap");
        assert_eq!(wave_size(&forest, 1, 0, 75, 0.999), 0);
        // Dead zombies free room: many spawned, few alive, waves continue until the total.
        assert_eq!(wave_size(&forest, 1, 1, 60, 0.999), 7);
        // Two players: goal 27 of 20, so waves and the total grow by 1.35.
        assert_eq!(wave_size(&forest, 2, 0, 0, 0.0), 2);
        assert_eq!(wave_size(&forest, 2, 0, 0, 0.999), 10);
        assert_eq!(total_cap(&forest, 2), 102);
    }
}
