//! What the server measures about itself: tick times for `tps`, and the distributions other
//! modules report (chunk latencies).

mod histogram;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

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
}

impl TickTimes {
    pub fn new(window: usize) -> Self {
        Self {
            window: window.max(2),
            started: None,
            ticks: VecDeque::new(),
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
            return "tps=- mean_ms=- p99_ms=- max_ms=- ticks=0".into();
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
            "tps={tps} mean_ms={mean:.3} p99_ms={p99:.3} max_ms={:.3} ticks={}",
            took[took.len() - 1],
            took.len()
        )
    }
}

fn start_tick(mut times: ResMut<TickTimes>) {
    times.started = Some(Instant::now());
}

fn end_tick(mut times: ResMut<TickTimes>) {
    if let Some(start) = times.started.take() {
        times.push(start, start.elapsed());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_over_a_window() {
        let mut times = TickTimes::new(3);
        assert!(times.report().starts_with("tps=- "));
        let t0 = Instant::now();
        for (i, ms) in [9, 1, 2, 3].into_iter().enumerate() {
            times.push(
                t0 + Duration::from_millis(50 * i as u64),
                Duration::from_millis(ms),
            );
        }
        assert_eq!(
            times.report(),
            "tps=20.00 mean_ms=2.000 p99_ms=3.000 max_ms=3.000 ticks=3"
        );
    }
}
