//! The heat map, as 7 Days to Die keeps one: every noise adds its loudness to the heat of its
//! chunk, and heat halves every `heat_half_life_ticks`. Where it passes `summon_threshold` by
//! night, the chunk calls zombies from afar, then cools to nothing and waits its cooldown.

use bevy_ecs::prelude::Resource;
use rustc_hash::FxHashMap;
use valence::prelude::ChunkPos;

/// Below this a cell is forgotten: it could not reach any threshold before halving away.
const COLD: f32 = 0.5;

/// Heat by chunk, decayed lazily: each cell keeps its heat as of the tick it last changed.
#[derive(Resource, Debug, Clone, Default)]
pub struct HeatMap {
    cells: FxHashMap<ChunkPos, Cell>,
}

#[derive(Debug, Clone, Copy)]
struct Cell {
    heat: f32,
    at: u64,
    /// No call from here before this tick.
    quiet_until: u64,
}

impl HeatMap {
    /// The heat of `chunk` at `now`.
    pub fn heat(&self, chunk: ChunkPos, now: u64, half_life: u64) -> f32 {
        self.cells
            .get(&chunk)
            .map_or(0.0, |c| decayed(c.heat, now - c.at.min(now), half_life))
    }

    /// Adds `loudness` to `chunk` at `now`; returns its heat after.
    pub fn add(&mut self, chunk: ChunkPos, loudness: f32, now: u64, half_life: u64) -> f32 {
        let cell = self.cells.entry(chunk).or_insert(Cell {
            heat: 0.0,
            at: now,
            quiet_until: 0,
        });
        cell.heat = decayed(cell.heat, now - cell.at.min(now), half_life) + loudness;
        cell.at = now;
        cell.heat
    }

    /// Whether `chunk` at `now` is hot enough to call and not cooling down; if so it cools to
    /// nothing and may not call again for `cooldown` ticks.
    pub fn call(
        &mut self,
        chunk: ChunkPos,
        threshold: f32,
        now: u64,
        half_life: u64,
        cooldown: u64,
    ) -> bool {
        let Some(cell) = self.cells.get_mut(&chunk) else {
            return false;
        };
        let heat = decayed(cell.heat, now - cell.at.min(now), half_life);
        if heat < threshold || now < cell.quiet_until {
            return false;
        }
        cell.heat = 0.0;
        cell.at = now;
        cell.quiet_until = now + cooldown;
        true
    }

    /// Forgets the cells gone cold and not cooling down.
    pub fn prune(&mut self, now: u64, half_life: u64) {
        self.cells.retain(|_, c| {
            decayed(c.heat, now - c.at.min(now), half_life) >= COLD || now < c.quiet_until
        });
    }

    /// Every warm cell and its heat at `now`, for the map.
    pub fn cells(&self, now: u64, half_life: u64) -> impl Iterator<Item = (ChunkPos, f32)> + '_ {
        self.cells
            .iter()
            .map(move |(pos, c)| (*pos, decayed(c.heat, now - c.at.min(now), half_life)))
            .filter(|(_, heat)| *heat >= COLD)
    }
}

/// `heat` after `ticks` of halving every `half_life`.
fn decayed(heat: f32, ticks: u64, half_life: u64) -> f32 {
    heat * 0.5f32.powf(ticks as f32 / half_life.max(1) as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HALF: u64 = 1200;

    #[test]
    fn noise_adds_up_and_halves_every_half_life() {
        let mut map = HeatMap::default();
        let c = ChunkPos::new(3, -2);
        map.add(c, 40.0, 0, HALF);
        assert_eq!(map.add(c, 40.0, 0, HALF), 80.0);
        assert!((map.heat(c, HALF, HALF) - 40.0).abs() < 1e-3);
        assert!((map.heat(c, 2 * HALF, HALF) - 20.0).abs() < 1e-3);
        // Adding later adds to what is left.
        assert!((map.add(c, 5.0, HALF, HALF) - 45.0).abs() < 1e-3);
        assert_eq!(map.heat(ChunkPos::new(0, 0), 0, HALF), 0.0, "elsewhere");
    }

    #[test]
    fn a_hot_chunk_calls_once_then_cools_down() {
        let mut map = HeatMap::default();
        let c = ChunkPos::new(0, 0);
        map.add(c, 99.0, 0, HALF);
        assert!(!map.call(c, 100.0, 0, HALF, 2400), "not yet");
        map.add(c, 2.0, 0, HALF);
        assert!(map.call(c, 100.0, 0, HALF, 2400));
        assert_eq!(map.heat(c, 0, HALF), 0.0, "cooled");
        map.add(c, 500.0, 10, HALF);
        assert!(!map.call(c, 100.0, 10, HALF, 2400), "cooling down");
        assert!(map.call(c, 100.0, 2400, HALF, 2400));
    }

    #[test]
    fn cold_cells_are_forgotten() {
        let mut map = HeatMap::default();
        let (a, b) = (ChunkPos::new(0, 0), ChunkPos::new(1, 0));
        map.add(a, 4.0, 0, HALF);
        map.add(b, 400.0, 0, HALF);
        map.prune(4 * HALF, HALF);
        let left: Vec<_> = map.cells(4 * HALF, HALF).map(|(p, _)| p).collect();
        assert_eq!(left, vec![b]);
    }
}
