//! Vanilla's query (`enable-query`): the GameSpy4 protocol over UDP, as `QueryThreadGs4`
//! answers it and server trackers ask it (wiki.vg "Query"). A client asks for a challenge
//! token (type 9), then for the basic or the full stat (type 0) with that token; the token is
//! only sent back to the address that asked, so a forged source gets no stat. The thread
//! reads at most `query.max_packets_per_s` packets a second and drops the rest without an
//! answer, and keeps a token for 30 s, so a flood costs it a bounded amount of time and memory
//! and the tick none.

use std::collections::HashMap;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use rand::Rng;
use valence::log::warn;
use valence::MINECRAFT_VERSION;

use super::{Listing, Shown};
use crate::metrics::Label;

const MAGIC: [u8; 2] = [0xFE, 0xFD];
const HANDSHAKE: u8 = 9;
const STAT: u8 = 0;
/// How long a challenge token is good for (vanilla: 30 s).
const TOKEN_LIFE: Duration = Duration::from_secs(30);
/// The full stat's fixed padding before its keys and before its player names.
const SPLITNUM: &[u8] = b"splitnum\0\x80\0";
const PLAYERS: &[u8] = b"\x01player_\0\0";

/// A request as read off the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    Handshake { session: i32 },
    Basic { session: i32, token: i32 },
    Full { session: i32, token: i32 },
}

/// The request in `packet`, or none for anything else (which gets no answer).
pub fn parse(packet: &[u8]) -> Option<Request> {
    if packet.len() < 7 || packet[..2] != MAGIC {
        return None;
    }
    let int = |at: usize| {
        packet
            .get(at..at + 4)
            .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    // Vanilla keeps the low four bits of each byte of the session id.
    let session = int(3)? & 0x0F0F_0F0F;
    match (packet[2], packet.len()) {
        (HANDSHAKE, _) => Some(Request::Handshake { session }),
        (STAT, 11) => Some(Request::Basic {
            session,
            token: int(7)?,
        }),
        (STAT, 15) => Some(Request::Full {
            session,
            token: int(7)?,
        }),
        _ => None,
    }
}

/// Type, session id, and the token as a decimal string.
pub fn handshake_reply(session: i32, token: i32) -> Vec<u8> {
    let mut out = head(HANDSHAKE, session);
    string(&mut out, &token.to_string());
    out
}

/// Where players connect, as the stat tells it.
#[derive(Debug, Clone, PartialEq)]
pub struct Host {
    pub ip: String,
    pub port: u16,
}

/// MOTD, game type, map, player count, most players, port (little-endian) and address.
pub fn basic_reply(session: i32, shown: &Shown, host: &Host) -> Vec<u8> {
    let mut out = head(STAT, session);
    string(&mut out, &shown.motd);
    string(&mut out, "SMP");
    string(&mut out, &shown.world);
    string(&mut out, &shown.players.len().to_string());
    string(&mut out, &shown.max_players.to_string());
    out.extend(host.port.to_le_bytes());
    string(&mut out, &host.ip);
    out
}

/// The keys and values vanilla sends, then the players' names (none when they are hidden).
pub fn full_reply(session: i32, shown: &Shown, host: &Host) -> Vec<u8> {
    let mut out = head(STAT, session);
    out.extend(SPLITNUM);
    let plugins = format!("horde {}", env!("CARGO_PKG_VERSION"));
    let pairs = [
        ("hostname", shown.motd.as_str()),
        ("gametype", "SMP"),
        ("game_id", "MINECRAFT"),
        ("version", MINECRAFT_VERSION),
        ("plugins", &plugins),
        ("map", &shown.world),
        ("numplayers", &shown.players.len().to_string()),
        ("maxplayers", &shown.max_players.to_string()),
        ("hostport", &host.port.to_string()),
        ("hostip", &host.ip),
    ];
    for (key, value) in pairs {
        string(&mut out, key);
        string(&mut out, value);
    }
    out.push(0);
    out.extend(PLAYERS);
    if !shown.hide_players {
        for (name, _) in &shown.players {
            string(&mut out, name);
        }
    }
    out.push(0);
    out
}

fn head(kind: u8, session: i32) -> Vec<u8> {
    let mut out = vec![kind];
    out.extend(session.to_be_bytes());
    out
}

/// A NUL-terminated string in ISO-8859-1, one byte a character as vanilla writes it
/// (`DataOutputStream.writeBytes`), so `§` is the single byte 0xA7 that query clients read; a
/// character beyond it is `?`, and a NUL inside is dropped.
fn string(out: &mut Vec<u8>, s: &str) {
    out.extend(
        s.chars()
            .filter(|&c| c != '\0')
            .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')),
    );
    out.push(0);
}

/// The challenge tokens handed out, by address, for [`TOKEN_LIFE`].
#[derive(Debug, Default)]
pub struct Challenges {
    tokens: HashMap<SocketAddr, (i32, Instant)>,
    last_sweep: Option<Instant>,
}

impl Challenges {
    /// A new token for `from`, replacing any it had.
    pub fn issue(&mut self, from: SocketAddr, now: Instant, rng: &mut impl Rng) -> i32 {
        self.sweep(now);
        let token = rng.gen::<i32>();
        self.tokens.insert(from, (token, now));
        token
    }

    /// Whether `token` is the live one `from` was given.
    pub fn valid(&self, from: SocketAddr, token: i32, now: Instant) -> bool {
        self.tokens
            .get(&from)
            .is_some_and(|&(t, at)| t == token && now.duration_since(at) < TOKEN_LIFE)
    }

    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Forgets expired tokens, at most once a second.
    fn sweep(&mut self, now: Instant) {
        if self
            .last_sweep
            .is_some_and(|at| now.duration_since(at) < Duration::from_secs(1))
        {
            return;
        }
        self.last_sweep = Some(now);
        self.tokens
            .retain(|_, (_, at)| now.duration_since(*at) < TOKEN_LIFE);
    }
}

/// Packets read each second, from everyone together.
#[derive(Debug)]
pub struct Budget {
    per_second: u32,
    second: Option<Instant>,
    used: u32,
}

impl Budget {
    pub fn new(per_second: u32) -> Self {
        Self {
            per_second,
            second: None,
            used: 0,
        }
    }

    /// Whether one more packet may be answered at `now`.
    pub fn take(&mut self, now: Instant) -> bool {
        let fresh = self
            .second
            .is_none_or(|s| now.duration_since(s) >= Duration::from_secs(1));
        if fresh {
            self.second = Some(now);
            self.used = 0;
        }
        self.used += 1;
        self.used <= self.per_second
    }
}

/// Packets answered and dropped, for the metrics endpoint.
pub type QueryPackets = Family<Label, Counter>;

/// Binds the query's UDP socket (port 0 picks one) and answers from a thread of its own;
/// returns the address bound.
pub fn start(
    address: SocketAddr,
    per_second: u32,
    host: Host,
    listing: Arc<Listing>,
    packets: QueryPackets,
) -> anyhow::Result<SocketAddr> {
    let socket = UdpSocket::bind(address).with_context(|| format!("cannot listen on {address}"))?;
    let bound = socket.local_addr()?;
    std::thread::Builder::new()
        .name("query".into())
        .spawn(move || serve(&socket, per_second, &host, &listing, &packets))
        .context("cannot start the query's thread")?;
    Ok(bound)
}

fn serve(
    socket: &UdpSocket,
    per_second: u32,
    host: &Host,
    listing: &Listing,
    packets: &QueryPackets,
) {
    let mut challenges = Challenges::default();
    let mut budget = Budget::new(per_second);
    let mut rng = rand::thread_rng();
    // The largest request is 15 bytes: a longer datagram is cut short and then not parsed.
    let mut buf = [0u8; 16];
    let count = |outcome: &'static str| {
        packets.get_or_create(&[("outcome", outcome)]).inc();
    };
    loop {
        let (len, from) = match socket.recv_from(&mut buf) {
            Ok(got) => got,
            Err(e) => {
                warn!("query stopped: {e}");
                return;
            }
        };
        let now = Instant::now();
        if !budget.take(now) {
            count("dropped");
            continue;
        }
        let reply = match parse(&buf[..len]) {
            Some(Request::Handshake { session }) => Some(handshake_reply(
                session,
                challenges.issue(from, now, &mut rng),
            )),
            Some(Request::Basic { session, token }) if challenges.valid(from, token, now) => {
                Some(basic_reply(session, &listing.shown(), host))
            }
            Some(Request::Full { session, token }) if challenges.valid(from, token, now) => {
                Some(full_reply(session, &listing.shown(), host))
            }
            _ => None,
        };
        match reply {
            Some(reply) => {
                count("answered");
                let _ = socket.send_to(&reply, from);
            }
            None => count("refused"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(hide: bool) -> Shown {
        Shown {
            motd: "§aHorde".into(),
            hide_players: hide,
            max_players: 20,
            world: "default".into(),
            players: vec![
                ("alice".into(), uuid::Uuid::nil()),
                ("bob".into(), uuid::Uuid::nil()),
            ],
        }
    }

    fn host() -> Host {
        Host {
            ip: "0.0.0.0".into(),
            port: 25565,
        }
    }

    #[test]
    fn requests_as_wiki_vg_gives_them() {
        assert_eq!(
            parse(&[0xFE, 0xFD, 9, 0, 0, 0, 1]),
            Some(Request::Handshake { session: 1 })
        );
        let basic = [0xFE, 0xFD, 0, 0x1F, 0, 0, 1, 0x00, 0x91, 0x29, 0x5B];
        assert_eq!(
            parse(&basic),
            Some(Request::Basic {
                session: 0x0F00_0001,
                token: 9_513_307
            })
        );
        let mut full = basic.to_vec();
        full.extend([0, 0, 0, 0]);
        assert!(matches!(
            parse(&full),
            Some(Request::Full {
                token: 9_513_307,
                ..
            })
        ));
        for junk in [
            &[][..],
            &[0xFE, 0xFD, 9],
            &[0xFE, 0xFC, 9, 0, 0, 0, 1],
            &basic[..10],
        ] {
            assert_eq!(parse(junk), None, "{junk:?}");
        }
    }

    #[test]
    fn replies_as_vanilla_writes_them() {
        assert_eq!(handshake_reply(1, 9_513_307), b"\x09\0\0\0\x019513307\0");
        assert_eq!(
            basic_reply(1, &shown(false), &host()),
            b"\0\0\0\0\x01\xa7aHorde\0SMP\0default\x002\x0020\0\xdd\x630.0.0.0\0"
        );
        let full = full_reply(1, &shown(false), &host());
        assert!(full.starts_with(b"\0\0\0\0\x01splitnum\0\x80\0hostname\0"));
        assert!(full.ends_with(b"\0\0\x01player_\0\0alice\0bob\0\0"));
        let hidden = full_reply(1, &shown(true), &host());
        assert!(hidden.ends_with(b"hostip\x000.0.0.0\0\0\x01player_\0\0\0"));
        assert!(
            hidden.windows(12).any(|w| w == b"numplayers\x002"),
            "the count stays"
        );
    }

    #[test]
    fn a_token_is_good_for_its_address_and_thirty_seconds() {
        let mut challenges = Challenges::default();
        let mut rng = rand::thread_rng();
        let (a, b): (SocketAddr, SocketAddr) = (
            "10.0.0.1:5000".parse().unwrap(),
            "10.0.0.2:5000".parse().unwrap(),
        );
        let t0 = Instant::now();
        let token = challenges.issue(a, t0, &mut rng);
        assert!(challenges.valid(a, token, t0 + Duration::from_secs(29)));
        assert!(!challenges.valid(b, token, t0), "not for another address");
        assert!(!challenges.valid(a, token.wrapping_add(1), t0));
        assert!(!challenges.valid(a, token, t0 + TOKEN_LIFE));
        challenges.issue(b, t0 + Duration::from_secs(31), &mut rng);
        assert_eq!(challenges.len(), 1, "the expired token is forgotten");
    }

    #[test]
    fn the_budget_drops_what_is_past_it_each_second() {
        let mut budget = Budget::new(3);
        let t0 = Instant::now();
        let taken: Vec<bool> = (0..5).map(|_| budget.take(t0)).collect();
        assert_eq!(taken, [true, true, true, false, false]);
        assert!(budget.take(t0 + Duration::from_secs(1)));
    }
}
