//! What a besieging zombie may do to a block, and what it costs: vanilla's bare-hand dig time
//! (`getDestroyProgress` with nothing held, `siege.dig_speed` times as fast), and the blocks it
//! never breaks: bedrock and obsidian, anything harder than `siege.max_hardness` or listed in
//! `siege.never_break`, liquids, doors (the door rule breaks wooden ones), blocks that hold
//! something (chests, furnaces, signs: breaking one would destroy what is in it), and a block
//! that holds up sand or gravel, which horde does not let fall.

use valence::prelude::*;

use crate::blocks::block_kind;
pub use crate::blocks::falls;
use crate::blocks::{dig_progress, hardness};
use crate::config::SiegeConfig;
pub use crate::world::climbable;
use crate::world::door::is_door;

/// The siege settings in the units the search and the digging use.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct SiegeRules {
    pub enabled: bool,
    /// Each block kind's dig time, by its raw id: [`SiegeRules::break_ticks`] of a solid
    /// block. Worked out once, as a search asks for it thousands of times.
    dig_ticks: Vec<Option<u32>>,
    pub build_block: BlockState,
    /// Blocks a zombie may stack under itself above where it started.
    pub max_build_height: i32,
    pub edits_per_tick: u32,
    pub node_budget: usize,
    pub plans_per_tick: u32,
}

/// Blocks no zombie breaks, whatever the settings say.
const NEVER: [BlockKind; 4] = [
    BlockKind::Bedrock,
    BlockKind::Obsidian,
    BlockKind::CryingObsidian,
    BlockKind::ReinforcedDeepslate,
];

impl SiegeRules {
    pub fn new(config: &SiegeConfig) -> Self {
        Self {
            enabled: config.enabled,
            dig_ticks: dig_ticks(config),
            build_block: block_kind(&config.build_block).map_or(BlockState::DIRT, |k| k.to_state()),
            max_build_height: config.max_build_height as i32,
            edits_per_tick: config.edits_per_tick,
            node_budget: config.node_budget as usize,
            plans_per_tick: config.plans_per_tick,
        }
    }

    /// Ticks a zombie takes to dig `state` bare-handed, `None` where it never does. Air and
    /// what a body walks through cost nothing.
    pub fn break_ticks(&self, state: BlockState) -> Option<u32> {
        if !crate::world::is_solid(state) {
            return Some(0);
        }
        self.dig_ticks[state.to_kind().to_raw() as usize]
    }
}

/// Every block kind's bare-hand dig time at `siege.dig_speed`, `None` for what is never
/// broken: the first tick at which vanilla's progress, added up, reaches a whole block
/// (multiplied in `f32` as vanilla does).
fn dig_ticks(config: &SiegeConfig) -> Vec<Option<u32>> {
    let listed: Vec<BlockKind> = config
        .never_break
        .iter()
        .filter_map(|name| block_kind(name))
        .collect();
    BlockKind::ALL
        .iter()
        .map(|&kind| {
            let state = kind.to_state();
            let never = NEVER.contains(&kind)
                || listed.contains(&kind)
                || state.is_liquid()
                || is_door(state)
                || state.block_entity_kind().is_some()
                || hardness(kind) < 0.0
                || hardness(kind) > config.max_hardness;
            if never {
                return None;
            }
            let per_tick = dig_progress(kind, ItemKind::Air) * config.dig_speed;
            if per_tick >= 1.0 {
                return Some(1);
            }
            let mut ticks = (1.0 / per_tick).floor() as u32;
            while per_tick * (ticks as f32) < 1.0 {
                ticks += 1;
            }
            Some(ticks.max(1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> SiegeRules {
        SiegeRules::new(&SiegeConfig::default())
    }

    #[test]
    fn dig_times_are_vanillas_bare_hand_times() {
        // The minecraft.wiki "Breaking" table for a bare hand: dirt 0.75 s, stone 7.5 s (it
        // needs a pickaxe, so it is five times its hardness), planks 3 s, glass 0.45 s.
        let r = rules();
        assert_eq!(r.break_ticks(BlockState::DIRT), Some(15));
        assert_eq!(r.break_ticks(BlockState::STONE), Some(150));
        assert_eq!(r.break_ticks(BlockState::COBBLESTONE), Some(200));
        assert_eq!(r.break_ticks(BlockState::OAK_PLANKS), Some(60));
        assert_eq!(r.break_ticks(BlockState::GLASS), Some(9));
        assert_eq!(r.break_ticks(BlockState::AIR), Some(0));
        assert_eq!(r.break_ticks(BlockState::GRASS), Some(0), "walked through");
        assert_eq!(r.break_ticks(BlockState::WATER), Some(0), "swum through");
        let twice = SiegeRules::new(&SiegeConfig {
            dig_speed: 2.0,
            ..SiegeConfig::default()
        });
        assert_eq!(twice.break_ticks(BlockState::STONE), Some(75));
    }

    #[test]
    fn what_never_breaks() {
        let r = rules();
        for state in [
            BlockState::BEDROCK,
            BlockState::OBSIDIAN,
            BlockState::OAK_DOOR,
            BlockState::CHEST,
            BlockState::IRON_BLOCK,
        ] {
            assert_eq!(r.break_ticks(state), None, "{state:?}");
        }
        let soft_obsidian = SiegeRules::new(&SiegeConfig {
            max_hardness: 100.0,
            ..SiegeConfig::default()
        });
        assert_eq!(
            soft_obsidian.break_ticks(BlockState::OBSIDIAN),
            None,
            "never"
        );
        let listed = SiegeRules::new(&SiegeConfig {
            never_break: vec!["minecraft:dirt".into()],
            ..SiegeConfig::default()
        });
        assert_eq!(listed.break_ticks(BlockState::DIRT), None);
        assert!(falls(BlockKind::Gravel) && falls(BlockKind::RedConcretePowder));
        assert!(!falls(BlockKind::Dirt));
        assert!(climbable(BlockState::LADDER) && climbable(BlockState::VINE));
    }
}
