//! The siege, headless: a chasing zombie whose target walls themselves in digs through dirt,
//! cobblestone and deepslate but not obsidian, builds up to a player on a pillar, bridges a
//! ditch; nothing is changed inside spawn protection, and with the siege off nothing at all.
//! Each case waits for its outcome a bounded number of ticks, counted, never timed.

mod support;

use horde::player::Health;
use horde::zombie::siege::SiegeStats;
use horde::zombie::Target;
use support::headless::{harness_with, Harness};
use valence::prelude::*;

fn config() -> horde::config::Config {
    let mut config = horde::config::Config::default();
    config.spawning.enabled = false;
    config.server.spawn_protection = 0;
    config
}

/// A hollow box of `block` round the player's 1x2 room at `at`.
fn seal(h: &mut Harness, at: BlockPos, block: &str) {
    h.fill(
        BlockPos::new(at.x - 1, at.y - 1, at.z - 1),
        BlockPos::new(at.x + 1, at.y + 2, at.z + 1),
        block,
    );
    h.fill(at, BlockPos::new(at.x, at.y + 1, at.z), "air");
}

/// A harness with the player standing in the room they will wall in, 6 blocks east of the
/// stone field's origin: the harness, the origin and the room.
fn player_in_a_room() -> (Harness, BlockPos, BlockPos) {
    let mut h = harness_with(config());
    let o = h.stone_field();
    let room = BlockPos::new(o.x + 6, o.y, o.z);
    h.put_player(room);
    (h, o, room)
}

/// Summons a zombie at `at` and waits until it chases the player (who then walls themselves
/// in: a zombie does not notice a player it cannot see, but keeps one it chases).
fn chaser(h: &mut Harness, at: BlockPos) -> Entity {
    let zombie = h.summon(at);
    let chasing = (0..400).any(|_| {
        h.app.update();
        h.app.world.get::<Target>(zombie).unwrap().player == Some(h.client)
    });
    assert!(chasing, "the zombie saw the player");
    zombie
}

fn health(h: &Harness) -> f32 {
    h.app.world.get::<Health>(h.client).unwrap().0
}

/// Runs at most `ticks` ticks until the player is hurt; returns the tick it happened, if it did.
fn hurt_within(h: &mut Harness, ticks: u32) -> Option<u32> {
    let before = health(h);
    (1..=ticks).find(|_| {
        h.app.update();
        health(h) < before
    })
}

fn stats(h: &Harness) -> SiegeStats {
    h.app.world.resource::<SiegeStats>().clone()
}

/// The blocks of the box at `at` that are `block` no more.
fn opened(h: &mut Harness, at: BlockPos, block: BlockState) -> usize {
    let mut n = 0;
    for x in at.x - 1..=at.x + 1 {
        for y in at.y - 1..=at.y + 2 {
            for z in at.z - 1..=at.z + 1 {
                let inner = x == at.x && z == at.z && (y == at.y || y == at.y + 1);
                if !inner && h.block(BlockPos::new(x, y, z)) != block {
                    n += 1;
                }
            }
        }
    }
    n
}

#[test]
fn a_player_sealed_in_dirt_is_dug_out_and_hit() {
    let (mut h, o, room) = player_in_a_room();
    chaser(&mut h, BlockPos::new(o.x - 2, o.y, o.z));
    seal(&mut h, room, "dirt");
    let hit = hurt_within(&mut h, 2000);
    assert!(
        hit.is_some(),
        "not reached: {:?} {}",
        stats(&h),
        h.run("zombies")
    );
    assert!(opened(&mut h, room, BlockState::DIRT) >= 1, "it dug in");
    let s = stats(&h);
    assert!(s.broken >= 1 && s.plans >= 1, "{s:?}");
    eprintln!("dirt box: hurt after {} ticks, {s:?}", hit.unwrap());
}

#[test]
fn two_chasers_on_either_side_of_a_dirt_box_both_dig_in() {
    let (mut h, o, room) = player_in_a_room();
    // Summoned together, the same distance off: they ask for their sieges on the same ticks,
    // and the searches run side by side.
    let zombies = [
        h.summon(BlockPos::new(room.x - 8, o.y, o.z)),
        h.summon(BlockPos::new(room.x + 8, o.y, o.z)),
    ];
    let chasing = (0..400).any(|_| {
        h.app.update();
        zombies
            .iter()
            .all(|&z| h.app.world.get::<Target>(z).unwrap().player == Some(h.client))
    });
    assert!(chasing, "both saw the player");
    seal(&mut h, room, "dirt");
    let dug_both_sides = (0..2000).any(|_| {
        h.app.update();
        let mut open = |x: i32| {
            (0..2).any(|y| h.block(BlockPos::new(x, room.y + y, room.z)) != BlockState::DIRT)
        };
        open(room.x - 1) && open(room.x + 1)
    });
    assert!(dug_both_sides, "{:?} {}", stats(&h), h.run("zombies"));
    assert!(stats(&h).plans >= 2, "{:?}", stats(&h));
}

/// Shelters of slow blocks, within the default `max_hardness`, are dug out too: cobblestone,
/// 10 s a block by hand (as dear as walking eighty blocks: the search must go at the target,
/// not round the open field), and deepslate, 15 s (longer than a plan may go without a step).
#[test]
fn a_player_sealed_in_cobblestone_or_deepslate_is_dug_out() {
    for (block, state) in [
        ("cobblestone", BlockState::COBBLESTONE),
        ("deepslate", BlockState::DEEPSLATE),
    ] {
        let (mut h, o, room) = player_in_a_room();
        chaser(&mut h, BlockPos::new(o.x - 2, o.y, o.z));
        seal(&mut h, room, block);
        let hit = hurt_within(&mut h, 4000);
        assert!(hit.is_some(), "{block}: not reached: {:?}", stats(&h));
        assert!(opened(&mut h, room, state) >= 1, "{block}: it dug in");
        eprintln!(
            "{block} box: hurt after {} ticks, {:?}",
            hit.unwrap(),
            stats(&h)
        );
    }
}

#[test]
fn a_player_sealed_in_obsidian_is_safe() {
    let (mut h, o, room) = player_in_a_room();
    chaser(&mut h, BlockPos::new(o.x - 2, o.y, o.z));
    seal(&mut h, room, "obsidian");
    assert_eq!(hurt_within(&mut h, 1500), None);
    assert_eq!(opened(&mut h, room, BlockState::OBSIDIAN), 0);
    assert_eq!(
        stats(&h).broken,
        0,
        "the field is stone: nothing else is dug either"
    );
}

#[test]
fn a_player_on_a_four_high_pillar_is_reached_by_building() {
    let mut h = harness_with(config());
    let o = h.stone_field();
    let base = BlockPos::new(o.x + 5, o.y, o.z);
    h.fill(base, BlockPos::new(base.x, base.y + 3, base.z), "obsidian");
    h.put_player(BlockPos::new(base.x, base.y + 4, base.z));
    h.summon(BlockPos::new(o.x - 2, o.y, o.z));
    let hit = hurt_within(&mut h, 2000);
    assert!(hit.is_some(), "not reached: {:?}", stats(&h));
    let s = stats(&h);
    assert!(s.placed >= 2, "it built up: {s:?}");
    eprintln!("pillar: hurt after {} ticks, {s:?}", hit.unwrap());
}

#[test]
fn a_two_wide_ditch_is_bridged() {
    let mut h = harness_with(config());
    let o = h.stone_field();
    // A ditch 6 deep and 2 wide across the field, the player on the far side.
    h.fill(
        BlockPos::new(o.x + 2, o.y - 6, o.z - 20),
        BlockPos::new(o.x + 3, o.y - 1, o.z + 20),
        "air",
    );
    h.put_player(BlockPos::new(o.x + 5, o.y, o.z));
    h.summon(BlockPos::new(o.x - 2, o.y, o.z));
    let hit = hurt_within(&mut h, 2000);
    assert!(hit.is_some(), "not reached: {:?}", stats(&h));
    let bridged = (2..=3)
        .filter(|dx| h.block(BlockPos::new(o.x + dx, o.y - 1, o.z)) == BlockState::DIRT)
        .count();
    assert!(bridged >= 1, "dirt laid across: {:?}", stats(&h));
}

#[test]
fn nothing_is_broken_inside_spawn_protection_or_with_the_siege_off() {
    for (protection, enabled) in [(16, true), (0, false)] {
        let mut config = config();
        config.server.spawn_protection = protection;
        config.siege.enabled = enabled;
        let mut h = harness_with(config);
        let o = h.stone_field();
        let room = BlockPos::new(o.x + 4, o.y, o.z);
        h.put_player(room);
        chaser(&mut h, BlockPos::new(o.x - 2, o.y, o.z));
        seal(&mut h, room, "dirt");
        assert_eq!(
            hurt_within(&mut h, 1200),
            None,
            "protection {protection}, siege {enabled}"
        );
        assert_eq!(opened(&mut h, room, BlockState::DIRT), 0);
        let s = stats(&h);
        assert_eq!((s.broken, s.placed), (0, 0), "{s:?}");
    }
}
