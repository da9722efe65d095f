// At night a zombie summoned behind a glass wall walks around it to a player standing still
// and hits them; the player kills it with a sword. Then a second zombie follows a player who
// runs away.
'use strict'

const { connectBot, rconClient, waitFor, until, check, log, scenario } = require('./lib')

scenario(async () => {
  const rcon = await rconClient()
  const bot = await connectBot('hunter')
  await until(() => bot.entity.onGround, 'the bot stands on the ground')
  const p = bot.entity.position.floored()
  const [x, y, z] = [p.x, p.y, p.z]
  await rcon.send('time set midnight')
  // A flat stone arena, a glass wall 3 high and 9 wide between the player and the zombie.
  log(await rcon.send(`fill ${x - 10} ${y - 2} ${z - 10} ${x + 14} ${y - 1} ${z + 10} stone`))
  log(await rcon.send(`fill ${x - 10} ${y} ${z - 10} ${x + 14} ${y + 5} ${z + 10} air`))
  log(await rcon.send(`fill ${x + 4} ${y} ${z - 4} ${x + 4} ${y + 2} ${z + 4} glass`))
  const given = await rcon.send('give hunter iron_sword')
  check(/given=iron_sword/.test(given), given)

  const summoned = await rcon.send(`summon zombie ${x + 8.5} ${y} ${z + 0.5}`)
  check(/summoned=zombie/.test(summoned), summoned)
  await until(() => Object.values(bot.entities).some((e) => e.name === 'zombie'), 'the zombie is seen')
  const zombie = Object.values(bot.entities).find((e) => e.name === 'zombie')

  let widest = 0
  const watch = setInterval(() => { widest = Math.max(widest, Math.abs(zombie.position.z - (z + 0.5))) }, 50)
  await waitFor(bot, 'health', () => bot.health < 20, 'the zombie hits the player')
  clearInterval(watch)
  check(widest > 4, `the zombie went around the wall (|dz| up to ${widest.toFixed(2)})`)
  check(bot.health <= 17, `the player lost health: ${bot.health}`)

  await bot.equip(bot.inventory.items().find((i) => i.name === 'iron_sword'), 'hand')
  const gone = waitFor(bot, 'entityGone', (e) => e === zombie, 'the zombie dies')
  let swings = 0
  const swing = setInterval(() => {
    if (bot.entities[zombie.id]) { bot.lookAt(zombie.position.offset(0, 1.6, 0), true); bot.attack(zombie); swings++ }
  }, 600)
  await gone
  clearInterval(swing)
  check(true, `the player killed the zombie in ${swings} swings`)
  const report = await rcon.send('zombies')
  check(/total=0 /.test(report), `no zombie left: ${report}`)

  // A fleeing player is followed.
  await rcon.send(`summon zombie ${x + 2.5} ${y} ${z - 6.5}`)
  await until(() => Object.values(bot.entities).some((e) => e.name === 'zombie'), 'the second zombie is seen')
  const chaser = Object.values(bot.entities).find((e) => e.name === 'zombie')
  await until(() => chaser.position.distanceTo(bot.entity.position) < 4, 'the zombie comes close')
  const start = chaser.position.clone()
  await bot.lookAt(bot.entity.position.offset(-10, 1.6, 0), true)
  bot.setControlState('forward', true)
  const age = bot.time.age
  await until(() => bot.time.age >= age + 80, 'four seconds of running')
  bot.clearControlStates()
  // Hops lag by design: the zombie learns of the flight only when its current hop ends.
  const followed = start.x - chaser.position.x
  check(followed > 3, `the zombie followed the player ${followed.toFixed(2)} blocks west`)
  const zombies = await rcon.send('zombies')
  check(/chasing=1|attacking=1/.test(zombies), `still after the player: ${zombies}`)
  bot.quit()
  await rcon.end()
  return { widest, swings, followed, zombies }
})
