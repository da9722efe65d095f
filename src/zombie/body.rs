//! A kinematic walker for zombie bodies: gravity and falling, steps up one block, jumps, never
//! passes through a block with a collision shape, swims slowly in water, and never enters an
//! unloaded chunk (unloaded blocks count as solid). Positions are rounded to 1/4096 of a block,
//! the resolution of relative moves, so clients do not drift.

use valence::prelude::*;

use super::ZombieStruck;
use crate::world::Voxels;

/// Half the width of a zombie's box, and its height (vanilla: 0.6 x 1.95).
pub const HALF_WIDTH: f64 = 0.3;
pub const BODY_HEIGHT: f64 = 1.95;
/// A zombie's eyes above its feet (vanilla's 1.74): what it sees from, where the sun reaches.
pub const EYE_HEIGHT: f64 = 1.74;
/// Vanilla's per-tick gravity, drag and jump impulse.
const GRAVITY: f64 = 0.08;
const DRAG: f64 = 0.98;
const JUMP: f64 = 0.42;
const TERMINAL: f64 = 3.92;
/// Water halves walking speed and slows sinking.
const WATER_SPEED: f64 = 0.5;
const WATER_SINK: f64 = 0.02;
const SWIM_UP: f64 = 0.12;
/// Climbing a ladder or vine: vanilla sets a climber pushing into its wall (or jumping) to
/// 0.2 up, which gravity and drag leave at 0.1176 blocks a tick; it slides down at 0.15 at
/// most (`LivingEntity.handleOnClimbable`).
const CLIMB: f64 = 0.1176;
const CLIMB_SLIDE: f64 = -0.15;
/// Fraction of knockback left after each tick.
const KNOCKBACK_DECAY: f64 = 0.6;

/// Motion state of one body.
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct Body {
    pub(in crate::zombie) vel_y: f64,
    pub(in crate::zombie) on_ground: bool,
    /// Pushed away when hit; decays each tick.
    pub(in crate::zombie) knockback: DVec3,
    /// The last step was stopped by a wall.
    pub(in crate::zombie) blocked: bool,
    /// Where the body really is; `Position` (what clients are sent) follows it every few
    /// ticks (`Tier::sync_period`), as vanilla's entity tracker does for zombies. None until
    /// the body first moves.
    at: Option<DVec3>,
}

impl Body {
    /// Where the feet really are, given the position clients were last sent.
    pub fn feet(&self, shown: DVec3) -> DVec3 {
        self.at.unwrap_or(shown)
    }

    /// Where the feet are if the body has moved since it was shown, else none.
    pub fn at(&self) -> Option<DVec3> {
        self.at
    }

    /// Puts the feet at `at`: the body's own step, or a push from outside it.
    pub fn place(&mut self, at: DVec3) {
        self.at = Some(at);
    }

    pub fn on_ground(&self) -> bool {
        self.on_ground
    }
}

/// A struck body is pushed away, and off the ground if it stood (vanilla's 0.36 hop).
pub(super) fn take_blows(mut struck: EventReader<ZombieStruck>, mut bodies: Query<&mut Body>) {
    for blow in struck.iter() {
        if let Ok(mut body) = bodies.get_mut(blow.zombie) {
            body.knockback = blow.knockback;
            if body.on_ground {
                body.vel_y = 0.36;
            }
        }
    }
}

/// Whether a zombie's box with its feet at `pos` overlaps any solid (or unloaded) block.
pub fn collides(world: &impl Voxels, pos: DVec3) -> bool {
    let (y0, y1) = (
        pos.y.floor() as i32,
        (pos.y + BODY_HEIGHT - EPS).floor() as i32,
    );
    hits(world, pos, y0, y1)
}

/// Below the blocks a box touches, its edges are this far inside them.
const EPS: f64 = 1e-7;

/// Whether a solid (or unloaded) block of the layers `y0..=y1` lies under the box at `pos`.
fn hits(world: &impl Voxels, pos: DVec3, y0: i32, y1: i32) -> bool {
    let (x0, x1) = (
        (pos.x - HALF_WIDTH).floor() as i32,
        (pos.x + HALF_WIDTH - EPS).floor() as i32,
    );
    let (z0, z1) = (
        (pos.z - HALF_WIDTH).floor() as i32,
        (pos.z + HALF_WIDTH - EPS).floor() as i32,
    );
    (x0..=x1).any(|x| (z0..=z1).any(|z| world.solid_in_column(x, z, y0, y1)))
}

/// Whether a body with room at `pos` stands on something: a floor just under its feet. Its
/// own blocks are free, so only the layer under them needs reading.
fn standing(world: &impl Voxels, pos: DVec3) -> bool {
    let (feet, under) = (pos.y.floor() as i32, (pos.y - 1e-3).floor() as i32);
    under < feet && hits(world, pos, under, under)
}

/// Whether a body fits at `pos` and stands on something there: a place a walk may leave it.
pub(super) fn stands_free(world: &impl Voxels, pos: DVec3) -> bool {
    !collides(world, pos) && standing(world, pos)
}

/// Rounds to the 1/4096 grid of relative move packets.
pub fn snap(v: f64) -> f64 {
    (v * 4096.0).round() / 4096.0
}

impl Body {
    /// Advances one tick: walk by `wish` (blocks this tick, horizontal), jump if asked.
    pub fn step(&mut self, world: &impl Voxels, pos: DVec3, wish: DVec2, jump: bool) -> DVec3 {
        let in_water = world.liquid(BlockPos::from_pos(pos));
        let scale = if in_water { WATER_SPEED } else { 1.0 };
        let dx = wish.x * scale + self.knockback.x;
        let dz = wish.y * scale + self.knockback.z;
        self.knockback *= KNOCKBACK_DECAY;
        if self.knockback.length_squared() < 1e-4 {
            self.knockback = DVec3::ZERO;
        }

        let mut pos = pos;
        self.blocked = false;
        for delta in [DVec3::new(dx, 0.0, 0.0), DVec3::new(0.0, 0.0, dz)] {
            if delta == DVec3::ZERO {
                continue;
            }
            let moved = pos + delta;
            if !collides(world, moved) {
                pos = moved;
                continue;
            }
            // Step up a block when standing, if the body fits on top.
            let up = DVec3::new(0.0, 1.0, 0.0);
            let lifted = DVec3::new(moved.x, pos.y.floor() + 1.0, moved.z);
            if (self.on_ground || in_water)
                && !collides(world, pos + up)
                && !collides(world, lifted)
            {
                pos = lifted;
            } else {
                self.blocked = true;
            }
        }

        // The climbable block is read only when the body pushes, jumps or is off the ground.
        let climbing =
            (self.blocked || jump || !self.on_ground) && world.climbable(BlockPos::from_pos(pos));
        if climbing && (self.blocked || jump) {
            self.vel_y = CLIMB;
        } else if jump && self.on_ground {
            self.vel_y = JUMP;
        } else if in_water && (self.blocked || jump) {
            self.vel_y = SWIM_UP;
        }
        // Move first, then accelerate, as vanilla does. At rest the body stays where the walk
        // just found room for it.
        let moved = pos + DVec3::new(0.0, self.vel_y, 0.0);
        if self.vel_y != 0.0 && collides(world, moved) {
            if self.vel_y < 0.0 {
                // Land on top of the block the feet went into.
                let landed = DVec3::new(pos.x, moved.y.floor() + 1.0, pos.z);
                if !collides(world, landed) && landed.y <= pos.y {
                    pos = landed;
                }
            }
            self.vel_y = 0.0;
        } else {
            pos = moved;
        }
        self.on_ground = standing(world, pos);
        self.vel_y = if self.on_ground && self.vel_y <= 0.0 {
            0.0
        } else if in_water {
            (self.vel_y - WATER_SINK).max(-0.1)
        } else if climbing {
            ((self.vel_y - GRAVITY) * DRAG).max(CLIMB_SLIDE)
        } else {
            ((self.vel_y - GRAVITY) * DRAG).max(-TERMINAL)
        };
        DVec3::new(snap(pos.x), snap(pos.y), snap(pos.z))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Grid;

    fn settle(body: &mut Body, world: &Grid, mut pos: DVec3, wish: DVec2, ticks: usize) -> DVec3 {
        for _ in 0..ticks {
            pos = body.step(world, pos, wish, false);
        }
        pos
    }

    #[test]
    fn standing_reads_one_layer_and_agrees_with_a_box_a_hair_lower() {
        use rand::Rng;
        let mut rng = crate::random::generator(7);
        let mut world = Grid::new([-4, 0, -4], [4, 8, 4]);
        for _ in 0..60 {
            let at = [
                rng.gen_range(-4..4),
                rng.gen_range(0..8),
                rng.gen_range(-4..4),
            ];
            world.set(at, BlockState::STONE);
        }
        let mut checked = 0;
        while checked < 2000 {
            let pos = DVec3::new(
                snap(rng.gen_range(-3.0..3.0)),
                // On a block's top half the time, anywhere in it otherwise.
                if rng.gen_bool(0.5) {
                    rng.gen_range(1..6) as f64
                } else {
                    snap(rng.gen_range(1.0..6.0))
                },
                snap(rng.gen_range(-3.0..3.0)),
            );
            if collides(&world, pos) {
                continue;
            }
            checked += 1;
            assert_eq!(
                standing(&world, pos),
                collides(&world, pos - DVec3::new(0.0, 1e-3, 0.0)),
                "{pos}"
            );
        }
    }

    #[test]
    fn climbs_a_ladder_pushing_into_its_wall_and_slides_down_slowly() {
        let mut g = Grid::new([-4, 0, -4], [4, 12, 4]).floor(0);
        g.fill([1, 1, 0], [1, 8, 0], BlockState::STONE);
        g.fill([0, 1, 0], [0, 8, 0], BlockState::LADDER);
        let mut body = Body::default();
        let start = DVec3::new(0.5, 1.0, 0.5);
        let up = settle(&mut body, &g, start, DVec2::new(0.1, 0.0), 40);
        assert!(up.y > 5.0, "climbed to {up}");
        // Let go of the wall: it slides, never faster than vanilla's 0.15 a tick.
        let mut pos = up;
        for _ in 0..10 {
            let next = body.step(&g, pos, DVec2::ZERO, false);
            assert!(pos.y - next.y <= 0.15 + 1e-9, "{pos} to {next}");
            pos = next;
        }
        assert!(pos.y < up.y);
    }

    #[test]
    fn falls_and_lands_on_the_floor() {
        let g = Grid::new([-4, 0, -4], [4, 20, 4]).floor(0);
        let mut body = Body::default();
        let pos = settle(&mut body, &g, DVec3::new(0.5, 10.0, 0.5), DVec2::ZERO, 60);
        assert_eq!(pos.y, 1.0);
        assert!(body.on_ground);
    }

    #[test]
    fn walks_steps_up_one_block_and_stops_at_two() {
        let mut g = Grid::new([-4, 0, -4], [12, 8, 4]).floor(0);
        g.fill([3, 1, -4], [6, 1, 4], BlockState::STONE);
        g.fill([7, 1, -4], [7, 3, 4], BlockState::STONE);
        let mut body = Body {
            on_ground: true,
            ..Default::default()
        };
        let pos = settle(
            &mut body,
            &g,
            DVec3::new(0.5, 1.0, 0.5),
            DVec2::new(0.2, 0.0),
            80,
        );
        assert_eq!(pos.y, 2.0, "stepped onto the 1-block ledge");
        assert!(pos.x < 7.0 - HALF_WIDTH + 1e-9, "the wall stops it: {pos}");
        assert!(body.blocked);
        assert!(!collides(&g, pos));
    }

    #[test]
    fn never_walks_into_unloaded_blocks() {
        let g = Grid::new([-4, 0, -4], [4, 8, 4]).floor(0);
        let mut body = Body::default();
        let pos = settle(
            &mut body,
            &g,
            DVec3::new(0.5, 1.0, 0.5),
            DVec2::new(0.3, 0.0),
            40,
        );
        assert!(
            pos.x <= 5.0 - HALF_WIDTH,
            "stopped at the edge of the loaded grid: {pos}"
        );
    }

    #[test]
    fn water_slows_walking() {
        let mut g = Grid::new([-4, 0, -4], [40, 8, 4]).floor(0);
        let mut body = Body::default();
        let dry = settle(
            &mut body,
            &g,
            DVec3::new(0.5, 1.0, 0.5),
            DVec2::new(0.2, 0.0),
            20,
        );
        g.fill([-4, 1, -4], [40, 2, 4], BlockState::WATER);
        let mut body = Body::default();
        let wet = settle(
            &mut body,
            &g,
            DVec3::new(0.5, 1.0, 0.5),
            DVec2::new(0.2, 0.0),
            20,
        );
        assert!(wet.x - 0.5 < (dry.x - 0.5) * 0.6, "dry {dry} wet {wet}");
    }

    #[test]
    fn jump_clears_a_block_and_positions_are_on_the_4096_grid() {
        let g = Grid::new([-4, 0, -4], [4, 8, 4]).floor(0);
        let mut body = Body {
            on_ground: true,
            ..Default::default()
        };
        let mut pos = DVec3::new(0.5, 1.0, 0.5);
        let mut top: f64 = 0.0;
        pos = body.step(&g, pos, DVec2::new(0.0123, 0.0), true);
        for _ in 0..30 {
            top = top.max(pos.y);
            assert_eq!(pos.x * 4096.0, (pos.x * 4096.0).round());
            pos = body.step(&g, pos, DVec2::new(0.0123, 0.0), false);
        }
        assert!(top > 2.0, "a jump rises over one block: {top}");
        assert_eq!(pos.y, 1.0);
    }
}
