// Two horde backends behind a real proxy (infrarust, Velocity modern forwarding, round robin):
// four mineflayer clients join through it and land on both backends under their forwarded
// names and UUIDs; each backend keeps its own zombies and save; a client that connects straight
// to a backend, or through a proxy with the wrong secret, is refused with a message.
'use strict'

const crypto = require('crypto')
const { connectBot, rconClient, check, log, scenario } = require('./lib')

const proxyPort = Number(process.env.HORDE_PROXY_PORT)
const wrongProxyPort = Number(process.env.HORDE_WRONG_PROXY_PORT)
const backends = {
  a: { port: Number(process.env.HORDE_PORT), rcon: Number(process.env.HORDE_RCON_PORT) },
  b: { port: Number(process.env.HORDE_B_PORT), rcon: Number(process.env.HORDE_B_RCON_PORT) }
}

// Vanilla's offline UUID (Java's nameUUIDFromBytes of "OfflinePlayer:<name>"): what an offline
// proxy forwards. Valence's own offline UUIDs differ, so a match shows the forwarding was used.
function offlineUuid (name) {
  const b = crypto.createHash('md5').update(`OfflinePlayer:${name}`).digest()
  b[6] = (b[6] & 0x0f) | 0x30
  b[8] = (b[8] & 0x3f) | 0x80
  const hex = b.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

// The reason a join was refused with (or a note that it was not).
async function refusal (name, port) {
  try {
    const bot = await connectBot(name, () => {}, port)
    bot.end()
    return 'joined'
  } catch (err) {
    return String(err.message)
  }
}

function field (line, key) {
  const m = line.match(new RegExp(`${key}=(\\S*)`))
  return m ? m[1] : null
}

scenario(async () => {
  const names = ['Alpha', 'Bravo', 'Charlie', 'Delta']
  const bots = []
  for (const name of names) {
    const bot = await connectBot(name, () => {}, proxyPort)
    bots.push(bot)
    check(bot.username === name, `${name} joined through the proxy under its name`)
    const uuid = bot._client.uuid
    check(uuid === offlineUuid(name), `${name} has the forwarded UUID (${uuid})`)
  }

  const a = await rconClient(undefined, backends.a.rcon)
  const b = await rconClient(undefined, backends.b.rcon)
  const onA = field(await a.send('list'), 'names').split(',').filter(Boolean)
  const onB = field(await b.send('list'), 'names').split(',').filter(Boolean)
  log(`backend a: ${onA.join(' ')}; backend b: ${onB.join(' ')}`)
  check(onA.length === 2 && onB.length === 2, 'round robin put two players on each backend')
  check([...onA, ...onB].sort().join() === names.join(), 'every player is on exactly one backend')

  // Each backend keeps its own zombies and its own save.
  for (let i = 0; i < 3; i++) await a.send(`summon zombie ~${4 + i} ~ ~`)
  await b.send('summon zombie ~4 ~ ~')
  const zombiesA = field(await a.send('zombies'), 'total')
  const zombiesB = field(await b.send('zombies'), 'total')
  check(zombiesA === '3' && zombiesB === '1', `each backend has only its own zombies (${zombiesA}, ${zombiesB})`)
  const savedA = await a.send('save-all')
  const savedB = await b.send('save-all')
  log(`save on a: ${savedA}; on b: ${savedB}`)
  check(field(savedA, 'players') === '2' && field(savedB, 'players') === '2', 'each backend saved only its own players')

  const direct = await refusal('Sneaky', backends.a.port)
  log(`straight to a backend: ${direct}`)
  check(direct.includes('join through the network'), 'a client that skips the proxy is told to join through it')
  const forged = await refusal('Forger', wrongProxyPort)
  log(`through a proxy with the wrong secret: ${forged}`)
  check(forged.includes('Unable to verify player details'), 'a proxy with the wrong secret gets nobody in')

  for (const bot of bots) bot.end()
  await a.end()
  await b.end()
  return { a: onA, b: onB }
})
