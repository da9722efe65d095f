//! How a zombie holds itself: the body faces where it walks, the head follows a target in
//! front of it or droops 30 degrees (60 asleep), and clients hear only of turns they can see.

use valence::prelude::*;
use valence::protocol::ByteAngle;

use super::body::EYE_HEIGHT;
use super::lod::Tier;
use crate::common::body::EYE_HEIGHT as PLAYER_EYE;

/// Steps of 1/256 turn a zombie must turn before clients are told, by its tier: one up close
/// as vanilla; 4.2° past `lod.near_radius`, where that moves a face by about a pixel; 11.25°
/// beyond `lod.full_radius`.
fn turn_steps(tier: Tier) -> u8 {
    match tier {
        Tier::Near => 1,
        Tier::Full => 3,
        Tier::Half | Tier::Quarter | Tier::Frozen => 8,
    }
}

/// Body yaw, head yaw and pitch, in degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Posture {
    pub(super) body_yaw: f32,
    pub(super) head_yaw: f32,
    pub(super) pitch: f32,
}

/// The posture of a zombie at `pos` whose body faced `body_yaw`, with `target` (a player's
/// feet) if it chases one. `holding` is true in reach of the target, where it faces them.
pub(super) fn posture(
    body_yaw: f32,
    pos: DVec3,
    target: Option<DVec3>,
    dozing: bool,
    holding: bool,
) -> Posture {
    let (head_yaw, pitch) = match target {
        Some(t) => {
            let to =
                t + DVec3::new(0.0, PLAYER_EYE, 0.0) - (pos + DVec3::new(0.0, EYE_HEIGHT, 0.0));
            let radians = body_yaw.to_radians() as f64;
            let facing = DVec3::new(-radians.sin(), 0.0, radians.cos());
            if facing.dot(to) > 0.0 || holding {
                let flat = (to.x * to.x + to.z * to.z).sqrt();
                (yaw_of(to), (-to.y).atan2(flat).to_degrees() as f32)
            } else {
                (body_yaw, 30.0)
            }
        }
        None if dozing => (body_yaw, 60.0),
        None => (body_yaw, 30.0),
    };
    Posture {
        body_yaw: if holding { head_yaw } else { body_yaw },
        head_yaw,
        pitch,
    }
}

/// What of the posture clients are to be sent, on a tick the zombie syncs: the look and the
/// head yaw, each only when it turned from what was sent by a step a client can see (one of
/// the protocol's 1/256 up close, several farther out where nobody can tell). Valence sends
/// a component when it is written, so `None` must leave it untouched.
pub(super) fn turns(
    posture: Posture,
    tier: Tier,
    look: Look,
    head_yaw: f32,
) -> (Option<Look>, Option<f32>) {
    let min_turn = turn_steps(tier);
    let looks =
        turned(look.yaw, posture.body_yaw, min_turn) || turned(look.pitch, posture.pitch, min_turn);
    (
        looks.then_some(Look {
            yaw: posture.body_yaw,
            pitch: posture.pitch,
        }),
        turned(head_yaw, posture.head_yaw, min_turn).then_some(posture.head_yaw),
    )
}

/// Whether the angle from `sent` to `now` is at least `steps` of the protocol's 256 to the
/// turn, either way round. Both are encoded as Valence encodes them (just under 360° it gives
/// 255, not 0), or a turn of less than a step would be sent as the same byte again.
fn turned(sent: f32, now: f32, steps: u8) -> bool {
    let step = |degrees: f32| ByteAngle::from_degrees(degrees).0;
    let d = step(now).wrapping_sub(step(sent));
    d.min(d.wrapping_neg()) >= steps
}

/// Yaw in degrees facing along `d` (0 faces +z, -90 faces +x).
pub(super) fn yaw_of(d: DVec3) -> f32 {
    (-d.x).atan2(d.z).to_degrees() as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_count_in_protocol_steps_either_way_round() {
        assert!(!turned(10.0, 10.5, 1), "under half a step");
        assert!(turned(10.0, 11.5, 1));
        assert!(!turned(10.0, 20.0, 8), "7 steps");
        assert!(turned(10.0, 22.0, 8));
        assert!(
            turned(354.375, 5.625, 8) && !turned(354.375, 5.625, 9),
            "8 steps across north"
        );
        assert!(turned(-90.0, 90.0, 128), "half a turn");
        assert!(!turned(0.0, 360.0, 1) && !turned(-180.0, 180.0, 1));
        assert!(
            !turned(-0.8, -0.3, 1),
            "both are sent as 255 (Valence does not wrap 256 to 0)"
        );
    }

    #[test]
    fn yaw_convention() {
        assert_eq!(yaw_of(DVec3::new(0.0, 0.0, 1.0)), 0.0);
        assert_eq!(yaw_of(DVec3::new(1.0, 0.0, 0.0)), -90.0);
    }

    #[test]
    fn the_head_follows_a_target_in_front_and_droops_otherwise() {
        let at = DVec3::ZERO;
        let ahead = Some(DVec3::new(0.0, 0.0, 5.0));
        let behind = Some(DVec3::new(0.0, 0.0, -5.0));
        let p = posture(0.0, at, ahead, false, false);
        assert_eq!(p.head_yaw, 0.0);
        assert!(p.pitch.abs() < 5.0, "level with the player's eyes");
        let p = posture(0.0, at, behind, false, false);
        assert_eq!((p.head_yaw, p.pitch), (0.0, 30.0), "droops");
        assert_eq!(posture(0.0, at, None, true, false).pitch, 60.0, "asleep");
        let p = posture(0.0, at, behind, false, true);
        assert_eq!(p.body_yaw, p.head_yaw, "in reach it turns to face them");
    }
}
