//! What the server measures about itself: tick times for `tps`, and the distributions other
//! modules report (chunk latencies).

mod histogram;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use valence::log::warn;
use valence::prelude::*;

pub use histogram::Histogram;

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
}

impl TickTimes {
    pub fn new(window: usize) -> Self {
        Self {
            window: window.max(2),
            started: None,
            ticks: VecDeque::new(),
            overruns: 0,
            last_warning: None,
        }
    }

    fn push(&mut self, start: Instant, took: Duration) {
        if self.ticks.len() == self.window {
            self.ticks.pop_front();
        }
        self.ticks.push_back((start, took));
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
        let p99 = took[((took.len() as f64 * 0.99).ceil() as usize).clamp(1, took.len()) - 1];
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
}
