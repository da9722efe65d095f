//! What players may do to blocks, as vanilla 1.20.1 rules it: how fast a block digs with the
//! held item, whether it drops, how far a player reaches, and how a placed block is turned.

use valence::math::{DVec3, Vec3};
use valence::prelude::*;
use valence::protocol::Direction;

use super::data;

/// Vanilla's reach for digging and placing: 6 blocks from the eyes to the block's centre
/// (`ServerGamePacketListenerImpl.MAX_INTERACTION_DISTANCE`).
pub(super) const REACH: f64 = 6.0;

/// Share of the expected dig progress the server asks for when a dig ends (vanilla's 0.7):
/// the client counted the ticks on its side, and the packets took time to come.
const DIG_TOLERANCE: f32 = 0.7;

/// A player's eyes, from their feet.
pub(super) fn eyes(feet: DVec3) -> DVec3 {
    feet + DVec3::new(0.0, crate::player::EYE_HEIGHT, 0.0)
}

/// Whether a player with eyes at `eyes` reaches block `at`.
pub(super) fn in_reach(eyes: DVec3, at: BlockPos) -> bool {
    let centre = DVec3::new(at.x as f64 + 0.5, at.y as f64 + 0.5, at.z as f64 + 0.5);
    eyes.distance(centre) <= REACH
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
pub(super) fn harvests(block: BlockKind, held: ItemKind) -> bool {
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

/// Whether a dig that started `ticks` ago may end now.
pub(super) fn dig_done(progress_per_tick: f32, ticks: u64) -> bool {
    progress_per_tick * (ticks + 1) as f32 >= DIG_TOLERANCE
}

/// The item a dug block gives the player, if any.
pub(super) fn drop(block: BlockKind, held: ItemKind) -> Option<ItemKind> {
    if !harvests(block, held) {
        return None;
    }
    ItemKind::from_raw(data::DROP[block.to_raw() as usize])
}

/// The horizontal direction a player with this yaw looks in.
pub(super) fn looking(yaw: f32) -> Direction {
    let quarter = ((yaw.rem_euclid(360.0) + 45.0) / 90.0) as u32 % 4;
    match quarter {
        0 => Direction::South,
        1 => Direction::West,
        2 => Direction::North,
        _ => Direction::East,
    }
}

fn opposite(d: Direction) -> Direction {
    match d {
        Direction::Down => Direction::Up,
        Direction::Up => Direction::Down,
        Direction::North => Direction::South,
        Direction::South => Direction::North,
        Direction::West => Direction::East,
        Direction::East => Direction::West,
    }
}

fn value(d: Direction) -> PropValue {
    match d {
        Direction::Down => PropValue::Down,
        Direction::Up => PropValue::Up,
        Direction::North => PropValue::North,
        Direction::South => PropValue::South,
        Direction::West => PropValue::West,
        Direction::East => PropValue::East,
    }
}

/// The state of `block` placed against `face` of a block, clicked at `cursor` (0..1 within
/// that block), by a player with this yaw: logs lie along the clicked axis; stairs and doors
/// face the way the player looks, other blocks with a facing (furnaces, chests) face the
/// player; stairs and slabs go to the top half when placed under a block or on the upper half
/// of a side. Doors are placed as their lower half.
pub(super) fn placed_state(
    block: BlockKind,
    face: Direction,
    cursor: Vec3,
    yaw: f32,
) -> BlockState {
    let mut state = block.to_state();
    let name = block.to_str();
    if state.get(PropName::Axis).is_some() {
        let axis = match face {
            Direction::Down | Direction::Up => PropValue::Y,
            Direction::North | Direction::South => PropValue::Z,
            Direction::West | Direction::East => PropValue::X,
        };
        state = state.set(PropName::Axis, axis);
    }
    if state.get(PropName::Facing).is_some() {
        let looking = looking(yaw);
        let facing = if name.ends_with("_stairs") || name.ends_with("_door") {
            looking
        } else {
            opposite(looking)
        };
        state = state.set(PropName::Facing, value(facing));
    }
    let upper = face == Direction::Down || (face != Direction::Up && cursor.y > 0.5);
    if name.ends_with("_stairs") {
        let half = if upper {
            PropValue::Top
        } else {
            PropValue::Bottom
        };
        state = state.set(PropName::Half, half);
    } else if name.ends_with("_slab") {
        let half = if upper {
            PropValue::Top
        } else {
            PropValue::Bottom
        };
        state = state.set(PropName::Type, half);
    } else if name.ends_with("_door") {
        state = state.set(PropName::Half, PropValue::Lower);
    }
    state
}

/// Vanilla's spawn protection: within `radius` blocks of the spawn, measured as the larger
/// of the x and z distances, only operators change blocks; 0 protects nothing.
pub fn spawn_protected(at: BlockPos, spawn: BlockPos, radius: u32) -> bool {
    let dx = (at.x as i64 - spawn.x as i64).abs();
    let dz = (at.z as i64 - spawn.z as i64).abs();
    radius > 0 && dx.max(dz) <= radius as i64
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_dig_may_end_a_little_early_never_much() {
        let per_tick = dig_progress(BlockKind::Stone, ItemKind::WoodenPickaxe); // 23 ticks
        assert!(!dig_done(per_tick, 0));
        assert!(!dig_done(per_tick, 10));
        assert!(dig_done(per_tick, 15), "70% of the way, for latency");
        assert!(dig_done(per_tick, 23));
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

    #[test]
    fn reach_is_six_blocks_from_the_eyes() {
        let feet = DVec3::new(0.5, 64.0, 0.5);
        assert!(in_reach(eyes(feet), BlockPos::new(0, 63, 5)));
        assert!(!in_reach(eyes(feet), BlockPos::new(0, 64, 7)));
    }

    #[test]
    fn placed_blocks_are_turned_as_vanilla_turns_them() {
        let mid = Vec3::new(0.5, 0.5, 0.5);
        let log = placed_state(BlockKind::OakLog, Direction::East, mid, 0.0);
        assert_eq!(log.get(PropName::Axis), Some(PropValue::X));
        let log = placed_state(BlockKind::OakLog, Direction::Up, mid, 0.0);
        assert_eq!(log.get(PropName::Axis), Some(PropValue::Y));
        // Looking south (yaw 0): stairs face south, a furnace faces the player (north).
        let stairs = placed_state(BlockKind::OakStairs, Direction::Up, mid, 0.0);
        assert_eq!(stairs.get(PropName::Facing), Some(PropValue::South));
        assert_eq!(stairs.get(PropName::Half), Some(PropValue::Bottom));
        let furnace = placed_state(BlockKind::Furnace, Direction::Up, mid, 0.0);
        assert_eq!(furnace.get(PropName::Facing), Some(PropValue::North));
        let high = Vec3::new(0.5, 0.8, 0.0);
        let slab = placed_state(BlockKind::OakSlab, Direction::North, high, 90.0);
        assert_eq!(slab.get(PropName::Type), Some(PropValue::Top));
        let under = placed_state(BlockKind::OakStairs, Direction::Down, mid, 90.0);
        assert_eq!(under.get(PropName::Half), Some(PropValue::Top));
        assert_eq!(under.get(PropName::Facing), Some(PropValue::West));
        let door = placed_state(BlockKind::OakDoor, Direction::Up, mid, 180.0);
        assert_eq!(door.get(PropName::Half), Some(PropValue::Lower));
        assert_eq!(door.get(PropName::Facing), Some(PropValue::North));
        assert!(crate::world::door::is_door(door));
    }

    #[test]
    fn spawn_protection_is_a_square_of_the_radius() {
        let spawn = BlockPos::new(0, 64, 0);
        assert!(spawn_protected(BlockPos::new(16, 70, -16), spawn, 16));
        assert!(!spawn_protected(BlockPos::new(17, 70, 0), spawn, 16));
        assert!(!spawn_protected(spawn, spawn, 0), "0 protects nothing");
        assert!(
            spawn_protected(BlockPos::new(i32::MIN, 0, i32::MAX), spawn, u32::MAX),
            "no overflow at the ends of the world"
        );
    }
}
