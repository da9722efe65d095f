//! `whitelist`, `ban`, `ban-ip`, `pardon`, `pardon-ip`, `banlist`, `kick`, `op` and `deop`, on
//! the console and RCON, as vanilla's. Each answers in one logfmt line and writes the list it
//! changed at once.

use std::net::IpAddr;

use time::OffsetDateTime;
use valence::log::info;
use valence::prelude::*;

use super::lists::{parse_ip, AccessLists, BanInfo, IpBan, ListFile, Op, PlayerBan, Profile};
use super::{Access, Operator};
use crate::config::{Config, ConfigPath};

/// Whoever issues commands from the console or RCON, as vanilla names it in the ban lists.
const SOURCE: &str = "Server";

/// An online player's entity, name, UUID and address.
fn online(world: &mut World, name: &str) -> Option<(Entity, String, Uuid, IpAddr)> {
    world
        .query_filtered::<(Entity, &Username, &UniqueId, &Ip), With<Client>>()
        .iter(world)
        .find(|(_, n, ..)| n.0.eq_ignore_ascii_case(name))
        .map(|(e, n, id, ip)| (e, n.0.clone(), id.0, ip.0))
}

/// The profile a command means by `name`: the online player's; for someone not online, the
/// name alone (matched without regard to case), whose UUID is learnt when they next join or
/// are refused.
fn profile(world: &mut World, name: &str) -> Profile {
    match online(world, name) {
        Some((_, name, uuid, _)) => Profile {
            uuid: Some(uuid),
            name,
        },
        None => Profile {
            uuid: None,
            name: name.into(),
        },
    }
}

/// Shows the client `message` as it is disconnected; the connection closes next tick, once
/// the message has gone out.
fn kick_entity(world: &mut World, entity: Entity, message: &str) {
    let now = world.resource::<Server>().current_tick();
    if let Some(mut client) = world.get_mut::<Client>(entity) {
        let kicked = super::disconnect(&mut client, message.to_owned().into(), now);
        world.entity_mut(entity).insert(kicked);
    }
}

fn saved(access: &Access, file: ListFile, answer: String) -> String {
    match access.save(file) {
        Ok(()) => answer,
        Err(e) => format!("error={e:?}"),
    }
}

/// With the whitelist on and enforced, online players not on it (nor operators) are kicked.
pub fn enforce_whitelist(world: &mut World) -> usize {
    let server = &world.resource::<Config>().server;
    if !(server.whitelist && server.enforce_whitelist) {
        return 0;
    }
    let access = world.resource::<Access>().clone();
    let outsiders: Vec<Entity> = {
        let lists = access.read();
        world
            .query_filtered::<(Entity, &Username, &UniqueId), With<Client>>()
            .iter(world)
            .filter(|(_, n, id)| !lists.is_whitelisted(&n.0, id.0) && !lists.is_op(&n.0, id.0))
            .map(|(e, ..)| e)
            .collect()
    };
    for entity in &outsiders {
        kick_entity(world, *entity, "You are not white-listed on this server!");
    }
    outsiders.len()
}

/// `whitelist on|off`: vanilla keeps the switch in its properties; horde in config.toml's
/// `server.whitelist`, edited in place so the file keeps its comments.
pub fn whitelist_switch(world: &mut World, on: bool) -> String {
    if let Some(path) = world.resource::<ConfigPath>().0.clone() {
        if let Err(e) = crate::config::rules::persist(&path, "server.whitelist", on) {
            return format!("error={:?}", format!("{e:#}"));
        }
    }
    world.resource_mut::<Config>().server.whitelist = on;
    world.resource::<Access>().write().whitelist_on = on;
    info!("whitelist turned {}", if on { "on" } else { "off" });
    let kicked = if on { enforce_whitelist(world) } else { 0 };
    format!("whitelist={on} kicked={kicked}")
}

pub fn whitelist_add(world: &mut World, name: &str) -> String {
    let who = profile(world, name);
    let access = world.resource::<Access>().clone();
    let added = AccessLists::add_profile(&mut access.write().whitelist, who);
    saved(
        &access,
        ListFile::Whitelist,
        format!("whitelisted={name} added={added}"),
    )
}

pub fn whitelist_remove(world: &mut World, name: &str) -> String {
    let access = world.resource::<Access>().clone();
    let removed = AccessLists::remove_named(&mut access.write().whitelist, name, |p| p);
    let answer = saved(
        &access,
        ListFile::Whitelist,
        format!("unwhitelisted={name} removed={removed}"),
    );
    let kicked = enforce_whitelist(world);
    format!("{answer} kicked={kicked}")
}

pub fn whitelist_list(world: &mut World) -> String {
    let access = world.resource::<Access>().clone();
    let lists = access.read();
    let names: Vec<&str> = lists.whitelist.iter().map(|p| p.name.as_str()).collect();
    format!(
        "whitelist={} players={} names={}",
        lists.whitelist_on,
        names.len(),
        names.join(",")
    )
}

/// `whitelist reload`: `whitelist.json` read again after a hand edit.
pub fn whitelist_reload(world: &mut World) -> String {
    let access = world.resource::<Access>().clone();
    let result = access.write().reload(&access.dir, ListFile::Whitelist);
    match result {
        Ok(()) => {
            let kicked = enforce_whitelist(world);
            format!(
                "reloaded=whitelist.json players={} kicked={kicked}",
                access.read().whitelist.len()
            )
        }
        Err(e) => format!("error={:?}", format!("{e:#}")),
    }
}

/// `reload` reads the other lists again too: all of them or, if one is malformed, none.
pub fn reload_lists(world: &mut World) -> String {
    let access = world.resource::<Access>().clone();
    let mut fresh = AccessLists::default();
    for file in [ListFile::Ops, ListFile::BannedPlayers, ListFile::BannedIps] {
        if let Err(e) = fresh.reload(&access.dir, file) {
            return format!("lists_reloaded=false error={:?}", format!("{e:#}"));
        }
    }
    {
        let mut lists = access.write();
        lists.ops = fresh.ops;
        lists.banned_players = fresh.banned_players;
        lists.banned_ips = fresh.banned_ips;
    }
    resync_operators(world);
    "lists_reloaded=true".into()
}

/// Online players' [`Operator`] markers, after the ops list changed.
fn resync_operators(world: &mut World) {
    let access = world.resource::<Access>().clone();
    let players: Vec<(Entity, bool)> = {
        let lists = access.read();
        world
            .query_filtered::<(Entity, &Username, &UniqueId), With<Client>>()
            .iter(world)
            .map(|(e, n, id)| (e, lists.is_op(&n.0, id.0)))
            .collect()
    };
    for (entity, op) in players {
        if op {
            world.entity_mut(entity).insert(Operator);
        } else {
            world.entity_mut(entity).remove::<Operator>();
        }
    }
}

pub fn ban(world: &mut World, name: &str, reason: Option<&str>) -> String {
    let who = profile(world, name);
    let access = world.resource::<Access>().clone();
    let info = BanInfo::new(SOURCE, reason, OffsetDateTime::now_utc());
    let message = format!("You are banned from this server.\nReason: {}", info.reason);
    {
        let mut lists = access.write();
        AccessLists::remove_named(&mut lists.banned_players, name, |b| &b.profile);
        lists.banned_players.push(PlayerBan { profile: who, info });
    }
    let answer = saved(&access, ListFile::BannedPlayers, format!("banned={name}"));
    let kicked = match online(world, name) {
        Some((entity, ..)) => {
            kick_entity(world, entity, &message);
            true
        }
        None => false,
    };
    info!("banned {name}");
    format!("{answer} kicked={kicked}")
}

/// `ban-ip <address|player> [reason]`: kicks everyone online from that address.
pub fn ban_ip(world: &mut World, target: &str, reason: Option<&str>) -> String {
    let ip = match online(world, target) {
        Some((.., ip)) => ip,
        None => match parse_ip(target) {
            Ok(ip) => ip,
            Err(_) => {
                return format!("error=\"{target} is neither an IP address nor a player online\"")
            }
        },
    };
    let access = world.resource::<Access>().clone();
    {
        let mut lists = access.write();
        lists.banned_ips.retain(|b| b.ip != ip);
        lists.banned_ips.push(IpBan {
            ip,
            info: BanInfo::new(SOURCE, reason, OffsetDateTime::now_utc()),
        });
    }
    let answer = saved(&access, ListFile::BannedIps, format!("banned_ip={ip}"));
    let at_ip: Vec<Entity> = world
        .query_filtered::<(Entity, &Ip), With<Client>>()
        .iter(world)
        .filter(|(_, a)| a.0 == ip)
        .map(|(e, _)| e)
        .collect();
    for entity in &at_ip {
        kick_entity(world, *entity, "You have been IP banned from this server.");
    }
    info!("banned the address {ip}");
    format!("{answer} kicked={}", at_ip.len())
}

pub fn pardon(world: &mut World, name: &str) -> String {
    let access = world.resource::<Access>().clone();
    let removed =
        AccessLists::remove_named(&mut access.write().banned_players, name, |b| &b.profile);
    if !removed {
        return format!("error=\"{name} is not banned\"");
    }
    saved(&access, ListFile::BannedPlayers, format!("pardoned={name}"))
}

pub fn pardon_ip(world: &mut World, address: &str) -> String {
    let Ok(ip) = parse_ip(address) else {
        return format!("error=\"{address} is not an IP address\"");
    };
    let access = world.resource::<Access>().clone();
    let removed = {
        let mut lists = access.write();
        let before = lists.banned_ips.len();
        lists.banned_ips.retain(|b| b.ip != ip);
        lists.banned_ips.len() != before
    };
    if !removed {
        return format!("error=\"{ip} is not banned\"");
    }
    saved(&access, ListFile::BannedIps, format!("pardoned_ip={ip}"))
}

/// `banlist [players|ips]`: one line per ban, then the count.
pub fn banlist(world: &mut World, which: Option<&str>) -> String {
    let access = world.resource::<Access>().clone();
    let lists = access.read();
    let mut lines = Vec::new();
    if which != Some("ips") {
        for b in &lists.banned_players {
            lines.push(format!(
                "player={} created={:?} source={} expires={:?} reason={:?}",
                b.profile.name, b.info.created, b.info.source, b.info.expires, b.info.reason
            ));
        }
    }
    if which != Some("players") {
        for b in &lists.banned_ips {
            lines.push(format!(
                "ip={} created={:?} source={} expires={:?} reason={:?}",
                b.ip, b.info.created, b.info.source, b.info.expires, b.info.reason
            ));
        }
    }
    lines.push(format!("bans={}", lines.len()));
    lines.join("\n")
}

pub fn kick(world: &mut World, name: &str, reason: Option<&str>) -> String {
    let Some((entity, name, ..)) = online(world, name) else {
        return format!("error=\"no player named {name} is online\"");
    };
    let reason = reason.unwrap_or("Kicked by an operator.");
    kick_entity(world, entity, reason);
    info!("kicked {name}: {reason}");
    format!("kicked={name} reason={reason:?}")
}

pub fn op(world: &mut World, name: &str) -> String {
    let who = profile(world, name);
    let access = world.resource::<Access>().clone();
    let added = {
        let mut lists = access.write();
        let there = lists.ops.iter().any(|o| match (o.profile.uuid, who.uuid) {
            (Some(a), Some(b)) => a == b,
            _ => o.profile.name.eq_ignore_ascii_case(&who.name),
        });
        if !there {
            lists.ops.push(Op {
                profile: who,
                level: 4,
                bypasses_player_limit: false,
            });
        }
        !there
    };
    let answer = saved(
        &access,
        ListFile::Ops,
        format!("opped={name} added={added}"),
    );
    resync_operators(world);
    answer
}

pub fn deop(world: &mut World, name: &str) -> String {
    let access = world.resource::<Access>().clone();
    let removed = AccessLists::remove_named(&mut access.write().ops, name, |o| &o.profile);
    let answer = saved(
        &access,
        ListFile::Ops,
        format!("deopped={name} removed={removed}"),
    );
    resync_operators(world);
    answer
}
