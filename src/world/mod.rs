//! The overworld: one chunk layer fed by the world folder's region files and, where those have
//! no chunk, by the terrain generator; the changes made to it, written back at every save; and
//! the spawn point players start and respawn at.

pub mod anvil;
pub mod block_entities;
pub mod chunks;
pub mod door;
mod edit;
mod gate;
pub mod generate;
pub mod light;
mod nav;
mod noise;
pub mod sound;
pub mod surface;
pub mod voxels;

use std::path::PathBuf;

use valence::log::{info, warn};
use valence::nbt::{Compound, Value};
use valence::prelude::*;
use valence::spawn::RespawnPosition;

use crate::config::{Config, GeneratorSetting};
pub use chunks::ChunkLifecycle;
pub use edit::{fill, set_block, snapshot_terrain, BlocksChanged, Edits, TerrainSave};
pub use generate::{Land, Terrain, HEIGHT, MIN_Y, SEA_LEVEL};
pub use nav::{patch_nav, Nav, NavChunk, NavVoxels};
pub use voxels::{climbable, is_solid, Column, Grid, LayerVoxels, Voxels};

/// Loads and generates the world folder given at construction.
pub struct WorldPlugin {
    pub dir: PathBuf,
    /// Generate terrain only between ticks (see `gate`): for a server whose ticks are paced
    /// in real time. A headless test runs its ticks back to back and leaves it off.
    pub terrain_between_ticks: bool,
}

impl Plugin for WorldPlugin {
    fn build(&self, app: &mut App) {
        let server = &app.world.resource::<Config>().server;
        let flat = server.generator == GeneratorSetting::Flat;
        let land = if flat {
            // Checked when the configuration was read.
            Land::Flat(crate::config::flat_layers(&server.flat_layers).unwrap_or_default())
        } else {
            Land::Terrain(Box::new(Terrain::new(server.seed)))
        };
        app.insert_resource(WorldDir(self.dir.clone()))
            .insert_resource(anvil::Regions::new(&self.dir))
            .insert_resource(anvil::EntityRegions::new(&self.dir))
            .init_resource::<WorldSpawn>()
            .init_resource::<Edits>()
            .init_resource::<block_entities::BlockEntities>()
            .init_resource::<Nav>()
            .add_plugins(light::LightPlugin)
            .add_plugins(chunks::ChunksPlugin {
                land,
                between_ticks: self.terrain_between_ticks,
            })
            .add_systems(
                Update,
                show_flat_sky
                    .run_if(move || flat)
                    .in_set(crate::schedule::TickSet::World),
            )
            .add_event::<BlocksChanged>()
            .add_event::<surface::ChunkArrived>()
            .add_systems(Startup, create_overworld)
            .add_systems(
                Update,
                patch_nav
                    .in_set(crate::schedule::TickSet::Zombies)
                    // Plans read walkability facts: this tick's edits go in first.
                    .before(crate::schedule::ZombieSet::Classify),
            )
            .add_systems(
                Update,
                (
                    (resolve_spawn, show_spawn).chain(),
                    block_entities::follow_blocks.before(edit::track_edits),
                    edit::track_edits.before(chunks::drop_unviewed_chunks),
                )
                    .in_set(crate::schedule::TickSet::World),
            );
    }
}

/// The world folder being served.
#[derive(Resource, Debug, Clone)]
pub struct WorldDir(pub PathBuf);

/// Marks the layer entity holding the overworld's chunks and entities.
#[derive(Component, Debug)]
pub struct Overworld;

/// Where players spawn: found on the ground of the spawn chunk once it has loaded, or where
/// an operator set it (`setworldspawn`), which the save keeps as vanilla's `level.dat` does.
#[derive(Resource, Debug, Default, Clone, PartialEq)]
pub struct WorldSpawn {
    pub pos: Option<DVec3>,
    /// The yaw players spawn facing, in degrees.
    pub angle: f32,
    /// Set by an operator rather than found.
    pub set: bool,
}

impl WorldSpawn {
    /// Writes a set spawn into the world save's root, under vanilla's `level.dat` names.
    pub fn save(&self, root: &mut Compound) {
        let (Some(pos), true) = (self.pos, self.set) else {
            return;
        };
        let block = BlockPos::from_pos(pos);
        root.insert("SpawnX", block.x);
        root.insert("SpawnY", block.y);
        root.insert("SpawnZ", block.z);
        root.insert("SpawnAngle", self.angle);
    }

    /// Reads what [`WorldSpawn::save`] wrote; without it the spawn is found as on a new world.
    pub fn load(&mut self, root: &Compound) {
        let int = |key: &str| match root.get(key) {
            Some(Value::Int(v)) => Some(*v),
            _ => None,
        };
        let (Some(x), Some(y), Some(z)) = (int("SpawnX"), int("SpawnY"), int("SpawnZ")) else {
            return;
        };
        self.pos = Some(block_centre(BlockPos::new(x, y, z)));
        self.angle = match root.get("SpawnAngle") {
            Some(Value::Float(a)) if a.is_finite() => *a,
            _ => 0.0,
        };
        self.set = true;
    }
}

/// Where a body stands on block `at`: the middle of its floor.
fn block_centre(at: BlockPos) -> DVec3 {
    DVec3::new(at.x as f64 + 0.5, at.y as f64, at.z as f64 + 0.5)
}

/// `setworldspawn`: the world's spawn at block `at`, facing `angle`; every client's compass
/// points there.
pub fn set_world_spawn(world: &mut World, at: BlockPos, angle: f32) -> String {
    if !in_world(block_centre(at)) {
        return "error=\"Cannot place blocks outside of the world\"".into();
    }
    *world.resource_mut::<WorldSpawn>() = WorldSpawn {
        pos: Some(block_centre(at)),
        angle,
        set: true,
    };
    info!("spawn point set to x={} y={} z={}", at.x, at.y, at.z);
    format!(
        "spawn=true x={} y={} z={} angle={angle:.1}",
        at.x, at.y, at.z
    )
}

/// Clients are told the world's spawn (where their compasses point) as they join and when it
/// moves.
fn show_spawn(spawn: Res<WorldSpawn>, mut clients: Query<(Ref<Client>, &mut RespawnPosition)>) {
    let Some(pos) = spawn.pos else {
        return;
    };
    let shown = RespawnPosition {
        pos: BlockPos::from_pos(pos),
        yaw: spawn.angle,
    };
    for (client, mut respawn) in &mut clients {
        if (client.is_added() || spawn.is_changed()) && *respawn != shown {
            *respawn = shown;
        }
    }
}

/// Spawn protection as the settings give it (`server.spawn_protection`), for the systems that
/// judge what players who are not operators may change.
#[derive(bevy_ecs::system::SystemParam)]
pub struct SpawnGuard<'w> {
    spawn: Res<'w, WorldSpawn>,
    config: Res<'w, Config>,
}

impl SpawnGuard<'_> {
    /// Whether `at` lies under spawn protection: a square round the spawn, none before the
    /// spawn is found.
    pub fn protects(&self, at: BlockPos) -> bool {
        self.rule()(at)
    }

    /// [`Self::protects`] as a rule of its own, for work that outlives the borrow (a siege's
    /// parallel planning).
    pub fn rule(&self) -> impl Fn(BlockPos) -> bool + Copy + Send + Sync {
        let (spawn, radius) = (
            self.spawn.pos.map(BlockPos::from_pos),
            self.config.server.spawn_protection,
        );
        move |at| spawn.is_some_and(|s| spawn_protected(at, s, radius))
    }
}

/// Block column the spawn search starts from.
const SPAWN_COLUMN: (i32, i32) = (0, 0);
/// Chunks around spawn kept loaded, as vanilla keeps its spawn chunks.
pub const SPAWN_CHUNK_RADIUS: i32 = 1;

fn create_overworld(
    mut commands: Commands,
    server: Res<Server>,
    dimensions: Res<DimensionTypeRegistry>,
    biomes: Res<BiomeRegistry>,
    regions: Res<anvil::Regions>,
    mut lifecycle: ResMut<ChunkLifecycle>,
) {
    let layer = LayerBundle::new(ident!("overworld"), &dimensions, &biomes, &server);
    // The biome registry is filled at start-up, after the plugins are built.
    let names = anvil::BiomeNames::new(&biomes);
    let threshold = server.compression_threshold();
    let mut loader = anvil::Loader::start(regions.clone(), names.clone(), threshold);
    let center = ChunkPos::from_block_pos(BlockPos::new(SPAWN_COLUMN.0, 0, SPAWN_COLUMN.1));
    for z in -SPAWN_CHUNK_RADIUS..=SPAWN_CHUNK_RADIUS {
        for x in -SPAWN_CHUNK_RADIUS..=SPAWN_CHUNK_RADIUS {
            let pos = ChunkPos::new(center.x + x, center.z + z);
            loader.request(pos);
            lifecycle.pin(pos, server.current_tick());
        }
    }
    commands.insert_resource(loader);
    commands.insert_resource(names);
    commands.spawn((layer, Overworld));
}

/// A flat world's clients draw its horizon at the bottom of the world, as vanilla's do.
fn show_flat_sky(mut joined: Query<&mut valence::spawn::IsFlat, Added<Client>>) {
    for mut flat in &mut joined {
        flat.0 = true;
    }
}

/// Finds dry standable ground near the spawn column once its chunk is in the layer, unless
/// the save holds a spawn an operator set.
fn resolve_spawn(
    mut spawn: ResMut<WorldSpawn>,
    layers: Query<&ChunkLayer, With<Overworld>>,
    mut told: Local<bool>,
) {
    if let Some(pos) = spawn.pos {
        if !*told {
            info!("spawn point x={} y={} z={} (set)", pos.x, pos.y, pos.z);
            *told = true;
        }
        return;
    }
    let Ok(layer) = layers.get_single() else {
        return;
    };
    let radius = SPAWN_CHUNK_RADIUS * 16;
    let center = ChunkPos::from_block_pos(BlockPos::new(SPAWN_COLUMN.0, 0, SPAWN_COLUMN.1));
    for z in -SPAWN_CHUNK_RADIUS..=SPAWN_CHUNK_RADIUS {
        for x in -SPAWN_CHUNK_RADIUS..=SPAWN_CHUNK_RADIUS {
            if layer
                .chunk(ChunkPos::new(center.x + x, center.z + z))
                .is_none()
            {
                return;
            }
        }
    }
    // Spiral out by rings so the spawn is the dry spot nearest the spawn column.
    for ring in 0..=radius {
        for dz in -ring..=ring {
            for dx in -ring..=ring {
                if dx.abs() != ring && dz.abs() != ring {
                    continue;
                }
                let (x, z) = (SPAWN_COLUMN.0 + dx, SPAWN_COLUMN.1 + dz);
                if let Some(y) = standable_top(layer, x, z) {
                    let pos = DVec3::new(x as f64 + 0.5, y as f64, z as f64 + 0.5);
                    info!("spawn point x={} y={} z={}", pos.x, pos.y, pos.z);
                    spawn.pos = Some(pos);
                    *told = true;
                    return;
                }
            }
        }
    }
    let y = (MIN_Y + HEIGHT as i32) as f64;
    warn!("no dry ground near the spawn column; players spawn at y={y}");
    spawn.pos = Some(DVec3::new(0.5, y, 0.5));
    *told = true;
}

/// Vanilla's world border: 30,000,000 blocks from the centre on x and z.
pub const BORDER: f64 = 30_000_000.0;

/// Where vanilla lets a teleport or a summon go (`Level.isInSpawnableBounds`): inside the
/// border, and within 20,000,000 blocks up or down.
pub fn in_spawnable_bounds(pos: DVec3) -> bool {
    pos.is_finite()
        && (-BORDER..BORDER).contains(&pos.x)
        && (-BORDER..BORDER).contains(&pos.z)
        && (-20_000_000.0..20_000_000.0).contains(&pos.y)
}

/// A block inside the border and the world's height, where blocks can be set.
pub fn in_world(pos: DVec3) -> bool {
    in_spawnable_bounds(pos) && (MIN_Y as f64..(MIN_Y + HEIGHT as i32) as f64).contains(&pos.y)
}

/// Where a body stands in the column at `at`: the middle of its [`standable_top`] block.
pub fn ground_at(layer: &ChunkLayer, at: DVec2) -> Option<DVec3> {
    let (x, z) = (at.x.floor() as i32, at.y.floor() as i32);
    standable_top(layer, x, z).map(|y| DVec3::new(x as f64 + 0.5, y as f64, z as f64 + 0.5))
}

/// [`ground_at`] in the first column with ground on rings around `at`, `radii` blocks out, 16
/// columns a ring: for spots that fall in a lake or a tree.
pub fn ground_around(
    layer: &ChunkLayer,
    at: DVec2,
    radii: impl IntoIterator<Item = f64>,
) -> Option<DVec3> {
    radii.into_iter().find_map(|r| {
        (0..16).find_map(|k| {
            ground_at(
                layer,
                at + DVec2::from_angle(k as f64 * std::f64::consts::FRAC_PI_8) * r,
            )
        })
    })
}

/// The feet height of the highest spot in a column with dry solid ground and two free blocks.
pub fn standable_top(layer: &ChunkLayer, x: i32, z: i32) -> Option<i32> {
    let top = MIN_Y + HEIGHT as i32 - 1;
    let block = |y: i32| layer.block([x, y, z]).map(|b| b.state);
    for y in (MIN_Y..top - 1).rev() {
        let ground = block(y)?;
        if ground.is_air() || ground == BlockState::GRASS {
            continue;
        }
        if ground.to_kind().to_str().ends_with("leaves") {
            return None;
        }
        let feet = block(y + 1)?;
        let head = block(y + 2)?;
        let dry = !ground.is_liquid() && !feet.is_liquid() && !head.is_liquid();
        let clear = !is_solid(feet) && !is_solid(head);
        return (dry && clear && is_solid(ground)).then_some(y + 1);
    }
    None
}

/// Vanilla's spawn protection: within `radius` blocks of the spawn, measured as the larger
/// of the x and z distances, only operators change blocks; 0 protects nothing.
pub fn spawn_protected(at: BlockPos, spawn: BlockPos, radius: u32) -> bool {
    let dx = (at.x as i64 - spawn.x as i64).abs();
    let dz = (at.z as i64 - spawn.z as i64).abs();
    radius > 0 && dx.max(dz) <= radius as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spawn_protection_is_a_square_of_the_radius() {
        let spawn = BlockPos::new(0, 64, 0);
        assert!(spawn_protected(BlockPos::new(16, 70, -16), spawn, 16));
        assert!(!spawn_protected(BlockPos::new(17, 70, 0), spawn, 16));
        assert!(!spawn_protected(spawn, spawn, 0), "0 protects nothing");
        assert!(
            spawn_protected(BlockPos::new(i32::MIN, 0, i32::MAX), spawn, u32::MAX),
            "no overflow at the ends of the world"
        );
    }
}
