// A player roams: teleports far away several times and walks a little at each stop, so chunks
// load around it and unload behind it. Reports the server's chunk latency distribution.
'use strict'

const { connectBot, rconClient, until, check, log, scenario } = require('./lib')

const HOPS = Number(process.env.HORDE_ROAM_HOPS || 4)
const SPACING = Number(process.env.HORDE_ROAM_SPACING || 400)
// Ticks to wait at the end so chunks left behind outlive their retention.
const SETTLE_TICKS = Number(process.env.HORDE_ROAM_SETTLE_TICKS || 100)

scenario(async () => {
  const rcon = await rconClient()
  const bot = await connectBot('roamer')
  // Dropped from high above each stop: in creative a fall hurts nobody, so the bot lands where
  // it was sent rather than dying and walking again at the spawn.
  await rcon.send('gamemode creative roamer')
  await until(() => bot.game.gameMode === 'creative', 'the roamer is in creative')
  for (let hop = 1; hop <= HOPS; hop++) {
    const x = hop * SPACING
    const z = (hop % 2) * SPACING
    await rcon.send(`tp roamer ${x} 200 ${z}`)
    await until(() => bot.entity.position.distanceTo({ x, y: bot.entity.position.y, z }) < 2,
      `the bot reaches ${x} ${z}`)
    await until(() => bot.entity.onGround, `the bot lands at ${x} ${z}`)
    const at = bot.entity.position
    check(Math.abs(at.x - x) < 2 && Math.abs(at.z - z) < 2, `the bot landed at ${x} ${z}: ${at}`)
    const ground = bot.blockAt(bot.entity.position.offset(0, -0.5, 0))
    check(ground !== null, `chunks arrived at ${x} ${z}, standing on ${ground && ground.name}`)
    bot.setControlState('forward', true)
    bot.setControlState('sprint', true)
    const age = bot.time.age
    await until(() => bot.time.age >= age + 40, 'two seconds of walking')
    bot.clearControlStates()
  }
  const age = bot.time.age
  await until(() => bot.time.age >= age + SETTLE_TICKS, 'the chunks left behind expire')
  const chunks = await rcon.send('chunks')
  log(chunks)
  bot.quit()
  await rcon.end()
  return { chunks }
})
