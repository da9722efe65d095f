//! Seeded gradient noise: the same seed and coordinates always give the same value, on every
//! machine, with no tables to build. Values are roughly in `-1.0..=1.0`.

use crate::random::mix;

/// One independent noise field.
#[derive(Debug, Clone, Copy)]
pub(super) struct Noise {
    seed: u64,
}

impl Noise {
    /// A field derived from the world seed and a channel number, so that terrain features do
    /// not share patterns.
    pub(super) fn new(world_seed: i64, channel: u64) -> Self {
        Self {
            seed: mix(world_seed as u64 ^ channel.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        }
    }

    /// 2-D gradient noise at a point measured in lattice cells.
    pub(super) fn at2(&self, x: f64, z: f64) -> f64 {
        let (x0, z0) = (x.floor(), z.floor());
        let (fx, fz) = (x - x0, z - z0);
        let (ix, iz) = (x0 as i64, z0 as i64);
        let g = |dx: i64, dz: i64| {
            let h = self.hash(ix + dx, 0, iz + dz);
            let angle = (h >> 11) as f64 * (std::f64::consts::TAU / (1u64 << 53) as f64);
            angle.cos() * (fx - dx as f64) + angle.sin() * (fz - dz as f64)
        };
        let (u, v) = (fade(fx), fade(fz));
        let a = lerp(u, g(0, 0), g(1, 0));
        let b = lerp(u, g(0, 1), g(1, 1));
        lerp(v, a, b) * std::f64::consts::SQRT_2
    }

    /// 3-D gradient noise at a point measured in lattice cells.
    pub(super) fn at3(&self, x: f64, y: f64, z: f64) -> f64 {
        let (x0, y0, z0) = (x.floor(), y.floor(), z.floor());
        let (fx, fy, fz) = (x - x0, y - y0, z - z0);
        let (ix, iy, iz) = (x0 as i64, y0 as i64, z0 as i64);
        let g = |dx: i64, dy: i64, dz: i64| {
            let (gx, gy, gz) = GRADIENTS[(self.hash(ix + dx, iy + dy, iz + dz) % 12) as usize];
            gx * (fx - dx as f64) + gy * (fy - dy as f64) + gz * (fz - dz as f64)
        };
        let (u, v, w) = (fade(fx), fade(fy), fade(fz));
        let x00 = lerp(u, g(0, 0, 0), g(1, 0, 0));
        let x10 = lerp(u, g(0, 1, 0), g(1, 1, 0));
        let x01 = lerp(u, g(0, 0, 1), g(1, 0, 1));
        let x11 = lerp(u, g(0, 1, 1), g(1, 1, 1));
        lerp(w, lerp(v, x00, x10), lerp(v, x01, x11))
    }

    /// Fractal sum of `octaves` layers, each twice as fine and half as strong.
    pub(super) fn fractal2(&self, x: f64, z: f64, octaves: u32) -> f64 {
        let (mut sum, mut amp, mut freq, mut norm) = (0.0, 1.0, 1.0, 0.0);
        for octave in 0..octaves {
            let offset = octave as f64 * 17.31;
            sum += amp * self.at2(x * freq + offset, z * freq - offset);
            norm += amp;
            amp *= 0.5;
            freq *= 2.0;
        }
        sum / norm
    }

    /// A uniform value in `0.0..1.0` for one lattice point: for placing things like trees.
    pub(super) fn unit(&self, x: i64, y: i64, z: i64) -> f64 {
        (self.hash(x, y, z) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn hash(&self, x: i64, y: i64, z: i64) -> u64 {
        let mut h = self.seed;
        for v in [x, y, z] {
            h = mix(h ^ (v as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93));
        }
        h
    }
}

const GRADIENTS: [(f64, f64, f64); 12] = [
    (1.0, 1.0, 0.0),
    (-1.0, 1.0, 0.0),
    (1.0, -1.0, 0.0),
    (-1.0, -1.0, 0.0),
    (1.0, 0.0, 1.0),
    (-1.0, 0.0, 1.0),
    (1.0, 0.0, -1.0),
    (-1.0, 0.0, -1.0),
    (0.0, 1.0, 1.0),
    (0.0, -1.0, 1.0),
    (0.0, 1.0, -1.0),
    (0.0, -1.0, -1.0),
];

fn fade(t: f64) -> f64 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

fn lerp(t: f64, a: f64, b: f64) -> f64 {
    a + t * (b - a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_seed_dependent() {
        let a = Noise::new(42, 1);
        let b = Noise::new(42, 1);
        let c = Noise::new(43, 1);
        let d = Noise::new(42, 2);
        let p = (12.3, -45.6);
        assert_eq!(a.at2(p.0, p.1), b.at2(p.0, p.1));
        assert_ne!(a.at2(p.0, p.1), c.at2(p.0, p.1));
        assert_ne!(a.at2(p.0, p.1), d.at2(p.0, p.1));
    }

    #[test]
    fn bounded_and_zero_on_lattice_points() {
        let n = Noise::new(7, 0);
        for i in 0..2000 {
            let x = i as f64 * 0.137 - 50.0;
            let z = i as f64 * 0.291 + 11.0;
            assert!(n.at2(x, z).abs() <= 1.0001);
            assert!(n.at3(x, z * 0.5, -x).abs() <= 1.0001);
        }
        assert_eq!(n.at2(3.0, -4.0), 0.0);
        assert_eq!(n.at3(3.0, 2.0, -4.0), 0.0);
    }

    #[test]
    fn unit_is_in_range() {
        let n = Noise::new(7, 0);
        let mean = (0..10_000).map(|i| n.unit(i, 0, -i)).sum::<f64>() / 10_000.0;
        assert!((0.45..0.55).contains(&mean), "{mean}");
    }
}
