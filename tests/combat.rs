//! A player's blows on zombies, headless, by vanilla 1.20.1's `Player.attack`: the cooldown
//! scales a blow, a second blow the same tick is weak, a zombie's own 2 armour points take
//! their share, and a charged sword blow standing still sweeps the zombie beside the target.
//! Counted in ticks.

mod support;

use horde::combat::{blow, strength, sweep_damage, Stance};
use horde::player::armour::after_armour;
use horde::zombie::Vitality;
use support::headless::{harness, sounds, Harness};
use valence::entity::OnGround;
use valence::interact_entity::{EntityInteraction, InteractEntityEvent};
use valence::prelude::*;
use valence::protocol::Sound;

const STILL: Stance = Stance {
    falling: 0.0,
    on_ground: true,
    sprinting: false,
};

/// Two zombies side by side two blocks east of a creative player (no prey) who has held an
/// iron sword long enough for a full charge.
fn pair(h: &mut Harness) -> (Entity, Entity) {
    h.run("time set midnight");
    *h.app.world.get_mut::<GameMode>(h.client).unwrap() = GameMode::Creative;
    h.run("give tester iron_sword");
    let feet = h.app.world.get::<Position>(h.client).unwrap().0;
    h.app.world.get_mut::<OnGround>(h.client).unwrap().0 = true;
    let o = BlockPos::from_pos(feet);
    // The charge fills while nothing is near; then the zombies come, struck before they move.
    for _ in 0..20 {
        h.app.update();
    }
    let target = h.summon(BlockPos::new(o.x + 2, o.y, o.z));
    let beside = h.summon(BlockPos::new(o.x + 2, o.y, o.z + 1));
    // Nothing on them that would soften the blows beyond their own 2 points.
    for z in [target, beside] {
        *h.app.world.get_mut::<horde::zombie::Equipment>(z).unwrap() = Default::default();
    }
    (target, beside)
}

fn strike(h: &mut Harness, zombie: Entity, times: usize) {
    for _ in 0..times {
        h.app.world.send_event(InteractEntityEvent {
            client: h.client,
            entity: zombie,
            sneaking: false,
            interact: EntityInteraction::Attack,
        });
    }
    h.app.update();
}

fn health(h: &Harness, zombie: Entity) -> f32 {
    h.app.world.get::<Vitality>(zombie).unwrap().0
}

#[test]
fn a_charged_sword_blow_hurts_by_vanillas_formula_and_sweeps_the_zombie_beside() {
    let mut h = harness();
    let (target, beside) = pair(&mut h);
    let (a, b) = (health(&h, target), health(&h, beside));
    h.helper.clear_received();
    strike(&mut h, target, 1);
    let full = blow(6.0, 0.0, 1.0, 0, STILL).damage;
    assert_eq!(full, 6.0, "an iron sword, fully charged");
    // 6 through 2 armour points: 6 × (1 - 0.4 / 25).
    let hit = after_armour(full, 2.0, 0.0);
    assert!((hit - 5.904).abs() < 1e-4);
    assert!((a - health(&h, target) - hit).abs() < 1e-4);
    let swept = after_armour(sweep_damage(full, 0), 2.0, 0.0);
    assert!(
        (b - health(&h, beside) - swept).abs() < 1e-4,
        "{b} → {}",
        health(&h, beside)
    );
    let heard = sounds(&h.helper.collect_received());
    assert!(
        heard.contains(&(Sound::EntityPlayerAttackSweep, 1.0)),
        "{heard:?}"
    );
}

#[test]
fn two_blows_in_one_tick_count_as_one_charged_and_one_empty() {
    let mut h = harness();
    let (target, _) = pair(&mut h);
    let before = health(&h, target);
    // The second, at no charge, is softer than the first and held off by the hurt frames.
    strike(&mut h, target, 2);
    assert!((before - health(&h, target) - after_armour(6.0, 2.0, 0.0)).abs() < 1e-4);
    // 11 ticks on, past the frames, the charge is 11.5 / 12.5 of a sword's.
    for _ in 0..10 {
        h.app.update();
    }
    let before = health(&h, target);
    strike(&mut h, target, 1);
    let charged = blow(6.0, 0.0, strength(11, 1.6), 0, STILL).damage;
    assert!(charged < 6.0);
    assert!((before - health(&h, target) - after_armour(charged, 2.0, 0.0)).abs() < 1e-4);
}
