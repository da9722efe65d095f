//! The world clock: it advances one tick per tick (the time of day only while
//! `time.daylight_cycle`, vanilla's `doDaylightCycle`, is on), is sent to every client on join,
//! once a second and when the rule changes, and is saved with the world.

use valence::nbt::{Compound, Value};
use valence::prelude::*;
use valence::protocol::packets::play::WorldTimeUpdateS2c;
use valence::protocol::WritePacket;

use crate::common::events::SkipNight;
use crate::config::{Config, ConfigChanged};
use crate::world::Overworld;

/// Ticks in a vanilla day: the scale the client's sky is drawn in.
const VANILLA_DAY: i64 = 24_000;

pub struct TimePlugin;

impl Plugin for TimePlugin {
    fn build(&self, app: &mut App) {
        // The clock itself is the world's: `build_base` puts it in from the save, or new.
        app.add_event::<SkipNight>().add_systems(
            Update,
            (advance_clock, skip_nights, send_clock)
                .chain()
                .in_set(crate::schedule::TickSet::World),
        );
    }
}

/// World age and time of day, in ticks.
#[derive(Resource, Debug, Clone, PartialEq, Eq)]
pub struct WorldClock {
    /// Ticks the world has run, over all sessions.
    pub age: i64,
    /// Ticks since the last sunrise, `0..day_length`.
    pub day_time: i64,
    /// Days completed (vanilla's `time query day`).
    pub day: i64,
    pub day_length: i64,
}

/// Named times of day, in vanilla ticks, as `time set` knows them.
pub const NAMED_TIMES: [(&str, i64); 4] = [
    ("day", 1000),
    ("noon", 6000),
    ("night", 13_000),
    ("midnight", 18_000),
];

impl WorldClock {
    pub fn new(day_length: i64, start_time: i64) -> Self {
        Self {
            age: 0,
            day_time: start_time,
            day: 0,
            day_length,
        }
    }

    /// One tick: the world ages; the time of day moves if `daylight` (`doDaylightCycle`).
    pub fn tick(&mut self, daylight: bool) {
        self.age += 1;
        if !daylight {
            return;
        }
        self.day_time += 1;
        if self.day_time >= self.day_length {
            self.day_time = 0;
            self.day += 1;
        }
    }

    /// Sets the time of day from a vanilla-scale value (so `noon` is noon whatever the day
    /// length); values past one day advance the day counter like vanilla's `time set`.
    pub fn set_vanilla(&mut self, vanilla_ticks: i64) {
        let ticks = vanilla_ticks * self.day_length / VANILLA_DAY;
        self.day += ticks.div_euclid(self.day_length);
        self.day_time = ticks.rem_euclid(self.day_length);
    }

    /// The time of day in vanilla scale.
    pub fn vanilla_time(&self) -> i64 {
        self.day_time * VANILLA_DAY / self.day_length
    }

    /// Vanilla's `dayTime`: ticks of days gone by and of today, in vanilla scale.
    pub fn vanilla_day_time(&self) -> i64 {
        self.day * VANILLA_DAY + self.vanilla_time()
    }

    /// Whether the sun is up (vanilla: day from 0 to 12000, dusk and night after).
    pub fn is_day(&self) -> bool {
        self.vanilla_time() < 12_000
    }

    /// The packet that shows this time. Without the `daylight` cycle the client's own sun is
    /// frozen (a negative time, as vanilla sends it); with a non-vanilla day length too, so
    /// that it does not run at vanilla speed between updates.
    pub fn packet(&self, daylight: bool) -> WorldTimeUpdateS2c {
        let time = self.vanilla_day_time();
        WorldTimeUpdateS2c {
            world_age: self.age,
            time_of_day: if daylight && self.day_length == VANILLA_DAY {
                time
            } else {
                -time.max(1)
            },
        }
    }

    /// Writes the clock into the world save's root.
    pub fn save(&self, root: &mut Compound) {
        root.insert("Time", self.age);
        root.insert("DayTime", self.day_time);
        root.insert("Day", self.day);
        root.insert("DayLength", self.day_length);
    }

    /// Reads what [`WorldClock::save`] wrote; a save without a clock leaves it as it is. The
    /// day length may have changed since: the time of day keeps the same fraction of the day.
    pub fn load(&mut self, root: &Compound) {
        let long = |key: &str| match root.get(key) {
            Some(Value::Long(v)) => Some(*v),
            _ => None,
        };
        let (Some(age), Some(day_time), Some(day)) = (long("Time"), long("DayTime"), long("Day"))
        else {
            return;
        };
        self.age = age.max(0);
        self.day = day.max(0);
        let saved_length = long("DayLength")
            .filter(|l| *l > 0)
            .unwrap_or(self.day_length);
        self.day_time = (day_time.rem_euclid(saved_length) * self.day_length / saved_length)
            .clamp(0, self.day_length - 1);
    }

    /// `time query` (logfmt).
    pub fn report(&self) -> String {
        format!(
            "daytime={} day={} gametime={} day_length={} is_day={}",
            self.day_time,
            self.day,
            self.age,
            self.day_length,
            self.is_day()
        )
    }
}

/// Parses `day|noon|night|midnight|TICKS` into vanilla ticks.
pub fn parse_time(arg: &str) -> Option<i64> {
    NAMED_TIMES
        .iter()
        .find(|(name, _)| *name == arg)
        .map(|(_, t)| *t)
        .or_else(|| {
            arg.parse::<i64>()
                .ok()
                .filter(|t| (0..=i32::MAX as i64).contains(t))
        })
}

fn advance_clock(mut clock: ResMut<WorldClock>, config: Res<Config>) {
    clock.tick(config.time.daylight_cycle);
}

fn send_clock(
    clock: Res<WorldClock>,
    server: Res<Server>,
    config: Res<Config>,
    mut changed: EventReader<ConfigChanged>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    mut joined: Query<&mut Client, Added<Client>>,
) {
    let packet = clock.packet(config.time.daylight_cycle);
    let rule_changed = changed.iter().any(|c| c.touches("time.daylight_cycle"));
    if rule_changed || clock.age % server.tick_rate().get() as i64 == 0 {
        if let Ok(mut layer) = layers.get_single_mut() {
            layer.write_packet(&packet);
        }
    }
    for mut client in &mut joined {
        client.write_packet(&packet);
    }
}

/// A night slept through ends at the next sunrise (vanilla's `dayTime + 24000 - dayTime %
/// 24000`: the night is the second half of a vanilla day), unless the daylight cycle is off
/// (vanilla's `ServerLevel.tick` then leaves the time); the world's age, and whatever counts
/// by it, does not move.
fn skip_nights(
    mut skips: EventReader<SkipNight>,
    mut clock: ResMut<WorldClock>,
    config: Res<Config>,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
) {
    if skips.iter().count() == 0 || !config.time.daylight_cycle {
        return;
    }
    clock.set_vanilla(VANILLA_DAY);
    if let Ok(mut layer) = layers.get_single_mut() {
        layer.write_packet(&clock.packet(true));
    }
}

/// `time set`: moves the clock and tells every client at once.
pub fn set_time(world: &mut World, vanilla_ticks: i64) -> String {
    let daylight = world.resource::<Config>().time.daylight_cycle;
    let mut clock = world.resource_mut::<WorldClock>();
    clock.set_vanilla(vanilla_ticks);
    let packet = clock.packet(daylight);
    let report = clock.report();
    let mut layers = world.query_filtered::<&mut ChunkLayer, With<Overworld>>();
    if let Ok(mut layer) = layers.get_single_mut(world) {
        layer.write_packet(&packet);
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_days() {
        let mut c = WorldClock::new(24_000, 23_999);
        c.tick(true);
        assert_eq!((c.age, c.day_time, c.day), (1, 0, 1));
    }

    #[test]
    fn without_the_daylight_cycle_only_the_age_moves() {
        let mut c = WorldClock::new(24_000, 6_000);
        c.tick(false);
        assert_eq!((c.age, c.day_time, c.day), (1, 6_000, 0));
    }

    #[test]
    fn named_times_scale_with_day_length() {
        assert_eq!(parse_time("noon"), Some(6000));
        assert_eq!(parse_time("1234"), Some(1234));
        assert_eq!(parse_time("-3"), None);
        assert_eq!(parse_time("dusk"), None);
        let mut c = WorldClock::new(48_000, 0);
        c.set_vanilla(6000);
        assert_eq!(c.day_time, 12_000);
        assert_eq!(c.vanilla_time(), 6000);
        assert!(c.is_day());
        c.set_vanilla(18_000);
        assert!(!c.is_day());
        c.set_vanilla(30_000);
        assert_eq!((c.day, c.day_time), (1, 12_000));
    }

    #[test]
    fn packet_freezes_the_client_sun_for_custom_days_and_without_the_cycle() {
        let mut c = WorldClock::new(24_000, 100);
        assert_eq!(c.packet(true).time_of_day, 100);
        assert_eq!(c.packet(false).time_of_day, -100, "vanilla's frozen sun");
        c = WorldClock::new(12_000, 100);
        assert_eq!(c.packet(true).time_of_day, -200);
    }

    #[test]
    fn a_saved_clock_keeps_its_fraction_of_a_changed_day() {
        let mut saved = WorldClock::new(24_000, 6_000);
        saved.day = 3;
        let mut root = Compound::new();
        saved.save(&mut root);
        let mut c = WorldClock::new(12_000, 0);
        c.load(&root);
        assert_eq!((c.day, c.day_time, c.day_length), (3, 3_000, 12_000));
        let mut fresh = WorldClock::new(12_000, 500);
        fresh.load(&Compound::new());
        assert_eq!(fresh, WorldClock::new(12_000, 500));
    }
}
