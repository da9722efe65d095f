// A player stands in creative near the spawn for HORDE_WATCH_SECONDS seconds, so that zombies
// around it act (nothing else): other tests drive the server meanwhile.
'use strict'

const { connectBot, rconClient, until, scenario } = require('./lib')

scenario(async () => {
  const rcon = await rconClient()
  const bot = await connectBot('watcher')
  await rcon.send('gamemode creative watcher')
  const ticks = 20 * Number(process.env.HORDE_WATCH_SECONDS || 10)
  const age = bot.time.age
  await until(() => bot.time.age >= age + ticks, 'the watch is over')
  bot.quit()
  await rcon.end()
  return {}
})
