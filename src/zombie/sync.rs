//! What clients see of a zombie: where its body is, every few ticks by its tier (sooner for a
//! big jump), how it holds itself (see `look`), only when that turned, and what it wears.

use bevy_ecs::world::Ref;
use valence::entity::EntityId;
use valence::layer::Layer;
use valence::prelude::*;
use valence::protocol::packets::play::entity_equipment_update_s2c::EquipmentEntry;
use valence::protocol::packets::play::EntityEquipmentUpdateS2c;
use valence::protocol::{VarInt, WritePacket};

use super::look::{posture, turns, yaw_of};
use super::{Destination, Equipment, Lod, Walker, Zombie};
use crate::config::LodConfig;

/// Clients learn of equipment only from a packet, which Valence never sends: what a zombie
/// wears and holds is sent when it changes and every two seconds, so that players who come
/// into view see it too.
pub(super) fn show_equipment(
    zombies: Query<(Ref<Equipment>, &Position, &EntityId, &EntityLayerId), With<Zombie>>,
    mut layers: Query<&mut EntityLayer>,
    server: Res<Server>,
) {
    let resend = server.current_tick() % (2 * server.tick_rate().get() as i64) == 0;
    for (equipment, pos, id, layer) in &zombies {
        // A zombie made by a command this very tick is not on clients yet, and they ignore
        // this for it; the resend shows it. Every other new zombie is, and is shown at once.
        let changed = equipment.is_changed();
        let worn = equipment.any() && resend;
        if !(changed || worn) {
            continue;
        }
        let Ok(mut layer) = layers.get_mut(layer.0) else {
            continue;
        };
        layer
            .view_writer(ChunkPos::from_pos(pos.0))
            .write_packet(&EntityEquipmentUpdateS2c {
                entity_id: VarInt(id.get()),
                equipment: Equipment::SLOTS
                    .into_iter()
                    .zip(equipment.stacks())
                    .map(|(slot, item)| EquipmentEntry { slot, item })
                    .collect(),
            });
    }
}

/// A zombie that acted this tick, as its clients are to see it: where its body is now, the hop
/// it walks, where it heads and why, its tier, and whether it dozes.
pub(super) struct Acted<'a> {
    pub(super) pos: DVec3,
    pub(super) walker: &'a Walker,
    pub(super) dest: &'a Destination,
    pub(super) lod: &'a Lod,
    pub(super) dozing: bool,
}

/// What clients are sent of a zombie's body. Valence sends what is written: each is written
/// only when it changed (a `Mut` written through, even with the same value, would be sent).
pub(super) struct Shown<'w> {
    pub(super) position: Mut<'w, Position>,
    pub(super) look: Mut<'w, Look>,
    pub(super) head: Mut<'w, HeadYaw>,
}

/// What clients are sent of a zombie that acted this tick.
pub(super) fn sync(zombie: Acted<'_>, now: u64, lod_config: &LodConfig, shown: Shown<'_>) {
    let Acted {
        pos,
        walker,
        dest,
        lod,
        dozing,
    } = zombie;
    let Shown {
        mut position,
        mut look,
        mut head,
    } = shown;
    // Clients hear of moves every few ticks (sooner for a big jump), not every tick.
    if !(lod.syncs(now, lod_config) || position.0.distance(pos) > 2.0) {
        return;
    }
    if position.0 != pos {
        position.0 = pos;
    }
    // Walking, the body faces where its hop leads rather than each zig-zag waypoint: the same
    // look on screen, and one turn sent a hop instead of one at every step.
    let body_yaw = walker
        .heading()
        .map_or(look.yaw, |step| walker.facing().unwrap_or(yaw_of(step)));
    let target = dest.to.filter(|_| dest.chasing());
    let posture = posture(body_yaw, pos, target, dozing, walker.holding());
    let (turn, head_turn) = turns(posture, lod.tier, *look, head.0);
    if let Some(turn) = turn {
        *look = turn;
    }
    if let Some(yaw) = head_turn {
        head.0 = yaw;
    }
}
