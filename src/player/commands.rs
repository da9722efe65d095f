//! Operator commands about players: `list`, `tp`, `damage`, `kill`, `give`, `clear`,
//! `gamemode`, `effect`.

use valence::prelude::*;

use super::effects::{self, Active, Effect};
use super::{Health, Kills};
use crate::common::body::RespawnPoint;
use crate::common::events::DropItem;
use crate::common::events::{DamageCause, DamagePlayer};
use crate::common::stacks::{insert, new_stack, ItemRecord};
use crate::config::Config;

/// `list`: who is online and how many zombies each has slain.
pub fn list(world: &mut World) -> String {
    let mut players: Vec<(String, u32)> = world
        .query_filtered::<(&Username, Option<&Kills>), With<Client>>()
        .iter(world)
        .map(|(n, k)| (n.0.clone(), k.map_or(0, |k| k.0)))
        .collect();
    players.sort();
    let max = world.resource::<Config>().server.max_players;
    let names: Vec<&str> = players.iter().map(|(n, _)| n.as_str()).collect();
    let kills: Vec<String> = players.iter().map(|(n, k)| format!("{n}:{k}")).collect();
    format!(
        "players={} max={max} names={} kills={}",
        players.len(),
        names.join(","),
        kills.join(",")
    )
}

/// `tp`: moves `player` to where `to` puts them from where they stand.
pub fn teleport(world: &mut World, player: &str, to: impl Fn(DVec3) -> DVec3) -> String {
    let Some(entity) = find(world, player) else {
        return no_such_player(player);
    };
    let Some(mut pos) = world.get_mut::<Position>(entity) else {
        return no_such_player(player);
    };
    let target = to(pos.0);
    if !crate::world::in_spawnable_bounds(target) {
        return "error=\"Invalid position for teleport\"".into();
    }
    pos.0 = target;
    format!(
        "teleported={player} x={} y={} z={}",
        target.x, target.y, target.z
    )
}

/// `damage` and `kill`: hurts a player as an operator would.
pub fn hurt(world: &mut World, player: &str, amount: f32, cause: DamageCause) -> String {
    let Some(entity) = find(world, player) else {
        return no_such_player(player);
    };
    world.send_event(DamagePlayer {
        player: entity,
        amount,
        cause,
    });
    let health = world.get::<Health>(entity).map_or(0.0, |h| h.0);
    format!(
        "damaged={player} amount={amount} health={}",
        (health - amount).max(0.0)
    )
}

/// `give`: onto stacks of the item and into free slots, the hotbar first, as vanilla fills
/// them; what does not fit falls at the player's feet. At most a hundred stacks, as vanilla.
pub fn give(world: &mut World, player: &str, item: &str, count: u32) -> String {
    let name = item.strip_prefix("minecraft:").unwrap_or(item);
    let Some(kind) = ItemKind::from_str(name).filter(|k| *k != ItemKind::Air) else {
        return format!("error=\"no item named {item}\"");
    };
    let stack = kind.max_stack().max(1) as u32;
    if count > stack * 100 {
        return format!("error=\"Can't give more than {} of {name}\"", stack * 100);
    }
    let Some(entity) = find(world, player) else {
        return no_such_player(player);
    };
    let Some(feet) = world.get::<Position>(entity).map(|p| p.0) else {
        return no_such_player(player);
    };
    let Some(mut inventory) = world.get_mut::<Inventory>(entity) else {
        return no_such_player(player);
    };
    let mut left_over = Vec::new();
    let mut left = count;
    while left > 0 {
        let here = left.min(stack);
        let rest = insert(&mut inventory, &new_stack(kind, here as u8, None));
        if rest > 0 {
            left_over.push(rest);
        }
        left -= here;
    }
    let dropped: u32 = left_over.iter().map(|&n| n as u32).sum();
    if let Some(mut drops) = world.get_resource_mut::<Events<DropItem>>() {
        for rest in left_over {
            drops.send(DropItem(ItemRecord {
                stack: new_stack(kind, rest, None),
                pos: feet,
                velocity: DVec3::ZERO,
                age: 0,
                pickup_delay: 0,
            }));
        }
    }
    format!("given={name} count={count} to={player} dropped={dropped}")
}

/// `clear`: takes from a player's inventory (its crafting grid, armour and off hand too, as
/// vanilla's) every item, or every `item`, at most `max` of them when told.
pub fn clear(world: &mut World, player: &str, item: Option<&str>, max: Option<u32>) -> String {
    let kind = match item {
        Some(name) => {
            let name = name.strip_prefix("minecraft:").unwrap_or(name);
            match ItemKind::from_str(name) {
                Some(kind) => Some(kind),
                None => return format!("error=\"no item named {name}\""),
            }
        }
        None => None,
    };
    let Some(entity) = find(world, player) else {
        return no_such_player(player);
    };
    let Some(mut inventory) = world.get_mut::<Inventory>(entity) else {
        return no_such_player(player);
    };
    let mut left = max.unwrap_or(u32::MAX);
    let mut cleared = 0;
    // Slot 0 is the crafting result, which follows the grid.
    for slot in 1..inventory.slot_count() {
        let Some(stack) = inventory.slot(slot).cloned() else {
            continue;
        };
        if kind.is_some_and(|k| stack.item != k) || left == 0 {
            continue;
        }
        let taken = (stack.count() as u32).min(left);
        left -= taken;
        cleared += taken;
        let rest = stack.count() - taken as u8;
        inventory.set_slot(slot, (rest > 0).then(|| stack.with_count(rest)));
    }
    if cleared == 0 {
        return format!("error=\"No items were found on player {player}\"");
    }
    format!("cleared={cleared} player={player}")
}

/// `spawnpoint`: where `player` comes back after dying, with or without a bed there (vanilla's
/// forced respawn point); where they stand when `at` is not told.
pub fn set_spawn_point(world: &mut World, player: &str, at: Option<BlockPos>) -> String {
    let Some(entity) = find(world, player) else {
        return no_such_player(player);
    };
    let Some(feet) = world
        .get::<Position>(entity)
        .map(|p| BlockPos::from_pos(p.0))
    else {
        return no_such_player(player);
    };
    let at = at.unwrap_or(feet);
    world
        .entity_mut(entity)
        .insert(RespawnPoint { at, forced: true });
    format!(
        "spawnpoint=true x={} y={} z={} player={player}",
        at.x, at.y, at.z
    )
}

/// `gamemode`.
pub fn set_game_mode(world: &mut World, player: &str, mode: GameMode) -> String {
    let Some(entity) = find(world, player) else {
        return no_such_player(player);
    };
    if let Some(mut current) = world.get_mut::<GameMode>(entity) {
        *current = mode;
    }
    format!("gamemode={mode:?} player={player}").to_lowercase()
}

/// `effect give`: puts `effect` on `player` for `seconds`, unless they have it stronger or
/// longer already (vanilla's "Unable to apply this effect").
pub fn give_effect(
    world: &mut World,
    player: &str,
    effect: &str,
    seconds: u32,
    amplifier: u8,
) -> String {
    let Some(kind) = Effect::from_name(effect) else {
        let known: Vec<&str> = Effect::ALL.iter().map(|e| e.name()).collect();
        return format!(
            "error=\"no effect named {effect}; horde models {}\"",
            known.join(", ")
        );
    };
    let Some(entity) = find(world, player) else {
        return no_such_player(player);
    };
    let active = Active {
        effect: kind,
        amplifier,
        duration: seconds.saturating_mul(20),
    };
    if !effects::apply(&mut world.entity_mut(entity), active) {
        return "error=\"Unable to apply this effect (target is either immune to effects, or has something stronger)\"".into();
    }
    format!(
        "effect={} player={player} seconds={seconds} amplifier={amplifier}",
        kind.name()
    )
}

/// `effect clear`: takes every effect off `player`.
pub fn clear_effects(world: &mut World, player: &str) -> String {
    let Some(entity) = find(world, player) else {
        return no_such_player(player);
    };
    let gone = effects::remove_all(&mut world.entity_mut(entity));
    format!("cleared={gone} player={player}")
}

use crate::common::body::player_named as find;

fn no_such_player(name: &str) -> String {
    format!("error=\"no player named {name} is online\"")
}
