// A real survival client at night behind a stone wall from a zombie that cannot see it: for a
// while nothing happens; then the client digs a dirt block by its feet, the zombie hears it,
// goes to look (the server counts it investigating) and comes round the wall to the dug block,
// where it finds the client. Returns the ticks from the dig to the zombie beside the block.
'use strict'

const { connectBot, rconClient, until, untilAnswer, check, log, scenario } = require('./lib')

const gametime = async (rcon) => Number(/gametime=(\d+)/.exec(await rcon.send('time query'))[1])
const field = (line, key) => new RegExp(`${key}=(\\d+)`).exec(line)?.[1]

scenario(async () => {
  const rcon = await rconClient()
  const bot = await connectBot('digger')
  await until(() => bot.entity.onGround, 'the client stands on the ground')
  log(await rcon.send('time set midnight'))
  log(await rcon.send('weather clear'))
  const p = bot.entity.position.floored()
  const [x, y, z] = [p.x, p.y, p.z]
  log(await rcon.send(`fill ${x - 12} ${y - 3} ${z - 12} ${x + 12} ${y - 1} ${z + 12} stone`))
  log(await rcon.send(`fill ${x - 12} ${y} ${z - 12} ${x + 12} ${y + 8} ${z + 12} air`))
  // A stone wall, 5 high, between the client and where the zombie stands.
  log(await rcon.send(`fill ${x + 3} ${y} ${z - 4} ${x + 3} ${y + 4} ${z + 4} stone`))
  log(await rcon.send(`fill ${x + 1} ${y} ${z} ${x + 1} ${y} ${z} dirt`))
  await until(() => bot.blockAt(p.offset(1, 0, 0))?.name === 'dirt', 'the client sees the dirt')
  log(await rcon.send(`summon zombie ${x + 8}.5 ${y} ${z}.5`))

  // Quiet, out of sight: 100 ticks of nothing.
  const quietFrom = await gametime(rcon)
  await untilAnswer(async () => {
    const zombies = await rcon.send('zombies')
    check(field(zombies, 'chasing') === '0' && field(zombies, 'investigating') === '0',
      `a quiet client behind the wall draws nobody: ${zombies}`)
    return (await gametime(rcon)) - quietFrom >= 100 || undefined
  }, '100 quiet ticks')

  const dirt = bot.blockAt(p.offset(1, 0, 0))
  const dugAt = await gametime(rcon)
  await bot.dig(dirt)
  await untilAnswer(async () => {
    const zombies = await rcon.send('zombies')
    return (field(zombies, 'investigating') === '1' || field(zombies, 'chasing') === '1') || undefined
  }, 'the zombie heard the dig')
  // On the client's side of the wall, by the dug block.
  const near = () => Object.values(bot.entities).find((e) => e.name === 'zombie' &&
    e.position.x < x + 3 && e.position.xzDistanceTo(dirt.position.offset(0.5, 0, 0.5)) < 4)
  await until(near, 'the zombie came round the wall to the dug block')
  const ticks = (await gametime(rcon)) - dugAt
  await untilAnswer(async () => field(await rcon.send('zombies'), 'chasing') === '1' || undefined,
    'and found the client there')
  return { ticks }
})
