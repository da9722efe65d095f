// What a proxy costs a player: joins one mineflayer client ROUNDS times straight to a direct
// horde and as many times through infrarust to a horde behind it (alternating), and prints
// for each route the time from connecting to spawning and the bytes the client received by
// then and over the SETTLE_S seconds after (the chunks of its view). Run by scripts/bench-proxy.sh.
'use strict'

const mineflayer = require('mineflayer')

const routes = {
  direct: Number(process.env.HORDE_DIRECT_PORT),
  proxy: Number(process.env.HORDE_PROXY_PORT)
}
const rounds = Number(process.env.ROUNDS || 10)
const settleMs = 1000 * Number(process.env.SETTLE_S || 5)

function join (port, username) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const bot = mineflayer.createBot({ host: '127.0.0.1', port, username, version: '1.20.1', auth: 'offline' })
    bot.once('error', reject)
    bot.once('kicked', (why) => reject(new Error(`kicked: ${why}`)))
    const lost = () => reject(new Error(`${username} was disconnected before spawning`))
    bot.once('end', lost)
    bot.once('spawn', () => {
      bot.removeListener('end', lost)
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      const atSpawn = bot._client.socket.bytesRead
      setTimeout(() => {
        const settled = bot._client.socket.bytesRead
        bot.once('end', () => resolve({ ms, atSpawn, settled }))
        bot.quit()
      }, settleMs)
    })
  })
}

function summary (samples, key) {
  const v = samples.map((s) => s[key]).sort((a, b) => a - b)
  const mean = v.reduce((a, b) => a + b, 0) / v.length
  return { mean, min: v[0], median: v[Math.floor(v.length / 2)], max: v[v.length - 1] }
}

async function main () {
  const samples = { direct: [], proxy: [] }
  for (let i = 0; i < rounds; i++) {
    for (const route of Object.keys(routes)) {
      samples[route].push(await join(routes[route], `${route}${i}`))
    }
  }
  const fmt = (s, digits) => `mean ${s.mean.toFixed(digits)} (min ${s.min.toFixed(digits)}, median ${s.median.toFixed(digits)}, max ${s.max.toFixed(digits)})`
  for (const route of Object.keys(routes)) {
    const s = samples[route]
    console.log(`${route}: ${s.length} joins`)
    console.log(`  join ms             ${fmt(summary(s, 'ms'), 1)}`)
    console.log(`  kB by spawn         ${fmt(summary(s.map((x) => ({ v: x.atSpawn / 1000 })), 'v'), 1)}`)
    console.log(`  kB by spawn + ${settleMs / 1000} s   ${fmt(summary(s.map((x) => ({ v: x.settled / 1000 })), 'v'), 1)}`)
  }
}

main().catch((err) => { console.error(err); process.exit(1) })
