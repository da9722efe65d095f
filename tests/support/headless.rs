//! A horde app without network, with one mock client: Valence's headless harness around
//! horde's own plugins and world.

use horde::config::Config;
use horde::world::WorldSpawn;
use horde::{build_app, Launch};
use valence::prelude::*;
use valence::testing::{create_mock_client, MockClientHelper};

use super::TempDir;

pub struct Harness {
    pub app: App,
    pub client: Entity,
    pub helper: MockClientHelper,
    _world: TempDir,
}

/// Updates until `done` holds; terrain comes from a worker thread, so this is bounded by a
/// number of ticks, not by time.
pub fn update_until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    for _ in 0..2000 {
        app.update();
        if done(app) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("never happened: {what}");
}

/// A harness with the default config, natural spawning off so that tests see only the zombies
/// they summon.
pub fn harness() -> Harness {
    let mut config = Config::default();
    config.spawning.enabled = false;
    harness_with(config)
}

/// A harness running `config`.
pub fn harness_with(config: Config) -> Harness {
    let world = TempDir::new("headless");
    let mut app = build_app(Launch {
        config,
        config_path: None,
        world_dir: world.path().to_path_buf(),
        network: false,
        stdin: false,
    })
    .unwrap();
    update_until(&mut app, "the spawn point is found", |app| {
        app.world.resource::<WorldSpawn>().pos.is_some()
    });
    let (bundle, helper) = create_mock_client("tester");
    let client = app.world.spawn(bundle).id();
    app.update();
    Harness {
        app,
        client,
        helper,
        _world: world,
    }
}

impl Harness {
    /// Runs a console command, as typed on stdin.
    pub fn run(&mut self, line: &str) -> String {
        match horde::console::command::parse(line) {
            Ok(command) => horde::console::execute(&mut self.app.world, command),
            Err(usage) => usage,
        }
    }

    pub fn spawn_point(&self) -> DVec3 {
        self.app.world.resource::<WorldSpawn>().pos.unwrap()
    }
}
