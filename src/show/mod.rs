//! What an operator or a map maker shows players as vanilla's commands do: a sound
//! (`playsound`), particles (`particle`), and boss bars (`bossbar`), which last and are
//! saved.

pub mod bossbar;
mod particles;

use std::borrow::Cow;

use valence::ident::Ident;
use valence::math::Vec3;
use valence::prelude::*;
use valence::protocol::packets::play::particle_s2c::Particle;
use valence::protocol::packets::play::{ParticleS2c, PlaySoundS2c};
use valence::protocol::sound::{SoundCategory, SoundId};
use valence::protocol::WritePacket;

use crate::common::body::player_named;

pub use particles::PARTICLES;

pub struct ShowPlugin;

impl Plugin for ShowPlugin {
    fn build(&self, app: &mut App) {
        bossbar::register(app);
    }
}

/// Vanilla's sound sources, by the names `playsound` takes.
pub const SOURCES: [(&str, SoundCategory); 10] = [
    ("master", SoundCategory::Master),
    ("music", SoundCategory::Music),
    ("record", SoundCategory::Record),
    ("weather", SoundCategory::Weather),
    ("block", SoundCategory::Block),
    ("hostile", SoundCategory::Hostile),
    ("neutral", SoundCategory::Neutral),
    ("player", SoundCategory::Player),
    ("ambient", SoundCategory::Ambient),
    ("voice", SoundCategory::Voice),
];

/// A sound as `playsound` plays it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayedSound {
    /// The sound event, `minecraft:` unless namespaced.
    pub sound: String,
    pub source: SoundCategory,
    pub at: DVec3,
    /// 0 or more; past 1 it carries further (16 blocks a unit), not louder.
    pub volume: f32,
    /// 0 to 2.
    pub pitch: f32,
    /// How loud a player out of its range hears it, from two blocks their way; 0: not at all.
    pub min_volume: f32,
}

/// Where and how loud `player` at `listener` hears `sound`, as vanilla's `PlaySoundCommand`:
/// within 16 blocks (or 16 a unit of volume past 1) as played; beyond, at `min_volume` from two
/// blocks their way, or not at all.
pub fn heard_at(sound: &PlayedSound, listener: DVec3) -> Option<(DVec3, f32)> {
    let range = if sound.volume > 1.0 {
        sound.volume as f64 * 16.0
    } else {
        16.0
    };
    let to = sound.at - listener;
    if to.length_squared() <= range * range {
        return Some((sound.at, sound.volume));
    }
    (sound.min_volume > 0.0).then(|| (listener + to.normalize() * 2.0, sound.min_volume))
}

/// `playsound`: plays `sound` to `player`; vanilla's "too far away" when they would not hear
/// it.
pub fn play_sound(world: &mut World, player: &str, sound: &PlayedSound) -> String {
    let Some(entity) = player_named(world, player) else {
        return format!("error=\"no player named {player}\"");
    };
    let Ok(id) = Ident::new(sound.sound.clone()) else {
        return format!("error=\"Invalid sound {}\"", sound.sound);
    };
    let Some(listener) = world.get::<Position>(entity).map(|p| p.0) else {
        return format!("error=\"no player named {player}\"");
    };
    let Some((at, volume)) = heard_at(sound, listener) else {
        return "error=\"The sound is too far away to be heard\"".into();
    };
    if let Some(mut client) = world.get_mut::<Client>(entity) {
        client.write_packet(&PlaySoundS2c {
            id: SoundId::Direct {
                id: id.clone(),
                range: None,
            },
            category: sound.source,
            position: (at * 8.0).as_ivec3(),
            volume,
            pitch: sound.pitch,
            seed: rand::random(),
        });
    }
    format!("sound={id} player={player}")
}

/// The particle a `particle` command names, with its options (`dust 1 0 0 1`, `block stone`),
/// and how many of the command's words it took.
pub fn parse_particle(words: &[&str]) -> Result<(Particle, usize), String> {
    let Some(&name) = words.first() else {
        return Err("Unknown particle".into());
    };
    let name = name.strip_prefix("minecraft:").unwrap_or(name);
    let Some(id) = PARTICLES.iter().position(|p| *p == name) else {
        return Err(format!("Unknown particle: minecraft:{name}"));
    };
    let number = |i: usize| -> Result<f32, String> {
        words
            .get(i)
            .and_then(|w| w.parse::<f32>().ok())
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("{name} needs a number at word {}", i + 1))
    };
    let colour = |from: usize| -> Result<Vec3, String> {
        Ok(Vec3::new(
            number(from)?,
            number(from + 1)?,
            number(from + 2)?,
        ))
    };
    let block = || -> Result<BlockState, String> {
        crate::blocks::parse_state(words.get(1).ok_or("Expected a block")?)
    };
    Ok(match name {
        "block" => (Particle::Block(block()?), 2),
        "block_marker" => (Particle::BlockMarker(block()?), 2),
        "falling_dust" => (Particle::FallingDust(block()?), 2),
        "item" => {
            let item = words.get(1).ok_or("Expected an item")?;
            let item = item.strip_prefix("minecraft:").unwrap_or(item);
            let kind = ItemKind::from_str(item).ok_or(format!("Unknown item '{item}'"))?;
            (Particle::Item(Some(ItemStack::new(kind, 1, None))), 2)
        }
        "dust" => (
            Particle::Dust {
                rgb: colour(1)?,
                scale: number(4)?,
            },
            5,
        ),
        "dust_color_transition" => (
            Particle::DustColorTransition {
                from_rgb: colour(1)?,
                scale: number(4)?,
                to_rgb: colour(5)?,
            },
            8,
        ),
        // The rest have no options (or ones horde does not take: vibrations, sculk charges
        // and shrieks, which then fail here).
        _ => match Particle::decode_with_id(id as i32, &mut &[][..]) {
            Ok(particle) => (particle, 1),
            Err(_) => {
                return Err(format!(
                    "minecraft:{name} takes options horde does not read"
                ))
            }
        },
    })
}

/// Particles as `particle` shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownParticles {
    pub particle: Particle,
    pub at: DVec3,
    /// How far they spread each way.
    pub delta: Vec3,
    pub speed: f32,
    pub count: i32,
    /// Seen from 512 blocks rather than 32, and drawn whatever the client's particle setting.
    pub force: bool,
}

/// `particle`: shows particles to `viewer`, or to every player near enough (vanilla's
/// `ServerLevel.sendParticles`: within 32 blocks, 512 forced); how many saw them.
pub fn show_particles(world: &mut World, shown: &ShownParticles, viewer: Option<&str>) -> String {
    let only = match viewer {
        Some(name) => match player_named(world, name) {
            Some(entity) => Some(entity),
            None => return format!("error=\"no player named {name}\""),
        },
        None => None,
    };
    let reach = if shown.force { 512.0 } else { 32.0 };
    let packet = ParticleS2c {
        particle: Cow::Borrowed(&shown.particle),
        long_distance: shown.force,
        position: shown.at,
        offset: shown.delta,
        max_speed: shown.speed,
        count: shown.count,
    };
    let mut seen = 0;
    let mut clients = world.query::<(Entity, &mut Client, &Position)>();
    for (entity, mut client, pos) in clients.iter_mut(world) {
        let near = pos.0.distance_squared(shown.at) <= reach * reach;
        if near && only.is_none_or(|o| o == entity) {
            client.write_packet(&packet);
            seen += 1;
        }
    }
    if seen == 0 {
        return "error=\"The particle was not visible for anybody\"".into();
    }
    format!(
        "particle=minecraft:{} seen={seen}",
        PARTICLES[shown.particle.id() as usize]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn particle_names_are_their_wire_ids() {
        // Valence's ids for the particles with options, against minecraft-data's names.
        let id = |words: &[&str]| parse_particle(words).unwrap().0.id() as usize;
        assert_eq!(PARTICLES[id(&["block", "stone"])], "block");
        assert_eq!(PARTICLES[id(&["dust", "1", "0", "0", "1"])], "dust");
        assert_eq!(PARTICLES[id(&["minecraft:item", "diamond"])], "item");
        assert_eq!(PARTICLES[id(&["falling_dust", "sand"])], "falling_dust");
        assert_eq!(PARTICLES[id(&["flame"])], "flame");
        assert_eq!(PARTICLES[id(&["heart"])], "heart");
        assert_eq!(
            parse_particle(&["dust", "1", "0", "0", "1", "~"])
                .unwrap()
                .1,
            5
        );
        assert!(parse_particle(&["dust", "1", "0"]).is_err());
        assert!(parse_particle(&["vibration"]).is_err());
        assert!(parse_particle(&["sparkles"]).is_err());
    }

    #[test]
    fn a_sound_is_heard_within_its_range_or_faintly_from_two_blocks_away() {
        let sound = |volume, min_volume| PlayedSound {
            sound: "minecraft:entity.zombie.ambient".into(),
            source: SoundCategory::Hostile,
            at: DVec3::ZERO,
            volume,
            pitch: 1.0,
            min_volume,
        };
        let near = DVec3::new(10.0, 0.0, 0.0);
        let far = DVec3::new(40.0, 0.0, 0.0);
        assert_eq!(heard_at(&sound(1.0, 0.0), near), Some((DVec3::ZERO, 1.0)));
        assert_eq!(heard_at(&sound(1.0, 0.0), far), None, "out of 16 blocks");
        assert_eq!(
            heard_at(&sound(3.0, 0.0), far),
            Some((DVec3::ZERO, 3.0)),
            "volume 3 carries 48 blocks"
        );
        assert_eq!(
            heard_at(&sound(1.0, 0.5), far),
            Some((DVec3::new(38.0, 0.0, 0.0), 0.5)),
            "from two blocks their way"
        );
    }
}
