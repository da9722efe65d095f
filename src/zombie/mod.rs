//! Zombies. Each concern owns its part of a zombie, and the order of a tick is written here,
//! in the stages of [`ZombieSet`] and [`ZombiePlugin`]'s `build`: tiers by distance (`lod`), then what to
//! do (`chase` picks targets, `errand` the destination from whichever errand holds), then, zombie
//! by zombie, the hop (`movement` plans it with `hop` and `path` and walks it with `body`) and
//! what clients see (`sync`, `look`; `tracking` decides who sees whom), then blows (`attack`,
//! `doors`). The components
//! here are the plain state several modules share, each written by one. `record` turns a
//! zombie into a compact record and back, for ghost packs and saves alike; `kinds` are the
//! types and `rules` the chase's settings.

pub mod attack;
pub mod body;
pub mod chase;
pub mod commands;
mod doors;
pub mod errand;
pub mod gear;
pub mod hop;
pub mod kinds;
pub mod lod;
mod look;
mod metrics;
pub mod movement;
pub mod path;
pub mod record;
pub mod rules;
pub mod save;
pub mod siege;
mod sync;
mod tracking;
mod voice;

use bevy_ecs::query::{BatchingStrategy, Has};
use bevy_ecs::system::SystemParam;
use valence::prelude::*;

use crate::common::body::Dying;
use crate::common::stacks::new_stack;
use crate::config::ArmourTier;
use crate::schedule::ZombieSet;
use crate::world::{BlocksChanged, Nav, NavVoxels, Overworld};
pub use attack::Attack;
pub use body::Body;
pub use kinds::ZombieKinds;
pub use lod::{Lod, Tier};
pub use movement::{ChaseStats, Walker};
pub use record::ZombieRecord;
pub use rules::ChaseRules;

pub struct ZombiePlugin;

impl Plugin for ZombiePlugin {
    fn build(&self, app: &mut App) {
        let config = app.world.resource::<crate::config::Config>();
        let tick_rate = app.world.resource::<Server>().tick_rate().get() as f64;
        let (kinds, rules, timing, siege, gear) = (
            ZombieKinds::new(&config.zombies.types),
            ChaseRules::new(config, tick_rate),
            attack::AttackTiming::new(config, tick_rate),
            siege::SiegeRules::new(&config.siege),
            gear::GearRng::new(config),
        );
        app.insert_resource(kinds)
            .insert_resource(rules)
            .insert_resource(timing)
            .insert_resource(siege)
            .insert_resource(gear)
            .insert_resource(ChaseStats::default())
            .insert_resource(siege::SiegeStats::default())
            .add_event::<ZombieStruck>()
            .add_systems(
                Update,
                (
                    kinds::reload_kinds,
                    rules::rebuild_rules,
                    siege::rebuild_rules,
                    attack::retime_attacks,
                )
                    .in_set(crate::schedule::TickSet::Config),
            )
            .add_systems(
                Update,
                (gear::dress_new_zombies, lod::classify_zombies).in_set(ZombieSet::Classify),
            )
            .add_systems(Update, chase::choose_targets.in_set(ZombieSet::Target))
            .add_systems(
                Update,
                (chase::mark_pursuers, errand::decide)
                    .chain()
                    .in_set(ZombieSet::Decide),
            )
            .add_systems(
                Update,
                (
                    move_zombies,
                    siege::plan_sieges,
                    siege::work_sieges,
                    sync::show_equipment,
                    voice::groan,
                    voice::step,
                )
                    .chain()
                    .in_set(ZombieSet::Move),
            )
            .add_systems(
                Update,
                (
                    attack::players_hit_zombies,
                    (body::take_blows, chase::turn_on_strikers),
                    attack::zombies_attack,
                    doors::break_doors,
                    attack::remove_the_dead,
                )
                    .chain()
                    .in_set(ZombieSet::Attack),
            )
            .add_systems(
                Update,
                metrics::count
                    .after(ZombieSet::Attack)
                    .in_set(crate::schedule::TickSet::Zombies)
                    .run_if(crate::metrics::once_a_second),
            )
            .add_plugins(tracking::TrackingPlugin);
        metrics::register(app);
        save::register(app);
    }
}

/// Each zombie that acts this tick plans its hop (`movement`), walks it (`movement`, `body`)
/// and is shown to clients (`sync`), in that order. One loop rather than a system apiece: each
/// system would walk thousands of zombies again.
fn move_zombies(
    mut zombies: Query<
        (
            &Zombie,
            &Destination,
            &mut Walker,
            &mut HopGoal,
            &mut Body,
            &Lod,
            Has<doors::BreakingDoor>,
            Has<Dozing>,
            (&siege::Siege, &mut SiegeRequest),
            &mut Position,
            &mut Look,
            &mut HeadYaw,
        ),
        (Without<Dying>, Without<Client>),
    >,
    world: Wayfinding,
    mut edits: EventReader<BlocksChanged>,
    rules: Res<ChaseRules>,
    mut stats: ResMut<ChaseStats>,
    config: Res<crate::config::Config>,
) {
    let Some(layer) = world.layer() else {
        return;
    };
    let edits: Vec<BlocksChanged> = edits.iter().copied().collect();
    let now = world.now();
    let tally = movement::Tally::default();
    // Each zombie's plan and walk read the world and write only that zombie: they run on
    // every core, in batches small enough that a few long searches do not leave one behind.
    zombies
        .par_iter_mut()
        .batching_strategy(BatchingStrategy::new().batches_per_thread(MOVE_BATCHES_PER_THREAD))
        .for_each_mut(
            |(
                zombie,
                dest,
                mut walker,
                mut goal,
                mut body,
                lod,
                at_door,
                dozing,
                (siege, mut request),
                position,
                look,
                head,
            )| {
                let pos = body.feet(position.0);
                if body.on_ground && edits.iter().any(|e| e.reaches(BlockPos::from_pos(pos), 2)) {
                    // Its footing may have changed: a body at rest is not stepped until it moves.
                    body.on_ground = false;
                }
                let steps = lod.steps(now);
                if steps == 0 {
                    return;
                }
                // The block lookups' cache is the thread's own.
                let ground = movement::Ground {
                    world: &NavVoxels::new(&world.nav, layer),
                    edits: &edits,
                    rules: &rules,
                    now,
                };
                let far = lod.tier >= Tier::Half;
                let turn = movement::Turn {
                    dest,
                    kind: world.kinds.get(zombie.kind),
                    pos,
                    far,
                    // Beyond `lod.full_radius` of every player clients see it every 8th tick
                    // at most (`lod.half_sync_ticks`), not closely enough to tell a glide
                    // from a walk.
                    glides: far && !lod.crowded(),
                    at_door,
                    siege: siege.order(),
                    steps,
                };
                let (pos, asks) = movement::act(&mut walker, &mut body, &turn, &ground, &tally);
                if request.0 != asks {
                    request.0 = asks;
                }
                if goal.0 != walker.goal() {
                    goal.0 = walker.goal();
                }
                body.place(pos);
                let acted = sync::Acted {
                    pos,
                    walker: &walker,
                    dest,
                    lod,
                    dozing,
                };
                let shown = sync::Shown {
                    position,
                    look,
                    head,
                };
                sync::sync(acted, now, &config.lod, shown);
            },
        );
    tally.add_to(&mut stats);
}

/// What zombies find their way with, read by the systems that plan their ways (`move_zombies`,
/// the siege's search): the overworld's blocks and the walkability facts kept of them, the
/// zombie types (speed, reach) and the tick.
#[derive(SystemParam)]
struct Wayfinding<'w, 's> {
    layers: Query<'w, 's, &'static ChunkLayer, With<Overworld>>,
    nav: Res<'w, Nav>,
    kinds: Res<'w, ZombieKinds>,
    server: Res<'w, Server>,
}

impl Wayfinding<'_, '_> {
    /// The overworld's blocks, once they are there.
    fn layer(&self) -> Option<&ChunkLayer> {
        self.layers.get_single().ok()
    }

    /// The tick being played.
    fn now(&self) -> u64 {
        self.server.current_tick() as u64
    }
}

/// Batches of zombies a thread takes in [`move_zombies`]: eight a thread keeps the cores
/// even when one batch holds the long searches.
const MOVE_BATCHES_PER_THREAD: usize = 8;

/// A zombie, of type `kind` in [`ZombieKinds`] (an index that never changes while the server
/// runs, whatever a reload does to the list).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zombie {
    pub kind: usize,
}

/// A hunt round's zombie: it fights in the arena rather than roaming, so it joins no pack, the
/// sun neither burns nor lulls it, and it finds the round's players within `hunt.target_range`
/// whether it sees them or not.
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct Arena;

/// The zombie is after a player. Set by the chase module from its target, so that other
/// modules (packs) know a zombie is busy without learning whom it chases.
///
/// Stored in the table like every marker the crowd's per-tick queries filter on (`Dying`,
/// `Dozing`, `BreakingDoor`): one sparse-set filter makes a bevy_ecs 0.11 query walk archetype
/// by archetype through a row lookup, and the 100-player load's zombies phase measured 20 %
/// dearer so. The price: a zombie's row moves when a marker comes or goes (a dawn moves the
/// crowd, 1/20 a tick), and each table keeps its busiest size.
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct Pursuing;

/// Whom a zombie chases, and whom it ignores for a while. Written by the chase module only.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Target {
    /// The player being chased.
    pub player: Option<Entity>,
    /// A player given up on, and the tick until which it is ignored.
    pub(in crate::zombie) ignored: Option<(Entity, u64)>,
    /// The planner's count of hops ended when the chase last looked at them.
    pub(in crate::zombie) hops_seen: u32,
}

impl Target {
    /// Chases `player` from now on (or stops chasing).
    pub fn set(&mut self, player: Option<Entity>) {
        if self.player != player {
            self.player = player;
        }
    }

    /// Whether the zombie is after someone (without saying whom).
    pub fn chasing(&self) -> bool {
        self.player.is_some()
    }
}

/// Health left, in half hearts.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Vitality(pub f32);

/// Ticks of fire left; 0 when not burning. Daylight lights and puts out the fire; it is kept
/// here because a zombie's record carries it.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Burning {
    pub ticks_left: u16,
}

/// What a zombie wears and holds. Decided when the zombie is made (its type's helmet and the
/// spawn's draw in `gear` for a new one, the record's for one coming back), never after: a
/// helmet the sun wore out stays gone.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Equipment {
    pub helmet: Option<Helmet>,
    /// Chest, legs and feet. They never wear: vanilla's mobs' armour takes no harm from blows,
    /// only a burning zombie's helmet does.
    pub body: [Option<ArmourTier>; 3],
    pub weapon: Option<gear::ZombieWeapon>,
}

impl Equipment {
    /// Whether the zombie wears or holds anything.
    pub fn any(&self) -> bool {
        self.helmet.is_some() || self.body.iter().any(Option::is_some) || self.weapon.is_some()
    }

    /// What the zombie has in each slot as item stacks, in [`Equipment::SLOTS`]' order: head,
    /// chest, legs, feet, main hand. The helmet carries the wear the sun gave it.
    pub fn stacks(&self) -> [Option<ItemStack>; 5] {
        let piece = |i: usize| {
            let tier: Option<ArmourTier> = self.body[i - 1];
            tier.map(|t| new_stack(t.pieces()[i], 1, None))
        };
        [
            self.helmet.map(|h| {
                let worn = h.kind.durability().saturating_sub(h.durability);
                crate::player::armour::with_damage(ItemStack::new(h.kind.helmet(), 1, None), worn)
            }),
            piece(1),
            piece(2),
            piece(3),
            self.weapon.map(|w| new_stack(w.item(), 1, None)),
        ]
    }

    /// The slots of [`Equipment::stacks`] as the equipment packet numbers them.
    pub const SLOTS: [i8; 5] = [5, 4, 3, 2, 0];

    /// The armour points and toughness of what the zombie wears, its own 2 points included.
    pub fn protection(&self) -> (f32, f32) {
        self.stacks()
            .iter()
            .flatten()
            .filter_map(|stack| crate::player::armour::piece(stack.item))
            .fold((gear::NATURAL_ARMOUR, 0.0), |(p, t), (_, points, tough)| {
                (p + points, t + tough)
            })
    }
}

/// A helmet and the durability it has left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Helmet {
    pub kind: ArmourTier,
    pub durability: u16,
}

impl Helmet {
    pub fn new(kind: ArmourTier) -> Self {
        Self {
            kind,
            durability: kind.durability(),
        }
    }
}

/// Where the zombie's pack marches it: a waypoint ahead of the centroid while the pack
/// travels. Written by the pack module only.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct March(pub Option<DVec3>);

/// The place a noise or a light draws the zombie to, or the spot it looks at around it.
/// Written by the noise module only.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct Lure(pub Option<DVec3>);

/// Shade the zombie walks to by day. Written by daylight only.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct Shade(pub Option<DVec3>);

/// Asleep by day: still, head down, until a blow or a close player wakes it. Put on and taken
/// off by daylight only. In the table, as [`Pursuing`] says why.
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct Dozing;

/// Why a zombie heads where it does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Why {
    #[default]
    Nowhere,
    /// After this player.
    Chase(Entity),
    /// To where it heard or saw something.
    Investigate,
    March,
    Shade,
    Stroll,
}

/// Where the zombie heads this tick and why. Filled by the errands module alone (`errand`),
/// followed by the planner.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct Destination {
    pub to: Option<DVec3>,
    pub why: Why,
}

impl Destination {
    pub const NOWHERE: Destination = Destination {
        to: None,
        why: Why::Nowhere,
    };

    /// Whether the zombie is after a player (without saying whom).
    pub fn chasing(&self) -> bool {
        matches!(self.why, Why::Chase(_))
    }
}

/// A chaser whose hops bring it no closer to its target asks for a siege against that player.
/// Written by the planner only, read by the siege.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SiegeRequest(pub Option<Entity>);

/// The goal of the hop a zombie walks: where it will be soon, which its tier is reckoned
/// from. Written by the planner only.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct HopGoal(pub Option<DVec3>);

/// A player's blow landed on a zombie: the modules that care react on their own (the chase
/// turns on the striker, daylight wakes a dozer, the body is knocked back).
#[derive(Event, Debug, Clone, Copy, PartialEq)]
pub struct ZombieStruck {
    pub zombie: Entity,
    pub by: Entity,
    /// The push, in blocks a tick.
    pub knockback: DVec3,
}

/// Whether `entity` takes its turn at tick `now` of work done once per `period` ticks: each
/// entity on its own tick, so the work is spread instead of landing on one.
pub fn staggered(entity: Entity, now: u64, period: u64) -> bool {
    (now + entity.index() as u64).is_multiple_of(period)
}
