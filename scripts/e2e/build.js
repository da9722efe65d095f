// Two real clients: the digger digs the grass block beside it (survival, bare hands, the
// client's own dig time) and puts the dirt it got back in the hole; the watcher sees the block
// go and come back, as every client must.
'use strict'

const { connectBot, rconClient, until, check, log, scenario } = require('./lib')

const name = (bot, at) => bot.blockAt(at)?.name

scenario(async () => {
  const rcon = await rconClient()
  const digger = await connectBot('digger')
  const watcher = await connectBot('watcher')
  await until(() => digger.entity.onGround, 'the digger stands on the ground')
  log(await rcon.send('time set noon'))
  log(await rcon.send('gamemode creative watcher'))
  const p = digger.entity.position.floored()
  const [x, y, z] = [p.x, p.y, p.z]
  log(await rcon.send(`fill ${x - 3} ${y - 2} ${z - 3} ${x + 3} ${y - 1} ${z + 3} stone`))
  log(await rcon.send(`fill ${x - 3} ${y} ${z - 3} ${x + 3} ${y + 3} ${z + 3} air`))
  log(await rcon.send(`fill ${x + 1} ${y - 1} ${z} ${x + 1} ${y - 1} ${z} grass_block`))
  const hole = p.offset(1, -1, 0)
  await until(() => name(digger, hole) === 'grass_block' && name(watcher, hole) === 'grass_block',
    'both clients see the grass block')

  await digger.dig(digger.blockAt(hole))
  await until(() => name(watcher, hole) === 'air', 'the watcher sees the block dug')
  check(name(digger, hole) === 'air', 'the digger sees air')
  await until(() => digger.inventory.items().some((i) => i.name === 'dirt'), 'the dirt reaches the digger')
  const dirt = digger.inventory.items().find((i) => i.name === 'dirt')
  check(dirt.count === 1, `the digger holds one dirt: ${dirt.count}`)

  await digger.equip(dirt, 'hand')
  const below = hole.offset(0, -1, 0)
  await digger.placeBlock(digger.blockAt(below), hole.minus(below))
  await until(() => name(watcher, hole) === 'dirt', 'the watcher sees the dirt placed')
  check(name(digger, hole) === 'dirt', 'the digger sees the dirt placed')
  await until(() => !digger.inventory.items().some((i) => i.name === 'dirt'), 'the dirt is spent')
  digger.quit()
  watcher.quit()
  await rcon.end()
  return { dug: true, placed: true }
})
