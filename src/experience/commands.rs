//! `xp` (`experience`): operators add to, set and ask a player's experience, in points or in
//! levels, as vanilla's `ExperienceCommand`.

use valence::prelude::*;

use super::Experience;

/// What `xp` counts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Points,
    Levels,
}

impl Unit {
    pub fn name(self) -> &'static str {
        match self {
            Unit::Points => "points",
            Unit::Levels => "levels",
        }
    }
}

/// The experience of the player named `player` (as vanilla, in any case).
fn experience_of<'w>(world: &'w mut World, player: &str) -> Option<Mut<'w, Experience>> {
    let entity = crate::common::body::player_named(world, player)?;
    world.get_mut::<Experience>(entity)
}

fn no_such_player(player: &str) -> String {
    format!("error=\"no player named {player} is online\"")
}

/// `xp add`: `amount` more (or fewer) points or levels.
pub fn add(world: &mut World, player: &str, amount: i32, unit: Unit) -> String {
    let Some(mut experience) = experience_of(world, player) else {
        return no_such_player(player);
    };
    match unit {
        Unit::Points => experience.0.give_points(amount),
        Unit::Levels => experience.0.give_levels(amount),
    }
    format!(
        "added={amount} unit={} player={player} level={}",
        unit.name(),
        experience.0.level
    )
}

/// `xp set`: the level, or the points into the current level (fewer than it takes).
pub fn set(world: &mut World, player: &str, amount: i32, unit: Unit) -> String {
    let Some(mut experience) = experience_of(world, player) else {
        return no_such_player(player);
    };
    let Ok(amount) = u32::try_from(amount) else {
        return "error=\"Integer must not be less than 0\"".into();
    };
    match unit {
        Unit::Points => {
            if !experience.0.set_points(amount) {
                return "error=\"Cannot set experience points above the maximum points for the player's current level\"".into();
            }
        }
        Unit::Levels => experience.0.level = amount.min(super::rules::MAX_LEVEL),
    }
    format!("set={amount} unit={} player={player}", unit.name())
}

/// `xp query`: the player's level, or their points into it.
pub fn query(world: &mut World, player: &str, unit: Unit) -> String {
    let Some(experience) = experience_of(world, player) else {
        return no_such_player(player);
    };
    let amount = match unit {
        Unit::Points => experience.0.points(),
        Unit::Levels => experience.0.level,
    };
    format!("has={amount} unit={} player={player}", unit.name())
}
