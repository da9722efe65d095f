//! Vanilla 1.20.1's facts about blocks, on the floor config validation and the game both read:
//! a block's name, whether it falls, how hard it is, what digs it and what it drops, how it
//! treats light, and what holds it up (`support`). The tables in `data` are generated from minecraft-data by
//! `scripts/gen-block-data.js`.

mod data;
mod light;
pub mod support;

pub use light::{light_facts, opposite, LightFacts, DIRECTIONS};

use valence::prelude::*;

/// Whether a right-click on `kind` uses the block (opens its window, lies in a bed, writes on a
/// sign) rather than placing what the player holds against it: a player who sneaks holding
/// something places (`ServerPlayerGameMode.useItemOn`).
pub fn used_on_click(kind: BlockKind, sneaking: bool, holding: bool) -> bool {
    let used = matches!(
        kind,
        BlockKind::CraftingTable
            | BlockKind::Chest
            | BlockKind::TrappedChest
            | BlockKind::Barrel
            | BlockKind::Furnace
            | BlockKind::Smoker
            | BlockKind::BlastFurnace
    ) || kind.to_str().ends_with("_bed")
        || is_sign(kind);
    used && !(sneaking && holding)
}

/// Whether `kind` is a sign of any form: standing, on a wall, hanging.
pub fn is_sign(kind: BlockKind) -> bool {
    kind.to_str().ends_with("_sign")
}

/// The middle of block `at`, where its sounds come from and reach is measured to.
pub fn centre(at: BlockPos) -> DVec3 {
    DVec3::new(at.x as f64 + 0.5, at.y as f64 + 0.5, at.z as f64 + 0.5)
}

/// The block a config or a command names, with or without `minecraft:`.
pub fn block_kind(name: &str) -> Option<BlockKind> {
    BlockKind::from_str(name.strip_prefix("minecraft:").unwrap_or(name))
}

/// A block state as commands write it, `oak_stairs[facing=east,half=top]` (vanilla's
/// `BlockStateParser`): the block's default state with the properties given set, or vanilla's
/// message for what is wrong.
pub fn parse_state(text: &str) -> Result<BlockState, String> {
    let (name, properties) = match text.split_once('[') {
        Some((name, rest)) => {
            let Some(inside) = rest.strip_suffix(']') else {
                return Err("Expected closing ] for block state properties".into());
            };
            (name, Some(inside))
        }
        None => (text, None),
    };
    let kind = block_kind(name).ok_or_else(|| format!("Unknown block type '{name}'"))?;
    let mut state = kind.to_state();
    let mut seen = Vec::new();
    for pair in properties.into_iter().flat_map(|p| p.split(',')) {
        let pair = pair.trim();
        if pair.is_empty() {
            continue;
        }
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let (key, value) = (key.trim(), value.trim());
        let prop = PropName::from_str(key)
            .filter(|p| kind.props().contains(p))
            .ok_or_else(|| format!("Block {name} does not have property '{key}'"))?;
        if seen.contains(&prop) {
            return Err(format!(
                "Property '{key}' can only be set once for block {name}"
            ));
        }
        seen.push(prop);
        let set = PropValue::from_str(value)
            .map(|v| state.set(prop, v))
            .filter(|s| s.get(prop) == PropValue::from_str(value));
        state = set
            .ok_or_else(|| format!("Block {name} does not accept '{value}' for {key} property"))?;
    }
    Ok(state)
}

/// Blocks that fall when nothing holds them up (vanilla's `FallingBlock`s and `Fallable`s).
pub fn falls(kind: BlockKind) -> bool {
    let name = kind.to_str();
    matches!(
        kind,
        BlockKind::Sand
            | BlockKind::RedSand
            | BlockKind::Gravel
            | BlockKind::SuspiciousSand
            | BlockKind::SuspiciousGravel
            | BlockKind::Anvil
            | BlockKind::ChippedAnvil
            | BlockKind::DamagedAnvil
            | BlockKind::DragonEgg
            | BlockKind::PointedDripstone
    ) || name.ends_with("_concrete_powder")
}

/// Whether `block` can be dug at all (bedrock, barriers and liquids cannot).
pub fn breakable(block: BlockKind) -> bool {
    hardness(block) >= 0.0 && !block.to_state().is_liquid() && !block.to_state().is_air()
}

/// Vanilla's destroy time of `block` (its hardness); negative for unbreakable ones.
pub fn hardness(block: BlockKind) -> f32 {
    data::HARDNESS[block.to_raw() as usize]
}

/// Whether digging `block` with `held` yields its drop: any tool will do unless the block
/// needs one (stone, ores) and `held` is not among them.
pub fn harvests(block: BlockKind, held: ItemKind) -> bool {
    let tools = data::HARVEST_TOOLS[data::HARVEST[block.to_raw() as usize] as usize];
    tools.is_empty() || tools.contains(&held.to_raw())
}

/// What `held` digs `block` at: the tool's speed on the block's material, 1 otherwise.
fn speed(block: BlockKind, held: ItemKind) -> f32 {
    data::TOOL_SPEEDS[data::MATERIAL[block.to_raw() as usize] as usize]
        .iter()
        .find(|(tool, _)| *tool == held.to_raw())
        .map_or(1.0, |(_, speed)| *speed)
}

/// Dig progress per tick, as vanilla's `getDestroyProgress`: the speed over the hardness, over
/// 30 when the block will drop and over 100 when it will not. 1 or more breaks it at once.
pub fn dig_progress(block: BlockKind, held: ItemKind) -> f32 {
    let hardness = hardness(block);
    if hardness < 0.0 {
        return 0.0;
    }
    if hardness == 0.0 {
        return f32::INFINITY;
    }
    let divisor = if harvests(block, held) { 30.0 } else { 100.0 };
    speed(block, held) / hardness / divisor
}

/// The item a dug block gives the player, if any.
pub fn drop(block: BlockKind, held: ItemKind) -> Option<ItemKind> {
    if !harvests(block, held) {
        return None;
    }
    ItemKind::from_raw(data::DROP[block.to_raw() as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_states_parse_as_commands_write_them() {
        let stairs = parse_state("minecraft:oak_stairs[facing=east,half=top]").unwrap();
        assert_eq!(stairs.to_kind(), BlockKind::OakStairs);
        assert_eq!(stairs.get(PropName::Facing), Some(PropValue::East));
        assert_eq!(stairs.get(PropName::Half), Some(PropValue::Top));
        assert_eq!(parse_state("stone"), Ok(BlockState::STONE));
        assert_eq!(parse_state("oak_stairs[]"), Ok(BlockState::OAK_STAIRS));
        let bed = parse_state("red_bed[part=head,facing=north]").unwrap();
        assert_eq!(bed.get(PropName::Part), Some(PropValue::Head));
        let wheat = parse_state("wheat[age=7]").unwrap();
        assert_eq!(wheat.get(PropName::Age), Some(PropValue::_7));
        assert_eq!(
            parse_state("stone[facing=east]"),
            Err("Block stone does not have property 'facing'".into())
        );
        assert_eq!(
            parse_state("oak_stairs[facing=up]"),
            Err("Block oak_stairs does not accept 'up' for facing property".into())
        );
        assert!(parse_state("oak_stairs[half=top,half=bottom]").is_err());
        assert!(parse_state("oak_stairs[facing=east").is_err());
        assert_eq!(
            parse_state("no_such_block"),
            Err("Unknown block type 'no_such_block'".into())
        );
    }

    /// Seconds to dig at 20 ticks a second, as the wiki's tables give them.
    fn seconds(block: BlockKind, held: ItemKind) -> f32 {
        (1.0 / dig_progress(block, held)).ceil() / 20.0
    }

    #[test]
    fn dig_times_follow_vanillas_rule() {
        assert_eq!(seconds(BlockKind::Dirt, ItemKind::Air), 0.75);
        assert_eq!(seconds(BlockKind::Dirt, ItemKind::WoodenShovel), 0.4);
        assert_eq!(
            seconds(BlockKind::Stone, ItemKind::Air),
            7.5,
            "no drop: /100"
        );
        assert_eq!(seconds(BlockKind::Stone, ItemKind::WoodenPickaxe), 1.15);
        assert_eq!(seconds(BlockKind::OakLog, ItemKind::Air), 3.0);
        assert_eq!(seconds(BlockKind::OakLog, ItemKind::IronAxe), 0.5);
        assert!(
            dig_progress(BlockKind::Grass, ItemKind::Air) >= 1.0,
            "at once"
        );
        assert_eq!(
            dig_progress(BlockKind::Bedrock, ItemKind::NetheritePickaxe),
            0.0
        );
        assert!(!breakable(BlockKind::Bedrock) && !breakable(BlockKind::Water));
    }

    #[test]
    fn drops_need_the_right_tool_where_vanilla_asks_for_one() {
        assert_eq!(
            drop(BlockKind::GrassBlock, ItemKind::Air),
            Some(ItemKind::Dirt)
        );
        assert_eq!(drop(BlockKind::Stone, ItemKind::Air), None);
        assert_eq!(
            drop(BlockKind::Stone, ItemKind::StonePickaxe),
            Some(ItemKind::Cobblestone)
        );
        assert_eq!(
            drop(BlockKind::OakLog, ItemKind::Air),
            Some(ItemKind::OakLog)
        );
        assert_eq!(drop(BlockKind::Bedrock, ItemKind::Air), None);
    }
}
