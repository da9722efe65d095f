//! Vanilla's access lists as plain data: `whitelist.json`, `ops.json`, `banned-players.json`
//! and `banned-ips.json`, with vanilla's fields (players by UUID, their name kept for people),
//! and the login rule that reads them, with vanilla's messages.

use std::net::IpAddr;
use std::path::Path;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use time::format_description::FormatItem;
use time::macros::format_description;
use time::OffsetDateTime;
use uuid::Uuid;

/// Vanilla's date format in the ban lists: `2026-11-30 12:00:00 +0000`.
const DATE: &[FormatItem<'static>] = format_description!(
    "[year]-[month]-[day] [hour]:[minute]:[second] [offset_hour sign:mandatory][offset_minute]"
);
const FOREVER: &str = "forever";

pub fn format_date(at: OffsetDateTime) -> String {
    at.format(DATE).unwrap_or_default()
}

/// A player as the lists name them. The UUID is what counts; an entry added by name for
/// someone the server has not seen yet gets theirs when they first join.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<Uuid>,
    pub name: String,
}

impl Profile {
    pub fn matches(&self, name: &str, uuid: Uuid) -> bool {
        match self.uuid {
            Some(id) => id == uuid,
            None => self.name.eq_ignore_ascii_case(name),
        }
    }

    fn named(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Op {
    #[serde(flatten)]
    pub profile: Profile,
    #[serde(default = "op_level")]
    pub level: u8,
    #[serde(rename = "bypassesPlayerLimit", default)]
    pub bypasses_player_limit: bool,
}

/// When, by whom, until when and why, as both ban lists keep it. A hand-made entry may leave
/// any of them out, as vanilla allows.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct BanInfo {
    #[serde(default)]
    pub created: String,
    #[serde(default = "server_source")]
    pub source: String,
    /// `forever` or a date.
    #[serde(default = "forever")]
    pub expires: String,
    #[serde(default = "banned_by_an_operator")]
    pub reason: String,
}

fn server_source() -> String {
    "Server".into()
}

fn forever() -> String {
    FOREVER.into()
}

fn banned_by_an_operator() -> String {
    "Banned by an operator.".into()
}

fn op_level() -> u8 {
    4
}

impl BanInfo {
    pub fn new(source: &str, reason: Option<&str>, now: OffsetDateTime) -> Self {
        Self {
            created: format_date(now),
            source: source.into(),
            expires: FOREVER.into(),
            reason: reason.map_or_else(banned_by_an_operator, String::from),
        }
    }

    fn expiry(&self) -> Option<OffsetDateTime> {
        OffsetDateTime::parse(&self.expires, DATE).ok()
    }

    fn expired(&self, now: OffsetDateTime) -> bool {
        self.expiry().is_some_and(|at| at <= now)
    }

    /// Vanilla's "Reason: ..." and, for a ban that ends, when.
    fn explain(&self) -> String {
        match self.expiry() {
            Some(_) => format!(
                "\nReason: {}\nYour ban will be removed on {}",
                self.reason, self.expires
            ),
            None => format!("\nReason: {}", self.reason),
        }
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct PlayerBan {
    #[serde(flatten)]
    pub profile: Profile,
    #[serde(flatten)]
    pub info: BanInfo,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct IpBan {
    pub ip: IpAddr,
    #[serde(flatten)]
    pub info: BanInfo,
}

/// Everything that decides who may join, and whether the whitelist is on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AccessLists {
    pub whitelist_on: bool,
    pub whitelist: Vec<Profile>,
    pub ops: Vec<Op>,
    pub banned_players: Vec<PlayerBan>,
    pub banned_ips: Vec<IpBan>,
}

/// The list files, by vanilla's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListFile {
    Whitelist,
    Ops,
    BannedPlayers,
    BannedIps,
}

impl ListFile {
    pub const ALL: [ListFile; 4] = [
        ListFile::Whitelist,
        ListFile::Ops,
        ListFile::BannedPlayers,
        ListFile::BannedIps,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ListFile::Whitelist => "whitelist.json",
            ListFile::Ops => "ops.json",
            ListFile::BannedPlayers => "banned-players.json",
            ListFile::BannedIps => "banned-ips.json",
        }
    }
}

/// Why a login is refused: vanilla's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Banned(String),
    IpBanned(String),
    NotWhitelisted,
    Full,
}

impl Refusal {
    /// A word for the metrics' `reason` label.
    pub fn reason(&self) -> &'static str {
        match self {
            Refusal::Banned(_) => "banned",
            Refusal::IpBanned(_) => "ip_banned",
            Refusal::NotWhitelisted => "not_whitelisted",
            Refusal::Full => "full",
        }
    }

    pub fn message(&self) -> String {
        match self {
            Refusal::Banned(why) => format!("You are banned from this server.{why}"),
            Refusal::IpBanned(why) => format!("Your IP address is banned from this server.{why}"),
            Refusal::NotWhitelisted => "You are not white-listed on this server!".into(),
            Refusal::Full => "The server is full!".into(),
        }
    }
}

fn read_list<T: serde::de::DeserializeOwned>(path: &Path) -> anyhow::Result<Vec<T>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{} is not a valid list ({e}); fix or remove it",
            path.display()
        )
    })
}

fn to_json<T: Serialize>(list: &[T]) -> String {
    serde_json::to_string_pretty(list).unwrap_or_else(|_| "[]".into())
}

impl AccessLists {
    /// Reads every list in `dir`; a missing file is an empty list, a malformed one an error.
    pub fn load(dir: &Path, whitelist_on: bool) -> anyhow::Result<Self> {
        let mut lists = Self {
            whitelist_on,
            ..Self::default()
        };
        for file in ListFile::ALL {
            lists.reload(dir, file)?;
        }
        Ok(lists)
    }

    /// Reads one list again (a hand edit).
    pub fn reload(&mut self, dir: &Path, file: ListFile) -> anyhow::Result<()> {
        let path = dir.join(file.name());
        match file {
            ListFile::Whitelist => self.whitelist = read_list(&path)?,
            ListFile::Ops => self.ops = read_list(&path)?,
            ListFile::BannedPlayers => self.banned_players = read_list(&path)?,
            ListFile::BannedIps => self.banned_ips = read_list(&path)?,
        }
        Ok(())
    }

    /// One list as its file holds it.
    pub fn json(&self, file: ListFile) -> String {
        match file {
            ListFile::Whitelist => to_json(&self.whitelist),
            ListFile::Ops => to_json(&self.ops),
            ListFile::BannedPlayers => to_json(&self.banned_players),
            ListFile::BannedIps => to_json(&self.banned_ips),
        }
    }

    /// Writes one list: temp file, fsync, rename.
    pub fn save(&self, dir: &Path, file: ListFile) -> anyhow::Result<()> {
        crate::files::replace(&dir.join(file.name()), (self.json(file) + "\n").as_bytes())
    }

    pub fn is_op(&self, name: &str, uuid: Uuid) -> bool {
        self.ops.iter().any(|o| o.profile.matches(name, uuid))
    }

    /// A player's permission level: their `ops.json` entry's, 0 when they are not an operator.
    pub fn op_level(&self, name: &str, uuid: Uuid) -> u8 {
        self.ops
            .iter()
            .find(|o| o.profile.matches(name, uuid))
            .map_or(0, |o| o.level)
    }

    pub fn is_whitelisted(&self, name: &str, uuid: Uuid) -> bool {
        self.whitelist.iter().any(|p| p.matches(name, uuid))
    }

    /// May a player in: vanilla's order (banned, then the whitelist, which operators pass,
    /// then a banned address). Expired bans are dropped on the way, and a ban made by name
    /// learns the UUID it refuses, so a new name does not escape it. On success, whether the
    /// player may pass a full server (an operator whose entry says so): the caller takes the
    /// place, the last check of vanilla's order.
    pub fn admit(
        &mut self,
        name: &str,
        uuid: Uuid,
        ip: IpAddr,
        now: OffsetDateTime,
    ) -> Result<bool, Refusal> {
        self.banned_players.retain(|b| !b.info.expired(now));
        self.banned_ips.retain(|b| !b.info.expired(now));
        if let Some(ban) = self
            .banned_players
            .iter_mut()
            .find(|b| b.profile.matches(name, uuid))
        {
            ban.profile.uuid.get_or_insert(uuid);
            return Err(Refusal::Banned(ban.info.explain()));
        }
        if self.whitelist_on && !self.is_whitelisted(name, uuid) && !self.is_op(name, uuid) {
            return Err(Refusal::NotWhitelisted);
        }
        if let Some(ban) = self.banned_ips.iter().find(|b| b.ip == ip) {
            return Err(Refusal::IpBanned(ban.info.explain()));
        }
        Ok(self
            .ops
            .iter()
            .any(|o| o.profile.matches(name, uuid) && o.bypasses_player_limit))
    }

    /// Every player entry of the lists, with the file it is in.
    fn profiles_mut(&mut self) -> impl Iterator<Item = (&mut Profile, ListFile)> {
        let whitelist = self.whitelist.iter_mut().map(|p| (p, ListFile::Whitelist));
        let ops = self.ops.iter_mut().map(|o| (&mut o.profile, ListFile::Ops));
        let banned =
            (self.banned_players.iter_mut()).map(|b| (&mut b.profile, ListFile::BannedPlayers));
        whitelist.chain(ops).chain(banned)
    }

    /// Gives entries added by name the UUID of the player who just joined under it; returns
    /// the files that changed.
    pub fn learn_uuid(&mut self, name: &str, uuid: Uuid) -> Vec<ListFile> {
        let mut changed = Vec::new();
        for (profile, file) in self.profiles_mut() {
            if profile.uuid.is_none() && profile.named(name) {
                profile.uuid = Some(uuid);
                profile.name = name.into();
                if !changed.contains(&file) {
                    changed.push(file);
                }
            }
        }
        changed
    }

    /// Entries holding the UUID horde gave an unauthenticated player before it used vanilla's
    /// (see [`super::offline`]) take vanilla's; returns the files changed and the entries.
    pub fn adopt_vanilla_offline_uuids(&mut self) -> (Vec<ListFile>, usize) {
        let (mut changed, mut entries) = (Vec::new(), 0);
        for (profile, file) in self.profiles_mut() {
            if profile.uuid == Some(super::offline::legacy_offline_uuid(&profile.name)) {
                profile.uuid = Some(super::offline::offline_uuid(&profile.name));
                entries += 1;
                if !changed.contains(&file) {
                    changed.push(file);
                }
            }
        }
        (changed, entries)
    }

    /// Adds `who` to a list of profiles unless there; whether it was added.
    pub fn add_profile(list: &mut Vec<Profile>, who: Profile) -> bool {
        let there = list.iter().any(|p| match (p.uuid, who.uuid) {
            (Some(a), Some(b)) => a == b,
            _ => p.named(&who.name),
        });
        if !there {
            list.push(who);
        }
        !there
    }

    /// Removes everyone of that name (or UUID) from a list of profiles; whether any was.
    pub fn remove_named<T>(
        list: &mut Vec<T>,
        name: &str,
        profile: impl Fn(&T) -> &Profile,
    ) -> bool {
        let before = list.len();
        list.retain(|e| !profile(e).named(name));
        list.len() != before
    }
}

/// An address to ban, from `ban-ip`'s argument.
pub fn parse_ip(text: &str) -> anyhow::Result<IpAddr> {
    match text.parse() {
        Ok(ip) => Ok(ip),
        Err(_) => bail!("{text:?} is not an IP address"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> OffsetDateTime {
        OffsetDateTime::parse("2026-11-30 12:00:00 +0000", DATE).unwrap()
    }

    const ALEX: &str = "853c80ef-3c37-49fd-aa49-938b674adae6";

    #[test]
    fn entries_with_horde_s_old_offline_uuids_take_vanilla_s() {
        use crate::access::offline::{legacy_offline_uuid, offline_uuid};
        let mut lists = AccessLists::default();
        let old = |name: &str| Profile {
            uuid: Some(legacy_offline_uuid(name)),
            name: name.into(),
        };
        lists.ops.push(Op {
            profile: old("Alex"),
            level: 4,
            bypasses_player_limit: false,
        });
        lists.whitelist.push(old("Alex"));
        lists.whitelist.push(old("Steve"));
        let authenticated = Profile {
            uuid: Some(Uuid::parse_str(ALEX).unwrap()),
            name: "Alex".into(),
        };
        lists.whitelist.push(authenticated.clone());
        let (files, entries) = lists.adopt_vanilla_offline_uuids();
        assert_eq!(
            (files, entries),
            (vec![ListFile::Whitelist, ListFile::Ops], 3)
        );
        assert_eq!(lists.ops[0].profile.uuid, Some(offline_uuid("Alex")));
        assert_eq!(lists.whitelist[1].uuid, Some(offline_uuid("Steve")));
        assert_eq!(lists.whitelist[2], authenticated, "a Mojang UUID stays");
        assert_eq!(lists.adopt_vanilla_offline_uuids(), (vec![], 0), "once");
    }

    #[test]
    fn the_files_round_trip_in_vanillas_shape() {
        let dir = crate::scratch::ScratchDir::new("access-roundtrip");
        let alex = Profile {
            uuid: Some(Uuid::parse_str(ALEX).unwrap()),
            name: "Alex".into(),
        };
        let mut lists = AccessLists::default();
        lists.whitelist.push(alex.clone());
        lists.ops.push(Op {
            profile: alex.clone(),
            level: 4,
            bypasses_player_limit: false,
        });
        lists.banned_players.push(PlayerBan {
            profile: alex,
            info: BanInfo::new("Server", Some("griefing"), now()),
        });
        lists.banned_ips.push(IpBan {
            ip: "10.0.0.7".parse().unwrap(),
            info: BanInfo::new("Server", None, now()),
        });
        for file in ListFile::ALL {
            lists.save(&dir, file).unwrap();
        }
        let text = std::fs::read_to_string(dir.join("banned-players.json")).unwrap();
        for field in [
            "\"uuid\": \"853c80ef-3c37-49fd-aa49-938b674adae6\"",
            "\"name\": \"Alex\"",
            "\"created\": \"2026-11-30 12:00:00 +0000\"",
            "\"source\": \"Server\"",
            "\"expires\": \"forever\"",
            "\"reason\": \"griefing\"",
        ] {
            assert!(text.contains(field), "{field} in {text}");
        }
        let ops = std::fs::read_to_string(dir.join("ops.json")).unwrap();
        assert!(ops.contains("\"level\": 4") && ops.contains("\"bypassesPlayerLimit\": false"));
        assert_eq!(AccessLists::load(&dir, false).unwrap(), lists);
    }

    #[test]
    fn a_malformed_file_is_an_error_naming_it() {
        let dir = crate::scratch::ScratchDir::new("access-malformed");
        std::fs::write(dir.join("ops.json"), "[{\"uuid\": 3}").unwrap();
        let error = AccessLists::load(&dir, false).unwrap_err().to_string();
        assert!(
            error.contains("ops.json") && error.contains("not a valid list"),
            "{error}"
        );
    }

    #[test]
    fn logins_meet_vanillas_checks_in_vanillas_order() {
        let alex = Uuid::parse_str(ALEX).unwrap();
        let ip: IpAddr = "10.0.0.7".parse().unwrap();
        let home: IpAddr = "127.0.0.1".parse().unwrap();
        let mut lists = AccessLists::default();
        assert_eq!(lists.admit("Alex", alex, ip, now()), Ok(false));

        lists.whitelist_on = true;
        assert_eq!(
            lists.admit("Alex", alex, ip, now()),
            Err(Refusal::NotWhitelisted)
        );
        assert_eq!(
            Refusal::NotWhitelisted.message(),
            "You are not white-listed on this server!"
        );
        // Added by name before they ever joined: the name lets them in, and their UUID is kept.
        lists.whitelist.push(Profile {
            uuid: None,
            name: "alex".into(),
        });
        assert_eq!(lists.admit("Alex", alex, home, now()), Ok(false));
        assert_eq!(lists.learn_uuid("Alex", alex), vec![ListFile::Whitelist]);
        assert_eq!(lists.whitelist[0].uuid, Some(alex));

        lists.banned_ips.push(IpBan {
            ip,
            info: BanInfo::new("Server", None, now()),
        });
        assert_eq!(
            lists.admit("Alex", alex, ip, now()).unwrap_err().message(),
            "Your IP address is banned from this server.\nReason: Banned by an operator."
        );
        // Banned by name: the refusal learns the UUID, so another name does not escape it.
        let mut ban = BanInfo::new("Server", Some("griefing"), now());
        ban.expires = "2026-12-01 12:00:00 +0000".into();
        lists.banned_players.push(PlayerBan {
            profile: Profile {
                uuid: None,
                name: "alex".into(),
            },
            info: ban,
        });
        assert_eq!(
            lists.admit("Alex", alex, home, now()).unwrap_err().message(),
            "You are banned from this server.\nReason: griefing\nYour ban will be removed on 2026-12-01 12:00:00 +0000"
        );
        assert!(matches!(
            lists.admit("Renamed", alex, home, now()),
            Err(Refusal::Banned(_))
        ));
        // The day after, the ban is over and gone.
        let later = OffsetDateTime::parse("2026-12-02 00:00:00 +0000", DATE).unwrap();
        assert_eq!(lists.admit("Alex", alex, home, later), Ok(false));
        assert!(lists.banned_players.is_empty());
    }

    #[test]
    fn operators_pass_the_whitelist_and_may_pass_a_full_server() {
        let id = Uuid::from_u128(7);
        let home: IpAddr = "127.0.0.1".parse().unwrap();
        let mut lists = AccessLists {
            whitelist_on: true,
            ..AccessLists::default()
        };
        lists.ops.push(Op {
            profile: Profile {
                uuid: Some(id),
                name: "Steve".into(),
            },
            level: 4,
            bypasses_player_limit: true,
        });
        assert_eq!(lists.admit("Steve", id, home, now()), Ok(true));
    }

    #[test]
    fn hand_made_entries_may_leave_out_what_vanilla_fills_in() {
        let dir = crate::scratch::ScratchDir::new("access-lenient");
        std::fs::write(dir.join("banned-players.json"), r#"[{"name": "Alex"}]"#).unwrap();
        std::fs::write(dir.join("ops.json"), r#"[{"name": "Steve"}]"#).unwrap();
        let lists = AccessLists::load(&dir, false).unwrap();
        assert_eq!(lists.banned_players[0].info.expires, "forever");
        assert_eq!(
            lists.banned_players[0].info.reason,
            "Banned by an operator."
        );
        assert_eq!(
            (lists.ops[0].level, lists.ops[0].bypasses_player_limit),
            (4, false)
        );
    }
}
