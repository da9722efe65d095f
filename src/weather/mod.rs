//! Weather: vanilla's cycle of clear spells, rain and thunderstorms, shown to every client and
//! saved with the world clock. What it does to zombies is asked of it: rain under open sky puts
//! fires out (with [`biome_rains`]), and a thunderstorm darkens the day so that the sun burns
//! nobody and zombies spawn and travel as by night ([`Weather::sun_is_up`]).

pub mod rules;

use valence::log::info;
use valence::nbt::{Compound, Value};
use valence::prelude::*;
use valence::protocol::packets::play::game_state_change_s2c::GameEventKind;
use valence::protocol::packets::play::GameStateChangeS2c;
use valence::protocol::WritePacket;
use valence::registry::biome::Biome;

use crate::common::events::SkipNight;
use crate::config::Config;
use crate::random::Stream;
use crate::time::WorldClock;
use crate::world::Overworld;
pub use rules::{Kind, Sky};

pub struct WeatherPlugin;

impl Plugin for WeatherPlugin {
    fn build(&self, app: &mut App) {
        // The weather itself is the world's: `build_base` puts it in from the save, or new.
        app.add_event::<SkipNight>().add_systems(
            Update,
            (advance_weather, show_weather_to_joiners)
                .chain()
                .in_set(crate::schedule::TickSet::World),
        );
    }
}

/// The world's weather and the random stream its spans are drawn from.
#[derive(Resource, Debug, Clone)]
pub struct Weather {
    pub sky: Sky,
    rng: Stream,
}

impl Weather {
    /// A clear sky; the stream follows from the world seed.
    pub fn new(seed: i64) -> Self {
        Self {
            sky: Sky::default(),
            rng: Stream::new(crate::random::mix(seed as u64 ^ 0x0077_6561_7468_6572)),
        }
    }

    /// Whether the sun acts now: day by the clock, and no storm dark enough to hide it.
    pub fn sun_is_up(&self, clock: &WorldClock) -> bool {
        clock.is_day() && self.sky.lets_sun_through(clock.vanilla_time())
    }

    /// `weather clear|rain|thunder [duration]`, the duration in ticks.
    pub fn set(&mut self, kind: Kind, ticks: Option<u32>, config: &crate::config::WeatherConfig) {
        self.sky.set(kind, ticks, &mut self.rng, config);
    }

    /// `weather` (logfmt).
    pub fn report(&self) -> String {
        let s = &self.sky;
        format!(
            "weather={} raining={} thundering={} rain_level={:.2} thunder_level={:.2} clear_ticks={} rain_ticks={} thunder_ticks={}",
            s.name(),
            s.raining,
            s.thundering,
            s.rain_level,
            s.thunder_level,
            s.clear_ticks,
            s.rain_ticks,
            s.thunder_ticks
        )
    }

    /// Writes the weather into the world save's root, with vanilla's `level.dat` names.
    pub fn save(&self, root: &mut Compound) {
        let s = &self.sky;
        root.insert("clearWeatherTime", s.clear_ticks as i32);
        root.insert("rainTime", s.rain_ticks as i32);
        root.insert("thunderTime", s.thunder_ticks as i32);
        root.insert("raining", s.raining);
        root.insert("thundering", s.thundering);
        root.insert("RainLevel", s.rain_level);
        root.insert("ThunderLevel", s.thunder_level);
        root.insert("WeatherSeed", self.rng.seed() as i64);
        root.insert("WeatherDraws", self.rng.draws() as i64);
    }

    /// Reads what [`Weather::save`] wrote; a save without weather leaves it as it is.
    pub fn load(&mut self, root: &Compound) {
        let int = |key: &str| match root.get(key) {
            Some(Value::Int(v)) => Some((*v).max(0) as u32),
            _ => None,
        };
        let flag = |key: &str| matches!(root.get(key), Some(Value::Byte(b)) if *b != 0);
        let level = |key: &str| match root.get(key) {
            Some(Value::Float(v)) if v.is_finite() => v.clamp(0.0, 1.0),
            _ => 0.0,
        };
        let (Some(clear), Some(rain), Some(thunder)) =
            (int("clearWeatherTime"), int("rainTime"), int("thunderTime"))
        else {
            return;
        };
        self.sky = Sky {
            clear_ticks: clear,
            rain_ticks: rain,
            thunder_ticks: thunder,
            raining: flag("raining"),
            thundering: flag("thundering"),
            rain_level: level("RainLevel"),
            thunder_level: level("ThunderLevel"),
        };
        if let (Some(Value::Long(seed)), Some(Value::Long(draws))) =
            (root.get("WeatherSeed"), root.get("WeatherDraws"))
        {
            self.rng = Stream::resume(*seed as u64, (*draws).max(0) as u64);
        }
    }
}

/// Whether rain falls in a biome: vanilla's precipitation, where it is warm enough not to snow
/// (its base temperature; vanilla also cools high ground).
pub fn biome_rains(biome: &Biome) -> bool {
    biome.has_precipitation && biome.temperature >= 0.15
}

/// Game event ids of 1.20.1. Valence 0.2.0-alpha.1 names 1 and 2 the wrong way round: id 1
/// (its `EndRaining`) is vanilla's "start raining".
const START_RAINING: GameEventKind = GameEventKind::EndRaining;
const STOP_RAINING: GameEventKind = GameEventKind::BeginRaining;

fn event(kind: GameEventKind, value: f32) -> GameStateChangeS2c {
    GameStateChangeS2c { kind, value }
}

/// One tick of the cycle (when enabled: vanilla's `doWeatherCycle`; off, the sky stays as it
/// is) and of the fading levels; clients hear every change as vanilla tells them. A night
/// slept through ends the rain (`resetWeatherCycle`: a clear spell is drawn anew).
fn advance_weather(
    mut weather: ResMut<Weather>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    mut skips: EventReader<SkipNight>,
    config: Res<Config>,
) {
    let before = weather.sky;
    let w = &mut *weather;
    let slept = skips.iter().count() > 0;
    if slept && config.weather.enabled && w.sky.raining {
        w.set(Kind::Clear, None, &config.weather);
    }
    if config.weather.enabled {
        w.sky.cycle(&mut w.rng, &config.weather);
    }
    w.sky.fade(config.weather.fade_per_tick);
    let after = w.sky;
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    if after.rain_level != before.rain_level {
        layer.write_packet(&event(GameEventKind::RainLevelChange, after.rain_level));
    }
    if after.thunder_level != before.thunder_level {
        layer.write_packet(&event(
            GameEventKind::ThunderLevelChange,
            after.thunder_level,
        ));
    }
    if after.is_raining() != before.is_raining() {
        let kind = if after.is_raining() {
            START_RAINING
        } else {
            STOP_RAINING
        };
        layer.write_packet(&event(kind, 0.0));
        layer.write_packet(&event(GameEventKind::RainLevelChange, after.rain_level));
        layer.write_packet(&event(
            GameEventKind::ThunderLevelChange,
            after.thunder_level,
        ));
    }
    if after.name() != before.name() {
        info!("the weather is now {}", after.name());
    }
}

/// A player who joins while it rains sees the rain, as vanilla's `sendLevelInfo`.
fn show_weather_to_joiners(mut joined: Query<&mut Client, Added<Client>>, weather: Res<Weather>) {
    let sky = weather.sky;
    if !sky.is_raining() {
        return;
    }
    for mut client in &mut joined {
        client.write_packet(&event(START_RAINING, 0.0));
        client.write_packet(&event(GameEventKind::RainLevelChange, sky.rain_level));
        client.write_packet(&event(GameEventKind::ThunderLevelChange, sky.thunder_level));
    }
}

/// `weather`: the weather now.
pub fn query(world: &mut World) -> String {
    world.resource::<Weather>().report()
}

/// `weather clear|rain|thunder [duration]`, the duration in ticks.
pub fn command(world: &mut World, kind: Kind, ticks: Option<u32>) -> String {
    let config = world.resource::<Config>().weather.clone();
    let mut weather = world.resource_mut::<Weather>();
    weather.set(kind, ticks, &config);
    info!("weather set to {kind:?}");
    weather.report()
}
