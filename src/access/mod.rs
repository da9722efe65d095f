//! Who may join and what they may do: vanilla's whitelist, bans, operators and kicks, kept in
//! vanilla's files in the server folder, checked at login (after authentication or the proxy's
//! forwarding, so the names and UUIDs are the real ones), and an [`Operator`] marker on online
//! operators that spawn protection asks about.

pub mod commands;
pub mod lists;
pub mod offline;
pub mod proxy;

use std::path::PathBuf;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use bevy_ecs::event::ManualEventReader;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use time::OffsetDateTime;
use valence::log::{info, warn};
use valence::network::{
    async_trait, CleanupFn, HandshakeData, NetworkCallbacks, NewClientInfo, ServerListPing,
    SharedNetworkState,
};
use valence::prelude::*;
use valence::protocol::packets::play::DisconnectS2c;
use valence::protocol::WritePacket;

use crate::config::{Config, ConfigChanged, ConnectionModeSetting};
use crate::metrics::Label;
use crate::status::Listing;
use lists::{AccessLists, ListFile};

pub struct AccessPlugin;

impl Plugin for AccessPlugin {
    fn build(&self, app: &mut App) {
        let refused = app.world.resource::<Access>().refused.clone();
        for reason in ["banned", "ip_banned", "not_whitelisted", "full"] {
            drop(refused.get_or_create(&[("reason", reason)]));
        }
        crate::metrics::register(
            app,
            "horde_login_refusals",
            "Logins refused, by reason: banned, ip_banned, not_whitelisted, full",
            refused,
        );
        let server = &app.world.resource::<Config>().server;
        if server.connection_mode == ConnectionModeSetting::Direct && !server.online_mode {
            app.world.resource::<Access>().adopt_vanilla_offline_uuids();
        }
        app.add_systems(
            Update,
            (
                follow_reloads.in_set(crate::schedule::TickSet::Config),
                (mark_operators, disconnect_kicked).in_set(crate::schedule::TickSet::Players),
            ),
        );
    }
}

/// A player told they are kicked at tick `at`; disconnected the tick after.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kicked {
    pub at: i64,
}

/// Tells a client why it is disconnected, at tick `now`; the [`Kicked`] returned, put on its
/// entity, closes the connection next tick, once the message has gone out.
pub fn disconnect(client: &mut Client, reason: Text, now: i64) -> Kicked {
    client.write_packet(&DisconnectS2c {
        reason: reason.into(),
    });
    Kicked { at: now }
}

/// Closes kicked players' connections once their message has been sent: dropping the client
/// is a disconnect to the rest of the server (their data is saved as on leaving).
fn disconnect_kicked(
    mut commands: Commands,
    kicked: Query<(Entity, &Kicked), With<Client>>,
    server: Res<Server>,
) {
    for (entity, k) in &kicked {
        if k.at < server.current_tick() {
            commands.entity(entity).remove::<Client>();
        }
    }
}

/// An online operator: passes spawn protection.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operator;

/// The lists in force, shared with the login check, and the folder their files are in.
#[derive(Resource, Clone, Debug)]
pub struct Access {
    lists: Arc<RwLock<AccessLists>>,
    dir: PathBuf,
    refused: Family<Label, Counter>,
}

impl Access {
    /// Reads the lists in `dir` (the server folder); a malformed file stops the server.
    pub fn load(dir: PathBuf, whitelist_on: bool) -> anyhow::Result<Self> {
        let lists = AccessLists::load(&dir, whitelist_on)?;
        Ok(Self {
            lists: Arc::new(RwLock::new(lists)),
            dir,
            refused: Family::default(),
        })
    }

    pub fn read(&self) -> RwLockReadGuard<'_, AccessLists> {
        self.lists.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, AccessLists> {
        self.lists.write().unwrap_or_else(|p| p.into_inner())
    }

    /// For unauthenticated players: list entries an older horde gave Valence's offline UUIDs
    /// take vanilla's, once, with a log line; their files are written again.
    fn adopt_vanilla_offline_uuids(&self) {
        let (files, entries) = self.write().adopt_vanilla_offline_uuids();
        for &file in &files {
            if let Err(e) = self.save(file) {
                warn!(
                    "cannot write {} with vanilla's offline UUIDs: {e}",
                    file.name()
                );
            }
        }
        if entries > 0 {
            let names: Vec<&str> = files.iter().map(|f| f.name()).collect();
            info!(
                "{}: players without accounts listed under horde's old UUIDs now have vanilla's \
                 offline UUIDs (entries changed: {entries})",
                names.join(", ")
            );
        }
    }

    /// Writes one list's file, reporting a failure in one line.
    fn save(&self, file: ListFile) -> Result<(), String> {
        self.read()
            .save(&self.dir, file)
            .map_err(|e| format!("{e:#}"))
    }

    /// The check run for every login; `listing` answers the server list.
    pub fn gate(&self, listing: Arc<Listing>) -> Gate {
        Gate {
            access: self.clone(),
            listing,
        }
    }
}

/// Valence's callbacks: at login, refuses who the lists refuse, with vanilla's message, and
/// counts players against `max_players` as Valence's own does; a server list ping is
/// answered from the [`Listing`].
pub struct Gate {
    access: Access,
    listing: Arc<Listing>,
}

#[async_trait]
impl NetworkCallbacks for Gate {
    async fn server_list_ping(
        &self,
        _shared: &SharedNetworkState,
        _remote_addr: std::net::SocketAddr,
        _handshake_data: &HandshakeData,
    ) -> ServerListPing {
        self.listing.ping()
    }

    async fn login(
        &self,
        shared: &SharedNetworkState,
        info: &NewClientInfo,
    ) -> Result<CleanupFn, Text> {
        let count = shared.player_count();
        let now = OffsetDateTime::now_utc();
        let verdict = self
            .access
            .write()
            .admit(&info.username, info.uuid, info.ip, now);
        // The place is taken in one step, so two logins at once cannot both take the last.
        let verdict = verdict.and_then(|bypasses| {
            let max = shared.max_players();
            count
                .fetch_update(
                    std::sync::atomic::Ordering::SeqCst,
                    std::sync::atomic::Ordering::SeqCst,
                    |n| (n < max || bypasses).then_some(n + 1),
                )
                .map_err(|_| lists::Refusal::Full)
        });
        if let Err(refusal) = verdict {
            self.access
                .refused
                .get_or_create(&[("reason", refusal.reason())])
                .inc();
            if let lists::Refusal::Banned(_) = refusal {
                // The ban may have learnt the UUID it matched by name.
                if let Err(e) = self.access.save(ListFile::BannedPlayers) {
                    warn!("{e}");
                }
            }
            info!(
                "{} ({}) was refused: {}",
                info.username,
                info.ip,
                refusal.message().replace('\n', " ")
            );
            return Err(refusal.message().into_text());
        }
        let learned = self.access.write().learn_uuid(&info.username, info.uuid);
        for file in learned {
            if let Err(e) = self.access.save(file) {
                warn!("{e}");
            }
        }
        let shared = shared.clone();
        Ok(Box::new(move || {
            shared
                .player_count()
                .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        }))
    }
}

/// Operators who join are marked as such; a player banned while their login was under way
/// (between the check and the join) is turned away now.
fn mark_operators(
    mut commands: Commands,
    mut joined: Query<(Entity, &mut Client, &Username, &UniqueId, &Ip), Added<Client>>,
    access: Res<Access>,
    server: Res<Server>,
) {
    let lists = access.read();
    for (entity, mut client, name, id, ip) in &mut joined {
        let banned = if lists
            .banned_players
            .iter()
            .any(|b| b.profile.matches(&name.0, id.0))
        {
            Some("You are banned from this server.")
        } else if lists.banned_ips.iter().any(|b| b.ip == ip.0) {
            Some("You have been IP banned from this server.")
        } else {
            None
        };
        if let Some(message) = banned {
            let kicked = disconnect(&mut client, message.into(), server.current_tick());
            commands.entity(entity).insert(kicked);
        } else if lists.is_op(&name.0, id.0) {
            commands.entity(entity).insert(Operator);
        }
    }
}

/// A reload that changes `server.whitelist` or `server.enforce_whitelist` takes effect now.
fn follow_reloads(world: &mut World, mut reader: Local<ManualEventReader<ConfigChanged>>) {
    let touched = reader
        .iter(world.resource::<Events<ConfigChanged>>())
        .any(|c| c.touches("server.whitelist") || c.touches("server.enforce_whitelist"));
    if touched {
        let on = world.resource::<Config>().server.whitelist;
        world.resource::<Access>().write().whitelist_on = on;
        commands::enforce_whitelist(world);
    }
}
