//! Where a player gets up from a bed, as vanilla's `BedBlock.findStandUpPosition`: the first
//! free spot of twelve around and on the bed, in vanilla's order, on a floor they can stand
//! on with room for their body (`DismountHelper.findSafeDismountLocation`), shunning fire,
//! lava and the like if anywhere else will do. Used when a sleeper wakes and when a player
//! respawns at their bed.

use valence::math::Aabb;
use valence::prelude::*;

/// A player's width and height standing (`EntityType.PLAYER`).
const WIDTH: f64 = 0.6;
const HEIGHT: f64 = 1.8;

/// The bed's facing (from its foot to its head) as a step on x and z.
fn step(facing: PropValue) -> Option<(i32, i32)> {
    Some(match facing {
        PropValue::North => (0, -1),
        PropValue::South => (0, 1),
        PropValue::West => (-1, 0),
        PropValue::East => (1, 0),
        _ => return None,
    })
}

/// The offsets from the bed's head tried in turn (`bedStandUpOffsets`): around the bed on the
/// side the player does not face first, then on the head and the foot. `yaw` is the angle
/// they respawn facing.
pub fn offsets((dx, dz): (i32, i32), yaw: f32) -> [(i32, i32); 12] {
    // `Direction.getClockWise`, seen from above: north, east, south, west.
    let clockwise = (-dz, dx);
    // `Direction.isFacingAngle`.
    let radians = yaw.to_radians();
    let facing = clockwise.0 as f32 * -radians.sin() + clockwise.1 as f32 * radians.cos() > 0.0;
    let (tx, tz) = if facing {
        (-clockwise.0, -clockwise.1)
    } else {
        clockwise
    };
    [
        (tx, tz),
        (tx - dx, tz - dz),
        (tx - dx * 2, tz - dz * 2),
        (-dx * 2, -dz * 2),
        (-tx - dx * 2, -tz - dz * 2),
        (-tx - dx, -tz - dz),
        (-tx, -tz),
        (-tx + dx, -tz + dz),
        (dx, dz),
        (tx + dx, tz + dz),
        (0, 0),
        (-dx, -dz),
    ]
}

/// Blocks a player is not set down in or on if anywhere else will do (`isBlockDangerous`).
fn dangerous(state: BlockState) -> bool {
    matches!(
        state.to_kind(),
        BlockKind::Fire
            | BlockKind::SoulFire
            | BlockKind::Lava
            | BlockKind::MagmaBlock
            | BlockKind::LavaCauldron
            | BlockKind::WitherRose
            | BlockKind::SweetBerryBush
            | BlockKind::Cactus
            | BlockKind::PowderSnow
    ) || (matches!(
        state.to_kind(),
        BlockKind::Campfire | BlockKind::SoulCampfire
    ) && state.get(PropName::Lit) == Some(PropValue::True))
}

/// The top of what one stands on at `pos` (`getBlockFloorHeight`): its own shape's top if it
/// has one, else the top of the block below, less one; `None` where there is no floor.
fn floor(layer: &ChunkLayer, pos: BlockPos) -> Option<f64> {
    let top = |p: BlockPos| {
        let shapes = layer.block(p)?.state.collision_shapes();
        shapes.map(|s| s.max().y).reduce(f64::max)
    };
    let height = match top(pos) {
        Some(top) => top,
        None => top(BlockPos::new(pos.x, pos.y - 1, pos.z))? - 1.0,
    };
    (height.is_finite() && (-1.0..1.0).contains(&height)).then_some(height)
}

/// Whether a standing player at `feet` touches no block (strictly: resting on one is fine).
fn room(layer: &ChunkLayer, feet: DVec3) -> bool {
    let half = WIDTH / 2.0;
    let body = Aabb::new(
        feet - DVec3::new(half, 0.0, half),
        feet + DVec3::new(half, HEIGHT, half),
    );
    let (low, high) = (body.min().floor(), body.max().floor());
    let eps = 1e-7;
    (low.x as i32..=high.x as i32).all(|x| {
        (low.y as i32..=high.y as i32).all(|y| {
            (low.z as i32..=high.z as i32).all(|z| {
                let Some(block) = layer.block(BlockPos::new(x, y, z)) else {
                    return false;
                };
                let origin = DVec3::new(x as f64, y as f64, z as f64);
                block.state.collision_shapes().all(|shape| {
                    let (min, max) = (shape.min() + origin, shape.max() + origin);
                    max.x <= body.min().x + eps
                        || min.x >= body.max().x - eps
                        || max.y <= body.min().y + eps
                        || min.y >= body.max().y - eps
                        || max.z <= body.min().z + eps
                        || min.z >= body.max().z - eps
                })
            })
        })
    })
}

/// Where a player can be set down at `pos`, if anywhere (`findSafeDismountLocation`).
fn dismount(layer: &ChunkLayer, pos: BlockPos, shun_danger: bool) -> Option<DVec3> {
    let state = layer.block(pos)?.state;
    if shun_danger && dangerous(state) {
        return None;
    }
    let height = floor(layer, pos)?;
    let below = BlockPos::new(pos.x, pos.y - 1, pos.z);
    if shun_danger && height <= 0.0 && layer.block(below).is_some_and(|b| dangerous(b.state)) {
        return None;
    }
    let feet = DVec3::new(
        pos.x as f64 + 0.5,
        pos.y as f64 + height,
        pos.z as f64 + 0.5,
    );
    room(layer, feet).then_some(feet)
}

/// Where a player gets up from the bed whose head is at `head`, facing `yaw`; `None` when it
/// is no bed or walled in.
pub fn spot(layer: &ChunkLayer, head: BlockPos, yaw: f32) -> Option<DVec3> {
    let bed = layer.block(head)?.state;
    let facing = step(bed.get(PropName::Facing)?)?;
    let offsets = offsets(facing, yaw);
    [true, false].into_iter().find_map(|shun_danger| {
        offsets.iter().find_map(|&(x, z)| {
            dismount(
                layer,
                BlockPos::new(head.x + x, head.y, head.z + z),
                shun_danger,
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beside_the_bed_on_the_side_not_faced_first_then_round_it_then_on_it() {
        // A bed whose head points north (foot to head: z - 1), its sleeper facing south
        // (yaw 0): the clockwise side, east, is not faced, and comes first.
        let tried = offsets((0, -1), 0.0);
        assert_eq!(tried[0], (1, 0), "beside the head, east");
        assert_eq!(tried[1], (1, 1), "beside the foot");
        assert_eq!(tried[3], (0, 2), "past the foot");
        assert_eq!(tried[6], (-1, 0), "the west side");
        assert_eq!(tried[8], (0, -1), "past the head");
        assert_eq!(&tried[10..], &[(0, 0), (0, 1)], "on the head, on the foot");
        // Facing east (yaw -90), the east side is faced: west comes first.
        assert_eq!(offsets((0, -1), -90.0)[0], (-1, 0));
    }
}
