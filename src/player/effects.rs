//! Status effects a player can have, as vanilla's `MobEffectInstance`: given by the operator's
//! `effect` command for now, shown to the player's client (which applies the ones that change
//! its own movement), ending when their time runs out or at death. horde models the effects
//! its rules read: slow falling, under which a fall does not count (`LivingEntity.travel`).

use bevy_ecs::query::Has;
use valence::prelude::*;
use valence::protocol::packets::play::entity_status_effect_s2c::Flags;
use valence::protocol::packets::play::{EntityStatusEffectS2c, RemoveEntityStatusEffectS2c};
use valence::protocol::{VarInt, WritePacket};

use crate::common::body::Dead;

/// The effects horde models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    SlowFalling,
}

impl Effect {
    pub const ALL: [Effect; 1] = [Effect::SlowFalling];

    /// The effect's id on the wire and in saves (`MobEffects`, 1.20.1's registry).
    pub fn id(self) -> i32 {
        match self {
            Effect::SlowFalling => 28,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Effect::SlowFalling => "slow_falling",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        let name = name.strip_prefix("minecraft:").unwrap_or(name);
        Self::ALL.into_iter().find(|e| e.name() == name)
    }
}

/// One effect on a player, until tick `until`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Active {
    pub effect: Effect,
    pub amplifier: u8,
    pub until: u64,
}

/// A player's effects.
#[derive(Component, Debug, Clone, Default, PartialEq, Eq)]
pub struct Effects(Vec<Active>);

impl Effects {
    pub fn has(&self, effect: Effect) -> bool {
        self.0.iter().any(|a| a.effect == effect)
    }

    /// Puts `active` on, replacing the same effect if it is stronger or lasts longer, as
    /// vanilla's `MobEffectInstance.update`. Returns whether anything changed.
    pub fn give(&mut self, active: Active) -> bool {
        match self.0.iter_mut().find(|a| a.effect == active.effect) {
            Some(old) if old.amplifier > active.amplifier => false,
            Some(old) if old.amplifier == active.amplifier && old.until >= active.until => false,
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

    /// Takes off what has run out by `now`, returning it.
    fn expire(&mut self, now: u64) -> Vec<Effect> {
        let (gone, kept) = self.0.iter().partition(|a| a.until <= now);
        self.0 = kept;
        gone.into_iter().map(|a: Active| a.effect).collect()
    }

    /// Takes every effect off, returning them.
    pub fn clear(&mut self) -> Vec<Effect> {
        self.0.drain(..).map(|a| a.effect).collect()
    }
}

/// Tells a player's own client of an effect (it knows itself as entity 0).
pub fn show(client: &mut Client, active: Active, now: u64) {
    client.write_packet(&EntityStatusEffectS2c {
        entity_id: VarInt(0),
        effect_id: VarInt(active.effect.id()),
        amplifier: active.amplifier,
        duration: VarInt(active.until.saturating_sub(now).min(i32::MAX as u64) as i32),
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

/// Effects end when their time runs out, and all of them at death.
pub(super) fn expire_effects(
    mut players: Query<(&mut Client, &mut Effects, Has<Dead>)>,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    for (mut client, mut effects, dead) in &mut players {
        if effects.0.is_empty() {
            continue;
        }
        let gone = if dead {
            effects.clear()
        } else {
            effects.expire(now)
        };
        for effect in gone {
            hide(&mut client, effect);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stronger_or_longer_effect_replaces_one_and_time_ends_it() {
        let slow = |amplifier, until| Active {
            effect: Effect::SlowFalling,
            amplifier,
            until,
        };
        let mut effects = Effects::default();
        assert!(effects.give(slow(0, 100)));
        assert!(!effects.give(slow(0, 50)), "shorter: kept");
        assert!(effects.give(slow(0, 200)), "longer: replaced");
        assert!(effects.give(slow(1, 20)), "stronger: replaced");
        assert!(!effects.give(slow(0, 900)), "weaker: kept");
        assert!(effects.has(Effect::SlowFalling));
        assert!(effects.expire(19).is_empty());
        assert_eq!(effects.expire(20), [Effect::SlowFalling]);
        assert!(!effects.has(Effect::SlowFalling));
        assert_eq!(
            Effect::from_name("minecraft:slow_falling"),
            Some(Effect::SlowFalling)
        );
        assert_eq!(Effect::from_name("speed"), None);
    }
}
