//! A player's attack charge, as vanilla 1.20.1's `attackStrengthTicker`: it recharges from each
//! blow and from each change of the item in hand, at the item's attack speed. When the player
//! strikes, what the blow was worth (the charge, and whether the player was falling or
//! sprinting) is noted for whoever was struck to read the same tick.

use valence::entity::entity::Flags;
use valence::entity::OnGround;
use valence::inventory::HeldItem;
use valence::prelude::*;

use super::hazards::Exposure;
use crate::combat::{strength, weapon, Stance};

/// A player's attack charge.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct Charge {
    /// The tick the charge last started over.
    since: u64,
    /// The item in hand then.
    held: Option<ItemKind>,
    /// The last blow struck: its tick, how charged it was, and the player's stance.
    pub struck: Option<(u64, f32, Stance)>,
}

impl Charge {
    /// The blow struck at tick `now`, if the player struck one.
    pub fn blow_at(&self, now: u64) -> Option<(f32, Stance)> {
        self.struck
            .filter(|(at, ..)| *at == now)
            .map(|(_, strength, stance)| (strength, stance))
    }
}

/// The item in a player's main hand.
pub fn in_hand(inventory: &Inventory, held: &HeldItem) -> ItemKind {
    inventory
        .slot(held.slot())
        .map_or(ItemKind::Air, |stack| stack.item)
}

/// A new item in hand starts the charge over (`Player.tick`); a blow is noted with its charge
/// and starts it over too (`Player.attack`).
pub(super) fn charge_blows(
    mut strikes: EventReader<InteractEntityEvent>,
    mut players: Query<(
        &mut Charge,
        &Inventory,
        &HeldItem,
        &Exposure,
        &OnGround,
        &Flags,
    )>,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    for (mut charge, inventory, held, ..) in &mut players {
        let item = in_hand(inventory, held);
        if charge.held != Some(item) {
            charge.since = now;
            charge.held = Some(item);
        }
    }
    for strike in strikes.iter() {
        if strike.interact != EntityInteraction::Attack {
            continue;
        }
        let Ok((mut charge, _, _, exposure, on_ground, flags)) = players.get_mut(strike.client)
        else {
            continue;
        };
        if charge.struck.is_some_and(|(at, ..)| at == now) {
            continue; // One blow a tick; the first is the one that counts.
        }
        let speed = weapon(charge.held.unwrap_or(ItemKind::Air)).1;
        let stance = Stance {
            falling: exposure.fall,
            on_ground: on_ground.0,
            sprinting: flags.sprinting(),
        };
        charge.struck = Some((now, strength(now - charge.since, speed), stance));
        charge.since = now;
    }
}
