//! `horde [--config PATH] [--world DIR] [--port N]`: runs the server until `stop`, SIGINT or
//! SIGTERM, saving on the way out.

use std::path::PathBuf;
use std::process::ExitCode;

use horde::config::Config;
use horde::console::Request;
use horde::{build_app, Launch};

const USAGE: &str = "usage: horde [--config PATH] [--world DIR] [--port N]";

struct Args {
    config: PathBuf,
    world: Option<PathBuf>,
    port: Option<u16>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut parsed = Args {
        config: PathBuf::from("config.toml"),
        world: None,
        port: None,
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value; {USAGE}"));
        match arg.as_str() {
            "--config" => parsed.config = value("--config")?.into(),
            "--world" => parsed.world = Some(value("--world")?.into()),
            "--port" => {
                let port = value("--port")?;
                parsed.port = Some(
                    port.parse()
                        .map_err(|_| format!("--port {port}: expected a port in 0..=65535"))?,
                );
            }
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unknown argument {other:?}; {USAGE}")),
        }
    }
    Ok(Some(parsed))
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> anyhow::Result<()> {
    let mut config = Config::load(&args.config)?;
    if let Some(port) = args.port {
        config.server.port = port;
    }
    let world_dir = args
        .world
        .unwrap_or_else(|| PathBuf::from("worlds").join(&config.server.world));
    let mut app = build_app(Launch {
        config,
        config_path: Some(args.config.clone()),
        world_dir,
        network: true,
        stdin: true,
    })?;

    // The first SIGINT/SIGTERM stops the server like `stop`; a second one gives up on saving.
    let inbox = app.world.resource::<horde::console::Inbox>().sender();
    let mut signalled = false;
    ctrlc::set_handler(move || {
        if signalled {
            eprintln!("second signal: exiting without waiting for the save");
            std::process::exit(1);
        }
        signalled = true;
        let _ = inbox.send(Request {
            line: "stop".into(),
            reply: None,
        });
    })?;
    app.run();
    Ok(())
}

/// jemalloc returns freed pages to the system; glibc's arenas kept them (see Cargo.toml).
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;
