//! What holds a block up, as vanilla 1.20.1's `canSurvive` rules: a torch stands on the middle
//! of a block's top or hangs on a whole wall, a ladder on a whole wall, a lantern stands or
//! hangs, a door's lower half stands on a whole top, the upper half of a door or a tall plant
//! on its lower half, plants and carpets on whatever is under them, a sign or a banner on or
//! against a solid block, a hanging sign from the middle of a block's underside or between
//! whole walls. A block whose support goes pops off as an item (`updateShape` returning air).

use valence::prelude::*;
use valence::protocol::Direction;

/// The side of `state` its support lies on, if it needs one.
pub fn hangs_on(state: BlockState) -> Option<Direction> {
    let kind = state.to_kind();
    let facing = || state.get(PropName::Facing).and_then(horizontal);
    if is_wall_torch(kind) || kind == BlockKind::Ladder || on_wall(kind) {
        // A wall torch, ladder, sign or banner faces away from its wall.
        return facing().map(opposite);
    }
    if is_ceiling_hanging_sign(kind) {
        return Some(Direction::Up);
    }
    if matches!(kind, BlockKind::Lantern | BlockKind::SoulLantern) {
        return Some(if state.get(PropName::Hanging) == Some(PropValue::True) {
            Direction::Up
        } else {
            Direction::Down
        });
    }
    let stands = matches!(
        kind,
        BlockKind::Torch | BlockKind::SoulTorch | BlockKind::RedstoneTorch
    ) || state.get(PropName::Half) == Some(PropValue::Upper)
        || is_door(kind)
        || is_plant(kind)
        || kind.to_str().ends_with("_carpet")
        || kind.to_str().ends_with("_pressure_plate")
        || stands_on_solid(kind);
    stands.then_some(Direction::Down)
}

/// Whether `state` stays on `support`, the block on its [`hangs_on`] side.
pub fn survives(state: BlockState, support: BlockState) -> bool {
    let Some(side) = hangs_on(state) else {
        return true;
    };
    let kind = state.to_kind();
    // The face of the support that touches the block.
    let touching = opposite(side);
    if state.get(PropName::Half) == Some(PropValue::Upper) {
        return support.to_kind() == kind && support.get(PropName::Half) == Some(PropValue::Lower);
    }
    if is_wall_torch(kind) || kind == BlockKind::Ladder || is_door(kind) {
        return sturdy(support, touching);
    }
    if is_plant(kind) {
        // Vanilla wants dirt, grass or farmland (sand for some); here, anything it can root in.
        return !support.is_air() && !support.is_liquid() && support.collision_shapes().len() > 0;
    }
    if kind.to_str().ends_with("_carpet") {
        return !support.is_air();
    }
    if on_wall(kind) || stands_on_solid(kind) {
        return solid(support);
    }
    if is_ceiling_hanging_sign(kind) && support.to_kind().to_str().ends_with("_hanging_sign") {
        // A hanging sign's board reaches its bottom: another hangs from it.
        return true;
    }
    holds_centre(support, touching)
}

/// Whether `state` stays where it is among the blocks `around` it (the block in each
/// direction; `None` where it is not loaded, which is taken to hold): [`survives`] on its
/// [`hangs_on`] side. A wall hanging sign, which needs walls only to be placed, always stays.
pub fn stays(state: BlockState, around: impl Fn(Direction) -> Option<BlockState>) -> bool {
    match hangs_on(state) {
        None => true,
        Some(side) => around(side).is_none_or(|support| survives(state, support)),
    }
}

/// Whether `state` may be placed among the blocks `around` it: it [`stays`] there, and a
/// wall hanging sign has, on one side across it, a whole wall or a hanging sign in line with
/// it (`WallHangingSignBlock.canPlace`).
pub fn placeable(state: BlockState, around: impl Fn(Direction) -> Option<BlockState>) -> bool {
    if !state.to_kind().to_str().ends_with("_wall_hanging_sign") {
        return stays(state, around);
    }
    let Some(facing) = state.get(PropName::Facing).and_then(horizontal) else {
        return true;
    };
    let in_line = |s: BlockState| {
        s.to_kind().to_str().ends_with("_wall_hanging_sign")
            && s.get(PropName::Facing)
                .and_then(horizontal)
                .is_some_and(|f| f == facing || f == opposite(facing))
    };
    let sides = [clockwise(facing), opposite(clockwise(facing))];
    sides.into_iter().any(|side| match around(side) {
        None => true,
        Some(s) => in_line(s) || sturdy(s, opposite(side)),
    })
}

/// Whether `state` is solid enough for a sign or a banner (`BlockStateBase.isSolid`, the
/// legacy flag vanilla computes from the collision shape: its bounds at least 0.729 across
/// on average, or a whole block high: a slab, a fence or a pane is, a carpet is not; signs and
/// banners are forced solid, so that they stand on one another).
pub fn solid(state: BlockState) -> bool {
    let name = state.to_kind().to_str();
    if name.ends_with("_sign") || name.ends_with("_banner") {
        return true;
    }
    let mut boxes = state.collision_shapes().peekable();
    if boxes.peek().is_none() {
        return false;
    }
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for b in boxes {
        let (bl, bh) = (b.min().to_array(), b.max().to_array());
        for i in 0..3 {
            lo[i] = lo[i].min(bl[i]);
            hi[i] = hi[i].max(bh[i]);
        }
    }
    let size = |i: usize| hi[i] - lo[i];
    (size(0) + size(1) + size(2)) / 3.0 >= 0.729_166_666_666_666_6 || size(1) >= 1.0
}

/// Where the other half of a two-block block at `at` is: a door's above or below it, a bed's
/// ahead of its foot or behind its head.
pub fn other_part(at: BlockPos, state: BlockState) -> Option<BlockPos> {
    if is_door(state.to_kind()) {
        let up = state.get(PropName::Half)? == PropValue::Lower;
        return Some(at.get_in_direction(if up { Direction::Up } else { Direction::Down }));
    }
    let facing = state.get(PropName::Facing).and_then(horizontal)?;
    match state.get(PropName::Part)? {
        PropValue::Foot => Some(at.get_in_direction(facing)),
        _ => Some(at.get_in_direction(opposite(facing))),
    }
}

/// Whether `face` of `state` is whole, so that a wall torch or a ladder hangs on it
/// (`isFaceSturdy` with `SupportType.FULL`): some collision box covers the whole face.
pub fn sturdy(state: BlockState, face: Direction) -> bool {
    state.collision_shapes().any(|b| {
        let (lo, hi) = (b.min(), b.max());
        let whole = |a: f64, b: f64| a <= 0.0 && b >= 1.0;
        match face {
            Direction::Up => hi.y >= 1.0 && whole(lo.x, hi.x) && whole(lo.z, hi.z),
            Direction::Down => lo.y <= 0.0 && whole(lo.x, hi.x) && whole(lo.z, hi.z),
            Direction::North => lo.z <= 0.0 && whole(lo.x, hi.x) && whole(lo.y, hi.y),
            Direction::South => hi.z >= 1.0 && whole(lo.x, hi.x) && whole(lo.y, hi.y),
            Direction::West => lo.x <= 0.0 && whole(lo.y, hi.y) && whole(lo.z, hi.z),
            Direction::East => hi.x >= 1.0 && whole(lo.y, hi.y) && whole(lo.z, hi.z),
        }
    })
}

/// Whether `state`'s collision box is the whole block (`isCollisionShapeFullBlock`).
pub fn full_block(state: BlockState) -> bool {
    let mut boxes = state.collision_shapes();
    boxes.len() == 1
        && boxes.next().is_some_and(|b| {
            b.min().to_array().iter().all(|v| *v <= 0.0)
                && b.max().to_array().iter().all(|v| *v >= 1.0)
        })
}

/// Whether the middle of `face` of `state` is solid, so that a torch stands on it or a
/// lantern hangs from it (`canSupportCenter`: a fence post or a wall will do).
pub fn holds_centre(state: BlockState, face: Direction) -> bool {
    state.collision_shapes().any(|b| {
        let (lo, hi) = (b.min(), b.max());
        let over = |a: f64, b: f64| a <= 0.4375 && b >= 0.5625;
        match face {
            Direction::Up => hi.y >= 1.0 && over(lo.x, hi.x) && over(lo.z, hi.z),
            Direction::Down => lo.y <= 0.0 && over(lo.x, hi.x) && over(lo.z, hi.z),
            _ => false,
        }
    })
}

fn is_wall_torch(kind: BlockKind) -> bool {
    matches!(
        kind,
        BlockKind::WallTorch | BlockKind::SoulWallTorch | BlockKind::RedstoneWallTorch
    )
}

/// Signs and banners that hang on a wall (hanging signs hang between two, see [`placeable`]).
fn on_wall(kind: BlockKind) -> bool {
    let name = kind.to_str();
    (name.ends_with("_wall_sign") && !name.ends_with("_wall_hanging_sign"))
        || name.ends_with("_wall_banner")
}

/// Signs and banners that stand on the block below.
fn stands_on_solid(kind: BlockKind) -> bool {
    let name = kind.to_str();
    (name.ends_with("_sign") && !name.contains("_wall_") && !name.ends_with("_hanging_sign"))
        || (name.ends_with("_banner") && !name.ends_with("_wall_banner"))
}

/// A hanging sign under a block (`CeilingHangingSignBlock`).
fn is_ceiling_hanging_sign(kind: BlockKind) -> bool {
    let name = kind.to_str();
    name.ends_with("_hanging_sign") && !name.ends_with("_wall_hanging_sign")
}

fn is_door(kind: BlockKind) -> bool {
    kind.to_str().ends_with("_door")
}

/// Plants that root in the block below them (vanilla's `BushBlock`s and crops).
fn is_plant(kind: BlockKind) -> bool {
    let name = kind.to_str();
    name.ends_with("_sapling")
        || name.ends_with("_tulip")
        || matches!(
            kind,
            BlockKind::Grass
                | BlockKind::Fern
                | BlockKind::TallGrass
                | BlockKind::LargeFern
                | BlockKind::DeadBush
                | BlockKind::Dandelion
                | BlockKind::Poppy
                | BlockKind::BlueOrchid
                | BlockKind::Allium
                | BlockKind::AzureBluet
                | BlockKind::OxeyeDaisy
                | BlockKind::Cornflower
                | BlockKind::LilyOfTheValley
                | BlockKind::Sunflower
                | BlockKind::Lilac
                | BlockKind::RoseBush
                | BlockKind::Peony
                | BlockKind::SweetBerryBush
                | BlockKind::Wheat
                | BlockKind::Carrots
                | BlockKind::Potatoes
                | BlockKind::Beetroots
        )
}

/// A horizontal `facing` value as a direction.
pub fn horizontal(v: PropValue) -> Option<Direction> {
    Some(match v {
        PropValue::North => Direction::North,
        PropValue::South => Direction::South,
        PropValue::West => Direction::West,
        PropValue::East => Direction::East,
        _ => return None,
    })
}

/// A quarter turn clockwise seen from above (`Direction.getClockWise`).
pub fn clockwise(d: Direction) -> Direction {
    match d {
        Direction::North => Direction::East,
        Direction::East => Direction::South,
        Direction::South => Direction::West,
        Direction::West => Direction::North,
        other => other,
    }
}

/// The direction the other way.
pub fn opposite(d: Direction) -> Direction {
    match d {
        Direction::Down => Direction::Up,
        Direction::Up => Direction::Down,
        Direction::North => Direction::South,
        Direction::South => Direction::North,
        Direction::West => Direction::East,
        Direction::East => Direction::West,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wall_torch(facing: PropValue) -> BlockState {
        BlockState::WALL_TORCH.set(PropName::Facing, facing)
    }

    #[test]
    fn a_torch_stands_on_a_block_or_a_fence_but_not_on_a_slab_or_air() {
        let torch = BlockState::TORCH;
        assert_eq!(hangs_on(torch), Some(Direction::Down));
        assert!(survives(torch, BlockState::STONE));
        assert!(survives(torch, BlockState::OAK_FENCE));
        assert!(!survives(torch, BlockState::OAK_SLAB));
        assert!(survives(
            torch,
            BlockState::OAK_SLAB.set(PropName::Type, PropValue::Top)
        ));
        assert!(!survives(torch, BlockState::AIR));
    }

    #[test]
    fn a_wall_torch_and_a_ladder_hang_on_a_whole_face_behind_them() {
        let east = wall_torch(PropValue::East);
        assert_eq!(hangs_on(east), Some(Direction::West));
        assert!(survives(east, BlockState::OAK_PLANKS));
        assert!(!survives(east, BlockState::OAK_FENCE));
        assert!(!survives(east, BlockState::AIR));
        let ladder = BlockState::LADDER.set(PropName::Facing, PropValue::North);
        assert_eq!(hangs_on(ladder), Some(Direction::South));
        assert!(survives(ladder, BlockState::COBBLESTONE));
        assert!(!survives(ladder, BlockState::GLASS_PANE));
    }

    #[test]
    fn a_doors_upper_half_needs_its_lower_and_the_lower_a_whole_top() {
        let lower = BlockState::OAK_DOOR.set(PropName::Half, PropValue::Lower);
        let upper = lower.set(PropName::Half, PropValue::Upper);
        assert!(survives(lower, BlockState::DIRT));
        assert!(!survives(lower, BlockState::AIR));
        assert!(survives(upper, lower));
        assert!(!survives(upper, BlockState::AIR));
        let tall = BlockState::TALL_GRASS.set(PropName::Half, PropValue::Upper);
        assert!(!survives(tall, BlockState::AIR));
    }

    #[test]
    fn lanterns_hang_or_stand_and_blocks_need_nothing() {
        let hanging = BlockState::LANTERN.set(PropName::Hanging, PropValue::True);
        assert_eq!(hangs_on(hanging), Some(Direction::Up));
        assert!(survives(hanging, BlockState::OAK_PLANKS));
        assert!(!survives(hanging, BlockState::AIR));
        assert_eq!(hangs_on(BlockState::STONE), None);
        assert_eq!(hangs_on(BlockState::CHEST), None);
        assert!(survives(BlockState::DANDELION, BlockState::GRASS_BLOCK));
        assert!(!survives(BlockState::DANDELION, BlockState::AIR));
    }

    #[test]
    fn signs_and_banners_want_a_solid_block_and_hanging_signs_a_ceiling_or_walls() {
        let sign = BlockState::OAK_SIGN;
        assert_eq!(hangs_on(sign), Some(Direction::Down));
        assert!(survives(sign, BlockState::OAK_FENCE), "a fence is solid");
        assert!(survives(sign, BlockState::GLASS_PANE));
        assert!(survives(sign, BlockState::OAK_SLAB), "broad enough");
        assert!(!survives(sign, BlockState::WHITE_CARPET), "too thin");
        assert!(!survives(sign, BlockState::AIR));
        let wall = BlockState::OAK_WALL_SIGN.set(PropName::Facing, PropValue::North);
        assert_eq!(hangs_on(wall), Some(Direction::South));
        assert!(survives(wall, BlockState::STONE));
        let banner = BlockState::WHITE_WALL_BANNER.set(PropName::Facing, PropValue::East);
        assert_eq!(hangs_on(banner), Some(Direction::West));
        assert_eq!(hangs_on(BlockState::WHITE_BANNER), Some(Direction::Down));

        let ceiling = BlockState::OAK_HANGING_SIGN;
        assert_eq!(hangs_on(ceiling), Some(Direction::Up));
        assert!(survives(ceiling, BlockState::OAK_FENCE));
        assert!(!survives(ceiling, BlockState::AIR));
        // Facing north, a wall hanging sign hangs between east and west.
        let hanging = BlockState::OAK_WALL_HANGING_SIGN.set(PropName::Facing, PropValue::North);
        let east_wall = |d| {
            Some(if d == Direction::East {
                BlockState::STONE
            } else {
                BlockState::AIR
            })
        };
        assert!(placeable(hanging, east_wall));
        assert!(!placeable(hanging, |_| Some(BlockState::AIR)));
        assert!(
            stays(hanging, |_| Some(BlockState::AIR)),
            "once hung, it stays"
        );
        let north_wall = |d| {
            Some(if d == Direction::North {
                BlockState::STONE
            } else {
                BlockState::AIR
            })
        };
        assert!(
            !placeable(hanging, north_wall),
            "the wall behind holds nothing"
        );
        let next = |d| {
            Some(if d == Direction::West {
                hanging
            } else {
                BlockState::AIR
            })
        };
        assert!(placeable(hanging, next), "in line with another");
        assert!(survives(ceiling, hanging), "hanging signs hang in chains");
        assert!(
            survives(sign, BlockState::OAK_SIGN),
            "a sign stands on a sign"
        );
    }
}
