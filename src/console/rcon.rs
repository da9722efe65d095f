//! RCON, the vanilla remote console protocol: little-endian `length, id, type, body\0\0` frames;
//! a login (type 3) with the password, then commands (type 2) answered with type 0 frames of at
//! most 4096 bytes. A wrong password is answered with id -1, as vanilla does.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use prometheus_client::metrics::counter::Counter;
use valence::log::{info, warn};

use super::Request;

const LOGIN: i32 = 3;
const COMMAND: i32 = 2;
const AUTH_RESPONSE: i32 = 2;
const RESPONSE: i32 = 0;
/// Largest frame accepted from a client (vanilla accepts 1460; real clients stay far below).
const MAX_FRAME: usize = 4110;
/// Largest body per response frame, as vanilla.
const MAX_BODY: usize = 4096;
/// A connection must log in this soon after connecting: a port scanner or a silent client
/// does not keep a thread for long. Real clients send the login at once.
const LOGIN_WITHIN: Duration = Duration::from_secs(5);
/// Once a frame has begun, the rest must follow this soon.
const FRAME_WITHIN: Duration = Duration::from_secs(5);
/// A logged-in console may sit idle this long between commands.
const IDLE: Duration = Duration::from_secs(600);
/// Consoles connected at once; more are closed on arrival (each holds a thread).
const MAX_CONNECTIONS: usize = 64;

/// One RCON frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub id: i32,
    pub kind: i32,
    pub body: String,
}

impl Frame {
    pub fn encode(&self) -> Vec<u8> {
        let len = 4 + 4 + self.body.len() + 2;
        let mut out = Vec::with_capacity(4 + len);
        out.extend_from_slice(&(len as i32).to_le_bytes());
        out.extend_from_slice(&self.id.to_le_bytes());
        out.extend_from_slice(&self.kind.to_le_bytes());
        out.extend_from_slice(self.body.as_bytes());
        out.extend_from_slice(&[0, 0]);
        out
    }

    /// Reads one frame; `Ok(None)` at a clean end of stream.
    pub fn read(from: &mut impl Read) -> io::Result<Option<Frame>> {
        match Self::read_length(from)? {
            Some(len) => Self::read_rest(from, len).map(Some),
            None => Ok(None),
        }
    }

    /// A frame's length, checked; `Ok(None)` at a clean end of stream.
    fn read_length(from: &mut impl Read) -> io::Result<Option<usize>> {
        let mut len = [0; 4];
        match from.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        let len = i32::from_le_bytes(len);
        if !(10..=MAX_FRAME as i32).contains(&len) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("frame length {len} outside 10..={MAX_FRAME}"),
            ));
        }
        Ok(Some(len as usize))
    }

    /// The rest of a frame of `len` bytes.
    fn read_rest(from: &mut impl Read, len: usize) -> io::Result<Frame> {
        let mut rest = vec![0; len];
        from.read_exact(&mut rest)?;
        let id = i32::from_le_bytes(rest[0..4].try_into().expect("4 bytes"));
        let kind = i32::from_le_bytes(rest[4..8].try_into().expect("4 bytes"));
        let body = &rest[8..];
        let body = body.split(|&b| b == 0).next().unwrap_or_default();
        Ok(Frame {
            id,
            kind,
            body: String::from_utf8_lossy(body).into_owned(),
        })
    }
}

/// Splits an answer into response frames of at most `MAX_BODY` bytes, on character bounds.
pub fn responses(id: i32, answer: &str) -> Vec<Frame> {
    let mut frames = Vec::new();
    let mut rest = answer;
    loop {
        let mut cut = rest.len().min(MAX_BODY);
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        frames.push(Frame {
            id,
            kind: RESPONSE,
            body: rest[..cut].to_string(),
        });
        rest = &rest[cut..];
        if rest.is_empty() {
            return frames;
        }
    }
}

/// Binds RCON's address, so that a taken port is known before the server says it is up.
pub fn bind(address: SocketAddr) -> io::Result<TcpListener> {
    TcpListener::bind(address)
}

/// Serves RCON on `listener`; each connection gets a thread. Returns the bound address.
pub fn start(
    listener: TcpListener,
    password: String,
    inbox: flume::Sender<Request>,
    refused: Counter,
) -> io::Result<SocketAddr> {
    let bound = listener.local_addr()?;
    std::thread::Builder::new()
        .name("rcon".into())
        .spawn(move || {
            let connected = Arc::new(AtomicUsize::new(0));
            for stream in listener.incoming() {
                let Ok(stream) = stream else {
                    // Out of descriptors, say: wait rather than spin.
                    std::thread::sleep(Duration::from_millis(100));
                    continue;
                };
                let place = connected.clone();
                if place.fetch_add(1, Ordering::AcqRel) >= MAX_CONNECTIONS {
                    place.fetch_sub(1, Ordering::AcqRel);
                    continue;
                }
                let (password, inbox, refused) = (password.clone(), inbox.clone(), refused.clone());
                let _ = std::thread::Builder::new()
                    .name("rcon-client".into())
                    .spawn(move || {
                        let _place = Place(place);
                        let peer = stream.peer_addr().ok();
                        match (serve(stream, &password, &inbox, &refused), peer) {
                            (Err(e), Some(peer)) if timed_out(&e) => {
                                info!("rcon connection from {peer} closed: it timed out")
                            }
                            (Err(e), Some(peer)) => {
                                warn!("rcon connection from {peer} closed: {e}")
                            }
                            _ => {}
                        }
                    });
            }
        })?;
    info!("RCON listening on {bound}");
    Ok(bound)
}

fn serve(
    mut stream: TcpStream,
    password: &str,
    inbox: &flume::Sender<Request>,
    refused: &Counter,
) -> io::Result<()> {
    let peer = stream.peer_addr()?;
    // Answers are small: a client that stops reading them is let go.
    stream.set_write_timeout(Some(FRAME_WITHIN))?;
    let login_by = Instant::now() + LOGIN_WITHIN;
    let mut authenticated = false;
    loop {
        let wait = if authenticated {
            Instant::now() + IDLE
        } else {
            login_by
        };
        let Some(len) = Frame::read_length(&mut Deadline::new(&stream, wait))? else {
            return Ok(());
        };
        let frame = Frame::read_rest(
            &mut Deadline::new(&stream, Instant::now() + FRAME_WITHIN),
            len,
        )?;
        let replies = match frame.kind {
            LOGIN if frame.body == password => {
                authenticated = true;
                info!("rcon client {peer} logged in");
                vec![Frame {
                    id: frame.id,
                    kind: AUTH_RESPONSE,
                    body: String::new(),
                }]
            }
            LOGIN => {
                authenticated = false;
                warn!("rcon client {peer} gave a wrong password");
                refused.inc();
                vec![auth_failure()]
            }
            COMMAND if authenticated => {
                let (reply, answer) = flume::bounded(1);
                let sent = inbox.send(Request {
                    line: frame.body.clone(),
                    reply: Some(reply),
                });
                let text = match sent.ok().and_then(|_| answer.recv().ok()) {
                    Some(text) => text,
                    None => "error=\"the server is shutting down\"".into(),
                };
                responses(frame.id, &text)
            }
            COMMAND => vec![auth_failure()],
            other => responses(frame.id, &format!("Unknown request {other:x}")),
        };
        for reply in replies {
            stream.write_all(&reply.encode())?;
        }
    }
}

/// Frees a connection's place when its thread ends.
struct Place(Arc<AtomicUsize>);

impl Drop for Place {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Reads that must all be done by `until`, however the bytes trickle in.
struct Deadline<'a> {
    stream: &'a TcpStream,
    until: Instant,
}

impl<'a> Deadline<'a> {
    fn new(stream: &'a TcpStream, until: Instant) -> Self {
        Self { stream, until }
    }
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut stream = self.stream;
        stream.read(buf)
    }
}

fn timed_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

fn auth_failure() -> Frame {
    Frame {
        id: -1,
        kind: AUTH_RESPONSE,
        body: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_round_trip() {
        let frame = Frame {
            id: 7,
            kind: COMMAND,
            body: "time query".into(),
        };
        let bytes = frame.encode();
        assert_eq!(&bytes[..4], &(4 + 4 + 10 + 2i32).to_le_bytes());
        assert_eq!(Frame::read(&mut bytes.as_slice()).unwrap(), Some(frame));
        assert_eq!(Frame::read(&mut [].as_slice()).unwrap(), None);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for bytes in [
            vec![0xff, 0xff, 0xff, 0x7f, 1, 2],
            vec![3, 0, 0, 0, 1, 2, 3],
            vec![20, 0, 0, 0, 1],
            (-5i32).to_le_bytes().to_vec(),
        ] {
            assert!(Frame::read(&mut bytes.as_slice()).is_err());
        }
    }

    #[test]
    fn long_answers_are_split_on_char_bounds() {
        let answer = "é".repeat(3000);
        let frames = responses(1, &answer);
        assert_eq!(frames.len(), 2);
        assert!(frames.iter().all(|f| f.body.len() <= MAX_BODY));
        let joined: String = frames.iter().map(|f| f.body.as_str()).collect();
        assert_eq!(joined, answer);
    }
}
