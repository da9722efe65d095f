// Two real clients. Step `build`: the digger digs a grass block beside it (survival, bare
// hands, the client's own dig time), picks up the dirt it dropped from the hole and puts it back, then digs a
// second one and leaves the hole; the watcher sees every change, as every client must.
// Step `after-restart` (HORDE_SPOT: what `build` returned): after a restart both clients see
// the same blocks still there, read back from the region files.
'use strict'

const { Vec3 } = require('vec3')
const { connectBot, rconClient, until, check, log, scenario } = require('./lib')

const name = (bot, at) => bot.blockAt(at)?.name

async function build (rcon, digger, watcher) {
  await until(() => digger.entity.onGround, 'the digger stands on the ground')
  log(await rcon.send('time set noon'))
  log(await rcon.send('gamemode creative watcher'))
  const p = digger.entity.position.floored()
  const [x, y, z] = [p.x, p.y, p.z]
  log(await rcon.send(`fill ${x - 3} ${y - 2} ${z - 3} ${x + 3} ${y - 1} ${z + 3} stone`))
  log(await rcon.send(`fill ${x - 3} ${y} ${z - 3} ${x + 3} ${y + 3} ${z + 3} air`))
  log(await rcon.send(`fill ${x + 1} ${y - 1} ${z} ${x + 1} ${y - 1} ${z} grass_block`))
  log(await rcon.send(`fill ${x - 1} ${y - 1} ${z} ${x - 1} ${y - 1} ${z} grass_block`))
  const hole = p.offset(1, -1, 0)
  const pit = p.offset(-1, -1, 0)
  // The watcher picks up items too (creative): it stands 3 blocks from both holes, beyond
  // reach of a drop that bounces onto the rim (a player reaches 1.3 blocks sideways).
  log(await rcon.send(`tp watcher ${x - 1.5} ${y} ${z + 3.5}`))
  await until(() => name(digger, hole) === 'grass_block' && name(watcher, hole) === 'grass_block',
    'both clients see the grass block')

  await digger.dig(digger.blockAt(hole))
  await until(() => name(watcher, hole) === 'air', 'the watcher sees the block dug')
  check(name(digger, hole) === 'air', 'the digger sees air')
  // The drop lies in the hole as an item entity, seen by both; the digger steps in for it.
  const dropped = (bot) => Object.values(bot.entities).find((e) =>
    e.name === 'item' && e.getDroppedItem()?.name === 'dirt' && e.position.distanceTo(hole.offset(0.5, 0, 0.5)) < 3)
  await until(() => dropped(digger) && dropped(watcher), 'both clients see the dirt on the ground')
  check(!digger.inventory.items().some((i) => i.name === 'dirt'), 'not straight into the inventory')
  log(await rcon.send(`tp digger ${hole.x + 0.5} ${hole.y} ${hole.z + 0.5}`))
  await until(() => digger.inventory.items().some((i) => i.name === 'dirt'), 'the dirt reaches the digger')
  await until(() => !dropped(watcher), 'the picked-up item is gone for the watcher')
  log(await rcon.send(`tp digger ${x + 0.5} ${y} ${z + 0.5}`))
  await until(() => digger.entity.position.distanceTo(p.offset(0.5, 0, 0.5)) < 0.1, 'the digger is back')
  const dirt = digger.inventory.items().find((i) => i.name === 'dirt')
  check(dirt.count === 1, `the digger holds one dirt: ${dirt.count}`)

  await digger.equip(dirt, 'hand')
  const below = hole.offset(0, -1, 0)
  await digger.placeBlock(digger.blockAt(below), hole.minus(below))
  await until(() => name(watcher, hole) === 'dirt', 'the watcher sees the dirt placed')
  check(name(digger, hole) === 'dirt', 'the digger sees the dirt placed')
  await until(() => !digger.inventory.items().some((i) => i.name === 'dirt'), 'the dirt is spent')

  await digger.dig(digger.blockAt(pit))
  await until(() => name(watcher, pit) === 'air', 'the watcher sees the second block dug')
  return { hole: hole.toArray(), pit: pit.toArray(), floor: p.offset(2, -1, 2).toArray() }
}

async function afterRestart (digger, watcher, spot) {
  const expected = [[spot.hole, 'dirt'], [spot.pit, 'air'], [spot.floor, 'stone']]
  for (const bot of [digger, watcher]) {
    for (const [at, block] of expected) {
      const pos = new Vec3(...at)
      await until(() => name(bot, pos) !== undefined, `${bot.username} has the chunk at ${at}`)
      check(name(bot, pos) === block, `${bot.username} sees ${block} at ${at}: ${name(bot, pos)}`)
    }
  }
  return { kept: expected.length }
}

scenario(async () => {
  const rcon = await rconClient()
  const digger = await connectBot('digger')
  const watcher = await connectBot('watcher')
  const result = process.env.HORDE_STEP === 'after-restart'
    ? await afterRestart(digger, watcher, JSON.parse(process.env.HORDE_SPOT))
    : await build(rcon, digger, watcher)
  digger.quit()
  watcher.quit()
  await rcon.end()
  return result
})
