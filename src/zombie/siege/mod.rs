//! The siege: a chasing zombie whose target its ordinary search cannot reach (walled in, up a
//! pillar, across a ditch) digs, climbs and builds its way there. The planner asks for a siege
//! ([`SiegeRequest`]) when its hops bring it no closer; this module searches a way that may
//! break and place blocks (`path`, with vanilla's dig times from `rules`), and the zombie
//! follows it step by step: it digs each block in its way, the cracks growing for everyone,
//! stacks a block under itself to climb and lays one to bridge a gap. Every change is an
//! ordinary edit, seen by paths, bodies, the light and the region save, and none is made
//! inside spawn protection. All zombies together change at most `siege.edits_per_tick` blocks
//! a tick; searches run only for zombies that asked, at most `siege.plans_per_tick` a tick.

pub mod path;
pub mod rules;

use std::collections::VecDeque;

use bevy_ecs::system::SystemParam;
use bevy_tasks::ComputeTaskPool;

use valence::entity::{EntityAnimations, EntityId};
use valence::layer::Layer;
use valence::prelude::*;
use valence::protocol::packets::play::BlockBreakingProgressS2c;
use valence::protocol::sound::SoundCategory;
use valence::protocol::{Sound, VarInt, WritePacket};

use self::path::{siege_path, walk_ticks, Ground, How, Step};
pub use self::rules::{climbable, falls, SiegeRules};
use super::{Body, SiegeRequest, Target, Wayfinding, Zombie};
use crate::common::body::Dying;
use crate::config::{Config, ConfigChanged};
use crate::world::sound::{block_sounds, level_event, BLOCK_BROKEN};
use crate::world::{is_solid, BlocksChanged, NavVoxels, Overworld, SpawnGuard};

/// Vanilla's level event for a broken block: the client plays its break sound and particles.
/// A crack stage outside 0..=9 clears the cracks.
const NO_CRACKS: u8 = 255;
/// The client forgets cracks not refreshed for 400 ticks (`LevelRenderer`): a slow dig sends
/// its stage again before that.
const CRACKS_REFRESH_TICKS: u64 = 300;
/// A plan that has made no headway this long (no step walked, no block dug at) is dropped,
/// and the zombie asks again.
const STALL_TICKS: u64 = 200;
/// After a search finds nothing, the next is this many ticks later.
const RETRY_TICKS: u64 = 200;
/// A siege is searched only for a target this near, flat, and no higher above the zombie
/// than it may build plus a jump, nor deeper below than this.
const REACH_FLAT: f64 = 24.0;
const REACH_DEPTH: f64 = 16.0;
/// A target this far from where the plan was made for makes it out of date.
const TARGET_MOVED: f64 = 3.0;
/// A zombie digs a block only within this distance of its eyes.
const DIG_REACH: f64 = 4.0;

/// A zombie's siege: the way it follows and what it is doing to it.
#[derive(Component, Debug, Clone, Default)]
pub struct Siege {
    plan: Option<Box<Plan>>,
    /// No new search before this tick.
    retry_at: u64,
}

#[derive(Debug, Clone)]
struct Plan {
    target: Entity,
    /// Where the target stood when the way was found.
    goal: DVec3,
    steps: VecDeque<Step>,
    dig: Option<Dig>,
    /// The last tick a step or a block was done.
    progress_at: u64,
}

/// A block being dug.
#[derive(Debug, Clone, Copy)]
struct Dig {
    at: BlockPos,
    ticks: u32,
    needed: u32,
    stage: u8,
    sent_at: u64,
}

/// What the planner is to do with a besieging zombie's body this tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Order {
    /// The block to walk to, if the body is to move.
    pub walk_to: Option<BlockPos>,
    pub jump: bool,
}

impl Siege {
    /// The order for the body, while a siege is on.
    pub fn order(&self) -> Option<Order> {
        let plan = self.plan.as_ref()?;
        plan.steps.front().map(Order::of)
    }
}

impl Order {
    /// What the body does for `step`: walks to it once nothing is to be dug or placed first;
    /// for a pillar, jumps from the middle of its block (off the middle, a shoulder under a
    /// block beside stops the jump, and the block never goes in).
    pub fn of(step: &Step) -> Self {
        let placing = step.place.is_some();
        let walk_to = match (step.how, step.place) {
            (How::Pillar, Some(base)) => Some(base),
            _ => (step.breaks.is_empty() && !placing).then_some(step.to),
        };
        Order {
            walk_to,
            jump: placing && step.how == How::Pillar,
        }
    }
}

/// Totals since start, for `zombies` and the benchmark.
#[derive(Resource, Debug, Clone, Default, PartialEq, Eq)]
pub struct SiegeStats {
    pub plans: u64,
    pub broken: u64,
    pub placed: u64,
}

/// After a `reload`: the siege rules from the new values.
pub(super) fn rebuild_rules(
    mut changed: EventReader<ConfigChanged>,
    mut rules: ResMut<SiegeRules>,
    config: Res<Config>,
) {
    if changed.iter().any(|c| c.touches("siege")) {
        *rules = SiegeRules::new(&config.siege);
    }
}

/// Searches a siege for the zombies that asked (a few a tick) and drops the plans of those
/// whose target went or moved on.
pub(super) fn plan_sieges(
    mut zombies: Query<
        (
            Entity,
            &Zombie,
            &SiegeRequest,
            &Target,
            &Body,
            &Position,
            &mut Siege,
        ),
        (Without<Dying>, Without<Client>),
    >,
    players: Query<&Position, (With<Client>, Without<Zombie>)>,
    world: Wayfinding,
    terms: SiegeTerms,
    mut stats: ResMut<SiegeStats>,
) {
    let Some(layer) = world.layer() else {
        return;
    };
    let now = world.now();
    let (rules, protected) = (&terms.rules, terms.protection());
    let mut due: Vec<Search> = Vec::new();
    for (entity, zombie, request, target, body, position, mut siege) in &mut zombies {
        let player_at = |e: Entity| players.get(e).ok().map(|p| p.0);
        if let Some(plan) = &siege.plan {
            let stale = target.player != Some(plan.target)
                || player_at(plan.target).is_none_or(|p| p.distance(plan.goal) > TARGET_MOVED)
                || now > plan.progress_at + STALL_TICKS
                || !rules.enabled;
            if stale {
                siege.plan = None;
            }
            continue;
        }
        let Some(wanted) = request.0.filter(|_| rules.enabled) else {
            continue;
        };
        if now < siege.retry_at || due.len() >= rules.plans_per_tick as usize {
            continue;
        }
        let Some(goal) = player_at(wanted) else {
            continue;
        };
        let feet_at = body.feet(position.0);
        let rise = goal.y - feet_at.y;
        let flat = DVec2::new(goal.x - feet_at.x, goal.z - feet_at.z).length();
        if flat > REACH_FLAT || rise > rules.max_build_height as f64 + 2.0 || rise < -REACH_DEPTH {
            siege.retry_at = now + RETRY_TICKS;
            continue;
        }
        stats.plans += 1;
        due.push(Search {
            zombie: entity,
            target: wanted,
            goal,
            feet: BlockPos::from_pos(feet_at),
            kind: zombie.kind,
        });
    }
    let search = |due: &Search| {
        let kind = world.kinds.get(due.kind);
        // The block lookups' cache is the search's own; a block's state is read only where
        // the walkability facts do not settle it.
        let voxels = NavVoxels::new(&world.nav, layer);
        let ground = Ground {
            world: &voxels,
            rules,
            walk_ticks: walk_ticks(kind.speed),
            protected: &protected,
        };
        siege_path(&ground, due.feet, due.goal, kind.reach * 0.8)
    };
    // Each search reads the world and nothing else: more than one runs on every core.
    let found: Vec<Option<Vec<Step>>> = match due.as_slice() {
        [] => return,
        [one] => vec![search(one)],
        several => ComputeTaskPool::get().scope(|scope| {
            for one in several {
                scope.spawn(async { search(one) });
            }
        }),
    };
    for (due, steps) in due.into_iter().zip(found) {
        let Ok((.., mut siege)) = zombies.get_mut(due.zombie) else {
            continue;
        };
        match steps {
            Some(steps) if !steps.is_empty() => {
                siege.plan = Some(Box::new(Plan {
                    target: due.target,
                    goal: due.goal,
                    steps: steps.into(),
                    dig: None,
                    progress_at: now,
                }));
            }
            _ => siege.retry_at = now + RETRY_TICKS,
        }
    }
}

/// A zombie due a siege search this tick: against whom, where they stand, where the zombie's
/// feet are, and its type.
struct Search {
    zombie: Entity,
    target: Entity,
    goal: DVec3,
    feet: BlockPos,
    kind: usize,
}

/// The terms every siege is held to: the siege's rules, and spawn protection, where no zombie
/// changes anything.
#[derive(SystemParam)]
pub(super) struct SiegeTerms<'w> {
    rules: Res<'w, SiegeRules>,
    guard: SpawnGuard<'w>,
}

impl SiegeTerms<'_> {
    /// Whether a block is under spawn protection.
    fn protection(&self) -> impl Fn(BlockPos) -> bool {
        self.guard.rule()
    }
}

/// Besieging zombies work their plans: dig the next block, place the next one, and note each
/// step walked.
pub(super) fn work_sieges(
    mut zombies: Query<
        (
            &Body,
            &Position,
            &EntityId,
            &mut EntityAnimations,
            &mut Siege,
        ),
        (With<Zombie>, Without<Dying>, Without<Client>),
    >,
    mut layers: Query<&mut ChunkLayer, With<Overworld>>,
    mut changed: EventWriter<BlocksChanged>,
    terms: SiegeTerms,
    mut stats: ResMut<SiegeStats>,
    server: Res<Server>,
) {
    let Ok(mut layer) = layers.get_single_mut() else {
        return;
    };
    let now = server.current_tick() as u64;
    let (rules, protected) = (&terms.rules, terms.protection());
    let mut edits = rules.edits_per_tick;
    for (body, position, id, mut swings, mut siege) in &mut zombies {
        let Some(plan) = siege.plan.as_deref_mut() else {
            continue;
        };
        let at = body.feet(position.0);
        let feet = BlockPos::from_pos(at);
        let eyes = at + DVec3::new(0.0, super::body::EYE_HEIGHT, 0.0);
        let mut work = Work {
            layer: &mut layer,
            rules,
            zombie: id.get(),
            now,
        };
        let Some(step) = plan.steps.front_mut() else {
            siege.plan = None;
            continue;
        };
        // Blocks already gone (another zombie dug them) are done.
        while let Some(&b) = step.breaks.first() {
            if work.block(b).is_some_and(is_solid) {
                break;
            }
            step.breaks.remove(0);
        }
        let (next_break, place, how, to) =
            (step.breaks.first().copied(), step.place, step.how, step.to);
        let drop = if let Some(b) = next_break {
            match work.dig(plan, b, eyes, &protected, &mut edits, &mut swings) {
                None => true,
                Some(broke) => {
                    if broke {
                        stats.broken += 1;
                        changed.send(BlocksChanged::between(b, b));
                        if let Some(step) = plan.steps.front_mut() {
                            step.breaks.remove(0);
                        }
                    }
                    // A tick of digging is headway, however long the block takes.
                    plan.progress_at = now;
                    false
                }
            }
        } else if let Some(p) = place {
            // A pillar's block goes in once the body is up off it, high enough.
            let ready = how != How::Pillar || (!body.on_ground && at.y >= p.y as f64 + 1.0);
            if !ready || edits == 0 {
                false
            } else if work.block(p).is_none_or(is_solid) || protected(p) {
                true
            } else {
                work.place(p, rules.build_block);
                swings.trigger(EntityAnimation::SwingMainHand);
                edits -= 1;
                stats.placed += 1;
                changed.send(BlocksChanged::between(p, p));
                if let Some(step) = plan.steps.front_mut() {
                    step.place = None;
                }
                plan.progress_at = now;
                false
            }
        } else {
            if feet == to || (how == How::Pillar && feet.y >= to.y) {
                plan.steps.pop_front();
                plan.progress_at = now;
            }
            false
        };
        if drop || plan.steps.is_empty() {
            if let Some(dig) = plan.dig.take() {
                work.cracks(dig.at, NO_CRACKS);
            }
            siege.plan = None;
        }
    }
}

/// One zombie's changes to the world this tick, by the siege's rules.
struct Work<'a> {
    layer: &'a mut ChunkLayer,
    rules: &'a SiegeRules,
    zombie: i32,
    now: u64,
}

impl Work<'_> {
    fn block(&self, p: BlockPos) -> Option<BlockState> {
        self.layer.block(p).map(|b| b.state)
    }

    /// A tick of digging `b`: `Some(true)` when it broke now, `Some(false)` while it holds,
    /// `None` when it cannot be dug from here (the plan is dropped).
    fn dig(
        &mut self,
        plan: &mut Plan,
        b: BlockPos,
        eyes: DVec3,
        protected: &impl Fn(BlockPos) -> bool,
        edits: &mut u32,
        swings: &mut EntityAnimations,
    ) -> Option<bool> {
        let centre = DVec3::new(b.x as f64 + 0.5, b.y as f64 + 0.5, b.z as f64 + 0.5);
        let state = self.block(b)?;
        if eyes.distance(centre) > DIG_REACH || protected(b) {
            return None;
        }
        let needed = self.rules.break_ticks(state)?;
        let dig = match &mut plan.dig {
            Some(dig) if dig.at == b => dig,
            other => {
                if let Some(old) = other.take() {
                    self.cracks(old.at, NO_CRACKS);
                }
                plan.dig.insert(Dig {
                    at: b,
                    ticks: 0,
                    needed,
                    stage: NO_CRACKS,
                    sent_at: self.now,
                })
            }
        };
        dig.ticks += 1;
        if dig.ticks % 4 == 1 {
            // The hit sound a digging player hears, for everyone near; the arm swings.
            let (hit, _) = block_sounds(state);
            self.sound(hit, SoundCategory::Hostile, centre, 0.25, 0.5);
            swings.trigger(EntityAnimation::SwingMainHand);
        }
        if dig.ticks < dig.needed || *edits == 0 {
            let stage = (dig.ticks * 10 / dig.needed.max(1)).min(9) as u8;
            if stage != dig.stage || self.now >= dig.sent_at + CRACKS_REFRESH_TICKS {
                (dig.stage, dig.sent_at) = (stage, self.now);
                let at = dig.at;
                self.cracks(at, stage);
            }
            return Some(false);
        }
        *edits -= 1;
        plan.dig = None;
        self.layer.set_block(b, BlockState::AIR);
        self.cracks(b, NO_CRACKS);
        level_event(
            self.layer.view_writer(ChunkPos::from_block_pos(b)),
            BLOCK_BROKEN,
            b,
            state.to_raw() as i32,
        );
        Some(true)
    }

    fn place(&mut self, p: BlockPos, block: BlockState) {
        self.layer.set_block(p, block);
        let (_, place) = block_sounds(block);
        let centre = DVec3::new(p.x as f64 + 0.5, p.y as f64 + 0.5, p.z as f64 + 0.5);
        // Vanilla's placing volume and pitch: (1 + 1) / 2 and 0.8 of the block's sound.
        self.sound(place, SoundCategory::Block, centre, 1.0, 0.8);
    }

    fn sound(&mut self, sound: Sound, category: SoundCategory, at: DVec3, volume: f32, pitch: f32) {
        let seed = self.now as i64;
        crate::world::sound::play(self.layer, sound, category, at, (volume, pitch), seed);
    }

    fn cracks(&mut self, at: BlockPos, stage: u8) {
        self.layer
            .view_writer(ChunkPos::from_block_pos(at))
            .write_packet(&BlockBreakingProgressS2c {
                entity_id: VarInt(self.zombie),
                position: at,
                destroy_stage: stage,
            });
    }
}
