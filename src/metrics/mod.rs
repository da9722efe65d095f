//! What the server measures about itself: tick times for `tps`, `mspt` and `perf`, the
//! distributions other modules report (chunk latencies), and the Prometheus endpoint every
//! plugin registers its figures with ([`export`]).

pub mod export;
mod histogram;
pub mod phases;
pub mod tps;

use std::collections::VecDeque;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use valence::log::warn;
use valence::prelude::*;

pub use export::{register, Exported};
pub use histogram::Histogram;

/// A label set of one pair, as the families here use: `state="chasing"`.
pub type Label = [(&'static str, &'static str); 1];
/// A gauge of a float (seconds, ticks a second).
pub type FloatGauge = Gauge<f64, AtomicU64>;

/// The nearest-rank percentile `p` (0..=1) of `sorted` (ascending); `None` when empty.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    let rank = ((sorted.len() as f64 * p).ceil() as usize).max(1);
    sorted.get(rank.min(sorted.len()).checked_sub(1)?).copied()
}

/// A run condition: the tick that starts each second, when exported gauges are refreshed.
pub fn once_a_second(server: Res<Server>) -> bool {
    server.current_tick() % i64::from(server.tick_rate().get()) == 0
}

/// Times every tick from the start of `First` to the end of `Last`, and exports the tick's
/// figures and the process's memory.
pub struct MetricsPlugin;

impl Plugin for MetricsPlugin {
    fn build(&self, app: &mut App) {
        let tick_rate = app.world.resource::<Server>().tick_rate().get();
        let exported = TickMetrics::default();
        // Every window from the start: TPS at the ideal rate, as Paper's averages begin.
        for window in ["1m", "5m", "15m"] {
            exported
                .tps
                .get_or_create(&[("window", window)])
                .set(f64::from(tick_rate));
        }
        for (window, _) in tps::MSPT_WINDOWS {
            drop(exported.mspt.get_or_create(&[("window", window)]));
        }
        register(
            app,
            "horde_tick_duration_seconds",
            "Time from the start to the end of each tick",
            exported.duration.clone(),
        );
        register(
            app,
            "horde_tick_overruns",
            "Ticks that took longer than their budget (1 / tick_rate)",
            exported.overruns.clone(),
        );
        register(
            app,
            "horde_tps",
            "Ticks a second over the last 1, 5 and 15 minutes, as Paper's tps",
            exported.tps.clone(),
        );
        register(
            app,
            "horde_mspt_seconds",
            "Mean tick duration over the last 5 s, 10 s and 1 min, as Paper's mspt",
            exported.mspt.clone(),
        );
        register(
            app,
            "process_resident_memory_bytes",
            "Resident memory of the server process",
            exported.resident.clone(),
        );
        app.insert_resource(TickTimes::new(tick_rate as usize * 60, tick_rate))
            .insert_resource(exported)
            .add_systems(First, start_tick)
            .add_systems(
                Last,
                (end_tick, observe_tick, export_ticks.run_if(once_a_second)).chain(),
            );
        phases::build(app);
    }
}

/// The tick's families: the duration at every tick, the rest once a second (Prometheus
/// scrapes every 15 s by default).
#[derive(Resource)]
struct TickMetrics {
    duration: prometheus_client::metrics::histogram::Histogram,
    overruns: Counter,
    tps: Family<Label, FloatGauge>,
    mspt: Family<Label, FloatGauge>,
    resident: Gauge,
}

impl Default for TickMetrics {
    fn default() -> Self {
        Self {
            duration: export::seconds_histogram(),
            overruns: Counter::default(),
            tps: Family::default(),
            mspt: Family::default(),
            resident: Gauge::default(),
        }
    }
}

fn observe_tick(times: Res<TickTimes>, exported: Res<TickMetrics>) {
    if let Some(&(_, took)) = times.ticks.back() {
        exported.duration.observe(took.as_secs_f64());
    }
}

fn export_ticks(times: Res<TickTimes>, exported: Res<TickMetrics>) {
    exported
        .overruns
        .inner()
        .store(times.overruns, std::sync::atomic::Ordering::Relaxed);
    for (window, tps) in ["1m", "5m", "15m"].into_iter().zip(times.tps.averages()) {
        exported.tps.get_or_create(&[("window", window)]).set(tps);
    }
    let windows = tps::mspt_windows(&times.durations_ms(), times.tick_rate);
    for ((window, _), figures) in tps::MSPT_WINDOWS.into_iter().zip(windows) {
        if let Some((avg_ms, _, _)) = figures {
            exported
                .mspt
                .get_or_create(&[("window", window)])
                .set(avg_ms / 1000.0);
        }
    }
    if let Some(bytes) = resident_bytes() {
        exported.resident.set(bytes as i64);
    }
}

/// The process's resident memory, from `/proc/self/statm` (Linux); none elsewhere.
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok()?)
}

/// Durations and start times of the last minute of ticks.
#[derive(Resource, Debug)]
pub struct TickTimes {
    window: usize,
    started: Option<Instant>,
    ticks: VecDeque<(Instant, Duration)>,
    /// Ticks over budget since start.
    overruns: u64,
    /// Paper's 1, 5 and 15 minute figures, and when their current sample began.
    tps: tps::Tps,
    sample_started: Option<Instant>,
    tick_rate: u32,
    last_warning: Option<Instant>,
    /// Every tick since `perf start`, for a full profile of a session.
    recording: Option<Recording>,
}

/// Tick times recorded between `perf start` and `perf stop`, like vanilla's `/perf`.
#[derive(Debug)]
pub struct Recording {
    started: Instant,
    ticks: Vec<RecordedTick>,
    budget_ms: f64,
}

/// One tick of a recording.
#[derive(Debug, Clone, Copy)]
struct RecordedTick {
    /// Seconds from the recording's start to the tick's.
    second: f64,
    /// The whole tick, in milliseconds.
    ms: f64,
    /// Its phases ([`phases::NAMES`]), in milliseconds.
    phases_ms: [f64; 6],
}

impl Recording {
    /// An hour at 20 ticks per second; later ticks are not kept, so a forgotten recording
    /// cannot grow without bound.
    pub const MAX_TICKS: usize = 72_000;

    /// `ticks= seconds= mean_ms= p50_ms= p99_ms= max_ms= overruns=`, then each phase's mean
    /// (`world_mean_ms=` .. `flush_mean_ms=`), in logfmt.
    pub fn summary(&self) -> String {
        let mut took: Vec<f64> = self.ticks.iter().map(|t| t.ms).collect();
        took.sort_by(f64::total_cmp);
        let at = |p: f64| percentile(&took, p).map_or("-".into(), |ms| format!("{ms:.3}"));
        let mean = if took.is_empty() {
            "-".into()
        } else {
            format!("{:.3}", took.iter().sum::<f64>() / took.len() as f64)
        };
        let mut line = format!(
            "ticks={} seconds={:.1} mean_ms={mean} p50_ms={} p99_ms={} max_ms={} overruns={}",
            took.len(),
            self.started.elapsed().as_secs_f64(),
            at(0.5),
            at(0.99),
            at(1.0),
            took.iter().filter(|ms| **ms > self.budget_ms).count()
        );
        if !self.ticks.is_empty() {
            for (i, name) in phases::NAMES.iter().enumerate() {
                let sum: f64 = self.ticks.iter().map(|t| t.phases_ms[i]).sum();
                let mean = sum / self.ticks.len() as f64;
                line.push_str(&format!(" {name}_mean_ms={mean:.3}"));
            }
        }
        line
    }

    /// One `second,tick_ms,world_ms,..,flush_ms` row per tick.
    pub fn csv(&self) -> String {
        let mut out = String::from("second,tick_ms");
        for name in phases::NAMES {
            out.push_str(&format!(",{name}_ms"));
        }
        out.push('\n');
        for tick in &self.ticks {
            out.push_str(&format!("{:.3},{:.3}", tick.second, tick.ms));
            for ms in tick.phases_ms {
                out.push_str(&format!(",{ms:.3}"));
            }
            out.push('\n');
        }
        out
    }
}

impl TickTimes {
    /// The last `window` ticks, at `tick_rate` ticks a second.
    pub fn new(window: usize, tick_rate: u32) -> Self {
        Self {
            window: window.max(2),
            started: None,
            ticks: VecDeque::new(),
            overruns: 0,
            tps: tps::Tps::new(tick_rate),
            sample_started: None,
            tick_rate,
            last_warning: None,
            recording: None,
        }
    }

    /// Starts recording every tick; `false` if a recording is running already.
    pub fn start_recording(&mut self, tick_rate: u32) -> bool {
        if self.recording.is_some() {
            return false;
        }
        self.recording = Some(Recording {
            started: Instant::now(),
            ticks: Vec::new(),
            budget_ms: 1000.0 / tick_rate.max(1) as f64,
        });
        true
    }

    pub fn recording(&self) -> Option<&Recording> {
        self.recording.as_ref()
    }

    pub fn stop_recording(&mut self) -> Option<Recording> {
        self.recording.take()
    }

    fn push(&mut self, start: Instant, took: Duration, phases: phases::Phases) {
        if self.ticks.len() == self.window {
            self.ticks.pop_front();
        }
        self.ticks.push_back((start, took));
        if let Some(recording) = &mut self.recording {
            if recording.ticks.len() < Recording::MAX_TICKS {
                let second = start.saturating_duration_since(recording.started);
                recording.ticks.push(RecordedTick {
                    second: second.as_secs_f64(),
                    ms: took.as_secs_f64() * 1000.0,
                    phases_ms: phases.map(|d| d.as_secs_f64() * 1000.0),
                });
            }
        }
    }

    /// The window's tick durations in milliseconds, oldest first.
    fn durations_ms(&self) -> Vec<f64> {
        self.ticks
            .iter()
            .map(|(_, d)| d.as_secs_f64() * 1000.0)
            .collect()
    }

    /// `tps`, as Paper's.
    pub fn tps_report(&self) -> String {
        self.tps.report(self.tick_rate)
    }

    /// `mspt`, as Paper's.
    pub fn mspt_report(&self) -> String {
        tps::mspt_report(&self.durations_ms(), self.tick_rate)
    }

    /// Counts a tick that started at `start` and ended `took` later into Paper's figures.
    fn sample(&mut self, start: Instant, took: Duration) {
        let end = start + took;
        let since = end.saturating_duration_since(*self.sample_started.get_or_insert(start));
        if self.tps.tick(since.as_secs_f64()) {
            self.sample_started = Some(end);
        }
    }
}

fn start_tick(mut times: ResMut<TickTimes>) {
    times.started = Some(Instant::now());
}

fn end_tick(mut times: ResMut<TickTimes>, mut marks: ResMut<phases::Marks>, server: Res<Server>) {
    let phases = marks.take();
    let Some(start) = times.started.take() else {
        return;
    };
    let took = start.elapsed();
    times.push(start, took, phases);
    times.sample(start, took);
    // Like vanilla's "Can't keep up!": a tick longer than its budget, at most every 15 s.
    let budget = Duration::from_secs_f64(1.0 / server.tick_rate().get() as f64);
    if took > budget {
        times.overruns += 1;
        let quiet = times
            .last_warning
            .is_none_or(|w| w.elapsed() > Duration::from_secs(15));
        if quiet {
            times.last_warning = Some(Instant::now());
            warn!(
                "can't keep up: a tick took {:.1} ms of its {:.0} ms ({} overruns so far)",
                took.as_secs_f64() * 1000.0,
                budget.as_secs_f64() * 1000.0,
                times.overruns
            );
        }
    }
}

/// `perf start`: records every tick's time until `perf stop`.
pub fn perf_start(world: &mut World) -> String {
    let tick_rate = world.resource::<Server>().tick_rate().get();
    if world.resource_mut::<TickTimes>().start_recording(tick_rate) {
        valence::log::info!("recording tick times until perf stop");
        "recording=true".into()
    } else {
        "error=\"a recording is running; perf stop ends it\"".into()
    }
}

/// `perf stop`: ends the recording and writes its ticks into `dir` (the world's `debug/`,
/// where vanilla writes its profiles).
pub fn perf_stop(world: &mut World, dir: &std::path::Path) -> String {
    let Some(recording) = world.resource_mut::<TickTimes>().stop_recording() else {
        return "error=\"no recording is running; perf start begins one\"".into();
    };
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let file = dir.join(format!("tick-times-{stamp}.csv"));
    let written =
        std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&file, recording.csv()));
    match written {
        Ok(()) => {
            valence::log::info!("tick times written to {}", file.display());
            format!(
                "{} file={:?}",
                recording.summary(),
                file.display().to_string()
            )
        }
        Err(e) => {
            warn!("cannot write {}: {e}", file.display());
            format!(
                "{} error={:?}",
                recording.summary(),
                format!("cannot write {}: {e}", file.display())
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tps_and_mspt_over_the_ticks_timed() {
        let mut times = TickTimes::new(1200, 20);
        assert_eq!(
            times.tps_report(),
            "TPS from last 1m, 5m, 15m: 20.0, 20.0, 20.0"
        );
        let t0 = Instant::now();
        // A minute of 100 ms ticks: 10 ticks a second.
        for i in 0..1200u64 {
            let start = t0 + Duration::from_millis(100 * i);
            times.push(start, Duration::from_millis(100), Default::default());
            times.sample(start, Duration::from_millis(100));
        }
        assert!(
            times
                .tps_report()
                .starts_with("TPS from last 1m, 5m, 15m: 10.0, "),
            "{}",
            times.tps_report()
        );
        assert!(times
            .mspt_report()
            .ends_with("◴ 100.0/100.0/100.0, 100.0/100.0/100.0, 100.0/100.0/100.0"));
    }

    #[test]
    fn nearest_rank_percentiles() {
        let sorted: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&sorted, 0.5), Some(50.0));
        assert_eq!(percentile(&sorted, 0.99), Some(99.0));
        assert_eq!(percentile(&sorted, 1.0), Some(100.0));
        assert_eq!(percentile(&sorted, 0.0), Some(1.0));
        assert_eq!(percentile(&[], 0.5), None);
    }

    #[test]
    fn recording_keeps_every_tick_from_start_to_stop() {
        let mut times = TickTimes::new(3, 20);
        let t0 = Instant::now();
        times.push(t0, Duration::from_millis(7), Default::default());
        assert!(times.start_recording(20));
        assert!(!times.start_recording(20), "a second start is refused");
        let started = times.recording().unwrap().started;
        for (i, ms) in [1, 2, 3, 4, 60].into_iter().enumerate() {
            // The phases took a tenth, a fifth, ... of each tick.
            let part = |tenths: u64| Duration::from_micros(100 * ms * tenths);
            times.push(
                started + Duration::from_millis(50 * i as u64),
                Duration::from_millis(ms),
                [part(1), part(2), part(3), part(1), part(2), part(1)],
            );
        }
        let recording = times.stop_recording().unwrap();
        let summary = recording.summary();
        assert!(
            summary.starts_with("ticks=5 ")
                && summary.contains(
                    " mean_ms=14.000 p50_ms=3.000 p99_ms=60.000 max_ms=60.000 overruns=1 \
                     world_mean_ms=1.400 players_mean_ms=2.800 zombies_mean_ms=4.200 \
                     layers_mean_ms=1.400 clients_mean_ms=2.800 flush_mean_ms=1.400"
                ),
            "{summary}"
        );
        assert_eq!(
            recording.csv().lines().collect::<Vec<_>>(),
            [
                "second,tick_ms,world_ms,players_ms,zombies_ms,layers_ms,clients_ms,flush_ms",
                "0.000,1.000,0.100,0.200,0.300,0.100,0.200,0.100",
                "0.050,2.000,0.200,0.400,0.600,0.200,0.400,0.200",
                "0.100,3.000,0.300,0.600,0.900,0.300,0.600,0.300",
                "0.150,4.000,0.400,0.800,1.200,0.400,0.800,0.400",
                "0.200,60.000,6.000,12.000,18.000,6.000,12.000,6.000"
            ]
        );
        assert!(times.recording().is_none());
    }
}
