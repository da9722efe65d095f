//! A horde app without network, with one mock client: Valence's headless harness around
//! horde's own plugins and world.

use horde::config::Config;
use horde::world::WorldSpawn;
use valence::prelude::*;
use valence::testing::{create_mock_client, MockClientHelper};

use super::TempDir;

pub struct Harness {
    pub app: App,
    pub client: Entity,
    pub helper: MockClientHelper,
    _world: TempDir,
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
    let mut app = horde::headless::start(config, world.path()).unwrap();
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
