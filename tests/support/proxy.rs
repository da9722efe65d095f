//! A real Minecraft proxy in front of test servers: infrarust, pinned and installed by
//! `scripts/test.sh` into a cache outside the repository, speaking Velocity's modern forwarding.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use super::{free_port, patience, TempDir};

/// The pinned proxy's binary: `HORDE_INFRARUST`, which scripts/test.sh sets.
fn binary() -> PathBuf {
    super::needs::infrarust()
}

/// A running infrarust on a free loopback port, balancing logins round robin over `backends`
/// in its offline mode (no Mojang authentication, vanilla offline UUIDs forwarded).
pub(crate) struct Proxy {
    child: Child,
    pub(crate) port: u16,
    transcript: Arc<Mutex<Vec<String>>>,
    _dir: TempDir,
}

impl Proxy {
    pub(crate) fn start(name: &str, backends: &[u16], secret: &str) -> Self {
        let dir = TempDir::new(name);
        let port = free_port();
        let root = dir.path();
        std::fs::create_dir_all(root.join("servers")).unwrap();
        std::fs::write(root.join("forwarding.secret"), secret).unwrap();
        std::fs::write(
            root.join("infrarust.toml"),
            format!(
                "bind = \"127.0.0.1:{port}\"\nservers_dir = \"{servers}\"\nplugins_dir = \"{plugins}\"\n\n\
                 [forwarding]\nmode = \"velocity\"\nsecret_file = \"{secret}\"\n\n\
                 [ban]\nfile = \"{bans}\"\n",
                servers = root.join("servers").display(),
                plugins = root.join("plugins").display(),
                secret = root.join("forwarding.secret").display(),
                bans = root.join("bans.json").display(),
            ),
        )
        .unwrap();
        let addresses: Vec<String> = backends
            .iter()
            .map(|p| format!("\"127.0.0.1:{p}\""))
            .collect();
        std::fs::write(
            root.join("servers/horde.toml"),
            format!(
                "domains = [\"*\"]\naddresses = [{}]\nbalance = \"round_robin\"\n\
                 proxy_mode = \"offline\"\nforwarding_mode = \"velocity\"\n",
                addresses.join(", ")
            ),
        )
        .unwrap();
        let mut child = Command::new(binary())
            .arg("--config")
            .arg(root.join("infrarust.toml"))
            .current_dir(root)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start infrarust");
        let transcript = Arc::new(Mutex::new(Vec::new()));
        let (ready_tx, ready) = mpsc::channel();
        for reader in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let (transcript, ready_tx) = (transcript.clone(), ready_tx.clone());
            std::thread::spawn(move || {
                for line in BufReader::new(reader).lines().map_while(Result::ok) {
                    if line.contains("accepting connections") {
                        let _ = ready_tx.send(());
                    }
                    transcript.lock().unwrap().push(line);
                }
            });
        }
        // Only the readers hold senders now: a proxy that exits ends the wait.
        drop(ready_tx);
        let proxy = Proxy {
            child,
            port,
            transcript,
            _dir: dir,
        };
        if ready.recv_timeout(patience()).is_err() {
            panic!("infrarust never got ready:\n{}", proxy.transcript());
        }
        proxy
    }

    pub(crate) fn transcript(&self) -> String {
        self.transcript.lock().unwrap().join("\n")
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
