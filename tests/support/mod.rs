//! Runs the real `horde` binary on a free port with a temporary config and world, and the real
//! clients under `scripts/` against it.
#![allow(dead_code)] // Each test binary uses its own subset.

pub(crate) mod headless;
pub(crate) mod needs;
pub(crate) mod proxy;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The one bound on any wait of the end-to-end tests, for the Rust side and the Node clients
/// alike: generous for a shared, noisy machine, and raised with `HORDE_TEST_PATIENCE_S` on a
/// slower one. Conditions are waited for, never timed: this only stops a test that hangs.
pub(crate) fn patience() -> Duration {
    let seconds = std::env::var("HORDE_TEST_PATIENCE_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    Duration::from_secs(seconds)
}
pub(crate) const RCON_PASSWORD: &str = "horde-test";

/// A fresh folder under the system temp dir, removed on drop.
pub(crate) struct TempDir(pub PathBuf);

impl TempDir {
    pub(crate) fn new(name: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("horde-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(crate) fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_horde")
}

pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What `scripts/e2e/<script>` (a third-party reader run on Node) prints as JSON for `args`.
pub(crate) fn node_json<S: AsRef<std::ffi::OsStr>>(script: &str, args: &[S]) -> serde_json::Value {
    needs::test_clients();
    let out = Command::new("node")
        .arg(repo().join("scripts/e2e").join(script))
        .args(args)
        .current_dir(repo().join("scripts"))
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{script}: {e}: {}", String::from_utf8_lossy(&out.stdout)))
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Copies a folder tree (the shipped world) so tests never touch the repository's copy.
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Removes terminal colour codes from a log line.
pub(crate) fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Which stream a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

/// A running server process.
pub(crate) struct TestServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Stream, String)>,
    /// Everything printed so far, for failure messages.
    pub(crate) transcript: Arc<Mutex<Vec<String>>>,
    pub(crate) port: u16,
    pub(crate) rcon_port: u16,
    pub(crate) dir: TempDir,
}

impl TestServer {
    /// Starts the server on a copy of the shipped world with `extra` appended to a test config
    /// (offline mode, RCON on, port 0). Keys in `extra` before its first table header go to
    /// `[server]`.
    pub(crate) fn start(name: &str, extra: &str) -> Self {
        let dir = TempDir::new(name);
        copy_tree(&repo().join("worlds/default"), &dir.path().join("world"));
        Self::start_in(dir, extra)
    }

    /// Starts (or restarts) the server on the world and config already in `dir`, writing the
    /// config first.
    pub(crate) fn start_in(dir: TempDir, extra: &str) -> Self {
        let rcon_port = free_port();
        let tables_at = extra
            .lines()
            .position(|l| l.trim_start().starts_with('['))
            .unwrap_or(extra.lines().count());
        let server_keys: Vec<&str> = extra.lines().take(tables_at).collect();
        let tables: Vec<&str> = extra.lines().skip(tables_at).collect();
        let (server_keys, mut extra) = (server_keys.join("\n"), tables.join("\n"));
        // Clients build by the spawn unless a test is about its protection.
        let protection = if server_keys.contains("spawn_protection") {
            ""
        } else {
            "spawn_protection = 0\n"
        };
        // Tests run side by side: only the map's and the metrics' own tests serve them.
        for table in ["[map]", "[metrics]"] {
            if !extra.contains(table) {
                extra.push_str(&format!("\n{table}\nenabled = false\n"));
            }
        }
        let config = format!(
            "[server]\nport = 0\nonline_mode = false\nview_distance = 6\n{protection}{server_keys}\n\
             [spawning]\nenabled = false\n{extra}\n\
             [rcon]\nenabled = true\nport = {rcon_port}\npassword = \"{RCON_PASSWORD}\"\n"
        );
        Self::launch(dir, &config, rcon_port)
    }

    /// Starts the server on the world in `dir` with `config` as its `config.toml`, and waits
    /// until it listens and has a spawn point.
    pub(crate) fn launch(dir: TempDir, config: &str, rcon_port: u16) -> Self {
        std::fs::write(dir.path().join("config.toml"), config).unwrap();
        let mut child = Command::new(binary())
            .arg("--config")
            .arg(dir.path().join("config.toml"))
            .arg("--world")
            .arg(dir.path().join("world"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start horde");
        let (tx, lines) = mpsc::channel();
        let transcript = Arc::new(Mutex::new(Vec::new()));
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        for (stream, reader) in [
            (
                Stream::Stdout,
                Box::new(stdout) as Box<dyn std::io::Read + Send>,
            ),
            (Stream::Stderr, Box::new(stderr)),
        ] {
            let (tx, transcript) = (tx.clone(), transcript.clone());
            std::thread::spawn(move || {
                for line in BufReader::new(reader).lines().map_while(Result::ok) {
                    let line = strip_ansi(&line);
                    transcript.lock().unwrap().push(line.clone());
                    if tx.send((stream, line)).is_err() {
                        break;
                    }
                }
            });
        }
        let stdin = child.stdin.take();
        let mut server = TestServer {
            child,
            stdin,
            lines,
            transcript,
            port: 0,
            rcon_port,
            dir,
        };
        let line = server.wait_line(Stream::Stderr, "listening for Minecraft");
        server.port = line
            .rsplit(':')
            .next()
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        server.wait_line(Stream::Stderr, "spawn point");
        server
    }

    /// Waits for a line on `stream` containing `needle`, and returns it.
    pub(crate) fn wait_line(&mut self, stream: Stream, needle: &str) -> String {
        let deadline = Instant::now() + patience();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((s, line)) if s == stream && line.contains(needle) => return line,
                Ok(_) => {}
                Err(_) => panic!(
                    "no {stream:?} line containing {needle:?}; output so far:\n{}",
                    self.transcript()
                ),
            }
        }
    }

    /// Types a console command and returns the first line of its answer.
    pub(crate) fn command(&mut self, line: &str) -> String {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let deadline = Instant::now() + patience();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((Stream::Stdout, answer)) => return answer,
                Ok(_) => {}
                Err(_) => panic!("no answer to {line:?}; output:\n{}", self.transcript()),
            }
        }
    }

    pub(crate) fn transcript(&self) -> String {
        self.transcript.lock().unwrap().join("\n")
    }

    /// Asks `check` again and again until it holds; panics with `what` and the server's
    /// output if it does not within the tests' patience.
    pub(crate) fn wait_until(&mut self, what: &str, mut check: impl FnMut(&mut Self) -> bool) {
        let deadline = Instant::now() + patience();
        while !check(self) {
            assert!(
                Instant::now() < deadline,
                "never happened: {what}; output:\n{}",
                self.transcript()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits for the process to exit on its own.
    pub(crate) fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + patience();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "server did not exit:\n{}",
                self.transcript()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sends a signal (e.g. "TERM", "KILL") to the process.
    pub(crate) fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Stops with `stop`, checks the exit is clean, and hands back the folder for a restart.
    pub(crate) fn stop(mut self) -> TempDir {
        let answer = self.command("stop");
        assert!(answer.contains("saved=true"), "{answer}");
        let status = self.wait_exit();
        assert!(status.success(), "exit {status:?}:\n{}", self.transcript());
        self.into_dir()
    }

    /// Hands back the folder of an exited server.
    pub(crate) fn into_dir(mut self) -> TempDir {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let dir = TempDir(std::mem::take(&mut self.dir.0));
        std::mem::forget(self);
        dir
    }

    /// `node scripts/e2e/<name>.js` with this server's ports in its environment.
    fn node(&self, name: &str, env: &[(&str, &str)]) -> Command {
        let scripts = repo().join("scripts");
        let mut node = Command::new("node");
        node.arg(scripts.join("e2e").join(format!("{name}.js")))
            .current_dir(&scripts)
            .env("HORDE_PORT", self.port.to_string())
            .env("HORDE_RCON_PORT", self.rcon_port.to_string())
            .env("HORDE_RCON_PASSWORD", RCON_PASSWORD)
            .env("HORDE_WAIT_MS", patience().as_millis().to_string())
            .envs(env.iter().copied());
        node
    }

    /// Starts `scripts/e2e/<name>.js` without waiting for it (a watcher while the test drives
    /// the console).
    pub(crate) fn scenario_in_background(&self, name: &str, env: &[(&str, &str)]) -> Child {
        needs::test_clients();
        self.node(name, env)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run node")
    }

    /// Runs `scripts/e2e/<name>.js` against this server; returns the JSON object of its last
    /// line, which says `"ok": true`. Panics with the client's and the server's output when
    /// the scenario fails.
    pub(crate) fn scenario(&self, name: &str) -> serde_json::Value {
        self.scenario_with(name, &[])
    }

    /// Like `scenario`, with extra environment variables for the script.
    pub(crate) fn scenario_with(&self, name: &str, env: &[(&str, &str)]) -> serde_json::Value {
        needs::test_clients();
        let output = self.node(name, env).output().expect("run node");
        let stdout = String::from_utf8_lossy(&output.stdout).to_string();
        let stderr = String::from_utf8_lossy(&output.stderr).to_string();
        let last = stdout.lines().last().unwrap_or_default();
        let result: Option<serde_json::Value> = serde_json::from_str(last).ok();
        assert!(
            output.status.success() && result.as_ref().is_some_and(|r| r["ok"] == true),
            "scenario {name} failed\n--- client stdout\n{stdout}\n--- client stderr\n{stderr}\n--- server\n{}",
            self.transcript()
        );
        // The clients' protocol library prints a packet it could not read whole and goes on.
        assert!(
            !stdout.contains("partial packet"),
            "scenario {name}: the client misread a packet\n{stdout}"
        );
        eprintln!("{stderr}");
        result.unwrap_or_default()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What horde's reader makes of `chunks` of the world folder `world`, as the server's loader
/// thread reads them.
pub(crate) fn horde_reads(
    world: &Path,
    biomes: &horde::world::anvil::BiomeNames,
    chunks: &[valence::prelude::ChunkPos],
) -> std::collections::HashMap<valence::prelude::ChunkPos, horde::world::anvil::Loaded> {
    let mut loader = horde::world::anvil::Loader::start(
        horde::world::anvil::Regions::new(world),
        biomes.clone(),
        valence::protocol::CompressionThreshold::default(),
    );
    for &pos in chunks {
        loader.request(pos);
    }
    let mut read = std::collections::HashMap::new();
    while read.len() < chunks.len() {
        read.extend(loader.finished());
        std::thread::yield_now();
    }
    read
}
