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

    /// A sampler of this field's 2-D noise.
    pub(super) fn sampler2(self) -> Sampler2 {
        Sampler2 {
            noise: self,
            cell: None,
            corners: [(0.0, 0.0); 4],
        }
    }

    /// A sampler of the fractal sum of `octaves` layers of this field's 2-D noise, each twice
    /// as fine and half as strong.
    pub(super) fn fractal2(self, octaves: u32) -> Fractal2 {
        Fractal2 {
            octaves: (0..octaves).map(|_| self.sampler2()).collect(),
        }
    }

    /// A sampler of this field's 3-D noise.
    pub(super) fn sampler3(self) -> Sampler3 {
        Sampler3 {
            noise: self,
            cell: None,
            corners: [GRADIENTS[0]; 8],
            column: None,
            fades: (0.0, 0.0),
            across: [0.0; 8],
        }
    }

    /// A uniform value in `0.0..1.0` for one lattice point: for placing things like trees.
    pub(super) fn unit(&self, x: i64, y: i64, z: i64) -> f64 {
        (self.hash(x, y, z) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The unit gradient at a 2-D lattice point, as its cosine and sine.
    fn gradient2(&self, x: i64, z: i64) -> (f64, f64) {
        let h = self.hash(x, 0, z);
        let angle = (h >> 11) as f64 * (std::f64::consts::TAU / (1u64 << 53) as f64);
        (angle.cos(), angle.sin())
    }

    fn hash(&self, x: i64, y: i64, z: i64) -> u64 {
        let mut h = self.seed;
        for v in [x, y, z] {
            h = mix(h ^ (v as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93));
        }
        h
    }
}

/// 2-D gradient noise, for points that share lattice cells: a cell's corner gradients are
/// worked out once for all the points in it (neighbouring columns of a chunk lie in one cell of
/// every field). The value at a point does not depend on what was sampled before.
#[derive(Debug, Clone)]
pub(super) struct Sampler2 {
    noise: Noise,
    cell: Option<[i64; 2]>,
    /// The gradients at the cell's corners, by `dx + 2 dz`.
    corners: [(f64, f64); 4],
}

impl Sampler2 {
    /// The noise at a point measured in lattice cells.
    pub(super) fn at(&mut self, x: f64, z: f64) -> f64 {
        let (x0, z0) = (floor(x), floor(z));
        let cell = [x0 as i64, z0 as i64];
        if self.cell != Some(cell) {
            for (i, corner) in self.corners.iter_mut().enumerate() {
                let (dx, dz) = ((i & 1) as i64, (i >> 1) as i64);
                *corner = self.noise.gradient2(cell[0] + dx, cell[1] + dz);
            }
            self.cell = Some(cell);
        }
        let (fx, fz) = (x - x0, z - z0);
        let g = |i: usize| {
            let (cos, sin) = self.corners[i];
            cos * (fx - (i & 1) as f64) + sin * (fz - (i >> 1) as f64)
        };
        let (u, v) = (fade(fx), fade(fz));
        let a = lerp(u, g(0), g(1));
        let b = lerp(u, g(2), g(3));
        lerp(v, a, b) * std::f64::consts::SQRT_2
    }
}

/// A fractal sum of 2-D noise layers (see [`Noise::fractal2`]), a sampler for each.
#[derive(Debug, Clone)]
pub(super) struct Fractal2 {
    octaves: Vec<Sampler2>,
}

impl Fractal2 {
    /// The sum at a point measured in the coarsest layer's cells, roughly in `-1.0..=1.0`.
    pub(super) fn at(&mut self, x: f64, z: f64) -> f64 {
        let (mut sum, mut amp, mut freq, mut norm) = (0.0, 1.0, 1.0, 0.0);
        for (octave, layer) in self.octaves.iter_mut().enumerate() {
            let offset = octave as f64 * 17.31;
            sum += amp * layer.at(x * freq + offset, z * freq - offset);
            norm += amp;
            amp *= 0.5;
            freq *= 2.0;
        }
        sum / norm
    }
}

/// 3-D gradient noise, for points that share lattice cells: a cell's corner gradients are
/// hashed once for all the points in it (a column of blocks crosses a cell in 9 to 24 steps),
/// and the parts across x and z once for a column in it. The value at a point does not depend
/// on what was sampled before.
#[derive(Debug, Clone)]
pub(super) struct Sampler3 {
    noise: Noise,
    cell: Option<[i64; 3]>,
    /// The gradients at the cell's corners, by `dx + 2 dy + 4 dz`.
    corners: [(f64, f64, f64); 8],
    /// The column (`x`, `z`) last sampled in the cell, its fades across x and z, and each
    /// corner's dot product with it but for the part along y.
    column: Option<(f64, f64)>,
    fades: (f64, f64),
    across: [f64; 8],
}

impl Sampler3 {
    /// The noise at a point measured in lattice cells.
    pub(super) fn at(&mut self, x: f64, y: f64, z: f64) -> f64 {
        let (x0, y0, z0) = (floor(x), floor(y), floor(z));
        let cell = [x0 as i64, y0 as i64, z0 as i64];
        if self.cell != Some(cell) {
            for (i, corner) in self.corners.iter_mut().enumerate() {
                let (dx, dy, dz) = ((i & 1) as i64, (i >> 1 & 1) as i64, (i >> 2) as i64);
                *corner = GRADIENTS
                    [(self.noise.hash(cell[0] + dx, cell[1] + dy, cell[2] + dz) % 12) as usize];
            }
            self.cell = Some(cell);
            self.column = None;
        }
        if self.column != Some((x, z)) {
            let (fx, fz) = (x - x0, z - z0);
            for (i, across) in self.across.iter_mut().enumerate() {
                let (gx, _, gz) = self.corners[i];
                *across = gx * (fx - (i & 1) as f64) + gz * (fz - (i >> 2) as f64);
            }
            self.fades = (fade(fx), fade(fz));
            self.column = Some((x, z));
        }
        let fy = y - y0;
        // The dot product `gx (fx - dx) + gy (fy - dy) + gz (fz - dz)`. Every gradient has one
        // component zero, so this adds the same two terms (or the x and z ones and a zero) and
        // comes out the same but for the sign of a zero.
        let g = |i: usize| self.across[i] + self.corners[i].1 * (fy - (i >> 1 & 1) as f64);
        let ((u, w), v) = (self.fades, fade(fy));
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

/// `v.floor()`, exactly, for the finite values noise is sampled at: on baseline x86-64 the
/// library call it compiles to cost as much as the rest of a 3-D sample.
fn floor(v: f64) -> f64 {
    // Truncation is exact below 2^63, and values from 2^52 up are whole already; the sign
    // keeps -0.0 what it was.
    let t = v as i64 as f64;
    if t > v {
        t - 1.0
    } else {
        t.copysign(v)
    }
}

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
        let at = |n: Noise| n.sampler2().at(p.0, p.1);
        assert_eq!(at(a), at(b));
        assert_ne!(at(a), at(c));
        assert_ne!(at(a), at(d));
    }

    #[test]
    fn bounded_and_zero_on_lattice_points() {
        let n = Noise::new(7, 0);
        for i in 0..2000 {
            let x = i as f64 * 0.137 - 50.0;
            let z = i as f64 * 0.291 + 11.0;
            assert!(n.sampler2().at(x, z).abs() <= 1.0001);
            assert!(n.sampler3().at(x, z * 0.5, -x).abs() <= 1.0001);
        }
        assert_eq!(n.sampler2().at(3.0, -4.0), 0.0);
        assert_eq!(n.sampler3().at(3.0, 2.0, -4.0), 0.0);
    }

    #[test]
    fn floor_is_the_librarys() {
        let edges = [
            0.0,
            0.5,
            1.0 - f64::EPSILON,
            1.0,
            2.5,
            1e15 + 0.5,
            4503599627370497.0,
        ];
        for v in edges
            .iter()
            .flat_map(|&e| [e, -e])
            .chain((-3000..3000).map(|i| i as f64 / 7.3))
        {
            assert_eq!(floor(v).to_bits(), v.floor().to_bits(), "{v}");
        }
    }

    #[test]
    fn a_sampler_gives_the_same_value_whatever_it_sampled_before() {
        let n = Noise::new(7, 3);
        let mut row = n.sampler2();
        let mut sum = n.fractal2(3);
        for i in 0..500 {
            let (x, z) = (i as f64 / 23.0 - 9.1, ((i * 37) % 101) as f64 / 13.0 - 3.3);
            assert_eq!(row.at(x, z), n.sampler2().at(x, z), "{x} {z}");
            assert_eq!(sum.at(x, z), n.fractal2(3).at(x, z), "{x} {z}");
        }
        // The dot products as the formula has them, for every point on its own.
        let plain = |x: f64, y: f64, z: f64| {
            let (x0, y0, z0) = (x.floor(), y.floor(), z.floor());
            let (fx, fy, fz) = (x - x0, y - y0, z - z0);
            let g = |i: usize| {
                let (dx, dy, dz) = ((i & 1) as i64, (i >> 1 & 1) as i64, (i >> 2) as i64);
                let h = n.hash(x0 as i64 + dx, y0 as i64 + dy, z0 as i64 + dz);
                let (gx, gy, gz) = GRADIENTS[(h % 12) as usize];
                gx * (fx - dx as f64) + gy * (fy - dy as f64) + gz * (fz - dz as f64)
            };
            let (u, v, w) = (fade(fx), fade(fy), fade(fz));
            let (x00, x10) = (lerp(u, g(0), g(1)), lerp(u, g(2), g(3)));
            let (x01, x11) = (lerp(u, g(4), g(5)), lerp(u, g(6), g(7)));
            lerp(w, lerp(v, x00, x10), lerp(v, x01, x11))
        };
        let mut column = n.sampler3();
        // Down a column and across cells, back and forth, against a fresh sampler each time.
        // Up and down columns, across cells, and back to a column sampled before.
        for c in [0, 1, 2, 1, 5, 0] {
            let (x, z) = (c as f64 / 3.7 - 1.3, -2.7 + c as f64 / 14.0);
            for i in (0..97).chain((0..97).rev().step_by(3)) {
                let y = i as f64 / 9.0 - 4.0;
                let value = column.at(x, y, z);
                assert_eq!(value, n.sampler3().at(x, y, z), "{x} {y} {z}");
                assert_eq!(value, plain(x, y, z), "{x} {y} {z}");
            }
        }
    }

    #[test]
    fn unit_is_in_range() {
        let n = Noise::new(7, 0);
        let mean = (0..10_000).map(|i| n.unit(i, 0, -i)).sum::<f64>() / 10_000.0;
        assert!((0.45..0.55).contains(&mean), "{mean}");
    }
}
