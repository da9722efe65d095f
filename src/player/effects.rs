//! Status effects a player can have, as vanilla's `MobEffectInstance`: given by the `effect`
//! command or by food (rotten flesh's Hunger), shown to the player's client with their icon,
//! counted down each tick, ending when their time runs out or at death, and kept in
//! playerdata as vanilla's `ActiveEffects`. horde models what they do: Speed and Slowness
//! change the player's movement speed (sent as the attribute vanilla sends, which the client
//! moves by), Regeneration heals, Hunger tires (read by `hunger`), and under Slow Falling a
//! fall does not count (`LivingEntity.travel`).

use bevy_ecs::query::Has;
use bevy_ecs::world::EntityMut;
use valence::entity::entity::Flags as EntityFlags;
use valence::ident;
use valence::nbt::{Compound, List, Value};
use valence::prelude::*;
use valence::protocol::packets::play::entity_attributes_s2c::{
    AttributeModifier, AttributeProperty,
};
use valence::protocol::packets::play::entity_status_effect_s2c::Flags;
use valence::protocol::packets::play::{
    EntityAttributesS2c, EntityStatusEffectS2c, RemoveEntityStatusEffectS2c,
};
use valence::protocol::{VarInt, WritePacket};

use super::{Health, MAX_HEALTH};
use crate::common::body::Dead;
use crate::save::{keys, PlayerPart, RestorePlayer, SaveApp};

/// The effects horde models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Speed,
    Slowness,
    Regeneration,
    Hunger,
    SlowFalling,
}

impl Effect {
    pub const ALL: [Effect; 5] = [
        Effect::Speed,
        Effect::Slowness,
        Effect::Regeneration,
        Effect::Hunger,
        Effect::SlowFalling,
    ];

    /// The effect's id on the wire and in saves (`MobEffects`, 1.20.1's registry).
    pub fn id(self) -> i32 {
        match self {
            Effect::Speed => 1,
            Effect::Slowness => 2,
            Effect::Regeneration => 10,
            Effect::Hunger => 17,
            Effect::SlowFalling => 28,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Effect::Speed => "speed",
            Effect::Slowness => "slowness",
            Effect::Regeneration => "regeneration",
            Effect::Hunger => "hunger",
            Effect::SlowFalling => "slow_falling",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        let name = name.strip_prefix("minecraft:").unwrap_or(name);
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    fn from_id(id: i32) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.id() == id)
    }

    /// The movement-speed modifier the effect puts on at `amplifier`: its UUID and amount,
    /// added as a fraction of the total (`MobEffects`: Speed +20 %, Slowness -15 % a level).
    fn speed_modifier(self, amplifier: u8) -> Option<(u128, f64)> {
        let levels = amplifier as f64 + 1.0;
        match self {
            Effect::Speed => Some((0x91AEAA56_376B_4498_935B_2F7F68070635, 0.2 * levels)),
            Effect::Slowness => Some((0x7107DE5E_7CE8_4030_940E_514C1F160890, -0.15 * levels)),
            _ => None,
        }
    }
}

/// One effect on a player, with `duration` ticks left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Active {
    pub effect: Effect,
    pub amplifier: u8,
    pub duration: u32,
}

/// A player's effects.
#[derive(Component, Debug, Clone, Default, PartialEq, Eq)]
pub struct Effects(Vec<Active>);

impl Effects {
    pub fn has(&self, effect: Effect) -> bool {
        self.0.iter().any(|a| a.effect == effect)
    }

    /// The effect's level (0 for level I), if the player has it.
    pub fn amplifier(&self, effect: Effect) -> Option<u8> {
        self.0
            .iter()
            .find(|a| a.effect == effect)
            .map(|a| a.amplifier)
    }

    /// Puts `active` on, replacing the same effect if it is stronger or lasts longer, as
    /// vanilla's `MobEffectInstance.update`. Returns whether anything changed.
    pub fn give(&mut self, active: Active) -> bool {
        match self.0.iter_mut().find(|a| a.effect == active.effect) {
            Some(old) if old.amplifier > active.amplifier => false,
            Some(old) if old.amplifier == active.amplifier && old.duration >= active.duration => {
                false
            }
            Some(old) => {
                *old = active;
                true
            }
            None => {
                self.0.push(active);
                true
            }
        }
    }

    /// One tick: each effect's time runs down; returns those whose time ran out.
    fn tick(&mut self) -> Vec<Effect> {
        for active in &mut self.0 {
            active.duration = active.duration.saturating_sub(1);
        }
        let (gone, kept) = self.0.iter().partition(|a| a.duration == 0);
        self.0 = kept;
        gone.into_iter().map(|a: Active| a.effect).collect()
    }

    /// Takes every effect off, returning them.
    pub fn clear(&mut self) -> Vec<Effect> {
        self.0.drain(..).map(|a| a.effect).collect()
    }

    /// The movement-speed modifiers of the effects on: what the client is told.
    fn speed_modifiers(&self) -> Vec<(u128, f64)> {
        self.0
            .iter()
            .filter_map(|a| a.effect.speed_modifier(a.amplifier))
            .collect()
    }
}

/// Whether Regeneration heals this tick, at `duration` ticks left: every `50 >> amplifier`
/// ticks (vanilla's `MobEffect.isDurationEffectTick`).
pub fn regenerates(amplifier: u8, duration: u32) -> bool {
    match 50u32.checked_shr(amplifier as u32).unwrap_or(0) {
        0 => true,
        every => duration.is_multiple_of(every),
    }
}

/// Tells a player's own client of an effect (it knows itself as entity 0).
pub fn show(client: &mut Client, active: Active) {
    client.write_packet(&EntityStatusEffectS2c {
        entity_id: VarInt(0),
        effect_id: VarInt(active.effect.id()),
        amplifier: active.amplifier,
        duration: VarInt(active.duration.min(i32::MAX as u32) as i32),
        flags: Flags::new().with_show_particles(true).with_show_icon(true),
        factor_codec: None,
    });
}

/// Tells a player's own client an effect is gone.
pub fn hide(client: &mut Client, effect: Effect) {
    client.write_packet(&RemoveEntityStatusEffectS2c {
        entity_id: VarInt(0),
        effect_id: VarInt(effect.id()),
    });
}

/// A player's base movement speed (`Player.createAttributes`).
const BASE_SPEED: f64 = 0.1;
/// Sprinting's modifier, which the client keeps on itself while it sprints and a sent
/// attribute would take off (`LivingEntity.SPEED_MODIFIER_SPRINTING`).
const SPRINTING: (u128, f64) = (0x662A6B8D_DA3E_4C1C_8813_96EA6097278D, 0.3);
/// Vanilla's `AttributeModifier.Operation.MULTIPLY_TOTAL`.
const MULTIPLY_TOTAL: u8 = 2;

/// Tells a player's own client its movement speed with the effects' modifiers, as vanilla's
/// attribute update does; the client moves by it.
fn show_speed(client: &mut Client, effects: &Effects, sprinting: bool) {
    let modifiers = effects
        .speed_modifiers()
        .into_iter()
        .chain(sprinting.then_some(SPRINTING))
        .map(|(uuid, amount)| AttributeModifier {
            uuid: uuid::Uuid::from_u128(uuid),
            amount,
            operation: MULTIPLY_TOTAL,
        })
        .collect();
    client.write_packet(&EntityAttributesS2c {
        entity_id: VarInt(0),
        properties: vec![AttributeProperty {
            key: ident!("generic.movement_speed").into(),
            value: BASE_SPEED,
            modifiers,
        }],
    });
}

/// Each tick: effects run down and end (all of them at death), Regeneration heals, and a
/// change to what moves the player is sent to their client.
pub(super) fn tick_effects(
    mut players: Query<(
        &mut Client,
        &mut Effects,
        &mut Health,
        &EntityFlags,
        Has<Dead>,
    )>,
) {
    for (mut client, mut effects, mut health, flags, dead) in &mut players {
        if effects.0.is_empty() {
            continue;
        }
        if !dead {
            for active in &effects.0 {
                let healing = active.effect == Effect::Regeneration
                    && regenerates(active.amplifier, active.duration)
                    && health.0 < MAX_HEALTH;
                if healing {
                    health.0 = (health.0 + 1.0).min(MAX_HEALTH);
                }
            }
        }
        let gone = if dead {
            effects.clear()
        } else {
            effects.tick()
        };
        // Movement changes only when Speed or Slowness ends.
        let moved = gone.iter().any(|e| e.speed_modifier(0).is_some());
        for effect in gone {
            hide(&mut client, effect);
        }
        if moved {
            show_speed(&mut client, &effects, flags.sprinting());
        }
    }
}

/// Puts `active` on a player and shows it to their client; whether it took (vanilla's
/// "Unable to apply this effect" when they have it stronger or longer).
pub fn apply(player: &mut EntityMut, active: Active) -> bool {
    let sprinting = player.get::<EntityFlags>().is_some_and(|f| f.sprinting());
    let Some(mut effects) = player.get_mut::<Effects>() else {
        return false;
    };
    if !effects.give(active) {
        return false;
    }
    let effects = effects.clone();
    if let Some(mut client) = player.get_mut::<Client>() {
        show(&mut client, active);
        if active.effect.speed_modifier(active.amplifier).is_some() {
            show_speed(&mut client, &effects, sprinting);
        }
    }
    true
}

/// Takes every effect off a player and tells their client; how many there were.
pub fn remove_all(player: &mut EntityMut) -> usize {
    let Some(mut effects) = player.get_mut::<Effects>() else {
        return 0;
    };
    let had_speed = !effects.speed_modifiers().is_empty();
    let gone = effects.clear();
    let sprinting = player.get::<EntityFlags>().is_some_and(|f| f.sprinting());
    if let Some(mut client) = player.get_mut::<Client>() {
        for effect in &gone {
            hide(&mut client, *effect);
        }
        if had_speed {
            show_speed(&mut client, &Effects::default(), sprinting);
        }
    }
    gone.len()
}

pub(super) fn register(app: &mut App) {
    app.add_player_part(snapshot, read);
}

/// A player's effects as their file keeps them: vanilla's `ActiveEffects` (1.20.1), each with
/// its `Id`, `Amplifier`, `Duration` and how it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SavedEffects(Vec<Active>);

impl PlayerPart for SavedEffects {
    fn write(&self, player: &mut Compound) {
        if self.0.is_empty() {
            return;
        }
        let effects = self
            .0
            .iter()
            .map(|a| {
                let mut c = Compound::new();
                c.insert("Id", a.effect.id());
                c.insert("Amplifier", a.amplifier as i8);
                c.insert("Duration", a.duration.min(i32::MAX as u32) as i32);
                c.insert("Ambient", false);
                c.insert("ShowParticles", true);
                c.insert("ShowIcon", true);
                c
            })
            .collect();
        player.insert("ActiveEffects", Value::List(List::Compound(effects)));
    }
}

/// A joining player gets their effects back, shown to their client.
impl RestorePlayer for SavedEffects {
    fn restore(self: Box<Self>, player: &mut EntityMut) {
        for active in self.0 {
            apply(player, active);
        }
    }
}

fn snapshot(player: EntityRef) -> Option<Box<dyn PlayerPart>> {
    let effects = player
        .get::<Effects>()
        .map(|e| e.0.clone())
        .unwrap_or_default();
    Some(Box::new(SavedEffects(effects)))
}

fn read(player: &Compound) -> Result<Box<dyn RestorePlayer>, String> {
    Ok(Box::new(SavedEffects::from_nbt(player)))
}

impl SavedEffects {
    /// Read leniently: an effect horde does not model, or an odd entry, is left out.
    fn from_nbt(player: &Compound) -> Self {
        let entries = match player.get("ActiveEffects") {
            Some(Value::List(List::Compound(entries))) => entries.as_slice(),
            _ => &[],
        };
        let effects = entries
            .iter()
            .filter_map(|c| {
                let effect = Effect::from_id(keys::int_or_none(c, "Id")?)?;
                let amplifier = match c.get("Amplifier") {
                    Some(Value::Byte(a)) => *a as u8,
                    _ => 0,
                };
                let duration = u32::try_from(keys::int_or_none(c, "Duration")?).ok()?;
                (duration > 0).then_some(Active {
                    effect,
                    amplifier,
                    duration,
                })
            })
            .collect();
        Self(effects)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stronger_or_longer_effect_replaces_one_and_time_ends_it() {
        let slow = |amplifier, duration| Active {
            effect: Effect::SlowFalling,
            amplifier,
            duration,
        };
        let mut effects = Effects::default();
        assert!(effects.give(slow(0, 100)));
        assert!(!effects.give(slow(0, 50)), "shorter: kept");
        assert!(effects.give(slow(0, 200)), "longer: replaced");
        assert!(effects.give(slow(1, 2)), "stronger: replaced");
        assert!(!effects.give(slow(0, 900)), "weaker: kept");
        assert!(effects.has(Effect::SlowFalling));
        assert!(effects.tick().is_empty());
        assert_eq!(effects.tick(), [Effect::SlowFalling]);
        assert!(!effects.has(Effect::SlowFalling));
        assert_eq!(
            Effect::from_name("minecraft:slow_falling"),
            Some(Effect::SlowFalling)
        );
        assert_eq!(Effect::from_name("speed"), Some(Effect::Speed));
        assert_eq!(Effect::from_name("levitation"), None);
    }

    #[test]
    fn regeneration_heals_every_fifty_ticks_halved_a_level() {
        // MobEffect.isDurationEffectTick: 50 >> amplifier.
        let heals = |amplifier| (1..=100).filter(|d| regenerates(amplifier, *d)).count();
        assert_eq!(heals(0), 2);
        assert_eq!(heals(1), 4);
        assert_eq!(heals(5), 100, "50 >> 5 is 1: every tick");
        assert_eq!(heals(6), 100, "0: every tick");
        assert_eq!(heals(200), 100);
    }

    #[test]
    fn speed_and_slowness_change_movement_as_vanillas_modifiers() {
        let mut effects = Effects::default();
        effects.give(Active {
            effect: Effect::Speed,
            amplifier: 1,
            duration: 100,
        });
        effects.give(Active {
            effect: Effect::Slowness,
            amplifier: 0,
            duration: 100,
        });
        let modifiers = effects.speed_modifiers();
        assert_eq!(modifiers.len(), 2);
        assert!((modifiers[0].1 - 0.4).abs() < 1e-9, "Speed II: +40 %");
        assert!((modifiers[1].1 + 0.15).abs() < 1e-9, "Slowness I: -15 %");
    }

    #[test]
    fn effects_round_trip_as_vanillas_active_effects() {
        let saved = SavedEffects(vec![
            Active {
                effect: Effect::Hunger,
                amplifier: 0,
                duration: 600,
            },
            Active {
                effect: Effect::Speed,
                amplifier: 2,
                duration: 20,
            },
        ]);
        let mut nbt = Compound::new();
        saved.write(&mut nbt);
        let Some(Value::List(List::Compound(entries))) = nbt.get("ActiveEffects") else {
            panic!("no ActiveEffects in {nbt:?}");
        };
        assert_eq!(entries[0].get("Id"), Some(&Value::Int(17)));
        assert_eq!(entries[1].get("Amplifier"), Some(&Value::Byte(2)));
        assert_eq!(SavedEffects::from_nbt(&nbt), saved);
        let mut unknown = Compound::new();
        unknown.insert("Id", 25);
        unknown.insert("Duration", 100);
        let mut odd = Compound::new();
        odd.insert("ActiveEffects", Value::List(List::Compound(vec![unknown])));
        assert_eq!(
            SavedEffects::from_nbt(&odd),
            SavedEffects(vec![]),
            "levitation: left out"
        );
    }
}
