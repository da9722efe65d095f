//! The packs in `horde_packs.dat`: every pack (membership, centroid, heading, destination, leg,
//! dwell, random stream, ghost members with type, health, fire, equipment and restore retries)
//! and every loose zombie, one in no pack, in the `Loose` list the hunt's zombies share. Read
//! at start: every pack comes back as a ghost (no chunk is watched yet), the loose zombies once
//! the overworld exists.
//!
//! Random streams are saved as their seed and the draws taken (format 2). Format 1 kept the
//! state of a hand-written generator, which cannot be carried over: its streams start again
//! from their seeds.

use valence::log::info;
use valence::math::DVec2;
use valence::nbt::Compound;
use valence::prelude::*;

use super::{Pack, PackBrain, PackRecord, PackState, Packs};
use crate::common::body::Dying;
use crate::config::Config;
use crate::save::keys::{compounds, double, draws, int, list, long};
use crate::save::{DataFile, RestorePart, SaveApp, SaveOut, SavePart};
use crate::schedule::{TickSet, ZombieSet};
use crate::world::Overworld;
use crate::zombie::save::{record_of, saved_zombie, spawn_saved, LiveZombie, SavedZombie};
use crate::zombie::{Arena, Burning, Equipment, Vitality, Zombie, ZombieKinds, ZombieRecord};

pub fn register(app: &mut App) {
    app.add_save_part(snapshot)
        .add_load_part(DataFile::Packs, read)
        .add_systems(
            Update,
            restore_loose_zombies
                .in_set(TickSet::Zombies)
                .before(ZombieSet::Classify),
        );
}

/// One pack as saved.
#[derive(Debug, Clone, PartialEq)]
struct SavedPack {
    pack: PackRecord,
    members: Vec<SavedZombie>,
}

/// The packs' share of `horde_packs.dat`.
#[derive(Debug, Clone, PartialEq, Default)]
struct SavedPacks {
    next_id: u64,
    packs: Vec<SavedPack>,
    /// The loose zombies, each with its place in the `Loose` list, which seeds its wandering.
    loose: Vec<(usize, SavedZombie)>,
}

impl SavedPack {
    fn to_nbt(&self) -> Compound {
        let mut c = Compound::new();
        let p = &self.pack;
        c.insert("Id", p.id as i64);
        c.insert("X", p.centroid.x);
        c.insert("Y", p.y);
        c.insert("Z", p.centroid.y);
        c.insert("HeadingX", p.heading.x);
        c.insert("HeadingZ", p.heading.y);
        c.insert("DestX", p.dest.x);
        c.insert("DestZ", p.dest.y);
        c.insert("Leg", p.leg as i32);
        c.insert("DwellLeft", p.dwell_left.map_or(-1, |d| d as i64));
        c.insert("Seed", p.seed as i64);
        c.insert("Draws", p.draws as i64);
        c.insert("RestoreFailures", p.restore_failures as i32);
        c.insert(
            "Members",
            list(self.members.iter().map(SavedZombie::to_nbt).collect()),
        );
        c
    }

    fn from_nbt(c: &Compound) -> Result<Self, String> {
        let dwell = long(c, "DwellLeft")?;
        Ok(Self {
            pack: PackRecord {
                id: long(c, "Id")? as u64,
                centroid: DVec2::new(double(c, "X")?, double(c, "Z")?),
                y: double(c, "Y")?,
                heading: DVec2::new(double(c, "HeadingX")?, double(c, "HeadingZ")?),
                dest: DVec2::new(double(c, "DestX")?, double(c, "DestZ")?),
                leg: int(c, "Leg")?.max(0) as u32,
                dwell_left: (dwell >= 0).then_some(dwell as u64),
                seed: long(c, "Seed")? as u64,
                draws: draws(c)?,
                restore_failures: int(c, "RestoreFailures")?.max(0) as u32,
            },
            members: compounds(c, "Members")?
                .iter()
                .map(SavedZombie::from_nbt)
                .collect::<Result<_, _>>()?,
        })
    }
}

impl SavedPacks {
    /// The packs' entries of the file's root. `Loose` is shared: the hunt's zombies, flagged
    /// `Hunt`, are the hunt's to read.
    fn from_nbt(root: &Compound) -> Result<Self, String> {
        let mut loose = Vec::new();
        for (place, entry) in compounds(root, "Loose")?.iter().enumerate() {
            let zombie = SavedZombie::from_nbt(entry)?;
            if !zombie.hunt {
                loose.push((place, zombie));
            }
        }
        Ok(Self {
            next_id: long(root, "NextId")? as u64,
            packs: compounds(root, "Packs")?
                .iter()
                .map(SavedPack::from_nbt)
                .collect::<Result<_, _>>()?,
            loose,
        })
    }
}

impl SavePart for SavedPacks {
    fn write(&self, out: &mut SaveOut) {
        let root = out.root(DataFile::Packs);
        root.insert("NextId", self.next_id as i64);
        root.insert(
            "Packs",
            list(self.packs.iter().map(SavedPack::to_nbt).collect()),
        );
        let loose = self.loose.iter().map(|(_, zombie)| zombie.to_nbt());
        out.list(DataFile::Packs, "Loose").extend(loose);
        out.saved.packs += self.packs.len();
        out.saved.members += self.packs.iter().map(|p| p.members.len()).sum::<usize>();
        out.saved.loose += self.loose.len();
    }
}

/// The packs and the loose zombies, taken on the tick: records are cheap copies.
fn snapshot(world: &mut World) -> Box<dyn SavePart> {
    let kinds = world.resource::<ZombieKinds>().clone();
    let now = world.resource::<Server>().current_tick() as u64;
    let mut bodies = world.query_filtered::<(
        (&Zombie, &Position, &Vitality, &Burning, &Equipment),
        Option<&PackBrain>,
    ), (Without<Dying>, Without<Arena>)>();
    let saved = |body: LiveZombie| saved_zombie(&kinds, body);
    let loose = bodies
        .iter(world)
        .filter(|(_, brain)| brain.is_none_or(|b| b.pack.is_none()))
        .map(|(body, _)| saved(body))
        .enumerate()
        .collect();
    world.resource_mut::<Packs>().catch_up_sleepers(now);
    let packs = world.resource::<Packs>();
    let mut by_id: Vec<&Pack> = packs.iter().collect();
    by_id.sort_unstable_by_key(|p| p.id);
    let member = |record| SavedZombie {
        record,
        pos: None,
        hunt: false,
    };
    let saved_packs = by_id
        .into_iter()
        .map(|pack| SavedPack {
            pack: pack.record(now),
            members: match pack.state {
                PackState::Ghost => pack
                    .ghosts
                    .iter()
                    .map(|g| member(crate::zombie::save::named(&kinds, *g)))
                    .collect(),
                PackState::Materialised => pack
                    .members
                    .iter()
                    .filter_map(|m| bodies.get(world, *m).ok())
                    .map(|(body, _)| member(saved(body).record))
                    .collect(),
            },
        })
        .collect();
    Box::new(SavedPacks {
        next_id: packs.next_id(),
        packs: saved_packs,
        loose,
    })
}

fn read(root: &Compound) -> Result<Box<dyn RestorePart>, String> {
    Ok(Box::new(LoadedPacks {
        saved: SavedPacks::from_nbt(root)?,
        listed: compounds(root, "Loose")?.len(),
    }))
}

/// Loose zombies read from the save, spawned once the overworld exists.
#[derive(Resource, Debug, Default)]
struct PendingLoose(Vec<(usize, SavedZombie)>);

/// The packs' share as read at start, and how many zombies the `Loose` list holds, the hunt's
/// among them: the start's log line counts them all, as the save's report does.
struct LoadedPacks {
    saved: SavedPacks,
    listed: usize,
}

/// Every pack goes into the table as a ghost: no chunk is watched at start.
impl RestorePart for LoadedPacks {
    fn restore(self: Box<Self>, world: &mut World) {
        let LoadedPacks {
            saved: this,
            listed,
        } = *self;
        let config = world.resource::<Config>().clone();
        let mut kinds = world.resource::<ZombieKinds>().clone();
        let (mut members, count) = (0, this.packs.len());
        for saved in this.packs {
            let ghosts: Vec<ZombieRecord> = saved
                .members
                .iter()
                .map(|m| record_of(&mut kinds, &m.record, &config))
                .collect();
            members += ghosts.len();
            world
                .resource_mut::<Packs>()
                .insert_saved(saved.pack, ghosts, &kinds, &config.pack);
        }
        world.insert_resource(kinds);
        world.resource_mut::<Packs>().reserve_ids(this.next_id);
        info!("loaded {count} packs ({members} members) and {listed} loose zombies");
        world.insert_resource(PendingLoose(this.loose));
    }
}

fn restore_loose_zombies(
    mut commands: Commands,
    pending: Option<ResMut<PendingLoose>>,
    layers: Query<Entity, With<Overworld>>,
    mut kinds: ResMut<ZombieKinds>,
    config: Res<Config>,
) {
    let (Some(mut pending), Ok(layer)) = (pending, layers.get_single()) else {
        return;
    };
    for saved in pending.0.drain(..) {
        spawn_saved(&mut commands, layer, &mut kinds, &config, &saved);
    }
    commands.remove_resource::<PendingLoose>();
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::zombie::save::tests::Gen;

    #[test]
    fn every_field_survives_a_round_trip_through_nbt_bytes() {
        let mut g = Gen::new(0x1234_5678_9ABC_DEF1);
        for case in 0..200 {
            let packs = (0..g.next() % 6)
                .map(|i| SavedPack {
                    pack: PackRecord {
                        id: i + 1 + case * 10,
                        centroid: DVec2::new(g.float(), g.float()),
                        y: g.float() / 100.0,
                        heading: DVec2::from_angle(g.float()),
                        dest: DVec2::new(g.float(), g.float()),
                        leg: (g.next() % 100) as u32,
                        dwell_left: g.next().is_multiple_of(2).then(|| g.next() % 300),
                        seed: g.next(),
                        draws: g.next() % 1_000_000,
                        restore_failures: (g.next() % 5) as u32,
                    },
                    members: (0..g.next() % 25).map(|_| g.zombie(false)).collect(),
                })
                .collect();
            let saved = SavedPacks {
                next_id: g.next() % 1_000_000,
                packs,
                loose: (0..g.next() % 10)
                    .map(|_| SavedZombie {
                        hunt: false,
                        ..g.zombie(true)
                    })
                    .enumerate()
                    .collect(),
            };
            let back = SavedPacks::from_nbt(&through_bytes(&written(&saved))).unwrap();
            assert_eq!(back, saved, "case {case}");
        }
    }

    /// The root a save writes of `saved`.
    fn written(saved: &SavedPacks) -> Compound {
        let mut out = SaveOut::default();
        saved.write(&mut out);
        out.root(DataFile::Packs).clone()
    }

    fn through_bytes(root: &Compound) -> Compound {
        let mut bytes = Vec::new();
        root.to_binary(&mut bytes, "").unwrap();
        Compound::from_binary(&mut bytes.as_slice()).unwrap().0
    }

    #[test]
    fn the_hunts_zombies_in_the_loose_list_are_left_to_it() {
        let mut g = Gen::new(7);
        let mut root = written(&SavedPacks::default());
        let (ours, hunts) = (
            SavedZombie {
                hunt: false,
                ..g.zombie(true)
            },
            SavedZombie {
                hunt: true,
                ..g.zombie(true)
            },
        );
        root.insert("Loose", list(vec![hunts.to_nbt(), ours.to_nbt()]));
        assert_eq!(SavedPacks::from_nbt(&root).unwrap().loose, [(1, ours)]);
    }

    #[test]
    fn flipped_bytes_and_truncations_fall_back_to_the_previous_save() {
        let dir = crate::scratch::ScratchDir::new("packs-corrupt");
        let file = DataFile::Packs.at(&dir);
        let mut g = Gen::new(99);
        let older = SavedPacks {
            next_id: 7,
            packs: vec![],
            loose: vec![(
                0,
                SavedZombie {
                    hunt: false,
                    ..g.zombie(true)
                },
            )],
        };
        let newer = SavedPacks {
            next_id: 8,
            ..older.clone()
        };
        file.write(&written(&older)).unwrap();
        file.write(&written(&newer)).unwrap();
        let good = std::fs::read(file.path()).unwrap();
        let old = std::fs::read(file.old_path()).unwrap();
        for at in (0..good.len()).step_by(3) {
            for damage in [Damage::Flip, Damage::Cut] {
                let mut bytes = good.clone();
                match damage {
                    Damage::Flip => bytes[at] ^= 0x5a,
                    Damage::Cut => bytes.truncate(at),
                }
                std::fs::write(file.path(), &bytes).unwrap();
                std::fs::write(file.old_path(), &old).unwrap();
                let loaded = file.load_as(SavedPacks::from_nbt).unwrap().unwrap();
                // Either the damage missed anything that matters, or the previous save is used.
                assert!(loaded == newer || loaded == older, "{damage:?} at {at}");
            }
        }
    }

    #[derive(Debug, Clone, Copy)]
    enum Damage {
        Flip,
        Cut,
    }

    /// A pack with no members, its stream at seed `seed` after 5 draws.
    fn empty_pack(seed: u64) -> SavedPack {
        SavedPack {
            pack: PackRecord {
                id: 1,
                centroid: DVec2::ZERO,
                y: 64.0,
                heading: DVec2::X,
                dest: DVec2::ONE,
                leg: 1,
                dwell_left: None,
                seed,
                draws: 5,
                restore_failures: 0,
            },
            members: vec![],
        }
    }

    #[test]
    fn wrong_shapes_are_errors_not_panics() {
        let mut c = written(&SavedPacks::default());
        c.insert("Packs", 5i32);
        assert!(SavedPacks::from_nbt(&c).is_err());
        let mut pack = empty_pack(1).to_nbt();
        pack.insert("Draws", "many".to_string());
        let mut root = written(&SavedPacks::default());
        root.insert("Packs", list(vec![pack]));
        assert!(SavedPacks::from_nbt(&root).unwrap_err().contains("Draws"));
        assert!(SavedPacks::from_nbt(&Compound::new()).is_err());
    }

    #[test]
    fn a_format_one_pack_starts_its_stream_over_from_its_seed() {
        let mut pack = empty_pack(77).to_nbt();
        pack.remove("Draws");
        pack.insert("Rng", 123_456i64);
        let back = SavedPack::from_nbt(&pack).unwrap();
        assert_eq!((back.pack.seed, back.pack.draws), (77, 0));
    }
}
