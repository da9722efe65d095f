//! Items on the ground as vanilla 1.20.1's `ItemEntity`: how one falls, slides, floats and
//! lands, when two merge, when a player picks one up, and what a zombie drops. Plain functions,
//! unit-tested without the ECS.

use rand::Rng;
use valence::prelude::*;

use crate::world::{is_solid, Voxels};

/// Air drag a tick, on everything that drops (`ItemEntity.tick`, `ExperienceOrb.tick`).
const DRAG: f64 = 0.98;

/// What falls as a dropped thing: its gravity a tick and its box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Body {
    pub gravity: f64,
    pub half_width: f64,
    pub height: f64,
}

/// An item: a 0.25-block box, 0.04 gravity (`EntityType.ITEM`, `ItemEntity.tick`).
pub const ITEM: Body = Body {
    gravity: 0.04,
    half_width: 0.125,
    height: 0.25,
};
const HALF_WIDTH: f64 = ITEM.half_width;
const HEIGHT: f64 = ITEM.height;

pub use crate::common::stacks::LIFETIME;
/// Ticks before anyone may pick up a dug block's drop, and a thrown or dead player's
/// (`setDefaultPickUpDelay` and `Player.drop`).
pub const DIG_PICKUP_DELAY: u32 = 10;
pub const THROWN_PICKUP_DELAY: u32 = 40;
/// A player reaches items within its box grown by 1 block sideways and half a block up and
/// down (`Player.aiStep`); a player's box is 0.6 wide and 1.8 high.
const REACH_SIDE: f64 = 0.3 + 1.0;
const REACH_DOWN: f64 = 0.5;
const REACH_UP: f64 = 1.8 + 0.5;
/// Two items merge when their boxes come within half a block sideways (`mergeWithNeighbours`).
const MERGE_SIDE: f64 = 2.0 * HALF_WIDTH + 0.5;

/// One tick of the motion of `body` at `pos` moving by `vel` blocks a tick: the new position
/// and velocity and whether it rests on the ground.
pub fn step(world: &impl Voxels, body: Body, pos: DVec3, mut vel: DVec3) -> (DVec3, DVec3, bool) {
    let centre = BlockPos::from_pos(pos + DVec3::new(0.0, body.height / 2.0, 0.0));
    if world.block(centre).is_some_and(|b| b.is_liquid()) {
        // Floats: water slows it and lifts it a little (`setUnderwaterMovement`).
        vel = DVec3::new(
            vel.x * 0.99,
            vel.y + if vel.y < 0.06 { 5.0e-4 } else { 0.0 },
            vel.z * 0.99,
        );
    } else {
        vel.y -= body.gravity;
    }
    let mut at = pos;
    let mut on_ground = false;
    // Vertical first, then each horizontal axis, each stopped by what it would enter.
    let to_y = at.y + vel.y;
    if vel.y < 0.0 {
        match floor_between(world, body, at, to_y) {
            Some(top) => {
                // Landing stops the fall (`Block.updateEntityAfterFallOn`).
                at.y = top;
                vel.y = 0.0;
                on_ground = true;
            }
            None => at.y = to_y,
        }
    } else if !blocked(world, body, DVec3::new(at.x, to_y, at.z)) {
        at.y = to_y;
    } else {
        vel.y = 0.0;
    }
    for axis in [0, 2] {
        let mut next = at;
        next[axis] += vel[axis];
        if blocked(world, body, next) {
            vel[axis] = 0.0;
        } else {
            at = next;
        }
    }
    let below = BlockPos::from_pos(at - DVec3::new(0.0, 0.01, 0.0));
    let friction = if on_ground {
        slipperiness(world.block(below).unwrap_or(BlockState::AIR)) * DRAG
    } else {
        DRAG
    };
    vel = DVec3::new(vel.x * friction, vel.y * DRAG, vel.z * friction);
    (at, vel, on_ground)
}

/// The highest top of a solid shape under the box between `from.y` and `to_y`, if it lands
/// on one on the way down.
fn floor_between(world: &impl Voxels, body: Body, from: DVec3, to_y: f64) -> Option<f64> {
    let mut best: Option<f64> = None;
    for (x, z) in footprint(body, from) {
        for y in (to_y.floor() as i32)..=(from.y.floor() as i32) {
            let p = BlockPos::new(x, y, z);
            let Some(state) = world.block(p) else {
                // Unloaded: held where it is, as vanilla holds entities at a chunk's edge.
                return Some(from.y);
            };
            if !is_solid(state) {
                continue;
            }
            for shape in state.collision_shapes() {
                let top = y as f64 + shape.max().y;
                if top <= from.y + 1e-7 && top >= to_y {
                    best = Some(best.map_or(top, |b| b.max(top)));
                }
            }
        }
    }
    best
}

/// Whether the box at `at` would be inside a solid block.
fn blocked(world: &impl Voxels, body: Body, at: DVec3) -> bool {
    let (y0, y1) = (at.y.floor() as i32, (at.y + body.height).floor() as i32);
    footprint(body, at).any(|(x, z)| (y0..=y1).any(|y| world.solid(BlockPos::new(x, y, z))))
}

/// The columns the box stands over.
fn footprint(body: Body, at: DVec3) -> impl Iterator<Item = (i32, i32)> {
    let w = body.half_width;
    let (x0, x1) = ((at.x - w).floor() as i32, (at.x + w).floor() as i32);
    let (z0, z1) = ((at.z - w).floor() as i32, (at.z + w).floor() as i32);
    (x0..=x1).flat_map(move |x| (z0..=z1).map(move |z| (x, z)))
}

/// A block's friction (`Block.getFriction`): ice and slime are slippery, the rest 0.6.
fn slipperiness(state: BlockState) -> f64 {
    match state.to_kind() {
        BlockKind::Ice | BlockKind::PackedIce | BlockKind::FrostedIce => 0.98,
        BlockKind::BlueIce => 0.989,
        BlockKind::SlimeBlock => 0.8,
        _ => 0.6,
    }
}

/// Whether a player standing at `feet` touches `body` at `at`.
pub fn within_reach(feet: DVec3, body: Body, at: DVec3) -> bool {
    (at.x - feet.x).abs() < REACH_SIDE + body.half_width
        && (at.z - feet.z).abs() < REACH_SIDE + body.half_width
        && at.y + body.height > feet.y - REACH_DOWN
        && at.y < feet.y + REACH_UP
}

/// Whether two items at `a` and `b` lie close enough to merge.
pub fn close_enough_to_merge(a: DVec3, b: DVec3) -> bool {
    (a.x - b.x).abs() < MERGE_SIDE && (a.z - b.z).abs() < MERGE_SIDE && (a.y - b.y).abs() < HEIGHT
}

/// Whether stacks `a` and `b` may become one (`ItemEntity.areMergable`): the same item and
/// tags, and room for both in one stack.
pub fn mergeable(a: &ItemStack, b: &ItemStack) -> bool {
    a.item == b.item
        && a.nbt == b.nbt
        && (a.count() as u32 + b.count() as u32) <= a.item.max_stack() as u32
}

/// A dug block's drop (`Block.popResource`): somewhere in the middle of the block, tossed up.
pub fn popped(at: BlockPos, rng: &mut impl Rng) -> (DVec3, DVec3) {
    let jitter = |rng: &mut dyn rand::RngCore| rng.gen_range(-0.25..0.25);
    let pos = DVec3::new(
        at.x as f64 + 0.5 + jitter(rng),
        at.y as f64 + 0.5 + jitter(rng) - HEIGHT / 2.0,
        at.z as f64 + 0.5 + jitter(rng),
    );
    let vel = DVec3::new(rng.gen_range(-0.1..0.1), 0.2, rng.gen_range(-0.1..0.1));
    (pos, vel)
}

/// A stack thrown by a player with `Q` from eyes at `eyes` looking by `yaw` and `pitch`
/// (`Player.drop`, not at random): 0.3 blocks a tick ahead, a little up, with some spread.
pub fn thrown(eyes: DVec3, yaw: f32, pitch: f32, rng: &mut impl Rng) -> (DVec3, DVec3) {
    let (yaw, pitch) = (yaw.to_radians() as f64, pitch.to_radians() as f64);
    let spread_angle = rng.gen_range(0.0..std::f64::consts::TAU);
    let spread = 0.02 * rng.gen::<f64>();
    let vel = DVec3::new(
        -yaw.sin() * pitch.cos() * 0.3 + spread_angle.cos() * spread,
        -pitch.sin() * 0.3 + 0.1 + (rng.gen::<f64>() - rng.gen::<f64>()) * 0.1,
        yaw.cos() * pitch.cos() * 0.3 + spread_angle.sin() * spread,
    );
    (eyes - DVec3::new(0.0, 0.3, 0.0), vel)
}

/// A dead player's stack flung at random (`Player.drop` with `dropAround`).
pub fn scattered(eyes: DVec3, rng: &mut impl Rng) -> (DVec3, DVec3) {
    let strength = rng.gen::<f64>() * 0.5;
    let angle = rng.gen::<f64>() * std::f64::consts::TAU;
    let vel = DVec3::new(-angle.sin() * strength, 0.2, angle.cos() * strength);
    (eyes - DVec3::new(0.0, 0.3, 0.0), vel)
}

/// What a zombie drops when it dies (`loot_tables/entities/zombie.json`, 1.20.1, no looting):
/// 0-2 rotten flesh, and when a player killed it one iron ingot, carrot or potato at 2.5 %.
pub fn zombie_loot(by_player: bool, rng: &mut impl Rng) -> Vec<ItemStack> {
    let mut drops = Vec::new();
    let flesh = rng.gen_range(0..=2u8);
    if flesh > 0 {
        drops.push(ItemStack::new(ItemKind::RottenFlesh, flesh, None));
    }
    if by_player && rng.gen::<f32>() < 0.025 {
        let rare = [ItemKind::IronIngot, ItemKind::Carrot, ItemKind::Potato][rng.gen_range(0..3)];
        drops.push(ItemStack::new(rare, 1, None));
    }
    drops
}

/// A worn or held piece a mob drops (`Mob.dropCustomDeathLoot`): only when a player killed it,
/// at `chance`, worn down at random as vanilla wears a piece that was not sure to drop.
pub fn equipment_drop(
    item: ItemKind,
    by_player: bool,
    chance: f32,
    rng: &mut impl Rng,
) -> Option<u16> {
    if !by_player || rng.gen::<f32>() >= chance {
        return None;
    }
    // `setDamageValue(max - nextInt(1 + nextInt(max(max - 3, 1))))`.
    let max = item.max_durability().max(1) as i32;
    let bound = 1 + rng.gen_range(0..(max - 3).max(1));
    let left = rng.gen_range(0..bound);
    Some((max - left) as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::generator;

    /// Stone below y = 64, air above.
    struct Floor;
    impl Voxels for Floor {
        fn block(&self, pos: BlockPos) -> Option<BlockState> {
            Some(if pos.y < 64 {
                BlockState::STONE
            } else {
                BlockState::AIR
            })
        }
    }

    #[test]
    fn a_dropped_item_falls_lands_and_slides_to_rest() {
        let (mut pos, mut vel) = (DVec3::new(0.5, 70.0, 0.5), DVec3::new(0.1, 0.2, 0.0));
        let mut ticks = 0;
        let mut on_ground = false;
        while !on_ground {
            (pos, vel, on_ground) = step(&Floor, ITEM, pos, vel);
            ticks += 1;
            assert!(ticks < 100);
        }
        assert_eq!(pos.y, 64.0, "on the stone's top");
        // Six blocks and a toss up: about 20 ticks of vanilla's gravity and drag.
        assert!((15..=25).contains(&ticks), "{ticks}");
        for _ in 0..40 {
            (pos, vel, _) = step(&Floor, ITEM, pos, vel);
        }
        assert_eq!(pos.y, 64.0);
        assert!(vel.length() < 1e-3, "at rest: {vel}");
        assert!(pos.x > 0.5, "slid on in its direction");
    }

    #[test]
    fn a_wall_stops_an_item() {
        struct Wall;
        impl Voxels for Wall {
            fn block(&self, pos: BlockPos) -> Option<BlockState> {
                Some(if pos.y < 64 || pos.x >= 2 {
                    BlockState::STONE
                } else {
                    BlockState::AIR
                })
            }
        }
        let (mut pos, mut vel) = (DVec3::new(1.5, 64.0, 0.5), DVec3::new(0.5, 0.0, 0.0));
        for _ in 0..10 {
            (pos, vel, _) = step(&Wall, ITEM, pos, vel);
        }
        assert!(pos.x + HALF_WIDTH <= 2.0, "{pos}");
    }

    #[test]
    fn reach_and_merging_are_vanillas_boxes() {
        let feet = DVec3::new(0.0, 64.0, 0.0);
        assert!(within_reach(feet, ITEM, DVec3::new(1.4, 64.0, 0.0)));
        assert!(!within_reach(feet, ITEM, DVec3::new(1.5, 64.0, 0.0)));
        assert!(within_reach(feet, ITEM, DVec3::new(0.0, 66.2, 0.0)));
        assert!(!within_reach(feet, ITEM, DVec3::new(0.0, 66.4, 0.0)));
        assert!(close_enough_to_merge(
            DVec3::new(0.0, 64.0, 0.0),
            DVec3::new(0.7, 64.0, 0.0)
        ));
        assert!(!close_enough_to_merge(
            DVec3::new(0.0, 64.0, 0.0),
            DVec3::new(0.8, 64.0, 0.0)
        ));
        let dirt = |n| ItemStack::new(ItemKind::Dirt, n, None);
        assert!(mergeable(&dirt(32), &dirt(32)));
        assert!(!mergeable(&dirt(33), &dirt(32)));
        assert!(!mergeable(
            &dirt(1),
            &ItemStack::new(ItemKind::Stone, 1, None)
        ));
        let pearl = |n| ItemStack::new(ItemKind::EnderPearl, n, None);
        assert!(!mergeable(&pearl(10), &pearl(10)), "pearls stack to 16");
    }

    #[test]
    fn zombie_loot_is_vanillas_table() {
        let mut rng = generator(7);
        let (mut flesh, mut rare, runs) = (0u32, 0u32, 20_000);
        for _ in 0..runs {
            for stack in zombie_loot(true, &mut rng) {
                match stack.item {
                    ItemKind::RottenFlesh => flesh += stack.count() as u32,
                    ItemKind::IronIngot | ItemKind::Carrot | ItemKind::Potato => rare += 1,
                    other => panic!("{other:?}"),
                }
            }
        }
        let per_kill = flesh as f64 / runs as f64;
        assert!(
            (per_kill - 1.0).abs() < 0.03,
            "1 rotten flesh a kill on average: {per_kill}"
        );
        let share = rare as f64 / runs as f64;
        assert!((share - 0.025).abs() < 0.005, "{share}");
        assert!(zombie_loot(false, &mut rng)
            .iter()
            .all(|s| s.item == ItemKind::RottenFlesh));
    }

    #[test]
    fn equipment_drops_only_to_a_player_and_worn() {
        let mut rng = generator(3);
        assert!(
            (0..1000).all(|_| equipment_drop(ItemKind::IronHelmet, false, 1.0, &mut rng).is_none())
        );
        let dropped: Vec<u16> = (0..10_000)
            .filter_map(|_| equipment_drop(ItemKind::IronHelmet, true, 0.085, &mut rng))
            .collect();
        let share = dropped.len() as f64 / 10_000.0;
        assert!((share - 0.085).abs() < 0.01, "{share}");
        assert!(
            dropped.iter().all(|&d| (1..=165).contains(&d)),
            "an iron helmet has 165 uses"
        );
        assert!(dropped.iter().any(|&d| d < 100), "some come with wear left");
    }
}
