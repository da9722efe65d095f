//! A horde app without network, with one mock client: Valence's headless harness around
//! horde's own plugins and world.

use horde::config::Config;
use horde::world::WorldSpawn;
use valence::prelude::*;
use valence::protocol::packets::play::game_state_change_s2c::GameEventKind;
use valence::protocol::packets::play::{GameStateChangeS2c, PlaySoundS2c, PlayerInteractBlockC2s};
use valence::protocol::sound::SoundId;
use valence::protocol::{Packet, Sound, VarInt};
use valence::testing::{create_mock_client, MockClientHelper, PacketFrames};

use super::TempDir;

pub(crate) struct Harness {
    pub(crate) app: App,
    pub(crate) client: Entity,
    pub(crate) helper: MockClientHelper,
    pub(crate) world: TempDir,
}

/// A harness with the default config, natural spawning off so that tests see only the zombies
/// they summon, and no spawn protection (the player builds by the spawn).
pub(crate) fn harness() -> Harness {
    harness_with(quiet())
}

/// The default config, natural spawning off and no spawn protection.
fn quiet() -> Config {
    let mut config = Config::default();
    config.spawning.enabled = false;
    config.server.spawn_protection = 0;
    config
}

/// Like [`harness`], on a world folder holding one region file of a real world, `region`,
/// copied in as `region/{name}` (`r.X.Z.mca`).
pub(crate) fn harness_on_region(region: &std::path::Path, name: &str) -> Harness {
    let world = TempDir::new("real-region");
    std::fs::create_dir_all(world.path().join("region")).unwrap();
    std::fs::copy(region, world.path().join("region").join(name)).unwrap();
    harness_in(quiet(), world)
}

/// A harness running `config`, its player joined and the chunks around them loaded: terrain
/// comes from a worker thread, and a test must not depend on how fast it runs.
pub(crate) fn harness_with(config: Config) -> Harness {
    harness_in(config, TempDir::new("headless"))
}

/// Like [`harness_with`], on the world folder `world` (which may hold a vanilla world's files).
pub(crate) fn harness_in(config: Config, world: TempDir) -> Harness {
    harness_as(config, world, None)
}

/// Like [`harness_in`], the player joining as `id` (the same player as before) when given.
fn harness_as(config: Config, world: TempDir, id: Option<UniqueId>) -> Harness {
    let mut app = horde::headless::start(config, world.path()).unwrap();
    let (bundle, helper) = create_mock_client("tester");
    let client = app.world.spawn(bundle).id();
    if let Some(id) = id {
        app.world.entity_mut(client).insert(id);
    }
    app.update();
    horde::headless::run_until_loaded(&mut app);
    Harness {
        app,
        client,
        helper,
        world,
    }
}

impl Harness {
    /// Runs a console command, as typed on stdin. A `fill` must find its chunks loaded, or
    /// the arena a test builds would have holes.
    pub(crate) fn run(&mut self, line: &str) -> String {
        let answer = match horde::console::command::parse(line) {
            Ok(command) => horde::console::execute(&mut self.app.world, command),
            Err(usage) => usage,
        };
        assert!(
            !answer.contains(" unloaded=") || answer.contains(" unloaded=0 "),
            "{line}: {answer}"
        );
        answer
    }

    /// Saves, stops and starts the server again on the same world and config, as a restart;
    /// the same player joins again.
    pub(crate) fn restarted(mut self) -> Harness {
        horde::save::save_now(&mut self.app.world).unwrap();
        let config = self.app.world.resource::<Config>().clone();
        let id = self.app.world.get::<UniqueId>(self.client).copied();
        let world = self.world;
        drop(self.app);
        let mut h = harness_as(config, world, id);
        h.app.update();
        h
    }

    /// The player right-clicks the top of `on` with their main hand; two ticks run.
    pub(crate) fn use_on(&mut self, on: BlockPos) {
        self.helper.send(&PlayerInteractBlockC2s {
            hand: Hand::Main,
            position: on,
            face: Direction::Up,
            cursor_pos: Vec3::new(0.5, 1.0, 0.5),
            head_inside_block: false,
            sequence: VarInt(1),
        });
        self.app.update();
        self.app.update();
    }

    /// The game events (`GameStateChangeS2c`: rain, a missing bed...) the player was sent
    /// since the last look.
    pub(crate) fn game_events(&mut self) -> Vec<GameEventKind> {
        self.helper
            .collect_received()
            .0
            .iter()
            .filter(|f| f.id == GameStateChangeS2c::ID)
            .filter_map(|f| f.decode::<GameStateChangeS2c>().ok())
            .map(|e| e.kind)
            .collect()
    }

    /// Summons a zombie at the middle of block `at` and returns it.
    pub(crate) fn summon(&mut self, at: BlockPos) -> Entity {
        let line = self.run(&format!(
            "summon zombie {} {} {}",
            at.x as f64 + 0.5,
            at.y,
            at.z as f64 + 0.5
        ));
        let id: u32 = line
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix("id="))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        self.app
            .world
            .query_filtered::<Entity, With<horde::zombie::Zombie>>()
            .iter(&self.app.world)
            .find(|e| e.index() == id)
            .unwrap()
    }

    /// The block at `at` in the overworld (loaded).
    pub(crate) fn block(&mut self, at: BlockPos) -> BlockState {
        self.app
            .world
            .query_filtered::<&ChunkLayer, With<horde::world::Overworld>>()
            .single(&self.app.world)
            .block(at)
            .unwrap()
            .state
    }

    /// Fills the box from `from` to `to` with `block`, as the console's `fill`.
    pub(crate) fn fill(&mut self, from: BlockPos, to: BlockPos, block: &str) {
        self.run(&format!(
            "fill {} {} {} {} {} {} {block}",
            from.x, from.y, from.z, to.x, to.y, to.z
        ));
    }

    /// Widens the player's view to `chunks` and waits for them to load, for zombies farther
    /// out than the mock client's 2 chunks.
    pub(crate) fn view(&mut self, chunks: u8) {
        self.app
            .world
            .get_mut::<ViewDistance>(self.client)
            .unwrap()
            .set(chunks);
        self.app.update();
        horde::headless::run_until_loaded(&mut self.app);
    }

    /// How many of `item` the player carries.
    pub(crate) fn count(&self, item: ItemKind) -> u32 {
        let inventory = self.app.world.get::<Inventory>(self.client).unwrap();
        (0..inventory.slot_count())
            .filter_map(|i| inventory.slot(i))
            .filter(|s| s.item == item)
            .map(|s| s.count() as u32)
            .sum()
    }

    pub(crate) fn spawn_point(&self) -> DVec3 {
        self.app.world.resource::<WorldSpawn>().pos.unwrap()
    }

    /// At night, a flat stone field round the spawn, 40 blocks across, open 10 blocks above;
    /// returns the spawn block, where the field's top is.
    pub(crate) fn stone_field(&mut self) -> BlockPos {
        let s = self.spawn_point();
        let (x, y, z) = (s.x.floor() as i32, s.y.floor() as i32, s.z.floor() as i32);
        self.run("time set midnight");
        self.fill(
            BlockPos::new(x - 20, y - 8, z - 20),
            BlockPos::new(x + 20, y - 1, z + 20),
            "stone",
        );
        self.fill(
            BlockPos::new(x - 20, y, z - 20),
            BlockPos::new(x + 20, y + 10, z + 20),
            "air",
        );
        BlockPos::new(x, y, z)
    }

    /// Puts the player at the middle of block `at`.
    pub(crate) fn put_player(&mut self, at: BlockPos) {
        self.app.world.get_mut::<Position>(self.client).unwrap().0 =
            DVec3::new(at.x as f64 + 0.5, at.y as f64, at.z as f64 + 0.5);
    }

    /// The player digs at `at` (starts, stops or aborts), and a tick runs.
    pub(crate) fn dig(&mut self, at: BlockPos, state: DiggingState) {
        let client = self.client;
        self.app.world.send_event(DiggingEvent {
            client,
            position: at,
            direction: valence::protocol::Direction::Up,
            state,
        });
        self.app.update();
    }
}

/// The sounds in `frames`, with their volumes, as the registry names them.
pub(crate) fn sounds(frames: &PacketFrames) -> Vec<(Sound, f32)> {
    frames
        .0
        .iter()
        .filter(|f| f.id == PlaySoundS2c::ID)
        .filter_map(|f| {
            let packet = f.decode::<PlaySoundS2c>().ok()?;
            match packet.id {
                SoundId::Reference { id } => Some((Sound::from_raw(id.0 as u16)?, packet.volume)),
                SoundId::Direct { .. } => None,
            }
        })
        .collect()
}
