//! Doors as blocks: two halves of one kind, open or closed. Bodies, players' edits and
//! zombies breaking doors all ask the same questions of them.

use valence::prelude::*;
use valence::protocol::Direction;

use crate::blocks::support::other_part;

/// Whether `state` is a half of a door (wooden or iron).
pub fn is_door(state: BlockState) -> bool {
    state.to_kind().to_str().ends_with("_door")
}

/// Whether `state` is an open door.
pub fn is_open_door(state: BlockState) -> bool {
    is_door(state) && state.get(PropName::Open) == Some(PropValue::True)
}

/// The other half of the door whose half at `at` is `state` (above it when `state` says
/// nothing of its half): [`other_part`]'s rule for doors.
pub fn other_half(at: BlockPos, state: BlockState) -> BlockPos {
    other_part(at, state).unwrap_or_else(|| at.get_in_direction(Direction::Up))
}

/// The lower half of the door whose half at `at` is `state`.
pub fn lower_half(at: BlockPos, state: BlockState) -> BlockPos {
    match state.get(PropName::Half) {
        Some(PropValue::Upper) => at.get_in_direction(Direction::Down),
        _ => at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_find_each_other() {
        let at = BlockPos::new(3, 64, -2);
        let lower = BlockState::OAK_DOOR;
        let upper = lower.set(PropName::Half, PropValue::Upper);
        assert_eq!(other_half(at, lower), BlockPos::new(3, 65, -2));
        assert_eq!(other_half(at, upper), BlockPos::new(3, 63, -2));
        assert_eq!(lower_half(at, upper), BlockPos::new(3, 63, -2));
        assert_eq!(lower_half(at, lower), at);
        assert!(is_door(BlockState::IRON_DOOR) && !is_door(BlockState::OAK_LOG));
        assert!(is_open_door(lower.set(PropName::Open, PropValue::True)));
        assert!(!is_open_door(lower));
    }
}
