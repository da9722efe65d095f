//! Signs players write on, as vanilla 1.20.1's: a sign just placed opens the sign editor for
//! the player who placed it ([`EditSign`]); a right-click opens it again on the side the player
//! faces, unless the sign is waxed, its text is not plain, or someone else is writing on it.
//! The lines the client sends back become that side's text, shown to everyone who sees the
//! sign and saved with its chunk as vanilla's block entity.

pub mod rules;

use std::io::Write;

use bevy_ecs::query::Has;
use bevy_ecs::system::SystemParam;
use valence::entity::entity::Flags;
use valence::event_loop::PacketEvent;
use valence::interact_block::InteractBlockEvent;
use valence::inventory::HeldItem;
use valence::log::warn;
use valence::math::DVec3;
use valence::prelude::*;
use valence::protocol::packet_id;
use valence::protocol::packets::play::{BlockUpdateS2c, UpdateSignC2s};
use valence::protocol::sound::{Sound, SoundCategory};
use valence::protocol::{Encode, Packet, PacketSide, PacketState, VarInt, WritePacket};

use crate::access::{Kicked, Operator};
use crate::blocks::{centre, is_sign, used_on_click};
use crate::common::body::Dead;
use crate::world::block_entities::{client_view, id_of, BlockEntities};
use crate::world::sound::play;
use crate::world::{Overworld, SpawnGuard};
use rules::{clean_line, editable, faces_front, waxed, written, EDIT_REACH_SQUARED};

pub struct SignPlugin;

impl Plugin for SignPlugin {
    fn build(&self, app: &mut App) {
        app.add_event::<EditSign>()
            .configure_sets(Update, (SignSet::Use, SignSet::Edit).chain())
            .add_systems(
                Update,
                (
                    use_signs.in_set(SignSet::Use),
                    (open_editors, write_signs).chain().in_set(SignSet::Edit),
                )
                    .in_set(crate::schedule::TickSet::Players),
            );
    }
}

/// The sign systems, around what places blocks: a right-click is seen as on a sign before
/// anything is placed (a sign placed where the click landed, in grass, is no sign clicked),
/// and editors open after, so that a sign just placed has its editor open that tick.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignSet {
    Use,
    Edit,
}

/// A player is to write on the sign at `at`, on its front or its back.
#[derive(Event, Debug, Clone, Copy)]
pub struct EditSign {
    pub client: Entity,
    pub at: BlockPos,
    pub front: bool,
}

/// The sign a player has open in the editor: only they may write on it
/// (`SignBlockEntity.playerWhoMayEdit`), until they send its lines.
#[derive(Component, Debug, Clone, Copy)]
#[component(storage = "SparseSet")] // comes and goes: kept apart, so the row stays put
struct Writing {
    at: BlockPos,
}

/// Vanilla 1.20.1's "open sign editor" packet. Valence's `SignEditorOpenS2c` predates the
/// two-sided signs of 1.20 and lacks the side, which a 1.20.1 client reads after the position.
#[derive(Debug)]
struct OpenSignEditor {
    at: BlockPos,
    front: bool,
}

impl Encode for OpenSignEditor {
    fn encode(&self, mut w: impl Write) -> anyhow::Result<()> {
        self.at.encode(&mut w)?;
        self.front.encode(w)
    }
}

impl Packet for OpenSignEditor {
    const ID: i32 = packet_id::SIGN_EDITOR_OPEN_S2C;
    const NAME: &'static str = "OpenSignEditor";
    const SIDE: PacketSide = PacketSide::Clientbound;
    const STATE: PacketState = PacketState::Play;
}

/// Whether a player at `feet` is near enough the sign at `at` to write on it.
fn near(feet: DVec3, at: BlockPos) -> bool {
    feet.distance_squared(DVec3::new(at.x as f64, at.y as f64, at.z as f64)) <= EDIT_REACH_SQUARED
}

/// The signs as they stand: their blocks, their text, and the tick (a sound's seed).
#[derive(SystemParam)]
struct Signs<'w, 's> {
    layers: Query<'w, 's, &'static mut ChunkLayer, With<Overworld>>,
    entities: Res<'w, BlockEntities>,
    server: Res<'w, Server>,
}

/// A right-click on a sign opens its editor on the side the player faces (`SignBlock.use`),
/// for a player who may build there; a waxed sign plays its refusal.
fn use_signs(
    mut events: EventReader<InteractBlockEvent>,
    players: Query<
        (
            &Position,
            &GameMode,
            &Inventory,
            &HeldItem,
            Option<&Flags>,
            Has<Operator>,
        ),
        (Without<Dead>, Without<Kicked>),
    >,
    writers: Query<(Entity, &Position, &Writing)>,
    mut signs: Signs,
    guard: SpawnGuard,
    mut edits: EventWriter<EditSign>,
) {
    let Ok(mut layer) = signs.layers.get_single_mut() else {
        return;
    };
    for event in events.iter() {
        let Ok((pos, mode, inventory, held, flags, op)) = players.get(event.client) else {
            continue;
        };
        let at = event.position;
        let Some(state) = layer
            .block(at)
            .map(|b| b.state)
            .filter(|s| is_sign(s.to_kind()))
        else {
            continue;
        };
        let sneaking = flags.is_some_and(|f| f.sneaking());
        let holding = crate::player::holds_anything(inventory, held);
        if !used_on_click(state.to_kind(), sneaking, holding) {
            continue; // Placing against it: `building`'s.
        }
        let may_build =
            matches!(mode, GameMode::Survival | GameMode::Creative) && (op || !guard.protects(at));
        let Some(sign) = signs.entities.get(at) else {
            continue;
        };
        if waxed(sign) {
            let now = signs.server.current_tick();
            let sound = Sound::BlockSignWaxedInteractFail;
            play(
                &mut layer,
                sound,
                SoundCategory::Block,
                centre(at),
                (1.0, 1.0),
                now,
            );
            continue;
        }
        let taken = writers
            .iter()
            .any(|(who, p, w)| w.at == at && who != event.client && near(p.0, at));
        let front = faces_front(state, at, pos.0);
        if may_build && near(pos.0, at) && !taken && editable(sign, front) {
            edits.send(EditSign {
                client: event.client,
                at,
                front,
            });
        }
    }
}

/// Opens the editor of each sign a player is to write on: the sign's block first, so that
/// the client has it (`ServerPlayer.openTextEdit`), then the editor on the side asked for.
fn open_editors(
    mut commands: Commands,
    mut edits: EventReader<EditSign>,
    mut clients: Query<&mut Client>,
    layers: Query<&ChunkLayer, With<Overworld>>,
) {
    let Ok(layer) = layers.get_single() else {
        return;
    };
    for edit in edits.iter() {
        let Ok(mut client) = clients.get_mut(edit.client) else {
            continue;
        };
        let Some(state) = layer
            .block(edit.at)
            .map(|b| b.state)
            .filter(|s| is_sign(s.to_kind()))
        else {
            continue;
        };
        client.write_packet(&BlockUpdateS2c {
            position: edit.at,
            block_id: VarInt(state.to_raw() as i32),
        });
        client.write_packet(&OpenSignEditor {
            at: edit.at,
            front: edit.front,
        });
        commands.entity(edit.client).insert(Writing { at: edit.at });
    }
}

/// The lines a client sends when its editor closes become the text of the side it names
/// (`SignBlockEntity.updateSignText`), if the player had that sign open and is still near; the
/// sign's new text goes to everyone who sees it.
fn write_signs(
    mut commands: Commands,
    mut packets: EventReader<PacketEvent>,
    players: Query<(&Position, Option<&Writing>, &Username)>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    mut entities: ResMut<BlockEntities>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    for packet in packets.iter() {
        let Some(update) = packet.decode::<UpdateSignC2s>() else {
            continue;
        };
        let Ok((pos, writing, name)) = players.get(packet.client) else {
            continue;
        };
        let at = update.position;
        let sign = entities.get(at).filter(|sign| !waxed(sign)).cloned();
        let allowed = writing.is_some_and(|w| w.at == at) && near(pos.0, at);
        let (Some(sign), true) = (sign, allowed) else {
            // Vanilla says as much in its log.
            warn!("{} just tried to change a sign they may not edit", name.0);
            continue;
        };
        commands.entity(packet.client).remove::<Writing>();
        let Some(id) = id_of(&sign).map(str::to_owned) else {
            continue;
        };
        let sign = written(sign, update.is_front_text, &update.lines.map(clean_line));
        if let Some(shown) = layer.block_entity_mut(at) {
            *shown = client_view(&sign);
        }
        entities.set(at, &id, sign);
    }
}
