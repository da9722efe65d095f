// A real survival client's body against vanilla 1.20.1's rules, on a stone field at night.
// Step `survival`: the survivor falls 10 blocks and loses what the server's rule gives for the
// distance its client reported; heals while fed and stops below 18 food; hears a zombie groan;
// takes a zombie's blow bare, then the same zombie's blow in full iron, less by the armour
// formula; kills it with a sword, picks up the rotten flesh it dropped (another zombie if it
// dropped none) and gathers its experience; eats and heals back to full; throws emeralds down
// and the world is saved. A watcher in creative sees the armour go on. Step `after-restart`
// (HORDE_SPOT: what `survival` returned): after a restart the survivor sees the emeralds where
// they lay.
'use strict'

const { Vec3 } = require('vec3')
const mcData = require('minecraft-data')('1.20.1')
const { connectBot, rconClient, until, untilAnswer, check, log, scenario, slay, WAIT_MS } = require('./lib')

// minecraft-data numbers 1.20.1's sounds from 1, as they go on the wire; the packet decoder has
// already taken the 1 off, leaving the registry's own id.
const GROAN = mcData.soundsByName['entity.zombie.ambient'].id - 1
const ARMOUR = [['iron_helmet', 'head'], ['iron_chestplate', 'torso'], ['iron_leggings', 'legs'], ['iron_boots', 'feet']]
// Full iron: 2 + 6 + 5 + 2 points, no toughness (`ArmorMaterials.IRON`).
const IRON_POINTS = 15
const f32 = Math.fround

const gametime = async (rcon) => Number(/gametime=(\d+)/.exec(await rcon.send('time query'))[1])
const count = (bot, name) => bot.inventory.items().filter((i) => i.name === name).reduce((n, i) => n + i.count, 0)
const items = (bot, name) => Object.values(bot.entities).filter((e) => e.name === 'item' && e.getDroppedItem()?.name === name)
const zombies = (bot) => Object.values(bot.entities).filter((e) => e.name === 'zombie')

// The server's fall damage for a fall of `distance` blocks onto stone: a point a block past 3,
// rounded up (`LivingEntity.calculateFallDamage`).
const fallDamage = (distance) => Math.max(0, Math.ceil(f32(distance - 3)))
// What gets through `points` of armour without toughness (`CombatRules.getDamageAfterAbsorb`).
const afterArmour = (damage, points) => {
  const effective = Math.min(20, Math.max(points / 5, points - damage / 2))
  return damage * (1 - effective / 25)
}

// Resolves with the amount of the next health update that lowers the health.
function nextBlow (bot) {
  const before = bot.health
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { bot.removeListener('health', listener); reject(new Error('no blow came')) }, WAIT_MS)
    function listener () {
      if (bot.health >= before) return
      clearTimeout(timer)
      bot.removeListener('health', listener)
      resolve({ before, after: bot.health, lost: before - bot.health })
    }
    bot.on('health', listener)
  })
}

async function survival (rcon, bot, watcher, groans) {
  const say = async (line) => { const answer = await rcon.send(line); log(`${line} -> ${answer}`); return answer }
  await until(() => bot.entity.onGround, 'the survivor stands on the ground')
  await say('time set midnight')
  await say('gamemode creative watcher')
  const p = bot.entity.position.floored()
  const [x, y, z] = [p.x, p.y, p.z]
  // A stone field, open sky 14 blocks up.
  await say(`fill ${x - 10} ${y - 2} ${z - 10} ${x + 10} ${y - 1} ${z + 10} stone`)
  await say(`fill ${x - 10} ${y} ${z - 10} ${x + 10} ${y + 13} ${z + 10} air`)
  await say(`tp watcher ${x - 8.5} ${y} ${z - 8.5}`)
  for (const [name] of ARMOUR) await say(`give survivor ${name}`)
  for (const [name, n] of [['diamond_sword', 1], ['cookie', 1], ['cooked_beef', 1], ['emerald', 5]]) {
    check(/dropped=0/.test(await say(`give survivor ${name} ${n}`)), `the survivor holds ${n} ${name}`)
  }
  await until(() => bot.blockAt(p.offset(0, -1, 0))?.name === 'stone' && bot.blockAt(p.offset(0, 9, 0))?.name === 'air',
    'the survivor sees the field')
  check(bot.health === 20 && bot.food === 20, `full health and food: ${bot.health} ${bot.food}`)

  // 1. A fall of 10 blocks onto stone. The server counts what the client reports falling
  // before the move that lands (vanilla's `fallDistance`), as f32: follow the same moves here.
  const top = new Vec3(x + 0.5, y + 10, z + 0.5)
  let fell = null
  let fallen = 0
  let lastY = null
  const onMove = () => {
    const at = bot.entity.position
    if (lastY === null) {
      if (at.distanceTo(top) < 1e-6) lastY = at.y
      return
    }
    if (!bot.entity.onGround) {
      if (at.y < lastY) fallen = f32(fallen - f32(at.y - lastY))
      lastY = at.y
    } else if (fell === null) {
      fell = { fallen, landed: at.y }
    }
  }
  bot.on('move', onMove)
  const fall = nextBlow(bot)
  await say(`tp survivor ${top.x} ${top.y} ${top.z}`)
  const fallBlow = await fall
  await until(() => fell !== null, 'the survivor lands')
  bot.removeListener('move', onMove)
  const expected = fallDamage(fell.fallen)
  log(`fell ${top.y - fell.landed} blocks, ${fell.fallen} before the landing move`)
  check(fell.landed === y, `landed on the stone at ${fell.landed}`)
  check(fallBlow.lost === expected, `a fall of ${fell.fallen.toFixed(3)} blocks took ${fallBlow.lost}, the rule ${expected}`)
  check(expected === 7, 'a 10-block fall costs 7, as in vanilla')

  // 2. Fed (18 food or more) the survivor heals, which tires it: its food falls, and below 18
  // the healing stops. From here on no heal mixes into a blow.
  const healed = { least: bot.health }
  await until(() => bot.food < 18, 'healing tires the survivor below 18 food')
  check(bot.health > healed.least, `healed from ${healed.least} to ${bot.health} while fed`)
  const settled = { health: bot.health, food: bot.food, saturation: bot.foodSaturation }
  log(`settled at ${JSON.stringify(settled)}`)

  // 3. A zombie in a glass cell; the survivor, creative, is no prey. It groans now and then.
  await say('gamemode creative survivor')
  await say('time set midnight')
  const cell = [x + 3, y, z - 1, x + 5, y + 2, z + 1]
  await say(`fill ${cell.join(' ')} glass`)
  await say(`fill ${x + 4} ${y} ${z} ${x + 4} ${y + 1} ${z} air`)
  groans.length = 0
  const summonedAt = await gametime(rcon)
  check(/summoned=zombie/.test(await say(`summon zombie ${x + 4.5} ${y} ${z + 0.5}`)), 'a zombie is summoned')
  await until(() => zombies(bot).length === 1, 'the survivor sees the zombie')
  const zombie = zombies(bot)[0]
  await until(() => groans.length > 0, 'the survivor hears the zombie groan')
  const groanTicks = (await gametime(rcon)) - summonedAt
  const groan = groans[0]
  const mouth = zombie.position.offset(0, 1.74, 0)
  check(groan.at.distanceTo(mouth) < 1, `the groan comes from the zombie's mouth: ${groan.at} vs ${mouth}`)
  check(groan.category === 'hostile' || groan.category === 5, `a hostile sound: ${groan.category}`)

  // 4. Out of the cell, the zombie hits the survivor, bare, back in survival.
  const bareBlow = nextBlow(bot)
  await say(`fill ${cell.join(' ')} air`)
  await say('gamemode survival survivor')
  const bare = await bareBlow
  await say('gamemode creative survivor')
  const held = zombie.heldItem?.name ?? null
  log(`bare: ${JSON.stringify(bare)}; the zombie holds ${held}`)
  if (held === null) check(bare.lost === 3, `a zombie's blow on normal: ${bare.lost}`)

  // 5. Iron on, which the watcher sees the server take; then the same zombie's blow again.
  for (const [name, where] of ARMOUR) await bot.equip(bot.inventory.items().find((i) => i.name === name), where)
  await bot.equip(bot.inventory.items().find((i) => i.name === 'diamond_sword'), 'hand')
  const seen = () => watcher.players.survivor?.entity?.equipment.filter(Boolean).map((i) => i.name) ?? []
  await until(() => ARMOUR.every(([name]) => seen().includes(name)) && seen().includes('diamond_sword'),
    'the watcher sees the survivor in iron, sword in hand')
  const armouredBlow = nextBlow(bot)
  await say('time set midnight')
  await say('gamemode survival survivor')
  const armoured = await armouredBlow
  const formula = afterArmour(bare.lost, IRON_POINTS)
  log(`armoured: ${JSON.stringify(armoured)}; the formula says ${formula}`)
  check(armoured.lost < bare.lost, `iron took the blow from ${bare.lost} down to ${armoured.lost}`)
  check(Math.abs(armoured.lost - formula) < 1e-4, `as the armour formula: ${armoured.lost} vs ${formula}`)

  // 6. The survivor kills it with the sword; its loot (0 to 2 rotten flesh) lies where it fell.
  const flesh = new Map()
  bot.on('itemDrop', (e) => { if (e.getDroppedItem()?.name === 'rotten_flesh') flesh.set(e.id, e.getDroppedItem().count) })
  const fleshBefore = count(bot, 'rotten_flesh')
  const swings = await slay(bot, zombie)
  log(`killed in ${swings} swings; flesh seen ${JSON.stringify([...flesh])}`)

  // 7. Eating: a cookie's 2 food and 0.4 saturation (2 × 0.1 × 2), then cooked beef up to the
  // cap of 20 food and its 12.8 saturation; fed again, the survivor heals to full.
  const eat = async (name, points, modifier) => {
    const before = { food: bot.food, saturation: bot.foodSaturation }
    await bot.equip(bot.inventory.items().find((i) => i.name === name), 'hand')
    // mineflayer gives up on a meal after 2.5 s; the server finishes it all the same.
    bot.consume().catch((err) => log(`consume: ${err.message}`))
    await until(() => count(bot, name) === 0 && bot.food !== before.food, `the survivor eats the ${name}`)
    const food = Math.min(20, before.food + points)
    const saturation = Math.min(food, f32(before.saturation + f32(points * modifier * 2)))
    check(bot.food === food, `${name}: food ${before.food} -> ${bot.food}, vanilla ${food}`)
    // A hurt survivor heals on the meal's own tick now and then, and the exhaustion of that
    // takes 1 saturation before the client is told (`FoodData.tick`).
    const asVanilla = [0, 1].some((spent) => Math.abs(bot.foodSaturation - (saturation - spent)) < 1e-4)
    check(asVanilla, `${name}: saturation ${before.saturation} -> ${bot.foodSaturation}, vanilla ${saturation}`)
    return { before, after: { food: bot.food, saturation: bot.foodSaturation } }
  }
  const cookie = await eat('cookie', 2, 0.1)
  check(cookie.after.food - cookie.before.food === 2, 'a cookie is worth 2 food')
  const beef = await eat('cooked_beef', 8, 0.8)
  const hurt = bot.health
  await until(() => bot.health === 20, `the fed survivor heals from ${hurt} to full`)

  // 8. The rotten flesh: walk onto it and pick it up; a zombie that dropped none is followed by
  // another until one does.
  let kills = 1
  while (flesh.size === 0) {
    await say('time set midnight')
    await say(`summon zombie ${bot.entity.position.x + 3} ${y} ${bot.entity.position.z}`)
    await until(() => zombies(bot).length === 1, 'the survivor sees the next zombie')
    await slay(bot, zombies(bot)[0])
    kills++
    log(`kill ${kills}: flesh seen ${JSON.stringify([...flesh])}`)
  }
  const dropped = [...flesh.values()].reduce((a, b) => a + b, 0)
  const lying = () => [...flesh.keys()].map((id) => bot.entities[id]).filter(Boolean)
  bot.setControlState('forward', true)
  try {
    await until(() => {
      const next = lying()[0]
      if (next) bot.lookAt(next.position, true)
      return next === undefined
    }, 'the survivor walks onto the rotten flesh')
  } finally {
    bot.clearControlStates()
  }
  await until(() => count(bot, 'rotten_flesh') === fleshBefore + dropped, `the survivor holds the ${dropped} rotten flesh`)
  check(!items(bot, 'rotten_flesh').length, 'no rotten flesh is left on the ground')
  // Each kill's orbs (5 points or more) drift to the survivor, and the bar shows them.
  await until(() => bot.experience.points >= 5 * kills, `the survivor gathers ${kills} zombies' experience`)
  check(bot.experience.level >= 0 && bot.experience.progress < 1, `experience ${JSON.stringify(bot.experience)}`)
  const list = await say('list')
  check(new RegExp(`survivor:${kills}\\b`).test(list), `the survivor is credited with ${kills} kills: ${list}`)

  // 9. Five emeralds thrown down on the field, and the world saved.
  await say(`tp survivor ${x + 0.5} ${y} ${z + 0.5}`)
  await until(() => bot.entity.position.distanceTo(new Vec3(x + 0.5, y, z + 0.5)) < 0.1, 'the survivor is back in the middle')
  await bot.look(0, 0, true)
  await bot.tossStack(bot.inventory.items().find((i) => i.name === 'emerald'))
  await until(() => items(bot, 'emerald').length === 1 && Math.abs(items(bot, 'emerald')[0].position.y - y) < 0.01,
    'the emeralds lie on the stone')
  check(count(bot, 'emerald') === 0, 'all five were thrown')
  // Well away before their 40-tick pick-up delay ends, wherever the throw's spread sent them.
  await say(`tp survivor ${x - 6.5} ${y} ${z + 6.5}`)
  // Saved where they came to rest: a stack still sliding would slide on after the restart.
  let last = null
  await untilAnswer(async () => {
    const now = items(bot, 'emerald')[0].position.clone()
    await bot.waitForTicks(10)
    const still = last !== null && now.equals(last)
    last = now
    return still
  }, 'the emeralds come to rest')
  const saved = await say('save-all')
  check(/saved=true|chunks=/.test(saved), saved)
  const emeralds = items(bot, 'emerald')[0]
  check(emeralds.getDroppedItem().count === 5, 'one stack of five')
  check(bot.entity.position.distanceTo(emeralds.position) > 3, 'out of the survivor\'s reach')
  return {
    fall: { height: top.y - fell.landed, counted: fell.fallen, lost: fallBlow.lost },
    settled,
    groan: { ticks: groanTicks },
    blows: { bare: bare.lost, armoured: armoured.lost, formula, zombieHolds: held },
    swings,
    kills,
    experience: bot.experience.points,
    flesh: dropped,
    eaten: { cookie, beef, healedFrom: hurt },
    emeralds: emeralds.position.toArray()
  }
}

async function afterRestart (bot, spot) {
  const at = new Vec3(...spot.emeralds)
  const near = () => items(bot, 'emerald').filter((e) => e.position.distanceTo(at) < 1)
  await until(() => near().length === 1, `the survivor sees the emeralds at ${at} again`)
  const emeralds = near()[0]
  check(emeralds.getDroppedItem().count === 5, 'still five')
  return { emeralds: emeralds.position.toArray(), moved: emeralds.position.distanceTo(at) }
}

scenario(async () => {
  const rcon = await rconClient()
  // Zombie groans, as the server sends them: by the sound's registry id, read from the packet
  // itself.
  const groans = []
  const bot = await connectBot('survivor', (b) => b._client.on('sound_effect', (packet) => {
    if (packet.sound?.soundId === GROAN) {
      groans.push({ at: new Vec3(packet.x / 8, packet.y / 8, packet.z / 8), category: packet.soundCategory })
    }
  }))
  let result
  if (process.env.HORDE_STEP === 'after-restart') {
    result = await afterRestart(bot, JSON.parse(process.env.HORDE_SPOT))
  } else {
    const watcher = await connectBot('watcher')
    result = await survival(rcon, bot, watcher, groans)
    watcher.quit()
  }
  bot.quit()
  await rcon.end()
  return result
})
