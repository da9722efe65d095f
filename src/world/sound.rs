//! Sounds played at a place in the world, heard by every client that sees it.

use valence::layer::Layer;
use valence::prelude::*;
use valence::protocol::packets::play::PlaySoundS2c;
use valence::protocol::sound::{SoundCategory, SoundId};
use valence::protocol::{Sound, VarInt, WritePacket};

/// Plays `sound` at `at` to everyone who sees that chunk, by its id in the sound registry (the
/// form every client reads; Valence's own `play_sound` names it, which mineflayer 4.25
/// cannot parse). `seed` picks the variant, as vanilla's per-sound random seed.
pub fn play(
    layer: &mut ChunkLayer,
    sound: Sound,
    category: SoundCategory,
    at: DVec3,
    (volume, pitch): (f32, f32),
    seed: i64,
) {
    layer
        .view_writer(ChunkPos::from_pos(at))
        .write_packet(&PlaySoundS2c {
            id: SoundId::Reference {
                id: VarInt(sound.to_raw() as i32),
            },
            category,
            position: (at * 8.0).as_ivec3(),
            volume,
            pitch,
            seed,
        });
}
