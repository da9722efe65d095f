// At noon, a real client sees a zombie in the open burning (the on-fire flag of its metadata),
// one under a roof not burning, and none burning once the world reaches the immune phase. The
// open one is penned in glass: the sun's roll passes within a second about half the time, and
// it must not walk into the shade first.
'use strict'

const { connectBot, rconClient, until, check, log, scenario } = require('./lib')

const onFire = (entity) => Boolean(entity && (entity.metadata[0] & 0x01))

scenario(async () => {
  const rcon = await rconClient()
  const bot = await connectBot('watcher')
  await until(() => bot.entity.onGround, 'the bot stands on the ground')
  const p = bot.entity.position.floored()
  const [x, y, z] = [p.x, p.y, p.z]
  log(await rcon.send('gamemode creative watcher'))
  log(await rcon.send(`fill ${x - 14} ${y - 4} ${z - 8} ${x + 14} ${y - 1} ${z + 8} stone`))
  log(await rcon.send(`fill ${x - 14} ${y} ${z - 8} ${x + 14} ${y + 12} ${z + 8} air`))
  log(await rcon.send(`fill ${x - 14} ${y + 4} ${z - 8} ${x - 4} ${y + 4} ${z + 8} stone`))
  log(await rcon.send(`fill ${x + 7} ${y} ${z - 1} ${x + 9} ${y + 1} ${z + 1} glass`))
  log(await rcon.send(`fill ${x + 8} ${y} ${z} ${x + 8} ${y + 1} ${z} air`))
  log(await rcon.send('phase set 0'))
  log(await rcon.send('time set noon'))

  const zombiesNear = (px) => Object.values(bot.entities)
    .filter((e) => e.name === 'zombie' && Math.abs(e.position.x - px) < 3)
  await rcon.send(`summon zombie ${x + 8.5} ${y} ${z + 0.5}`)
  await rcon.send(`summon zombie ${x - 9.5} ${y} ${z + 0.5}`)
  await until(() => zombiesNear(x + 8.5).length === 1 && zombiesNear(x - 9.5).length === 1, 'both zombies are seen')
  const open = zombiesNear(x + 8.5)[0]
  const roofed = zombiesNear(x - 9.5)[0]

  let roofedBurned = false
  const watch = setInterval(() => { roofedBurned = roofedBurned || onFire(roofed) }, 25)
  await until(() => onFire(open), 'the zombie in the open burns')
  check(true, 'the zombie in the open is on fire')
  const age = bot.time.age
  await until(() => bot.time.age >= age + 60, 'three more seconds')
  clearInterval(watch)
  check(!roofedBurned, 'the zombie under the roof never burned')

  const phase = await rcon.send('phase set 5')
  check(/burning=false/.test(phase), phase)
  const known = new Set(Object.keys(bot.entities))
  await rcon.send(`summon zombie ${x + 11.5} ${y} ${z + 5.5}`)
  const fresh = () => Object.entries(bot.entities).find(([id, e]) => !known.has(id) && e.name === 'zombie')
  await until(() => fresh() !== undefined, 'the third zombie is seen')
  const immune = fresh()[1]
  let immuneBurned = false
  const watch2 = setInterval(() => { immuneBurned = immuneBurned || onFire(immune) }, 25)
  const age2 = bot.time.age
  await until(() => bot.time.age >= age2 + 80, 'four seconds at the immune phase')
  clearInterval(watch2)
  check(!immuneBurned, 'no zombie burns at the immune phase')
  bot.quit()
  await rcon.end()
  return { phase }
})
