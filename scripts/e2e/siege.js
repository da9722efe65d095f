// A real survival client at night walls itself into a dirt box while a zombie chases it: the
// zombie digs in and hurts it. Then the client stands on a 4-high dirt pillar out of reach:
// the zombie builds up to it and hurts it again. Step `siege` returns how many ticks each
// took (the server's own clock, read over RCON), the blocks of the box the client saw opened
// and the blocks it saw the zombie place. Step `after-restart` (HORDE_SPOT: what `siege`
// returned): after a restart the client still sees every one of them as the zombie left it,
// read back from the region files.
'use strict'

const { Vec3 } = require('vec3')
const { connectBot, rconClient, until, untilAnswer, check, log, scenario } = require('./lib')

const gametime = async (rcon) => Number(/gametime=(\d+)/.exec(await rcon.send('time query'))[1])

async function siege (rcon, bot) {
  await until(() => bot.entity.onGround, 'the client stands on the ground')
  log(await rcon.send('time set midnight'))
  const p = bot.entity.position.floored()
  const [x, y, z] = [p.x, p.y, p.z]
  log(await rcon.send(`fill ${x - 10} ${y - 3} ${z - 10} ${x + 10} ${y - 1} ${z + 10} stone`))
  log(await rcon.send(`fill ${x - 10} ${y} ${z - 10} ${x + 10} ${y + 6} ${z + 10} air`))
  log(await rcon.send(`summon zombie ${x - 6}.5 ${y} ${z}.5`))
  await untilAnswer(async () => /chasing=1 /.test(await rcon.send('zombies')), 'the zombie chases the client')
  // The client walls itself in: a box of dirt round its 1x2 room.
  log(await rcon.send(`fill ${x - 1} ${y - 1} ${z - 1} ${x + 1} ${y + 2} ${z + 1} dirt`))
  log(await rcon.send(`fill ${x} ${y} ${z} ${x} ${y + 1} ${z} air`))
  const box = []
  for (let dx = -1; dx <= 1; dx++) {
    for (let dy = -1; dy <= 2; dy++) {
      for (let dz = -1; dz <= 1; dz++) {
        if (dx === 0 && dz === 0 && (dy === 0 || dy === 1)) continue
        box.push(p.offset(dx, dy, dz))
      }
    }
  }
  await until(() => box.every((b) => bot.blockAt(b)?.name === 'dirt'), 'the client sees itself walled in')
  const sealedAt = await gametime(rcon)
  const health = bot.health
  await until(() => bot.health < health, 'the zombie digs in and hurts the client')
  const ticks = (await gametime(rcon)) - sealedAt
  const holes = box.filter((b) => bot.blockAt(b)?.name !== 'dirt').map((b) => b.toArray())
  check(holes.length >= 1, 'the box has a hole')
  const dug = await rcon.send('zombies')
  const built = await pillar(rcon, bot, x, y, z)
  // Safe at last: creative, so the zombie leaves the client be until the restart.
  log(await rcon.send(`gamemode creative ${bot.username}`))
  log(await rcon.send('save-all'))
  return { ticks, holes, zombies: dug, ...built }
}

// The client on top of a 4-high dirt pillar 5 blocks east of the box, in the open: the
// zombie, which cannot reach it, stacks dirt to climb. Returns the ticks until the blow and
// the blocks the client saw the zombie place.
async function pillar (rcon, bot, x, y, z) {
  const [px, pz] = [x + 5, z]
  log(await rcon.send(`gamemode creative ${bot.username}`))
  log(await rcon.send(`fill ${px} ${y} ${pz} ${px} ${y + 3} ${pz} dirt`))
  log(await rcon.send(`tp ${bot.username} ${px + 0.5} ${y + 4} ${pz + 0.5}`))
  await until(() => bot.entity.position.y > y + 3.99 && bot.entity.onGround, 'the client stands on the pillar')
  const around = []
  for (let dx = -4; dx <= 4; dx++) {
    for (let dz = -4; dz <= 4; dz++) {
      for (let dy = 0; dy <= 4; dy++) {
        const at = new Vec3(px + dx, y + dy, pz + dz)
        if (bot.blockAt(at)?.name === 'air') around.push(at)
      }
    }
  }
  const startedAt = await gametime(rcon)
  log(await rcon.send(`gamemode survival ${bot.username}`))
  const health = bot.health
  await until(() => bot.health < health, 'the zombie builds up to the client and hurts it')
  const ticks = (await gametime(rcon)) - startedAt
  const placed = around.filter((b) => bot.blockAt(b)?.name === 'dirt').map((b) => b.toArray())
  check(placed.length >= 1, `the zombie placed blocks: ${JSON.stringify(placed)}`)
  return { pillarTicks: ticks, placed, built: await rcon.send('zombies') }
}

async function afterRestart (bot, spot) {
  for (const at of spot.holes) {
    const pos = new Vec3(...at)
    await until(() => bot.blockAt(pos) !== null, `the client has the chunk at ${at}`)
    check(bot.blockAt(pos).name !== 'dirt', `the hole at ${at} is still open: ${bot.blockAt(pos).name}`)
  }
  for (const at of spot.placed) {
    const pos = new Vec3(...at)
    await until(() => bot.blockAt(pos) !== null, `the client has the chunk at ${at}`)
    check(bot.blockAt(pos).name === 'dirt', `the zombie's block at ${at} is still there: ${bot.blockAt(pos).name}`)
  }
  return { kept: spot.holes.length, placed: spot.placed.length }
}

scenario(async () => {
  const rcon = await rconClient()
  const bot = await connectBot('besieged')
  const result = process.env.HORDE_STEP === 'after-restart'
    ? await afterRestart(bot, JSON.parse(process.env.HORDE_SPOT))
    : await siege(rcon, bot)
  bot.quit()
  await rcon.end()
  return result
})
