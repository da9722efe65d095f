//! The arithmetic of a hunt, kept apart from the ECS so it can be checked on its own.

use crate::config::HuntPreset;

/// Kills a round asks of `players` players: 20 + 7 (n - 1), as in the seed.
pub fn kill_goal(players: u32) -> u32 {
    20 + 7 * players.max(1).saturating_sub(1)
}

/// Index drawn by roulette on `weights` with `r` in `0.0..1.0`; all-zero weights draw evenly.
pub fn roulette(weights: &[u32], r: f64) -> usize {
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

/// Zombies in the next wave: 1..=max_spawn drawn by `r`, cut so that neither the alive cap
/// nor the round's total cap is passed (the seed counted the dead as alive and overshot both).
pub fn wave_size(preset: &HuntPreset, alive: u32, spawned: u32, r: f64) -> u32 {
    let drawn = 1 + ((r * preset.max_spawn as f64) as u32).min(preset.max_spawn - 1);
    let room_alive = preset.max_alive.saturating_sub(alive);
    let room_total = preset.max_total.saturating_sub(spawned);
    drawn.min(room_alive).min(room_total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HuntConfig;

    #[test]
    fn goal_grows_with_players() {
        assert_eq!(kill_goal(1), 20);
        assert_eq!(kill_goal(6), 55);
        assert_eq!(kill_goal(0), 20);
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
        assert_eq!(wave_size(&forest, 0, 0, 0.0), 1);
        assert_eq!(wave_size(&forest, 0, 0, 0.999), 7);
        assert_eq!(wave_size(&forest, 38, 40, 0.999), 2, "alive cap");
        assert_eq!(wave_size(&forest, 5, 73, 0.999), 2, "total cap");
        assert_eq!(wave_size(&forest, 0, 75, 0.999), 0);
        // Dead zombies free room: many spawned, few alive, waves continue until the total.
        assert_eq!(wave_size(&forest, 1, 60, 0.999), 7);
    }
}
