//! A player's body in their `playerdata/<uuid>.dat`: position, facing, health, food, air,
//! fire, game mode and inventory, in vanilla's layout (`Pos`, `Rotation`, `Health`,
//! `foodLevel`..., `Air`, `Fire`, `FallDistance`, `playerGameType` and an `Inventory` list of
//! `Slot`/`id`/`Count`/`tag`) and the bed or point they respawn at (`SpawnX/Y/Z`,
//! `SpawnForced`). One who left dead
//! comes back at the spawn, as on respawning.

use bevy_ecs::world::EntityMut;
use valence::entity::entity::Air;
use valence::nbt::{Compound, List, Value};
use valence::prelude::*;

use super::hazards::{Exposure, FIRE_REST, MAX_AIR};
use super::hunger::{Food, MAX_EXHAUSTION, MAX_FOOD};
use super::{Health, MAX_HEALTH};
use crate::common::body::RespawnPoint;
use crate::common::stacks::{stack_from_nbt, stack_to_nbt};
use crate::save::{keys, PlayerPart, RestorePlayer, SaveApp};

pub(super) fn register(app: &mut App) {
    app.add_player_part(snapshot, read);
}

/// One player as saved.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedPlayer {
    pub pos: DVec3,
    pub yaw: f32,
    pub pitch: f32,
    pub health: f32,
    pub game_mode: GameMode,
    pub body: SavedBody,
    /// Valence's player inventory slots (hotbar 36..45, main 9..36, armour 5..9, off hand 45)
    /// with what they hold, its wear and other tags kept.
    pub items: Vec<(u16, ItemStack)>,
    /// The head of the bed they last slept in or clicked, or the point `spawnpoint` set.
    pub respawn: Option<RespawnPoint>,
}

/// What a survival body carries across a restart besides its health.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SavedBody {
    pub food: Food,
    pub air: i32,
    pub exposure: Exposure,
}

impl Default for SavedBody {
    fn default() -> Self {
        Self {
            food: Food::default(),
            air: MAX_AIR,
            exposure: Exposure::default(),
        }
    }
}

impl SavedBody {
    fn write(&self, c: &mut Compound) {
        c.insert("foodLevel", self.food.level as i32);
        c.insert("foodSaturationLevel", self.food.saturation);
        c.insert("foodExhaustionLevel", self.food.exhaustion);
        c.insert("foodTickTimer", self.food.timer as i32);
        c.insert("Air", self.air as i16);
        c.insert(
            "Fire",
            self.exposure.fire.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
        );
        c.insert("FallDistance", self.exposure.fall);
    }

    /// Read leniently, as vanilla does: a missing or odd key keeps a fresh body's value, and
    /// each is held to its range.
    fn read(c: &Compound) -> Self {
        let int = |key| keys::int_or_none(c, key);
        let float = |key| keys::float_or_none(c, key);
        let fresh = Self::default();
        let level =
            int("foodLevel").map_or(fresh.food.level, |v| v.clamp(0, MAX_FOOD as i32) as u32);
        Self {
            food: Food {
                level,
                saturation: float("foodSaturationLevel")
                    .map_or(fresh.food.saturation, |v| v.clamp(0.0, level as f32)),
                exhaustion: float("foodExhaustionLevel")
                    .map_or(0.0, |v| v.clamp(0.0, MAX_EXHAUSTION)),
                timer: int("foodTickTimer").map_or(0, |v| v.clamp(0, 80) as u32),
            },
            air: int("Air").map_or(fresh.air, |v| v.clamp(0, MAX_AIR)),
            exposure: Exposure {
                fall: float("FallDistance").map_or(0.0, |v| v.clamp(0.0, 1024.0)),
                fire: int("Fire").map_or(FIRE_REST, |v| v.max(FIRE_REST)),
            },
        }
    }
}

/// Vanilla's `Slot` numbers in player files: hotbar 0..9, main 9..36, armour 100..104 (feet
/// first), off hand -106.
fn vanilla_slot(slot: u16) -> Option<i8> {
    match slot {
        36..=44 => Some((slot - 36) as i8),
        9..=35 => Some(slot as i8),
        5..=8 => Some(100 + (8 - slot) as i8),
        45 => Some(-106),
        _ => None,
    }
}

fn valence_slot(slot: i8) -> Option<u16> {
    match slot {
        0..=8 => Some(slot as u16 + 36),
        9..=35 => Some(slot as u16),
        100..=103 => Some(8 - (slot - 100) as u16),
        -106 => Some(45),
        _ => None,
    }
}

fn mode_id(mode: GameMode) -> i32 {
    match mode {
        GameMode::Survival => 0,
        GameMode::Creative => 1,
        GameMode::Adventure => 2,
        GameMode::Spectator => 3,
    }
}

fn mode_of(id: i32) -> Option<GameMode> {
    Some(match id {
        0 => GameMode::Survival,
        1 => GameMode::Creative,
        2 => GameMode::Adventure,
        3 => GameMode::Spectator,
        _ => return None,
    })
}

impl SavedPlayer {
    pub fn from_nbt(c: &Compound) -> Result<Self, String> {
        let pos = match c.get("Pos") {
            Some(Value::List(List::Double(p)))
                if p.len() == 3 && p.iter().all(|v| v.is_finite()) =>
            {
                DVec3::new(p[0], p[1], p[2])
            }
            _ => return Err("Pos missing or not three numbers".into()),
        };
        let (yaw, pitch) = match c.get("Rotation") {
            Some(Value::List(List::Float(r))) if r.len() == 2 => (r[0], r[1]),
            _ => (0.0, 0.0),
        };
        let health = match c.get("Health") {
            Some(Value::Float(h)) if h.is_finite() => *h,
            _ => return Err("Health missing or not a float".into()),
        };
        let game_mode = match c.get("playerGameType") {
            Some(Value::Int(id)) => mode_of(*id).ok_or(format!("unknown game mode {id}"))?,
            _ => return Err("playerGameType missing or not an int".into()),
        };
        let items = match c.get("Inventory") {
            Some(Value::List(List::Compound(items))) => items
                .iter()
                .filter_map(|s| {
                    let slot = match s.get("Slot") {
                        Some(Value::Byte(b)) => valence_slot(*b)?,
                        _ => return None,
                    };
                    Some((slot, stack_from_nbt(s).ok()?))
                })
                .collect(),
            Some(Value::List(List::End)) | None => Vec::new(),
            Some(_) => return Err("Inventory is not a list of compounds".into()),
        };
        let respawn = match (
            keys::int_or_none(c, "SpawnX"),
            keys::int_or_none(c, "SpawnY"),
            keys::int_or_none(c, "SpawnZ"),
        ) {
            (Some(x), Some(y), Some(z)) => Some(RespawnPoint {
                at: BlockPos::new(x, y, z),
                forced: matches!(c.get("SpawnForced"), Some(Value::Byte(b)) if *b != 0),
            }),
            _ => None,
        };
        Ok(Self {
            pos,
            yaw,
            pitch,
            health,
            game_mode,
            body: SavedBody::read(c),
            items,
            respawn,
        })
    }

    /// What `inventory` holds, slot by slot.
    pub fn items_of(inventory: &Inventory) -> Vec<(u16, ItemStack)> {
        (0..inventory.slot_count())
            .filter_map(|i| inventory.slot(i).map(|s| (i, s.clone())))
            .collect()
    }
}

impl PlayerPart for SavedPlayer {
    fn write(&self, c: &mut Compound) {
        c.insert(
            "Pos",
            Value::List(List::Double(vec![self.pos.x, self.pos.y, self.pos.z])),
        );
        c.insert(
            "Rotation",
            Value::List(List::Float(vec![self.yaw, self.pitch])),
        );
        c.insert("Health", self.health);
        c.insert("playerGameType", mode_id(self.game_mode));
        self.body.write(c);
        let items = self
            .items
            .iter()
            .filter_map(|(slot, stack)| {
                let mut s = stack_to_nbt(stack);
                s.insert("Slot", vanilla_slot(*slot)?);
                Some(s)
            })
            .collect();
        c.insert("Inventory", Value::List(List::Compound(items)));
        if let Some(point) = self.respawn {
            c.insert("SpawnX", point.at.x);
            c.insert("SpawnY", point.at.y);
            c.insert("SpawnZ", point.at.z);
            c.insert("SpawnAngle", 0.0f32);
            c.insert("SpawnForced", point.forced);
            c.insert("SpawnDimension", "minecraft:overworld");
        }
    }
}

/// A joining player gets back where they stood, their health, game mode and inventory.
impl RestorePlayer for SavedPlayer {
    fn restore(self: Box<Self>, player: &mut EntityMut) {
        if let Some(mut mode) = player.get_mut::<GameMode>() {
            *mode = self.game_mode;
        }
        if let Some(mut inventory) = player.get_mut::<Inventory>() {
            for (slot, stack) in self.items {
                if slot < inventory.slot_count() {
                    inventory.set_slot(slot, stack);
                }
            }
        }
        if let Some(point) = self.respawn {
            player.insert(point);
        }
        if self.health <= 0.0 {
            return;
        }
        if let Some(mut pos) = player.get_mut::<Position>() {
            pos.0 = self.pos;
        }
        if let Some(mut look) = player.get_mut::<Look>() {
            look.yaw = self.yaw;
            look.pitch = self.pitch;
        }
        if let Some(mut air) = player.get_mut::<Air>() {
            air.0 = self.body.air;
        }
        player.insert((
            Health(self.health.min(MAX_HEALTH)),
            self.body.food,
            self.body.exposure,
        ));
    }
}

fn snapshot(player: EntityRef) -> Option<Box<dyn PlayerPart>> {
    let pos = player.get::<Position>()?;
    let look = player.get::<Look>()?;
    Some(Box::new(SavedPlayer {
        pos: pos.0,
        yaw: look.yaw,
        pitch: look.pitch,
        health: player.get::<Health>()?.0,
        game_mode: *player.get::<GameMode>()?,
        body: SavedBody {
            food: player.get::<Food>().copied().unwrap_or_default(),
            air: player.get::<Air>().map_or(MAX_AIR, |a| a.0),
            exposure: player.get::<Exposure>().copied().unwrap_or_default(),
        },
        items: SavedPlayer::items_of(player.get::<Inventory>()?),
        respawn: player.get::<RespawnPoint>().copied(),
    }))
}

fn read(player: &Compound) -> Result<Box<dyn RestorePlayer>, String> {
    Ok(Box::new(SavedPlayer::from_nbt(player)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nbt_of(player: &SavedPlayer) -> Compound {
        let mut nbt = Compound::new();
        player.write(&mut nbt);
        nbt
    }

    #[test]
    fn a_player_survives_a_round_trip_in_vanillas_layout() {
        let player = SavedPlayer {
            pos: DVec3::new(10.5, 70.0, -3.25),
            yaw: 90.0,
            pitch: -10.0,
            health: 13.5,
            game_mode: GameMode::Adventure,
            body: SavedBody {
                food: Food {
                    level: 14,
                    saturation: 2.5,
                    exhaustion: 1.25,
                    timer: 30,
                },
                air: 120,
                exposure: Exposure {
                    fall: 4.5,
                    fire: 57,
                },
            },
            items: vec![
                (36, ItemStack::new(ItemKind::Dirt, 12, None)),
                (
                    44,
                    crate::common::stacks::new_stack(ItemKind::IronSword, 1, None),
                ),
                (9, ItemStack::new(ItemKind::OakLog, 64, None)),
                (
                    5,
                    super::super::armour::with_damage(
                        ItemStack::new(ItemKind::IronHelmet, 1, None),
                        37,
                    ),
                ),
                (
                    45,
                    crate::common::stacks::new_stack(ItemKind::Shield, 1, None),
                ),
            ],
            respawn: Some(RespawnPoint {
                at: BlockPos::new(12, 64, -40),
                forced: true,
            }),
        };
        let nbt = nbt_of(&player);
        let mut bytes = Vec::new();
        nbt.to_binary(&mut bytes, "").unwrap();
        let (back, _) = Compound::from_binary(&mut bytes.as_slice()).unwrap();
        assert_eq!(SavedPlayer::from_nbt(&back).unwrap(), player);
        // Vanilla's slot numbers on disk.
        let Some(Value::List(List::Compound(items))) = nbt.get("Inventory") else {
            panic!("no inventory");
        };
        let slots: Vec<i8> = items
            .iter()
            .map(|s| match s.get("Slot") {
                Some(Value::Byte(b)) => *b,
                _ => panic!("no slot"),
            })
            .collect();
        assert_eq!(slots, [0, 8, 9, 103, -106]);
        assert_eq!(nbt.get("SpawnX"), Some(&Value::Int(12)));
        assert_eq!(nbt.get("SpawnZ"), Some(&Value::Int(-40)));
        assert_eq!(nbt.get("SpawnForced"), Some(&Value::Byte(1)));
    }

    #[test]
    fn a_broken_file_is_an_error_and_unknown_items_are_dropped() {
        assert!(SavedPlayer::from_nbt(&Compound::new()).is_err());
        let mut nbt = nbt_of(&SavedPlayer {
            pos: DVec3::ZERO,
            yaw: 0.0,
            pitch: 0.0,
            health: 20.0,
            game_mode: GameMode::Survival,
            body: SavedBody::default(),
            items: vec![],
            respawn: None,
        });
        let mut odd = Compound::new();
        odd.insert("Slot", 0i8);
        odd.insert("id", "minecraft:no_such_thing".to_string());
        odd.insert("Count", 1i8);
        nbt.insert("Inventory", Value::List(List::Compound(vec![odd])));
        nbt.insert("foodLevel", 999);
        nbt.insert("Air", "lots".to_string());
        let back = SavedPlayer::from_nbt(&nbt).unwrap();
        assert!(back.items.is_empty());
        assert_eq!(back.body.food.level, MAX_FOOD, "held to its range");
        assert_eq!(back.body.air, MAX_AIR, "an odd key keeps a fresh body's");
    }
}
