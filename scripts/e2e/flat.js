// A flat world (server.generator = "flat"): a player joins and stands on vanilla's default
// superflat, bedrock at the bottom of the world, two dirt, grass, their feet at y -60.
'use strict'

const { connectBot, until, check, scenario } = require('./lib')

scenario(async () => {
  const bot = await connectBot('builder')
  await until(() => bot.entity.onGround, 'the bot stands on the ground')
  const feet = bot.entity.position
  check(feet.y === -60, `feet at vanilla's flat height, y -60: ${feet}`)
  const column = [-64, -63, -62, -61, -60].map((y) => bot.blockAt(feet.floored().offset(0, y - feet.y, 0)).name)
  check(column.join() === 'bedrock,dirt,dirt,grass_block,air', `bedrock, two dirt, grass: ${column}`)
  const far = feet.floored().offset(40, -1, -40)
  await until(() => bot.blockAt(far) && bot.blockAt(far).name === 'grass_block', 'grass 40 blocks away too')
  bot.quit()
  return { feet: feet.toArray() }
})
