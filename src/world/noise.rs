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

    /// A sampler of this field's 3-D noise.
    pub(super) fn sampler3(self) -> Sampler3 {
        Sampler3 {
            noise: self,
            cell: None,
            corners: [GRADIENTS[0]; 8],
        }
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

/// 3-D gradient noise, for points that share lattice cells: a cell's corner gradients are
/// hashed once for all the points in it (a column of blocks crosses a cell in 9 to 24 steps).
/// The value at a point does not depend on what was sampled before.
#[derive(Debug, Clone)]
pub(super) struct Sampler3 {
    noise: Noise,
    cell: Option<[i64; 3]>,
    /// The gradients at the cell's corners, by `dx + 2 dy + 4 dz`.
    corners: [(f64, f64, f64); 8],
}

impl Sampler3 {
    /// The noise at a point measured in lattice cells.
    pub(super) fn at(&mut self, x: f64, y: f64, z: f64) -> f64 {
        let (x0, y0, z0) = (x.floor(), y.floor(), z.floor());
        let cell = [x0 as i64, y0 as i64, z0 as i64];
        if self.cell != Some(cell) {
            for (i, corner) in self.corners.iter_mut().enumerate() {
                let (dx, dy, dz) = ((i & 1) as i64, (i >> 1 & 1) as i64, (i >> 2) as i64);
                *corner = GRADIENTS
                    [(self.noise.hash(cell[0] + dx, cell[1] + dy, cell[2] + dz) % 12) as usize];
            }
            self.cell = Some(cell);
        }
        let (fx, fy, fz) = (x - x0, y - y0, z - z0);
        let g = |i: usize| {
            let (gx, gy, gz) = self.corners[i];
            let (dx, dy, dz) = ((i & 1) as f64, (i >> 1 & 1) as f64, (i >> 2) as f64);
            gx * (fx - dx) + gy * (fy - dy) + gz * (fz - dz)
        };
        let (u, v, w) = (fade(fx), fade(fy), fade(fz));
        let x00 = lerp(u, g(0), g(1));
        let x10 = lerp(u, g(2), g(3));
        let x01 = lerp(u, g(4), g(5));
        let x11 = lerp(u, g(6), g(7));
        lerp(w, lerp(v, x00, x10), lerp(v, x01, x11))
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
            assert!(n.sampler3().at(x, z * 0.5, -x).abs() <= 1.0001);
        }
        assert_eq!(n.at2(3.0, -4.0), 0.0);
        assert_eq!(n.sampler3().at(3.0, 2.0, -4.0), 0.0);
    }

    #[test]
    fn a_sampler_gives_the_same_value_whatever_it_sampled_before() {
        let n = Noise::new(7, 3);
        let mut column = n.sampler3();
        // Down a column and across cells, back and forth, against a fresh sampler each time.
        for i in 0..500 {
            let y = (i % 97) as f64 / 9.0 - 4.0;
            let (x, z) = (i as f64 / 140.0 - 1.3, -2.7 + (i / 97) as f64 / 14.0);
            assert_eq!(column.at(x, y, z), n.sampler3().at(x, y, z), "{x} {y} {z}");
        }
    }

    #[test]
    fn unit_is_in_range() {
        let n = Noise::new(7, 0);
        let mean = (0..10_000).map(|i| n.unit(i, 0, -i)).sum::<f64>() / 10_000.0;
        assert!((0.45..0.55).contains(&mean), "{mean}");
    }
}
