//! An exact distribution of small integer samples (tick counts), for percentiles that can be
//! reported without keeping every sample.

use std::collections::BTreeMap;

/// Counts of each observed value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histogram {
    counts: BTreeMap<u64, u64>,
    samples: u64,
}

impl Histogram {
    pub fn record(&mut self, value: u64) {
        *self.counts.entry(value).or_default() += 1;
        self.samples += 1;
    }

    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// The smallest value with at least `p` (0..=1) of the samples at or below it.
    pub fn percentile(&self, p: f64) -> Option<u64> {
        let rank = ((p * self.samples as f64).ceil() as u64).clamp(1, self.samples.max(1));
        let mut seen = 0;
        for (&value, &count) in &self.counts {
            seen += count;
            if seen >= rank {
                return Some(value);
            }
        }
        None
    }

    pub fn max(&self) -> Option<u64> {
        self.counts.keys().next_back().copied()
    }

    /// `prefix_p50=.. prefix_p90=.. prefix_p99=.. prefix_max=.. prefix_samples=..`, with `-` for
    /// an empty distribution.
    pub fn logfmt(&self, prefix: &str) -> String {
        let show = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
        format!(
            "{prefix}_p50={} {prefix}_p90={} {prefix}_p99={} {prefix}_max={} {prefix}_samples={}",
            show(self.percentile(0.50)),
            show(self.percentile(0.90)),
            show(self.percentile(0.99)),
            show(self.max()),
            self.samples
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_one_to_hundred() {
        let mut h = Histogram::default();
        for v in 1..=100 {
            h.record(v);
        }
        assert_eq!(h.percentile(0.5), Some(50));
        assert_eq!(h.percentile(0.9), Some(90));
        assert_eq!(h.percentile(0.99), Some(99));
        assert_eq!(h.max(), Some(100));
        assert_eq!(h.samples(), 100);
    }

    #[test]
    fn skewed_and_empty() {
        let mut h = Histogram::default();
        assert_eq!(h.percentile(0.5), None);
        assert_eq!(h.logfmt("x"), "x_p50=- x_p90=- x_p99=- x_max=- x_samples=0");
        for _ in 0..98 {
            h.record(2);
        }
        h.record(35);
        h.record(1200);
        assert_eq!(h.percentile(0.5), Some(2));
        assert_eq!(h.percentile(0.99), Some(35));
        assert_eq!(h.max(), Some(1200));
    }
}
