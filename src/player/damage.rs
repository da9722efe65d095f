//! What hurts a player and how much it takes, as vanilla 1.20.1's `LivingEntity.hurt` and
//! `Player.actuallyHurt` rule it: spawn protection keeps mobs off a player who just arrived; a
//! mob's blow scales with the difficulty; a blow within 10 ticks of the last deals only what it
//! has over it (the invulnerability frames that make every "per tick" hazard land twice a
//! second); armour takes its share of what it may stop, and wears; the blow tires the player
//! (exhaustion); the client sees the hurt effect; at no health left the player dies with
//! vanilla's death message.

use bevy_ecs::system::SystemParam;
use valence::entity::EntityId;
use valence::layer::Layer;
use valence::log::info;
use valence::prelude::*;
use valence::protocol::packets::play::EntityDamageS2c;
use valence::protocol::{VarInt, WritePacket};

use super::armour;
use super::hunger::Exhaust;
use super::{Health, SpawnProtection};
use crate::combat::HurtFrames;
use crate::common::body::Dead;
use crate::common::events::{DamageCause, DamagePlayer};
use crate::config::{Config, Difficulty};
use crate::world::Overworld;

/// A mob's blow as the difficulty scales it against a player (`DamageSource.scalesWithDifficulty`:
/// Easy `min(d / 2 + 1, d)`, Normal `d`, Hard `1.5 d`).
pub fn scaled(amount: f32, difficulty: Difficulty) -> f32 {
    match difficulty {
        Difficulty::Easy => (amount / 2.0 + 1.0).min(amount),
        Difficulty::Normal => amount,
        Difficulty::Hard => amount * 1.5,
    }
}

/// The last blow a player took: its hurt frames, and whether a zombie struck it lately.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct LastBlow {
    frames: HurtFrames,
    /// The tick until which a zombie's blow still makes a death "whilst trying to escape".
    by_zombie_until: u64,
}

/// Ticks after a zombie's blow in which a death is credited to it (vanilla's 100).
const CREDIT_TICKS: u64 = 100;

/// What a blow costs beyond health: the exhaustion, the armour's wear.
#[derive(SystemParam)]
pub(super) struct Tolls<'w> {
    exhaust: EventWriter<'w, Exhaust>,
    wear: EventWriter<'w, super::wear::WearItem>,
}

pub(super) fn apply_damage(
    mut commands: Commands,
    mut events: EventReader<DamagePlayer>,
    mut players: Query<
        (
            &mut Client,
            &mut Health,
            &mut LastBlow,
            &Inventory,
            &EntityId,
            &Position,
            &Username,
            &GameMode,
            Option<&SpawnProtection>,
        ),
        Without<Dead>,
    >,
    mut layers: Query<&mut EntityLayer, With<Overworld>>,
    mut tolls: Tolls,
    config: Res<Config>,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    for event in events.iter() {
        let Ok((mut client, mut health, mut last, inventory, id, pos, name, mode, protection)) =
            players.get_mut(event.player)
        else {
            continue;
        };
        // Creative and spectator players are hurt only by the void and by operators.
        let invulnerable = matches!(mode, GameMode::Creative | GameMode::Spectator)
            && !event.cause.ignores_frames()
            && event.cause != DamageCause::Void;
        if health.0 <= 0.0
            || invulnerable
            || protection.is_some_and(|p| p.shields(event.cause, now))
        {
            continue;
        }
        let mut amount = event.amount;
        if let DamageCause::Mob(_) = event.cause {
            amount = scaled(amount, config.server.difficulty);
            last.by_zombie_until = now + CREDIT_TICKS;
        }
        if !event.cause.ignores_frames() {
            amount = last.frames.take(amount, now);
        }
        if amount <= 0.0 {
            continue;
        }
        if !event.cause.bypasses_armour() {
            let (points, toughness) = armour::worn(inventory);
            let wear = armour::wear(amount);
            super::wear::wear_armour(event.player, inventory, wear, &mut tolls.wear);
            amount = armour::after_armour(amount, points, toughness);
        }
        tolls.exhaust.send(Exhaust {
            player: event.player,
            amount: event.cause.exhaustion(),
        });
        health.0 = (health.0 - amount).max(0.0);
        let source = match event.cause {
            DamageCause::Mob(attacker) => attacker + 1,
            _ => 0,
        };
        let hurt = |entity_id: i32| EntityDamageS2c {
            entity_id: VarInt(entity_id),
            source_type_id: VarInt(event.cause.type_id()),
            source_cause_id: VarInt(source),
            source_direct_id: VarInt(source),
            source_pos: None,
        };
        // The client knows its own entity as id 0; everyone else sees the real id. The damage
        // event plays the hurt sound and tilt on each client.
        client.write_packet(&hurt(0));
        if let Ok(mut layer) = layers.get_single_mut() {
            layer
                .view_except_writer(ChunkPos::from_pos(pos.0), event.player)
                .write_packet(&hurt(id.get()));
        }
        if health.0 <= 0.0 {
            let message = event
                .cause
                .death_message(&name.0, now < last.by_zombie_until);
            info!("{message}");
            // Everyone reads it in chat, as vanilla's `showDeathMessages`.
            if let Ok(mut layer) = layers.get_single_mut() {
                layer.send_chat_message(message.clone());
            }
            client.kill(message);
            commands.entity(event.player).insert(Dead);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn difficulty_scales_a_mobs_blow_as_vanilla() {
        // A zombie's 3: Easy 2.5, Normal 3, Hard 4.5 (minecraft.wiki, Zombie).
        assert_eq!(scaled(3.0, Difficulty::Easy), 2.5);
        assert_eq!(scaled(3.0, Difficulty::Normal), 3.0);
        assert_eq!(scaled(3.0, Difficulty::Hard), 4.5);
        assert_eq!(
            scaled(1.0, Difficulty::Easy),
            1.0,
            "never more than the blow"
        );
    }

    #[test]
    fn armour_stops_blows_and_lava_not_falls_and_drowning() {
        assert!(!DamageCause::Mob(3).bypasses_armour());
        assert!(!DamageCause::Lava.bypasses_armour());
        for cause in [
            DamageCause::Fall(10.0),
            DamageCause::Drown,
            DamageCause::OnFire,
            DamageCause::Void,
            DamageCause::Starve,
        ] {
            assert!(cause.bypasses_armour(), "{cause:?}");
        }
    }

    #[test]
    fn death_messages_are_vanillas() {
        assert_eq!(
            DamageCause::Fall(4.0).death_message("Alex", false),
            "Alex hit the ground too hard"
        );
        assert_eq!(
            DamageCause::Fall(12.0).death_message("Alex", false),
            "Alex fell from a high place"
        );
        assert_eq!(
            DamageCause::Drown.death_message("Alex", true),
            "Alex drowned whilst trying to escape Zombie"
        );
        assert_eq!(
            DamageCause::Mob(1).death_message("Alex", true),
            "Alex was slain by Zombie"
        );
        assert_eq!(
            DamageCause::Lava.death_message("Alex", false),
            "Alex tried to swim in lava"
        );
    }
}
