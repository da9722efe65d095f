//! horde's own listener in front of Valence's, which listens on loopback behind it, for two
//! kinds of server:
//!
//! - **Behind Velocity.** Valence 0.2 drops a connection that does not answer Velocity's
//!   forwarding query without a word, so a player who connects straight to a backend sees only
//!   "connection lost". The door reads the login up to that answer: a missing answer gets a
//!   message saying to join through the proxy, and a wrong signature is named in the log.
//!   Valence checks the forwarding again.
//! - **Offline** (`online_mode = false`, no proxy). Valence derives an unauthenticated
//!   player's UUID from a SHA-256 of the name; vanilla from an MD5 of `OfflinePlayer:<name>`,
//!   and playerdata and list files brought from a vanilla server are keyed by vanilla's. The
//!   door reads the name from the login and tells Valence, in BungeeCord's forwarding (the
//!   handshake's address carries the player's address and UUID), vanilla's UUID for it.
//!
//! Everything else (pings, the rest of the login, play) passes byte for byte.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use valence::log::{info, warn};
use valence::protocol::packets::handshaking::handshake_c2s::HandshakeNextState;
use valence::protocol::packets::handshaking::HandshakeC2s;
use valence::protocol::packets::login::{
    LoginDisconnectS2c, LoginHelloC2s, LoginQueryRequestS2c, LoginQueryResponseC2s,
};
use valence::protocol::{Decode, Packet, PacketEncoder, VarInt};
use valence::text::IntoText;

/// What a player who skips the proxy is told.
pub const JOIN_THROUGH_PROXY: &str =
    "This server is behind a proxy: join through the network's address, not this server's.";
/// What a proxy with the wrong secret is told (the log says why).
const UNVERIFIED: &str = "Unable to verify player details.";
/// A login must reach the forwarding answer this fast (Valence allows 5 s for the same).
const LOGIN_TIMEOUT: Duration = Duration::from_secs(5);
/// A server list ping is over in well under this.
const PING_TIMEOUT: Duration = Duration::from_secs(30);
/// A side that takes nothing we write for this long is gone (vanilla's read timeout).
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// Connections still logging in at once, as Valence allows.
const MAX_LOGINS: usize = 1024;
/// Frames before the forwarding answer are small: a handshake, a name, the player's profile.
const MAX_LOGIN_FRAME: usize = 32 * 1024;
/// Legacy (pre-1.7) server list pings start with this byte instead of a frame length.
const LEGACY_PING: u8 = 0xFE;

/// What the door does with a login before Valence takes it.
#[derive(Debug, Clone)]
pub enum Forwarding {
    /// Checks Velocity's forwarding answer against this secret.
    Velocity { secret: Arc<str> },
    /// Forwards vanilla's offline UUID for the player's name, BungeeCord's way.
    Offline,
}

/// Serves `listener` on a thread of its own, passing connections to Valence at `backend`.
pub fn start(
    listener: std::net::TcpListener,
    backend: SocketAddr,
    forwarding: Forwarding,
) -> anyhow::Result<()> {
    let logins = Arc::new(tokio::sync::Semaphore::new(MAX_LOGINS));
    crate::service::spawn(
        "door",
        "the Minecraft listener",
        listener,
        move |listener| async move {
            loop {
                let Ok((stream, peer)) = listener.accept().await else {
                    // Out of descriptors, say: wait rather than spin.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                };
                // Beyond the cap a connection is closed at once, as Valence does.
                if let Ok(place) = logins.clone().try_acquire_owned() {
                    tokio::spawn(serve(stream, peer, backend, forwarding.clone(), place));
                }
            }
        },
    )
}

async fn serve(
    mut client: TcpStream,
    peer: SocketAddr,
    backend: SocketAddr,
    forwarding: Forwarding,
    place: tokio::sync::OwnedSemaphorePermit,
) {
    let _ = client.set_nodelay(true);
    let mut from_client = Vec::new();
    let mut from_server = Vec::new();
    let admitted = async {
        let mut server = connect(backend).await?;
        let verdict = login(
            &mut client,
            &mut server,
            &mut from_client,
            &mut from_server,
            peer,
            &forwarding,
        )
        .await?;
        anyhow::Ok((server, verdict))
    };
    let (mut server, verdict) = match tokio::time::timeout(LOGIN_TIMEOUT, admitted).await {
        Ok(Ok((server, verdict))) => (server, verdict),
        Ok(Err(_)) | Err(_) => return,
    };
    drop(place);
    // Bytes read past the last whole frame belong to the next one.
    let pipe = async {
        server.write_all(&from_client).await?;
        client.write_all(&from_server).await?;
        pipe(&mut client, &mut server).await;
        std::io::Result::Ok(())
    };
    match verdict {
        Verdict::Play => {
            let _ = pipe.await;
        }
        Verdict::Ping => {
            let _ = tokio::time::timeout(PING_TIMEOUT, pipe).await;
        }
        Verdict::Refused => {}
    }
}

/// Valence's listener, which starts a moment after this one: tried for a second.
async fn connect(backend: SocketAddr) -> std::io::Result<TcpStream> {
    let mut tries = 0;
    loop {
        match TcpStream::connect(backend).await {
            Ok(server) => {
                let _ = server.set_nodelay(true);
                return Ok(server);
            }
            Err(e) if tries == 10 => {
                warn!("cannot reach the game's listener at {backend}: {e}");
                return Err(e);
            }
            Err(_) => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Copies both ways until either side closes or stops taking what it is sent; then both are
/// closed, so a client that never reads cannot hold a connection once the game let it go.
async fn pipe(client: &mut TcpStream, server: &mut TcpStream) {
    let (mut client_in, mut client_out) = client.split();
    let (mut server_in, mut server_out) = server.split();
    tokio::select! {
        _ = forward(&mut client_in, &mut server_out) => {}
        _ = forward(&mut server_in, &mut client_out) => {}
    }
}

async fn forward(
    from: &mut (impl tokio::io::AsyncRead + Unpin),
    to: &mut (impl tokio::io::AsyncWrite + Unpin),
) {
    let mut buffer = vec![0; 16 * 1024];
    loop {
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        match tokio::time::timeout(WRITE_TIMEOUT, to.write_all(&buffer[..n])).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) | Err(_) => return,
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// A login the proxy signed, or given its UUID: Valence takes it from here.
    Play,
    /// A server list ping (or a login Valence itself refused): Valence answers it.
    Ping,
    /// Told why and closed.
    Refused,
}

/// Walks a login as far as `forwarding` needs, forwarding each frame (or what stands for it).
async fn login(
    client: &mut (impl AsyncRead + AsyncWrite + Unpin),
    server: &mut (impl AsyncRead + AsyncWrite + Unpin),
    from_client: &mut Vec<u8>,
    from_server: &mut Vec<u8>,
    peer: SocketAddr,
    forwarding: &Forwarding,
) -> anyhow::Result<Verdict> {
    if client.read_buf(from_client).await? == 0 {
        bail!("closed before the handshake");
    }
    if is_legacy_ping(from_client) {
        return Ok(Verdict::Ping);
    }
    let handshake = next_frame(client, from_client).await?;
    let login = match handshake.decode::<HandshakeC2s>() {
        Ok(h) if h.next_state == HandshakeNextState::Login => h,
        _ => {
            server.write_all(&handshake.raw).await?;
            return Ok(Verdict::Ping);
        }
    };
    let login_start = next_frame(client, from_client).await?;
    match forwarding {
        Forwarding::Velocity { secret } => {
            server.write_all(&handshake.raw).await?;
            server.write_all(&login_start.raw).await?;
            check_velocity(client, server, from_client, from_server, peer, secret).await
        }
        Forwarding::Offline => {
            let name = login_start.decode::<LoginHelloC2s>().map(|h| h.username);
            // A login Valence cannot read either it refuses itself.
            let forwarded = match name {
                Ok(name) => with_offline_uuid(login, peer, name)?,
                Err(_) => handshake.raw.clone(),
            };
            server.write_all(&forwarded).await?;
            server.write_all(&login_start.raw).await?;
            Ok(Verdict::Play)
        }
    }
}

/// `handshake` as BungeeCord forwards it: its address followed by the player's address and
/// vanilla's offline UUID for `name`, split by NULs.
fn with_offline_uuid(
    original: HandshakeC2s,
    peer: SocketAddr,
    name: &str,
) -> anyhow::Result<Vec<u8>> {
    // A client may append its own fields after a NUL (Forge does); Valence would read them
    // as ours.
    let host = original
        .server_address
        .split('\0')
        .next()
        .unwrap_or_default();
    let address = format!(
        "{host}\0{}\0{}",
        peer.ip(),
        super::offline::offline_uuid(name).simple()
    );
    let mut encoder = PacketEncoder::new();
    encoder.append_packet(&HandshakeC2s {
        server_address: &address,
        ..original
    })?;
    Ok(encoder.take().to_vec())
}

/// Reads Velocity's forwarding query and the client's answer, and judges the answer.
async fn check_velocity(
    client: &mut (impl AsyncRead + AsyncWrite + Unpin),
    server: &mut (impl AsyncRead + AsyncWrite + Unpin),
    from_client: &mut Vec<u8>,
    from_server: &mut Vec<u8>,
    peer: SocketAddr,
    secret: &str,
) -> anyhow::Result<Verdict> {
    let query = next_frame(server, from_server).await?;
    client.write_all(&query.raw).await?;
    if query.id != LoginQueryRequestS2c::ID {
        // Refused before forwarding (a client of another version, say): Valence said why.
        return Ok(Verdict::Ping);
    }
    let answer = next_frame(client, from_client).await?;
    let verdict = match answer.decode::<LoginQueryResponseC2s>() {
        Ok(response) => judge(response.data.map(|d| d.0), secret.as_bytes()),
        Err(_) => Judgement::NoForwarding,
    };
    match verdict {
        Judgement::Signed => {
            server.write_all(&answer.raw).await?;
            Ok(Verdict::Play)
        }
        Judgement::NoForwarding => {
            info!(
                "refused {peer}: connected straight to this server (or through a proxy without \
                 Velocity's modern forwarding); players join through the proxy"
            );
            refuse(client, JOIN_THROUGH_PROXY).await;
            Ok(Verdict::Refused)
        }
        Judgement::WrongSecret => {
            warn!(
                "refused {peer}: its Velocity forwarding is signed with another secret than \
                 server.velocity_secret (check the proxy's forwarding secret)"
            );
            refuse(client, UNVERIFIED).await;
            Ok(Verdict::Refused)
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Judgement {
    /// Velocity's answer, signed with our secret.
    Signed,
    /// No answer: a client that is not a proxy.
    NoForwarding,
    /// An answer signed with another secret (or not signed at all).
    WrongSecret,
}

/// Velocity signs its answer with HMAC-SHA256 over the rest, keyed by the forwarding secret.
fn judge(data: Option<&[u8]>, secret: &[u8]) -> Judgement {
    let Some(data) = data else {
        return Judgement::NoForwarding;
    };
    if data.len() < 32 {
        return Judgement::WrongSecret;
    }
    let (signature, signed) = data.split_at(32);
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret) else {
        return Judgement::WrongSecret;
    };
    mac.update(signed);
    match mac.verify_slice(signature) {
        Ok(()) => Judgement::Signed,
        Err(_) => Judgement::WrongSecret,
    }
}

/// Sends a login disconnect; the connection closes when the caller drops it.
async fn refuse(client: &mut (impl AsyncWrite + Unpin), reason: &'static str) {
    let mut encoder = PacketEncoder::new();
    let packet = LoginDisconnectS2c {
        reason: Cow::Owned(reason.into_text()),
    };
    if encoder.append_packet(&packet).is_ok() {
        let _ = client.write_all(&encoder.take()).await;
        let _ = client.shutdown().await;
    }
}

/// One uncompressed frame as it came over the wire, with its packet id and body.
struct Frame {
    raw: Vec<u8>,
    id: i32,
    body_at: usize,
}

impl Frame {
    fn decode<'a, P: Packet + Decode<'a>>(&'a self) -> anyhow::Result<P> {
        if self.id != P::ID {
            bail!("expected packet {}, got {}", P::ID, self.id);
        }
        let mut body = &self.raw[self.body_at..];
        let packet = P::decode(&mut body)?;
        if !body.is_empty() {
            bail!("{} bytes after packet {}", body.len(), P::NAME);
        }
        Ok(packet)
    }
}

/// A pre-1.7 ping: 0xFE, then 0x01 (1.4 and later) and 0xFA (1.6). A modern handshake of 254
/// bytes also starts 0xFE 0x01, but its packet id 0 follows.
fn is_legacy_ping(buffer: &[u8]) -> bool {
    buffer[0] == LEGACY_PING && buffer.get(2) != Some(&0)
}

/// Reads until `buffer` starts with a whole frame and takes it off the front. Frames before
/// compression is set are a VarInt length, then a VarInt id and the body.
async fn next_frame(
    stream: &mut (impl AsyncRead + Unpin),
    buffer: &mut Vec<u8>,
) -> anyhow::Result<Frame> {
    loop {
        if let Some(frame) = split_frame(buffer)? {
            return Ok(frame);
        }
        if stream.read_buf(buffer).await? == 0 {
            bail!("closed mid-login");
        }
    }
}

fn split_frame(buffer: &mut Vec<u8>) -> anyhow::Result<Option<Frame>> {
    let mut r = &buffer[..];
    let length = match VarInt::decode_partial(&mut r) {
        Ok(length) => length,
        Err(valence::protocol::var_int::VarIntDecodeError::Incomplete) => return Ok(None),
        Err(e) => bail!("bad frame length: {e}"),
    };
    let header = buffer.len() - r.len();
    let length = usize::try_from(length).context("negative frame length")?;
    if length == 0 || length > MAX_LOGIN_FRAME {
        bail!("frame length {length} out of range");
    }
    if r.len() < length {
        return Ok(None);
    }
    let raw: Vec<u8> = buffer.drain(..header + length).collect();
    let mut body = &raw[header..];
    let id = VarInt::decode(&mut body).context("bad packet id")?.0;
    let body_at = raw.len() - body.len();
    Ok(Some(Frame { raw, id, body_at }))
}

/// The door's side of one login, for the fuzz target: `from_client` is everything a client
/// sends, then it closes; behind Velocity the game answers the login with the forwarding
/// query. Both kinds of door are fed the same bytes.
pub fn fuzz_login(from_client: &[u8]) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime without I/O drivers starts");
    for forwarding in [
        Forwarding::Velocity {
            secret: "secret".into(),
        },
        Forwarding::Offline,
    ] {
        runtime.block_on(fuzz_one(from_client, forwarding));
    }
}

async fn fuzz_one(from_client: &[u8], forwarding: Forwarding) {
    // Room for whatever the door writes back, so no write waits on a reader.
    let room = 1 << 20;
    let (mut client, mut client_end) = tokio::io::duplex(room);
    let (mut server, mut game) = tokio::io::duplex(room);
    let mut query = PacketEncoder::new();
    let asked = query.append_packet(&LoginQueryRequestS2c {
        message_id: VarInt(0),
        channel: valence::ident!("velocity:player_info").into(),
        data: valence::protocol::RawBytes(&[4]),
    });
    // Each side sends all it has and stops sending (reads then end), but stays to listen.
    if asked.is_err()
        || client_end.write_all(from_client).await.is_err()
        || client_end.shutdown().await.is_err()
        || game.write_all(&query.take()).await.is_err()
        || game.shutdown().await.is_err()
    {
        return;
    }
    let peer = SocketAddr::from(([127, 0, 0, 1], 1));
    let (mut from_client, mut from_server) = (Vec::new(), Vec::new());
    let _ = login(
        &mut client,
        &mut server,
        &mut from_client,
        &mut from_server,
        peer,
        &forwarding,
    )
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signed(secret: &[u8], payload: &[u8]) -> Vec<u8> {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret).unwrap();
        mac.update(payload);
        let mut data = mac.finalize().into_bytes().to_vec();
        data.extend_from_slice(payload);
        data
    }

    #[test]
    fn only_an_answer_signed_with_the_secret_passes() {
        let data = signed(b"s3cret", b"\x01forwarded player");
        assert_eq!(judge(Some(&data), b"s3cret"), Judgement::Signed);
        assert_eq!(judge(Some(&data), b"other"), Judgement::WrongSecret);
        assert_eq!(judge(Some(&data[..20]), b"s3cret"), Judgement::WrongSecret);
        assert_eq!(judge(None, b"s3cret"), Judgement::NoForwarding);
    }

    #[test]
    fn frames_are_split_whole_and_kept_byte_for_byte() {
        // Two frames (id 0 with body [7, 8], id 2 with no body) and the start of a third.
        let mut buffer = vec![3, 0, 7, 8, 1, 2, 5, 0];
        let first = split_frame(&mut buffer).unwrap().unwrap();
        assert_eq!((first.raw.as_slice(), first.id), (&[3, 0, 7, 8][..], 0));
        assert_eq!(&first.raw[first.body_at..], &[7, 8]);
        let second = split_frame(&mut buffer).unwrap().unwrap();
        assert_eq!((second.raw.as_slice(), second.id), (&[1, 2][..], 2));
        assert!(split_frame(&mut buffer).unwrap().is_none(), "incomplete");
        assert_eq!(buffer, [5, 0], "the partial frame is kept");
        assert!(split_frame(&mut vec![0]).is_err(), "empty frame");
        assert!(
            split_frame(&mut vec![0xff, 0xff, 0xff, 0xff, 0x7f]).is_err(),
            "too long"
        );
        assert!(
            split_frame(&mut vec![0x80, 0x80, 0x04]).is_err(),
            "too long to log in"
        );
    }

    #[test]
    fn an_offline_login_reaches_valence_with_the_address_and_vanillas_uuid() {
        let mut encoder = PacketEncoder::new();
        encoder
            .append_packet(&HandshakeC2s {
                protocol_version: VarInt(763),
                server_address: "play.example.org\0FML\0",
                server_port: 25565,
                next_state: HandshakeNextState::Login,
            })
            .unwrap();
        let mut buffer = encoder.take().to_vec();
        let frame = split_frame(&mut buffer).unwrap().unwrap();
        let peer = SocketAddr::from(([192, 0, 2, 7], 50000));
        let original = frame.decode::<HandshakeC2s>().unwrap();
        let mut forwarded = with_offline_uuid(original, peer, "Notch").unwrap();
        let frame = split_frame(&mut forwarded).unwrap().unwrap();
        let handshake = frame.decode::<HandshakeC2s>().unwrap();
        // As Valence's BungeeCord login reads it: host, address, UUID.
        let fields: Vec<&str> = handshake.server_address.split('\0').collect();
        assert_eq!(
            fields,
            [
                "play.example.org",
                "192.0.2.7",
                "b50ad385829d3141a2167e7d7539ba7f"
            ]
        );
        assert_eq!(
            fields[2].parse::<uuid::Uuid>().unwrap(),
            super::super::offline::offline_uuid("Notch")
        );
        assert_eq!(
            (handshake.protocol_version, handshake.server_port),
            (VarInt(763), 25565)
        );
        assert_eq!(handshake.next_state, HandshakeNextState::Login);
    }

    #[test]
    fn legacy_pings_are_told_from_a_long_handshake() {
        assert!(is_legacy_ping(&[0xfe]));
        assert!(is_legacy_ping(&[0xfe, 0x01]));
        assert!(is_legacy_ping(&[0xfe, 0x01, 0xfa, 0x00]));
        assert!(!is_legacy_ping(&[0xfe, 0x01, 0x00, 0xf7, 0x05]));
        assert!(!is_legacy_ping(&[0x10, 0x00]));
    }
}
