//! Sounds played at a place in the world.

use valence::layer::Layer;
use valence::prelude::*;
use valence::protocol::packets::play::PlaySoundS2c;
use valence::protocol::sound::{SoundCategory, SoundId};
use valence::protocol::{Sound, VarInt, WritePacket};

/// Vanilla sends a sound to players within 16 blocks, more for one louder than 1
/// (`PlayerList.broadcast` with `16 * volume`).
pub fn range(volume: f32) -> f64 {
    16.0 * volume.max(1.0) as f64
}

/// The packet, naming the sound by its id in the registry (the form every client reads;
/// Valence's own `play_sound` names it, which mineflayer 4.25 cannot parse). `seed` picks the
/// variant, as vanilla's per-sound random seed.
fn packet(
    sound: Sound,
    category: SoundCategory,
    at: DVec3,
    (volume, pitch): (f32, f32),
    seed: i64,
) -> PlaySoundS2c<'static> {
    PlaySoundS2c {
        id: SoundId::Reference {
            id: VarInt(sound.to_raw() as i32),
        },
        category,
        position: (at * 8.0).as_ivec3(),
        volume,
        pitch,
        seed,
    }
}

/// Plays `sound` at `at` to everyone who sees that chunk: for the few sounds a tick of the
/// players' own doings and the siege.
pub fn play(
    layer: &mut ChunkLayer,
    sound: Sound,
    category: SoundCategory,
    at: DVec3,
    loudness: (f32, f32),
    seed: i64,
) {
    layer
        .view_writer(ChunkPos::from_pos(at))
        .write_packet(&packet(sound, category, at, loudness, seed));
}

/// Plays `sound` at `at` to the `listeners` within vanilla's range of it: for sounds many
/// zombies make, which would flood every client in view distance.
pub fn play_near<'a>(
    listeners: impl IntoIterator<Item = (Mut<'a, Client>, &'a Position)>,
    sound: Sound,
    category: SoundCategory,
    at: DVec3,
    loudness: (f32, f32),
    seed: i64,
) {
    let range = range(loudness.0);
    for (mut client, pos) in listeners {
        if pos.0.distance_squared(at) <= range * range {
            client.write_packet(&packet(sound, category, at, loudness, seed));
        }
    }
}
