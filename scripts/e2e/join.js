// A player joins, stands on generated ground, sees the clock run and be set, is hurt by a
// command, dies in the void, respawns at spawn with full health, and is killed once more.
'use strict'

const { connectBot, rconClient, waitFor, until, check, scenario } = require('./lib')

scenario(async () => {
  const rcon = await rconClient()
  const bot = await connectBot('walker')
  check(bot.health === 20, `full health on join (${bot.health})`)
  check(bot.food === 20, `food sent on join (${bot.food})`)
  const spawn = bot.entity.position.clone()

  await until(() => bot.entity.onGround, 'the bot stands on the ground')
  const ground = bot.blockAt(bot.entity.position.offset(0, -0.5, 0))
  check(ground && ground.boundingBox === 'block', `stands on solid ${ground && ground.name}`)
  const listed = await rcon.send('list')
  check(/players=1 .*names=walker/.test(listed), `listed: ${listed}`)

  const age = bot.time.age
  await until(() => bot.time.age >= age + 40, 'two clock updates arrive')
  check(bot.time.age > age, `world age advanced ${age} -> ${bot.time.age}`)
  await rcon.send('time set night')
  await until(() => Math.abs(bot.time.timeOfDay - 13000) < 100, 'the night arrives')
  check(true, `time set night seen as ${bot.time.timeOfDay}`)

  const hurt = waitFor(bot, 'entityHurt', (e) => e === bot.entity, 'the hurt effect')
  const damaged = await rcon.send('damage walker 5')
  check(/health=15/.test(damaged), `damage answered: ${damaged}`)
  await until(() => bot.health === 15, 'health drops to 15')
  await hurt
  check(true, 'the hurt effect reached the client')

  const died = waitFor(bot, 'death')
  const respawned = waitFor(bot, 'spawn')
  await rcon.send('tp walker ~ -200 ~')
  await died
  check(true, 'died in the void')
  await respawned
  await until(() => bot.health === 20, 'health is full after respawn')
  await until(() => bot.entity.position.distanceTo(spawn) < 1, 'the bot is back at spawn')
  check(true, `respawned at ${bot.entity.position}`)

  const diedAgain = waitFor(bot, 'death')
  await rcon.send('kill walker')
  await diedAgain
  await waitFor(bot, 'spawn')
  check(bot.health === 20, 'respawned after kill')

  const chunks = await rcon.send('chunks')
  bot.quit()
  await rcon.end()
  return { spawn: spawn.toArray(), chunks }
})
