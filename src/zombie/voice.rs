//! What players hear of a zombie by itself: its groan now and then, as vanilla's
//! `Mob.playAmbientSound`, and its steps as it walks. Its hurt and death sounds come with the
//! damage event and the death status that clients already get, and play there.

use valence::entity::EntityId;
use valence::prelude::*;
use valence::protocol::sound::SoundCategory;
use valence::protocol::Sound;

use super::body::Body;
use super::{Dozing, Zombie};
use crate::common::body::Dying;
use crate::random::mix;
use crate::world::sound::Listeners;

/// A zombie groans on average every 120 ticks: vanilla's interval of 80 and then a chance that
/// grows each tick (`Mob.baseTick`), here one chance in three at a point of each 40-tick window.
const WINDOW: u64 = 40;
const ONE_IN: u64 = 3;

/// Whether the zombie `seed` groans at tick `now`: at most once in a window, at its own point.
fn groans(seed: u64, now: u64) -> bool {
    let draw = mix(seed ^ (now / WINDOW).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    now % WINDOW == draw % WINDOW && (draw >> 32).is_multiple_of(ONE_IN)
}

pub(super) fn groan(
    zombies: Query<(&Position, &EntityId), (With<Zombie>, Without<Dying>, Without<Dozing>)>,
    mut listeners: Query<(Entity, &mut Client, &Position), Without<Zombie>>,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    let near = Listeners::new(listeners.iter().map(|(player, _, pos)| (player, pos)));
    for (pos, id) in &zombies {
        let seed = id.get() as u64;
        if !groans(seed, now) {
            continue;
        }
        // Volume 1, pitch (r - r) * 0.2 + 1 for an adult (`LivingEntity.getVoicePitch`).
        let draw = mix(seed ^ now);
        let r = |bits: u64| (bits & 0xffff) as f32 / 65536.0;
        let pitch = (r(draw) - r(draw >> 16)) * 0.2 + 1.0;
        let mouth = pos.0 + DVec3::new(0.0, 1.74, 0.0);
        near.play_near(
            &mut listeners,
            Sound::EntityZombieAmbient,
            SoundCategory::Hostile,
            mouth,
            (1.0, pitch),
            draw as i64,
        );
    }
}

/// How far a zombie has walked since its last whole `moveDist` (0.6 of a block a block).
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Stride(f32);

impl Stride {
    /// Walks `blocks` on the ground; whether a step sounds (`Entity.move`: one each time
    /// `moveDist` passes a whole number).
    fn walk(&mut self, blocks: f64) -> bool {
        self.0 += blocks as f32 * 0.6;
        let stepped = self.0 >= 1.0;
        self.0 = self.0.fract();
        stepped
    }
}

/// A zombie walking on the ground steps, 0.15 loud (`Zombie.playStepSound`), heard within 16
/// blocks.
pub(super) fn step(
    mut zombies: Query<
        (&Position, &OldPosition, &Body, &mut Stride, &EntityId),
        (With<Zombie>, Changed<Position>, Without<Dying>),
    >,
    mut listeners: Query<(Entity, &mut Client, &Position), Without<Zombie>>,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    let near = Listeners::new(listeners.iter().map(|(player, _, pos)| (player, pos)));
    for (pos, old, body, mut stride, id) in &mut zombies {
        let moved = DVec2::new(pos.0.x - old.get().x, pos.0.z - old.get().z);
        if !body.on_ground || !stride.walk(moved.length()) {
            continue;
        }
        near.play_near(
            &mut listeners,
            Sound::EntityZombieStep,
            SoundCategory::Hostile,
            pos.0,
            (0.15, 1.0),
            mix(id.get() as u64 ^ now) as i64,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zombie_groans_every_120_ticks_on_average_and_never_twice_in_a_window() {
        let ticks = 120_000;
        let mut total = 0;
        for seed in 0..50 {
            let times: Vec<u64> = (0..ticks).filter(|&t| groans(seed, t)).collect();
            for pair in times.windows(2) {
                assert!(pair[1] / WINDOW > pair[0] / WINDOW);
            }
            total += times.len();
        }
        let interval = (ticks * 50) as f64 / total as f64;
        assert!((110.0..130.0).contains(&interval), "{interval}");
    }

    #[test]
    fn a_zombie_steps_every_block_and_two_thirds() {
        let mut stride = Stride::default();
        let steps: Vec<usize> = (1..=100).filter(|_| stride.walk(0.1)).collect();
        // 10 blocks × 0.6: 6 steps, the first after 1⅔ blocks.
        assert_eq!(steps.len(), 6);
        assert_eq!(steps[0], 17);
    }
}
