//! The hotbar slot a player holds. 1.20.1 clients send the slot they select as a short
//! (`ServerboundSetCarriedItemPacket`), Valence 0.2.0-alpha.1 reads a byte, finds a byte left
//! over and drops the packet, so `HeldItem` stays on the first slot whatever the player picks:
//! the wrong stack would be placed, eaten, thrown and fought with. Each such packet is handed
//! to Valence again as the byte it reads, and it sets `HeldItem` as usual.

use valence::event_loop::PacketEvent;
use valence::prelude::bevy_ecs::event::ManualEventReader;
use valence::prelude::*;
use valence::protocol::packets::play::UpdateSelectedSlotC2s;
use valence::protocol::Packet;

/// The packet as 1.20.1 sends it: the slot, 0 to 8, as a big-endian short.
const SENT_LEN: usize = 2;

/// The slot a client's packet selects, if it is one the hotbar has.
fn selected(data: &[u8]) -> Option<u8> {
    let slot = i16::from_be_bytes(data.try_into().ok()?);
    u8::try_from(slot).ok().filter(|s| *s <= 8)
}

/// Re-sends each selection in Valence's form. Valence reads it in the same pass of the event
/// loop or the next one, so the held slot follows within the tick it arrived or the one after.
pub(super) fn reread_selected_slot(
    mut packets: ResMut<Events<PacketEvent>>,
    mut read: Local<ManualEventReader<PacketEvent>>,
) {
    let fixed: Vec<PacketEvent> = read
        .iter(&packets)
        .filter(|p| p.id == UpdateSelectedSlotC2s::ID && p.data.len() == SENT_LEN)
        .filter_map(|p| {
            let slot = selected(&p.data)?;
            Some(PacketEvent {
                data: vec![slot].into(),
                ..p.clone()
            })
        })
        .collect();
    packets.extend(fixed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_selects_the_slot_and_nothing_else_does() {
        assert_eq!(selected(&[0, 4]), Some(4));
        assert_eq!(selected(&[0, 8]), Some(8));
        assert_eq!(selected(&[0, 9]), None);
        assert_eq!(selected(&[1, 0]), None);
        assert_eq!(selected(&[0xff, 0xff]), None);
        assert_eq!(selected(&[4]), None);
    }
}
