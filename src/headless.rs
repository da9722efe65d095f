//! A server without network or console, for tests, benchmarks and offline simulations: the
//! same plugins, driven one `update()` at a time.

use std::path::Path;
use std::time::Duration;

use valence::prelude::*;

use crate::config::Config;
use crate::world::{ChunkLifecycle, WorldSpawn};
use crate::{build_app, Launch};

/// Builds a headless server on `world_dir` and runs it until the spawn point is known.
pub fn start(config: Config, world_dir: &Path) -> anyhow::Result<App> {
    let mut app = build_app(Launch {
        config,
        config_path: None,
        world_dir: world_dir.to_path_buf(),
        network: false,
        stdin: false,
    })?;
    run_until(&mut app, "the spawn point is found", |app| {
        app.world.resource::<WorldSpawn>().pos.is_some()
    });
    Ok(app)
}

/// Updates until `done` holds. Terrain comes from a worker thread, so each update also gives
/// it a moment; the bound is a count of updates, never a duration.
pub fn run_until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    for _ in 0..20_000 {
        app.update();
        if done(app) {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("never happened: {what}");
}

/// Updates until no chunk a client needs is still loading.
pub fn run_until_loaded(app: &mut App) {
    run_until(app, "the terrain around the players is loaded", |app| {
        app.world.resource::<ChunkLifecycle>().pending() == 0
    });
}
