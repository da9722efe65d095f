//! What the server tells those who are not playing: the multiplayer list's answer (MOTD,
//! icon, player count and sample, as vanilla's `ServerStatus`) and vanilla's query protocol
//! ([`query`]). Both read one [`Listing`] that the tick keeps current as players come and go
//! and as `reload` changes the MOTD.

pub mod icon;
pub mod query;

use std::sync::{Arc, RwLock};

use prometheus_client::metrics::gauge::Gauge;
use rand::seq::SliceRandom;
use valence::network::{PlayerSampleEntry, ServerListPing};
use valence::prelude::*;
use valence::{MINECRAFT_VERSION, PROTOCOL_VERSION};

use crate::config::{Config, ConfigChanged};

/// Players named in the server list's sample, as vanilla's `MAX_PLAYERS_IN_STATUS`.
const SAMPLE_SIZE: usize = 12;

pub struct StatusPlugin {
    pub listing: Arc<Listing>,
}

impl Plugin for StatusPlugin {
    fn build(&self, app: &mut App) {
        let online = Gauge::default();
        crate::metrics::register(
            app,
            "horde_players_online",
            "Players online",
            online.clone(),
        );
        app.insert_resource(Shared(self.listing.clone(), online))
            .add_systems(
                Update,
                (
                    follow_config.in_set(crate::schedule::TickSet::Config),
                    follow_players.in_set(crate::schedule::TickSet::Players),
                ),
            );
    }
}

/// The listing, and the players-online gauge kept with it.
#[derive(Resource)]
struct Shared(Arc<Listing>, Gauge);

/// What the server list and the query show, shared with the network threads.
#[derive(Debug, Default)]
pub struct Listing {
    shown: RwLock<Shown>,
    /// `server-icon.png`, checked, or empty.
    icon: Vec<u8>,
}

/// The part that changes while the server runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shown {
    pub motd: String,
    pub hide_players: bool,
    pub max_players: u32,
    /// The world folder's name (the query's `map`).
    pub world: String,
    /// Online players' names and UUIDs, in the order they joined.
    pub players: Vec<(String, uuid::Uuid)>,
}

impl Listing {
    /// The listing of a server on the world folder named `world`.
    pub fn new(config: &Config, world: String, icon: Vec<u8>) -> Self {
        Self {
            shown: RwLock::new(Shown {
                motd: config.server.motd.clone(),
                hide_players: config.server.hide_online_players,
                max_players: config.server.max_players,
                world,
                players: Vec::new(),
            }),
            icon,
        }
    }

    pub fn shown(&self) -> Shown {
        self.shown.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn update(&self, change: impl FnOnce(&mut Shown)) {
        change(&mut self.shown.write().unwrap_or_else(|p| p.into_inner()));
    }

    /// The answer to a client's server list ping (`ServerStatus`): the MOTD as a literal whose
    /// `§` codes the client renders, the icon, the count, and up to twelve players at random
    /// unless they are hidden.
    pub fn ping(&self) -> ServerListPing<'_> {
        let shown = self.shown();
        let player_sample = if shown.hide_players {
            Vec::new()
        } else {
            let mut sample: Vec<PlayerSampleEntry> = shown
                .players
                .iter()
                .map(|(name, id)| PlayerSampleEntry {
                    name: name.clone(),
                    id: *id,
                })
                .collect();
            sample.shuffle(&mut rand::thread_rng());
            sample.truncate(SAMPLE_SIZE);
            sample
        };
        ServerListPing::Respond {
            online_players: shown.players.len() as i32,
            max_players: shown.max_players as i32,
            player_sample,
            description: Text::text(shown.motd),
            favicon_png: &self.icon,
            version_name: MINECRAFT_VERSION.to_owned(),
            protocol: PROTOCOL_VERSION,
        }
    }
}

/// A reload that changes the MOTD or hides the players shows at the next ping.
fn follow_config(
    mut changes: EventReader<ConfigChanged>,
    config: Res<Config>,
    shared: Res<Shared>,
) {
    let touched = changes
        .iter()
        .any(|c| c.touches("server.motd") || c.touches("server.hide_online_players"));
    if touched {
        shared.0.update(|shown| {
            shown.motd = config.server.motd.clone();
            shown.hide_players = config.server.hide_online_players;
        });
    }
}

/// The list of online players, rebuilt when someone joins or leaves.
fn follow_players(
    joined: Query<(), Added<Client>>,
    mut left: RemovedComponents<Client>,
    players: Query<(&Username, &UniqueId), With<Client>>,
    shared: Res<Shared>,
) {
    let anyone_left = left.iter().count() > 0;
    if joined.is_empty() && !anyone_left {
        return;
    }
    let names: Vec<_> = players
        .iter()
        .map(|(name, id)| (name.0.clone(), id.0))
        .collect();
    shared.1.set(names.len() as i64);
    shared.0.update(|shown| shown.players = names);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(players: usize, hide: bool) -> Listing {
        let mut config = Config::default();
        config.server.hide_online_players = hide;
        let listing = Listing::new(&config, "world".into(), vec![1, 2, 3]);
        listing.update(|shown| {
            shown.players = (0..players)
                .map(|i| (format!("p{i}"), uuid::Uuid::from_u128(i as u128)))
                .collect();
        });
        listing
    }

    #[test]
    fn the_sample_names_at_most_twelve_online_players_and_none_when_hidden() {
        let crowd = listing(30, false);
        let ServerListPing::Respond {
            online_players,
            max_players,
            player_sample,
            description,
            favicon_png,
            ..
        } = crowd.ping()
        else {
            panic!("a ping is answered");
        };
        assert_eq!((online_players, max_players), (30, 20));
        assert_eq!(player_sample.len(), SAMPLE_SIZE);
        assert!(player_sample.iter().all(|p| p.name.starts_with('p')));
        assert_eq!(description, Text::text("A horde server"));
        assert_eq!(favicon_png, [1, 2, 3]);
        let hidden = listing(3, true);
        let ServerListPing::Respond {
            online_players,
            player_sample,
            ..
        } = hidden.ping()
        else {
            panic!("a ping is answered");
        };
        assert_eq!((online_players, player_sample.len()), (3, 0));
    }
}
