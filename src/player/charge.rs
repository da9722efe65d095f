//! A player's attack charge, as vanilla 1.20.1's `attackStrengthTicker`: it recharges from each
//! blow and from each change of the item in hand, at the item's attack speed.

use valence::inventory::HeldItem;
use valence::prelude::*;

use crate::combat::{strength, weapon};

/// A player's attack charge.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct Charge {
    /// The tick the charge last started over.
    since: u64,
    /// The item in hand then.
    held: Option<ItemKind>,
}

impl Charge {
    /// A blow struck at tick `now`: how charged it was (`Player.getAttackStrengthScale(0.5)`),
    /// and the charge starts over (`Player.attack`), so a second blow the same tick is weak.
    pub fn strike(&mut self, now: u64) -> f32 {
        let speed = weapon(self.held.unwrap_or(ItemKind::Air)).1;
        let charged = strength(now.saturating_sub(self.since), speed);
        self.since = now;
        charged
    }
}

/// The item in a player's main hand.
pub fn in_hand(inventory: &Inventory, held: &HeldItem) -> ItemKind {
    inventory
        .slot(held.slot())
        .map_or(ItemKind::Air, |stack| stack.item)
}

/// A new item in hand starts the charge over (`Player.tick`).
pub(super) fn recharge_on_switch(
    mut players: Query<(&mut Charge, &Inventory, &HeldItem)>,
    server: Res<Server>,
) {
    let now = server.current_tick() as u64;
    for (mut charge, inventory, held) in &mut players {
        let item = in_hand(inventory, held);
        if charge.held != Some(item) {
            charge.since = now;
            charge.held = Some(item);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_blow_the_same_tick_is_weak() {
        let mut charge = Charge {
            since: 0,
            held: Some(ItemKind::IronSword),
        };
        assert_eq!(charge.strike(100), 1.0, "long charged");
        // Half a tick of a sword's 12.5.
        assert!((charge.strike(100) - 0.04).abs() < 1e-6, "none left");
    }
}
