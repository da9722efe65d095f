// Six zombies summoned near a player form a pack. Walking and flying around it, and a short
// trip away, leave the pack as it is (the grace outlasts the chunk unload latency: no flap);
// a long trip turns it into a ghost;
// the player goes to where the ghost has walked and sees its six zombies again.
'use strict'

const { connectBot, rconClient, until, untilAnswer, check, log, scenario } = require('./lib')

// `packs` lines as objects.
function parsePacks (text) {
  return text.split('\n').map((line) => Object.fromEntries(
    line.split(' ').filter((kv) => kv.includes('=')).map((kv) => kv.split('='))))
}

scenario(async () => {
  const rcon = await rconClient()
  const bot = await connectBot('scout')
  await until(() => bot.entity.onGround, 'the bot stands on the ground')
  const p = bot.entity.position.floored()
  const [x, y, z] = [p.x, p.y, p.z]
  await rcon.send('gamemode creative scout')
  await rcon.send('time set 14000')
  // A flat stone field so that all six stand together.
  await rcon.send(`fill ${x - 12} ${y - 2} ${z - 12} ${x + 12} ${y - 1} ${z + 12} stone`)
  await rcon.send(`fill ${x - 12} ${y} ${z - 12} ${x + 12} ${y + 6} ${z + 12} air`)
  for (let i = 0; i < 6; i++) {
    await rcon.send(`summon zombie ${x + 6.5 + (i % 3) * 2} ${y} ${z + 0.5 + Math.floor(i / 3) * 2}`)
  }
  const pack = await untilAnswer(async () =>
    parsePacks(await rcon.send('packs')).find((l) => l.members === '6'), 'a pack of six formed')
  check(pack !== undefined, `a pack of six formed: ${JSON.stringify(pack)}`)

  // Walk around the pack, then fly off and back: the pack stays as it is.
  bot.setControlState('forward', true)
  let walked = bot.time.age
  await until(() => bot.time.age >= walked + 60, 'three seconds of walking')
  bot.clearControlStates()
  bot.creative.startFlying()
  await bot.creative.flyTo(bot.entity.position.offset(0, 20, 0))
  await bot.creative.flyTo(bot.entity.position.offset(100, 0, 0))
  await bot.creative.flyTo(bot.entity.position.offset(-100, 0, 30))
  bot.creative.stopFlying()
  let summary = parsePacks(await rcon.send('packs')).at(-1)
  check(summary.dematerialised === '0' && summary.flaps === '0', `walking and flying change nothing: ${JSON.stringify(summary)}`)

  // A short trip: back before retention plus grace run out.
  await rcon.send(`tp scout ${x + 2000} 120 ${z}`)
  let age = bot.time.age
  await until(() => bot.time.age >= age + 100, 'five seconds away')
  await rcon.send(`tp scout ${x} ${y + 1} ${z}`)
  age = bot.time.age
  await until(() => bot.time.age >= age + 60, 'three seconds back')
  summary = parsePacks(await rcon.send('packs')).at(-1)
  check(summary.dematerialised === '0' && summary.flaps === '0', `a short trip changes nothing: ${JSON.stringify(summary)}`)

  // A long trip: the pack becomes a ghost.
  await rcon.send(`tp scout ${x + 3000} 120 ${z + 3000}`)
  let ghost = await untilAnswer(async () =>
    parsePacks(await rcon.send('packs')).find((l) => l.id === pack.id && l.state === 'ghost'),
  'the pack becomes a ghost')
  check(ghost && ghost.ghosts === '6', `the pack is a ghost of six: ${JSON.stringify(ghost)}`)
  log(`ghost at ${ghost.x} ${ghost.z}, heading for ${ghost.dest_x} ${ghost.dest_z}`)

  // Let it walk on as a ghost a while (a return within a few sweeps would count as a flap).
  age = bot.time.age
  await until(() => bot.time.age >= age + 160, 'eight seconds as a ghost')
  // Go where the ghost has walked to meanwhile.
  ghost = parsePacks(await rcon.send('packs')).find((l) => l.id === pack.id)
  await rcon.send(`tp scout ${ghost.x} 200 ${ghost.z}`)
  const near = () => Object.values(bot.entities).filter((e) => e.name === 'zombie' &&
    Math.hypot(e.position.x - Number(ghost.x), e.position.z - Number(ghost.z)) < 80)
  await until(() => near().length >= 6, 'the pack\'s zombies are seen again')
  summary = parsePacks(await rcon.send('packs')).at(-1)
  check(summary.restores === '1' && summary.flaps === '0', `restored once, no flap: ${JSON.stringify(summary)}`)
  // The grace (sweeps of 20 ticks) outlasts the measured unload latency.
  const grace = 20 * Number(process.env.HORDE_GRACE_SWEEPS || 40)
  check(Number(summary.chunk_unload_p99) < grace, `unload p99 ${summary.chunk_unload_p99} ticks < grace ${grace} ticks`)
  const restored = parsePacks(await rcon.send('packs')).find((l) => l.id === pack.id)
  check(restored && restored.members === '6' && restored.state === 'materialised', `same pack back: ${JSON.stringify(restored)}`)
  bot.quit()
  await rcon.end()
  return { summary }
})
