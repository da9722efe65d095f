//! How each block state treats light, in the terms of vanilla 1.20.1's light engine
//! (`LightEngine`, `BlockBehaviour`): how much light it takes away, how much it gives, and which
//! of its faces its shape closes to light passing through it.
//!
//! The amount taken away is minecraft-data's `filterLight` of the block's default state, made
//! state by state as vanilla's `getLightBlock` makes it (a full shape blocks 15, a shape that
//! is not full passes light unless it holds water). The light given is vanilla's own per state,
//! as Valence extracted it (`BlockState::luminance`).

use std::sync::OnceLock;

use valence::math::Aabb;
use valence::prelude::*;

use super::data;

/// The six directions in vanilla's order (`Direction`): down, up, north (-z), south (+z),
/// west (-x), east (+x).
pub const DIRECTIONS: [[i32; 3]; 6] = [
    [0, -1, 0],
    [0, 1, 0],
    [0, 0, -1],
    [0, 0, 1],
    [-1, 0, 0],
    [1, 0, 0],
];

/// The direction opposite direction `d` of [`DIRECTIONS`].
pub const fn opposite(d: usize) -> usize {
    d ^ 1
}

/// One block state's light facts, packed small: the light engine reads them for every block it
/// visits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LightFacts(u32);

impl LightFacts {
    const OPACITY: u32 = 0xF;
    const EMISSION_SHIFT: u32 = 4;
    const FACES_SHIFT: u32 = 8;

    /// Air: takes nothing, gives nothing, closes no face.
    pub const AIR: Self = Self(0);

    fn new(opacity: u8, emission: u8, faces: u32) -> Self {
        Self(
            u32::from(opacity.min(15))
                | u32::from(emission.min(15)) << Self::EMISSION_SHIFT
                | faces << Self::FACES_SHIFT,
        )
    }

    /// The light it takes away (vanilla's `getLightBlock`), 0-15. Light entering it loses at
    /// least 1 whatever this says.
    pub const fn opacity(self) -> u8 {
        (self.0 & Self::OPACITY) as u8
    }

    /// The block light it gives (vanilla's `getLightEmission`), 0-15.
    pub const fn emission(self) -> u8 {
        (self.0 >> Self::EMISSION_SHIFT & 0xF) as u8
    }

    /// The quarters of its face towards direction `d` that its shape covers, as 4 bits.
    const fn face(self, d: usize) -> u32 {
        self.0 >> (Self::FACES_SHIFT + 4 * d as u32) & 0xF
    }

    /// Whether light moving in direction `d` out of a block with facts `self` into one with
    /// `to` is stopped by their shapes: their touching faces together cover the whole face
    /// (vanilla's `Shapes.faceShapeOccludes`). Only slabs, stairs, snow, farmland and the like
    /// have shapes for light; a full block stops light by its opacity instead.
    pub const fn occludes(self, to: Self, d: usize) -> bool {
        self.face(d) | to.face(opposite(d)) == 0xF
    }

    /// Whether any face of it closes to light by shape.
    pub const fn has_shape(self) -> bool {
        self.0 >> Self::FACES_SHIFT != 0
    }
}

/// The light facts of `state`.
pub fn light_facts(state: BlockState) -> LightFacts {
    static TABLE: OnceLock<Box<[LightFacts]>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..=BlockState::max_raw())
            .map(|raw| BlockState::from_raw(raw).map_or(LightFacts::AIR, facts_of))
            .collect()
    });
    table[state.to_raw() as usize]
}

fn facts_of(state: BlockState) -> LightFacts {
    let faces = if uses_shape_for_light(state) {
        shape_faces(state)
    } else {
        0
    };
    LightFacts::new(opacity(state), state.luminance(), faces)
}

/// Vanilla's `getLightBlock` of `state`: minecraft-data's figure for the block's default
/// state, changed where the state's shape or water differs from the default's.
fn opacity(state: BlockState) -> u8 {
    let kind = state.to_kind();
    let base = data::FILTER_LIGHT[kind.to_raw() as usize];
    let is = |name, value| state.get(name) == Some(value);
    if is(PropName::Type, PropValue::Double) {
        // A double slab is a full block.
        return 15;
    }
    if kind == BlockKind::Snow {
        return if snow_layers(state) == 8 { 15 } else { 0 };
    }
    if matches!(kind, BlockKind::Piston | BlockKind::StickyPiston) {
        // An extended piston's base is not a full block.
        return if is(PropName::Extended, PropValue::True) {
            0
        } else {
            base
        };
    }
    let wet = |s: BlockState| s.get(PropName::Waterlogged) == Some(PropValue::True);
    if state.get(PropName::Waterlogged).is_some() && base <= 1 {
        // A shape that is not full passes light (`propagatesSkylightDown`) unless it holds
        // water. minecraft-data saw the default state: leaves and mangrove roots filter light
        // dry or wet, corals and sea pickles only wet.
        let dry_filters = base == 1 && !wet(kind.to_state());
        return u8::from(wet(state) || dry_filters);
    }
    base
}

/// A snow block's layers, 1-8.
fn snow_layers(state: BlockState) -> u16 {
    state
        .get(PropName::Layers)
        .and_then(PropValue::to_u16)
        .unwrap_or(1)
}

/// The blocks whose shape, rather than their opacity, closes some of their faces to light
/// (vanilla's `useShapeForLightOcclusion`, on a block that can occlude).
fn uses_shape_for_light(state: BlockState) -> bool {
    if !state.is_opaque() {
        return false;
    }
    let kind = state.to_kind();
    let name = kind.to_str();
    (name.ends_with("_slab") && state.get(PropName::Type) != Some(PropValue::Double))
        || name.ends_with("_stairs")
        || matches!(
            kind,
            BlockKind::Snow
                | BlockKind::Farmland
                | BlockKind::DirtPath
                | BlockKind::DaylightDetector
                | BlockKind::EnchantingTable
                | BlockKind::Lectern
                | BlockKind::Stonecutter
                | BlockKind::EndPortalFrame
                | BlockKind::SculkSensor
                | BlockKind::CalibratedSculkSensor
                | BlockKind::SculkShrieker
                | BlockKind::PistonHead
        )
        || (matches!(kind, BlockKind::Piston | BlockKind::StickyPiston)
            && state.get(PropName::Extended) == Some(PropValue::True))
}

/// The quarters of each face that the state's shape covers, 4 bits a direction. The shape is
/// its collision shape, which for these blocks is the shape vanilla occludes light with, but
/// for snow, whose collision is one layer lower than what is drawn.
fn shape_faces(state: BlockState) -> u32 {
    let boxes: Vec<Aabb> = if state.to_kind() == BlockKind::Snow {
        let top = f64::from(snow_layers(state)) / 8.0;
        vec![Aabb::new(DVec3::ZERO, DVec3::new(1.0, top, 1.0))]
    } else {
        state.collision_shapes().collect()
    };
    (0..6).fold(0, |faces, d| faces | face_quarters(&boxes, d) << (4 * d))
}

/// Which quarters of the face towards direction `d` the boxes cover: a quarter is covered when
/// every sixteenth of it is.
fn face_quarters(boxes: &[Aabb], d: usize) -> u32 {
    let axis = DIRECTIONS[d]
        .iter()
        .position(|&v| v != 0)
        .expect("a unit step");
    let positive = DIRECTIONS[d][axis] > 0;
    // The two axes across the face, in the same order for a face and its opposite.
    let (u, v) = match axis {
        0 => (2, 1),
        1 => (0, 2),
        _ => (0, 1),
    };
    let touching: Vec<&Aabb> = boxes
        .iter()
        .filter(|b| {
            let (min, max) = (b.min().to_array(), b.max().to_array());
            if positive {
                max[axis] >= 1.0 - 1e-6
            } else {
                min[axis] <= 1e-6
            }
        })
        .collect();
    let covered = |pu: f64, pv: f64| {
        touching.iter().any(|b| {
            let (min, max) = (b.min().to_array(), b.max().to_array());
            min[u] <= pu && pu <= max[u] && min[v] <= pv && pv <= max[v]
        })
    };
    let mut quarters = 0;
    for q in 0..4 {
        let (qu, qv) = (f64::from(q & 1) * 0.5, f64::from(q >> 1) * 0.5);
        let whole = (0..8).all(|i| {
            (0..8).all(|j| {
                covered(
                    qu + (f64::from(i) + 0.5) / 16.0,
                    qv + (f64::from(j) + 0.5) / 16.0,
                )
            })
        });
        if whole {
            quarters |= 1 << q;
        }
    }
    quarters
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(state: BlockState, props: &[(PropName, PropValue)]) -> BlockState {
        props.iter().fold(state, |s, &(n, v)| s.set(n, v))
    }

    #[test]
    fn opacity_follows_vanillas_light_block() {
        let of = |s: BlockState| light_facts(s).opacity();
        assert_eq!(of(BlockState::AIR), 0);
        assert_eq!(of(BlockState::STONE), 15);
        assert_eq!(of(BlockState::GLASS), 0);
        assert_eq!(of(BlockState::OAK_LEAVES), 1);
        assert_eq!(of(BlockState::WATER), 1);
        assert_eq!(of(BlockState::OAK_SLAB), 0);
        let wet_slab = with(
            BlockState::OAK_SLAB,
            &[(PropName::Waterlogged, PropValue::True)],
        );
        assert_eq!(of(wet_slab), 1);
        let double = with(BlockState::OAK_SLAB, &[(PropName::Type, PropValue::Double)]);
        assert_eq!(of(double), 15);
        let dry_coral = with(
            BlockState::TUBE_CORAL,
            &[(PropName::Waterlogged, PropValue::False)],
        );
        assert_eq!(of(BlockState::TUBE_CORAL), 1);
        assert_eq!(of(dry_coral), 0);
        let wet_leaves = with(
            BlockState::OAK_LEAVES,
            &[(PropName::Waterlogged, PropValue::True)],
        );
        assert_eq!(of(wet_leaves), 1);
        let eight = PropValue::from_u16(8).expect("a value");
        let full_snow = with(BlockState::SNOW, &[(PropName::Layers, eight)]);
        assert_eq!((of(BlockState::SNOW), of(full_snow)), (0, 15));
    }

    #[test]
    fn emission_is_per_state() {
        let lit = with(BlockState::FURNACE, &[(PropName::Lit, PropValue::True)]);
        let unlit = with(BlockState::FURNACE, &[(PropName::Lit, PropValue::False)]);
        assert_eq!(light_facts(lit).emission(), 13);
        assert_eq!(light_facts(unlit).emission(), 0);
        assert_eq!(light_facts(BlockState::TORCH).emission(), 14);
        assert_eq!(light_facts(BlockState::LANTERN).emission(), 15);
        assert_eq!(light_facts(BlockState::GLOWSTONE).emission(), 15);
        assert_eq!(light_facts(BlockState::LAVA).emission(), 15);
    }

    #[test]
    fn slabs_and_stairs_close_the_faces_their_shape_covers() {
        let (down, up, north, south) = (0, 1, 2, 3);
        let bottom = light_facts(BlockState::OAK_SLAB);
        let top = light_facts(with(
            BlockState::OAK_SLAB,
            &[(PropName::Type, PropValue::Top)],
        ));
        let air = LightFacts::AIR;
        // Light does not go down out of a bottom slab, nor sideways out of it where a top slab
        // beside it covers the other half of the face.
        assert!(bottom.occludes(air, down));
        assert!(!bottom.occludes(air, up));
        assert!(!bottom.occludes(air, north));
        assert!(bottom.occludes(top, north));
        assert!(air.occludes(top, down));
        // A stair facing north is whole on its north face and its bottom.
        let stairs = light_facts(with(
            BlockState::OAK_STAIRS,
            &[(PropName::Facing, PropValue::North)],
        ));
        assert!(stairs.occludes(air, north));
        assert!(stairs.occludes(air, down));
        assert!(!stairs.occludes(air, south));
        assert!(!stairs.occludes(air, up));
        // A full block has no shape for light: its opacity stops it.
        assert!(!light_facts(BlockState::STONE).has_shape());
    }
}
