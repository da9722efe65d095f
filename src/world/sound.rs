//! Sounds played at a place in the world.

use bevy_ecs::query::ReadOnlyWorldQuery;
use valence::layer::Layer;
use valence::prelude::*;
use valence::protocol::packets::play::{PlaySoundS2c, WorldEventS2c};
use valence::protocol::sound::{SoundCategory, SoundId};
use valence::protocol::{Sound, VarInt, WritePacket};

use crate::grid::{flat, SpatialGrid};

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

/// Plays `sound` at `at` to everyone who sees that chunk but `player`, whose own client played
/// it already (vanilla's `playSound` with the player as the one left out).
pub fn play_except(
    layer: &mut ChunkLayer,
    player: Entity,
    sound: Sound,
    at: DVec3,
    loudness: (f32, f32),
    seed: i64,
) {
    layer
        .view_except_writer(ChunkPos::from_pos(at), player)
        .write_packet(&packet(sound, SoundCategory::Block, at, loudness, seed));
}

/// The players who may hear the sounds many zombies make, filed by where they stand so that a
/// sound looks at those round it, not at every player on the server.
pub struct Listeners(SpatialGrid<Entity>);

impl Listeners {
    /// Files `players` in cells of a quiet sound's range (16 blocks).
    pub fn new<'a>(players: impl IntoIterator<Item = (Entity, &'a Position)>) -> Self {
        let mut grid = SpatialGrid::new(range(1.0));
        for (player, pos) in players {
            grid.insert(player, flat(pos.0));
        }
        Self(grid)
    }

    /// Plays `sound` at `at` to the listeners within vanilla's range of it (`clients` finds
    /// each one's client): for sounds many zombies make, which would flood every client in
    /// view distance.
    pub fn play_near<F: ReadOnlyWorldQuery>(
        &self,
        clients: &mut Query<(Entity, &mut Client, &Position), F>,
        sound: Sound,
        category: SoundCategory,
        at: DVec3,
        loudness: (f32, f32),
        seed: i64,
    ) {
        let range = range(loudness.0);
        for &(listener, _) in self.0.filed_round(flat(at), range) {
            let Ok((_, mut client, pos)) = clients.get_mut(listener) else {
                continue;
            };
            if pos.0.distance_squared(at) <= range * range {
                client.write_packet(&packet(sound, category, at, loudness, seed));
            }
        }
    }
}

/// Vanilla's level event for a broken block: its sound and particles, played by each client
/// that gets it (`LevelEvent.PARTICLES_DESTROY_BLOCK`, the block's state as its data).
pub const BLOCK_BROKEN: i32 = 2001;

/// Vanilla's level event `kind` at `at` (`ClientboundLevelEventPacket`), to `writer`.
pub fn level_event(mut writer: impl WritePacket, kind: i32, at: BlockPos, data: i32) {
    writer.write_packet(&WorldEventS2c {
        event: kind,
        location: at,
        data,
        disable_relative_volume: false,
    });
}

/// A block's hit and place sounds, by the sound group its kind has in vanilla (`SoundType`),
/// for the common groups; stone for the rest, vanilla's default.
pub fn block_sounds(state: BlockState) -> (Sound, Sound) {
    /// The overworld's woods, whose blocks share the wood group (`SoundType.WOOD`).
    const WOODS: [&str; 8] = [
        "oak", "spruce", "birch", "jungle", "acacia", "dark_oak", "mangrove", "bamboo",
    ];
    /// Wooden things that do not say their wood.
    const WOODEN: [&str; 9] = [
        "planks",
        "log",
        "wood",
        "chest",
        "crafting_table",
        "bookshelf",
        "barrel",
        "ladder",
        "note_block",
    ];
    let name = state.to_kind().to_str();
    let has = |part: &str| name.contains(part);
    let wooden = (WOODS.iter().any(|w| name.starts_with(w)) && !has("leaves") && !has("sapling"))
        || WOODEN.iter().any(|w| has(w));
    if has("glass") || has("ice") {
        (Sound::BlockGlassHit, Sound::BlockGlassPlace)
    } else if has("wool") || has("carpet") {
        (Sound::BlockWoolHit, Sound::BlockWoolPlace)
    } else if has("sand") && !has("sandstone") {
        (Sound::BlockSandHit, Sound::BlockSandPlace)
    } else if has("dirt") || has("gravel") || has("farmland") || has("clay") || has("path") {
        // Vanilla's dirt sounds like gravel.
        (Sound::BlockGravelHit, Sound::BlockGravelPlace)
    } else if has("grass") || has("leaves") || has("hay") || has("moss") || has("sapling") {
        (Sound::BlockGrassHit, Sound::BlockGrassPlace)
    } else if wooden {
        (Sound::BlockWoodHit, Sound::BlockWoodPlace)
    } else {
        (Sound::BlockStoneHit, Sound::BlockStonePlace)
    }
}

/// A wooden door's sound as it opens or closes, by its wood (`BlockSetType`).
pub fn door_sound(state: BlockState, open: bool) -> Sound {
    let name = state.to_kind().to_str();
    let (opening, closing) = if name.starts_with("bamboo") {
        (
            Sound::BlockBambooWoodDoorOpen,
            Sound::BlockBambooWoodDoorClose,
        )
    } else if name.starts_with("cherry") {
        (
            Sound::BlockCherryWoodDoorOpen,
            Sound::BlockCherryWoodDoorClose,
        )
    } else if name.starts_with("crimson") || name.starts_with("warped") {
        (
            Sound::BlockNetherWoodDoorOpen,
            Sound::BlockNetherWoodDoorClose,
        )
    } else {
        (Sound::BlockWoodenDoorOpen, Sound::BlockWoodenDoorClose)
    };
    if open {
        opening
    } else {
        closing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_sound_as_their_vanilla_group() {
        assert_eq!(block_sounds(BlockState::DIRT).1, Sound::BlockGravelPlace);
        assert_eq!(block_sounds(BlockState::OAK_PLANKS).0, Sound::BlockWoodHit);
        assert_eq!(block_sounds(BlockState::SANDSTONE).0, Sound::BlockStoneHit);
        assert_eq!(block_sounds(BlockState::GLASS).0, Sound::BlockGlassHit);
        assert_eq!(
            block_sounds(BlockState::COBBLESTONE).1,
            Sound::BlockStonePlace
        );
    }

    #[test]
    fn doors_sound_as_their_wood() {
        assert_eq!(
            door_sound(BlockState::OAK_DOOR, true),
            Sound::BlockWoodenDoorOpen
        );
        assert_eq!(
            door_sound(BlockState::CHERRY_DOOR, false),
            Sound::BlockCherryWoodDoorClose
        );
        assert_eq!(
            door_sound(BlockState::WARPED_DOOR, true),
            Sound::BlockNetherWoodDoorOpen
        );
    }
}
