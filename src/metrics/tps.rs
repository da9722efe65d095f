//! Paper's `tps` and `mspt`: the ticks a second over the last 1, 5 and 15 minutes, and the
//! tick times over the last 5 s, 10 s and minute (Paper's `MinecraftServer.RollingAverage`,
//! `TicksPerSecondCommand` and `MSPTCommand`).

use std::collections::VecDeque;

/// A time-weighted mean over the last `size` samples, starting full of the ideal rate as
/// Paper's does, so a fresh server reads 20 rather than nothing.
#[derive(Debug, Clone)]
pub struct RollingAverage {
    /// (ticks a second, seconds it covers) per sample, oldest first.
    samples: VecDeque<(f64, f64)>,
    size: usize,
}

impl RollingAverage {
    pub fn new(size: usize, ideal: f64) -> Self {
        Self {
            samples: std::iter::repeat_n((ideal, 1.0), size).collect(),
            size,
        }
    }

    pub fn add(&mut self, rate: f64, seconds: f64) {
        if self.samples.len() == self.size {
            self.samples.pop_front();
        }
        self.samples.push_back((rate, seconds));
    }

    pub fn average(&self) -> f64 {
        let time: f64 = self.samples.iter().map(|(_, t)| t).sum();
        let total: f64 = self.samples.iter().map(|(r, t)| r * t).sum();
        if time > 0.0 {
            total / time
        } else {
            0.0
        }
    }
}

/// The ticks a second over Paper's three windows, sampled once every second's worth of ticks.
#[derive(Debug, Clone)]
pub struct Tps {
    per_sample: u32,
    /// 60, 300 and 900 samples.
    windows: [RollingAverage; 3],
    ticks: u32,
}

impl Tps {
    /// Minutes in each window, at one sample a second.
    pub const MINUTES: [u32; 3] = [1, 5, 15];

    pub fn new(tick_rate: u32) -> Self {
        let ideal = f64::from(tick_rate);
        Self {
            per_sample: tick_rate.max(1),
            windows: Self::MINUTES.map(|m| RollingAverage::new(m as usize * 60, ideal)),
            ticks: 0,
        }
    }

    /// A tick ended `since_sample` seconds after the last sample was taken; true when this
    /// one takes a sample (the caller counts the next section from now).
    pub fn tick(&mut self, since_sample: f64) -> bool {
        self.ticks += 1;
        if self.ticks < self.per_sample || since_sample <= 0.0 {
            return false;
        }
        let rate = f64::from(self.ticks) / since_sample;
        for window in &mut self.windows {
            window.add(rate, since_sample);
        }
        self.ticks = 0;
        true
    }

    pub fn averages(&self) -> [f64; 3] {
        [0, 1, 2].map(|i| self.windows[i].average())
    }

    /// `TPS from last 1m, 5m, 15m: 20.0, 20.0, 20.0`, as Paper prints it without colours: at
    /// most the tick rate, with a star before a figure over it by more than one.
    pub fn report(&self, tick_rate: u32) -> String {
        let cap = f64::from(tick_rate);
        let figures: Vec<String> = self
            .averages()
            .iter()
            .map(|&tps| {
                let star = if tps > cap + 1.0 { "*" } else { "" };
                let shown = ((tps * 100.0).round() / 100.0).min(cap);
                format!("{star}{}", java_double(shown))
            })
            .collect();
        format!("TPS from last 1m, 5m, 15m: {}", figures.join(", "))
    }
}

/// A double as Java prints these figures: at least one decimal (`20.0`, `19.95`).
fn java_double(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

/// Paper's `mspt` windows: the last 5 s, 10 s and minute of ticks.
pub const MSPT_WINDOWS: [(&str, usize); 3] = [("5s", 5), ("10s", 10), ("1m", 60)];

/// Avg/min/max of the last tick durations `ms` (oldest first) over each of
/// [`MSPT_WINDOWS`] at `tick_rate`; none for a window without ticks.
pub fn mspt_windows(ms: &[f64], tick_rate: u32) -> [Option<(f64, f64, f64)>; 3] {
    MSPT_WINDOWS.map(|(_, seconds)| {
        let n = (seconds * tick_rate as usize).min(ms.len());
        let window = &ms[ms.len() - n..];
        (!window.is_empty()).then(|| {
            let avg = window.iter().sum::<f64>() / window.len() as f64;
            let min = window.iter().copied().fold(f64::INFINITY, f64::min);
            let max = window.iter().copied().fold(0.0, f64::max);
            (avg, min, max)
        })
    })
}

/// Paper's `mspt` from the last tick durations `ms` (oldest first) at `tick_rate`.
pub fn mspt_report(ms: &[f64], tick_rate: u32) -> String {
    let figures: Vec<String> = mspt_windows(ms, tick_rate)
        .iter()
        .map(|w| match w {
            Some((avg, min, max)) => format!("{avg:.1}/{min:.1}/{max:.1}"),
            None => "-/-/-".to_string(),
        })
        .collect();
    format!(
        "Server tick times (avg/min/max) from last 5s, 10s, 1m:\n◴ {}",
        figures.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_server_reads_the_ideal_rate() {
        let tps = Tps::new(20);
        assert_eq!(tps.averages(), [20.0; 3]);
        assert_eq!(
            tps.report(20),
            "TPS from last 1m, 5m, 15m: 20.0, 20.0, 20.0"
        );
    }

    #[test]
    fn slow_samples_fill_the_1m_window_and_are_diluted_in_5m_and_15m() {
        let mut tps = Tps::new(20);
        // Sixty samples at 10 ticks a second: each sample of 20 ticks spans 2 s.
        for _ in 0..60 {
            for _ in 0..19 {
                assert!(!tps.tick(1.0));
            }
            assert!(tps.tick(2.0));
        }
        let [m1, m5, m15] = tps.averages();
        assert!((m1 - 10.0).abs() < 1e-9, "{m1}");
        // 5 min: 240 ideal samples (240 s, 4800 ticks) and 60 slow ones (120 s, 1200 ticks).
        assert!((m5 - 6000.0 / 360.0).abs() < 1e-9, "{m5}");
        assert!(m15 > m5 && m15 < 20.0);
        assert_eq!(
            tps.report(20),
            format!(
                "TPS from last 1m, 5m, 15m: 10.0, 16.67, {}",
                (m15 * 100.0).round() / 100.0
            )
        );
    }

    #[test]
    fn a_fast_second_is_capped_and_starred_as_paper_does() {
        let mut tps = Tps::new(20);
        for _ in 0..60 {
            for _ in 0..19 {
                tps.tick(0.3);
            }
            tps.tick(0.5);
        }
        assert!(
            tps.report(20)
                .starts_with("TPS from last 1m, 5m, 15m: *20.0, *20.0, "),
            "{}",
            tps.report(20)
        );
    }

    #[test]
    fn mspt_over_three_windows() {
        // 55 s of 1 ms ticks, then 5 s of 3 ms with one of 9 ms.
        let mut ms = vec![1.0; 1100];
        ms.extend(std::iter::repeat_n(3.0, 99));
        ms.push(9.0);
        assert_eq!(
            mspt_report(&ms, 20),
            "Server tick times (avg/min/max) from last 5s, 10s, 1m:\n\
             ◴ 3.1/3.0/9.0, 2.0/1.0/9.0, 1.2/1.0/9.0"
        );
        assert_eq!(
            mspt_report(&[], 20),
            "Server tick times (avg/min/max) from last 5s, 10s, 1m:\n◴ -/-/-, -/-/-, -/-/-"
        );
    }
}
