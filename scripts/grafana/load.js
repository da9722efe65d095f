// Load for the dashboard preview (scripts/grafana-preview.sh): a few real mineflayer players
// who roam, RCON commands (zombies, a hunt, night then day, blocks placed and saved, teleports
// far away and back), refused logins (banned, full, not whitelisted), query packets (answered,
// a flood, bad tokens) and wrong RCON passwords, spread over the run so that every panel of
// the dashboard moves.
// Env: HORDE_PORT, HORDE_RCON_PORT, HORDE_RCON_PASSWORD (read by ../e2e/lib.js), HORDE_QUERY_PORT,
// HORDE_LOAD_SECONDS (default 240; the timeline below is written for 240 and scaled).
'use strict'

const dgram = require('dgram')
const util = require('minecraft-server-util')
const { connectBot, rconClient, log } = require('../e2e/lib')

const host = '127.0.0.1'
const queryPort = Number(process.env.HORDE_QUERY_PORT)
const seconds = Number(process.env.HORDE_LOAD_SECONDS || 240)
const scale = seconds / 240
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const started = Date.now()
// Waits until `s` seconds of the 240-second timeline (scaled to the run's length).
const at = (s) => sleep(Math.max(0, started + s * scale * 1000 - Date.now()))

const bots = new Map()
let rcon

async function send (command) {
  try {
    const answer = await rcon.send(command)
    log(`> ${command}: ${answer.split('\n')[0].slice(0, 100)}`)
  } catch (err) {
    log(`> ${command} failed: ${err.message}`)
  }
}

// A player who roams: every few seconds a new heading, sprinting, with the odd jump (which
// zombies hear). Killed players respawn by themselves (mineflayer's default).
async function join (name) {
  const bot = await connectBot(name)
  bot.on('error', (err) => log(`${name}: ${err.message}`))
  bot.on('end', (why) => { log(`${name} left: ${why}`); bots.delete(name) })
  bot.roam = setInterval(() => {
    if (!bot.entity) return
    bot.look(Math.random() * 2 * Math.PI, 0, true).catch(() => {})
    bot.setControlState('forward', true)
    bot.setControlState('sprint', Math.random() < 0.5)
    bot.setControlState('jump', Math.random() < 0.3)
  }, 3000)
  bots.set(name, bot)
  return bot
}

function leave (name) {
  const bot = bots.get(name)
  if (!bot) return
  clearInterval(bot.roam)
  bot.quit()
  bots.delete(name)
}

// A login the server should refuse: counted by reason in horde_login_refusals.
async function refusedJoin (name) {
  try {
    const bot = await connectBot(name)
    log(`${name} was let in (not expected)`)
    bot.quit()
  } catch (err) {
    log(`${name} refused: ${err.message.slice(0, 80)}`)
  }
}

// A ring of zombies around a player, of mixed types.
async function summonAround (name, count, radius) {
  const bot = bots.get(name)
  if (!bot?.entity) return
  const p = bot.entity.position
  const types = ['zombie', 'zombie', 'forest_zombie', 'slow_zombie', 'armored_zombie']
  for (let i = 0; i < count; i++) {
    const a = (2 * Math.PI * i) / count
    const x = Math.floor(p.x + radius * Math.cos(a))
    const z = Math.floor(p.z + radius * Math.sin(a))
    await send(`summon zombie ${x} ${Math.floor(p.y) + 1} ${z} ${types[i % types.length]}`)
  }
}

// A few blocks changed beside each player, then a save: the changed chunks' region files are
// rewritten (horde_save_region_bytes counts only those).
async function buildAndSave () {
  for (const bot of bots.values()) {
    if (!bot.entity) continue
    const p = bot.entity.position.floored()
    await send(`fill ${p.x + 3} ${p.y} ${p.z + 3} ${p.x + 5} ${p.y + 2} ${p.z + 5} cobblestone`)
  }
  await send('save-all')
}

// Everyone to (x, z), from high up with slow falling: a burst of chunk loads, and the old
// chunks unload once nobody is near (their zombies' packs turn ghost).
async function teleportAll (x, z) {
  for (const name of bots.keys()) {
    await send(`effect give ${name} slow_falling 30`)
    await send(`tp ${name} ${x} 140 ${z}`)
  }
}

// Query traffic: proper basic and full stats (answered), stat requests with a wrong token
// (refused) and a flood of handshakes past query.max_packets_per_s (dropped).
async function queries (flood) {
  for (let i = 0; i < 5; i++) {
    await util.queryBasic(host, queryPort, { timeout: 5000 }).catch((err) => log(`query: ${err.message}`))
    await util.queryFull(host, queryPort, { timeout: 5000 }).catch((err) => log(`query: ${err.message}`))
  }
  const socket = dgram.createSocket('udp4')
  const badToken = Buffer.from([0xfe, 0xfd, 0x00, 0, 0, 0, 1, 0x12, 0x34, 0x56, 0x78])
  for (let i = 0; i < 20; i++) await new Promise((resolve) => socket.send(badToken, queryPort, host, resolve))
  const handshake = Buffer.from([0xfe, 0xfd, 9, 0, 0, 0, 1])
  for (let i = 0; i < flood; i++) await new Promise((resolve) => socket.send(handshake, queryPort, host, resolve))
  socket.close()
  log(`query: 10 stats, 20 bad tokens, ${flood} handshakes sent`)
}

async function wrongPassword (times) {
  for (let i = 0; i < times; i++) {
    await rconClient('not-the-password').then((r) => r.end(), () => log('RCON refused a wrong password'))
  }
}

async function main () {
  rcon = await rconClient()
  await send('time set night')
  await send('weather clear')
  await join('alice')
  await at(5); await join('bob')
  await at(10); await join('carol')
  await at(15); await summonAround('alice', 24, 18)
  await at(30); await send('hunt start mystery_forest')
  await at(50); await teleportAll(600, 200)
  await at(60); await queries(3000)
  await at(70); await wrongPassword(3)
  await at(80); await buildAndSave()
  // Refused logins: a banned name, one past max_players (3 in the preview's config), and one
  // not on the whitelist.
  await at(90)
  await send('ban mallory')
  await refusedJoin('mallory')
  await refusedJoin('dave')
  await send('whitelist on')
  leave('carol')
  await refusedJoin('erin')
  await send('whitelist off')
  await at(100); await summonAround('bob', 16, 14)
  await at(110); await join('carol')
  await at(120); leave('bob')
  await at(140); await queries(2000); await buildAndSave()
  await at(150); await join('bob')
  await at(160); await teleportAll(0, 0)
  await at(170); await wrongPassword(2)
  await at(180); await send('time set day')
  await at(200); await buildAndSave(); await send('hunt stop')
  await at(240)
  for (const name of [...bots.keys()]) leave(name)
  await rcon.end()
}

main().then(() => process.exit(0), (err) => { log(err.stack || String(err)); process.exit(1) })
