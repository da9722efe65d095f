// Shared helpers for the end-to-end scenarios: a real mineflayer client, a real RCON client,
// and waits that fail with a clear message instead of hanging. The Rust tests start the server
// and pass its ports in the environment.
'use strict'

const mineflayer = require('mineflayer')
const { Rcon } = require('rcon-client')

const host = '127.0.0.1'
const port = Number(process.env.HORDE_PORT)
const rconPort = Number(process.env.HORDE_RCON_PORT)
const rconPassword = process.env.HORDE_RCON_PASSWORD
// The bound on each wait, the Rust tests' patience (HORDE_TEST_PATIENCE_S): these machines
// are shared and noisy. Conditions are waited for, never timed.
const WAIT_MS = Number(process.env.HORDE_WAIT_MS || 120000)

function log (...args) {
  console.error(`[${new Date().toISOString()}]`, ...args)
}

// Resolves with the bot once it has spawned (after the first health update). `onCreate`
// sees the bot before any packet arrives, for listeners that must not miss the join packets.
// `to` is the port to join (the server's unless given: a proxy's, say).
function connectBot (username, onCreate = () => {}, to = port) {
  return new Promise((resolve, reject) => {
    const bot = mineflayer.createBot({ host, port: to, username, version: '1.20.1', auth: 'offline' })
    onCreate(bot)
    const timer = setTimeout(() => reject(new Error(`${username} did not spawn`)), WAIT_MS)
    bot.once('spawn', () => { clearTimeout(timer); log(`${username} spawned`); resolve(bot) })
    bot.once('kicked', (reason) => { clearTimeout(timer); reject(new Error(`kicked: ${reason}`)) })
    bot.once('error', (err) => { clearTimeout(timer); reject(err) })
    // A socket written to as the server closes it (a kick) errs again and again: logged, lest
    // an unheard error end the scenario; what the scenario checks says what went wrong.
    bot.on('error', (err) => log(`${username}: ${err.message || err}`))
    // Closed before spawning without a word (settles nothing if already kicked).
    bot.once('end', (why) => { clearTimeout(timer); reject(new Error(`ended before spawning: ${why}`)) })
  })
}

// `to` is the RCON port (the server's unless given: another backend's, say).
async function rconClient (password = rconPassword, to = rconPort) {
  const rcon = new Rcon({ host, port: to, password, timeout: WAIT_MS })
  await rcon.connect()
  return rcon
}

// Waits for `event` on `emitter` whose arguments satisfy `accept`.
function waitFor (emitter, event, accept = () => true, what = event) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      emitter.removeListener(event, listener)
      reject(new Error(`timed out waiting for ${what}`))
    }, WAIT_MS)
    function listener (...args) {
      if (!accept(...args)) return
      clearTimeout(timer)
      emitter.removeListener(event, listener)
      resolve(args)
    }
    emitter.on(event, listener)
  })
}

// Polls `condition` until it holds.
async function until (condition, what) {
  const deadline = Date.now() + WAIT_MS
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

// Asks the async `probe` again and again until it answers something truthy, and returns that.
async function untilAnswer (probe, what) {
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    const answer = await probe()
    if (answer) return answer
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

function check (ok, what) {
  if (!ok) throw new Error(`check failed: ${what}`)
  log(`ok: ${what}`)
}

// Runs a scenario: prints its result as one JSON line on stdout, exits 0 only on success.
function scenario (body) {
  body()
    .then((result) => {
      console.log(JSON.stringify({ ok: true, ...result }))
      process.exit(0)
    })
    .catch((err) => {
      log(err.stack || String(err))
      console.log(JSON.stringify({ ok: false, error: String(err.message || err) }))
      process.exit(1)
    })
}

// Strikes `zombie` with whatever is in hand, once the charge is back, until it is gone.
async function slay (bot, zombie) {
  const deadline = Date.now() + WAIT_MS
  let swings = 0
  while (bot.entities[zombie.id]) {
    if (Date.now() > deadline) throw new Error('timed out waiting until the zombie dies')
    await bot.lookAt(zombie.position.offset(0, 1.6, 0), true)
    bot.attack(zombie)
    swings++
    // A sword's full charge: 20 / 1.6 ticks (weaker blows only take longer).
    await bot.waitForTicks(13)
  }
  return swings
}

module.exports = { connectBot, rconClient, waitFor, until, untilAnswer, check, log, scenario, slay, WAIT_MS }
