// A real client's belongings outlast a reconnect and a restart. HORDE_STEP=leave: the keeper
// joins, is given dirt, moved and put in adventure, and leaves. HORDE_STEP=back (after the
// test restarted the server): the keeper joins again and finds all of it as it was.
'use strict'

const { connectBot, rconClient, until, check, log, scenario } = require('./lib')
// node-minecraft-protocol's offline UUID, vanilla's: MD5 of "OfflinePlayer:<name>".
const { nameToMcOfflineUUID } = require('minecraft-protocol/src/datatypes/uuid')

const dirt = (bot) => bot.inventory.items().filter((i) => i.name === 'dirt').reduce((n, i) => n + i.count, 0)

scenario(async () => {
  const rcon = await rconClient()
  const bot = await connectBot('keeper')
  const uuid = nameToMcOfflineUUID('keeper')
  check(bot._client.uuid === uuid, `logged in under vanilla's offline UUID ${bot._client.uuid}`)
  await until(() => bot.player && bot.player.uuid === uuid, 'listed under it')
  if (process.env.HORDE_STEP === 'leave') {
    await until(() => bot.entity.onGround, 'the keeper stands on the ground')
    const p = bot.entity.position.floored()
    const spot = { x: p.x + 3.5, y: p.y + 10, z: p.z + 0.5 }
    log(await rcon.send(`fill ${p.x + 3} ${p.y + 9} ${p.z} ${p.x + 3} ${p.y + 9} ${p.z} stone`))
    log(await rcon.send('give keeper dirt 5'))
    log(await rcon.send('gamemode adventure keeper'))
    log(await rcon.send(`tp keeper ${spot.x} ${spot.y} ${spot.z}`))
    const perched = () => bot.entity.position.distanceTo(bot.entity.position.clone().set(spot.x, spot.y, spot.z)) < 0.5
    await until(() => dirt(bot) === 5 && bot.game.gameMode === 'adventure' && perched(),
      'the keeper holds the dirt, in adventure, on its perch')
    bot.quit()
    await rcon.end()
    return { spot, uuid }
  }
  const spot = JSON.parse(process.env.HORDE_SPOT)
  await until(() => dirt(bot) === 5, 'the keeper has its dirt back')
  check(bot.game.gameMode === 'adventure', `back in ${bot.game.gameMode}`)
  const d = bot.entity.position.distanceTo(bot.entity.position.clone().set(spot.x, spot.y, spot.z))
  check(d < 0.5, `back on its perch (${d.toFixed(2)} blocks off)`)
  bot.quit()
  await rcon.end()
  return { back: true }
})
