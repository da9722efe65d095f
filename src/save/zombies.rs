//! `data/horde_packs.dat`: every pack (membership, centroid, heading, destination, leg, dwell,
//! random stream, ghost members with type, health, fire, equipment and restore retries) and every
//! loose zombie. Types are saved by name so that a save survives edits to the type list.
//!
//! Random streams are saved as their seed and the draws taken (format 2). Format 1 kept the
//! state of a hand-written generator, which cannot be carried over: its streams start again
//! from their seeds.

use valence::math::DVec2;
use valence::nbt::{Compound, List, Value};
use valence::prelude::{DVec3, ItemKind};

use crate::config::ArmourTier;
use crate::pack::PackRecord;
use crate::zombie::gear::ZombieWeapon;
use crate::zombie::{Equipment, Helmet, ZombieRecord};

/// One zombie as saved: its record with the type by name.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedZombie {
    pub record: ZombieRecord<String>,
    /// Where it stood (loose zombies; pack members come back around the centroid).
    pub pos: Option<DVec3>,
    /// Spawned by the running hunt.
    pub hunt: bool,
}

/// The running hunt round, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedHunt {
    pub preset: String,
    /// The preset as the round began, as `config.toml` text; none in a format-1 save, whose
    /// round takes the configured preset of that name.
    pub settings: Option<String>,
    /// The most players the round has had, and its kill goal so far.
    pub players: u32,
    pub goal: u32,
    pub elapsed: u64,
    pub next_wave_in: u64,
    pub spawned: u32,
    pub kills: u32,
    /// The round's random stream: its seed and the draws taken.
    pub seed: u64,
    pub draws: u64,
}

/// One pack as saved.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedPack {
    pub pack: PackRecord,
    pub members: Vec<SavedZombie>,
}

/// Everything in the file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SavedZombies {
    pub next_id: u64,
    pub packs: Vec<SavedPack>,
    pub loose: Vec<SavedZombie>,
    pub hunt: Option<SavedHunt>,
    /// The chunks of `entities/` that hold horde's zombies as of this save, emptied of them
    /// at the next (see `save::entities`).
    pub entity_chunks: Vec<(i32, i32)>,
}

fn list(items: Vec<Compound>) -> Value {
    Value::List(List::Compound(items))
}

impl SavedZombie {
    fn to_nbt(&self) -> Compound {
        let mut c = Compound::new();
        let r = &self.record;
        c.insert("Type", r.kind.clone());
        c.insert("Health", r.health);
        c.insert("Fire", r.fire_ticks as i32);
        let e = &r.equipment;
        if let Some(helmet) = e.helmet {
            c.insert("Helmet", helmet.kind.name().to_string());
            c.insert("HelmetDurability", helmet.durability as i32);
        }
        if e.body.iter().any(Option::is_some) {
            // Chest, legs, feet; "" for an empty slot.
            let names = e.body.map(|t| t.map_or("", ArmourTier::name).to_string());
            c.insert("Armour", Value::List(List::String(names.to_vec())));
        }
        if let Some(weapon) = e.weapon {
            c.insert("Weapon", weapon.item().to_str().to_string());
        }
        if let Some(p) = self.pos {
            c.insert("Pos", Value::List(List::Double(vec![p.x, p.y, p.z])));
        }
        if self.hunt {
            c.insert("Hunt", true);
        }
        c
    }

    fn from_nbt(c: &Compound) -> Result<Self, String> {
        let helmet = match c.get("Helmet") {
            Some(Value::String(name)) => {
                let kind = ArmourTier::from_name(name).ok_or(format!("unknown helmet {name:?}"))?;
                Some(Helmet {
                    kind,
                    durability: short(int(c, "HelmetDurability")?),
                })
            }
            _ => None,
        };
        let mut body = [None; 3];
        match c.get("Armour") {
            Some(Value::List(List::String(names))) if names.len() == 3 => {
                for (slot, name) in body.iter_mut().zip(names) {
                    *slot = match name.as_str() {
                        "" => None,
                        name => Some(
                            ArmourTier::from_name(name)
                                .ok_or(format!("unknown armour {name:?}"))?,
                        ),
                    };
                }
            }
            Some(_) => return Err("Armour is not three names".into()),
            None => {}
        }
        let weapon = match c.get("Weapon") {
            Some(Value::String(name)) => Some(
                ItemKind::from_str(name)
                    .and_then(ZombieWeapon::of)
                    .ok_or(format!("unknown zombie weapon {name:?}"))?,
            ),
            Some(_) => return Err("Weapon is not a name".into()),
            None => None,
        };
        let pos = match c.get("Pos") {
            Some(Value::List(List::Double(v))) if v.len() == 3 => {
                Some(DVec3::new(v[0], v[1], v[2]))
            }
            Some(_) => return Err("Pos is not three doubles".into()),
            None => None,
        };
        let health = match c.get("Health") {
            Some(Value::Float(h)) if h.is_finite() => *h,
            _ => return Err("Health missing or not a float".into()),
        };
        Ok(Self {
            record: ZombieRecord {
                kind: string(c, "Type")?,
                health,
                fire_ticks: short(int(c, "Fire")?),
                equipment: Equipment {
                    helmet,
                    body,
                    weapon,
                },
            },
            pos,
            hunt: matches!(c.get("Hunt"), Some(Value::Byte(1))),
        })
    }
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

/// Draws taken from a saved stream; none in a format-1 save, whose stream starts over.
fn draws(c: &Compound) -> Result<u64, String> {
    match c.get("Draws") {
        None if c.contains_key("Rng") => Ok(0),
        _ => Ok(long(c, "Draws")? as u64),
    }
}

/// A saved count as records keep it, within `0..=u16::MAX`.
fn short(v: i32) -> u16 {
    v.clamp(0, u16::MAX as i32) as u16
}

fn int(c: &Compound, key: &str) -> Result<i32, String> {
    match c.get(key) {
        Some(Value::Int(v)) => Ok(*v),
        _ => Err(format!("{key} missing or not an int")),
    }
}

fn long(c: &Compound, key: &str) -> Result<i64, String> {
    match c.get(key) {
        Some(Value::Long(v)) => Ok(*v),
        _ => Err(format!("{key} missing or not a long")),
    }
}

fn double(c: &Compound, key: &str) -> Result<f64, String> {
    match c.get(key) {
        Some(Value::Double(v)) if v.is_finite() => Ok(*v),
        _ => Err(format!("{key} missing or not a number")),
    }
}

fn string(c: &Compound, key: &str) -> Result<String, String> {
    match c.get(key) {
        Some(Value::String(v)) => Ok(v.clone()),
        _ => Err(format!("{key} missing or not a string")),
    }
}

fn compounds<'a>(c: &'a Compound, key: &str) -> Result<&'a [Compound], String> {
    match c.get(key) {
        Some(Value::List(List::Compound(v))) => Ok(v),
        Some(Value::List(List::End)) => Ok(&[]),
        _ => Err(format!("{key} missing or not a list of compounds")),
    }
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

impl SavedZombies {
    pub fn to_nbt(&self) -> Compound {
        let mut c = Compound::new();
        c.insert("NextId", self.next_id as i64);
        c.insert(
            "Packs",
            list(self.packs.iter().map(SavedPack::to_nbt).collect()),
        );
        c.insert(
            "Loose",
            list(self.loose.iter().map(SavedZombie::to_nbt).collect()),
        );
        if let Some(hunt) = &self.hunt {
            c.insert("Hunt", hunt.to_nbt());
        }
        c.insert(
            "EntityChunks",
            List::IntArray(
                self.entity_chunks
                    .iter()
                    .map(|&(x, z)| vec![x, z])
                    .collect(),
            ),
        );
        c
    }

    pub fn from_nbt(c: &Compound) -> Result<Self, String> {
        Ok(Self {
            next_id: long(c, "NextId")? as u64,
            packs: compounds(c, "Packs")?
                .iter()
                .map(SavedPack::from_nbt)
                .collect::<Result<_, _>>()?,
            loose: compounds(c, "Loose")?
                .iter()
                .map(SavedZombie::from_nbt)
                .collect::<Result<_, _>>()?,
            hunt: match c.get("Hunt") {
                Some(Value::Compound(h)) => Some(SavedHunt::from_nbt(h)?),
                Some(_) => return Err("Hunt is not a compound".into()),
                None => None,
            },
            // Kept since the first save that wrote `entities/`.
            entity_chunks: match c.get("EntityChunks") {
                Some(Value::List(List::IntArray(chunks))) => chunks
                    .iter()
                    .map(|xz| match xz[..] {
                        [x, z] => Ok((x, z)),
                        _ => Err("an EntityChunks entry is not two ints".to_string()),
                    })
                    .collect::<Result<_, _>>()?,
                Some(Value::List(List::End)) | None => Vec::new(),
                Some(_) => return Err("EntityChunks is not a list of int arrays".into()),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use rand::RngCore;

    /// Deterministic pseudo-random values for property-style round trips.
    struct Gen(rand_pcg::Pcg32);

    impl Gen {
        fn new(seed: u64) -> Self {
            Self(crate::random::generator(seed))
        }
        fn next(&mut self) -> u64 {
            self.0.next_u64()
        }
        fn float(&mut self) -> f64 {
            (self.next() % 2_000_000) as f64 / 100.0 - 10_000.0
        }
        fn zombie(&mut self, with_pos: bool) -> SavedZombie {
            SavedZombie {
                record: ZombieRecord {
                    kind: ["zombie", "fast_zombie", "armored_zombie"][(self.next() % 3) as usize]
                        .into(),
                    health: (self.next() % 450) as f32 + 0.5,
                    fire_ticks: (self.next() % 200) as u16,
                    equipment: Equipment {
                        helmet: self.next().is_multiple_of(2).then(|| Helmet {
                            kind: ArmourTier::ALL[(self.next() % 6) as usize],
                            durability: (self.next() % 400) as u16,
                        }),
                        body: [0, 1, 2].map(|_| {
                            let n = (self.next() % 8) as usize;
                            ArmourTier::ALL.get(n).copied()
                        }),
                        weapon: ZombieWeapon::ALL.get((self.next() % 3) as usize).copied(),
                    },
                },
                pos: with_pos.then(|| DVec3::new(self.float(), self.float() / 100.0, self.float())),
                hunt: with_pos && self.next().is_multiple_of(3),
            }
        }
    }

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
            let saved = SavedZombies {
                next_id: g.next() % 1_000_000,
                packs,
                loose: (0..g.next() % 10).map(|_| g.zombie(true)).collect(),
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
                entity_chunks: (0..g.next() % 5)
                    .map(|_| (g.float() as i32, g.float() as i32))
                    .collect(),
            };
            let mut bytes = Vec::new();
            saved.to_nbt().to_binary(&mut bytes, "").unwrap();
            let (back, _) = Compound::from_binary(&mut bytes.as_slice()).unwrap();
            assert_eq!(SavedZombies::from_nbt(&back).unwrap(), saved, "case {case}");
        }
    }

    #[test]
    fn flipped_bytes_and_truncations_fall_back_to_the_previous_save() {
        let dir = crate::scratch::ScratchDir::new("packs-corrupt");
        let file = super::super::packs_file(&dir);
        let mut g = Gen::new(99);
        let older = SavedZombies {
            next_id: 7,
            packs: vec![],
            loose: vec![g.zombie(true)],
            hunt: None,
            entity_chunks: vec![(1, -2)],
        };
        let newer = SavedZombies {
            next_id: 8,
            ..older.clone()
        };
        file.write(&older.to_nbt()).unwrap();
        file.write(&newer.to_nbt()).unwrap();
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
                let loaded = file.load_as(SavedZombies::from_nbt).unwrap().unwrap();
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
        let mut c = SavedZombies::default().to_nbt();
        c.insert("Packs", 5i32);
        assert!(SavedZombies::from_nbt(&c).is_err());
        let mut pack = empty_pack(1).to_nbt();
        pack.insert("Draws", "many".to_string());
        let mut root = SavedZombies::default().to_nbt();
        root.insert("Packs", list(vec![pack]));
        assert!(SavedZombies::from_nbt(&root).unwrap_err().contains("Draws"));
        assert!(SavedZombies::from_nbt(&Compound::new()).is_err());
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
