//! The world save: what horde adds to the world folder, under `data/` as vanilla keeps its own
//! `data/*.dat` files. Written at every autosave, on `save-all` and on shutdown.

mod file;

use std::path::Path;

use valence::log::{error, info};
use valence::nbt::{Compound, Value};
use valence::prelude::*;

use crate::config::Config;
use crate::daylight::{Phase, WorldPhase};
use crate::time::WorldClock;
use crate::world::WorldDir;
pub use file::{SaveFile, DATA_VERSION};

/// Format version of `horde_world.dat`.
const WORLD_FORMAT: i32 = 1;

/// `data/horde_world.dat`: the world clock and phase.
pub fn world_file(world_dir: &Path) -> SaveFile {
    SaveFile::new(world_dir.join("data").join("horde_world.dat"), WORLD_FORMAT)
}

pub struct SavePlugin;

impl Plugin for SavePlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(Last, autosave);
    }
}

/// Restores the saved clock and phase, if any. An unreadable save falls back as
/// `SaveFile::load` says; a save from a newer horde is an error.
pub fn load_world(
    world_dir: &Path,
    clock: &mut WorldClock,
    phase: &mut Phase,
) -> anyhow::Result<()> {
    let Some(root) = world_file(world_dir).load()? else {
        return Ok(());
    };
    let long = |key: &str| match root.get(key) {
        Some(Value::Long(v)) => Some(*v),
        _ => None,
    };
    if let (Some(age), Some(day_time), Some(day)) = (long("Time"), long("DayTime"), long("Day")) {
        clock.age = age.max(0);
        clock.day = day.max(0);
        // The day length may have changed since: keep the same fraction of the day.
        let saved_length = long("DayLength")
            .filter(|l| *l > 0)
            .unwrap_or(clock.day_length);
        clock.day_time = (day_time.rem_euclid(saved_length) * clock.day_length / saved_length)
            .clamp(0, clock.day_length - 1);
    }
    if let (Some(Value::Int(p)), Some(next)) = (root.get("Phase"), long("NextPhaseAt")) {
        phase.phase = (*p).max(0) as u32;
        phase.next_rise = next;
    }
    Ok(())
}

/// Writes everything horde keeps in the world folder.
pub fn save_all(world: &mut World) -> anyhow::Result<()> {
    let dir = world.resource::<WorldDir>().0.clone();
    let clock = world.resource::<WorldClock>();
    let mut root = Compound::new();
    root.insert("Time", clock.age);
    root.insert("DayTime", clock.day_time);
    root.insert("Day", clock.day);
    root.insert("DayLength", clock.day_length);
    let phase = world.resource::<WorldPhase>().0;
    root.insert("Phase", phase.phase as i32);
    root.insert("NextPhaseAt", phase.next_rise);
    world_file(&dir).write(&root)
}

fn autosave(world: &mut World) {
    let every = world.resource::<Config>().save.autosave_ticks as i64;
    let tick = world.resource::<Server>().current_tick();
    if tick == 0 || tick % every != 0 {
        return;
    }
    match save_all(world) {
        Ok(()) => info!("autosaved the world"),
        Err(e) => error!("autosave failed: {e:#}"),
    }
}
