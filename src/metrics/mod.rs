//! What the server measures about itself: tick times for `tps` and `perf`, and the
//! distributions other modules report (chunk latencies).

mod histogram;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use valence::log::warn;
use valence::prelude::*;

pub use histogram::Histogram;

/// The nearest-rank percentile `p` (0..=1) of `sorted` (ascending); `None` when empty.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    let rank = ((sorted.len() as f64 * p).ceil() as usize).max(1);
    sorted.get(rank.min(sorted.len()).checked_sub(1)?).copied()
}

/// Times every tick from the start of `First` to the end of `Last`.
pub struct MetricsPlugin;

impl Plugin for MetricsPlugin {
    fn build(&self, app: &mut App) {
        let tick_rate = app.world.resource::<Server>().tick_rate().get() as usize;
        app.insert_resource(TickTimes::new(tick_rate * 60))
            .add_systems(First, start_tick)
            .add_systems(Last, end_tick);
    }
}

/// Durations and start times of the last minute of ticks.
#[derive(Resource, Debug)]
pub struct TickTimes {
    window: usize,
    started: Option<Instant>,
    ticks: VecDeque<(Instant, Duration)>,
    /// Ticks over budget since start.
    overruns: u64,
    last_warning: Option<Instant>,
    /// Every tick since `perf start`, for a full profile of a session.
    recording: Option<Recording>,
}

/// Tick times recorded between `perf start` and `perf stop`, like vanilla's `/perf`.
#[derive(Debug)]
pub struct Recording {
    started: Instant,
    /// Seconds from `started` to each tick's start, and the tick's duration in milliseconds.
    ticks: Vec<(f64, f64)>,
    budget_ms: f64,
}

impl Recording {
    /// An hour at 20 ticks per second; later ticks are not kept, so a forgotten recording
    /// cannot grow without bound.
    pub const MAX_TICKS: usize = 72_000;

    /// `ticks= seconds= mean_ms= p50_ms= p99_ms= max_ms= overruns=` in logfmt.
    pub fn summary(&self) -> String {
        let mut took: Vec<f64> = self.ticks.iter().map(|(_, ms)| *ms).collect();
        took.sort_by(f64::total_cmp);
        let at = |p: f64| percentile(&took, p).map_or("-".into(), |ms| format!("{ms:.3}"));
        let mean = if took.is_empty() {
            "-".into()
        } else {
            format!("{:.3}", took.iter().sum::<f64>() / took.len() as f64)
        };
        format!(
            "ticks={} seconds={:.1} mean_ms={mean} p50_ms={} p99_ms={} max_ms={} overruns={}",
            took.len(),
            self.started.elapsed().as_secs_f64(),
            at(0.5),
            at(0.99),
            at(1.0),
            took.iter().filter(|ms| **ms > self.budget_ms).count()
        )
    }

    /// One `second,tick_ms` row per tick.
    pub fn csv(&self) -> String {
        let mut out = String::from("second,tick_ms\n");
        for (second, ms) in &self.ticks {
            out.push_str(&format!("{second:.3},{ms:.3}\n"));
        }
        out
    }
}

impl TickTimes {
    pub fn new(window: usize) -> Self {
        Self {
            window: window.max(2),
            started: None,
            ticks: VecDeque::new(),
            overruns: 0,
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

    fn push(&mut self, start: Instant, took: Duration) {
        if self.ticks.len() == self.window {
            self.ticks.pop_front();
        }
        self.ticks.push_back((start, took));
        if let Some(recording) = &mut self.recording {
            if recording.ticks.len() < Recording::MAX_TICKS {
                let second = start.saturating_duration_since(recording.started);
                recording
                    .ticks
                    .push((second.as_secs_f64(), took.as_secs_f64() * 1000.0));
            }
        }
    }

    /// `tps= mean_ms= p99_ms= max_ms= ticks=` over the window, in logfmt.
    pub fn report(&self) -> String {
        let mut took: Vec<f64> = self
            .ticks
            .iter()
            .map(|(_, d)| d.as_secs_f64() * 1000.0)
            .collect();
        if took.is_empty() {
            return format!(
                "tps=- mean_ms=- p99_ms=- max_ms=- ticks=0 overruns={}",
                self.overruns
            );
        }
        took.sort_by(f64::total_cmp);
        let mean = took.iter().sum::<f64>() / took.len() as f64;
        let p99 = percentile(&took, 0.99).unwrap_or_default();
        let span = self.ticks.back().unwrap().0 - self.ticks.front().unwrap().0;
        let tps = if span.is_zero() {
            "-".to_string()
        } else {
            format!("{:.2}", (self.ticks.len() - 1) as f64 / span.as_secs_f64())
        };
        format!(
            "tps={tps} mean_ms={mean:.3} p99_ms={p99:.3} max_ms={:.3} ticks={} overruns={}",
            took[took.len() - 1],
            took.len(),
            self.overruns
        )
    }
}

fn start_tick(mut times: ResMut<TickTimes>) {
    times.started = Some(Instant::now());
}

fn end_tick(mut times: ResMut<TickTimes>, server: Res<Server>) {
    let Some(start) = times.started.take() else {
        return;
    };
    let took = start.elapsed();
    times.push(start, took);
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
    fn report_over_a_window() {
        let mut times = TickTimes::new(3);
        assert!(times.report().starts_with("tps=- "));
        times.overruns = 2;
        let t0 = Instant::now();
        for (i, ms) in [9, 1, 2, 3].into_iter().enumerate() {
            times.push(
                t0 + Duration::from_millis(50 * i as u64),
                Duration::from_millis(ms),
            );
        }
        assert_eq!(
            times.report(),
            "tps=20.00 mean_ms=2.000 p99_ms=3.000 max_ms=3.000 ticks=3 overruns=2"
        );
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
        let mut times = TickTimes::new(3);
        let t0 = Instant::now();
        times.push(t0, Duration::from_millis(7));
        assert!(times.start_recording(20));
        assert!(!times.start_recording(20), "a second start is refused");
        let started = times.recording().unwrap().started;
        for (i, ms) in [1, 2, 3, 4, 60].into_iter().enumerate() {
            times.push(
                started + Duration::from_millis(50 * i as u64),
                Duration::from_millis(ms),
            );
        }
        let recording = times.stop_recording().unwrap();
        let summary = recording.summary();
        assert!(
            summary.starts_with("ticks=5 ")
                && summary.contains(
                    " mean_ms=14.000 p50_ms=3.000 p99_ms=60.000 max_ms=60.000 overruns=1"
                ),
            "{summary}"
        );
        assert_eq!(
            recording.csv().lines().collect::<Vec<_>>(),
            [
                "second,tick_ms",
                "0.000,1.000",
                "0.050,2.000",
                "0.100,3.000",
                "0.150,4.000",
                "0.200,60.000"
            ]
        );
        assert!(times.recording().is_none());
    }
}
