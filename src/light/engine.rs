//! Light spreading and withdrawing, as vanilla 1.20.1's `LightEngine` does it: a level spreads
//! to each neighbour less the neighbour's opacity (at least 1), unless the two blocks' shapes
//! close the face between them; where a block changes, the light that came through it is
//! withdrawn and what other sources still give spreads back in. The result is one fixed point,
//! whatever the order: each block holds the most any source gives it.

use std::collections::VecDeque;

use super::store::{ChunkLight, Kind};
use super::{HIGH_Y, LOW_Y, MIN_Y};
use crate::blocks::{LightFacts, DIRECTIONS};

/// The blocks and light the engine works on: a lone chunk on a worker thread, or every loaded
/// chunk on the tick.
pub trait Access {
    /// The light facts of the block at `x`, `y`, `z`; `None` where no chunk is loaded. Within
    /// the light's sections but outside the world, air.
    fn facts(&mut self, x: i32, y: i32, z: i32) -> Option<LightFacts>;

    /// The light of chunk `cx`, `cz`, if loaded.
    fn chunk(&mut self, cx: i32, cz: i32) -> Option<&mut ChunkLight>;

    fn chunk_ref(&self, cx: i32, cz: i32) -> Option<&ChunkLight>;

    fn level(&mut self, kind: Kind, x: i32, y: i32, z: i32) -> u8 {
        self.chunk(x >> 4, z >> 4)
            .map_or(0, |c| c.get(kind, (x & 15) as u32, y, (z & 15) as u32))
    }

    fn set_level(&mut self, kind: Kind, x: i32, y: i32, z: i32, level: u8) {
        if let Some(c) = self.chunk(x >> 4, z >> 4) {
            c.set(kind, (x & 15) as u32, y, (z & 15) as u32, level);
        }
    }

    /// The light a block has of itself: 15 for the sky where it sees the sky straight up, its
    /// emission for block light.
    fn own_level(&mut self, kind: Kind, x: i32, y: i32, z: i32) -> u8 {
        match kind {
            Kind::Block => self.facts(x, y, z).map_or(0, LightFacts::emission),
            Kind::Sky => self.chunk(x >> 4, z >> 4).map_or(0, |c| {
                if y >= c.source_y((x & 15) as u32, (z & 15) as u32) {
                    15
                } else {
                    0
                }
            }),
        }
    }
}

/// A block whose light is to spread (or be withdrawn), with the level it had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub level: u8,
}

/// Work waiting for one kind of light: levels to withdraw, then levels to spread.
#[derive(Debug, Default)]
pub struct Queues {
    pub decrease: VecDeque<Entry>,
    pub increase: VecDeque<Entry>,
}

impl Queues {
    /// Withdraws, then spreads, until nothing is left to do.
    pub fn run<A: Access>(&mut self, access: &mut A, kind: Kind) {
        propagate_decreases(access, kind, &mut self.decrease, &mut self.increase);
        propagate_increases(access, kind, &mut self.increase);
    }

    pub fn is_empty(&self) -> bool {
        self.decrease.is_empty() && self.increase.is_empty()
    }
}

/// Spreads each entry's level to its neighbours, and on while it lasts. An entry whose block
/// no longer holds its level was overtaken and is skipped.
pub(super) fn propagate_increases<A: Access>(
    access: &mut A,
    kind: Kind,
    queue: &mut VecDeque<Entry>,
) {
    while let Some(e) = queue.pop_front() {
        if access.level(kind, e.x, e.y, e.z) != e.level {
            continue;
        }
        // Read only when a neighbour could take light: most are bright enough already.
        let mut from = None;
        for (d, [dx, dy, dz]) in DIRECTIONS.iter().enumerate() {
            let (x, y, z) = (e.x + dx, e.y + dy, e.z + dz);
            if !(LOW_Y..HIGH_Y).contains(&y) {
                continue;
            }
            let current = access.level(kind, x, y, z);
            if e.level <= current + 1 {
                continue;
            }
            let Some(to) = access.facts(x, y, z) else {
                continue;
            };
            let level = e.level.saturating_sub(to.opacity().max(1));
            if level <= current {
                continue;
            }
            let from = *from.get_or_insert_with(|| access.facts(e.x, e.y, e.z).unwrap_or_default());
            if from.occludes(to, d) {
                continue;
            }
            access.set_level(kind, x, y, z, level);
            if level > 1 {
                queue.push_back(Entry { x, y, z, level });
            }
        }
    }
}

/// Withdraws each entry's former level from the neighbours that may have had their light
/// from it (those darker than it); brighter neighbours have light of their own and spread it
/// back in, as do blocks with light of their own among those withdrawn.
pub(super) fn propagate_decreases<A: Access>(
    access: &mut A,
    kind: Kind,
    queue: &mut VecDeque<Entry>,
    increase: &mut VecDeque<Entry>,
) {
    while let Some(e) = queue.pop_front() {
        for [dx, dy, dz] in DIRECTIONS {
            let (x, y, z) = (e.x + dx, e.y + dy, e.z + dz);
            if !(LOW_Y..HIGH_Y).contains(&y) {
                continue;
            }
            let level = access.level(kind, x, y, z);
            if level == 0 {
                continue;
            }
            if level < e.level {
                let own = access.own_level(kind, x, y, z);
                access.set_level(kind, x, y, z, own);
                if own < level {
                    queue.push_back(Entry { x, y, z, level });
                }
                if own > 0 {
                    increase.push_back(Entry {
                        x,
                        y,
                        z,
                        level: own,
                    });
                }
            } else {
                increase.push_back(Entry { x, y, z, level });
            }
        }
    }
}

/// Whether the sky's straight fall stops between a block with facts `above` and the one
/// below it (vanilla's `ChunkSkyLightSources.isEdgeOccluded`): the lower one takes any light,
/// or their shapes close the face between them.
pub(super) fn stops_the_sky(above: LightFacts, below: LightFacts) -> bool {
    below.opacity() != 0 || above.occludes(below, 0)
}

/// The lowest y of column `x`, `z` that sees the sky straight up, falling from `start`, a block
/// known to see it.
pub(super) fn sky_source_y<A: Access>(access: &mut A, x: i32, start: i32, z: i32) -> i32 {
    let mut y = start;
    let mut above = access.facts(x, y, z).unwrap_or_default();
    while y > MIN_Y {
        let below = access.facts(x, y - 1, z).unwrap_or_default();
        if stops_the_sky(above, below) {
            break;
        }
        above = below;
        y -= 1;
    }
    y
}

/// Queues the light changes a block changed at `x`, `y`, `z` calls for (vanilla's
/// `checkBlock`): the column's sky reach first, then the block's own light.
pub(super) fn check_block<A: Access>(
    access: &mut A,
    x: i32,
    y: i32,
    z: i32,
    queues: &mut [Queues; 2],
) {
    let (lx, lz) = ((x & 15) as u32, (z & 15) as u32);
    let Some(old) = access.chunk(x >> 4, z >> 4).map(|c| c.source_y(lx, lz)) else {
        return;
    };
    if y + 1 >= old {
        // Everything above the block still sees the sky: its fall starts again there.
        let new = sky_source_y(access, x, y + 1, z);
        if let Some(c) = access.chunk(x >> 4, z >> 4) {
            c.set_source_y(lx, lz, new);
        }
        let sky = &mut queues[Kind::Sky as usize];
        for at in new.min(old)..new.max(old) {
            if new < old {
                access.set_level(Kind::Sky, x, at, z, 15);
                sky.increase.push_back(Entry {
                    x,
                    y: at,
                    z,
                    level: 15,
                });
            } else {
                access.set_level(Kind::Sky, x, at, z, 0);
                sky.decrease.push_back(Entry {
                    x,
                    y: at,
                    z,
                    level: 15,
                });
            }
        }
    }
    for kind in [Kind::Sky, Kind::Block] {
        let queues = &mut queues[kind as usize];
        let own = access.own_level(kind, x, y, z);
        let level = access.level(kind, x, y, z);
        access.set_level(kind, x, y, z, own);
        if own < level {
            queues.decrease.push_back(Entry { x, y, z, level });
        } else {
            // Let the neighbours' light back in.
            for [dx, dy, dz] in DIRECTIONS {
                let (nx, ny, nz) = (x + dx, y + dy, z + dz);
                let level = access.level(kind, nx, ny, nz);
                if level > 1 && (LOW_Y..HIGH_Y).contains(&ny) {
                    queues.increase.push_back(Entry {
                        x: nx,
                        y: ny,
                        z: nz,
                        level,
                    });
                }
            }
        }
        if own > 0 {
            queues.increase.push_back(Entry {
                x,
                y,
                z,
                level: own,
            });
        }
    }
}

/// The blocks along the face between two chunks side by side whose light can spread across:
/// `west_or_north` and `east_or_south` meet along x (`along_x`, the second east of the first)
/// or along z. Each is queued where it is brighter than its neighbour by more than one.
pub(super) fn seam_entries(
    first: (&ChunkLight, i32, i32),
    second: (&ChunkLight, i32, i32),
    along_x: bool,
    kind: Kind,
    out: &mut VecDeque<Entry>,
) {
    let (a, ax, az) = first;
    let (b, bx, bz) = second;
    let (la, lb) = (a.layer(kind), b.layer(kind));
    for s in 0..la.len() {
        if let (super::Nibbles::Uniform(p), super::Nibbles::Uniform(q)) = (&la[s], &lb[s]) {
            if p.abs_diff(*q) <= 1 {
                continue;
            }
        }
        let y0 = LOW_Y + 16 * s as i32;
        for y in y0..y0 + 16 {
            for i in 0..16u32 {
                // `a`'s last row against `b`'s first.
                let ((pa_x, pa_z), (pb_x, pb_z)) = if along_x {
                    ((15, i), (0, i))
                } else {
                    ((i, 15), (i, 0))
                };
                let p = a.get(kind, pa_x, y, pa_z);
                let q = b.get(kind, pb_x, y, pb_z);
                if p > q + 1 {
                    out.push_back(Entry {
                        x: ax * 16 + pa_x as i32,
                        y,
                        z: az * 16 + pa_z as i32,
                        level: p,
                    });
                } else if q > p + 1 {
                    out.push_back(Entry {
                        x: bx * 16 + pb_x as i32,
                        y,
                        z: bz * 16 + pb_z as i32,
                        level: q,
                    });
                }
            }
        }
    }
}
