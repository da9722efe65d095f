//! The hunt in `horde_packs.dat`: the running round (`Hunt`: its preset as it began, progress
//! and random stream) and its zombies, flagged `Hunt` in the `Loose` list the packs' loose
//! zombies share. At start the round goes on with its zombies; a round that cannot (its preset
//! gone) or none at all leaves them ordinary zombies.

use valence::log::{info, warn};
use valence::nbt::{Compound, Value};
use valence::prelude::*;

use super::{HuntZombie, Hunts, Round};
use crate::common::body::Dying;
use crate::config::{Config, HuntPreset};
use crate::random::Stream;
use crate::save::keys::{compounds, draws, int, long, string};
use crate::save::{DataFile, RestorePart, SaveApp, SaveOut, SavePart};
use crate::schedule::{TickSet, ZombieSet};
use crate::world::Overworld;
use crate::zombie::save::{saved_zombie, spawn_saved, SavedZombie};
use crate::zombie::{Arena, Burning, Equipment, Vitality, Zombie, ZombieKinds};

pub fn register(app: &mut App) {
    app.add_save_part(snapshot)
        .add_load_part(DataFile::Packs, read)
        .add_systems(
            Update,
            restore_hunt_zombies
                .in_set(TickSet::Zombies)
                .before(ZombieSet::Classify),
        );
}

/// The running round as saved.
#[derive(Debug, Clone, PartialEq)]
struct SavedHunt {
    preset: String,
    /// The preset as the round began, as `config.toml` text; none in a format-1 save, whose
    /// round takes the configured preset of that name.
    settings: Option<String>,
    /// The most players the round has had, and its kill goal so far.
    players: u32,
    goal: u32,
    elapsed: u64,
    next_wave_in: u64,
    spawned: u32,
    kills: u32,
    /// The round's random stream: its seed and the draws taken.
    seed: u64,
    draws: u64,
}

impl SavedHunt {
    fn to_nbt(&self) -> Compound {
        let mut c = Compound::new();
        c.insert("Preset", self.preset.clone());
        if let Some(settings) = &self.settings {
            c.insert("Settings", settings.clone());
        }
        c.insert("Players", self.players as i32);
        c.insert("Goal", self.goal as i32);
        c.insert("Elapsed", self.elapsed as i64);
        c.insert("NextWaveIn", self.next_wave_in as i64);
        c.insert("Spawned", self.spawned as i32);
        c.insert("Kills", self.kills as i32);
        c.insert("Seed", self.seed as i64);
        c.insert("Draws", self.draws as i64);
        c
    }

    fn from_nbt(c: &Compound) -> Result<Self, String> {
        Ok(Self {
            preset: string(c, "Preset")?,
            settings: match c.get("Settings") {
                None => None,
                Some(_) => Some(string(c, "Settings")?),
            },
            players: match c.get("Players") {
                None => 0,
                Some(_) => int(c, "Players")?.max(0) as u32,
            },
            goal: match c.get("Goal") {
                None => 0,
                Some(_) => int(c, "Goal")?.max(0) as u32,
            },
            elapsed: long(c, "Elapsed")?.max(0) as u64,
            next_wave_in: long(c, "NextWaveIn")?.max(0) as u64,
            spawned: int(c, "Spawned")?.max(0) as u32,
            kills: int(c, "Kills")?.max(0) as u32,
            // Format 1 had no seed for the round, only its generator's state.
            seed: long(c, "Seed").or_else(|_| long(c, "Rng"))? as u64,
            draws: draws(c)?,
        })
    }
}

/// The hunt's share of `horde_packs.dat`.
#[derive(Debug, Clone, PartialEq, Default)]
struct SavedRound {
    hunt: Option<SavedHunt>,
    /// Its zombies, each with its place in the `Loose` list, which seeds its wandering.
    zombies: Vec<(usize, SavedZombie)>,
}

impl SavedRound {
    fn from_nbt(root: &Compound) -> Result<Self, String> {
        let mut zombies = Vec::new();
        // Without `Loose` the packs cannot read the file: theirs is the error.
        for (place, entry) in compounds(root, "Loose")
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let zombie = SavedZombie::from_nbt(entry)?;
            if zombie.hunt {
                zombies.push((place, zombie));
            }
        }
        Ok(Self {
            hunt: match root.get("Hunt") {
                Some(Value::Compound(h)) => Some(SavedHunt::from_nbt(h)?),
                Some(_) => return Err("Hunt is not a compound".into()),
                None => None,
            },
            zombies,
        })
    }
}

impl SavePart for SavedRound {
    fn write(&self, out: &mut SaveOut) {
        if let Some(hunt) = &self.hunt {
            out.root(DataFile::Packs).insert("Hunt", hunt.to_nbt());
        }
        let zombies = self.zombies.iter().map(|(_, zombie)| zombie.to_nbt());
        out.list(DataFile::Packs, "Loose").extend(zombies);
        out.saved.loose += self.zombies.len();
    }
}

fn snapshot(world: &mut World) -> Box<dyn SavePart> {
    let kinds = world.resource::<ZombieKinds>().clone();
    let zombies = world
        .query_filtered::<(&Zombie, &Position, &Vitality, &Burning, &Equipment), (With<Arena>, Without<Dying>)>()
        .iter(world)
        .map(|body| SavedZombie {
            hunt: true,
            ..saved_zombie(&kinds, body)
        })
        .enumerate()
        .collect();
    let hunt = world
        .resource::<Hunts>()
        .active
        .as_ref()
        .map(|r| SavedHunt {
            preset: r.preset.name.clone(),
            settings: toml::to_string(&r.preset).ok(),
            players: r.players,
            goal: r.goal,
            elapsed: r.elapsed,
            next_wave_in: r.next_wave_in,
            spawned: r.spawned,
            kills: r.kills,
            seed: r.rng.seed(),
            draws: r.rng.draws(),
        });
    Box::new(SavedRound { hunt, zombies })
}

fn read(root: &Compound) -> Result<Box<dyn RestorePart>, String> {
    Ok(Box::new(SavedRound::from_nbt(root)?))
}

/// The round's zombies read from the save, spawned once the overworld exists: in the round if
/// it goes on, as ordinary zombies if not.
#[derive(Resource, Debug)]
struct PendingHuntZombies {
    zombies: Vec<(usize, SavedZombie)>,
    in_round: bool,
}

impl RestorePart for SavedRound {
    fn restore(self: Box<Self>, world: &mut World) {
        let in_round = self.hunt.is_some_and(|hunt| resume(world, hunt));
        world.insert_resource(PendingHuntZombies {
            zombies: self.zombies,
            in_round,
        });
    }
}

/// Puts the saved round back, with the preset it began with, whatever `config.toml` says now;
/// whether it could.
fn resume(world: &mut World, hunt: SavedHunt) -> bool {
    let preset = match &hunt.settings {
        Some(text) => toml::from_str::<HuntPreset>(text).ok(),
        None => world
            .resource::<Config>()
            .hunt
            .presets
            .iter()
            .find(|p| p.name == hunt.preset)
            .cloned(),
    };
    let Some(preset) = preset else {
        warn!(
            "the saved hunt {:?} cannot be resumed (its preset is gone); its zombies come back as ordinary zombies",
            hunt.preset
        );
        return false;
    };
    world.resource_mut::<Hunts>().active = Some(Round {
        preset,
        elapsed: hunt.elapsed,
        next_wave_in: hunt.next_wave_in,
        spawned: hunt.spawned,
        kills: hunt.kills,
        players: hunt.players,
        goal: hunt.goal,
        rng: Stream::resume(hunt.seed, hunt.draws),
    });
    info!(
        "resuming hunt {} ({} kills so far)",
        hunt.preset, hunt.kills
    );
    true
}

fn restore_hunt_zombies(
    mut commands: Commands,
    pending: Option<ResMut<PendingHuntZombies>>,
    layers: Query<Entity, With<Overworld>>,
    mut kinds: ResMut<ZombieKinds>,
    config: Res<Config>,
) {
    let (Some(mut pending), Ok(layer)) = (pending, layers.get_single()) else {
        return;
    };
    let in_round = pending.in_round;
    for saved in pending.zombies.drain(..) {
        if let Some(mut zombie) = spawn_saved(&mut commands, layer, &mut kinds, &config, &saved) {
            if in_round {
                zombie.insert((HuntZombie, Arena));
            }
        }
    }
    commands.remove_resource::<PendingHuntZombies>();
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::zombie::save::tests::Gen;

    #[test]
    fn the_round_and_its_zombies_survive_a_round_trip() {
        let mut g = Gen::new(0x1234_5678_9ABC_DEF1);
        for case in 0..100 {
            let saved = SavedRound {
                hunt: g.next().is_multiple_of(2).then(|| SavedHunt {
                    preset: "colosseum".into(),
                    settings: g
                        .next()
                        .is_multiple_of(2)
                        .then(|| "name = \"colosseum\"".into()),
                    players: (g.next() % 20) as u32,
                    goal: (g.next() % 100) as u32,
                    elapsed: g.next() % 5000,
                    next_wave_in: g.next() % 200,
                    spawned: (g.next() % 50) as u32,
                    kills: (g.next() % 50) as u32,
                    seed: g.next(),
                    draws: g.next() % 1_000_000,
                }),
                zombies: (0..g.next() % 10)
                    .map(|_| SavedZombie {
                        hunt: true,
                        ..g.zombie(true)
                    })
                    .enumerate()
                    .collect(),
            };
            let mut out = SaveOut::default();
            saved.write(&mut out);
            let mut bytes = Vec::new();
            out.root(DataFile::Packs).to_binary(&mut bytes, "").unwrap();
            let (back, _) = Compound::from_binary(&mut bytes.as_slice()).unwrap();
            assert_eq!(SavedRound::from_nbt(&back).unwrap(), saved, "case {case}");
        }
    }

    #[test]
    fn a_format_one_round_starts_its_stream_over_from_its_seed() {
        let mut round = Compound::new();
        for (key, v) in [("Elapsed", 10i64), ("NextWaveIn", 5), ("Rng", 123_456)] {
            round.insert(key, v);
        }
        round.insert("Preset", "colosseum".to_string());
        round.insert("Spawned", 3);
        round.insert("Kills", 1);
        let back = SavedHunt::from_nbt(&round).unwrap();
        assert_eq!((back.seed, back.draws, back.players), (123_456, 0, 0));
    }
}
