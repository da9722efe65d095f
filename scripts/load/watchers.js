// Full mineflayer bots for the load harness (node watchers.js PORT NAME...): real clients with
// physics that walk about and report, every 5 seconds, what they see: zombies in sight and how
// many of them moved since the last report. One JSON line per report on stdout.
'use strict'

const mineflayer = require('mineflayer')

const [port, ...names] = process.argv.slice(2)

function connect (username) {
  return new Promise((resolve, reject) => {
    const bot = mineflayer.createBot({ host: '127.0.0.1', port: Number(port), username, version: '1.20.1', auth: 'offline' })
    bot.once('spawn', () => resolve(bot))
    bot.once('kicked', (reason) => reject(new Error(`${username} kicked: ${reason}`)))
    bot.once('error', reject)
  })
}

function watch (bot) {
  let last = new Map()
  let deaths = 0
  // Home is where the harness teleports the bot; after a death it walks back from the spawn.
  const spawn = bot.entity.position.clone()
  let home = null
  bot.on('forcedMove', () => { if (!home && bot.entity.position.distanceTo(spawn) > 100) home = bot.entity.position.clone() })
  bot.on('death', () => deaths++)
  setInterval(() => {
    // Wander: a new direction now and then, sprinting half the time, back home when 32 out.
    const pos = bot.entity.position
    const yaw = home && pos.distanceTo(home) > 32
      ? Math.atan2(-(home.x - pos.x), -(home.z - pos.z))
      : Math.random() * 2 * Math.PI
    bot.look(yaw, 0, true).catch(() => {})
    bot.setControlState('forward', true)
    bot.setControlState('sprint', Math.random() < 0.5)
    bot.setControlState('jump', Math.random() < 0.3)
  }, 3000)
  setInterval(() => {
    const zombies = Object.values(bot.entities).filter((e) => e.name === 'zombie')
    const now = new Map(zombies.map((e) => [e.id, e.position.clone()]))
    let moved = 0
    for (const [id, pos] of now) {
      const before = last.get(id)
      if (before && before.distanceTo(pos) > 0.01) moved++
    }
    last = now
    const at = bot.entity.position
    console.log(JSON.stringify({
      name: bot.username,
      zombies: zombies.length,
      moved,
      entities: Object.keys(bot.entities).length,
      at: [at.x, at.y, at.z].map(Math.round),
      standingIn: bot.blockAt(at)?.name,
      health: bot.health,
      deaths
    }))
  }, 5000)
}

Promise.all(names.map(connect)).then((bots) => {
  bots.forEach(watch)
  console.log(JSON.stringify({ ready: true }))
}, (err) => {
  console.log(JSON.stringify({ error: String(err.message || err) }))
  process.exit(1)
})
