//! The zombie types, under indices that never change while the server runs.
//!
//! Zombies and ghost pack members refer to their type by index, so the table only grows: a
//! `reload` updates a type's stats by name and adds new types at the end. A type removed from
//! `config.toml` stays, retired, for the zombies that have it: they keep its name and last
//! stats (and are saved under that name), while new zombies can no longer be given it.

use valence::prelude::*;

use crate::config::{Config, ConfigChanged, ZombieType};

/// The zombie types by stable index.
#[derive(Resource, Debug, Clone)]
pub struct ZombieKinds {
    types: Vec<ZombieType>,
    /// Types no longer in `config.toml`.
    retired: Vec<bool>,
}

impl ZombieKinds {
    pub fn new(types: &[ZombieType]) -> Self {
        Self {
            types: types.to_vec(),
            retired: vec![false; types.len()],
        }
    }

    /// The type at `kind`, an index this table handed out.
    pub fn get(&self, kind: usize) -> &ZombieType {
        &self.types[kind]
    }

    /// The configured type called `name` (ASCII case ignored).
    pub fn find(&self, name: &str) -> Option<usize> {
        self.types
            .iter()
            .zip(&self.retired)
            .position(|(t, retired)| !retired && t.name.eq_ignore_ascii_case(name))
    }

    /// The configured types' names, in table order.
    pub fn names(&self) -> Vec<&str> {
        self.types
            .iter()
            .zip(&self.retired)
            .filter(|(_, retired)| !**retired)
            .map(|(t, _)| t.name.as_str())
            .collect()
    }

    /// Takes in a reloaded list of types: same names keep their index with new stats, new
    /// names are added, missing ones retire. Returns the names retired now.
    pub fn update(&mut self, types: &[ZombieType]) -> Vec<String> {
        for t in types {
            match self.types.iter().position(|k| k.name == t.name) {
                Some(i) => {
                    self.types[i] = t.clone();
                    self.retired[i] = false;
                }
                None => {
                    self.types.push(t.clone());
                    self.retired.push(false);
                }
            }
        }
        let mut gone = Vec::new();
        for (kind, retired) in self.types.iter().zip(self.retired.iter_mut()) {
            if !*retired && !types.iter().any(|t| t.name == kind.name) {
                *retired = true;
                gone.push(kind.name.clone());
            }
        }
        gone
    }

    /// The type called exactly `name`, configured or retired.
    pub fn named(&self, name: &str) -> Option<usize> {
        self.types.iter().position(|t| t.name == name)
    }

    /// Adds a retired type `name` with the stats of type `like`: for zombies saved with a type
    /// that is no longer configured, so that they keep their type's name.
    pub fn add_retired(&mut self, name: &str, like: usize) -> usize {
        self.types.push(ZombieType {
            name: name.to_string(),
            ..self.types[like].clone()
        });
        self.retired.push(true);
        self.types.len() - 1
    }
}

/// After a `reload`: new stats for the types, retirement for those removed.
pub(super) fn reload_kinds(
    mut changed: EventReader<ConfigChanged>,
    mut kinds: ResMut<ZombieKinds>,
    config: Res<Config>,
) {
    if !changed.iter().any(|c| c.touches("zombies.types")) {
        return;
    }
    for name in kinds.update(&config.zombies.types) {
        valence::log::warn!(
            "zombie type {name} was removed from config.toml: zombies that have it keep it, new ones cannot get it"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ZombiesConfig;

    #[test]
    fn indices_survive_reordering_and_removal() {
        let types = ZombiesConfig::default().types;
        let mut kinds = ZombieKinds::new(&types);
        let fast = kinds.find("fast_zombie").unwrap();
        let slow = kinds.find("slow_zombie").unwrap();
        let mut reloaded: Vec<ZombieType> = types.iter().rev().cloned().collect();
        reloaded.retain(|t| t.name != "slow_zombie");
        reloaded[0].health = 999.0;
        reloaded.push(ZombieType {
            name: "brute".into(),
            ..types[0].clone()
        });
        assert_eq!(kinds.update(&reloaded), ["slow_zombie"]);
        assert_eq!(kinds.get(fast).name, "fast_zombie", "same index, same type");
        assert_eq!(kinds.get(slow).name, "slow_zombie", "retired, name kept");
        assert_eq!(kinds.find("slow_zombie"), None, "not for new zombies");
        assert_eq!(
            kinds
                .get(kinds.find("victorious_zomdiator").unwrap())
                .health,
            999.0
        );
        assert!(kinds.names().contains(&"brute"));
        assert_eq!(kinds.named("slow_zombie"), Some(slow));
        let ghost = kinds.add_retired("gone_type", 0);
        assert_eq!(kinds.get(ghost).name, "gone_type");
        assert_eq!(kinds.find("gone_type"), None);
    }
}
