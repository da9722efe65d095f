//! Zombies break wooden doors, as vanilla's do on Hard (`BreakDoorGoal`): a chasing zombie
//! next to a closed wooden door on the side of its target hammers at it for 240 ticks, clients
//! seeing the cracks grow and hearing the blows, then the door is gone, both halves. A zombie
//! that loses its target, or whose door opens or goes, stops and the cracks clear.

use bevy_ecs::system::SystemParam;
use valence::entity::{EntityAnimations, EntityId};
use valence::layer::Layer;
use valence::prelude::*;
use valence::protocol::packets::play::BlockBreakingProgressS2c;
use valence::protocol::{Direction, VarInt, WritePacket};

use super::{staggered, Pursuing, Target, Zombie};
use crate::common::body::Dying;
use crate::common::events::{Noise, NoiseKind};
use crate::config::Config;
use crate::world::door::{is_door, is_open_door, lower_half, other_half};
use crate::world::sound::{level_event, BLOCK_BROKEN};
use crate::world::{BlocksChanged, Nav, NavVoxels, Overworld, Voxels};

/// Ticks of hammering that break a door (vanilla's 240 on Hard).
const BREAK_TICKS: u32 = 240;
/// Vanilla's level events: a zombie hits a wooden door, breaks it, a block's break particles.
const HIT_SOUND: i32 = 1019;
const BREAK_SOUND: i32 = 1021;
/// A destroy stage outside 0..=9 clears the cracks.
const NO_CRACKS: u8 = 255;
/// Ticks between a chaser's looks for a door beside it (vanilla's goals run every 2nd tick):
/// up to four blocks each, for hundreds of chasers.
const DOOR_LOOK_TICKS: u64 = 4;

/// A zombie hammering at the door whose lower half is at `door`. In the table, as
/// [`Pursuing`](super::Pursuing) says why.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct BreakingDoor {
    door: BlockPos,
    ticks: u32,
}

/// The crack stage shown after `ticks` of hammering, 0 to 9.
fn stage(ticks: u32) -> u8 {
    (ticks * 10 / BREAK_TICKS).min(9) as u8
}

/// Whether `state` is a closed door a zombie can break (any wooden one; not iron).
fn breakable_door(state: BlockState) -> bool {
    is_door(state) && state.to_kind() != BlockKind::IronDoor && !is_open_door(state)
}

/// The lower half of a breakable door beside a zombie at `feet`, on the side of `target`. A
/// closed door stops bodies: only the blocks the walkability facts call solid are read.
fn door_beside(world: &impl Voxels, feet: DVec3, target: DVec3) -> Option<BlockPos> {
    let base = BlockPos::from_pos(feet);
    let toward = DVec3::new(target.x - feet.x, 0.0, target.z - feet.z);
    [
        Direction::North,
        Direction::South,
        Direction::West,
        Direction::East,
    ]
    .into_iter()
    .flat_map(|d| [base, base.get_in_direction(Direction::Up)].map(|b| b.get_in_direction(d)))
    .filter(|at| {
        let centre = DVec3::new(at.x as f64 + 0.5, feet.y, at.z as f64 + 0.5);
        (centre - feet).dot(toward) > 0.0
    })
    .filter(|&at| world.solid(at))
    .find_map(|at| {
        let state = world.block(at)?;
        breakable_door(state).then(|| lower_half(at, state))
    })
}

/// The doors zombies break: the overworld's blocks, and the walkability facts that find a door
/// beside a chaser while reading few blocks.
#[derive(SystemParam)]
pub(super) struct Doors<'w, 's> {
    layers: Query<'w, 's, &'static mut ChunkLayer, With<Overworld>>,
    nav: Res<'w, Nav>,
}

/// What a zombie at a door tells the rest of the game: the noise of its blows, for zombies
/// near, and the door gone, for paths, bodies and the light.
#[derive(SystemParam)]
pub(super) struct DoorNews<'w> {
    changed: EventWriter<'w, BlocksChanged>,
    noises: EventWriter<'w, Noise>,
}

impl DoorNews<'_> {
    /// A blow on the door whose lower half is at `door`, heard round it.
    fn blow(&mut self, door: BlockPos) {
        self.noises.send(Noise {
            at: door_centre(door),
            kind: NoiseKind::DoorBreak,
        });
    }

    /// The door from `door` to `top` is gone, with a last blow.
    fn broken(&mut self, door: BlockPos, top: BlockPos) {
        self.changed.send(BlocksChanged::between(door, top));
        self.blow(door);
    }
}

/// The middle of the door whose lower half is at `door`, where its noise comes from.
fn door_centre(door: BlockPos) -> DVec3 {
    DVec3::new(
        door.x as f64 + 0.5,
        door.y as f64 + 1.0,
        door.z as f64 + 0.5,
    )
}

pub(super) fn break_doors(
    mut commands: Commands,
    mut zombies: Query<
        (
            Entity,
            &Target,
            &Position,
            &EntityId,
            &mut EntityAnimations,
            Option<&mut BreakingDoor>,
        ),
        // Chasers look for doors, and those at one let go: the rest of the crowd is skipped.
        (
            With<Zombie>,
            Without<Dying>,
            Or<(With<Pursuing>, With<BreakingDoor>)>,
        ),
    >,
    players: Query<&Position, (With<Client>, Without<Zombie>)>,
    mut doors: Doors,
    mut news: DoorNews,
    config: Res<Config>,
    server: Res<Server>,
) {
    let Ok(mut layer) = doors.layers.get_single_mut() else {
        return;
    };
    let now = server.current_tick() as u64;
    for (entity, target, pos, id, mut swings, breaking) in &mut zombies {
        // A chaser at no door looks for one on its turn only: the rest wait for theirs.
        let looks = staggered(entity, now, DOOR_LOOK_TICKS);
        if breaking.is_none() && !looks {
            continue;
        }
        let target = target
            .player
            .and_then(|t| players.get(t).ok())
            .map(|p| p.0)
            .filter(|_| config.zombies.break_doors);
        // A door being broken holds the zombie while it stays within 2 blocks (vanilla's
        // rule), however it shuffles; otherwise it looks for one beside it.
        let kept = breaking.as_ref().map(|b| b.door).filter(|door| {
            let centre = DVec3::new(door.x as f64 + 0.5, pos.0.y, door.z as f64 + 0.5);
            target.is_some()
                && centre.distance(pos.0) <= 2.0
                && layer.block(*door).is_some_and(|b| breakable_door(b.state))
        });
        let door = kept.or_else(|| {
            target
                .filter(|_| looks)
                .and_then(|t| door_beside(&NavVoxels::new(&doors.nav, &layer), pos.0, t))
        });
        let cracks = |layer: &mut ChunkLayer, door: BlockPos, stage: u8| {
            layer
                .view_writer(ChunkPos::from_block_pos(door))
                .write_packet(&BlockBreakingProgressS2c {
                    entity_id: VarInt(id.get()),
                    position: door,
                    destroy_stage: stage,
                });
        };
        let mut breaking = match (breaking, door) {
            (Some(b), Some(door)) if b.door == door => b,
            (old, door) => {
                if let Some(old) = old {
                    cracks(&mut layer, old.door, NO_CRACKS);
                    commands.entity(entity).remove::<BreakingDoor>();
                }
                if let Some(door) = door {
                    commands
                        .entity(entity)
                        .insert(BreakingDoor { door, ticks: 0 });
                }
                continue;
            }
        };
        let before = stage(breaking.ticks);
        breaking.ticks += 1;
        let door = breaking.door;
        if breaking.ticks % 20 == 0 {
            swings.trigger(EntityAnimation::SwingMainHand);
            event(&mut layer, HIT_SOUND, door, 0);
            news.blow(door);
        }
        if breaking.ticks >= BREAK_TICKS {
            let Some(state) = layer.block(door).map(|b| b.state) else {
                continue;
            };
            let top = other_half(door, state);
            layer.set_block(door, BlockState::AIR);
            if layer.block(top).is_some_and(|b| is_door(b.state)) {
                layer.set_block(top, BlockState::AIR);
            }
            event(&mut layer, BREAK_SOUND, door, 0);
            event(&mut layer, BLOCK_BROKEN, door, state.to_raw() as i32);
            cracks(&mut layer, door, NO_CRACKS);
            news.broken(door, top);
            commands.entity(entity).remove::<BreakingDoor>();
        } else if stage(breaking.ticks) != before || breaking.ticks == 1 {
            cracks(&mut layer, door, stage(breaking.ticks));
        }
    }
}

/// Sends vanilla's level event `kind` at `at` to everyone who sees it.
fn event(layer: &mut ChunkLayer, kind: i32, at: BlockPos, data: i32) {
    level_event(
        layer.view_writer(ChunkPos::from_block_pos(at)),
        kind,
        at,
        data,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cracks_grow_over_vanillas_240_ticks() {
        assert_eq!(stage(0), 0);
        assert_eq!(stage(23), 0);
        assert_eq!(stage(24), 1);
        assert_eq!(stage(239), 9);
        assert!(breakable_door(BlockKind::OakDoor.to_state()));
        assert!(!breakable_door(BlockKind::IronDoor.to_state()));
        let open = BlockKind::SpruceDoor
            .to_state()
            .set(PropName::Open, PropValue::True);
        assert!(!breakable_door(open), "an open door is walked through");
    }
}
