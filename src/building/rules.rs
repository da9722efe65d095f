//! What players may do to blocks, as vanilla 1.20.1 rules it: how fast a block digs with the
//! held item, whether it drops, how far a player reaches, and how a placed block is turned.

use valence::math::{DVec3, Vec3};
use valence::prelude::*;
use valence::protocol::{Direction, Sound};

#[cfg(test)]
use crate::blocks::support::other_part;
use crate::blocks::support::{clockwise, full_block, horizontal, opposite, placeable, sturdy};

/// Vanilla's reach for digging and placing: 6 blocks from the eyes to the block's centre
/// (`ServerGamePacketListenerImpl.MAX_INTERACTION_DISTANCE`).
pub(super) const REACH: f64 = 6.0;

/// Share of the expected dig progress the server asks for when a dig ends (vanilla's 0.7):
/// the client counted the ticks on its side, and the packets took time to come.
const DIG_TOLERANCE: f32 = 0.7;

/// A player's eyes, from their feet.
pub(super) fn eyes(feet: DVec3) -> DVec3 {
    feet + DVec3::new(0.0, crate::common::body::EYE_HEIGHT, 0.0)
}

/// Whether a player with eyes at `eyes` reaches block `at`.
pub(super) fn in_reach(eyes: DVec3, at: BlockPos) -> bool {
    let centre = DVec3::new(at.x as f64 + 0.5, at.y as f64 + 0.5, at.z as f64 + 0.5);
    eyes.distance(centre) <= REACH
}

/// Whether a dig that started `ticks` ago may end now.
pub(super) fn dig_done(progress_per_tick: f32, ticks: u64) -> bool {
    progress_per_tick * (ticks + 1) as f32 >= DIG_TOLERANCE
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

/// A direction as a `facing` value.
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
/// that block), by a player with this yaw: logs lie along the clicked axis; stairs, doors,
/// fence gates and beds face the way the player looks, other blocks with a facing (furnaces,
/// chests) face the player; stairs, slabs and trapdoors go to the top half when placed under a
/// block or on the upper half of a side, and a trapdoor placed on a side hinges on it. Doors
/// are placed as their lower half, beds as their foot.
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
    if state.get(PropName::Rotation).is_some() {
        // Signs, banners and heads on the floor turn in sixteenths to face the player.
        state = state.set(PropName::Rotation, sixteenths(yaw + 180.0));
    }
    if state.get(PropName::Facing).is_some() {
        let looking = looking(yaw);
        let facing = if ["_stairs", "_door", "_fence_gate", "_bed"]
            .iter()
            .any(|end| name.ends_with(end))
        {
            looking
        } else if name.ends_with("_trapdoor") && is_horizontal(face) {
            face
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
    } else if name.ends_with("_trapdoor") {
        let half = if upper {
            PropValue::Top
        } else {
            PropValue::Bottom
        };
        state = state.set(PropName::Half, half);
    } else if name.ends_with("_door") {
        state = state.set(PropName::Half, PropValue::Lower);
    } else if name.ends_with("_bed") {
        state = state.set(PropName::Part, PropValue::Foot);
    }
    state
}

/// The six directions in the order vanilla tries them for a block a player places looking
/// (`yaw`, `pitch`): nearest to the look first (`Direction.orderedByNearest`), then the block
/// clicked brought to the front (`BlockPlaceContext.getNearestLookingDirections`). `clicked`
/// is the face clicked, `None` when the new block takes the clicked one's place (grass, snow).
pub(super) fn nearest_looking(yaw: f32, pitch: f32, clicked: Option<Direction>) -> [Direction; 6] {
    let (pitch, yaw) = (pitch.to_radians(), (-yaw).to_radians());
    let (sp, cp, sy, cy) = (pitch.sin(), pitch.cos(), yaw.sin(), yaw.cos());
    let (east, up, south) = (sy > 0.0, sp < 0.0, cy > 0.0);
    let (fx, fy, fz) = (sy.abs(), sp.abs(), cy.abs());
    let (hx, hz) = (fx * cp, fz * cp);
    let dx = if east {
        Direction::East
    } else {
        Direction::West
    };
    let dy = if up { Direction::Up } else { Direction::Down };
    let dz = if south {
        Direction::South
    } else {
        Direction::North
    };
    let [a, b, c] = if fx > fz {
        if fy > hx {
            [dy, dx, dz]
        } else if hz > fy {
            [dx, dz, dy]
        } else {
            [dx, dy, dz]
        }
    } else if fy > hz {
        [dy, dz, dx]
    } else if hx > fy {
        [dz, dx, dy]
    } else {
        [dz, dy, dx]
    };
    let mut order = [a, b, c, opposite(c), opposite(b), opposite(a)];
    if let Some(face) = clicked {
        let towards = opposite(face);
        if let Some(i) = order.iter().position(|d| *d == towards) {
            order[..=i].rotate_right(1);
        }
    }
    order
}

/// Whether `kind` stands on a floor or hangs on a wall by where it is placed, as vanilla's
/// `StandingAndWallBlockItem`s: torches, signs and banners stand or hang on a wall, hanging
/// signs hang from a ceiling or between walls.
fn standing_or_wall(kind: BlockKind) -> bool {
    let name = kind.to_str();
    kind.to_state().wall_block_id().is_some()
        && (name.ends_with("torch") || name.ends_with("_sign") || name.ends_with("_banner"))
}

/// Where a placed block that hangs on another goes, as vanilla's `getStateForPlacement` and
/// `StandingAndWallBlockItem` choose: trying the directions `nearest` the player's look in
/// turn (see [`nearest_looking`]), a torch, sign or banner stands on the floor (a hanging
/// sign hangs from the ceiling) or takes the first wall round it that holds it; a ladder
/// takes the first wall that holds it; a lantern stands or hangs. `None` when nothing around
/// holds it (then nothing is placed). `face` is the face clicked, `yaw` the player's and
/// `sneaking` whether they sneak, `around` the block in a direction from the new block.
pub(super) fn attach(
    state: BlockState,
    nearest: &[Direction; 6],
    face: Direction,
    (yaw, sneaking): (f32, bool),
    around: impl Fn(Direction) -> Option<BlockState>,
) -> Option<BlockState> {
    let kind = state.to_kind();
    let holds = |s: &BlockState| placeable(*s, &around);
    let on_wall = |wall: BlockState, d: Direction| wall.set(PropName::Facing, value(opposite(d)));
    if standing_or_wall(kind) {
        let wall = kind.to_state().wall_block_id()?;
        let hanging = kind.to_str().ends_with("_hanging_sign");
        let attachment = if hanging {
            Direction::Up
        } else {
            Direction::Down
        };
        // A wall hanging sign hangs across the face clicked, never on it
        // (`WallHangingSignBlock.getStateForPlacement`).
        let walled = nearest
            .iter()
            .filter(|d| is_horizontal(**d) && !(hanging && same_axis(**d, face)))
            .map(|d| on_wall(wall, *d))
            .find(holds);
        let standing = if hanging {
            ceiling_hanging(state, yaw, sneaking, around(Direction::Up))
        } else {
            state
        };
        return nearest
            .iter()
            .filter(|d| **d != opposite(attachment))
            .find_map(|d| {
                let candidate = if *d == attachment {
                    Some(standing)
                } else {
                    walled
                };
                candidate.filter(holds)
            });
    }
    if kind == BlockKind::Ladder {
        return nearest
            .iter()
            .filter(|d| is_horizontal(**d))
            .map(|d| on_wall(state, *d))
            .find(holds);
    }
    if matches!(kind, BlockKind::Lantern | BlockKind::SoulLantern) {
        return nearest
            .iter()
            .filter(|d| !is_horizontal(**d))
            .map(|d| state.set(PropName::Hanging, PropValue::from_bool(*d == Direction::Up)))
            .find(holds);
    }
    Some(state).filter(holds)
}

/// A hanging sign under a block, as `CeilingHangingSignBlock.getStateForPlacement` hangs it:
/// on two chains turned the way the player looks, or on one chain (`attached`), turned in
/// sixteenths like a standing sign, when the block above has no whole underside or the player
/// sneaks. `state` is turned as [`placed_state`] turns it; `above` is the block above.
fn ceiling_hanging(
    state: BlockState,
    yaw: f32,
    sneaking: bool,
    above: Option<BlockState>,
) -> BlockState {
    let attached = sneaking || !above.is_some_and(|s| sturdy(s, Direction::Down));
    let state = state.set(PropName::Attached, PropValue::from_bool(attached));
    if attached {
        return state;
    }
    // The four-way look turned round (`Direction.toYRot`).
    let back = match opposite(looking(yaw)) {
        Direction::South => 0.0,
        Direction::West => 90.0,
        Direction::North => 180.0,
        _ => 270.0,
    };
    state.set(PropName::Rotation, sixteenths(back))
}

/// A turn of `degrees` in sixteenths, as a `rotation` value (`RotationSegment.convertToSegment`).
fn sixteenths(degrees: f32) -> PropValue {
    let n = ((degrees / 22.5 + 0.5).floor() as i32 & 15) as u16;
    PropValue::from_u16(n).unwrap_or(PropValue::_0)
}

/// What a hoe, a shovel or an axe makes of the block it is used on: the block it becomes, the
/// sound of it, and what pops out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Reshaped {
    pub(super) state: BlockState,
    pub(super) sound: Sound,
    pub(super) pops: Option<ItemKind>,
}

/// What using `tool` on `clicked` (its `face`, with `above` on top of it) does, as vanilla's
/// `HoeItem.TILLABLES` (grass, dirt and paths to farmland, coarse dirt to dirt, rooted dirt
/// to dirt and hanging roots), `ShovelItem.FLATTENABLES` (grass and dirts to a path) and
/// `AxeItem.STRIPPABLES` (logs and wood stripped, along the same axis). Tilling and
/// flattening need air above and a click on any face but the bottom.
pub(super) fn tool_use(
    tool: ItemKind,
    clicked: BlockState,
    face: Direction,
    above: BlockState,
) -> Option<Reshaped> {
    let kind = clicked.to_kind();
    let open = face != Direction::Down && above.is_air();
    let name = tool.to_str();
    let (state, sound, pops) = if name.ends_with("_hoe") {
        let sound = Sound::ItemHoeTill;
        match kind {
            BlockKind::GrassBlock | BlockKind::DirtPath | BlockKind::Dirt if open => {
                (BlockState::FARMLAND, sound, None)
            }
            BlockKind::CoarseDirt if open => (BlockState::DIRT, sound, None),
            BlockKind::RootedDirt => (BlockState::DIRT, sound, Some(ItemKind::HangingRoots)),
            _ => return None,
        }
    } else if name.ends_with("_shovel") {
        let flattens = matches!(
            kind,
            BlockKind::GrassBlock
                | BlockKind::Dirt
                | BlockKind::Podzol
                | BlockKind::CoarseDirt
                | BlockKind::Mycelium
                | BlockKind::RootedDirt
        );
        if !(flattens && open) {
            return None;
        }
        (BlockState::DIRT_PATH, Sound::ItemShovelFlatten, None)
    } else if name.ends_with("_axe") {
        let wood = kind.to_str();
        let strippable = ["_log", "_wood", "_stem", "_hyphae"]
            .iter()
            .any(|end| wood.ends_with(end))
            || kind == BlockKind::BambooBlock;
        if !strippable || wood.starts_with("stripped_") {
            return None;
        }
        let stripped = BlockKind::from_str(&format!("stripped_{wood}"))?;
        let mut state = stripped.to_state();
        if let Some(axis) = clicked.get(PropName::Axis) {
            state = state.set(PropName::Axis, axis);
        }
        (state, Sound::ItemAxeStrip, None)
    } else {
        return None;
    };
    Some(Reshaped { state, sound, pops })
}

/// The hinge of `door` placed facing `facing`, as vanilla's `DoorBlock.getHinge`: away from
/// a door of its kind beside it, towards the side with more whole blocks, and otherwise on
/// the side of the middle the player clicked. `beside(d, above)` is the block in horizontal
/// direction `d` from the door's lower half (`above`: from its upper half); `click` is where
/// the click landed, relative to the lower half's corner.
pub(super) fn door_hinge(
    door: BlockKind,
    facing: Direction,
    click: Vec3,
    beside: impl Fn(Direction, bool) -> Option<BlockState>,
) -> PropValue {
    let (left, right) = (counter_clockwise(facing), clockwise(facing));
    let whole = |d, above| i32::from(beside(d, above).is_some_and(full_block));
    let weight = whole(right, false) + whole(right, true) - whole(left, false) - whole(left, true);
    let door_at = |d| {
        beside(d, false)
            .is_some_and(|s| s.to_kind() == door && s.get(PropName::Half) == Some(PropValue::Lower))
    };
    let (left_door, right_door) = (door_at(left), door_at(right));
    if (left_door && !right_door) || weight > 0 {
        return PropValue::Right;
    }
    if (right_door && !left_door) || weight < 0 {
        return PropValue::Left;
    }
    let (dx, dz) = match facing {
        Direction::North => (0, -1),
        Direction::South => (0, 1),
        Direction::West => (-1, 0),
        _ => (1, 0),
    };
    let (cx, cz) = (click.x, click.z);
    let left_of_middle = (dx >= 0 || cz >= 0.5)
        && (dx <= 0 || cz <= 0.5)
        && (dz >= 0 || cx <= 0.5)
        && (dz <= 0 || cx >= 0.5);
    if left_of_middle {
        PropValue::Left
    } else {
        PropValue::Right
    }
}

/// The other block a placed block takes: a door's upper half above it, a bed's head ahead.
pub(super) fn second_half(state: BlockState) -> Option<(Direction, BlockState)> {
    if state.get(PropName::Half) == Some(PropValue::Lower) && crate::world::door::is_door(state) {
        return Some((Direction::Up, state.set(PropName::Half, PropValue::Upper)));
    }
    if state.get(PropName::Part) == Some(PropValue::Foot) {
        let facing = state.get(PropName::Facing).and_then(horizontal)?;
        return Some((facing, state.set(PropName::Part, PropValue::Head)));
    }
    None
}

fn counter_clockwise(d: Direction) -> Direction {
    opposite(clockwise(d))
}

fn is_horizontal(d: Direction) -> bool {
    !matches!(d, Direction::Up | Direction::Down)
}

fn same_axis(a: Direction, b: Direction) -> bool {
    a == b || a == opposite(b)
}

/// Where a chest half's other half is (`ChestBlock.getConnectedDirection`): a left half's to
/// its facing's clockwise side, a right half's to the other; `None` for a single chest.
pub fn chest_partner(state: BlockState) -> Option<Direction> {
    let facing = horizontal(state.get(PropName::Facing)?)?;
    match state.get(PropName::Type)? {
        PropValue::Left => Some(clockwise(facing)),
        PropValue::Right => Some(counter_clockwise(facing)),
        _ => None,
    }
}

/// A chest placed as vanilla's `ChestBlock.getStateForPlacement` places it: `state` faces the
/// player; it joins a single chest of its kind facing the same way beside it (to its left or
/// right as it faces), or, placed sneaking against the side of one, that chest whatever the
/// player faces. `beside` is the block in a direction from the new chest. Returns the state
/// and, when it joined one, where its partner is and the partner's new state.
pub(super) fn chest_placed(
    state: BlockState,
    face: Direction,
    sneaking: bool,
    beside: impl Fn(Direction) -> Option<BlockState>,
) -> (BlockState, Option<(Direction, BlockState)>) {
    let kind = state.to_kind();
    let Some(mut facing) = state.get(PropName::Facing).and_then(horizontal) else {
        return (state, None);
    };
    // The facing of a single chest of this kind in direction `d`, if there is one.
    let single = |d: Direction| {
        beside(d)
            .filter(|s| s.to_kind() == kind && s.get(PropName::Type) == Some(PropValue::Single))
            .and_then(|s| s.get(PropName::Facing).and_then(horizontal))
    };
    let mut kind_of_half = PropValue::Single;
    if is_horizontal(face) && sneaking {
        // `face` is the face clicked: the chest clicked lies opposite it.
        if let Some(theirs) = single(opposite(face)).filter(|d| !same_axis(*d, face)) {
            facing = theirs;
            kind_of_half = if counter_clockwise(theirs) == opposite(face) {
                PropValue::Right
            } else {
                PropValue::Left
            };
        }
    }
    if kind_of_half == PropValue::Single && !sneaking {
        if single(clockwise(facing)) == Some(facing) {
            kind_of_half = PropValue::Left;
        } else if single(counter_clockwise(facing)) == Some(facing) {
            kind_of_half = PropValue::Right;
        }
    }
    let placed = state
        .set(PropName::Facing, value(facing))
        .set(PropName::Type, kind_of_half);
    let partner = chest_partner(placed).and_then(|d| {
        let other = if kind_of_half == PropValue::Left {
            PropValue::Right
        } else {
            PropValue::Left
        };
        Some((d, beside(d)?.set(PropName::Type, other)))
    });
    (placed, partner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::dig_progress;

    #[test]
    fn a_chest_beside_another_facing_the_same_way_makes_a_double_chest() {
        // Looking south (yaw 0), a chest faces north; another single one facing north lies
        // to the east, the new chest's clockwise side: the new one is the left half.
        let chest = placed_state(BlockKind::Chest, Direction::Up, Vec3::splat(0.5), 0.0);
        let single_north = BlockKind::Chest
            .to_state()
            .set(PropName::Facing, PropValue::North);
        let east = |d: Direction| (d == Direction::East).then_some(single_north);
        let (placed, partner) = chest_placed(chest, Direction::Up, false, east);
        assert_eq!(placed.get(PropName::Type), Some(PropValue::Left));
        let (at, theirs) = partner.unwrap();
        assert_eq!(at, Direction::East);
        assert_eq!(theirs.get(PropName::Type), Some(PropValue::Right));
        assert_eq!(
            chest_partner(theirs),
            Some(Direction::West),
            "they point at each other"
        );
        // Sneaking keeps it single; a trapped chest does not pair with a chest.
        assert_eq!(
            chest_placed(chest, Direction::Up, true, east)
                .0
                .get(PropName::Type),
            Some(PropValue::Single)
        );
        let trapped = placed_state(
            BlockKind::TrappedChest,
            Direction::Up,
            Vec3::splat(0.5),
            0.0,
        );
        assert_eq!(
            chest_placed(trapped, Direction::Up, false, east)
                .0
                .get(PropName::Type),
            Some(PropValue::Single)
        );
    }

    #[test]
    fn a_chest_placed_sneaking_against_a_chests_side_joins_it() {
        // Clicking the east face of a chest facing south, from the east, while sneaking: the
        // new chest joins it, facing south too.
        let chest = placed_state(BlockKind::Chest, Direction::East, Vec3::splat(0.5), 90.0);
        let south = BlockKind::Chest
            .to_state()
            .set(PropName::Facing, PropValue::South);
        let clicked = |d: Direction| (d == Direction::West).then_some(south);
        let (placed, partner) = chest_placed(chest, Direction::East, true, clicked);
        assert_eq!(placed.get(PropName::Facing), Some(PropValue::South));
        assert_eq!(partner.map(|(d, _)| d), Some(Direction::West));
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
    fn reach_is_six_blocks_from_the_eyes() {
        let feet = DVec3::new(0.5, 64.0, 0.5);
        assert!(in_reach(eyes(feet), BlockPos::new(0, 63, 5)));
        assert!(!in_reach(eyes(feet), BlockPos::new(0, 64, 7)));
    }

    /// A world of air but for `blocks`, seen from a block placed at the origin.
    fn around(blocks: &[(Direction, BlockState)]) -> impl Fn(Direction) -> Option<BlockState> + '_ {
        move |d| {
            Some(
                blocks
                    .iter()
                    .find(|(at, _)| *at == d)
                    .map_or(BlockState::AIR, |(_, s)| *s),
            )
        }
    }

    /// `state` placed against `face` of a block by a player looking level at `yaw`.
    fn put(
        state: BlockState,
        face: Direction,
        yaw: f32,
        blocks: &[(Direction, BlockState)],
    ) -> Option<BlockState> {
        let nearest = nearest_looking(yaw, 0.0, Some(face));
        attach(state, &nearest, face, (yaw, false), around(blocks))
    }

    #[test]
    fn directions_are_tried_nearest_the_look_first_the_clicked_block_before_all() {
        use Direction::*;
        // Looking level to the south, then a little down to the east.
        assert_eq!(
            nearest_looking(0.0, 0.0, None),
            [South, Down, West, East, Up, North]
        );
        assert_eq!(
            nearest_looking(-80.0, 30.0, None),
            [East, Down, South, North, Up, West]
        );
        // Looking steeply up to the north.
        assert_eq!(nearest_looking(180.0, -70.0, None)[..2], [Up, North]);
        // Clicking the top of a block puts the block below first.
        assert_eq!(
            nearest_looking(0.0, 0.0, Some(Up)),
            [Down, South, West, East, Up, North]
        );
        assert_eq!(
            nearest_looking(0.0, 0.0, Some(South)),
            [North, South, Down, West, East, Up]
        );
    }

    #[test]
    fn a_torch_hangs_on_the_wall_clicked_stands_on_a_floor_and_needs_something() {
        let torch = BlockState::TORCH;
        let stone = BlockState::STONE;
        // Clicked on the east face of a stone block: on its wall, facing east.
        let walled = [(Direction::West, stone), (Direction::Down, stone)];
        let placed = put(torch, Direction::East, 0.0, &walled).unwrap();
        assert_eq!(placed.to_kind(), BlockKind::WallTorch);
        assert_eq!(placed.get(PropName::Facing), Some(PropValue::East));
        // Clicked on top: it stands.
        assert_eq!(put(torch, Direction::Up, 0.0, &walled), Some(torch));
        // On a bottom slab, with a wall beside: it goes on the wall.
        let slab = [
            (Direction::Down, BlockState::OAK_SLAB),
            (Direction::North, stone),
        ];
        let placed = put(torch, Direction::Up, 0.0, &slab).unwrap();
        assert_eq!(placed.get(PropName::Facing), Some(PropValue::South));
        // Nothing holds it: nothing is placed.
        assert_eq!(put(torch, Direction::Up, 0.0, &[]), None);
        // A ladder clicked on the ground goes on the wall ahead, facing the player.
        let ahead = [(Direction::South, stone), (Direction::Down, stone)];
        let ladder = put(BlockState::LADDER, Direction::Up, 0.0, &ahead).unwrap();
        assert_eq!(ladder.get(PropName::Facing), Some(PropValue::North));
        // A lantern clicked under a block hangs from it.
        let ceiling = [(Direction::Up, stone)];
        let lantern = put(BlockState::LANTERN, Direction::Down, 0.0, &ceiling).unwrap();
        assert_eq!(lantern.get(PropName::Hanging), Some(PropValue::True));
    }

    #[test]
    fn a_sign_stands_turned_to_the_player_or_hangs_on_the_wall_clicked() {
        let mid = Vec3::new(0.5, 1.0, 0.5);
        let stone = BlockState::STONE;
        // Looking south-west (yaw 45): the sign turns to face the player, 6 sixteenths round.
        let sign = placed_state(BlockKind::OakSign, Direction::Up, mid, 45.0);
        assert_eq!(sign.get(PropName::Rotation), Some(PropValue::_10));
        let floor = [(Direction::Down, stone)];
        assert_eq!(put(sign, Direction::Up, 45.0, &floor), Some(sign));
        // Clicked on a wall's face: on the wall, facing out of it.
        let wall = [(Direction::North, stone)];
        let hung = put(sign, Direction::South, 0.0, &wall).unwrap();
        assert_eq!(hung.to_kind(), BlockKind::OakWallSign);
        assert_eq!(hung.get(PropName::Facing), Some(PropValue::South));
        // On a carpet, which is not solid, with no wall: nothing.
        assert_eq!(
            put(
                sign,
                Direction::Up,
                0.0,
                &[(Direction::Down, BlockState::WHITE_CARPET)]
            ),
            None
        );
    }

    #[test]
    fn a_hanging_sign_hangs_on_two_chains_under_a_whole_block_and_one_under_a_fence() {
        let mid = Vec3::new(0.5, 0.0, 0.5);
        let sign = placed_state(BlockKind::OakHangingSign, Direction::Down, mid, 30.0);
        let under = |above| {
            let nearest = nearest_looking(30.0, 0.0, Some(Direction::Down));
            attach(
                sign,
                &nearest,
                Direction::Down,
                (30.0, false),
                around(&[(Direction::Up, above)]),
            )
        };
        let two = under(BlockState::OAK_PLANKS).unwrap();
        assert_eq!(two.get(PropName::Attached), Some(PropValue::False));
        // Looking south-south-west: turned to face north, the four-way look turned round.
        assert_eq!(two.get(PropName::Rotation), Some(PropValue::_8));
        let one = under(BlockState::OAK_FENCE).unwrap();
        assert_eq!(one.get(PropName::Attached), Some(PropValue::True));
        assert_eq!(one.get(PropName::Rotation), Some(PropValue::_9));
        assert_eq!(under(BlockState::AIR), None);
        // Clicked on the east face of a wall: across it, facing south or north.
        let hung = put(
            sign,
            Direction::East,
            0.0,
            &[(Direction::West, BlockState::STONE)],
        );
        let hung = hung.unwrap();
        assert_eq!(hung.to_kind(), BlockKind::OakWallHangingSign);
        assert_eq!(hung.get(PropName::Facing), Some(PropValue::North));
    }

    #[test]
    fn a_door_hinges_away_from_its_neighbour_door_towards_walls_or_by_the_click() {
        let door = BlockKind::OakDoor;
        let lower = door.to_state().set(PropName::Half, PropValue::Lower);
        let mid_left = Vec3::new(0.8, 0.0, 0.5); // facing south, the left is east
        let none = |_: Direction, _: bool| Some(BlockState::AIR);
        assert_eq!(
            door_hinge(door, Direction::South, mid_left, none),
            PropValue::Left
        );
        let right_side = Vec3::new(0.2, 0.0, 0.5);
        assert_eq!(
            door_hinge(door, Direction::South, right_side, none),
            PropValue::Right
        );
        // A door to its left (east, facing south): this one hinges right, a double door.
        let beside_door = |d: Direction, above: bool| {
            Some(if d == Direction::East && !above {
                lower
            } else {
                BlockState::AIR
            })
        };
        assert_eq!(
            door_hinge(door, Direction::South, mid_left, beside_door),
            PropValue::Right
        );
        // Whole blocks on its right (west): the hinge goes there.
        let wall = |d: Direction, _: bool| {
            Some(if d == Direction::West {
                BlockState::STONE
            } else {
                BlockState::AIR
            })
        };
        assert_eq!(
            door_hinge(door, Direction::South, mid_left, wall),
            PropValue::Right
        );
    }

    #[test]
    fn gates_beds_and_trapdoors_are_turned_and_beds_take_two_blocks() {
        let mid = Vec3::new(0.5, 0.5, 0.5);
        let gate = placed_state(BlockKind::OakFenceGate, Direction::Up, mid, 0.0);
        assert_eq!(gate.get(PropName::Facing), Some(PropValue::South));
        let bed = placed_state(BlockKind::RedBed, Direction::Up, mid, 270.0);
        assert_eq!(bed.get(PropName::Facing), Some(PropValue::East));
        let (d, head) = second_half(bed).unwrap();
        assert_eq!(d, Direction::East);
        assert_eq!(head.get(PropName::Part), Some(PropValue::Head));
        let at = BlockPos::new(0, 64, 0);
        assert_eq!(other_part(at, bed), Some(BlockPos::new(1, 64, 0)));
        assert_eq!(other_part(BlockPos::new(1, 64, 0), head), Some(at));
        let high = Vec3::new(1.0, 0.8, 0.5);
        let hatch = placed_state(BlockKind::OakTrapdoor, Direction::East, high, 0.0);
        assert_eq!(hatch.get(PropName::Facing), Some(PropValue::East));
        assert_eq!(hatch.get(PropName::Half), Some(PropValue::Top));
        let floor = placed_state(BlockKind::OakTrapdoor, Direction::Up, mid, 0.0);
        assert_eq!(floor.get(PropName::Facing), Some(PropValue::North));
        assert_eq!(floor.get(PropName::Half), Some(PropValue::Bottom));
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
    fn hoes_till_shovels_flatten_and_axes_strip_as_vanillas_do() {
        let air = BlockState::AIR;
        let up = Direction::Up;
        let use_on = |tool, block, above| tool_use(tool, block, up, above).map(|r| r.state);
        assert_eq!(
            use_on(ItemKind::WoodenHoe, BlockState::GRASS_BLOCK, air),
            Some(BlockState::FARMLAND)
        );
        assert_eq!(
            use_on(
                ItemKind::IronHoe,
                BlockState::GRASS_BLOCK,
                BlockState::STONE
            ),
            None,
            "covered"
        );
        assert_eq!(
            tool_use(ItemKind::IronHoe, BlockState::DIRT, Direction::Down, air),
            None,
            "from below"
        );
        let roots = tool_use(
            ItemKind::StoneHoe,
            BlockState::ROOTED_DIRT,
            up,
            BlockState::STONE,
        );
        assert_eq!(roots.and_then(|r| r.pops), Some(ItemKind::HangingRoots));
        assert_eq!(
            use_on(ItemKind::StoneShovel, BlockState::PODZOL, air),
            Some(BlockState::DIRT_PATH)
        );
        assert_eq!(use_on(ItemKind::StoneShovel, BlockState::STONE, air), None);
        let log = BlockState::SPRUCE_LOG.set(PropName::Axis, PropValue::X);
        let stripped = use_on(ItemKind::IronAxe, log, air).unwrap();
        assert_eq!(stripped.to_kind(), BlockKind::StrippedSpruceLog);
        assert_eq!(stripped.get(PropName::Axis), Some(PropValue::X));
        assert_eq!(use_on(ItemKind::IronAxe, stripped, air), None);
        assert_eq!(use_on(ItemKind::Stick, BlockState::GRASS_BLOCK, air), None);
    }
}
